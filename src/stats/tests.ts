/**
 * Hypothesis tests used by the regression gate: McNemar (exact binomial and chi-square with
 * continuity correction), Wilcoxon signed-rank, paired and unpaired bootstrap, the pooled
 * two-proportion z-test and Holm-Bonferroni adjustment, plus the distribution functions they need.
 *
 * Reference behaviour matched:
 * - McNemar: statsmodels `mcnemar(exact=True)` = min(1, 2 * Binom(b+c, 1/2).cdf(min(b, c)));
 *   `exact=False, correction=True` = chi2(1).sf((|b-c|-1)^2 / (b+c)).
 * - Wilcoxon: scipy `wilcoxon(d)` defaults: zero_method='wilcox' (zero differences are dropped
 *   before ranking), correction=False, two-sided, method 'auto' = exact null distribution when the
 *   remaining n <= 50 and there are no tied |d|, else the normal approximation whose variance is
 *   reduced by sum(t^3 - t)/48 over tie groups.
 * - Two-proportion: statsmodels `proportions_ztest` with the pooled variance, two-sided.
 * - Holm: step-down adjusted p-values as statsmodels `multipletests(method='holm')`.
 * Distribution functions follow the classical series / continued-fraction expansions
 * (Abramowitz & Stegun 7.1, 6.5; Lanczos g=7 for log-gamma), accurate to ~1e-14, never NaN for
 * finite input.
 */

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

/** McNemar's chi-square with Edwards' continuity correction, (|b - c| - 1)^2 / (b + c), 1 df. */
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

/**
 * Wilcoxon signed-rank test on paired differences (current - baseline), two-sided, with
 * scipy's defaults: zero_method 'wilcox', no continuity correction, exact when n <= 50 and no ties.
 */
export function wilcoxonSignedRank(
	differences: readonly number[],
	options: { exactMaxN?: number } = {},
): TestResult & { wPlus: number; wMinus: number } {
	for (const d of differences) {
		if (!Number.isFinite(d)) throw new RangeError('wilcoxonSignedRank: differences must be finite');
	}
	const nonZero = differences.filter((d) => d !== 0);
	const n = nonZero.length;
	if (n === 0) {
		return { test: 'wilcoxon-exact', statistic: 0, pValue: 1, n: 0, wPlus: 0, wMinus: 0 };
	}
	const { wPlus, wMinus, tieSizes } = signedRankSums(nonZero);
	const t = Math.min(wPlus, wMinus);
	if (n <= (options.exactMaxN ?? 50) && tieSizes.length === 0) {
		const pValue = Math.min(1, 2 * signedRankCdf(t, n));
		return { test: 'wilcoxon-exact', statistic: t, pValue, n, wPlus, wMinus };
	}
	const mean = (n * (n + 1)) / 4;
	let variance = (n * (n + 1) * (2 * n + 1)) / 24;
	for (const s of tieSizes) variance -= (s * s * s - s) / 48;
	const pValue = variance > 0 ? normalTwoSided((t - mean) / Math.sqrt(variance)) : 1;
	return { test: 'wilcoxon-normal', statistic: t, pValue, n, wPlus, wMinus };
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

// P(W+ <= t) under H0 for n untied ranks: count subsets of {1..n} by sum (counts stay below 2^53
// for n <= 50, so the table is exact).
function signedRankCdf(t: number, n: number): number {
	const maxSum = (n * (n + 1)) / 2;
	const counts = new Array<number>(maxSum + 1).fill(0);
	counts[0] = 1;
	for (let r = 1; r <= n; r++) {
		for (let s = (r * (r + 1)) / 2; s >= r; s--) counts[s] += counts[s - r];
	}
	let below = 0;
	const limit = Math.floor(t + 1e-9);
	for (let s = 0; s <= Math.min(limit, maxSum); s++) below += counts[s];
	return below / Math.pow(2, n);
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
	const sorted = Float64Array.from(stats).sort();
	const alpha = (1 - level) / 2;
	const at = (q: number): number => sorted[Math.min(reps - 1, Math.max(0, Math.floor(q * reps)))];
	return {
		test,
		statistic: observed,
		pValue,
		n,
		ci: { low: at(alpha), high: at(1 - alpha), level },
	};
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
