/**
 * Deterministic pseudo-random numbers for resampling: xoshiro128** (Blackman and Vigna 2018)
 * seeded through splitmix32, and FNV-1a hashing to derive seeds from data so that a confidence
 * interval depends only on the values measured, never on the order partials were merged in.
 */

/** A generator of uniform doubles in [0, 1). */
export type Rng = () => number;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a (32-bit) of a string's UTF-16 code units, continuing from `seed`. */
export function hashString(text: string, seed = FNV_OFFSET): number {
	let h = seed >>> 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		h = Math.imul(h ^ (c & 0xff), FNV_PRIME);
		h = Math.imul(h ^ (c >>> 8), FNV_PRIME);
	}
	return h >>> 0;
}

const scratch = new DataView(new ArrayBuffer(8));

/** FNV-1a (32-bit) of the IEEE-754 bytes of each number, continuing from `seed`. */
export function hashNumbers(values: ArrayLike<number>, seed = FNV_OFFSET): number {
	let h = seed >>> 0;
	for (let i = 0; i < values.length; i++) {
		scratch.setFloat64(0, values[i]);
		for (let b = 0; b < 8; b++) h = Math.imul(h ^ scratch.getUint8(b), FNV_PRIME);
	}
	return h >>> 0;
}

/** xoshiro128** seeded from a 32-bit integer; the same seed always gives the same stream. */
export function createRng(seed: number): Rng {
	let sm = seed >>> 0;
	// splitmix32 spreads one 32-bit seed over the 128-bit state, never all zeros.
	const next = (): number => {
		sm = (sm + 0x9e3779b9) >>> 0;
		let z = sm;
		z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
		z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
		return (z ^ (z >>> 16)) >>> 0;
	};
	let s0 = next();
	let s1 = next();
	let s2 = next();
	let s3 = next();
	return () => {
		const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
		const t = s1 << 9;
		s2 ^= s0;
		s3 ^= s1;
		s1 ^= s2;
		s0 ^= s3;
		s2 ^= t;
		s3 = rotl(s3, 11);
		return r / 4294967296;
	};
}

function rotl(x: number, k: number): number {
	return (x << k) | (x >>> (32 - k));
}
