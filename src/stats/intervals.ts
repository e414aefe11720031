/**
 * Confidence intervals: Wilson's score interval for proportions (Wilson 1927; the form in
 * Agresti and Coull 1998 and statsmodels' proportion_confint(method='wilson')) and the normal
 * quantile it needs (Acklam's rational approximation refined by one Newton step on an erf series).
 */

/** A two-sided confidence interval and how it was computed. */
export interface Interval {
	low: number;
	high: number;
	method: 'wilson' | 'bootstrap-percentile';
	/** Two-sided confidence level, e.g. 0.95. */
	level: number;
	/** Bootstrap resamples drawn (bootstrap only). */
	resamples?: number;
}

const A = [
	-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
	-3.066479806614716e1, 2.506628277459239,
];
const B = [
	-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
	-1.328068155288572e1,
];
const C = [
	-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
	4.374664141464968, 2.938163982698783,
];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];

/** Standard normal quantile for 0 < p < 1 (accurate to about 1e-15 for 1e-8 < p < 1 - 1e-8). */
export function normalQuantile(p: number): number {
	if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
	if (p === 0.5) return 0;
	const pLow = 0.02425;
	let x: number;
	if (p < pLow) {
		const q = Math.sqrt(-2 * Math.log(p));
		x = poly(C, q) / (poly(D, q) * q + 1);
	} else if (p <= 1 - pLow) {
		const q = p - 0.5;
		const r = q * q;
		x = (poly(A, r) * q) / (poly(B, r) * r + 1);
	} else {
		const q = Math.sqrt(-2 * Math.log(1 - p));
		x = -poly(C, q) / (poly(D, q) * q + 1);
	}
	// One Newton step on Phi(x) - p removes the approximation's ~1e-9 relative error; the
	// residual is taken from the tail on x's side so it keeps its precision.
	const density = Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
	const residual = x >= 0 ? 1 - p - upperTail(x) : upperTail(-x) - p;
	return x - residual / density;
}

function poly(coef: number[], x: number): number {
	let s = 0;
	for (const c of coef) s = s * x + c;
	return s;
}

/** Standard normal cdf (erf series near 0, continued fraction in the tails). */
export function normalCdf(x: number): number {
	return x < 0 ? upperTail(-x) : 1 - upperTail(x);
}

/** P(Z > x) for x >= 0. */
function upperTail(x: number): number {
	if (x < 0) return 1 - upperTail(-x);
	const t = x / Math.SQRT2;
	if (t > 1.5) return continuedFractionTail(t);
	// erf(t) = 2/sqrt(pi) exp(-t^2) sum_n 2^n t^(2n+1) / (1*3*...*(2n+1))
	let term = t;
	let sum = t;
	for (let n = 1; n < 200; n++) {
		term *= (2 * t * t) / (2 * n + 1);
		sum += term;
		if (term < sum * 1e-17) break;
	}
	const erf = (2 / Math.sqrt(Math.PI)) * Math.exp(-t * t) * sum;
	return 0.5 * (1 - erf);
}

// erfc(t) by its Laplace continued fraction, evaluated bottom-up: no cancellation in the tail,
// and 200 terms reach double precision for t > 1.5.
function continuedFractionTail(t: number): number {
	let f = 0;
	for (let k = 200; k >= 1; k--) f = k / 2 / (t + f);
	const erfc = Math.exp(-t * t) / Math.sqrt(Math.PI) / (t + f);
	return 0.5 * erfc;
}

/** Wilson score interval for `successes` out of `n` trials; undefined when n is 0. */
export function wilsonInterval(successes: number, n: number, level = 0.95): Interval | undefined {
	if (n <= 0) return undefined;
	if (successes < 0 || successes > n) throw new RangeError('successes must be within [0, n]');
	const z = normalQuantile(1 - (1 - level) / 2);
	const p = successes / n;
	const z2 = z * z;
	const denom = 1 + z2 / n;
	const centre = (p + z2 / (2 * n)) / denom;
	const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
	// At 0 and n successes the interval ends exactly at 0 and 1; centre - half rounds to about 1e-17
	// (and centre + half to 1 - 1e-16) for many n, which the summary JSON would carry.
	return {
		low: successes === 0 ? 0 : Math.max(0, centre - half),
		high: successes === n ? 1 : Math.min(1, centre + half),
		method: 'wilson',
		level,
	};
}
