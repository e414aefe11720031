/**
 * Hypothesis tests used by the regression gate: McNemar (exact binomial and chi-square with
 * continuity correction), Wilcoxon signed-rank, paired and unpaired bootstrap, the pooled
 * two-proportion z-test and Holm-Bonferroni adjustment, plus the distribution functions they need.
 *
 * Reference behaviour matched:
 * - McNemar exact: statsmodels `mcnemar(exact=True)` = min(1, 2 * Binom(b+c, 1/2).cdf(min(b, c))).
 *   Chi-square with continuity correction: chi2(1).sf(max(0, |b-c| - 1)^2 / (b+c)), equal to
 *   statsmodels `mcnemar(exact=False, correction=True)` except when b = c: there we give 0 (p = 1)
 *   as R's `mcnemar.test` does (it drops the correction when b = c), while statsmodels squares
 *   |b-c| - 1 = -1 and reports 1 / (b+c), e.g. 1/14 and p = 0.789 for b = c = 7.
 * - Wilcoxon: scipy >= 1.15 `wilcoxon(d)` with its defaults (zero_method='wilcox',
 *   correction=False, two-sided, method='auto'): exact, permutation or tie-corrected normal
 *   p-values as {@link wilcoxonSignedRank} describes; reference values in test/fixtures/scipy.
 *   The gate's {@link signedRankTest} departs from `auto` on purpose: exact over the non-zero
 *   differences whenever they are few (at most 50), zeros and ties or not.
 * - Two-proportion: statsmodels `proportions_ztest` with the pooled variance, two-sided.
 * - Holm: step-down adjusted p-values as statsmodels `multipletests(method='holm')`.
 * Distribution functions follow the classical series / continued-fraction expansions
 * (Abramowitz & Stegun 7.1, 6.5; Lanczos g=7 for log-gamma), accurate to ~1e-14, never NaN for
 * finite input.
 */

import { percentileInterval } from './percentile';
import { createRng } from './random';

const SQRT2 = Math.SQRT2;
const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/** Complementary error function, erfc(x) = 1 - erf(x), without cancellation in the tails. */
export function erfc(x: number): number {
	if (Number.isNaN(x)) throw new RangeError('erfc: NaN input');
	if (x === Infinity) return 0;
	if (x === -Infinity) return 2;
	if (x < 0) return 2 - erfc(-x);
	if (x < 2) return 1 - erfSeries(x);
	return erfcContinuedFraction(x);
}

/** Error function. */
export function erf(x: number): number {
	return 1 - erfc(x);
}

// erf(x) = 2/sqrt(pi) e^{-x^2} sum 2^n x^{2n+1} / (1*3*...*(2n+1)): all terms positive, so no
// cancellation, and it converges quickly for the |x| < 2 range it is used on.
function erfSeries(x: number): number {
	const x2 = x * x;
	let term = x;
	let sum = x;
	for (let n = 1; n < 200; n++) {
		term *= (2 * x2) / (2 * n + 1);
		sum += term;
		if (term < sum * 1e-17) break;
	}
	return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

// erfc(x) = e^{-x^2}/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated with the
// modified Lentz method; converges fast for x >= 2.
function erfcContinuedFraction(x: number): number {
	const tiny = 1e-300;
	let f = x;
	let c = x;
	let d = 0;
	for (let k = 1; k < 500; k++) {
		const a = k / 2;
		d = x + a * d;
		d = Math.abs(d) < tiny ? tiny : d;
		c = x + a / c;
		c = Math.abs(c) < tiny ? tiny : c;
		d = 1 / d;
		const delta = c * d;
		f *= delta;
		if (Math.abs(delta - 1) < 1e-16) break;
	}
	return Math.exp(-x * x) / (Math.sqrt(Math.PI) * f);
}

/** Two-sided normal p-value 2 * P(Z >= |z|), computed in the tail to keep tiny p-values exact. */
export function normalTwoSided(z: number): number {
	return Math.min(1, erfc(Math.abs(z) / SQRT2));
}

const LANCZOS = [
	0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
	-176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
	1.5056327351493116e-7,
];

/** Natural log of the gamma function for x > 0 (Lanczos, g = 7). */
export function logGamma(x: number): number {
	if (!(x > 0)) throw new RangeError(`logGamma: x must be > 0, got ${x}`);
	if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
	const y = x - 1;
	let a = LANCZOS[0];
	const t = y + 7.5;
	for (let i = 1; i < 9; i++) a += LANCZOS[i] / (y + i);
	return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a). */
export function gammaQ(a: number, x: number): number {
	if (!(a > 0) || x < 0 || Number.isNaN(x)) throw new RangeError('gammaQ: need a > 0, x >= 0');
	if (x === 0) return 1;
	if (x === Infinity) return 0;
	const lnPrefix = a * Math.log(x) - x - logGamma(a);
	if (x < a + 1) {
		// Series for P(a, x), then Q = 1 - P (P is small here so no harmful cancellation).
		let term = 1 / a;
		let sum = term;
		for (let n = 1; n < 1000; n++) {
			term *= x / (a + n);
			sum += term;
			if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
		}
		return Math.max(0, 1 - sum * Math.exp(lnPrefix));
	}
	// Continued fraction for Q(a, x) (modified Lentz).
	const tiny = 1e-300;
	let b = x + 1 - a;
	let c = 1 / tiny;
	let d = 1 / b;
	let h = d;
	for (let i = 1; i < 1000; i++) {
		const an = -i * (i - a);
		b += 2;
		d = an * d + b;
		d = Math.abs(d) < tiny ? tiny : d;
		c = b + an / c;
		c = Math.abs(c) < tiny ? tiny : c;
		d = 1 / d;
		const delta = d * c;
		h *= delta;
		if (Math.abs(delta - 1) < 1e-16) break;
	}
	return Math.min(1, Math.exp(lnPrefix) * h);
}

/** Chi-square survival function P(X >= x) with `df` degrees of freedom. */
export function chiSquareSf(x: number, df: number): number {
	if (!(df > 0)) throw new RangeError(`chiSquareSf: df must be > 0, got ${df}`);
	if (x <= 0) return 1;
	// df = 1 has a closed form through erfc that keeps full precision deep in the tail.
	if (df === 1) return erfc(Math.sqrt(x / 2));
	return gammaQ(df / 2, x / 2);
}

/** Binomial CDF P(X <= k) for X ~ Binomial(n, p), summed in log space (no underflow for big n). */
export function binomialCdf(k: number, n: number, p: number): number {
	if (!Number.isInteger(n) || n < 0) throw new RangeError(`binomialCdf: bad n ${n}`);
	if (!(p >= 0 && p <= 1)) throw new RangeError(`binomialCdf: bad p ${p}`);
	const kk = Math.floor(k);
	if (kk < 0) return 0;
	if (kk >= n) return 1;
	if (p === 0) return 1;
	if (p === 1) return 0;
	const lp = Math.log(p);
	const lq = Math.log1p(-p);
	const lnN = logFactorial(n);
	const logs: number[] = [];
	let max = -Infinity;
	for (let i = 0; i <= kk; i++) {
		const v = lnN - logFactorial(i) - logFactorial(n - i) + i * lp + (n - i) * lq;
		logs.push(v);
		if (v > max) max = v;
	}
	let sum = 0;
	for (const v of logs) sum += Math.exp(v - max);
	return Math.min(1, Math.exp(max) * sum);
}

const LOG_FACTORIALS: number[] = [0];
// Summing logs for small arguments is exact to rounding and makes p = 1/2 tables bit-stable.
function logFactorial(n: number): number {
	if (n < 2000) {
		for (let i = LOG_FACTORIALS.length; i <= n; i++) {
			LOG_FACTORIALS.push(LOG_FACTORIALS[i - 1] + Math.log(i));
		}
		return LOG_FACTORIALS[n];
	}
	return logGamma(n + 1);
}

/** Result of a two-sided hypothesis test. */
export interface TestResult {
	/** Which test actually ran, e.g. `mcnemar-exact`, `wilcoxon-normal`. */
	test: string;
	statistic: number;
	pValue: number;
	/** Number of observations that informed the test (discordant pairs, non-zero differences...). */
	n: number;
}

/**
 * McNemar's test on paired pass/fail outcomes. `b` = pairs that passed before and fail now,
 * `c` = pairs that failed before and pass now. Exact binomial when b + c < `exactBelow` (25).
 */
export function mcnemar(b: number, c: number, options: { exactBelow?: number } = {}): TestResult {
	if (![b, c].every((v) => Number.isInteger(v) && v >= 0)) {
		throw new RangeError('mcnemar: counts must be non-negative integers');
	}
	const n = b + c;
	if (n === 0) return { test: 'mcnemar-exact', statistic: 0, pValue: 1, n };
	if (n < (options.exactBelow ?? 25)) return mcnemarExact(b, c);
	return mcnemarChiSquare(b, c);
}

/** Exact McNemar: two-sided binomial test of min(b, c) against Binomial(b + c, 1/2). */
export function mcnemarExact(b: number, c: number): TestResult {
	const n = b + c;
	const k = Math.min(b, c);
	const pValue = n === 0 ? 1 : Math.min(1, 2 * binomialCdf(k, n, 0.5));
	return { test: 'mcnemar-exact', statistic: k, pValue, n };
}

/**
 * McNemar's chi-square with Edwards' continuity correction, max(0, |b - c| - 1)^2 / (b + c), 1 df;
 * the clamp makes b = c give 0 as in R (statsmodels gives 1 / (b + c) there).
 */
export function mcnemarChiSquare(b: number, c: number): TestResult {
	const n = b + c;
	if (n === 0) return { test: 'mcnemar-chi2', statistic: 0, pValue: 1, n };
	const diff = Math.max(0, Math.abs(b - c) - 1);
	const statistic = (diff * diff) / n;
	return { test: 'mcnemar-chi2', statistic, pValue: chiSquareSf(statistic, 1), n };
}

/** Average ranks (1-based) of `values`, ties sharing the mean of their positions. */
export function rankAverage(values: readonly number[]): { ranks: number[]; tieSizes: number[] } {
	const order = values.map((v, i) => i).sort((a, b) => values[a] - values[b]);
	const ranks = new Array<number>(values.length);
	const tieSizes: number[] = [];
	let i = 0;
	while (i < order.length) {
		let j = i;
		while (j + 1 < order.length && values[order[j + 1]] === values[order[i]]) j++;
		const avg = (i + j + 2) / 2;
		for (let k = i; k <= j; k++) ranks[order[k]] = avg;
		if (j > i) tieSizes.push(j - i + 1);
		i = j + 1;
	}
	return { ranks, tieSizes };
}

/** How zero differences enter the Wilcoxon test (scipy's `zero_method`). */
export type WilcoxonZeroMethod = 'wilcox' | 'pratt' | 'zsplit';

/** Alternative hypothesis about the differences d = current - baseline. */
export type Alternative = 'two-sided' | 'less' | 'greater';

/** How the Wilcoxon p-value is computed; `auto` chooses as scipy >= 1.15 does. */
export type WilcoxonMethod = 'auto' | 'exact' | 'permutation' | 'asymptotic';

/** Options of {@link wilcoxonSignedRank}; the defaults are scipy's. */
export interface WilcoxonOptions {
	/**
	 * `wilcox` (default) drops zero differences before ranking; `pratt` ranks them with the
	 * others and then drops their ranks (the normal approximation adjusted as Cureton 1967);
	 * `zsplit` ranks them and gives half of their rank sum to each sign.
	 */
	zeroMethod?: WilcoxonZeroMethod;
	/** `less`: d tends to be below 0 (current worse for higher-is-better); default two-sided. */
	alternative?: Alternative;
	/** Default `auto`: see {@link wilcoxonSignedRank}. */
	method?: WilcoxonMethod;
	/** Continuity correction of 0.5 on the statistic in the normal approximation; default false. */
	correction?: boolean;
	/** `auto` uses the normal approximation above this many differences, zeros included; 50. */
	exactMaxN?: number;
	/** `auto` runs the permutation test with ties or zeros up to this many differences; 13. */
	permutationMaxN?: number;
}

/** Wilcoxon result: rank sums by sign (zsplit adds half the zeros' ranks to each). */
export interface WilcoxonResult extends TestResult {
	wPlus: number;
	wMinus: number;
	/** Zero differences in the input (dropped by `wilcox`, ranked by `pratt` and `zsplit`). */
	zeros: number;
}

// Distributions are tabulated by dynamic programming over at most this many ranks (O(n^3) work).
const MAX_TABULATED_N = 1000;

/**
 * Wilcoxon signed-rank test on paired differences d = current - baseline, as scipy >= 1.15
 * `wilcoxon(d)` computes it (checked against scipy in test/fixtures/scipy). `statistic` is
 * min(W+, W-) two-sided and W+ one-sided. Method `auto`: more than `exactMaxN` (50) differences,
 * zeros counted -> normal approximation; else no ties and no zeros -> exact null distribution;
 * else at most `permutationMaxN` (13) -> exact permutation distribution over all 2^n sign flips
 * of the actual (mid-)ranks; else the normal approximation with tie correction. Where scipy
 * returns NaN (no non-zero difference left) the p-value is 1: no evidence of a change.
 */
export function wilcoxonSignedRank(
	differences: readonly number[],
	options: WilcoxonOptions = {},
): WilcoxonResult {
	for (const d of differences) {
		if (!Number.isFinite(d)) throw new RangeError('wilcoxonSignedRank: differences must be finite');
	}
	const zeroMethod = options.zeroMethod ?? 'wilcox';
	const alternative = options.alternative ?? 'two-sided';
	if (!['wilcox', 'pratt', 'zsplit'].includes(zeroMethod)) {
		throw new RangeError(`wilcoxonSignedRank: unknown zeroMethod '${String(zeroMethod)}'`);
	}
	if (!['two-sided', 'less', 'greater'].includes(alternative)) {
		throw new RangeError(`wilcoxonSignedRank: unknown alternative '${String(alternative)}'`);
	}
	const length = differences.length;
	const nonZero = differences.filter((d) => d !== 0);
	const zeros = length - nonZero.length;
	const sums = signedRankSums(nonZero);
	// Ranked with the zeros (pratt, zsplit), every non-zero rank moves up by the number of zeros.
	const shift = zeroMethod === 'wilcox' ? 0 : zeros;
	let positives = 0;
	for (const d of nonZero) if (d > 0) positives++;
	let wPlus = sums.wPlus + shift * positives;
	let wMinus = sums.wMinus + shift * (nonZero.length - positives);
	const zeroHalf = zeroMethod === 'zsplit' ? (zeros * (zeros + 1)) / 4 : 0;
	wPlus += zeroHalf;
	wMinus += zeroHalf;
	const count = zeroMethod === 'wilcox' ? nonZero.length : length;
	const statistic = alternative === 'two-sided' ? Math.min(wPlus, wMinus) : wPlus;
	const base = { statistic, n: count, wPlus, wMinus, zeros };

	let method = options.method ?? 'auto';
	if (method === 'auto') {
		if (length > (options.exactMaxN ?? 50)) method = 'asymptotic';
		else if (zeros === 0 && sums.tieSizes.length === 0) method = 'exact';
		else if (length <= (options.permutationMaxN ?? 13)) method = 'permutation';
		else method = 'asymptotic';
	}
	if (method === 'exact' || method === 'permutation') {
		const size = method === 'exact' ? count : nonZero.length;
		if (size > MAX_TABULATED_N) {
			throw new RangeError(
				`wilcoxonSignedRank: method '${method}' tabulates at most ${MAX_TABULATED_N} ranks, got ${size}`,
			);
		}
	}
	if (method === 'exact') {
		return {
			test: 'wilcoxon-exact',
			pValue: exactSignedRankP(wPlus, count, alternative),
			...base,
		};
	}
	if (method === 'permutation') {
		// Doubled mid-ranks are integers, so the permutation distribution is tabulated exactly.
		const { ranks } = rankAverage(nonZero.map(Math.abs));
		const doubled = ranks.map((r) => 2 * (r + shift));
		let observed = 0;
		nonZero.forEach((d, i) => {
			if (d > 0) observed += doubled[i];
		});
		return {
			test: 'wilcoxon-permutation',
			pValue: subsetSumP(doubled, observed, alternative),
			...base,
		};
	}
	if (method !== 'asymptotic') {
		throw new RangeError(`wilcoxonSignedRank: unknown method '${String(method)}'`);
	}
	let mean = (count * (count + 1)) / 4;
	let se2 = count * (count + 1) * (2 * count + 1);
	if (zeroMethod === 'pratt') {
		mean -= (zeros * (zeros + 1)) / 4;
		se2 -= zeros * (zeros + 1) * (2 * zeros + 1);
	}
	const ties = [...sums.tieSizes];
	// zsplit keeps the zeros as one tie group of the ranking; pratt leaves them out (as scipy).
	if (zeroMethod === 'zsplit' && zeros > 1) ties.push(zeros);
	for (const t of ties) se2 -= (t * t * t - t) / 2;
	const se = Math.sqrt(se2 / 24);
	if (!(se > 0)) return { test: 'wilcoxon-normal', pValue: 1, ...base };
	let z = (wPlus - mean) / se;
	if (options.correction) {
		const sign = alternative === 'greater' ? 1 : alternative === 'less' ? -1 : Math.sign(z);
		z -= (sign * 0.5) / se;
	}
	let pValue: number;
	if (alternative === 'two-sided') pValue = normalTwoSided(z);
	else if (alternative === 'greater') pValue = 0.5 * erfc(z / SQRT2);
	else pValue = 0.5 * erfc(-z / SQRT2);
	return { test: 'wilcoxon-normal', pValue, ...base };
}

/**
 * Non-zero differences up to which {@link signedRankTest} takes an exact distribution: scipy's
 * cut-off for its exact signed-rank distribution (`wilcoxon(method='auto')`, n <= 50), applied to
 * the differences that carry information rather than to all pairs.
 */
export const EXACT_SIGNED_RANK_MAX = 50;

/**
 * The signed-rank test the Regression Gate runs on paired scores. Zero differences are dropped (as
 * scipy's default `zero_method='wilcox'`) and, when at most `exactMax` (50) differences remain, the
 * p-value comes from their exact distribution under the null: every one of the 2^n sign
 * assignments is counted (tabulated, not enumerated) over the plain ranks when no |d| ties (method
 * `exact`) or over the actual mid-ranks when some do (`permutation`). Above that, the normal
 * approximation with tie correction. scipy's `auto` counts the zeros towards n and goes normal as
 * soon as a zero or a tie meets more than 13 pairs: 4 rows one point down among 20 then get
 * p = 0.0455 from a statistic that can take only a few values, where the exact p is 0.125.
 * {@link wilcoxonSignedRank} itself keeps scipy's dispatch.
 */
export function signedRankTest(
	differences: readonly number[],
	options: { exactMax?: number; alternative?: Alternative } = {},
): WilcoxonResult {
	const nonZero = differences.filter((d) => d !== 0).map(Math.abs);
	const base = { alternative: options.alternative, zeroMethod: 'wilcox' as const };
	if (nonZero.length > (options.exactMax ?? EXACT_SIGNED_RANK_MAX))
		return wilcoxonSignedRank(differences, { ...base, method: 'asymptotic' });
	const sorted = Float64Array.from(nonZero).sort();
	const tied = sorted.some((v, i) => i > 0 && v === sorted[i - 1]);
	return wilcoxonSignedRank(differences, { ...base, method: tied ? 'permutation' : 'exact' });
}

// scipy's exact test: W+ against the untied null distribution of n ranks. A non-integral W+
// (ties or zeros with method 'exact') is rounded away from the rejection region, as scipy does.
function exactSignedRankP(wPlus: number, n: number, alternative: Alternative): number {
	if (n === 0) return 1;
	const counts = signedRankCounts(n);
	const total = Math.pow(2, n);
	const cdf = (k: number): number => {
		let s = 0;
		for (let i = 0; i <= Math.min(k, counts.length - 1); i++) s += counts[i];
		return s / total;
	};
	const sf = (k: number): number => {
		let s = 0;
		for (let i = Math.max(0, k); i < counts.length; i++) s += counts[i];
		return s / total;
	};
	if (alternative === 'less') return cdf(Math.ceil(wPlus));
	if (alternative === 'greater') return sf(Math.floor(wPlus));
	return Math.min(1, 2 * Math.min(sf(Math.floor(wPlus)), cdf(Math.ceil(wPlus))));
}

// Number of subsets of {1..n} by their sum: the null distribution of W+ without ties (the
// counts stay below 2^53, so exact, for n <= 50).
function signedRankCounts(n: number): number[] {
	return subsetSumCounts(Array.from({ length: n }, (_, i) => i + 1));
}

function subsetSumCounts(values: readonly number[]): number[] {
	let max = 0;
	for (const v of values) max += v;
	const counts = new Array<number>(max + 1).fill(0);
	counts[0] = 1;
	let reach = 0;
	for (const v of values) {
		reach += v;
		for (let s = reach; s >= v; s--) counts[s] += counts[s - v];
	}
	return counts;
}

// Permutation p-value of the positive rank sum: under H0 each difference's sign is + or - with
// probability 1/2, so W+ (doubled, an integer) is the sum of a uniformly random subset of the
// doubled ranks. Two-sided is twice the smaller tail, capped at 1 (scipy's permutation_test).
function subsetSumP(
	doubled: readonly number[],
	observed: number,
	alternative: Alternative,
): number {
	if (doubled.length === 0) return 1;
	const counts = subsetSumCounts(doubled);
	const total = Math.pow(2, doubled.length);
	let atOrBelow = 0;
	let atOrAbove = 0;
	counts.forEach((c, s) => {
		if (s <= observed) atOrBelow += c;
		if (s >= observed) atOrAbove += c;
	});
	if (alternative === 'less') return atOrBelow / total;
	if (alternative === 'greater') return atOrAbove / total;
	return Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / total);
}

// Rank sums of positive and negative differences by |d| with average ranks for ties: the two
// signs are sorted apart with native numeric sorts, then merged, which is much faster on 1e5
// pairs than sorting an index array through a comparator.
function signedRankSums(d: readonly number[]): {
	wPlus: number;
	wMinus: number;
	tieSizes: number[];
} {
	let np = 0;
	for (const x of d) if (x > 0) np++;
	const pos = new Float64Array(np);
	const neg = new Float64Array(d.length - np);
	let ip = 0;
	let ineg = 0;
	for (const x of d) {
		if (x > 0) pos[ip++] = x;
		else neg[ineg++] = -x;
	}
	pos.sort();
	neg.sort();
	let wPlus = 0;
	let wMinus = 0;
	const tieSizes: number[] = [];
	let i = 0;
	let j = 0;
	let rank = 0;
	while (i < pos.length || j < neg.length) {
		const v = j >= neg.length || (i < pos.length && pos[i] <= neg[j]) ? pos[i] : neg[j];
		let cp = 0;
		let cn = 0;
		while (i < pos.length && pos[i] === v) {
			i++;
			cp++;
		}
		while (j < neg.length && neg[j] === v) {
			j++;
			cn++;
		}
		const t = cp + cn;
		const avg = rank + (t + 1) / 2;
		wPlus += cp * avg;
		wMinus += cn * avg;
		if (t > 1) tieSizes.push(t);
		rank += t;
	}
	return { wPlus, wMinus, tieSizes };
}

/** Pooled two-proportion z-test of x1/n1 against x2/n2, two-sided. */
export function twoProportionZTest(x1: number, n1: number, x2: number, n2: number): TestResult {
	if (!(n1 > 0 && n2 > 0) || x1 < 0 || x2 < 0 || x1 > n1 || x2 > n2) {
		throw new RangeError('twoProportionZTest: need 0 <= x <= n and n > 0 on both sides');
	}
	const p1 = x1 / n1;
	const p2 = x2 / n2;
	const pooled = (x1 + x2) / (n1 + n2);
	const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
	// All-pass or all-fail on both sides: no variance, so no evidence of a difference.
	if (se === 0) return { test: 'two-proportion-z', statistic: 0, pValue: 1, n: n1 + n2 };
	const z = (p1 - p2) / se;
	return { test: 'two-proportion-z', statistic: z, pValue: normalTwoSided(z), n: n1 + n2 };
}

/** Options shared by the bootstrap tests. */
export interface BootstrapTestOptions {
	/** Resamples; default 2000. */
	resamples?: number;
	/** Seed for the generator; default 42. */
	seed?: number;
	/** Two-sided confidence level of the reported interval; default 0.95. */
	confidence?: number;
}

/** Bootstrap result: p-value plus a percentile interval for the mean difference. */
export interface BootstrapTestResult extends TestResult {
	ci: { low: number; high: number; level: number };
}

/**
 * Paired bootstrap of the mean difference (current - baseline). The two-sided p-value is the
 * smallest level at which the percentile interval excludes 0: 2 * min(#{d* <= 0}, #{d* >= 0})
 * with the +1 correction of Davison & Hinkley, so it is never 0.
 */
export function pairedBootstrap(
	differences: readonly number[],
	options: BootstrapTestOptions = {},
): BootstrapTestResult {
	const n = differences.length;
	const observed = mean(differences);
	if (n === 0) throw new RangeError('pairedBootstrap: no pairs');
	const rand = createRng(options.seed ?? 42);
	const reps = options.resamples ?? 2000;
	const stats = new Float64Array(reps);
	for (let r = 0; r < reps; r++) {
		let s = 0;
		for (let i = 0; i < n; i++) s += differences[Math.floor(rand() * n)];
		stats[r] = s / n;
	}
	return bootstrapSummary('paired-bootstrap', observed, stats, n, options.confidence ?? 0.95);
}

/** Unpaired bootstrap of the difference of means (current - baseline), groups resampled apart. */
export function unpairedBootstrap(
	current: readonly number[],
	baseline: readonly number[],
	options: BootstrapTestOptions = {},
): BootstrapTestResult {
	const n1 = current.length;
	const n2 = baseline.length;
	if (n1 === 0 || n2 === 0) throw new RangeError('unpairedBootstrap: both groups need values');
	const rand = createRng(options.seed ?? 42);
	const reps = options.resamples ?? 2000;
	const stats = new Float64Array(reps);
	for (let r = 0; r < reps; r++) {
		let s1 = 0;
		for (let i = 0; i < n1; i++) s1 += current[Math.floor(rand() * n1)];
		let s2 = 0;
		for (let i = 0; i < n2; i++) s2 += baseline[Math.floor(rand() * n2)];
		stats[r] = s1 / n1 - s2 / n2;
	}
	const observed = mean(current) - mean(baseline);
	return bootstrapSummary(
		'unpaired-bootstrap',
		observed,
		stats,
		n1 + n2,
		options.confidence ?? 0.95,
	);
}

function bootstrapSummary(
	test: string,
	observed: number,
	stats: Float64Array,
	n: number,
	level: number,
): BootstrapTestResult {
	const reps = stats.length;
	let atOrBelow = 0;
	let atOrAbove = 0;
	for (const s of stats) {
		if (s <= 0) atOrBelow++;
		if (s >= 0) atOrAbove++;
	}
	const pValue = Math.min(1, (2 * (Math.min(atOrBelow, atOrAbove) + 1)) / (reps + 1));
	// Same percentile rule as the aggregate's bootstrap: linear interpolation (numpy's default).
	const { low, high } = percentileInterval(Float64Array.from(stats).sort(), level);
	return { test, statistic: observed, pValue, n, ci: { low, high, level } };
}

function mean(values: readonly number[]): number {
	let s = 0;
	for (const v of values) s += v;
	return values.length ? s / values.length : 0;
}

/**
 * Holm-Bonferroni step-down adjusted p-values, returned in input order:
 * adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)) over p-values sorted ascending.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
	const m = pValues.length;
	const order = pValues.map((p, i) => i).sort((a, b) => pValues[a] - pValues[b]);
	const adjusted = new Array<number>(m);
	let running = 0;
	order.forEach((idx, rank) => {
		running = Math.max(running, Math.min(1, (m - rank) * pValues[idx]));
		adjusted[idx] = running;
	});
	return adjusted;
}
