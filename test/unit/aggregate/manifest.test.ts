// "Verdicts a team can trust", item 1: rows carry their run manifest from Eval Dataset, and the
// aggregate's partials carry the rows seen per run, so the check is the same after any merge of
// batches (any split, any order), a lost batch is missing rows, and a batch merged twice is
// duplicates. Rows without a manifest keep the summary as it was.
import type { Scale, Score } from '../../../src/core/types';
import {
	aggregate,
	aggregatePartial,
	finalizeAggregate,
	mergePartials,
	type AggregatePartial,
} from '../../../src/aggregate';
import { prepareDataset } from '../../../src/dataset/prepare';
import { compareRuns, SAME_RUN_REASON, type GateRow } from '../../../src/gate';
import {
	checkTally,
	mergeTallies,
	rangeCount,
	tallyOf,
	unionRanges,
	type PositionRanges,
} from '../../../src/manifest';
import { markdownReport, runVerdict, type ReportInput } from '../../../src/report';
import { createRng } from '../../../src/stats/random';

const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };
const rating = (value: number): Score => ({
	metric: 'groundedness',
	value,
	scale: LIKERT,
	threshold: 3,
	direction: 'higher',
	pass: value >= 3,
	status: 'ok',
	signature: 'groundedness@1',
});

/** `n` rows through Eval Dataset's preparation (so stamped), each scored 1-5. */
function run(n: number, runId: string, tag = 'q'): Record<string, unknown>[] {
	const prepared = prepareDataset(
		[
			{
				rows: Array.from({ length: n }, (_, i) => ({
					request_id: `${tag}${i}`,
					request: `question ${i}`,
					response: `answer ${i}`,
				})),
				itemIndex: null,
			},
		],
		{ runId },
	);
	return prepared.rows.map((r, i) => ({ ...r.json, eval: { groundedness: rating(1 + (i % 5)) } }));
}

/** The row's manifest, where Eval Dataset writes it (`source.run_manifest`). */
const manifestOf = (r: Record<string, unknown>): Record<string, unknown> =>
	(r.source as { run_manifest: Record<string, unknown> }).run_manifest;
/** The row with its manifest taken out (a row from outside Eval Dataset). */
const withoutManifest = (r: Record<string, unknown>): Record<string, unknown> => {
	const { run_manifest: _, ...source } = r.source as Record<string, unknown>;
	return { ...r, source };
};
/** The row with its manifest replaced. */
const withManifest = (r: Record<string, unknown>, m: unknown): Record<string, unknown> => ({
	...r,
	source: { ...(r.source as object), run_manifest: m },
});

const FINAL = { bootstrapResamples: 0 };
// The reports' headline, as the Markdown report's first line shows it.
const headline = (input: ReportInput): string => markdownReport(input).split('\n')[0].slice(2);
const json = (p: AggregatePartial): AggregatePartial => JSON.parse(JSON.stringify(p));
const summaryOf = (...parts: AggregatePartial[]) =>
	finalizeAggregate(mergePartials(...parts), FINAL);

/** Splits `rows` into `k` batches at seeded random cut points. */
function batches<T>(rows: T[], k: number, seed: number): T[][] {
	const rand = createRng(seed);
	const cuts = [...new Set(Array.from({ length: k - 1 }, () => Math.floor(rand() * rows.length)))];
	cuts.sort((a, b) => a - b);
	const out: T[][] = [];
	let from = 0;
	for (const c of [...cuts, rows.length]) {
		out.push(rows.slice(from, c));
		from = c;
	}
	return out;
}

describe('Eval Dataset stamps run manifests', () => {
	it('one run id, total_rows after sampling and limit, positions 1..total, the fingerprint', () => {
		const p = prepareDataset(
			[
				{
					rows: Array.from({ length: 30 }, (_, i) => ({ request: `q${i}`, response: `a${i}` })),
					itemIndex: null,
				},
			],
			{ sampleSize: 12, sampleSeed: 7, limit: 10, runId: 'run-1' },
		);
		expect(p.rows).toHaveLength(10);
		expect(p.rows.map((r) => manifestOf(r.json))).toEqual(
			p.rows.map((r, i) => ({
				run_id: 'run-1',
				total_rows: 10,
				dataset_fingerprint: (r.json.source as { fingerprint: string }).fingerprint,
				position: i + 1,
			})),
		);
		// The bookkeeping is one field, the row's last: no fingerprint or manifest beside it.
		expect(Object.keys(p.rows[0].json).slice(-2)).toEqual(['row', 'source']);
		expect(p.rows[0].json).not.toHaveProperty('run_manifest');
		expect(p.rows[0].json).not.toHaveProperty('dataset_fingerprint');
		// Invalid rows are not part of the run: no manifest.
		const bad = prepareDataset([{ rows: [{ request: 'x' }, { nothing: 1 }], itemIndex: null }]);
		expect(bad.invalid[0].json.run_manifest).toBeUndefined();
		expect(bad.invalid[0].json.source).toBeUndefined();
		expect(manifestOf(bad.rows[0].json)).toMatchObject({ total_rows: 1, position: 1 });
	});

	it('a new run id per preparation unless one is given', () => {
		const src = [{ rows: [{ request: 'x' }], itemIndex: null as null }];
		const a = manifestOf(prepareDataset(src).rows[0].json);
		const b = manifestOf(prepareDataset(src).rows[0].json);
		expect(a.run_id).not.toBe(b.run_id);
	});
});

describe('position ranges', () => {
	it('union is canonical and counts each position once', () => {
		const a: PositionRanges = [
			[1, 3],
			[7, 9],
		];
		const b: PositionRanges = [
			[4, 4],
			[8, 12],
			[20, 20],
		];
		expect(unionRanges(a, b)).toEqual([
			[1, 4],
			[7, 12],
			[20, 20],
		]);
		expect(unionRanges(b, a)).toEqual(unionRanges(a, b));
		expect(rangeCount(unionRanges(a, b))).toBe(4 + 6 + 1);
		expect(unionRanges([], a)).toEqual(a);
	});

	it('tallies merge to the one-pass tally whatever the split and order', () => {
		const rows = [...run(57, 'r1'), ...run(23, 'r2', 'p')];
		const whole = tallyOf(rows).tally;
		for (let seed = 1; seed <= 20; seed++) {
			const parts = batches(createRng(seed)() < 0.5 ? rows : [...rows].reverse(), 5, seed);
			const merged = parts
				.map((b) => tallyOf(b).tally)
				.reverse()
				.reduce((acc, t) => mergeTallies(acc, t), {});
			expect(merged).toEqual(whole);
		}
		expect(checkTally(whole)).toMatchObject({
			runs: 2,
			expected: 80,
			received: 80,
			missing: 0,
			duplicates: 0,
			complete: true,
		});
	});
});

describe('aggregate partials carry the manifest check through merges', () => {
	const rows = run(40, 'night-1');
	const whole = finalizeAggregate(aggregatePartial(rows), FINAL);

	it('batches in any order merge to the one-pass summary, manifest complete', () => {
		expect(whole.status).toBe('complete');
		expect(whole.manifest).toEqual({
			runs: 1,
			expected: 40,
			received: 40,
			missing: 0,
			duplicates: 0,
			conflicting: 0,
			unlisted: 0,
			datasetFingerprints: [manifestOf(rows[0]).dataset_fingerprint],
			complete: true,
		});
		for (const seed of [3, 5, 8]) {
			const parts = batches(rows, 4, seed).map((b) => json(aggregatePartial(b)));
			expect(JSON.stringify(summaryOf(...parts.reverse()))).toBe(JSON.stringify(whole));
			// Merging merged partials (a tree of sub-workflows) is the same.
			const [a, ...rest] = parts;
			expect(JSON.stringify(summaryOf(a, json(mergePartials(...rest))))).toBe(
				JSON.stringify(whole),
			);
		}
	});

	it('a lost batch is missing rows: incomplete though the share clears the minimum', () => {
		// 39 of 40 rows: coverage 97.5% is above the 95% minimum, yet one row never arrived.
		const s = summaryOf(aggregatePartial(rows.slice(0, 17)), aggregatePartial(rows.slice(18)));
		expect(s.rows).toBe(39);
		expect(s.manifest).toMatchObject({ expected: 40, received: 39, missing: 1, complete: false });
		expect(s.coverage).toMatchObject({ judged: 39, of: 40, share: 39 / 40, minimum: 0.95 });
		expect(s.overall.passRate).toMatchObject({ of: 40 });
		expect(s.status).toBe('incomplete');
		// The gate holds it incomplete too, and so do the reports.
		const gate = compareRuns(s, whole);
		expect(gate).toMatchObject({ status: 'incomplete', incomplete: true });
		expect(gate.incompleteReasons).toEqual([
			expect.stringMatching(/^1 of 40 rows of the run never reached Eval Aggregate/),
		]);
		expect(runVerdict({ summary: s })).toBe('INCOMPLETE');
		expect(headline({ summary: s, title: 'N' })).toBe(
			'N — 39 rows: INCOMPLETE (1 of 40 rows not judged)',
		);
	});

	it('the same batch merged twice is duplicates, whatever the order', () => {
		const [a, b, c] = batches(rows, 3, 11).map((x) => aggregatePartial(x));
		const one = summaryOf(a, b, c, b);
		const two = summaryOf(b, c, b, a);
		expect(JSON.stringify(one)).toBe(JSON.stringify(two));
		expect(one.manifest).toMatchObject({
			expected: 40,
			received: 40,
			missing: 0,
			duplicates: b.all.rows,
			complete: false,
		});
		expect(one.status).toBe('incomplete');
		expect(headline({ summary: one })).toMatch(/INCOMPLETE \(\d+ rows arrived twice\)$/);
		expect(markdownReport({ summary: one })).toContain('reached Eval Aggregate more than once');
		// Rows and a partial of the same rows (the same run in two inputs) likewise.
		const both = summaryOf(aggregatePartial(rows), aggregatePartial(rows.slice(0, 5)));
		expect(both.manifest).toMatchObject({ duplicates: 5, missing: 0 });
	});

	it('two runs are checked each against its own manifest', () => {
		const other = run(10, 'night-2', 'p');
		const s = summaryOf(aggregatePartial(rows), aggregatePartial(other));
		expect(s.manifest).toMatchObject({ runs: 2, expected: 50, received: 50, complete: true });
		expect(s.status).toBe('complete');
		const short = summaryOf(aggregatePartial(rows), aggregatePartial(other.slice(1)));
		expect(short.manifest).toMatchObject({ runs: 2, missing: 1, complete: false });
	});

	it('rows that disagree about their run are a conflict', () => {
		const edited = rows.map((r, i) =>
			i === 0 ? withManifest(r, { ...manifestOf(r), total_rows: 41 }) : r,
		);
		const s = finalizeAggregate(aggregatePartial(edited), FINAL);
		// The larger count is due: the conflict never shrinks what is missing.
		expect(s.manifest).toMatchObject({ conflicting: 1, expected: 41, missing: 1, complete: false });
		expect(s.status).toBe('incomplete');
	});

	it('rows of earlier versions, their manifest at the top level, are checked the same', () => {
		const earlier = rows.map((r) => ({ ...withoutManifest(r), run_manifest: manifestOf(r) }));
		const s = finalizeAggregate(aggregatePartial(earlier.slice(1)), FINAL);
		expect(s.manifest).toMatchObject({ expected: 40, received: 39, missing: 1, complete: false });
	});

	it('rows without a manifest count as unlisted and are not checked', () => {
		const plain = run(6, 'x', 'u').map(withoutManifest);
		const mixed = summaryOf(aggregatePartial(rows), aggregatePartial(plain));
		expect(mixed.manifest).toMatchObject({ unlisted: 6, expected: 40, complete: true });
		expect(mixed.status).toBe('complete');
		// A partial stored before manifests (no `manifest` field) counts its rows as unlisted.
		const old = json(aggregatePartial(plain));
		delete old.manifest;
		expect(summaryOf(old, aggregatePartial(rows)).manifest).toMatchObject({ unlisted: 6 });
	});

	it('without any manifest the summary is as before: no manifest field', () => {
		const plain = rows.map(withoutManifest);
		const p = aggregatePartial(plain);
		expect(p.manifest).toBeUndefined();
		const s = aggregate(plain, FINAL);
		expect(s.manifest).toBeUndefined();
		const { manifest: _, ...withManifest } = whole;
		expect(s).toEqual(withManifest);
	});
});

describe('Regression Gate over Current Rows with manifests', () => {
	const rows = run(20, 'tonight') as unknown as GateRow[];
	const last = run(20, 'last-night') as unknown as GateRow[];
	const summary = aggregate(rows as unknown as Record<string, unknown>[], FINAL);
	const base = aggregate(last as unknown as Record<string, unknown>[], FINAL);

	it('all rows: complete; part of the rows: incomplete, with the reason', () => {
		const ok = compareRuns(summary, base, { currentRows: rows, baselineRows: last });
		expect(ok.status).toBe('ok');
		expect(ok.rowsManifest).toMatchObject({ expected: 20, received: 20, complete: true });
		const part = compareRuns(summary, base, { currentRows: rows.slice(5), baselineRows: last });
		expect(part.status).toBe('incomplete');
		expect(part.incompleteReasons).toEqual([
			expect.stringMatching(/^5 of 20 rows of the run never reached Current Rows/),
		]);
	});

	it('a baseline that is this very run is never green', () => {
		const r = compareRuns(summary, summary, { currentRows: rows, baselineRows: rows });
		expect(r.status).toBe('incomplete');
		expect(r.incompleteReasons).toEqual([SAME_RUN_REASON]);
		expect(headline({ summary, gate: r })).toMatch(/INCOMPLETE \(baseline is this same run\)$/);
	});
});
