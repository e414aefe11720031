/**
 * Seeded planning: how many questions of each kind (the mix), and which chunks each question is
 * written from. The same documents, options and seed always give the same plan, so with the
 * verdict cache a re-run asks nothing new.
 */
import { createRng, hashString, type Rng } from '../stats/random';
import type { Chunk } from './chunk';
import { passagesFor, QUESTION_KINDS, type QuestionKind } from './prompts';

/** Weights of the kinds; absent kinds weigh 0. */
export type KindMix = Partial<Record<QuestionKind, number>>;

export const DEFAULT_MIX: Record<QuestionKind, number> = {
	single_fact: 40,
	reasoning: 20,
	multi_chunk: 15,
	conversational: 15,
	unanswerable: 10,
};

/** One planned question: its kind, the chunks it is written from, and its variant number. */
export interface Slot {
	/** Position in the plan, from 0 (rows keep this order). */
	slot: number;
	kind: QuestionKind;
	chunkIds: string[];
	/** 1 for the first question of this kind from these chunks, 2 for the next... */
	variant: number;
	/** Planning round: 0, then 1, 2... for top-ups after dropped rows. */
	round: number;
}

/** Reads a mix given as `kind: weight` pairs (`single_fact=2, unanswerable=1`) or an object. */
export function parseMix(raw: unknown): KindMix {
	if (raw === undefined || raw === null || raw === '') return { ...DEFAULT_MIX };
	let obj: Record<string, unknown>;
	if (typeof raw === 'object' && !Array.isArray(raw)) obj = raw as Record<string, unknown>;
	else if (typeof raw === 'string') {
		obj = {};
		for (const part of raw.split(/[,;\n]/)) {
			if (!part.trim()) continue;
			const m = /^\s*([a-z_-]+)\s*[:=]\s*([0-9.]+)\s*$/i.exec(part);
			if (!m) throw new Error(`mix entry "${part.trim()}" is not kind=weight`);
			obj[m[1].toLowerCase().replace(/-/g, '_')] = Number(m[2]);
		}
	} else throw new Error('the mix is neither text (kind=weight, ...) nor an object');
	const mix: KindMix = {};
	for (const [k, v] of Object.entries(obj)) {
		if (!(QUESTION_KINDS as readonly string[]).includes(k)) {
			throw new Error(
				`unknown question kind "${k}" in the mix (kinds: ${QUESTION_KINDS.join(', ')})`,
			);
		}
		const n = Number(v);
		if (!Number.isFinite(n) || n < 0) throw new Error(`weight of ${k} is not a number >= 0`);
		mix[k as QuestionKind] = n;
	}
	if (!Object.values(mix).some((w) => (w ?? 0) > 0))
		throw new Error('every weight in the mix is 0');
	return mix;
}

/** Questions per kind for `rows` questions: largest remainders, ties in kind order. */
export function kindCounts(rows: number, mix: KindMix): Record<QuestionKind, number> {
	const total = QUESTION_KINDS.reduce((s, k) => s + (mix[k] ?? 0), 0);
	const out = Object.fromEntries(QUESTION_KINDS.map((k) => [k, 0])) as Record<QuestionKind, number>;
	if (rows <= 0 || total <= 0) return out;
	const exact = QUESTION_KINDS.map((k) => ((mix[k] ?? 0) / total) * rows);
	let given = 0;
	QUESTION_KINDS.forEach((k, i) => {
		out[k] = Math.floor(exact[i]);
		given += out[k];
	});
	const order = QUESTION_KINDS.map((k, i) => ({ k, r: exact[i] - Math.floor(exact[i]), i }))
		.filter((x) => (mix[x.k] ?? 0) > 0)
		.sort((a, b) => b.r - a.r || a.i - b.i);
	for (let j = 0; given < rows; j = (j + 1) % order.length, given++) out[order[j].k]++;
	return out;
}

/** A stream of chunk indices: every chunk once in a seeded order, then again in a new order. */
class ChunkStream {
	private order: number[] = [];
	private pos = 0;
	constructor(
		private readonly n: number,
		private readonly rng: Rng,
	) {}
	next(): number {
		if (this.pos >= this.order.length) {
			this.order = shuffle(
				Array.from({ length: this.n }, (_, i) => i),
				this.rng,
			);
			this.pos = 0;
		}
		return this.order[this.pos++];
	}
}

function shuffle<T>(a: T[], rng: Rng): T[] {
	for (let i = a.length - 1; i > 0; i--) {
		const j = Math.floor(rng() * (i + 1));
		[a[i], a[j]] = [a[j], a[i]];
	}
	return a;
}

/** The planner of one node run: rounds share the chunk stream and the variant counts. */
export class Planner {
	private readonly rng: Rng;
	private readonly stream: ChunkStream;
	private readonly used = new Map<string, number>();
	private nextSlot = 0;
	private round = 0;

	constructor(
		private readonly chunks: ReadonlyArray<Chunk>,
		seed: number,
	) {
		this.rng = createRng(hashString(`eval-set-generator:${seed}`));
		this.stream = new ChunkStream(chunks.length, this.rng);
	}

	/** Slots for `counts` questions, kinds interleaved so a cut-off run keeps the mix. */
	plan(counts: Record<QuestionKind, number>): Slot[] {
		const round = this.round++;
		const left = { ...counts };
		const total = QUESTION_KINDS.reduce((s, k) => s + left[k], 0);
		const out: Slot[] = [];
		if (this.chunks.length === 0) return out;
		// Smooth interleaving: at each step the kind furthest behind its share goes next.
		const done = Object.fromEntries(QUESTION_KINDS.map((k) => [k, 0])) as Record<
			QuestionKind,
			number
		>;
		for (let step = 1; step <= total; step++) {
			let best: QuestionKind | undefined;
			let lag = -Infinity;
			for (const k of QUESTION_KINDS) {
				if (done[k] >= counts[k]) continue;
				const l = (counts[k] * step) / total - done[k];
				if (l > lag) {
					lag = l;
					best = k;
				}
			}
			const kind = best as QuestionKind;
			done[kind]++;
			const chunkIds = this.pick(kind);
			const key = `${kind}|${chunkIds.join('|')}`;
			const variant = (this.used.get(key) ?? 0) + 1;
			this.used.set(key, variant);
			out.push({ slot: this.nextSlot++, kind, chunkIds, variant, round });
		}
		return out;
	}

	/** The chunks of one question: one from the stream, plus a neighbour for multi-chunk ones. */
	private pick(kind: QuestionKind): string[] {
		const first = this.stream.next();
		const ids = [this.chunks[first].id];
		if (passagesFor(kind) < 2 || this.chunks.length < 2) return ids;
		const c = this.chunks[first];
		const next = this.chunks[first + 1];
		const prev = this.chunks[first - 1];
		// A neighbour in the same document shares its topic; else another document's chunk.
		if (next && next.docUri === c.docUri) ids.push(next.id);
		else if (prev && prev.docUri === c.docUri) ids.push(prev.id);
		else {
			let other = Math.floor(this.rng() * (this.chunks.length - 1));
			if (other >= first) other++;
			ids.push(this.chunks[other].id);
		}
		return ids;
	}
}
