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
