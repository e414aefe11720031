/**
 * Small shared pieces of the metric ports: argument checks, token interning and numeric n-gram
 * ids for fast counting, and Python's `math.fsum` (nltk's BLEU sums its log precisions with it).
 */
import { exactAdd, exactRound, type ExactPartials } from '../../stats/sum';

/** Throws a TypeError naming the argument unless `value` is a string (empty is allowed). */
export function requireText(value: unknown, name: string): string {
	if (typeof value === 'string') return value;
	const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
	throw new TypeError(`${name} must be a string, got ${kind}`);
}

/** Maps tokens to small integers so n-grams can be keyed cheaply and compared exactly. */
export class Interner {
	private readonly ids = new Map<string, number>();

	/** Number of distinct tokens seen so far (ids are 0..size-1). */
	get size(): number {
		return this.ids.size;
	}

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

/**
 * Numeric ids for n-grams of interned tokens, shared by every sequence given to one instance:
 * an n-gram's id is derived from its (n-1)-gram prefix id and last token, so counting needs no
 * string keys. Ids of order n are 0..size(n)-1.
 */
export class NgramSpace {
	private readonly maps: Map<number, number>[] = [];

	constructor(private readonly vocab: number) {}

	/** Number of distinct n-grams of order `n` (1-based) seen so far. */
	size(n: number): number {
		return n === 1 ? this.vocab : (this.maps[n - 2]?.size ?? 0);
	}

	/** The n-gram ids of `tokens` for orders 1..maxN (index n-1); shorter texts get empty arrays. */
	levels(tokens: readonly number[], maxN: number): Int32Array[] {
		const out: Int32Array[] = [Int32Array.from(tokens)];
		for (let n = 2; n <= maxN; n++) {
			const prev = out[n - 2];
			const len = Math.max(tokens.length - n + 1, 0);
			const ids = new Int32Array(len);
			let map = this.maps[n - 2];
			if (!map) {
				map = new Map();
				this.maps[n - 2] = map;
			}
			for (let i = 0; i < len; i++) {
				// prev ids < token count and token ids < vocab, so the key stays far below 2^53.
				const key = prev[i] * this.vocab + tokens[i + n - 1];
				let id = map.get(key);
				if (id === undefined) {
					id = map.size;
					map.set(key, id);
				}
				ids[i] = id;
			}
			out.push(ids);
		}
		return out;
	}
}

/** Counts of ids into a fresh array of `size` slots. */
export function countIds(ids: Int32Array, size: number): Int32Array {
	const counts = new Int32Array(size);
	for (let i = 0; i < ids.length; i++) counts[ids[i]]++;
	return counts;
}

/** Sum over distinct ids of min(count in a, count in b): `sum((Counter(a) & Counter(b)).values())`. */
export function clippedOverlap(aIds: Int32Array, aCounts: Int32Array, bCounts: Int32Array): number {
	let total = 0;
	const seen = new Uint8Array(aCounts.length);
	for (let i = 0; i < aIds.length; i++) {
		const id = aIds[i];
		if (seen[id]) continue;
		seen[id] = 1;
		total += Math.min(aCounts[id], bCounts[id]);
	}
	return total;
}

/**
 * Python's `math.fsum` for finite inputs: the exact partials and half-even final rounding of
 * `src/stats/sum.ts`, so results equal CPython's bit for bit.
 */
export function fsum(values: readonly number[]): number {
	const partials: ExactPartials = [];
	for (const x of values) exactAdd(partials, x);
	return exactRound(partials);
}
