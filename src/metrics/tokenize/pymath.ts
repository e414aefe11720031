/**
 * Correctly rounded `exp` and `log`, so scores computed with them match CPython's `math.exp` /
 * `math.log` (glibc, which rounds these correctly in practice) instead of V8's fdlibm ports,
 * which are off by one ulp on some inputs. Evaluated in double-double (~100 bits), then rounded.
 */

type DD = [number, number];

const SPLITTER = 134217729; // 2^27 + 1, Dekker's split
const LN2_HI = 0.6931471805599453;
const LN2_LO = 2.3190468138462996e-17;

function twoSum(a: number, b: number): DD {
	const s = a + b;
	const bb = s - a;
	return [s, a - (s - bb) + (b - bb)];
}

function quickTwoSum(a: number, b: number): DD {
	const s = a + b;
	return [s, b - (s - a)];
}

function twoProd(a: number, b: number): DD {
	const p = a * b;
	const c = SPLITTER * a;
	const ah = c - (c - a);
	const al = a - ah;
	const d = SPLITTER * b;
	const bh = d - (d - b);
	const bl = b - bh;
	return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}

function add(a: DD, b: DD): DD {
	const [s, e0] = twoSum(a[0], b[0]);
	const [t, f] = twoSum(a[1], b[1]);
	const [s1, e1] = quickTwoSum(s, e0 + t);
	return quickTwoSum(s1, e1 + f);
}

function mul(a: DD, b: DD): DD {
	const [p, e] = twoProd(a[0], b[0]);
	return quickTwoSum(p, e + (a[0] * b[1] + a[1] * b[0]));
}

function mulD(a: DD, b: number): DD {
	const [p, e] = twoProd(a[0], b);
	return quickTwoSum(p, e + a[1] * b);
}

function divD(a: DD, b: number): DD {
	const q1 = a[0] / b;
	const [p, e] = twoProd(q1, b);
	const [s, f] = twoSum(a[0], -p);
	const q2 = (s + (f - e + a[1])) / b;
	return quickTwoSum(q1, q2);
}

/** exp(x) as a double-double, x in about [-700, 700]; `k` is the power of two factored out. */
function expDD(x: number): { m: DD; k: number } {
	const k = Math.round(x / LN2_HI);
	let r = add([x, 0], mulD([-LN2_HI, -LN2_LO], k));
	// exp(r) = (exp(r/256))^256: a short Taylor series on the tiny argument, then 8 squarings
	// carried as expm1 (e' = e·(2 + e)) so no precision is lost near 1.
	r = [r[0] / 256, r[1] / 256];
	let term: DD = r;
	let em1: DD = r;
	for (let i = 2; i <= 12; i++) {
		term = divD(mul(term, r), i);
		em1 = add(em1, term);
	}
	for (let i = 0; i < 8; i++) em1 = mul(em1, add(em1, [2, 0]));
	return { m: add(em1, [1, 0]), k };
}

/** Correctly rounded e^x (falls back to Math.exp outside the normal range). */
export function pyExp(x: number): number {
	if (!(x > -700 && x < 709)) return Math.exp(x);
	if (x === 0) return 1;
	const { m, k } = expDD(x);
	// m[0] is already round(m[0] + m[1]); scaling by 2^k is exact in the normal range.
	return m[0] * 2 ** k;
}

/** Correctly rounded natural log for positive finite x (Math.log elsewhere). */
export function pyLog(x: number): number {
	if (!(x > 0) || x === Infinity || x < 1e-300) return Math.log(x);
	if (x === 1) return 0;
	const y0 = Math.log(x);
	// One Newton step in double-double: log x = y0 + log(x / e^y0) ≈ y0 + (x - e^y0) / e^y0.
	const { m, k } = expDD(y0);
	const scale = 2 ** k;
	const e: DD = [m[0] * scale, m[1] * scale];
	const [s, f] = twoSum(x, -e[0]);
	return y0 + (s + (f - e[1])) / e[0];
}
