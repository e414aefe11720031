/**
 * Run manifests. Eval Dataset stamps every row it emits (`source.run_manifest`) with the run it
 * belongs to (`run_id`, the run's `total_rows`, the `dataset_fingerprint`) and the row's
 * `position` in it, so a node further down can tell the whole run from part of one (a branch
 * that never reached it) or from a run that reached it twice. A tally of the positions seen per run merges exactly and in any order, as the
 * aggregate's partials do, so batches and queue-mode sub-workflows are checked like one pass.
 */
import { randomUUID } from 'node:crypto';

/**
 * The manifest's field, inside the row's `source` (its one bookkeeping field). Rows of earlier
 * versions carry it at the top level, where it is still read.
 */
export const MANIFEST_FIELD = 'run_manifest';

/** The row with its manifest written into `source.run_manifest` (`source` made when absent). */
export function withRunManifest(
	row: Record<string, unknown>,
	manifest: RunManifest | (RunManifest & Record<string, unknown>),
): Record<string, unknown> {
	const source = isObject(row.source) ? row.source : {};
	return { ...row, source: { ...source, [MANIFEST_FIELD]: manifest } };
}

/** What a row carries of its run. */
export interface RunManifest {
	/** Unique per emission of Eval Dataset (one node run of one execution). */
	run_id: string;
	/** Rows Eval Dataset emitted for this run (after de-duplication, sampling and limit). */
	total_rows: number;
	/** The dataset's content fingerprint (one source: that source's; several: a hash of theirs). */
	dataset_fingerprint: string;
	/** 1-based position of this row among the run's rows: tells copies of a row from other rows. */
	position: number;
}

/** A new run id; random, so two executions (or two runs of one node in a loop) never share one. */
export function newRunId(): string {
	return randomUUID();
}

function isObject(x: unknown): x is Record<string, unknown> {
	return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * The manifest a row carries, or undefined when it has none or a malformed one (such a row is
 * counted like a row from outside Eval Dataset: as today, without a manifest check).
 */
export function readManifest(row: Record<string, unknown>): RunManifest | undefined {
	const inSource = isObject(row.source) ? row.source[MANIFEST_FIELD] : undefined;
	const m = inSource ?? row[MANIFEST_FIELD];
	if (!isObject(m)) return undefined;
	const { run_id, total_rows, dataset_fingerprint, position } = m;
	if (typeof run_id !== 'string' || run_id === '') return undefined;
	if (typeof dataset_fingerprint !== 'string') return undefined;
	if (!Number.isSafeInteger(total_rows) || (total_rows as number) < 1) return undefined;
	if (!Number.isSafeInteger(position) || (position as number) < 1) return undefined;
	if ((position as number) > (total_rows as number)) return undefined;
	return {
		run_id,
		total_rows: total_rows as number,
		dataset_fingerprint,
		position: position as number,
	};
}

/** Positions as sorted, disjoint, non-adjacent `[first, last]` ranges: a whole run is one pair. */
export type PositionRanges = [number, number][];

/** What one node saw of one run. */
export interface RunTally {
	/** Distinct `total_rows` seen; more than one means rows disagree about their run. */
	totals: number[];
	/** Distinct dataset fingerprints seen, sorted; more than one likewise. */
	fingerprints: string[];
	/** Distinct positions seen. */
	positions: PositionRanges;
	/** Rows seen, copies included: `rows - distinct positions` rows arrived more than once. */
	rows: number;
}

/** Tallies by run id (keys sorted): plain JSON, merged by {@link mergeTallies}. */
export type ManifestTally = Record<string, RunTally>;

/** Collects manifests row by row; {@link tallyOf} builds the tally once (sorting beats inserting). */
export class TallyBuilder {
	private readonly runs = new Map<
		string,
		{ totals: Set<number>; fingerprints: Set<string>; positions: number[] }
	>();
	/** Rows without a (readable) manifest. */
	unlisted = 0;

	/** Counts one row: its manifest when it has one, else as unlisted. */
	add(row: Record<string, unknown>): void {
		const m = readManifest(row);
		if (!m) {
			this.unlisted++;
			return;
		}
		let run = this.runs.get(m.run_id);
		if (!run) {
			run = { totals: new Set(), fingerprints: new Set(), positions: [] };
			this.runs.set(m.run_id, run);
		}
		run.totals.add(m.total_rows);
		run.fingerprints.add(m.dataset_fingerprint);
		run.positions.push(m.position);
	}

	/** Whether any row carried a manifest. */
	get any(): boolean {
		return this.runs.size > 0;
	}

	/** The tally of the rows added so far. */
	build(): ManifestTally {
		const out: ManifestTally = {};
		for (const id of [...this.runs.keys()].sort()) {
			const run = this.runs.get(id)!;
			out[id] = {
				totals: [...run.totals].sort((a, b) => a - b),
				fingerprints: [...run.fingerprints].sort(),
				positions: rangesOf(run.positions),
				rows: run.positions.length,
			};
		}
		return out;
	}
}

/** The tally of some rows, and how many carried no manifest. */
export function tallyOf(rows: Iterable<Record<string, unknown>>): {
	tally: ManifestTally;
	unlisted: number;
} {
	const b = new TallyBuilder();
	for (const r of rows) b.add(r);
	return { tally: b.build(), unlisted: b.unlisted };
}

function rangesOf(positions: readonly number[]): PositionRanges {
	const sorted = Float64Array.from(positions).sort();
	const out: PositionRanges = [];
	for (const p of sorted) {
		const last = out[out.length - 1];
		if (last && p <= last[1] + 1) last[1] = Math.max(last[1], p);
		else out.push([p, p]);
	}
	return out;
}

/** The union of two range lists (linear merge; the result is canonical whatever the order). */
export function unionRanges(a: PositionRanges, b: PositionRanges): PositionRanges {
	const out: PositionRanges = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		const next = j >= b.length || (i < a.length && a[i][0] <= b[j][0]) ? a[i++] : b[j++];
		const last = out[out.length - 1];
		if (last && next[0] <= last[1] + 1) last[1] = Math.max(last[1], next[1]);
		else out.push([next[0], next[1]]);
	}
	return out;
}

/** How many positions a range list holds. */
export function rangeCount(r: PositionRanges): number {
	let n = 0;
	for (const [a, b] of r) n += b - a + 1;
	return n;
}

function sortedUnion<T extends number | string>(a: readonly T[], b: readonly T[]): T[] {
	return [...new Set([...a, ...b])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/**
 * The tally of the union of the rows behind two tallies. A row both saw counts twice in `rows` but
 * once in `positions`, so the same run reaching a node through two inputs shows as duplicates.
 */
export function mergeTallies(a: ManifestTally, b: ManifestTally): ManifestTally {
	const out: ManifestTally = {};
	for (const id of sortedUnion(Object.keys(a), Object.keys(b))) {
		const x = a[id];
		const y = b[id];
		out[id] =
			x && y
				? {
						totals: sortedUnion(x.totals, y.totals),
						fingerprints: sortedUnion(x.fingerprints, y.fingerprints),
						positions: unionRanges(x.positions, y.positions),
						rows: x.rows + y.rows,
					}
				: structuredClone((x ?? y) as RunTally);
	}
	return out;
}

/** A tally checked against the manifests it holds. Counts only: no run id, so it is the same
 * for two executions over the same dataset. */
export interface ManifestCheck {
	/** Runs seen (distinct run ids). */
	runs: number;
	/** Rows the runs have, as their manifests say. */
	expected: number;
	/** Distinct rows of those runs that arrived. */
	received: number;
	/** Rows of those runs that never arrived (a branch not wired in, rows filtered out). */
	missing: number;
	/** Extra copies of rows that arrived more than once (the same run reached the node twice). */
	duplicates: number;
	/** Runs whose rows disagree on their row count or dataset (edited or mixed-up manifests). */
	conflicting: number;
	/** Rows without a manifest (not from Eval Dataset): counted as before, not checked. */
	unlisted: number;
	/** Dataset fingerprints of the runs, sorted. */
	datasetFingerprints: string[];
	/** No row missing, none twice, no conflict. */
	complete: boolean;
}

/** Checks a tally against its manifests; `unlisted` rows had none. */
export function checkTally(tally: ManifestTally, unlisted = 0): ManifestCheck {
	let expected = 0;
	let received = 0;
	let duplicates = 0;
	let conflicting = 0;
	const fingerprints = new Set<string>();
	const ids = Object.keys(tally);
	for (const id of ids) {
		const t = tally[id];
		// With conflicting counts the largest is due: a conflict never shrinks what is missing.
		const total = Math.max(...t.totals);
		const distinct = rangeCount(t.positions);
		expected += total;
		received += distinct;
		duplicates += t.rows - distinct;
		if (t.totals.length > 1 || t.fingerprints.length > 1) conflicting++;
		for (const f of t.fingerprints) fingerprints.add(f);
	}
	const missing = Math.max(0, expected - received);
	return {
		runs: ids.length,
		expected,
		received,
		missing,
		duplicates,
		conflicting,
		unlisted,
		datasetFingerprints: [...fingerprints].sort(),
		complete: missing === 0 && duplicates === 0 && conflicting === 0,
	};
}

/** Run ids present in both tallies (a baseline that is the very run it is compared with). */
export function sharedRuns(a: ManifestTally, b: ManifestTally): string[] {
	return Object.keys(a).filter((id) => id in b);
}

/**
 * What is wrong with a checked run, in words (empty when complete): the sentences the gate's
 * reasons and the reports use.
 */
export function manifestProblems(c: ManifestCheck, where = 'this node'): string[] {
	const out: string[] = [];
	if (c.missing > 0)
		out.push(
			`${c.missing} of ${c.expected} rows of the run never reached ${where}: a branch is not wired in, or rows were dropped on the way (wire every row into one input, e.g. through a Merge node).`,
		);
	if (c.duplicates > 0)
		out.push(
			`${c.duplicates} row${c.duplicates > 1 ? 's' : ''} of the run reached ${where} more than once: the same run came in twice, and its figures count ${c.duplicates > 1 ? 'them' : 'it'} twice.`,
		);
	if (c.conflicting > 0)
		out.push(
			`${c.conflicting} run${c.conflicting > 1 ? 's' : ''} arrived with rows that disagree about their row count or dataset (edited or mixed-up run manifests).`,
		);
	return out;
}
