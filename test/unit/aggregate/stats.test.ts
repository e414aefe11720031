import { bootstrapMeanInterval, histogramSeed } from '../../../src/stats/bootstrap';
import {
	expandHistogram,
	histogramCount,
	histogramFromValues,
	histogramMean,
	histogramSum,
	mergeHistograms,
} from '../../../src/stats/histogram';
import { normalCdf, normalQuantile, wilsonInterval } from '../../../src/stats/intervals';
import { histogramQuantile, quantileSorted } from '../../../src/stats/percentile';
import { createRng, hashString } from '../../../src/stats/random';
import { exactAdd, exactMerge, exactRound, exactSum } from '../../../src/stats/sum';

// Expected figures below come from scipy.stats.norm.ppf, numpy.percentile and CPython math.fsum.

describe('exact summation', () => {
	it('is correctly rounded where naive summation drifts', () => {
		const tenths = Array<number>(10).fill(0.1);
		expect(tenths.reduce((a, b) => a + b, 0)).toBe(0.9999999999999999);
		expect(exactSum(tenths)).toBe(1);
		expect(exactSum([1e100, 1, -1e100, 1e-100])).toBe(1);
		expect(exactSum([])).toBe(0);
		expect(Object.is(exactSum([-0]), 0)).toBe(true);
	});

	it('rounds ties to even like math.fsum', () => {
		// 1 + 2^-53 is a tie between 1 and 1 + 2^-52; the extra 2^-106 breaks it upwards.
		expect(exactSum([1, 2 ** -53, 2 ** -106])).toBe(1 + 2 ** -52);
		expect(exactSum([1, 2 ** -53])).toBe(1);
	});

	it('gives the same bits for every order and every split-and-merge', () => {
		const rng = createRng(7);
		const xs = Array.from({ length: 500 }, () => (rng() - 0.5) * 10 ** Math.floor(rng() * 30 - 15));
		const reference = exactSum(xs);
		for (let trial = 0; trial < 20; trial++) {
			const shuffled = [...xs].sort(() => rng() - 0.5);
			const cut = Math.floor(rng() * xs.length);
			const a: number[] = [];
			const b: number[] = [];
			for (const x of shuffled.slice(0, cut)) exactAdd(a, x);
			for (const x of shuffled.slice(cut)) exactAdd(b, x);
			exactMerge(b, a);
			expect(exactRound(b)).toBe(reference);
		}
	});
});

describe('histogram', () => {
	it('keeps sorted distinct values with counts and merges to the union', () => {
		const a = histogramFromValues([3, 1, 3, -0, 2]);
		expect(a).toEqual({ v: [0, 1, 2, 3], c: [1, 1, 1, 2] });
		const b = histogramFromValues([2, 5]);
		const m = mergeHistograms(a, b);
		expect(m).toEqual(histogramFromValues([3, 1, 3, 0, 2, 2, 5]));
		expect(histogramCount(m)).toBe(7);
		expect(histogramSum(m)).toBe(16);
		expect(histogramMean(m)).toBe(16 / 7);
		expect(histogramMean({ v: [], c: [] })).toBeUndefined();
		expect(Array.from(expandHistogram(m))).toEqual([0, 1, 2, 2, 3, 3, 5]);
	});

	it('sums value x count exactly', () => {
		// math.fsum([0.1] * 10 + [0.2] * 5 + [0.7] * 3) == 4.1.
		const h = { v: [0.1, 0.2, 0.7], c: [10, 5, 3] };
		expect(histogramSum(h)).toBe(4.1);
		expect(histogramSum(h)).toBe(exactSum(expandHistogram(h)));
	});
});

describe('percentiles (numpy linear)', () => {
	const xs = [0.1, 0.7, 0.2, 0.9, 0.4];
	const sorted = [...xs].sort((a, b) => a - b);
	const h = histogramFromValues(xs);
	it.each([
		[0, 0.1],
		[0.25, 0.2],
		[0.5, 0.4],
		[0.9, 0.8200000000000001],
		[0.99, 0.892],
		[1, 0.9],
	])('q=%p', (q, expected) => {
		expect(quantileSorted(sorted, q)).toBe(expected);
		expect(histogramQuantile(h, q)).toBe(expected);
	});

	it('handles repeated values and 1..10', () => {
		const lat = histogramFromValues([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(histogramQuantile(lat, 0.5)).toBe(5.5);
		expect(histogramQuantile(lat, 0.9)).toBeCloseTo(9.1, 12);
		expect(histogramQuantile(lat, 0.99)).toBeCloseTo(9.91, 12);
		expect(histogramQuantile(histogramFromValues([2, 2, 2, 7]), 0.5)).toBe(2);
		expect(histogramQuantile(histogramFromValues([4]), 0.99)).toBe(4);
		expect(histogramQuantile({ v: [], c: [] }, 0.5)).toBeUndefined();
		expect(() => quantileSorted([1], 1.5)).toThrow(RangeError);
	});
});

describe('normal quantile and Wilson interval', () => {
	it.each([
		[0.975, 1.959963984540054],
		[0.995, 2.5758293035489004],
		[0.9, 1.2815515655446004],
		[0.3, -0.5244005127080409],
		[0.01, -2.3263478740408408],
		[1e-6, -4.753424308822899],
	])('normalQuantile(%p)', (p, z) => {
		expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(1e-13 * Math.max(1, Math.abs(z)));
	});

	it('cdf inverts the quantile', () => {
		expect(normalCdf(0)).toBe(0.5);
		expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 15);
		expect(normalCdf(-8)).toBeGreaterThan(0);
	});

	it.each([
		[8, 10, 0.95, 0.4901624715366418, 0.9433178485456248],
		[0, 10, 0.95, 0, 0.2775327998628892],
		[10, 10, 0.95, 0.7224672001371107, 1],
		[1, 3, 0.95, 0.06149194472039615, 0.7923403991979523],
		[45, 50, 0.99, 0.7402692104043159, 0.9660091162215817],
	])('wilson(%p/%p at %p)', (k, n, level, low, high) => {
		const ci = wilsonInterval(k, n, level);
		expect(ci?.method).toBe('wilson');
		expect(ci?.low).toBeCloseTo(low, 12);
		expect(ci?.high).toBeCloseTo(high, 12);
	});

	it('ends exactly at 0 with no successes and at 1 with all, for every n up to 5,000', () => {
		let inside = 0;
		for (let n = 1; n <= 5000; n++) {
			for (const level of [0.9, 0.95, 0.99]) {
				const none = wilsonInterval(0, n, level);
				const all = wilsonInterval(n, n, level);
				expect(none?.low).toBe(0);
				expect(all?.high).toBe(1);
				// The other ends stay strictly inside (0, 1): z^2 / (n + z^2) and n / (n + z^2).
				if (none!.high > 0 && none!.high < 1 && all!.low > 0 && all!.low < 1) inside++;
			}
		}
		expect(inside).toBe(15000);
	});

	it('has no interval without trials', () => {
		expect(wilsonInterval(0, 0)).toBeUndefined();
		expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
	});
});

describe('seeded bootstrap', () => {
	it('is a pure function of the multiset', () => {
		const a = histogramFromValues([1, 5, 2, 2, 4, 3, 3, 3]);
		const b = mergeHistograms(histogramFromValues([3, 2, 5]), histogramFromValues([1, 2, 4, 3, 3]));
		expect(bootstrapMeanInterval(a, { salt: 'm' })).toEqual(
			bootstrapMeanInterval(b, { salt: 'm' }),
		);
		expect(histogramSeed(a, 'x')).not.toBe(histogramSeed(a, 'y'));
	});

	it('brackets the mean, stays in range and narrows with more data', () => {
		const rng = createRng(hashString('normalish'));
		const small = histogramFromValues(Array.from({ length: 20 }, () => rng() * 4 + 1));
		const large = histogramFromValues(Array.from({ length: 2000 }, () => rng() * 4 + 1));
		const s = bootstrapMeanInterval(small, { resamples: 500 });
		const l = bootstrapMeanInterval(large, { resamples: 500 });
		for (const [h, ci] of [
			[small, s],
			[large, l],
		] as const) {
			const mean = histogramMean(h) as number;
			expect(ci?.low).toBeLessThan(mean);
			expect(ci?.high).toBeGreaterThan(mean);
			expect(ci?.low).toBeGreaterThanOrEqual(h.v[0]);
			expect(ci?.high).toBeLessThanOrEqual(h.v[h.v.length - 1]);
		}
		expect((l?.high as number) - (l?.low as number)).toBeLessThan(
			((s?.high as number) - (s?.low as number)) / 3,
		);
		// Uniform(1,5) has sd 4/sqrt(12); the 95% half-width of the mean of 2000 is ~0.0506.
		expect(((l?.high as number) - (l?.low as number)) / 2).toBeGreaterThan(0.04);
		expect(((l?.high as number) - (l?.low as number)) / 2).toBeLessThan(0.062);
	});

	it('collapses on constant data and is absent on empty data', () => {
		const ci = bootstrapMeanInterval(histogramFromValues([3, 3, 3]));
		expect(ci).toMatchObject({ low: 3, high: 3, resamples: 1000, level: 0.95 });
		expect(bootstrapMeanInterval({ v: [], c: [] })).toBeUndefined();
	});
});

describe('rng', () => {
	it('is deterministic per seed and uniform in [0,1)', () => {
		const a = createRng(42);
		const b = createRng(42);
		const c = createRng(43);
		const xs = Array.from({ length: 10000 }, a);
		expect(Array.from({ length: 10000 }, b)).toEqual(xs);
		expect(c()).not.toBe(xs[0]);
		expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
		expect(Math.max(...xs)).toBeLessThan(1);
		const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
		expect(Math.abs(mean - 0.5)).toBeLessThan(0.01);
	});
});
