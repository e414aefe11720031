/**
 * Field readers shared by the schema adapters. Each reader either returns a typed value or
 * records a precise issue (`path: expected string, got number`) and returns undefined, so one
 * pass over a row collects every problem instead of stopping at the first.
 */
import { parsePythonLiteral } from './pylit';
import type { ChatMessage, ExpectedChunk, RetrievedChunk, ToolCall } from './schema';

/** One problem found in a row, with the path named in the user's own column names. */
export interface Issue {
	path: string;
	message: string;
}

/** A plain JSON object row. */
export type Row = Record<string, unknown>;

/**
 * Per-row reading state: which keys were consumed (the rest become metadata), what each consumed
 * column fed, and the issues. `hidden` keys are invisible to the schema adapter: their canonical
 * field comes from the user's Column Mapping instead, so they stay in metadata.
 */
export class RowReader {
	readonly issues: Issue[] = [];
	/** Top-level keys that already have an issue, so a later "required" is not reported twice. */
	readonly failed = new Set<string>();
	private readonly used = new Set<string>();
	/** Dotted paths consumed inside a top-level object (`inputs.question`), by top-level key. */
	private usedPaths?: Map<string, string[]>;
	/**
	 * Source columns (or dotted paths) in the order they were read, and the canonical fields each
	 * may have fed (`fedFields[i]` for `fedKeys[i]`): two arrays, cheaper per row than a map.
	 */
	readonly fedKeys: string[] = [];
	readonly fedFields: (readonly string[])[] = [];
	/** Why a column went to metadata although an adapter looked at it (made when first needed). */
	private whyMap?: Map<string, string>;
	/** Why the row's trace could not be read (the row keeps its other fields). */
	traceError?: string;

	constructor(
		public row: Row,
		/** CSV cells are strings, so structured fields may hold JSON text to parse. */
		readonly fromCsv: boolean,
		/** Mapped target name -> the user's column name, so errors name what the user wrote. */
		private readonly renamed: Map<string, string>,
		/** CSV only: list cells that are not JSON are split on this (DeepEval writes `a|b`). */
		readonly listDelimiter?: string,
		/** Columns the adapter may not read (their field is mapped by the user). */
		readonly hidden?: ReadonlySet<string>,
		/** Column -> the canonical fields the schema reads it into, for the account. */
		private readonly table?: Readonly<Record<string, readonly string[]>>,
	) {}

	/**
	 * Reads a key and marks it consumed; null and absent are the same (pandas writes NaN as null).
	 * `field` names the canonical field the column feeds, for the dataset's account (else the
	 * schema's column table says).
	 */
	take(key: string, field?: string): unknown {
		if (!(key in this.row) || this.hidden?.has(key)) return undefined;
		this.used.add(key);
		const f = field !== undefined ? one(field) : this.table?.[key];
		if (f !== undefined) this.setFed(key, f);
		const v = this.row[key];
		return v === null ? undefined : v;
	}

	/** Whether the row holds a non-null value under `key` (without consuming it). */
	has(key: string): boolean {
		return this.row[key] !== undefined && this.row[key] !== null && !this.hidden?.has(key);
	}

	/** The value under `key` without consuming it (hidden keys read as absent). */
	peek(key: string): unknown {
		return this.hidden?.has(key) ? undefined : this.row[key];
	}

	/**
	 * Reads a dotted path (`inputs.question`, `expectations.expected_response`; a key that itself
	 * holds dots is found first) and marks only that path consumed: the rest of the object stays
	 * in metadata. Returns undefined when any step is missing.
	 */
	takePath(path: string, field?: string): unknown {
		return this.readPath(path, field, false);
	}

	/** `takePath` for the user's Column Mapping: hidden columns (hidden for this read) are seen. */
	takeMapped(path: string, field: string): unknown {
		return this.readPath(path, field, true);
	}

	private readPath(path: string, field: string | undefined, mapped: boolean): unknown {
		if (path in this.row) {
			if (!mapped) return this.take(path, field);
			this.used.add(path);
			if (field !== undefined) this.setFed(path, one(field));
			const v = this.row[path];
			return v === null ? undefined : v;
		}
		const parts = path.split('.');
		const top = parts[0];
		if (!mapped && this.hidden?.has(top)) return undefined;
		let cur: unknown = this.row[top];
		for (let i = 1; i < parts.length && cur !== undefined && cur !== null; i++) {
			if (isObject(cur)) cur = cur[parts[i]];
			else if (Array.isArray(cur) && /^\d+$/.test(parts[i])) cur = cur[Number(parts[i])];
			else cur = undefined;
		}
		if (cur === undefined) return undefined;
		this.usedPaths ??= new Map();
		const list = this.usedPaths.get(top);
		if (list) list.push(path);
		else this.usedPaths.set(top, [path]);
		if (field !== undefined) this.setFed(path, one(field));
		return cur === null ? undefined : cur;
	}

	/**
	 * Replaces a column's value with its parsed form (JSON text of an object in a CSV cell) so
	 * dotted paths can reach inside it; the caller's row is not modified.
	 */
	expand(key: string, value: unknown): void {
		this.row = { ...this.row, [key]: value };
	}

	/** A point to roll back to when a tentative read (a proposal by name) does not fit. */
	mark(): { issues: number; failed: string[] } {
		return { issues: this.issues.length, failed: [...this.failed] };
	}

	/** Forgets the issues recorded since `m`. */
	rollback(m: { issues: number; failed: string[] }): void {
		this.issues.length = m.issues;
		this.failed.clear();
		for (const f of m.failed) this.failed.add(f);
	}

	/** Why `key` went to metadata although an adapter looked at it. */
	note(key: string, why: string): void {
		this.whyMap ??= new Map();
		this.whyMap.set(key, why);
	}

	/** The reasons recorded with `note`, by column. */
	get why(): ReadonlyMap<string, string> {
		return this.whyMap ?? NO_REASONS;
	}

	/**
	 * Columns proposed by name whose value did not fit the field, with the problem found: named in
	 * the row's error when the row then lacks what a record needs (made when first needed).
	 */
	misfits?: Map<string, Issue>;

	/** Why the field model read an ambiguous column as the field it did (made when first needed). */
	private choiceMap?: Map<string, string>;

	/** Records why `key`, which could feed either of two fields, was read as the one it fed. */
	choose(key: string, why: string): void {
		this.choiceMap ??= new Map();
		this.choiceMap.set(key, why);
	}

	/** The reasons recorded with `choose`, by column. */
	get chosen(): ReadonlyMap<string, string> {
		return this.choiceMap ?? NO_REASONS;
	}

	/** Records (or replaces) what `key` fed. */
	private setFed(key: string, fields: readonly string[]): void {
		const i = this.fedKeys.indexOf(key);
		if (i >= 0) this.fedFields[i] = fields;
		else {
			this.fedKeys.push(key);
			this.fedFields.push(fields);
		}
	}

	/** The column (or path) recorded as feeding `field`, if any. */
	feederOf(field: string): string | undefined {
		const i = this.fedFields.findIndex((f) => f.includes(field));
		return i < 0 ? undefined : this.fedKeys[i];
	}

	/** Says precisely what a consumed column fed, once the adapter knows (text or transcript). */
	feeds(key: string, ...fields: string[]): void {
		if (this.used.has(key) || this.fedKeys.includes(key)) this.setFed(key, fields);
	}

	/** Gives a consumed key back to metadata (a field read but not mapped after all). */
	release(key: string, why?: string): void {
		// What it fed stays recorded: a lossy list feeds its field and is kept in metadata too.
		this.used.delete(key);
		if (why !== undefined) this.note(key, why);
	}

	/**
	 * Whether any reader looked at `key` (a top-level column): consumed, given back to metadata
	 * after feeding a field, or read in part through dotted paths.
	 */
	seen(key: string): boolean {
		return this.used.has(key) || this.usedPaths?.has(key) === true || this.fedKeys.includes(key);
	}

	/** Whether `key` (a top-level column) was consumed. */
	consumed(key: string): boolean {
		return this.used.has(key);
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

	/** The user's name for a (possibly renamed) column. */
	userName(key: string): string {
		return this.renamed.get(key) ?? key;
	}

	/**
	 * Keys not consumed by the adapter, in row order: they become `metadata`. An object of which
	 * some paths were consumed keeps its other members (`inputs.user_type` stays as
	 * `{inputs: {user_type}}`); `paths` receives the dotted name of every member kept that way.
	 */
	leftovers(paths?: string[]): Row {
		const out: Row = {};
		for (const k of Object.keys(this.row)) {
			if (this.used.has(k) || this.row[k] === undefined) continue;
			const partial = this.usedPaths?.get(k);
			if (partial === undefined) {
				out[k] = this.row[k];
				paths?.push(k);
				continue;
			}
			const rest = remainder(this.row[k], k, partial, paths);
			if (rest !== undefined) out[k] = rest;
		}
		return out;
	}
}

const NO_REASONS: ReadonlyMap<string, string> = new Map();

/** One-field lists, made once per field name rather than once per row. */
const ONE = new Map<string, readonly string[]>();
function one(field: string): readonly string[] {
	let list = ONE.get(field);
	if (list === undefined) {
		list = [field];
		ONE.set(field, list);
	}
	return list;
}

/** `value` (found under `prefix`) without the consumed dotted `paths`; undefined when nothing is left. */
function remainder(value: unknown, prefix: string, paths: string[], names?: string[]): unknown {
	if (paths.includes(prefix)) return undefined;
	if (!isObject(value)) {
		names?.push(prefix);
		return value;
	}
	const out: Row = {};
	for (const [k, v] of Object.entries(value)) {
		const p = `${prefix}.${k}`;
		if (v === undefined || paths.includes(p)) continue;
		if (paths.some((x) => x.startsWith(`${p}.`))) {
			const rest = remainder(v, p, paths, names);
			if (rest !== undefined) out[k] = rest;
		} else {
			out[k] = v;
			names?.push(p);
		}
	}
	return Object.keys(out).length > 0 ? out : undefined;
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

/**
 * How deep a row may nest objects and arrays (the row itself is level 1). Deeper rows are invalid:
 * the check is iterative, and every recursive step after it (native JSON.stringify, n8n's item
 * copies) then stays far from the call-stack limit.
 */
export const MAX_DEPTH = 1000;

/** The message for a value nested deeper than `MAX_DEPTH`. */
export const TOO_DEEP = `nested deeper than ${MAX_DEPTH} levels`;

/** Whether `v` nests objects or arrays deeper than `max` levels; iterative, so any depth is safe. */
export function deeperThan(v: unknown, max = MAX_DEPTH): boolean {
	if (v === null || typeof v !== 'object') return false;
	const values: object[] = [v];
	const depths: number[] = [1];
	while (values.length > 0) {
		const x = values.pop() as object;
		const d = depths.pop() as number;
		if (d > max) return true;
		const children = Array.isArray(x) ? (x as unknown[]) : Object.values(x);
		for (let i = 0; i < children.length; i++) {
			const c = children[i];
			if (c !== null && typeof c === 'object') {
				values.push(c);
				depths.push(d + 1);
			}
		}
	}
	return false;
}

/** JSON.parse for text found inside a row; a result nested too deep is an issue, not a value. */
export function parseNested(r: RowReader, textValue: string, path: string): unknown {
	const v = JSON.parse(textValue) as unknown;
	if (deeperThan(v)) {
		r.fail(path, TOO_DEEP);
		return BAD_JSON;
	}
	return v;
}

const BAD_JSON = Symbol('bad json');

/**
 * For fields that accept lists or objects: text holding JSON (a CSV cell, or JSON text inside a
 * JSON file: DeepEval saves `turns` that way) is parsed, and so is a Python literal as pandas
 * writes lists into CSV cells (`['a.html', 'b.html']`). In a CSV, a cell that starts like JSON
 * but is neither is an issue rather than silently becoming text; elsewhere text stays text.
 */
export function structured(r: RowReader, v: unknown, path: string, orText = false): unknown {
	if (typeof v !== 'string' || (orText && !r.fromCsv)) return v;
	const c = v.charCodeAt(0);
	// The common case first: text that does not start like a list or an object, without trimming.
	if (c !== 0x5b && c !== 0x7b && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return v;
	const t = v.trimStart();
	if (t[0] !== '[' && t[0] !== '{') return v;
	try {
		return parseNested(r, v, path);
	} catch (e) {
		const py = parsePythonLiteral(t);
		if (py !== undefined) {
			if (deeperThan(py)) {
				r.fail(path, TOO_DEEP);
				return BAD_JSON;
			}
			return py;
		}
		// A request or response may legitimately be prose that starts with a bracket.
		if (orText || !r.fromCsv) return v;
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

/**
 * A CSV list cell that is not JSON, split on the List Delimiter (`a|b` -> `['a', 'b']`); parts are
 * trimmed and empty parts dropped. Anything else is returned as it is.
 */
export function splitCell(r: RowReader, raw: unknown): unknown {
	if (!r.fromCsv || !r.listDelimiter || typeof raw !== 'string') return raw;
	const t = raw.trimStart();
	if (t[0] === '[' || t[0] === '{') return raw;
	return raw
		.split(r.listDelimiter)
		.map((p) => p.trim())
		.filter((p) => p !== '');
}

/**
 * A list given inside an object that holds only it (`{"contexts": [...]}`, as JSON text too, as
 * some tools save their context columns): the list. Anything else is returned as `structured`
 * reads it, so the caller's own checks name what is wrong.
 */
export function unwrapHolder(r: RowReader, raw: unknown, path: string): unknown {
	const v = structured(r, raw, path);
	if (!isObject(v)) return v;
	const keys = Object.keys(v).filter((k) => v[k] !== undefined && v[k] !== null);
	return keys.length === 1 && Array.isArray(v[keys[0]]) ? v[keys[0]] : v;
}

/** A list of strings (expected facts, guideline lists, plain context lists). */
export function textList(r: RowReader, raw: unknown, path: string): string[] | undefined {
	const v = structured(r, splitCell(r, raw), path);
	// null is how JSON says "no list" (DeepEval writes `retrieval_context: null` on a turn).
	if (v === undefined || v === null || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of strings, got ${typeName(v)}`);
	const bad = v.findIndex((x) => typeof x !== 'string');
	v.forEach((x, i) => {
		if (typeof x !== 'string') r.fail(`${path}[${i}]`, `expected string, got ${typeName(x)}`);
	});
	const ok = bad < 0;
	return ok ? (v as string[]) : undefined;
}

/** Text of a tool result: strings as they are, anything else as JSON (depth is bounded per row). */
function resultText(v: unknown): string {
	return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

/**
 * Text of a chat `content`: a string, null (a tool-call turn), or content parts (OpenAI `text`,
 * Azure agent `text`, `tool_call` and `tool_result` parts; a tool result reads as its JSON).
 */
function messageText(r: RowReader, v: unknown, path: string): string | undefined {
	if (typeof v === 'string') return v;
	if (v === null || v === undefined) return '';
	if (Array.isArray(v)) {
		const parts: string[] = [];
		for (const p of v) {
			if (typeof p === 'string') parts.push(p);
			else if (isObject(p) && typeof p.text === 'string') parts.push(p.text);
			else if (isObject(p) && p.type === 'tool_result' && p.tool_result !== undefined) {
				parts.push(resultText(p.tool_result));
			}
		}
		return parts.join('\n');
	}
	return r.fail(path, `expected string or content parts, got ${typeName(v)}`);
}

/** Tool arguments may arrive as JSON text (OpenAI `function.arguments`); structure is kept. */
function toolArguments(r: RowReader, v: unknown, path: string): unknown {
	if (typeof v !== 'string') return v;
	try {
		return parseNested(r, v, path);
	} catch {
		return v;
	}
}

/**
 * The tool calls a turn made: OpenAI `tool_calls[{id, function: {name, arguments}}]` and Azure agent
 * content parts `{type: 'tool_call', tool_call_id, name, arguments}` (or, in agent threads, the call
 * nested as `{type: 'tool_call', tool_call: {id, function: {name, arguments}}}`). Returns null after an issue.
 */
function toolCallsOf(r: RowReader, m: Row, at: string): ToolCall[] | undefined | null {
	const out: ToolCall[] = [];
	let ok = true;
	const read = (c: unknown, p: string, idKey: string): void => {
		if (!isObject(c)) {
			ok = false;
			r.fail(p, `expected a tool call object, got ${typeName(c)}`);
			return;
		}
		const fn = isObject(c.function) ? c.function : c;
		const fnPath = fn === c ? p : `${p}.function`;
		if (typeof fn.name !== 'string') {
			ok = false;
			r.fail(`${fnPath}.name`, `expected string, got ${typeName(fn.name)}`);
			return;
		}
		const id = c[idKey] ?? c.id;
		const call: ToolCall =
			typeof id === 'string' && id !== '' ? { id, name: fn.name } : { name: fn.name };
		// OpenAI and Azure say `arguments`; Ragas and LangChain messages say `args`.
		const argKey = fn.arguments !== undefined && fn.arguments !== null ? 'arguments' : 'args';
		const raw = fn[argKey];
		if (raw !== undefined && raw !== null) {
			const args = toolArguments(r, raw, `${fnPath}.${argKey}`);
			if (isBad(args)) ok = false;
			else call.arguments = args;
		}
		out.push(call);
	};
	if (Array.isArray(m.tool_calls))
		m.tool_calls.forEach((c, i) => read(c, `${at}.tool_calls[${i}]`, 'id'));
	if (Array.isArray(m.content)) {
		m.content.forEach((p, i) => {
			if (!isObject(p) || p.type !== 'tool_call') return;
			// Azure agent threads nest the call: `{type: 'tool_call', tool_call: {id, function}}`.
			if (isObject(p.tool_call)) read(p.tool_call, `${at}.content[${i}].tool_call`, 'id');
			else read(p, `${at}.content[${i}]`, 'tool_call_id');
		});
	}
	if (!ok) return null;
	return out.length > 0 ? out : undefined;
}

/** Ragas and LangChain name the speaker `type` (human/ai); chat APIs name it `role`. */
const TYPE_ROLE: Record<string, string> = { human: 'user', ai: 'assistant' };

/** Reads the context a turn cites, if the source format has one. */
export type TurnContext = (turn: Row, at: string) => RetrievedChunk[] | undefined;

/**
 * A list of chat turns reduced to `{role, content}` plus what each turn carries in structure (its
 * cited context, its tool calls, the call a tool turn answers); turns keep their index for error paths.
 */
export function messages(
	r: RowReader,
	raw: unknown,
	path: string,
	contextOf?: TurnContext,
): ChatMessage[] | undefined {
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
		const issuesBefore = r.issues.length;
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
		const calls = toolCallsOf(r, m, at);
		const context = contextOf ? contextOf(m, at) : undefined;
		if (content === undefined || calls === null || r.issues.length > issuesBefore) {
			ok = false;
			return;
		}
		const msg: ChatMessage = { role, content };
		if (context !== undefined && context.length > 0) msg.context = context;
		if (calls !== undefined) msg.tool_calls = calls;
		if (typeof m.tool_call_id === 'string') msg.tool_call_id = m.tool_call_id;
		out.push(msg);
	});
	return ok ? out : undefined;
}

/** Which keys of a context object hold its id and its text, per source format. */
export interface ChunkKeys {
	uri: readonly string[];
	content: readonly string[];
	/** Keys of the chunk's document title, kept on the chunk when given (Azure citations). */
	title?: readonly string[];
	/**
	 * Keys of the document's relevance label (a number >= 0, or true/false for 1/0), kept on the
	 * chunk as `grade` when given (Azure `query_relevance_label`, Databricks `grade`).
	 */
	grade?: readonly string[];
	/**
	 * Keys of the retriever's own score for the document (Azure `relevance_score`): kept on the
	 * chunk as `score`; when every chunk has one the list is put in rank order by it (highest first).
	 */
	score?: readonly string[];
}

/** A relevance label as a grade: a non-negative number (numeric text too), or a boolean. */
function gradeOf(v: unknown): number | undefined {
	if (typeof v === 'boolean') return v ? 1 : 0;
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
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
	/** False for a field that holds one document as text (Azure `context`): never split. */
	isList = true,
): { items: ExpectedChunk[]; lossy: boolean } | undefined {
	const v = structured(r, isList ? splitCell(r, raw) : raw, path);
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
		const titleKey = keys.title?.find((k) => c[k] !== undefined && c[k] !== null);
		if (titleKey !== undefined) {
			const t = c[titleKey];
			if (typeof t === 'string') chunk.title = t;
			else bad(`${at}.${titleKey}`, `expected string, got ${typeName(t)}`);
		}
		const gradeKey = keys.grade?.find((k) => c[k] !== undefined && c[k] !== null);
		if (gradeKey !== undefined) {
			const g = gradeOf(c[gradeKey]);
			if (g !== undefined) chunk.grade = g;
			else
				bad(
					`${at}.${gradeKey}`,
					`expected a relevance label (a number >= 0 or true/false), got ${JSON.stringify(c[gradeKey])}`,
				);
		}
		const scoreKey = keys.score?.find((k) => c[k] !== undefined && c[k] !== null);
		if (scoreKey !== undefined) {
			const n = c[scoreKey];
			const v = typeof n === 'string' && n.trim() !== '' ? Number(n) : n;
			if (typeof v === 'number' && Number.isFinite(v)) chunk.score = v;
			else bad(`${at}.${scoreKey}`, `expected a number, got ${typeName(n)}`);
		}
		for (const k of Object.keys(c)) {
			if (
				k !== uriKey &&
				k !== contentKey &&
				k !== titleKey &&
				k !== gradeKey &&
				k !== scoreKey &&
				c[k] !== undefined
			)
				lossy = true;
		}
		items.push(chunk);
	});
	return ok ? { items, lossy } : undefined;
}

/** Chunks as retrieved context: both kinds share one shape (`doc_uri` or `content`, or both). */
export function asRetrieved(items: ExpectedChunk[]): RetrievedChunk[] {
	return items;
}
