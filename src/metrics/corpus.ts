/**
 * Corpus-level aggregation of the metrics whose corpus score is not a mean of sentence scores
 * (BLEU flavours): per-row sufficient statistics are summed (in any batching, on any worker)
 * and finalized once, so split runs merge to exactly the single-pass result. Each metric's
 * finalizer is its declaration's `corpus`; `corpusFinalizers` (registry) lists them by id.
 */

/** Summed statistics as stored in `Score.stats` (numbers or per-order arrays). */
export type Stats = Record<string, number | number[]>;

/** Element-wise sum of two statistics records (keys from either side; a missing key counts 0). */
export function sumStats(a: Stats, b: Stats): Stats {
	const out: Stats = {};
	for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
		const x = a[key];
		const y = b[key];
		if (Array.isArray(x) || Array.isArray(y)) {
			const xs = Array.isArray(x) ? x : [];
			const ys = Array.isArray(y) ? y : [];
			if ((x !== undefined && !Array.isArray(x)) || (y !== undefined && !Array.isArray(y))) {
				throw new TypeError(`stats key ${key} is an array on one side only`);
			}
			const len = Math.max(xs.length, ys.length);
			const sum: number[] = [];
			for (let i = 0; i < len; i++) sum.push((xs[i] ?? 0) + (ys[i] ?? 0));
			out[key] = sum;
		} else {
			out[key] = ((x as number | undefined) ?? 0) + ((y as number | undefined) ?? 0);
		}
	}
	return out;
}

/** A per-order statistic of summed stats, checked to hold 4 numbers (n-gram orders 1-4). */
export function statArray(s: Stats, key: string): number[] {
	const v = s[key];
	if (!Array.isArray(v) || v.length !== 4) throw new TypeError(`stats.${key} must be 4 numbers`);
	return v;
}

/** A scalar statistic of summed stats, checked to be a number. */
export function statNumber(s: Stats, key: string): number {
	const v = s[key];
	if (typeof v !== 'number') throw new TypeError(`stats.${key} must be a number`);
	return v;
}
