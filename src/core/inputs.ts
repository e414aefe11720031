/**
 * Coercion of raw field values (from items, CSV cells, expressions) into a declared input kind.
 * Missing values are reported separately from wrong ones: missing -> not applicable, wrong -> error.
 */
import type { ToolCall, ToolDefinition } from '../record/schema';
import { readToolCalls, readToolDefinitions } from '../record/toolcalls';
import { deeperThan, TOO_DEEP } from '../record/values';
import type { InputDecl, InputKind } from './types';

/** A retrieved or expected document in canonical form (seed 002: `content` may be absent). */
export interface ContextDoc {
	doc_uri?: string;
	content?: string;
}

/** A chat turn in canonical form. */
export interface ChatTurn {
	role: string;
	content: string;
}

/** Raised when a present value cannot be read as its declared kind; names the field. */
export class InputError extends Error {
	constructor(
		readonly field: string,
		message: string,
	) {
		super(`${field}: ${message}`);
		this.name = 'InputError';
	}
}

function typeName(v: unknown): string {
	if (v === null) return 'null';
	if (Array.isArray(v)) return 'array';
	return typeof v;
}

const LIST_KINDS = new Set<InputKind>([
	'contexts',
	'messages',
	'texts',
	'toolCalls',
	'toolDefinitions',
]);

/**
 * True when a value counts as absent (so the evaluator is not applicable rather than wrong):
 * null, an empty list, blank text for list kinds, and blank text or an empty object when the
 * input declares `blankIsMissing` (judges: a blank answer cannot be judged).
 */
export function isMissing(v: unknown, decl: Pick<InputDecl, 'kind' | 'blankIsMissing'>): boolean {
	if (v === undefined || v === null) return true;
	if (typeof v === 'string' && v.trim() === '')
		return decl.kind !== 'text' || !!decl.blankIsMissing;
	if (Array.isArray(v))
		return v.length === 0 && (LIST_KINDS.has(decl.kind) || !!decl.blankIsMissing);
	if (decl.blankIsMissing && typeof v === 'object') return Object.keys(v).length === 0;
	return false;
}

function parseMaybeJson(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	const t = v.trim();
	if (!(t.startsWith('[') || t.startsWith('{'))) return v;
	try {
		return JSON.parse(t) as unknown;
	} catch {
		return v;
	}
}

function toContexts(v: unknown, field: string): ContextDoc[] {
	const value = parseMaybeJson(v);
	if (typeof value === 'string') return [{ content: value }];
	if (!Array.isArray(value))
		throw new InputError(field, `expected a list of documents, got ${typeName(value)}`);
	return value.map((d, i) => {
		if (typeof d === 'string') return { content: d };
		if (d && typeof d === 'object') {
			const o = d as Record<string, unknown>;
			const content = o.content ?? o.text ?? o.page_content;
			if (content !== undefined && content !== null && typeof content !== 'string') {
				throw new InputError(`${field}[${i}].content`, `expected string, got ${typeName(content)}`);
			}
			const uri = o.doc_uri ?? o.id ?? o.url;
			if (uri !== undefined && uri !== null && typeof uri !== 'string' && typeof uri !== 'number') {
				throw new InputError(`${field}[${i}].doc_uri`, `expected string, got ${typeName(uri)}`);
			}
			const doc: ContextDoc = {};
			if (uri !== undefined && uri !== null) doc.doc_uri = String(uri);
			if (typeof content === 'string') doc.content = content;
			if (doc.doc_uri === undefined && doc.content === undefined) {
				throw new InputError(`${field}[${i}]`, 'a document needs content or a doc_uri');
			}
			return doc;
		}
		throw new InputError(`${field}[${i}]`, `expected a document, got ${typeName(d)}`);
	});
}

function toMessages(v: unknown, field: string): ChatTurn[] {
	const value = parseMaybeJson(v);
	if (!Array.isArray(value))
		throw new InputError(field, `expected a list of messages, got ${typeName(value)}`);
	return value.map((m, i) => {
		if (!m || typeof m !== 'object')
			throw new InputError(`${field}[${i}]`, `expected a message, got ${typeName(m)}`);
		const o = m as Record<string, unknown>;
		if (typeof o.role !== 'string')
			throw new InputError(`${field}[${i}].role`, `expected string, got ${typeName(o.role)}`);
		if (typeof o.content !== 'string') {
			throw new InputError(`${field}[${i}].content`, `expected string, got ${typeName(o.content)}`);
		}
		return { role: o.role, content: o.content };
	});
}

function toTexts(v: unknown, field: string): string[] {
	const value = parseMaybeJson(v);
	if (typeof value === 'string') return [value];
	if (!Array.isArray(value))
		throw new InputError(field, `expected a list of strings, got ${typeName(value)}`);
	return value.map((s, i) => {
		if (typeof s !== 'string')
			throw new InputError(`${field}[${i}]`, `expected string, got ${typeName(s)}`);
		return s;
	});
}

/** Coerce one present value to its declared kind, or throw an InputError naming the field. */
export function coerceInput(
	decl: Pick<InputDecl, 'kind' | 'field'>,
	value: unknown,
	label = decl.field,
): unknown {
	// Checked without recursion: every later step (rendering, JSON text) may then recurse safely.
	if (typeof value === 'object' && value !== null && deeperThan(value)) {
		throw new InputError(label, TOO_DEEP);
	}
	switch (decl.kind) {
		case 'text':
			if (typeof value === 'string') return value;
			throw new InputError(label, `expected text, got ${typeName(value)}`);
		case 'texts':
			return toTexts(value, label);
		case 'contexts':
			return toContexts(value, label);
		case 'messages':
			return toMessages(value, label);
		case 'json':
			return value;
		case 'toolCalls':
			return agentList(() => readToolCalls(value, label), label);
		case 'toolDefinitions':
			return agentList(() => readToolDefinitions(value, label), label);
	}
}

/**
 * Tool calls or definitions read by the record's one reader (src/record/toolcalls.ts); its
 * TypeError (`tool_calls[2].name: expected string, got undefined`) becomes the row's InputError
 * naming the same field.
 */
function agentList<T extends ToolCall | ToolDefinition>(read: () => T[], label: string): T[] {
	try {
		return read();
	} catch (e) {
		if (!(e instanceof TypeError)) throw e;
		const cut = e.message.indexOf(': ');
		if (cut > 0 && e.message.startsWith(label))
			throw new InputError(e.message.slice(0, cut), e.message.slice(cut + 2));
		throw new InputError(label, e.message);
	}
}

/** Result of reading all declared inputs of one row. */
export type ReadInputs =
	| { ok: true; values: Record<string, unknown> }
	| { ok: false; missing: string[]; reason: string }
	| { ok: false; error: InputError };

/**
 * Why a row is not applicable when `fields` are missing. A missing response usually means the app
 * was not called yet (a golden set holds questions and expected answers only), so say what to
 * connect rather than only what is absent.
 */
export function missingReason(fields: string[]): string {
	const list = fields.join(', ');
	let hint = '';
	if (fields.includes('response'))
		hint =
			': the row has no response yet; connect the node that calls your app (for example an HTTP Request) before this one, or map the Response field';
	else if (fields.includes('tool_calls'))
		hint =
			": the agent made no tool call on this row, so there are no calls to judge (map Tool Calls to the agent's intermediateSteps, or read the run with Eval Executions)";
	else if (fields.includes('tool_definitions'))
		hint =
			': the row does not say which tools the agent had, so its calls cannot be judged against them (map Tool Definitions, or read the run with Eval Executions)';
	return `missing ${list}${hint}`;
}

/**
 * Read and coerce every declared input; required-but-missing inputs are listed, not guessed.
 * Contexts declared `needsContent` with a doc_uri-only document make the row not applicable.
 */
export function readInputs(decls: InputDecl[], raw: Record<string, unknown>): ReadInputs {
	const values: Record<string, unknown> = {};
	const missing: string[] = [];
	for (const d of decls) {
		const v = raw[d.name];
		if (isMissing(v, d)) {
			if (d.required) missing.push(d.field);
			continue;
		}
		try {
			values[d.name] = coerceInput(d, v);
		} catch (e) {
			if (e instanceof InputError) return { ok: false, error: e };
			throw e;
		}
		// `{intermediateSteps: []}` or a transcript without a call holds no call: as absent as `[]`.
		if (
			(d.kind === 'toolCalls' || d.kind === 'toolDefinitions') &&
			(values[d.name] as unknown[]).length === 0
		) {
			delete values[d.name];
			if (d.required) missing.push(d.field);
			continue;
		}
		if (d.kind === 'contexts' && d.needsContent) {
			const docs = values[d.name] as ContextDoc[];
			const bare = docs.findIndex((doc) => doc.content === undefined);
			if (bare >= 0) {
				const reason = `${d.field}[${bare}] has no content (doc_uri ${docs[bare].doc_uri ?? '?'} only): this judge reads the chunk text`;
				return { ok: false, missing: [`${d.field}[${bare}].content`], reason };
			}
		}
	}
	if (missing.length) return { ok: false, missing, reason: missingReason(missing) };
	return { ok: true, values };
}

/**
 * The one row reader of every evaluator: each declared input by its input name or, failing that,
 * its record field (`retrieved_context`), then read as {@link readInputs} does.
 */
export function readRow(decls: InputDecl[], row: Record<string, unknown>): ReadInputs {
	const raw: Record<string, unknown> = {};
	for (const d of decls) raw[d.name] = row[d.name] !== undefined ? row[d.name] : row[d.field];
	return readInputs(decls, raw);
}
