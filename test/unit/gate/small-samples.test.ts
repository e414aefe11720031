import type { Score } from '../../../src/core/types';
import { compareRuns, type GateRow } from '../../../src/gate';

// Issue 20: a 1-5 judge on a small smoke set where every row drops one point. The differences
// all tie, so the Wilcoxon p-value must come from the permutation distribution (scipy >= 1.15),
// not the normal approximation, which called 4 rows "regressed" at p = 0.0455.
function rating(value: number): Score {
	return {
		metric: 'relevance',
		value,
		scale: { kind: 'likert', min: 1, max: 5 },
		threshold: 3,
		direction: 'higher',
		pass: value >= 3,
		status: 'ok',
		signature: 'relevance@1',
	};
}

function runs(before: number[], after: number[]): ReturnType<typeof compareRuns> {
	const rows = (values: number[]): GateRow[] =>
		values.map((v, i) => ({ request_id: `q${i}`, eval: { relevance: rating(v) } }));
	const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
	return compareRuns(
		{ metrics: { relevance: { value: mean(after), measured: after.length } } },
		{ metrics: { relevance: { value: mean(before), measured: before.length } } },
		{ currentRows: rows(after), baselineRows: rows(before) },
	);
}

describe('Regression Gate on small paired 1-5 ratings with ties', () => {
	it('4 rows each one point worse: p = 0.125, not a regression', () => {
		const r = runs([4, 5, 3, 4], [3, 4, 2, 3]).table[0];
		expect(r).toMatchObject({ test: 'wilcoxon-permutation', n: 4, verdict: 'ok', delta: -1 });
		expect(r.pValue).toBe(0.125);
		expect(r.note).toMatch(/not significant/);
	});

	it('5 rows each one point worse: p = 0.0625, not a regression', () => {
		const r = runs([4, 5, 3, 4, 2], [3, 4, 2, 3, 1]).table[0];
		expect(r.test).toBe('wilcoxon-permutation');
		expect(r.pValue).toBe(0.0625);
		expect(r.verdict).toBe('ok');
	});

	it('6 rows each one point worse reach p = 2/64 and regress; unchanged rows do not count', () => {
		const r = runs([4, 5, 3, 4, 2, 5], [3, 4, 2, 3, 1, 4]).table[0];
		expect(r.pValue).toBe(2 / 64);
		expect(r.verdict).toBe('regressed');
		// Two unchanged rows are zero differences: dropped (zero_method 'wilcox'), n stays 6.
		const z = runs([4, 5, 3, 4, 2, 5, 3, 3], [3, 4, 2, 3, 1, 4, 3, 3]).table[0];
		expect(z).toMatchObject({ test: 'wilcoxon-permutation', n: 6, verdict: 'regressed' });
		expect(z.pValue).toBe(2 / 64);
	});
});

describe('Regression Gate bootstrap floor', () => {
	// Unpaired rows (different request ids) take the bootstrap of the difference of means.
	function unpaired(before: number[], after: number[]) {
		const rows = (values: number[], tag: string): GateRow[] =>
			values.map((v, i) => ({ request_id: `${tag}${i}`, eval: { relevance: rating(v) } }));
		const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
		return compareRuns(
			{ metrics: { relevance: { value: mean(after), measured: after.length } } },
			{ metrics: { relevance: { value: mean(before), measured: before.length } } },
			{ currentRows: rows(after, 'c'), baselineRows: rows(before, 'b'), defaultTolerance: 0.5 },
		).table[0];
	}

	it('runs no bootstrap below 10 rows a side: a one-point drop on 3 rows is tolerance-only', () => {
		const r = unpaired([4, 4, 4], [3, 3, 3]);
		expect(r).toMatchObject({ test: 'tolerance-only', pValue: null, verdict: 'regressed' });
		// Within the tolerance, the same small drop is not a regression.
		expect(unpaired([4, 4, 4], [3.6, 3.6, 3.6])).toMatchObject({
			test: 'tolerance-only',
			verdict: 'ok',
		});
	});

	it('bootstraps from 10 rows a side', () => {
		const r = unpaired(Array(10).fill(4), Array(10).fill(3));
		expect(r.test).toMatch(/bootstrap/);
		expect(r.pValue).not.toBeNull();
	});
});

// "Verdicts a team can trust", item 2: twenty rows, four of them one point down, sixteen unchanged.
// Only four differences carry evidence: the exact signed-rank p over their 2^4 sign assignments is
// 2/16 (only the all-minus and all-plus assignments are as extreme). The normal approximation on
// all twenty pairs said p = 0.0455 and the paired bootstrap 0.016: both called it regressed.
describe('Regression Gate: 20 pairs, 4 one point down', () => {
	const before = [4, 5, 3, 4, 2, 5, 4, 3, 4, 5, 3, 4, 4, 5, 3, 2, 4, 5, 3, 4];
	const after = before.map((v, i) => (i < 4 ? v - 1 : v));
	// Two-sided p by enumeration of the sign assignments of the non-zero differences (all tied).
	const nonZero = after.map((a, i) => a - before[i]).filter((d) => d !== 0);
	let asExtreme = 0;
	for (let mask = 0; mask < 1 << nonZero.length; mask++) {
		const plus = [...nonZero.keys()].filter((i) => mask & (1 << i)).length;
		if (plus === 0 || plus === nonZero.length) asExtreme++;
	}
	const exactP = asExtreme / 2 ** nonZero.length;

	it('Wilcoxon: the exact distribution of the 4 non-zero pairs, p = 0.125, not regressed', () => {
		const r = runs(before, after).table[0];
		expect(exactP).toBe(0.125);
		expect(r).toMatchObject({ test: 'wilcoxon-permutation', n: 4, verdict: 'ok' });
		expect(r.delta).toBeCloseTo(-0.2, 12);
		expect(r.pValue).toBe(exactP);
		expect(r.note).toMatch(/not significant/);
	});

	it('Paired bootstrap: not run on 4 non-zero pairs; the exact test decides and the row says so', () => {
		const rows = (values: number[]): GateRow[] =>
			values.map((v, i) => ({ request_id: `q${i}`, eval: { relevance: rating(v) } }));
		const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
		const r = compareRuns(
			{ metrics: { relevance: { value: mean(after), measured: 20 } } },
			{ metrics: { relevance: { value: mean(before), measured: 20 } } },
			{ currentRows: rows(after), baselineRows: rows(before), pairedScoreTest: 'bootstrap' },
		).table[0];
		expect(r).toMatchObject({ test: 'wilcoxon-permutation', n: 4, verdict: 'ok' });
		expect(r.pValue).toBe(exactP);
		expect(r.note).toMatch(
			/Paired bootstrap not run: only 4 of 20 pairs differ \(fewer than 10\), so the exact signed-rank test decided\./,
		);
	});

	it('ten rows one point down among twenty: the bootstrap runs, and both tests call it', () => {
		const ten = before.map((v, i) => (i < 10 ? v - 1 : v));
		expect(runs(before, ten).table[0]).toMatchObject({ test: 'wilcoxon-permutation', n: 10 });
		expect(runs(before, ten).table[0].verdict).toBe('regressed');
		const rows = (values: number[]): GateRow[] =>
			values.map((v, i) => ({ request_id: `q${i}`, eval: { relevance: rating(v) } }));
		const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
		const boot = compareRuns(
			{ metrics: { relevance: { value: mean(ten), measured: 20 } } },
			{ metrics: { relevance: { value: mean(before), measured: 20 } } },
			{ currentRows: rows(ten), baselineRows: rows(before), pairedScoreTest: 'bootstrap' },
		).table[0];
		expect(boot.test).toBe('paired-bootstrap');
		expect(boot.verdict).toBe('regressed');
	});
});
