/**
 * Seeded sampling of executions. Each execution gets a key in [0, 1) from a hash of (seed,
 * execution id), so a sample depends only on the seed and the executions considered: the same
 * inputs give the same sample, and an execution's chance never depends on its neighbours. A rate
 * keeps the executions whose key is under it; a fixed size keeps the smallest keys; stratified,
 * each status gets its share (at least one execution of every status seen).
 */
import { createHash } from 'node:crypto';

export type SamplingMode = 'all' | 'rate' | 'fixed';

export interface SamplingOptions {
	mode: SamplingMode;
	/** Percent, 0..100 (mode rate). */
	rate?: number;
	/** Executions to keep (mode fixed). */
	size?: number;
	seed?: number;
	/** Each status gets its share of the sample. */
	stratify?: boolean;
}

/** What sampling needs of an execution. */
export interface Candidate {
	id: string;
	status: string;
}

/** The execution's sampling key in [0, 1): 48 bits of SHA-256 of `seed:id`. */
export function sampleKey(seed: number, id: string): number {
	const h = createHash('sha256').update(`${seed}:${id}`).digest();
	return h.readUIntBE(0, 6) / 2 ** 48;
}

/** Rate as a fraction in [0, 1]; NaN and out-of-range values are refused. */
export function rateFraction(rate: number | undefined): number {
	const r = Number(rate);
	if (!Number.isFinite(r) || r < 0 || r > 100)
		throw new RangeError(`Sample Rate must be a percent from 0 to 100, got ${String(rate)}`);
	return r / 100;
}

/**
 * Whether a sample can be decided one execution at a time, as pages stream in (all, or an
 * unstratified rate); otherwise every candidate is listed first and {@link chooseSample} picks.
 */
export function decidesPerExecution(o: SamplingOptions): boolean {
	return o.mode === 'all' || (o.mode === 'rate' && !o.stratify);
}

/** The per-execution decision of {@link decidesPerExecution} samplings. */
export function keepOne(o: SamplingOptions, id: string): boolean {
	if (o.mode === 'all') return true;
	if (o.mode !== 'rate' || o.stratify)
		throw new Error('keepOne: only all and unstratified rate decide per execution');
	const f = rateFraction(o.rate);
	if (f >= 1) return true;
	return sampleKey(o.seed ?? 0, id) < f;
}

/** The `n` candidates with the smallest keys. */
function smallest(cands: readonly Candidate[], n: number, seed: number): Candidate[] {
	if (n <= 0) return [];
	if (n >= cands.length) return [...cands];
	return cands
		.map((c) => ({ c, k: sampleKey(seed, c.id) }))
		.sort((a, b) => a.k - b.k || (a.c.id < b.c.id ? -1 : 1))
		.slice(0, n)
		.map((x) => x.c);
}

/**
 * Splits `total` over strata in proportion to their sizes (largest remainder), giving every
 * non-empty stratum at least one when `total` allows, never more than a stratum holds.
 */
export function allocate(sizes: ReadonlyMap<string, number>, total: number): Map<string, number> {
	const out = new Map<string, number>();
	const all = [...sizes.values()].reduce((a, b) => a + b, 0);
	if (all === 0 || total <= 0) {
		for (const k of sizes.keys()) out.set(k, 0);
		return out;
	}
	const t = Math.min(total, all);
	const keys = [...sizes.keys()].sort();
	const rem: { k: string; r: number }[] = [];
	let given = 0;
	for (const k of keys) {
		const exact = (t * (sizes.get(k) ?? 0)) / all;
		const base = Math.floor(exact);
		out.set(k, base);
		given += base;
		rem.push({ k, r: exact - base });
	}
	rem.sort((a, b) => b.r - a.r || (a.k < b.k ? -1 : 1));
	for (let i = 0; given < t; i = (i + 1) % rem.length) {
		const k = rem[i].k;
		if ((out.get(k) ?? 0) < (sizes.get(k) ?? 0)) {
			out.set(k, (out.get(k) ?? 0) + 1);
			given++;
		}
	}
	// Every status seen is represented when the total allows: take one from the largest share.
	if (t >= keys.length) {
		for (const k of keys) {
			if ((out.get(k) ?? 0) > 0 || (sizes.get(k) ?? 0) === 0) continue;
			const donor = keys.reduce((a, b) => ((out.get(b) ?? 0) > (out.get(a) ?? 0) ? b : a));
			if ((out.get(donor) ?? 0) <= 1) break;
			out.set(donor, (out.get(donor) ?? 0) - 1);
			out.set(k, 1);
		}
	}
	return out;
}

/**
 * The sample of a listed set of candidates: ids kept, in the candidates' order. Rate: the share
 * `rate` of them (stratified: of each status, rounded, at least one of every status seen when the
 * rate is above zero); fixed: `size` of them (stratified: split over statuses in proportion).
 */
export function chooseSample(cands: readonly Candidate[], o: SamplingOptions): Set<string> {
	const seed = o.seed ?? 0;
	if (o.mode === 'all') return new Set(cands.map((c) => c.id));
	if (o.mode === 'rate' && !o.stratify)
		return new Set(cands.filter((c) => keepOne(o, c.id)).map((c) => c.id));
	const byStatus = new Map<string, Candidate[]>();
	for (const c of cands) {
		const list = byStatus.get(c.status);
		if (list) list.push(c);
		else byStatus.set(c.status, [c]);
	}
	const kept = new Set<string>();
	if (o.mode === 'rate') {
		const f = rateFraction(o.rate);
		for (const list of byStatus.values()) {
			const n = f === 0 ? 0 : Math.max(1, Math.round(f * list.length));
			for (const c of smallest(list, n, seed)) kept.add(c.id);
		}
		return kept;
	}
	const size = Number(o.size);
	if (!Number.isFinite(size) || size < 0)
		throw new RangeError(`Sample Size must be a whole number of 0 or more, got ${String(o.size)}`);
	const n = Math.floor(size);
	if (!o.stratify) {
		for (const c of smallest(cands, n, seed)) kept.add(c.id);
		return kept;
	}
	const shares = allocate(new Map([...byStatus].map(([k, v]) => [k, v.length])), n);
	for (const [status, list] of byStatus)
		for (const c of smallest(list, shares.get(status) ?? 0, seed)) kept.add(c.id);
	return kept;
}
