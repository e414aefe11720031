/**
 * Allocation-free interning for the metric hot paths. Tokens become dense integer ids (first-seen
 * order) and n-grams become dense ids built from (prefix id, token id) pairs, in tables that are
 * reused from call to call and emptied in O(1) by bumping a generation stamp. Ids are only ever
 * compared for equality, so these tables change no score: they replace `Map<string, number>` and
 * per-call `Map` n-gram spaces whose allocation and string hashing dominated short pairs.
 * Nothing is remembered between calls (each call starts with `reset()`), so there is no cache.
 */
import { isPyWhitespaceCode } from './py';

let lower: Uint16Array | undefined;

/**
 * JS `toLowerCase` per BMP unit, or 0 where it is not a context-free single unit: surrogates,
 * U+03A3 (final-sigma rule) and units whose lowercase is longer (U+0130). Built on first use.
 */
export function lowerUnitTable(): Uint16Array {
	if (lower) return lower;
	const t = new Uint16Array(65536);
	for (let c = 128; c < 65536; c++) {
		if ((c >= 0xd800 && c <= 0xdfff) || c === 0x3a3) continue;
		const l = String.fromCharCode(c).toLowerCase();
		if (l.length === 1) t[c] = l.charCodeAt(0);
	}
	lower = t;
	return t;
}

/**
 * Interns the tokens of `str.split()` on text (Python whitespace) into `table`, appending their
 * ids to `out` from index `n`; returns `out` (maybe grown) and leaves the new length in
 * `splitCount[0]`. The same ids as interning pySplit(text)'s strings, without building them.
 */
export function internPySplit(
	table: CharTokenTable,
	text: string,
	out: Int32Array,
	n: number,
): Int32Array {
	const len = text.length;
	const buf = table.reserve(len);
	let pos = table.cursor;
	let start = -1;
	let h = 0;
	for (let i = 0; i <= len; i++) {
		const c = i < len ? text.charCodeAt(i) : 32;
		if (isPyWhitespaceCode(c)) {
			if (start >= 0) {
				if (n === out.length) {
					const g = new Int32Array(out.length * 2);
					g.set(out);
					out = g;
				}
				out[n++] = table.commit(start, pos, h);
				pos = table.cursor;
				start = -1;
			}
		} else {
			if (start < 0) {
				start = pos;
				h = 0x811c9dc5;
			}
			buf[pos++] = c;
			h = Math.imul(h ^ c, 0x01000193);
		}
	}
	splitCount[0] = n;
	return out;
}

/** Length written by the last internPySplit call. */
export const splitCount = [0];

function mix(h: number): number {
	h ^= h >>> 16;
	h = Math.imul(h, 0x7feb352d);
	h ^= h >>> 15;
	h = Math.imul(h, 0x846ca68b);
	return h ^ (h >>> 16);
}

/**
 * Token interning from UTF-16 units written straight into a shared buffer, so a tokenizer can
 * produce ids without building a string per token: `begin()`, `push(c)` per unit, `end()`.
 */
export class CharTokenTable {
	private buf = new Uint16Array(4096);
	private pos = 0;
	private start = 0;
	private hash = 0;
	private slotGen = new Int32Array(1024);
	private slotId = new Int32Array(1024);
	private mask = 1023;
	private gen = 1;
	private idStart = new Int32Array(512);
	private idLen = new Int32Array(512);
	private idHash = new Int32Array(512);
	/** Number of distinct tokens since the last reset (ids are 0..size-1). */
	size = 0;

	/** Forgets every token (O(1)). */
	reset(): void {
		this.size = 0;
		this.pos = 0;
		if (++this.gen === 0x7fffffff) {
			this.slotGen.fill(0);
			this.gen = 1;
		}
	}

	/**
	 * Low-level writing: the buffer with room for `extra` more units past `cursor`. The caller
	 * writes units there itself and interns them with `commit` (hash = fnv1a over the units).
	 */
	reserve(extra: number): Uint16Array {
		if (this.pos + extra > this.buf.length) {
			let cap = this.buf.length;
			while (cap < this.pos + extra) cap *= 2;
			const next = new Uint16Array(cap);
			next.set(this.buf);
			this.buf = next;
		}
		return this.buf;
	}

	/** Where the next unit goes. */
	get cursor(): number {
		return this.pos;
	}

	/** Interns units [start, end) written after `reserve` with their FNV-1a hash (from 0x811c9dc5). */
	commit(start: number, end: number, fnv: number): number {
		return this.find(start, end - start, mix(fnv ^ (end - start)));
	}

	/** Starts a new token. */
	begin(): void {
		this.start = this.pos;
		this.hash = 0x811c9dc5;
	}

	/** Appends one UTF-16 unit to the current token. */
	push(c: number): void {
		if (this.pos === this.buf.length) {
			const next = new Uint16Array(this.buf.length * 2);
			next.set(this.buf);
			this.buf = next;
		}
		this.buf[this.pos++] = c;
		this.hash = Math.imul(this.hash ^ c, 0x01000193);
	}

	/** Length of the current token so far. */
	get length(): number {
		return this.pos - this.start;
	}

	/** Drops the current token without interning it. */
	discard(): void {
		this.pos = this.start;
	}

	/** The unit at offset `i` of the current token. */
	at(i: number): number {
		return this.buf[this.start + i];
	}

	/** The current token as a string. */
	text(): string {
		let s = '';
		for (let i = this.start; i < this.pos; i++) s += String.fromCharCode(this.buf[i]);
		return s;
	}

	/** Interns the current token and returns its id. */
	end(): number {
		const len = this.pos - this.start;
		return this.find(this.start, len, mix(this.hash ^ len));
	}

	/**
	 * The id of units [start, end) written after `reserve` (FNV-1a hash as for `commit`) if that
	 * token was interned since the last reset, else -1; interns nothing and leaves `cursor` as it was.
	 */
	lookup(start: number, end: number, fnv: number): number {
		const len = end - start;
		const found = this.probe(start, len, mix(fnv ^ len));
		return found >= 0 ? found : -1;
	}

	/** `lookup` for a whole string: its id if interned since the last reset, else -1. */
	lookupString(s: string): number {
		const start = this.pos;
		const h = this.write(s);
		return this.lookup(start, start + s.length, h);
	}

	/**
	 * Where units [start, start + len) (mixed hash `hash`) stand in the table: their id, or
	 * -(slot + 1) for the empty slot where they would go.
	 */
	private probe(start: number, len: number, hash: number): number {
		const buf = this.buf;
		const slotGen = this.slotGen;
		const slotId = this.slotId;
		const idHash = this.idHash;
		const idLen = this.idLen;
		const idStart = this.idStart;
		const gen = this.gen;
		const mask = this.mask;
		let i = hash & mask;
		while (slotGen[i] === gen) {
			const id = slotId[i];
			if (idHash[id] === hash && idLen[id] === len) {
				const s = idStart[id];
				let k = 0;
				while (k < len && buf[s + k] === buf[start + k]) k++;
				if (k === len) return id;
			}
			i = (i + 1) & mask;
		}
		return -(i + 1);
	}

	/** The id of units [start, start + len) (mixed hash `hash`): an existing one, or a new one. */
	private find(start: number, len: number, hash: number): number {
		const found = this.probe(start, len, hash);
		if (found >= 0) {
			this.pos = start;
			return found;
		}
		const slot = -found - 1;
		const id = this.size++;
		if (id === this.idStart.length) this.growIds();
		this.idStart[id] = start;
		this.idLen[id] = len;
		this.idHash[id] = hash;
		this.slotGen[slot] = this.gen;
		this.slotId[slot] = id;
		this.pos = start + len;
		if (this.size * 2 > this.mask) this.rehash();
		return id;
	}

	private growIds(): void {
		const grow = (a: Int32Array) => {
			const n = new Int32Array(a.length * 2);
			n.set(a);
			return n;
		};
		this.idStart = grow(this.idStart);
		this.idLen = grow(this.idLen);
		this.idHash = grow(this.idHash);
	}

	/** Interns a whole string (same ids as pushing its units one by one). */
	intern(s: string): number {
		const start = this.pos;
		const h = this.write(s);
		return this.find(start, s.length, mix(h ^ s.length));
	}

	/** Writes the units of `s` at the cursor (not moving it); returns their FNV-1a hash. */
	private write(s: string): number {
		const len = s.length;
		const buf = this.reserve(len);
		const start = this.pos;
		let h = 0x811c9dc5;
		for (let i = 0; i < len; i++) {
			const c = s.charCodeAt(i);
			buf[start + i] = c;
			h = Math.imul(h ^ c, 0x01000193);
		}
		return h;
	}

	private rehash(): void {
		const cap = (this.mask + 1) * 2;
		this.mask = cap - 1;
		this.slotGen = new Int32Array(cap);
		this.slotId = new Int32Array(cap);
		this.gen = 1;
		for (let id = 0; id < this.size; id++) {
			let i = this.idHash[id] & this.mask;
			while (this.slotGen[i] === 1) i = (i + 1) & this.mask;
			this.slotGen[i] = 1;
			this.slotId[i] = id;
		}
	}
}

/** Dense ids for pairs of non-negative int32 (an n-gram = its prefix n-gram id + last token). */
export class PairTable {
	private slotGen = new Int32Array(1024);
	private slotA = new Int32Array(1024);
	private slotB = new Int32Array(1024);
	private slotId = new Int32Array(1024);
	private mask = 1023;
	private gen = 1;
	/** Number of distinct pairs since the last reset. */
	size = 0;

	/** Forgets every pair (O(1)). */
	reset(): void {
		this.size = 0;
		if (++this.gen === 0x7fffffff) {
			this.slotGen.fill(0);
			this.gen = 1;
		}
	}

	/** The id of (a, b), assigning the next one when new. */
	id(a: number, b: number): number {
		const found = this.probe(a, b);
		if (found >= 0) return found;
		const i = -found - 1;
		const id = this.size++;
		this.slotGen[i] = this.gen;
		this.slotA[i] = a;
		this.slotB[i] = b;
		this.slotId[i] = id;
		if (this.size * 2 > this.mask) this.rehash();
		return id;
	}

	/** The id of (a, b) if it was assigned since the last reset, else -1 (also for a < 0). */
	lookup(a: number, b: number): number {
		if (a < 0) return -1;
		const found = this.probe(a, b);
		return found >= 0 ? found : -1;
	}

	/** The id of (a, b), or -(slot + 1) for the empty slot where it would go. */
	private probe(a: number, b: number): number {
		const mask = this.mask;
		const gen = this.gen;
		const slotGen = this.slotGen;
		const slotA = this.slotA;
		const slotB = this.slotB;
		let i = mix(Math.imul(a, 0x9e3779b1) ^ b) & mask;
		while (slotGen[i] === gen) {
			if (slotA[i] === a && slotB[i] === b) return this.slotId[i];
			i = (i + 1) & mask;
		}
		return -(i + 1);
	}

	private rehash(): void {
		const oldGen = this.slotGen;
		const oldA = this.slotA;
		const oldB = this.slotB;
		const oldId = this.slotId;
		const live = this.gen;
		const cap = (this.mask + 1) * 2;
		this.mask = cap - 1;
		this.slotGen = new Int32Array(cap);
		this.slotA = new Int32Array(cap);
		this.slotB = new Int32Array(cap);
		this.slotId = new Int32Array(cap);
		this.gen = 1;
		for (let j = 0; j < oldGen.length; j++) {
			if (oldGen[j] !== live) continue;
			const a = oldA[j];
			const b = oldB[j];
			let i = mix(Math.imul(a, 0x9e3779b1) ^ b) & this.mask;
			while (this.slotGen[i] === 1) i = (i + 1) & this.mask;
			this.slotGen[i] = 1;
			this.slotA[i] = a;
			this.slotB[i] = b;
			this.slotId[i] = oldId[j];
		}
	}
}

/** A reusable Int32Array of at least `n` zeroed slots (the previous contents are cleared). */
export class Scratch {
	private arr = new Int32Array(256);

	/** `n` zeroed slots (the array may be longer; slots past `n` are unspecified). */
	zeroed(n: number): Int32Array {
		if (n > this.arr.length) {
			let cap = this.arr.length;
			while (cap < n) cap *= 2;
			this.arr = new Int32Array(cap);
			return this.arr;
		}
		this.arr.fill(0, 0, n);
		return this.arr;
	}
}

/**
 * Clipped n-gram statistics of one hypothesis against one reference for orders 1..maxN, from
 * token ids: per order, matches = Σ over distinct hypothesis n-grams of min(hyp count, ref
 * count), i.e. `sum((Counter(hyp_ngrams) & Counter(ref_ngrams)).values())`. Writes `matches[n-1]`.
 */
export class NgramMatcher {
	private readonly pairs = new PairTable();
	private readonly refCounts = new Scratch();
	private hIds = new Int32Array(256);
	private rIds = new Int32Array(256);
	private hPrev = new Int32Array(256);
	private rPrev = new Int32Array(256);

	/**
	 * `hyp` / `ref` hold token ids below `vocab` (lengths hLen / rLen). Order-1 n-gram ids are the
	 * token ids; order n ids come from the pair table keyed on (order n-1 id, token · 8 + n).
	 */
	match(
		hyp: Int32Array | number[],
		hLen: number,
		ref: Int32Array | number[],
		rLen: number,
		vocab: number,
		maxN: number,
		matches: number[],
	): void {
		// Matches are symmetric: the shorter list is the one whose n-grams get ids.
		if (hLen > rLen) {
			const list = hyp;
			hyp = ref;
			ref = list;
			const len = hLen;
			hLen = rLen;
			rLen = len;
		}
		if (this.hIds.length < hLen) {
			this.hIds = new Int32Array(hLen * 2);
			this.hPrev = new Int32Array(hLen * 2);
		}
		if (this.rIds.length < rLen) {
			this.rIds = new Int32Array(rLen * 2);
			this.rPrev = new Int32Array(rLen * 2);
		}
		let hp = this.hPrev;
		let rp = this.rPrev;
		let hc = this.hIds;
		let rc = this.rIds;
		for (let i = 0; i < hLen; i++) hp[i] = hyp[i];
		for (let i = 0; i < rLen; i++) rp[i] = ref[i];
		const pairs = this.pairs;
		pairs.reset();
		for (let n = 1; n <= maxN; n++) {
			const hn = hLen - n + 1;
			const rn = rLen - n + 1;
			// Every matched n-gram has a matched (n-1)-gram prefix: none below means none here.
			if (hn <= 0 || rn <= 0 || (n > 1 && matches[n - 2] === 0)) {
				matches[n - 1] = 0;
				continue;
			}
			let size = vocab;
			if (n > 1) {
				// Ids of order n from order n-1 ids (in *p) and the n-th token. Only the hypothesis's
				// n-grams get ids; a reference n-gram the hypothesis lacks is -1 (it cannot match), so
				// a long reference's own n-grams cost no table entries.
				for (let i = 0; i < hn; i++) hc[i] = pairs.id(hp[i], hyp[i + n - 1] * 8 + n);
				for (let i = 0; i < rn; i++) rc[i] = pairs.lookup(rp[i], ref[i + n - 1] * 8 + n);
				size = pairs.size;
				let t = hp;
				hp = hc;
				hc = t;
				t = rp;
				rp = rc;
				rc = t;
			}
			// hp / rp now hold order-n ids.
			const counts = this.refCounts.zeroed(size);
			for (let i = 0; i < rn; i++) {
				const id = rp[i];
				if (id >= 0) counts[id]++;
			}
			let m = 0;
			for (let i = 0; i < hn; i++) {
				const id = hp[i];
				if (counts[id] > 0) {
					counts[id]--;
					m++;
				}
			}
			matches[n - 1] = m;
		}
		this.hPrev = hp;
		this.rPrev = rp;
		this.hIds = hc;
		this.rIds = rc;
	}
}

const sharedTable = new CharTokenTable();
const sharedMatcher = new NgramMatcher();
let hypIds: Int32Array = new Int32Array(256);
let refIds: Int32Array = new Int32Array(256);

/**
 * Clipped n-gram matches of two token lists for orders 1..maxN into `matches` (see
 * NgramMatcher), interning the tokens in a shared table reset on every call.
 */
export function matchTokenNgrams(
	hyp: readonly string[],
	ref: readonly string[],
	maxN: number,
	matches: number[],
): void {
	sharedTable.reset();
	if (hypIds.length < hyp.length) hypIds = new Int32Array(hyp.length * 2);
	if (refIds.length < ref.length) refIds = new Int32Array(ref.length * 2);
	for (let i = 0; i < hyp.length; i++) hypIds[i] = sharedTable.intern(hyp[i]);
	for (let i = 0; i < ref.length; i++) refIds[i] = sharedTable.intern(ref[i]);
	sharedMatcher.match(hypIds, hyp.length, refIds, ref.length, sharedTable.size, maxN, matches);
}

let tokIdsA: Int32Array = new Int32Array(256);
let tokIdsB: Int32Array = new Int32Array(256);

/**
 * Tokenizes both texts with `tokenize` into ids of one shared table (reset first) and writes the
 * clipped n-gram matches of orders 1..maxN to `matches`; returns [hyp length, ref length].
 */
export function matchTokenizedNgrams(
	hyp: string,
	ref: string,
	tokenize: (text: string, table: CharTokenTable, out: Int32Array, n: number) => Int32Array,
	maxN: number,
	matches: number[],
	lengths: number[],
): void {
	sharedTable.reset();
	tokIdsA = tokenize(hyp, sharedTable, tokIdsA, 0);
	const hl = splitCount[0];
	tokIdsB = tokenize(ref, sharedTable, tokIdsB, 0);
	const rl = splitCount[0];
	sharedMatcher.match(tokIdsA, hl, tokIdsB, rl, sharedTable.size, maxN, matches);
	lengths[0] = hl;
	lengths[1] = rl;
}
