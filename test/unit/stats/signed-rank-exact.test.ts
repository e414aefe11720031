// "Verdicts a team can trust", item 2: the gate's signed-rank test takes its p-value from the exact
// distribution of the non-zero differences when they are few. Every reference p-value here is
// computed in the test by enumerating the 2^n sign assignments of the non-zero |d| (mid-ranks for
// ties), never typed in.
import {
	EXACT_SIGNED_RANK_MAX,
	rankAverage,
	signedRankTest,
	wilcoxonSignedRank,
	type Alternative,
} from '../../../src/stats/tests';
import { createRng } from '../../../src/stats/random';

/** Brute force: P-value of W+ over all 2^n equally likely signs of the non-zero differences. */
function enumerated(d: readonly number[], alternative: Alternative = 'two-sided'): number {
	const nonZero = d.filter((x) => x !== 0);
	const n = nonZero.length;
	if (n === 0) return 1;
	const { ranks } = rankAverage(nonZero.map(Math.abs));
	let observed = 0;
	nonZero.forEach((x, i) => {
		if (x > 0) observed += ranks[i];
	});
	let below = 0;
	let above = 0;
	for (let mask = 0; mask < 1 << n; mask++) {
		let w = 0;
		for (let i = 0; i < n; i++) if (mask & (1 << i)) w += ranks[i];
		// Mid-ranks are multiples of 1/2: sums compare exactly.
		if (w <= observed) below++;
		if (w >= observed) above++;
	}
	const total = 2 ** n;
	if (alternative === 'less') return below / total;
	if (alternative === 'greater') return above / total;
	return Math.min(1, (2 * Math.min(below, above)) / total);
}

describe('signedRankTest: exact over the non-zero differences when they are few', () => {
	it('20 pairs, 4 one point down: p = 0.125 by enumeration, where scipy auto gives the normal 0.0455', () => {
		const d = [...Array(4).fill(-1), ...Array(16).fill(0)];
		const r = signedRankTest(d);
		expect(r).toMatchObject({ test: 'wilcoxon-permutation', n: 4, zeros: 16 });
		expect(r.pValue).toBe(enumerated(d));
		expect(r.pValue).toBe(2 / 16);
		// The scipy-parity function keeps scipy's dispatch: zeros and 20 > 13 pairs -> normal.
		const auto = wilcoxonSignedRank(d);
		expect(auto.test).toBe('wilcoxon-normal');
		expect(auto.pValue).toBeLessThan(0.05);
	});

	it('matches enumeration on random small samples with zeros and ties, every alternative', () => {
		const rand = createRng(2024);
		for (let k = 0; k < 300; k++) {
			const pairs = 1 + Math.floor(rand() * 40);
			// Mostly zeros, at most 14 non-zero differences from a few magnitudes (ties galore).
			const d = Array.from({ length: pairs }, () =>
				rand() < 0.6 ? 0 : (rand() < 0.5 ? -1 : 1) * (1 + Math.floor(rand() * 4)),
			);
			while (d.filter((x) => x !== 0).length > 14) d[d.findIndex((x) => x !== 0)] = 0;
			for (const alternative of ['two-sided', 'less', 'greater'] as const) {
				const r = signedRankTest(d, { alternative });
				expect(r.pValue).toBeCloseTo(enumerated(d, alternative), 14);
				expect(r.n).toBe(d.filter((x) => x !== 0).length);
			}
		}
	});

	it('without ties it is the exact null distribution, and matches enumeration', () => {
		const d = [0, 0, -3, 1.5, -2, 0, -7, -4, 0, -6, 5];
		const r = signedRankTest(d);
		expect(r.test).toBe('wilcoxon-exact');
		expect(r.pValue).toBeCloseTo(enumerated(d), 14);
	});

	it('no non-zero difference: p = 1; above 50 non-zero: the normal approximation', () => {
		expect(signedRankTest([0, 0, 0]).pValue).toBe(1);
		expect(signedRankTest([]).pValue).toBe(1);
		const many = Array.from({ length: EXACT_SIGNED_RANK_MAX + 1 }, (_, i) => (i % 3) - 1.5);
		expect(signedRankTest(many)).toEqual(wilcoxonSignedRank(many, { method: 'asymptotic' }));
		// 50 non-zero among 120 pairs: still exact (scipy auto would go normal on 120 pairs).
		const fifty = [...Array(70).fill(0), ...Array.from({ length: 50 }, (_, i) => (i % 5) - 2.5)];
		const r = signedRankTest(fifty);
		expect(r.test).toBe('wilcoxon-permutation');
		expect(r.n).toBe(50);
		expect(Number.isFinite(r.pValue) && r.pValue > 0 && r.pValue <= 1).toBe(true);
	});

	it('differences must be finite', () => {
		expect(() => signedRankTest([1, NaN])).toThrow(RangeError);
	});
});
