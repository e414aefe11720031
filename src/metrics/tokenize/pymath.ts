/**
 * Correctly rounded `exp` and `log`, so scores computed with them match CPython's `math.exp` /
 * `math.log` (glibc, which rounds these correctly in practice) instead of V8's fdlibm ports,
 * which are off by one ulp on some inputs. Evaluated in double-double (~100 bits), then rounded.
 */

const SPLITTER = 134217729; // 2^27 + 1, Dekker's split
const LN2_HI = 0.6931471805599453;
const LN2_LO = 2.3190468138462996e-17;

// Double-double results are returned through these two slots instead of fresh arrays: this
// code runs once or twice per score and allocation dominated its cost.
let H = 0;
let L = 0;

/** (H, L) = exact a·b split into the rounded product and its error (Dekker). */
function twoProd(a: number, b: number): void {
	const p = a * b;
	const c = SPLITTER * a;
	const ah = c - (c - a);
	const al = a - ah;
	const d = SPLITTER * b;
	const bh = d - (d - b);
	const bl = b - bh;
	H = p;
	L = ah * bh - p + ah * bl + al * bh + al * bl;
}

/** (H, L) = (ah, al) + (bh, bl), normalised. */
function add(ah: number, al: number, bh: number, bl: number): void {
	let s = ah + bh;
	let v = s - ah;
	const e0 = ah - (s - v) + (bh - v);
	const t = al + bl;
	v = t - al;
	const f = al - (t - v) + (bl - v);
	let e = e0 + t;
	let s1 = s + e;
	e = e - (s1 - s);
	e += f;
	s = s1 + e;
	s1 = e - (s - s1);
	H = s;
	L = s1;
}

/**
 * (H, L) = e^x / 2^k as a double-double for x in about [-700, 700]; returns k.
 * The double-double product, division and sum steps of the two loops are written out in locals
 * (the hot path of every BLEU score): the same floating-point operations in the same order as
 * the helper functions they replace, so H and L are bit-identical.
 */
function expDD(x: number): number {
	const k = Math.round(x / LN2_HI);
	twoProd(-LN2_HI, k);
	const ph = H;
	const pl = L + -LN2_LO * k;
	add(x, 0, ph, pl);
	// exp(r) = (exp(r/256))^256: a short Taylor series on the tiny argument, then 8 squarings
	// carried as expm1 (e' = e·(2 + e)) so no precision is lost near 1.
	const rh = H / 256;
	const rl = L / 256;
	let th = rh;
	let tl = rl;
	let sh = rh;
	let sl = rl;
	// rh split once (Dekker), as twoProd(th, rh) would do on every term.
	const rc = SPLITTER * rh;
	const rhh = rc - (rc - rh);
	const rhl = rh - rhh;
	for (let i = 2; i <= 12; i++) {
		// mul(th, tl, rh, rl) -> (mh, ml)
		let p = th * rh;
		let c = SPLITTER * th;
		const thh = c - (c - th);
		const thl = th - thh;
		let q = thh * rhh - p + thh * rhl + thl * rhh + thl * rhl;
		let e = q + (th * rl + tl * rh);
		const mh = p + e;
		const ml = e - (mh - p);
		// divD(mh, ml, i) -> (th, tl)
		const q1 = mh / i;
		p = q1 * i;
		c = SPLITTER * q1;
		const qh = c - (c - q1);
		const ql = q1 - qh;
		const d = SPLITTER * i;
		const ih = d - (d - i);
		const il = i - ih;
		q = qh * ih - p + qh * il + ql * ih + ql * il;
		e = q;
		const s0 = mh - p;
		let v = s0 - mh;
		const f0 = mh - (s0 - v) + (-p - v);
		const q2 = (s0 + (f0 - e + ml)) / i;
		th = q1 + q2;
		tl = q2 - (th - q1);
		// add(sh, sl, th, tl) -> (sh, sl)
		let s1 = sh + th;
		v = s1 - sh;
		const e0 = sh - (s1 - v) + (th - v);
		const t = sl + tl;
		v = t - sl;
		const f = sl - (t - v) + (tl - v);
		let ee = e0 + t;
		let s2 = s1 + ee;
		ee = ee - (s2 - s1);
		ee += f;
		s1 = s2 + ee;
		s2 = ee - (s1 - s2);
		sh = s1;
		sl = s2;
	}
	for (let i = 0; i < 8; i++) {
		// add(sh, sl, 2, 0) -> (ah, al)
		let s1 = sh + 2;
		let v = s1 - sh;
		const e0 = sh - (s1 - v) + (2 - v);
		const t = sl + 0;
		v = t - sl;
		const f = sl - (t - v) + (0 - v);
		let ee = e0 + t;
		let s2 = s1 + ee;
		ee = ee - (s2 - s1);
		ee += f;
		s1 = s2 + ee;
		s2 = ee - (s1 - s2);
		const ah = s1;
		const al = s2;
		// mul(sh, sl, ah, al) -> (sh, sl)
		const p = sh * ah;
		const c = SPLITTER * sh;
		const shh = c - (c - sh);
		const shl = sh - shh;
		const d = SPLITTER * ah;
		const ahh = d - (d - ah);
		const ahl = ah - ahh;
		const q = shh * ahh - p + shh * ahl + shl * ahh + shl * ahl;
		const e = q + (sh * al + sl * ah);
		const mh = p + e;
		sl = e - (mh - p);
		sh = mh;
	}
	add(sh, sl, 1, 0);
	return k;
}

/** Correctly rounded e^x (falls back to Math.exp outside the normal range). */
export function pyExp(x: number): number {
	if (!(x > -700 && x < 709)) return Math.exp(x);
	if (x === 0) return 1;
	const k = expDD(x);
	// H is already round(H + L); scaling by 2^k is exact in the normal range.
	return H * 2 ** k;
}

/** Correctly rounded natural log for positive finite x (Math.log elsewhere). */
export function pyLog(x: number): number {
	if (!(x > 0) || x === Infinity || x < 1e-300) return Math.log(x);
	if (x === 1) return 0;
	const y0 = Math.log(x);
	// One Newton step in double-double: log x = y0 + log(x / e^y0) ≈ y0 + (x - e^y0) / e^y0.
	const scale = 2 ** expDD(y0);
	const eh = H * scale;
	const el = L * scale;
	const s = x - eh;
	const v = s - x;
	const f = x - (s - v) + (-eh - v);
	return y0 + (s + (f - el)) / eh;
}
