/**
 * Exact floating-point summation (Shewchuk 1997, "Adaptive Precision Floating-Point Arithmetic
 * and Fast Robust Geometric Predicates"; the final rounding follows the half-even correction of
 * CPython's `math.fsum`). The result is the correctly rounded exact sum, which is the same for
 * every order of the inputs: that is what lets merged aggregate partials equal one pass bit for bit.
 */

/**
 * Non-overlapping partial sums, smallest magnitude first, whose exact total is the running sum.
 * A plain number array so it can travel inside JSON partials.
 */
export type ExactPartials = number[];

/** Adds `x` to `partials` in place (finite `x` only), keeping the exact total. */
export function exactAdd(partials: ExactPartials, x: number): void {
	let i = 0;
	for (let j = 0; j < partials.length; j++) {
		let y = partials[j];
		if (Math.abs(x) < Math.abs(y)) {
			const t = x;
			x = y;
			y = t;
		}
		const hi = x + y;
		const lo = y - (hi - x);
		if (lo !== 0) partials[i++] = lo;
		x = hi;
	}
	partials.length = i;
	partials.push(x);
}

/** Adds every partial of `from` into `into` in place: the exact totals add. */
export function exactMerge(into: ExactPartials, from: readonly number[]): void {
	for (const x of from) exactAdd(into, x);
}

/** Rounds the exact total held by `partials` to the nearest double (ties to even). */
export function exactRound(partials: readonly number[]): number {
	let n = partials.length;
	if (n === 0) return 0;
	let hi = partials[--n];
	let lo = 0;
	while (n > 0) {
		const x = hi;
		const y = partials[--n];
		hi = x + y;
		const yr = hi - x;
		lo = y - yr;
		if (lo !== 0) break;
	}
	// The partials below may push a tie the other way: double the residual and test it.
	if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
		const y = lo * 2;
		const x = hi + y;
		const yr = x - hi;
		if (y === yr) hi = x;
	}
	return hi === 0 ? 0 : hi;
}

/** Correctly rounded sum of finite values, independent of their order. */
export function exactSum(values: Iterable<number>): number {
	const partials: ExactPartials = [];
	for (const x of values) exactAdd(partials, x);
	return exactRound(partials);
}

// Veltkamp's constant 2^27 + 1 splits a double into two 26-bit halves whose products are exact.
const SPLITTER = 134217729;

/** Adds the exact product `a * b` to `partials` (Dekker's two-product), for weighted sums. */
export function exactAddProduct(partials: ExactPartials, a: number, b: number): void {
	const p = a * b;
	const ta = SPLITTER * a;
	const ah = ta - (ta - a);
	const al = a - ah;
	const tb = SPLITTER * b;
	const bh = tb - (tb - b);
	const bl = b - bh;
	const err = ah * bh - p + ah * bl + al * bh + al * bl;
	exactAdd(partials, p);
	if (err !== 0) exactAdd(partials, err);
}
