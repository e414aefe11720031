/**
 * Small shared pieces of the metric ports: argument checks, token interning for fast n-gram
 * keys, and Python's `math.fsum` (nltk's BLEU sums its log precisions with it).
 */

/** Throws a TypeError naming the argument unless `value` is a string (empty is allowed). */
export function requireText(value: unknown, name: string): string {
	if (typeof value === 'string') return value;
	const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
	throw new TypeError(`${name} must be a string, got ${kind}`);
}

/** Maps tokens to small integers so n-grams can be keyed cheaply and compared exactly. */
export class Interner {
	private readonly ids = new Map<string, number>();

	/** The ids of `tokens`, assigning new ones in first-seen order. */
	intern(tokens: readonly string[]): number[] {
		const out = new Array<number>(tokens.length);
		for (let i = 0; i < tokens.length; i++) {
			let id = this.ids.get(tokens[i]);
			if (id === undefined) {
				id = this.ids.size;
				this.ids.set(tokens[i], id);
			}
			out[i] = id;
		}
		return out;
	}
}

/** Counts of the n-grams of one order over interned ids (key: ids joined by commas). */
export function ngramCounts(ids: readonly number[], n: number): Map<string, number> {
	const counts = new Map<string, number>();
	for (let i = 0; i + n <= ids.length; i++) {
		let key = String(ids[i]);
		for (let k = 1; k < n; k++) key += `,${ids[i + k]}`;
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return counts;
}

/** Sum of per-key minimums, i.e. `sum((Counter(a) & Counter(b)).values())`. */
export function overlapCount(a: Map<string, number>, b: Map<string, number>): number {
	let small = a;
	let large = b;
	if (a.size > b.size) {
		small = b;
		large = a;
	}
	let total = 0;
	for (const [key, count] of small) {
		const other = large.get(key);
		if (other !== undefined) total += Math.min(count, other);
	}
	return total;
}

/**
 * Python's `math.fsum` for finite inputs: Shewchuk's exact partials, then the correctly rounded
 * (half-even) total, so results equal CPython's bit for bit.
 */
export function fsum(values: readonly number[]): number {
	const partials: number[] = [];
	for (let x of values) {
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
	if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
		const y = lo * 2;
		const x = hi + y;
		const yr = x - hi;
		if (y === yr) hi = x;
	}
	return hi;
}
