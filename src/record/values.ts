/**
 * Field readers shared by the schema adapters. Each reader either returns a typed value or
 * records a precise issue (`path: expected string, got number`) and returns undefined, so one
 * pass over a row collects every problem instead of stopping at the first.
 */
import type { ChatMessage, ExpectedChunk, RetrievedChunk } from './schema';

/** One problem found in a row, with the path named in the user's own column names. */
export interface Issue {
	path: string;
	message: string;
}

/** A plain JSON object row. */
export type Row = Record<string, unknown>;

/** Per-row reading state: which keys were consumed (the rest become metadata) and the issues. */
export class RowReader {
	readonly issues: Issue[] = [];
	/** Top-level keys that already have an issue, so a later "required" is not reported twice. */
	readonly failed = new Set<string>();
	private readonly used = new Set<string>();

	constructor(
		readonly row: Row,
		/** CSV cells are strings, so structured fields may hold JSON text to parse. */
		readonly fromCsv: boolean,
		/** Mapped target name -> the user's column name, so errors name what the user wrote. */
		private readonly renamed: Map<string, string>,
	) {}

	/** Reads a key and marks it consumed; null and absent are the same (pandas writes NaN as null). */
	take(key: string): unknown {
		if (!(key in this.row)) return undefined;
		this.used.add(key);
		const v = this.row[key];
		return v === null ? undefined : v;
	}

	/** Whether the row holds a non-null value under `key` (without consuming it). */
	has(key: string): boolean {
		return this.row[key] !== undefined && this.row[key] !== null;
	}

	/** Gives a consumed key back to metadata (a field read but not mapped after all). */
	release(key: string): void {
		this.used.delete(key);
	}

	/** Records an issue at `path`; returns undefined so callers can `return r.fail(...)`. */
	fail(path: string, message: string): undefined {
		const dot = path.search(/[.[]/);
		const head = dot < 0 ? path : path.slice(0, dot);
		this.failed.add(head);
		const user = this.renamed.get(head);
		this.issues.push({ path: user === undefined ? path : user + path.slice(head.length), message });
		return undefined;
	}

	/** Keys not consumed by the adapter, in row order: they become `metadata`. */
	leftovers(): Row {
		const out: Row = {};
		for (const k of Object.keys(this.row)) {
			if (!this.used.has(k) && this.row[k] !== undefined) out[k] = this.row[k];
		}
		return out;
	}
}

/** JSON type name as users think of it: array and null are not "object". */
export function typeName(v: unknown): string {
	if (v === null) return 'null';
	if (Array.isArray(v)) return 'array';
	return typeof v;
}

/** Whether `v` is a plain object (not an array, not null). */
export function isObject(v: unknown): v is Row {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const BAD_JSON = Symbol('bad json');

/**
 * For fields that accept lists or objects: a CSV cell holding JSON is parsed. A cell that starts
 * like JSON but does not parse is an issue rather than silently becoming text.
 */
export function structured(r: RowReader, v: unknown, path: string, orText = false): unknown {
	if (!r.fromCsv || typeof v !== 'string') return v;
	const t = v.trimStart();
	if (t[0] !== '[' && t[0] !== '{') return v;
	try {
		return JSON.parse(v) as unknown;
	} catch (e) {
		// A request or response may legitimately be prose that starts with a bracket.
		if (orText) return v;
		r.fail(path, `cell is not valid JSON (${(e as Error).message})`);
		return BAD_JSON;
	}
}

/** Whether `structured` already reported the value. */
export function isBad(v: unknown): boolean {
	return v === BAD_JSON;
}

/** A text field: string, or an issue. */
export function text(r: RowReader, v: unknown, path: string): string | undefined {
	if (v === undefined) return undefined;
	if (typeof v === 'string') return v;
	return r.fail(path, `expected string, got ${typeName(v)}`);
}

/** An identifier: strings as given, finite numbers as their decimal text (ids are often numeric). */
export function id(r: RowReader, v: unknown, path: string): string | undefined {
	if (v === undefined) return undefined;
	if (typeof v === 'string') return v;
	if (typeof v === 'number' && Number.isFinite(v)) return String(v);
	return r.fail(path, `expected string, got ${typeName(v)}`);
}

/** A non-negative number; numeric strings accepted since CSV cells are always text. */
export function nonNegative(
	r: RowReader,
	v: unknown,
	path: string,
	integer: boolean,
): number | undefined {
	if (v === undefined) return undefined;
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	if (typeof n !== 'number' || !Number.isFinite(n)) {
		return r.fail(path, `expected number, got ${typeName(v)}`);
	}
	if (n < 0) return r.fail(path, `expected a non-negative number, got ${n}`);
	if (integer && !Number.isInteger(n)) return r.fail(path, `expected an integer, got ${n}`);
	return n;
}

/** A list of strings (expected facts, guideline lists, plain context lists). */
export function textList(r: RowReader, raw: unknown, path: string): string[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of strings, got ${typeName(v)}`);
	const bad = v.findIndex((x) => typeof x !== 'string');
	v.forEach((x, i) => {
		if (typeof x !== 'string') r.fail(`${path}[${i}]`, `expected string, got ${typeName(x)}`);
	});
	const ok = bad < 0;
	return ok ? (v as string[]) : undefined;
}

/** Text of a chat `content`: a string, null (a tool-call turn), or OpenAI content parts. */
function messageText(r: RowReader, v: unknown, path: string): string | undefined {
	if (typeof v === 'string') return v;
	if (v === null || v === undefined) return '';
	if (Array.isArray(v)) {
		const parts: string[] = [];
		for (const p of v) {
			if (typeof p === 'string') parts.push(p);
			else if (isObject(p) && typeof p.text === 'string') parts.push(p.text);
		}
		return parts.join('\n');
	}
	return r.fail(path, `expected string or content parts, got ${typeName(v)}`);
}

/** Ragas and LangChain name the speaker `type` (human/ai); chat APIs name it `role`. */
const TYPE_ROLE: Record<string, string> = { human: 'user', ai: 'assistant' };

/** A list of chat turns reduced to `{role, content}`; turns keep their index for error paths. */
export function messages(r: RowReader, raw: unknown, path: string): ChatMessage[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of messages, got ${typeName(v)}`);
	const out: ChatMessage[] = [];
	let ok = true;
	const bad = (at: string, message: string): void => {
		ok = false;
		r.fail(at, message);
	};
	v.forEach((m, i) => {
		const at = `${path}[${i}]`;
		if (!isObject(m)) {
			bad(at, `expected a message object, got ${typeName(m)}`);
			return;
		}
		let role = m.role;
		if (role === undefined && typeof m.type === 'string') role = TYPE_ROLE[m.type] ?? m.type;
		if (typeof role !== 'string') {
			bad(`${at}.role`, `expected string, got ${typeName(role)}`);
			return;
		}
		const content = messageText(r, m.content, `${at}.content`);
		if (content === undefined) ok = false;
		else out.push({ role, content });
	});
	return ok ? out : undefined;
}

/** Which keys of a context object hold its id and its text, per source format. */
export interface ChunkKeys {
	uri: readonly string[];
	content: readonly string[];
}

/**
 * Reads a list of context chunks (strings or objects). `lossy` is true when some object carried
 * keys beyond its id and text, so the caller keeps the original list in metadata.
 */
export function chunks(
	r: RowReader,
	raw: unknown,
	path: string,
	keys: ChunkKeys,
	need: 'content' | 'doc_uri' | 'either',
): { items: ExpectedChunk[]; lossy: boolean } | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	const list = typeof v === 'string' ? [v] : v;
	if (!Array.isArray(list)) return r.fail(path, `expected array of contexts, got ${typeName(v)}`);
	const items: ExpectedChunk[] = [];
	let ok = true;
	let lossy = false;
	const bad = (at: string, message: string): void => {
		ok = false;
		r.fail(at, message);
	};
	list.forEach((c, i) => {
		const at = `${path}[${i}]`;
		if (typeof c === 'string') {
			if (need === 'doc_uri') bad(at, `expected an object with ${keys.uri[0]}, got string`);
			else items.push({ content: c });
			return;
		}
		if (!isObject(c)) {
			bad(at, `expected string or object, got ${typeName(c)}`);
			return;
		}
		const uriKey = keys.uri.find((k) => c[k] !== undefined && c[k] !== null);
		const contentKey = keys.content.find((k) => c[k] !== undefined && c[k] !== null);
		const chunk: ExpectedChunk = {};
		if (uriKey !== undefined) {
			const u = c[uriKey];
			if (typeof u === 'string') chunk.doc_uri = u;
			else bad(`${at}.${uriKey}`, `expected string, got ${typeName(u)}`);
		}
		if (contentKey !== undefined) {
			const t = c[contentKey];
			if (typeof t === 'string') chunk.content = t;
			else bad(`${at}.${contentKey}`, `expected string, got ${typeName(t)}`);
		}
		if (need === 'doc_uri' && uriKey === undefined) bad(`${at}.${keys.uri[0]}`, 'required');
		if (need === 'content' && contentKey === undefined) {
			bad(`${at}.${keys.content[0]}`, 'required (a retrieved chunk needs its text)');
		}
		if (need === 'either' && uriKey === undefined && contentKey === undefined) {
			bad(at, `needs ${keys.uri[0]} or ${keys.content[0]}`);
		}
		for (const k of Object.keys(c)) {
			if (k !== uriKey && k !== contentKey && c[k] !== undefined) lossy = true;
		}
		items.push(chunk);
	});
	return ok ? { items, lossy } : undefined;
}

/** Chunks as retrieved context: both kinds share one shape (`doc_uri` or `content`, or both). */
export function asRetrieved(items: ExpectedChunk[]): RetrievedChunk[] {
	return items;
}
