/**
 * Percentiles by linear interpolation between closest ranks: Hyndman and Fan (1996) definition 7,
 * the default of numpy.percentile, pandas.quantile and R's quantile(type = 7).
 */
import type { Histogram } from './histogram';

/** The q-quantile (0 <= q <= 1) of ascending `sorted`; undefined when empty. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number | undefined {
	const n = sorted.length;
	if (n === 0) return undefined;
	return interpolate((k) => sorted[k], n, q);
}

/**
 * Percentile interval of ascending bootstrap replicates at two-sided `level`: the (1 - level)/2
 * and (1 + level)/2 quantiles by the linear rule above. The one rule every bootstrap uses.
 */
export function percentileInterval(
	sorted: ArrayLike<number>,
	level: number,
): { low: number; high: number } {
	if (sorted.length === 0) throw new RangeError('percentileInterval: no replicates');
	if (!(level > 0 && level < 1)) throw new RangeError(`level must be within (0, 1), got ${level}`);
	const alpha = (1 - level) / 2;
	return {
		low: quantileSorted(sorted, alpha) as number,
		high: quantileSorted(sorted, 1 - alpha) as number,
	};
}

/** The q-quantile of a histogram's values, without expanding it; undefined when empty. */
export function histogramQuantile(h: Histogram, q: number): number | undefined {
	let n = 0;
	for (const k of h.c) n += k;
	if (n === 0) return undefined;
	// Cumulative counts let us read the k-th smallest value directly.
	const cum: number[] = [];
	let run = 0;
	for (const k of h.c) cum.push((run += k));
	const at = (rank: number): number => {
		let lo = 0;
		let hi = cum.length - 1;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (cum[mid] > rank) hi = mid;
			else lo = mid + 1;
		}
		return h.v[lo];
	};
	return interpolate(at, n, q);
}

function interpolate(at: (rank: number) => number, n: number, q: number): number {
	if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be within [0, 1], got ${q}`);
	const h = (n - 1) * q;
	const lo = Math.floor(h);
	const x = at(lo);
	if (lo + 1 >= n || h === lo) return x;
	const y = at(lo + 1);
	// x + frac*(y - x) is exact at both ends and never leaves [x, y].
	return x === y ? x : x + (h - lo) * (y - x);
}
