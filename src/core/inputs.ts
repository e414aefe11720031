/**
 * Coercion of raw field values (from items, CSV cells, expressions) into a declared input kind.
 * Missing values are reported separately from wrong ones: missing -> not applicable, wrong -> error.
 */
import type { InputDecl, InputKind } from './types';

/** A retrieved or expected document in canonical form. */
export interface ContextDoc {
	doc_uri?: string;
	content: string;
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

/** True when a value counts as absent (so the metric is not applicable rather than wrong). */
export function isMissing(v: unknown, kind: InputKind): boolean {
	if (v === undefined || v === null) return true;
	if (kind !== 'text' && typeof v === 'string' && v.trim() === '') return true;
	if ((kind === 'contexts' || kind === 'messages' || kind === 'texts') && Array.isArray(v)) {
		return v.length === 0;
	}
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
			if (typeof content !== 'string') {
				throw new InputError(`${field}[${i}].content`, `expected string, got ${typeName(content)}`);
			}
			const uri = o.doc_uri ?? o.id ?? o.url;
			if (uri !== undefined && typeof uri !== 'string' && typeof uri !== 'number') {
				throw new InputError(`${field}[${i}].doc_uri`, `expected string, got ${typeName(uri)}`);
			}
			return uri === undefined ? { content } : { doc_uri: String(uri), content };
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
	}
}

/** Result of reading all declared inputs of one row. */
export type ReadInputs =
	| { ok: true; values: Record<string, unknown> }
	| { ok: false; missing: string[] }
	| { ok: false; error: InputError };

/** Read and coerce every declared input; required-but-missing inputs are listed, not guessed. */
export function readInputs(decls: InputDecl[], raw: Record<string, unknown>): ReadInputs {
	const values: Record<string, unknown> = {};
	const missing: string[] = [];
	for (const d of decls) {
		const v = raw[d.name];
		if (isMissing(v, d.kind)) {
			if (d.required) missing.push(d.field);
			continue;
		}
		try {
			values[d.name] = coerceInput(d, v);
		} catch (e) {
			if (e instanceof InputError) return { ok: false, error: e };
			throw e;
		}
	}
	if (missing.length) return { ok: false, missing };
	return { ok: true, values };
}
