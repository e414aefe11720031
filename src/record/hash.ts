/**
 * Content hashing for request ids and dataset fingerprints. Keys are sorted so the same row gives
 * the same hash whatever order its producer wrote the keys in (pandas, Python dicts, n8n items).
 */
import { createHash } from 'node:crypto';

/** JSON text with object keys sorted at every depth; undefined members are left out as JSON does. */
export function stableStringify(v: unknown): string {
	if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
	const withJson = v as { toJSON?: () => unknown };
	if (typeof withJson.toJSON === 'function') return stableStringify(withJson.toJSON());
	if (Array.isArray(v)) {
		let s = '[';
		for (let i = 0; i < v.length; i++) {
			if (i > 0) s += ',';
			const x: unknown = v[i];
			s += x === undefined ? 'null' : stableStringify(x);
		}
		return s + ']';
	}
	const o = v as Record<string, unknown>;
	const keys = Object.keys(o).sort();
	let s = '{';
	let first = true;
	for (const k of keys) {
		const x = o[k];
		if (x === undefined || typeof x === 'function') continue;
		if (!first) s += ',';
		first = false;
		s += JSON.stringify(k) + ':' + stableStringify(x);
	}
	return s + '}';
}

/** Hex SHA-256 of a string. */
export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}
