/**
 * A multiset of numbers stored as sorted distinct values with their counts. It is the canonical
 * form of "all values measured": two batches merge into exactly the histogram of their union, so
 * sums, means, percentiles and seeded bootstraps computed from it do not depend on batching.
 */
import { exactAddProduct, exactRound, type ExactPartials } from './sum';

/** Sorted distinct values `v` (ascending, no -0) and their positive counts `c`; JSON-safe. */
export interface Histogram {
	v: number[];
	c: number[];
}

/** Histogram of finite values (others must be filtered out by the caller); -0 counts as 0. */
export function histogramFromValues(values: ArrayLike<number>): Histogram {
	const sorted = Float64Array.from(values);
	sorted.sort();
	const v: number[] = [];
	const c: number[] = [];
	for (let i = 0; i < sorted.length; i++) {
		const x = sorted[i] === 0 ? 0 : sorted[i];
		if (v.length > 0 && v[v.length - 1] === x) c[c.length - 1]++;
		else {
			v.push(x);
			c.push(1);
		}
	}
	return { v, c };
}

/** Union of two multisets (a new histogram; inputs untouched). */
export function mergeHistograms(a: Histogram, b: Histogram): Histogram {
	const v: number[] = [];
	const c: number[] = [];
	let i = 0;
	let j = 0;
	while (i < a.v.length || j < b.v.length) {
		if (j >= b.v.length || (i < a.v.length && a.v[i] < b.v[j])) {
			v.push(a.v[i]);
			c.push(a.c[i++]);
		} else if (i >= a.v.length || b.v[j] < a.v[i]) {
			v.push(b.v[j]);
			c.push(b.c[j++]);
		} else {
			v.push(a.v[i]);
			c.push(a.c[i++] + b.c[j++]);
		}
	}
	return { v, c };
}

/** Number of values in the multiset. */
export function histogramCount(h: Histogram): number {
	let n = 0;
	for (const k of h.c) n += k;
	return n;
}

/** Correctly rounded exact sum of all values. */
export function histogramSum(h: Histogram): number {
	const partials: ExactPartials = [];
	for (let i = 0; i < h.v.length; i++) exactAddProduct(partials, h.v[i], h.c[i]);
	return exactRound(partials);
}

/** Mean of the values (exact sum, one rounding for the division); undefined when empty. */
export function histogramMean(h: Histogram): number | undefined {
	const n = histogramCount(h);
	return n === 0 ? undefined : histogramSum(h) / n;
}

/** How many values satisfy `predicate`. */
export function histogramCountWhere(h: Histogram, predicate: (x: number) => boolean): number {
	let n = 0;
	for (let i = 0; i < h.v.length; i++) if (predicate(h.v[i])) n += h.c[i];
	return n;
}

/** The values as one ascending array (for resampling). */
export function expandHistogram(h: Histogram): Float64Array {
	const out = new Float64Array(histogramCount(h));
	let k = 0;
	for (let i = 0; i < h.v.length; i++) out.fill(h.v[i], k, (k += h.c[i]));
	return out;
}
