import type { Score } from '../../../src/core/types';
import { compareRuns, type GateRow } from '../../../src/gate';
import { erfc, twoProportionZTest } from '../../../src/stats/tests';

const binary = { kind: 'binary', min: 0, max: 1 } as const;
const likert = { kind: 'likert', min: 1, max: 5 } as const;

function verdictScore(metric: string, pass: boolean | null, status: Score['status'] = 'ok'): Score {
	return {
		metric,
		value: status === 'ok' ? pass : null,
		scale: binary,
		pass: status === 'ok' ? pass : null,
		status,
		signature: `${metric}@1`,
	};
}

function ratingScore(metric: string, value: number): Score {
	return {
		metric,
		value,
		scale: likert,
		threshold: 3,
		direction: 'higher',
		pass: value >= 3,
		status: 'ok',
		signature: `${metric}@1`,
	};
}

// Rows where `before` and `after` list pass/fail per request id for one binary judge.
function binaryRuns(metric: string, before: boolean[], after: boolean[]): [GateRow[], GateRow[]] {
	const base = before.map((p, i) => ({
		request_id: `r${i}`,
		eval: { [metric]: verdictScore(metric, p) },
	}));
	const cur = after.map((p, i) => ({
		request_id: `r${i}`,
		eval: { [metric]: verdictScore(metric, p) },
	}));
	return [cur, base];
}

const rate = (xs: boolean[]): number => xs.filter(Boolean).length / xs.length;

// 30 rows: 9 go pass -> fail, 1 goes fail -> pass, the rest unchanged (McNemar exact p = 22/1024).
function mcnemarScenario(): { before: boolean[]; after: boolean[] } {
	const before: boolean[] = [];
	const after: boolean[] = [];
	for (let i = 0; i < 9; i++) (before.push(true), after.push(false));
	(before.push(false), after.push(true));
	for (let i = 0; i < 15; i++) (before.push(true), after.push(true));
	for (let i = 0; i < 5; i++) (before.push(false), after.push(false));
	return { before, after };
}

describe('compareRuns', () => {
	it('reports metrics missing on either side and metrics without measured rows', () => {
		const r = compareRuns(
			{ metrics: { a: { value: 0.9, measured: 10 }, c: { value: 0.5, measured: 0 } } },
			{ metrics: { b: { value: 0.8, measured: 10 }, c: { value: 0.5, measured: 10 } } },
		);
		const by = Object.fromEntries(r.table.map((t) => [t.metric, t]));
		expect(by.a.verdict).toBe('missing_in_baseline');
		expect(by.a.current).toBe(0.9);
		expect(by.b.verdict).toBe('missing_in_current');
		expect(by.b.baseline).toBe(0.8);
		expect(by.c.verdict).toBe('insufficient_data');
		expect(r.table).toHaveLength(3);
		expect(r.regressed).toBe(false);
		expect(r.counts.missing_in_baseline).toBe(1);
	});

	it('paired pass/fail rows -> exact McNemar (b=9, c=1: p = 0.021484375) -> regressed', () => {
		const { before, after } = mcnemarScenario();
		const [cur, base] = binaryRuns('groundedness', before, after);
		const name = 'response/llm_judged/groundedness/rating/percentage';
		const r = compareRuns(
			{ metrics: { [name]: { value: rate(after), measured: 30 } } },
			{ metrics: { [name]: { value: rate(before), measured: 30 } } },
			{ currentRows: cur, baselineRows: base, defaultTolerance: 0.05 },
		);
		const row = r.table[0];
		expect(row.test).toBe('mcnemar-exact');
		expect(row.pValue).toBeCloseTo(0.021484375, 14);
		expect(row.pAdjusted).toBeCloseTo(0.021484375, 14);
		expect(row.n).toBe(10);
		expect(row.delta).toBeCloseTo(-8 / 30, 14);
		expect(row.direction).toBe('higher');
		expect(row.verdict).toBe('regressed');
		expect(r.regressed).toBe(true);
	});

	it('a significant drop within tolerance is ok, and a flipped scenario is improved', () => {
		const { before, after } = mcnemarScenario();
		const [cur, base] = binaryRuns('safety', before, after);
		const within = compareRuns(
			{ metrics: { safety: { value: rate(after), measured: 30 } } },
			{ metrics: { safety: { value: rate(before), measured: 30 } } },
			{ currentRows: cur, baselineRows: base, tolerances: { safety: 0.3 } },
		);
		expect(within.table[0].verdict).toBe('ok');
		expect(within.table[0].note).toMatch(/within the tolerance/);
		const improved = compareRuns(
			{ metrics: { safety: { value: rate(before), measured: 30 } } },
			{ metrics: { safety: { value: rate(after), measured: 30 } } },
			{ currentRows: base, baselineRows: cur, directions: { safety: 'higher' } },
		);
		expect(improved.table[0].verdict).toBe('improved');
		expect(improved.regressed).toBe(false);
	});

	it('Holm: two metrics at p = 0.0215 both regress; with a third unchanged one, none do', () => {
		const { before, after } = mcnemarScenario();
		const run = (ids: string[], changed: string[]) => {
			const cur: GateRow[] = [];
			const base: GateRow[] = [];
			for (let i = 0; i < 30; i++) {
				const c: Record<string, Score> = {};
				const b: Record<string, Score> = {};
				for (const id of ids) {
					c[id] = verdictScore(id, changed.includes(id) ? after[i] : before[i]);
					b[id] = verdictScore(id, before[i]);
				}
				cur.push({ request_id: i, eval: c });
				base.push({ request_id: i, eval: b });
			}
			const summary = (side: 'cur' | 'base') => ({
				metrics: Object.fromEntries(
					ids.map((id) => [
						id,
						{
							value: side === 'cur' && changed.includes(id) ? rate(after) : rate(before),
							measured: 30,
						},
					]),
				),
			});
			return compareRuns(summary('cur'), summary('base'), { currentRows: cur, baselineRows: base });
		};
		const two = run(['m1', 'm2'], ['m1', 'm2']);
		expect(two.table.map((t) => t.verdict)).toEqual(['regressed', 'regressed']);
		expect(two.table[0].pAdjusted).toBeCloseTo(2 * 0.021484375, 14);
		// m1, m2 at 0.0215 and m3 at p = 1: the smallest is multiplied by 3 -> 0.064453125 > 0.05.
		const three = run(['m1', 'm2', 'm3'], ['m1', 'm2']);
		expect(three.table.map((t) => t.pAdjusted)).toEqual([
			expect.closeTo(0.064453125, 12),
			expect.closeTo(0.064453125, 12),
			expect.closeTo(1, 12),
		]);
		expect(three.table.map((t) => t.verdict)).toEqual(['ok', 'ok', 'ok']);
		expect(three.table[0].note).toMatch(/not significant/);
		expect(three.table[2].note).toBe('No change.');
	});

	it('paired ratings -> Wilcoxon signed-rank (scipy corn example, p = 0.041259765625)', () => {
		const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
		const base = d.map((_, i) => ({
			request_id: `q${i}`,
			eval: { relevance: ratingScore('relevance', 200) },
		}));
		const cur = d.map((x, i) => ({
			request_id: `q${i}`,
			eval: { relevance: ratingScore('relevance', 200 - x) },
		}));
		const mean = (xs: GateRow[]) =>
			xs.reduce((a, r) => a + (r.eval!.relevance!.value as number), 0) / xs.length;
		const r = compareRuns(
			{ metrics: { relevance: { value: mean(cur), measured: 15 } } },
			{ metrics: { relevance: { value: mean(base), measured: 15 } } },
			{ currentRows: cur, baselineRows: base, defaultTolerance: 0.5 },
		);
		expect(r.table[0].test).toBe('wilcoxon-exact');
		expect(r.table[0].pValue).toBeCloseTo(0.041259765625, 14);
		expect(r.table[0].verdict).toBe('regressed');
		const boot = compareRuns(
			{ metrics: { relevance: { value: mean(cur), measured: 15 } } },
			{ metrics: { relevance: { value: mean(base), measured: 15 } } },
			{
				currentRows: cur,
				baselineRows: base,
				pairedScoreTest: 'bootstrap',
				bootstrap: { seed: 5, resamples: 999 },
			},
		);
		expect(boot.table[0].test).toBe('paired-bootstrap');
		expect(boot.table[0].pValue).toBeGreaterThan(0);
		expect(boot.table[0].pValue).toBeLessThan(0.1);
	});

	it('errored and not-applicable scores never pair', () => {
		const base: GateRow[] = [];
		const cur: GateRow[] = [];
		for (let i = 0; i < 12; i++) {
			base.push({ request_id: i, eval: { g: verdictScore('g', true) } });
			const status = i < 2 ? 'error' : i < 4 ? 'not_applicable' : 'ok';
			cur.push({
				request_id: i,
				eval: { g: verdictScore('g', i % 2 === 0 ? false : true, status) },
			});
		}
		const r = compareRuns(
			{ metrics: { g: { value: 4 / 8, measured: 8 } } },
			{ metrics: { g: { value: 1, measured: 12 } } },
			{ currentRows: cur, baselineRows: base },
		);
		// Ok pairs are ids 4..11: even ids flip pass -> fail (4), odd stay pass: b = 4, c = 0.
		expect(r.table[0].n).toBe(4);
		expect(r.table[0].pValue).toBeCloseTo(2 / 16, 14);
	});

	it('unpaired rows (different ids) -> two-proportion z-test', () => {
		const base = Array.from({ length: 100 }, (_, i) => ({
			request_id: `old${i}`,
			eval: { g: verdictScore('g', i < 55) },
		}));
		const cur = Array.from({ length: 100 }, (_, i) => ({
			request_id: `new${i}`,
			eval: { g: verdictScore('g', i < 45) },
		}));
		const r = compareRuns(
			{ metrics: { g: { value: 0.45, measured: 100 } } },
			{ metrics: { g: { value: 0.55, measured: 100 } } },
			{ currentRows: cur, baselineRows: base },
		);
		expect(r.table[0].test).toBe('two-proportion-z');
		expect(r.table[0].pValue).toBeCloseTo(erfc(1), 13);
		expect(r.table[0].verdict).toBe('ok');
	});

	it('unpaired ratings -> unpaired bootstrap', () => {
		const base = Array.from({ length: 40 }, (_, i) => ({
			request_id: `a${i}`,
			eval: { coherence: ratingScore('coherence', 4 + (i % 2)) },
		}));
		const cur = Array.from({ length: 40 }, (_, i) => ({
			request_id: `b${i}`,
			eval: { coherence: ratingScore('coherence', 2 + (i % 2)) },
		}));
		const r = compareRuns(
			{ metrics: { coherence: { value: 2.5, measured: 40 } } },
			{ metrics: { coherence: { value: 4.5, measured: 40 } } },
			{ currentRows: cur, baselineRows: base },
		);
		expect(r.table[0].test).toBe('unpaired-bootstrap');
		expect(r.table[0].verdict).toBe('regressed');
	});

	it('summary-only rates -> two-proportion z-test from rate x measured', () => {
		const r = compareRuns(
			{
				metrics: { 'response/llm_judged/safety/rating/percentage': { value: 0.45, measured: 100 } },
			},
			{
				metrics: { 'response/llm_judged/safety/rating/percentage': { value: 0.55, measured: 100 } },
			},
		);
		expect(r.table[0].test).toBe('two-proportion-z');
		expect(r.table[0].pValue).toBeCloseTo(twoProportionZTest(45, 100, 55, 100).pValue, 15);
		const big = compareRuns(
			{ metrics: { passRate: { value: 0.7, measured: 1000 } } },
			{ metrics: { passRate: { value: 0.8, measured: 1000 } } },
		);
		expect(big.table[0].verdict).toBe('regressed');
	});

	it('summary-only means fall back to tolerance-only, clearly labelled, in both directions', () => {
		const r = compareRuns(
			{
				metrics: {
					bleu: { value: 0.3, measured: 50 },
					'agent/latency_seconds/average': { value: 2.5, measured: 50, direction: 'lower' },
					rougeL: { value: 0.41, measured: 50 },
				},
			},
			{
				metrics: {
					bleu: { value: 0.35, measured: 50 },
					'agent/latency_seconds/average': { value: 1.5, measured: 50, direction: 'lower' },
					rougeL: { value: 0.4, measured: 50 },
				},
			},
			{ tolerances: { bleu: 0.02, 'agent/latency_seconds/average': 0.5, rougeL: 0.02 } },
		);
		const by = Object.fromEntries(r.table.map((t) => [t.metric, t]));
		expect(by.bleu.test).toBe('tolerance-only');
		expect(by.bleu.pValue).toBeNull();
		expect(by.bleu.verdict).toBe('regressed');
		expect(by.bleu.note).toMatch(/tolerance-only/);
		expect(by['agent/latency_seconds/average'].direction).toBe('lower');
		expect(by['agent/latency_seconds/average'].verdict).toBe('regressed');
		expect(by.rougeL.verdict).toBe('ok');
		const better = compareRuns(
			{ metrics: { bleu: { value: 0.5, measured: 5 } } },
			{ metrics: { bleu: { value: 0.3, measured: 5 } } },
		);
		expect(better.table[0].verdict).toBe('improved');
	});

	it('takes directions from the summary (the declarations), and says when none is stated', () => {
		const summary = (v: number) => ({
			metrics: {
				'agent/total_token_count/average': { value: v, measured: 9, direction: 'lower' as const },
				custom_number: { value: v, measured: 9 },
			},
		});
		const r = compareRuns(summary(200), summary(100));
		const by = Object.fromEntries(r.table.map((t) => [t.metric, t]));
		expect(by['agent/total_token_count/average']).toMatchObject({
			direction: 'lower',
			verdict: 'regressed',
		});
		expect(by.custom_number).toMatchObject({ direction: 'higher', verdict: 'improved' });
		expect(by.custom_number.note).toMatch(/Direction not stated .* higher taken as better\./);
		expect(by['agent/total_token_count/average'].note).not.toMatch(/Direction not stated/);
	});
});
