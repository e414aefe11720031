/**
 * Corpus-level aggregation of the metrics whose corpus score is not a mean of sentence scores
 * (BLEU flavours): per-row sufficient statistics are summed (in any batching, on any worker)
 * and finalized once, so split runs merge to exactly the single-pass result.
 */
import { bleuFromStats } from './bleu';
import { sacreBleuFromStats } from './sacrebleu';

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

function arr(s: Stats, key: string): number[] {
	const v = s[key];
	if (!Array.isArray(v) || v.length !== 4) throw new TypeError(`stats.${key} must be 4 numbers`);
	return v;
}

function num(s: Stats, key: string): number {
	const v = s[key];
	if (typeof v !== 'number') throw new TypeError(`stats.${key} must be a number`);
	return v;
}

/** Corpus score from summed stats, keyed by metric id (`bleu`: nltk 0-1, `sacrebleu`: 0-100). */
export const corpusFinalizers: Record<string, (summed: Stats) => number> = {
	bleu: (s) =>
		bleuFromStats({
			matches: arr(s, 'matches'),
			totals: arr(s, 'totals'),
			hypLen: num(s, 'hypLen'),
			refLen: num(s, 'refLen'),
		}),
	sacrebleu: (s) =>
		sacreBleuFromStats(
			{
				counts: arr(s, 'counts'),
				totals: arr(s, 'totals'),
				sysLen: num(s, 'sysLen'),
				refLen: num(s, 'refLen'),
			},
			false,
		).score,
};
