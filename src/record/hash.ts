/**
 * Content hashing for request ids and dataset fingerprints. Keys are sorted so the same row gives
 * the same hash whatever order its producer wrote the keys in (pandas, Python dicts, n8n items).
 */
import { createHash, type Hash } from 'node:crypto';

/** `toJSON` as JSON.stringify applies it (Dates become their ISO text). */
function jsonValue(v: unknown): unknown {
	if (v !== null && typeof v === 'object') {
		const withJson = v as { toJSON?: () => unknown };
		if (typeof withJson.toJSON === 'function') return withJson.toJSON();
	}
	return v;
}

/**
 * JSON text with object keys sorted at every depth; undefined members are left out as JSON does.
 * Iterative (an explicit work stack, no recursion), so any nesting depth is safe.
 */
export function stableStringify(v: unknown): string {
	const parts: string[] = [];
	// Pending work, last first: a value to write, or (when `text` is true) literal JSON punctuation.
	const work: unknown[] = [v];
	const text: boolean[] = [false];
	while (work.length > 0) {
		const item = work.pop();
		if (text.pop() === true) {
			parts.push(item as string);
			continue;
		}
		const x = jsonValue(item);
		if (x === null || typeof x !== 'object') {
			parts.push(JSON.stringify(x) ?? 'null');
			continue;
		}
		if (Array.isArray(x)) {
			parts.push('[');
			work.push(']');
			text.push(true);
			for (let i = x.length - 1; i >= 0; i--) {
				work.push(x[i] === undefined ? null : (x[i] as unknown));
				text.push(false);
				if (i > 0) {
					work.push(',');
					text.push(true);
				}
			}
			continue;
		}
		const o = x as Record<string, unknown>;
		const keys = Object.keys(o)
			.sort()
			.filter((k) => o[k] !== undefined && typeof o[k] !== 'function');
		parts.push('{');
		work.push('}');
		text.push(true);
		for (let i = keys.length - 1; i >= 0; i--) {
			work.push(o[keys[i]]);
			text.push(false);
			work.push((i > 0 ? ',' : '') + JSON.stringify(keys[i]) + ':');
			text.push(true);
		}
	}
	return parts.join('');
}

/**
 * Deep copy with object keys in sorted order (arrays keep theirs), `toJSON` applied. Iterative,
 * so any nesting depth is safe; containers deeper than `cutAt` levels become `marker`.
 */
export function sortedCopy(v: unknown, cutAt = Infinity, marker: unknown = null): unknown {
	const holder: unknown[] = [undefined];
	const values: unknown[] = [v];
	const parents: (unknown[] | Record<string, unknown>)[] = [holder];
	const slots: (number | string)[] = [0];
	const depths: number[] = [1];
	while (values.length > 0) {
		const x = jsonValue(values.pop());
		const parent = parents.pop() as Record<string | number, unknown>;
		const slot = slots.pop() as string | number;
		const depth = depths.pop() as number;
		if (x === null || typeof x !== 'object') {
			parent[slot] = x;
			continue;
		}
		if (depth > cutAt) {
			parent[slot] = marker;
			continue;
		}
		if (Array.isArray(x)) {
			const a: unknown[] = new Array<unknown>(x.length);
			parent[slot] = a;
			for (let i = 0; i < x.length; i++) {
				values.push(x[i]);
				parents.push(a);
				slots.push(i);
				depths.push(depth + 1);
			}
			continue;
		}
		const o = x as Record<string, unknown>;
		const out: Record<string, unknown> = {};
		parent[slot] = out;
		// Keys are created in sorted order first; children fill them in whatever order they come.
		const keys = Object.keys(o).sort();
		for (const k of keys) out[k] = undefined;
		for (const k of keys) {
			values.push(o[k]);
			parents.push(out);
			slots.push(k);
			depths.push(depth + 1);
		}
	}
	return holder[0];
}

/**
 * A canonical text of a JSON-like value for hashing: keys sorted at every depth, undefined members
 * left out, every string length-prefixed (`s5:hello`) so no content can imitate structure. Cheaper
 * than JSON (no escaping) and iterative, so any depth is safe. `end` (a row separator) closes it.
 */
export function canonicalText(v: unknown, end = ''): string {
	// Concatenation builds a rope the hash flattens once: measured cheaper than joining pieces or
	// feeding the hash piece by piece.
	let out = '';
	const work: unknown[] = [v];
	while (work.length > 0) {
		const x = jsonValue(work.pop());
		if (typeof x === 'string') out += 's' + x.length + ':' + x;
		else if (typeof x === 'number') out += 'n' + (Number.isFinite(x) ? String(x) : 'null') + ';';
		else if (typeof x === 'boolean') out += x ? 't;' : 'f;';
		else if (x === null || typeof x !== 'object') out += 'z;';
		else if (Array.isArray(x)) {
			out += 'a' + x.length + ':';
			for (let i = x.length - 1; i >= 0; i--) work.push(x[i]);
		} else {
			const o = x as Record<string, unknown>;
			const keys = Object.keys(o)
				.filter((k) => o[k] !== undefined && typeof o[k] !== 'function')
				.sort();
			out += 'o' + keys.length + ':';
			for (let i = keys.length - 1; i >= 0; i--) {
				work.push(o[keys[i]]);
				work.push(keys[i]);
			}
		}
	}
	return out + end;
}

/**
 * Feeds the canonical text of `v` to a hash as UTF-16 (JS strings' own form): converting every row
 * to UTF-8 first cost about as much as parsing it (issue 16).
 */
export function hashCanonical(hash: Hash, v: unknown, end = ''): void {
	hash.update(canonicalText(v, end), 'utf16le');
}

/** Hex SHA-256 of a string. */
export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}
