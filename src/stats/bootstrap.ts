/**
 * Percentile bootstrap confidence interval of a mean (Efron and Tibshirani 1993, ch. 13), seeded
 * from the data itself so the interval is a pure function of the multiset of values: the same rows
 * give the same interval whatever order or batching they arrived in.
 */
import { expandHistogram, histogramCount, type Histogram } from './histogram';
import type { Interval } from './intervals';
import { percentileInterval } from './percentile';
import { createRng, hashNumbers, hashString } from './random';

/** Options of {@link bootstrapMeanInterval}. */
export interface BootstrapOptions {
	/** Number of resamples (default 1000). */
	resamples?: number;
	/** Two-sided confidence level (default 0.95). */
	level?: number;
	/** Extra text mixed into the data-derived seed, e.g. the metric name. */
	salt?: string;
}

/** Default number of bootstrap resamples. */
export const DEFAULT_RESAMPLES = 1000;

/** Seed derived from the histogram's content (and a salt): independent of how it was built. */
export function histogramSeed(h: Histogram, salt = ''): number {
	return hashNumbers(h.c, hashNumbers(h.v, hashString(salt)));
}

/**
 * Percentile-bootstrap interval of the mean of the histogram's values; undefined when empty.
 * Each resample draws n values with replacement; the interval is read off the sorted resample
 * means at (1 - level)/2 and (1 + level)/2 by linear interpolation ({@link percentileInterval}).
 */
export function bootstrapMeanInterval(
	h: Histogram,
	options: BootstrapOptions = {},
): Interval | undefined {
	const n = histogramCount(h);
	if (n === 0) return undefined;
	const resamples = Math.max(1, Math.floor(options.resamples ?? DEFAULT_RESAMPLES));
	const level = options.level ?? 0.95;
	if (!(level > 0 && level < 1)) throw new RangeError(`level must be within (0, 1), got ${level}`);
	const values = expandHistogram(h);
	const rng = createRng(histogramSeed(h, options.salt));
	const means = new Float64Array(resamples);
	for (let r = 0; r < resamples; r++) {
		let sum = 0;
		for (let i = 0; i < n; i++) sum += values[Math.floor(rng() * n)];
		means[r] = sum / n;
	}
	means.sort();
	const { low, high } = percentileInterval(means, level);
	// Resample means cannot leave [min, max], but float rounding of sum/n can by an ulp: clamp.
	const lo = Math.max(values[0], low);
	const hi = Math.min(values[n - 1], high);
	return { low: lo, high: hi, method: 'bootstrap-percentile', level, resamples };
}
