/**
 * `loadDataset`: file content or parsed rows in, canonical records out. Every input row ends up in
 * exactly one of `records` or `invalid`; the fingerprint hashes the normalised content of all rows
 * so scores can be traced to the exact dataset they were computed on.
 */
import { createHash } from 'node:crypto';
import { applyMapping, detectSchema, readRow, type Draft } from './adapters';
import { sha256, stableStringify } from './hash';
import { readRows, type DatasetFormat } from './parse';
import { SCHEMAS, type EvalRecord, type RecordSource, type SchemaName } from './schema';
import { isObject, typeName, type Issue, type Row } from './values';

/** Options of `loadDataset`; `mapping` renames the user's columns (`{ question: 'request' }`). */
export interface LoadOptions {
	format?: 'auto' | 'json' | 'jsonl' | 'csv';
	schema?: 'auto' | SchemaName;
	mapping?: Record<string, string>;
}

/** A row that could not become a record, with the raw row so nothing is lost. */
export interface InvalidRow {
	/** 1-based: JSONL line, CSV data row (header excluded), or index in a JSON array. */
	row: number;
	/** Where the first problem is, in the user's own field names (`retrieved_context[2].doc_uri`). */
	path: string;
	/** What is wrong; further problems of the same row follow as `; path: message`. */
	message: string;
	/** The full line to show a user: `row 7: retrieved_context[2].doc_uri: expected string, got number`. */
	error: string;
	issues: Issue[];
	raw?: unknown;
}

/** What `loadDataset` returns. `wrapper` holds the other keys of a `{data: [...]}` JSON object. */
export interface LoadResult {
	records: EvalRecord[];
	invalid: InvalidRow[];
	fingerprint: string;
	format: DatasetFormat;
	schema: SchemaName;
	wrapper?: Row;
}

/** Result of normalising one row. */
export type NormaliseResult = { ok: true; record: EvalRecord } | { ok: false; issues: Issue[] };

function invalidRow(row: number, issues: Issue[], raw: unknown): InvalidRow {
	const [first, ...rest] = issues;
	const message = [
		first.message,
		...rest.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)),
	].join('; ');
	return {
		row,
		path: first.path,
		message,
		error: `row ${row}: ${first.path ? `${first.path}: ` : ''}${message}`,
		issues,
		raw,
	};
}

/** Canonical key order, so records read the same in n8n's table view whatever the source. */
function assemble(d: Draft, requestId: string, source: RecordSource): EvalRecord {
	const rec: Record<string, unknown> = { request_id: requestId, request: d.request };
	const keys = [
		'request_raw',
		'history',
		'response',
		'response_raw',
		'expected_response',
		'expected_facts',
		'guidelines',
		'retrieved_context',
		'expected_retrieved_context',
		'trace',
		'latency_seconds',
		'total_input_token_count',
		'total_output_token_count',
		'total_token_count',
	] as const;
	for (const k of keys) if (d[k] !== undefined) rec[k] = d[k];
	rec.metadata = d.metadata ?? {};
	rec.source = source;
	return rec as EvalRecord;
}

/** Fields whose inner key order our adapters fix; the rest came from the user and get sorted. */
const BUILT = new Set([
	'request',
	'history',
	'response',
	'expected_response',
	'expected_facts',
	'retrieved_context',
	'expected_retrieved_context',
]);
const CONTENT_KEYS = [
	'request_id',
	'request',
	'request_raw',
	'history',
	'response',
	'response_raw',
	'expected_response',
	'expected_facts',
	'guidelines',
	'retrieved_context',
	'expected_retrieved_context',
	'trace',
	'latency_seconds',
	'total_input_token_count',
	'total_output_token_count',
	'total_token_count',
	'metadata',
] as const;

/**
 * Canonical JSON of a draft (the record without `source`) for hashing. Parts the adapters build
 * have a fixed key order, so native JSON.stringify serves them; only user objects are key-sorted.
 */
function contentOf(d: Draft): string {
	const o: Record<string, unknown> = {};
	for (const k of CONTENT_KEYS) {
		const v = d[k];
		if (v !== undefined) o[k] = BUILT.has(k) ? v : sortedCopy(v);
	}
	// One native stringify of the whole row is much cheaper than concatenating per-field texts.
	return JSON.stringify(o);
}

/** Deep copy with object keys in sorted order (arrays keep their order). */
function sortedCopy(v: unknown): unknown {
	if (v === null || typeof v !== 'object') return v;
	const withJson = v as { toJSON?: () => unknown };
	if (typeof withJson.toJSON === 'function') return sortedCopy(withJson.toJSON());
	if (Array.isArray(v)) return v.map(sortedCopy);
	const o = v as Record<string, unknown>;
	const out: Record<string, unknown> = {};
	for (const k of Object.keys(o).sort()) out[k] = sortedCopy(o[k]);
	return out;
}

function resolveSchema(schema: LoadOptions['schema'], rows: unknown[]): SchemaName {
	if (schema === undefined || schema === 'auto') return detectSchema(rows);
	if (!(SCHEMAS as readonly string[]).includes(schema)) {
		throw new Error(`unknown schema "${String(schema)}"; use auto or one of ${SCHEMAS.join(', ')}`);
	}
	return schema;
}

type Step = { ok: true; draft: Draft; content: string } | { ok: false; issues: Issue[] };

function step(
	value: unknown,
	schema: SchemaName,
	fromCsv: boolean,
	mapping: LoadOptions['mapping'],
): Step {
	if (!isObject(value))
		return {
			ok: false,
			issues: [{ path: '', message: `expected an object, got ${typeName(value)}` }],
		};
	const m = applyMapping(value, mapping);
	if (m.issues.length > 0) return { ok: false, issues: m.issues };
	const res = readRow(m.row, schema, fromCsv, m.renamed);
	if (!res.ok) return res;
	return { ok: true, draft: res.draft, content: contentOf(res.draft) };
}

/** A stable id from the row's normalised content, for rows that bring no `request_id`. */
function contentId(content: string): string {
	return sha256(content).slice(0, 16);
}

/**
 * Normalises one row in a given schema (`auto` detects it from this row alone). The record's
 * `source` says `items`, row 1 unless given, and a fingerprint of this row only.
 */
export function normaliseRow(
	row: unknown,
	schema: 'auto' | SchemaName = 'auto',
	mapping?: Record<string, string>,
	source?: Partial<Pick<RecordSource, 'format' | 'row'>>,
): NormaliseResult {
	const mapped = isObject(row) && mapping ? applyMapping(row, mapping).row : row;
	const s = resolveSchema(schema, [mapped]);
	const res = step(row, s, source?.format === 'csv', mapping);
	if (!res.ok) return res;
	const fingerprint = 'sha256:' + sha256(res.content + '\n');
	const rec = assemble(res.draft, res.draft.request_id ?? contentId(res.content), {
		format: source?.format ?? 'items',
		schema: s,
		row: source?.row ?? 1,
		fingerprint,
	});
	return { ok: true, record: rec };
}

/**
 * Loads a dataset: JSON, JSON Lines or CSV content (string or bytes), or already-parsed rows.
 * Throws `DatasetError` only when the input as a whole is unreadable (empty, not UTF-8, broken
 * JSON/CSV structure); row problems go to `invalid` with the raw row.
 */
export function loadDataset(
	input: string | Uint8Array | unknown[],
	options: LoadOptions = {},
): LoadResult {
	const data = readRows(input, options.format ?? 'auto');
	const mapping =
		options.mapping && Object.keys(options.mapping).length > 0 ? options.mapping : undefined;
	const sample = data.rows
		.slice(0, 1000)
		.filter((r) => r.error === undefined && isObject(r.value))
		.map((r) => (mapping ? applyMapping(r.value as Row, mapping).row : r.value));
	const schema = resolveSchema(options.schema, sample);

	const hash = createHash('sha256');
	const done: { row: number; draft: Draft; content: string }[] = [];
	const invalid: InvalidRow[] = [];
	for (const raw of data.rows) {
		if (raw.error !== undefined) {
			invalid.push(invalidRow(raw.row, [{ path: '', message: raw.error }], raw.value));
			hash.update('!' + stableStringify(raw.value) + '\n');
			continue;
		}
		const res = step(raw.value, schema, data.fromCsv, mapping);
		if (res.ok) {
			done.push({ row: raw.row, draft: res.draft, content: res.content });
			hash.update(res.content + '\n');
		} else {
			invalid.push(invalidRow(raw.row, res.issues, raw.value));
			hash.update('!' + stableStringify(raw.value) + '\n');
		}
	}
	const fingerprint = 'sha256:' + hash.digest('hex');
	const records = done.map(({ row, draft, content }) =>
		assemble(draft, draft.request_id ?? contentId(content), {
			format: data.format,
			schema,
			row,
			fingerprint,
		}),
	);
	const out: LoadResult = { records, invalid, fingerprint, format: data.format, schema };
	if (data.wrapper) out.wrapper = data.wrapper;
	return out;
}
