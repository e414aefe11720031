/**
 * `loadDataset`: file content or parsed rows in, canonical records out. Every input row ends up in
 * exactly one of `records` or `invalid`. The fingerprint names the exact dataset scores were
 * computed on: for file content, a hash of its bytes as read and of how they were read; for rows
 * given as values, a hash of their normalised content (see `contentFingerprint`).
 */
import { createHash, type Hash } from 'node:crypto';
import { AccountBuilder, type DatasetAccount } from './account';
import {
	applyMapping,
	detectSchema,
	planMapping,
	readRow,
	type Draft,
	type MappingPlan,
	type Trail,
} from './adapters';
import { hashCanonical, sha256, sortedCopy } from './hash';
import { readRows, type DatasetFormat, type RawRow } from './parse';
import { SCHEMAS, type EvalRecord, type RecordSource, type SchemaName } from './schema';
import { legacyToolCalls } from './toolcalls';
import {
	deeperThan,
	isObject,
	MAX_DEPTH,
	TOO_DEEP,
	typeName,
	type Issue,
	type Row,
} from './values';

/**
 * Options of `loadDataset`. `mapping` maps the user's columns onto canonical fields, for every
 * schema (`{ question: 'request', 'inputs.text': 'request', 'expectations.answer':
 * 'expected_response' }`: dotted paths reach inside nested objects); a target that is not a
 * canonical field renames the column onto a source schema's own name (`{ prompt: 'userText' }`).
 * `listDelimiter` splits CSV list cells that are not JSON (`a|b`); unset, DeepEval CSVs use `|`
 * (DeepEval's own default) and other CSVs split nothing.
 */
export interface LoadOptions {
	format?: 'auto' | 'json' | 'jsonl' | 'csv';
	schema?: 'auto' | SchemaName;
	mapping?: Record<string, string>;
	listDelimiter?: string;
}

/** A row that could not become a record, with the raw row so nothing is lost. */
export interface InvalidRow {
	/** 1-based: JSONL line, CSV data row (header excluded), or index in a JSON array. */
	row: number;
	/** Where the first problem is, in the user's own field names (`retrieved_context[2].doc_uri`). */
	path: string;
	/** What is wrong; further problems of the same row follow as `; path: message`. */
	message: string;
	/**
	 * The full line to show a user, naming the row by position and, when the row has one, by its
	 * request id: `row 7: retrieved_context[2].doc_uri: expected string, got number (request_id "q7")`.
	 */
	error: string;
	issues: Issue[];
	/** The row's own `request_id` (after column mapping), when it has a readable one. */
	request_id?: string;
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
	/** Which column went to which field, which to metadata, which rows were skipped and why. */
	account: DatasetAccount;
}

/** How many rows schema detection looks at (as `detectSchema` does). */
const DETECT_ROWS = 1000;

/** Result of normalising one row. */
export type NormaliseResult = { ok: true; record: EvalRecord } | { ok: false; issues: Issue[] };

/** The request id a raw row names (under its own or a mapped column), if it is readable. */
function requestIdOf(value: unknown, mapping: LoadOptions['mapping']): string | undefined {
	if (!isObject(value)) return undefined;
	const from = mapping
		? (Object.entries(mapping).find(([f, to]) => to === 'request_id' && f in value)?.[0] ??
			'request_id')
		: 'request_id';
	const v = value[from];
	if (typeof v === 'string' && v !== '') return v;
	if (typeof v === 'number' && Number.isFinite(v)) return String(v);
	return undefined;
}

function invalidRow(
	row: number,
	issues: Issue[],
	raw: unknown,
	requestId: string | undefined,
): InvalidRow {
	const [first, ...rest] = issues;
	const message = [
		first.message,
		...rest.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)),
	].join('; ');
	// The id goes last so that `row N: field: message` stays the start of every error text.
	const id = requestId === undefined ? '' : ` (request_id ${JSON.stringify(requestId)})`;
	const out: InvalidRow = {
		row,
		path: first.path,
		message,
		error: `row ${row}: ${first.path ? `${first.path}: ` : ''}${message}${id}`,
		issues,
	};
	if (requestId !== undefined) out.request_id = requestId;
	out.raw = raw;
	return out;
}

/** A record's fields between `request_id` and `metadata`, in canonical order. */
const RECORD_FIELDS = [
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
	'tool_calls',
	'expected_tool_calls',
	'tool_definitions',
	'expected_outcome',
	'trace',
	'latency_seconds',
	'total_input_token_count',
	'total_output_token_count',
	'total_token_count',
] as const;

/** Canonical key order, so records read the same in n8n's table view whatever the source. */
function assemble(d: Draft, requestId: string, source: Omit<RecordSource, 'present'>): EvalRecord {
	const rec: Record<string, unknown> = { request_id: requestId };
	for (const k of RECORD_FIELDS) if (d[k] !== undefined) rec[k] = d[k];
	rec.metadata = d.metadata ?? {};
	const present = { request: d.request !== undefined, response: d.response !== undefined };
	rec.source = { ...source, present };
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
const CONTENT_KEYS = ['request_id', ...RECORD_FIELDS, 'metadata'] as const;

/** The draft's content fields (the record without `source`), in canonical order. */
function contentFields(d: Draft): Record<string, unknown> {
	const o: Record<string, unknown> = {};
	for (const k of CONTENT_KEYS) if (d[k] !== undefined) o[k] = d[k];
	return o;
}

/**
 * Canonical JSON of a draft, the basis of content-hash request ids. Kept as before the fingerprint
 * changed, so rows without a `request_id` keep the id earlier runs gave them (baselines match).
 */
function legacyContent(d: Draft): string {
	const o = contentFields(d);
	// Tool calls as earlier versions stored them (no position, turn or error), so ids hold.
	if (o.tool_calls !== undefined) o.tool_calls = legacyToolCalls(o.tool_calls);
	if (o.expected_tool_calls !== undefined)
		o.expected_tool_calls = legacyToolCalls(o.expected_tool_calls);
	for (const k of Object.keys(o)) {
		// History turns may hold tool-call arguments as the user wrote them: sort those.
		const built = BUILT.has(k) && !(k === 'history' && d.history?.some((m) => m.tool_calls));
		if (!built) o[k] = sortedCopy(o[k]);
	}
	return JSON.stringify(o);
}

/** Adds a valid row's content to a dataset fingerprint (see `hashCanonical`). */
function hashRow(hash: Hash, d: Draft): void {
	hashCanonical(hash, contentFields(d), '\n');
}

/** Adds an invalid row to a dataset fingerprint, marked so it never equals a valid one. */
function hashInvalid(hash: Hash, raw: unknown): void {
	hash.update('!', 'utf16le');
	hashCanonical(hash, raw, '\n');
}

/**
 * The fingerprint of file content: SHA-256 of how it was read (format, schema, column mapping,
 * list delimiter, as a canonical text) and then of its bytes as given, a leading UTF-8 byte-order
 * mark aside (text is hashed as its UTF-8, so text and its bytes agree). One native pass over the
 * bytes: hashing every row's normalised content cost about a third of a load (issue 28 item 5).
 */
function contentFingerprint(
	input: string | Uint8Array,
	how: {
		format: DatasetFormat;
		schema: SchemaName;
		mapping?: Record<string, string>;
		listDelimiter?: string;
	},
): string {
	const hash = createHash('sha256');
	hashCanonical(hash, { read: how }, '\n');
	if (typeof input === 'string') {
		hash.update(input.charCodeAt(0) === 0xfeff ? input.slice(1) : input, 'utf8');
	} else {
		const bom = input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
		hash.update(bom ? input.subarray(3) : input);
	}
	return 'sha256:' + hash.digest('hex');
}

function resolveSchema(schema: LoadOptions['schema'], rows: unknown[]): SchemaName {
	if (schema === undefined || schema === 'auto') return detectSchema(rows);
	if (!(SCHEMAS as readonly string[]).includes(schema)) {
		throw new Error(`unknown schema "${String(schema)}"; use auto or one of ${SCHEMAS.join(', ')}`);
	}
	return schema;
}

/** The top-level key under which a row nests deeper than `MAX_DEPTH` levels, if any. */
function deepKey(row: Row): string | undefined {
	for (const k of Object.keys(row)) if (deeperThan(row[k], MAX_DEPTH - 1)) return k;
	return undefined;
}

/**
 * The raw row an Invalid item carries: as given, except that a row nested too deep is cut at
 * `MAX_DEPTH` levels, so nothing downstream (n8n's item copies, reports) meets the full depth.
 */
function rawOf(value: unknown): unknown {
	return deeperThan(value) ? sortedCopy(value, MAX_DEPTH, `[${TOO_DEEP}: cut here]`) : value;
}

type Step = { ok: true; draft: Draft; trail: Trail } | { ok: false; issues: Issue[] };

function step(
	value: unknown,
	schema: SchemaName,
	fromCsv: boolean,
	plan: MappingPlan | undefined,
	listDelimiter?: string,
): Step {
	if (!isObject(value))
		return {
			ok: false,
			issues: [{ path: '', message: `expected an object, got ${typeName(value)}` }],
		};
	const deep = deepKey(value);
	if (deep !== undefined) return { ok: false, issues: [{ path: deep, message: TOO_DEEP }] };
	const m = applyMapping(value, plan);
	if (m.issues.length > 0) return { ok: false, issues: m.issues };
	return readRow(m.row, schema, fromCsv, m.renamed, listDelimiter, plan);
}

/**
 * A row as schema detection sees it: renamed columns under their new names, and without the
 * columns the user maps onto canonical fields (those are the user's call, not evidence of a
 * schema), so a mapping cannot flip detection away from the columns left unmapped.
 */
function forDetection(row: Row, plan: MappingPlan | undefined): Row {
	if (!plan) return row;
	const out = applyMapping(row, plan).row;
	if (plan.fields.length === 0) return out;
	const copy: Row = { ...out };
	for (const [from] of plan.fields) delete copy[from];
	return copy;
}

/** A stable id from the row's normalised content, for rows that bring no `request_id`. */
function contentId(d: Draft): string {
	return sha256(legacyContent(d)).slice(0, 16);
}

/** DeepEval joins list cells with `|` by default; any CSV can name its own delimiter. */
function listDelimiterFor(
	given: string | undefined,
	schema: SchemaName,
	fromCsv: boolean,
): string | undefined {
	if (!fromCsv) return undefined;
	if (given !== undefined && given !== '') return given;
	return schema === 'deepeval' ? '|' : undefined;
}

/**
 * Normalises one row in a given schema (`auto` detects it from this row alone). The record's
 * `source` says `items`, row 1 unless given, and a fingerprint of this row only.
 */
export function normaliseRow(
	row: unknown,
	schema: 'auto' | SchemaName = 'auto',
	mapping?: Record<string, string>,
	source?: Partial<Pick<RecordSource, 'format' | 'row'>> & { listDelimiter?: string },
): NormaliseResult {
	const plan = planMapping(mapping);
	const s = resolveSchema(schema, [isObject(row) ? forDetection(row, plan) : row]);
	const fromCsv = source?.format === 'csv';
	const res = step(row, s, fromCsv, plan, listDelimiterFor(source?.listDelimiter, s, fromCsv));
	if (!res.ok) return res;
	const hash = createHash('sha256');
	hashRow(hash, res.draft);
	const fingerprint = 'sha256:' + hash.digest('hex');
	const rec = assemble(res.draft, res.draft.request_id ?? contentId(res.draft), {
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
 * JSON/CSV structure); row problems go to `invalid` with the raw row. `account` says what became
 * of every column and every row.
 */
export function loadDataset(
	input: string | Uint8Array | unknown[],
	options: LoadOptions = {},
): LoadResult {
	const data = readRows(input, options.format ?? 'auto');
	const mapping =
		options.mapping && Object.keys(options.mapping).length > 0 ? options.mapping : undefined;
	const plan = planMapping(mapping);
	// The schema is detected on the first rows; the rest are read one by one after that.
	const rows = data.rows[Symbol.iterator]();
	const first: RawRow[] = [];
	for (let n = 0; n < DETECT_ROWS; n++) {
		const next = rows.next();
		if (next.done === true) break;
		first.push(next.value);
	}
	const sample = first
		.filter((r) => r.error === undefined && isObject(r.value))
		.map((r) => forDetection(r.value as Row, plan));
	const schema = resolveSchema(options.schema, sample);
	const delimiter = listDelimiterFor(options.listDelimiter, schema, data.fromCsv);

	// Rows given as values have no bytes: their fingerprint hashes each row's normalised content.
	const hash = Array.isArray(input) ? createHash('sha256') : undefined;
	const records: EvalRecord[] = [];
	const invalid: InvalidRow[] = [];
	const account = new AccountBuilder();
	const take = (raw: RawRow): void => {
		if (raw.error !== undefined) {
			const bad = invalidRow(
				raw.row,
				[{ path: '', message: raw.error }],
				rawOf(raw.value),
				undefined,
			);
			invalid.push(bad);
			account.skip(raw.row, bad.error);
			if (hash) hashInvalid(hash, raw.value);
			return;
		}
		const res = step(raw.value, schema, data.fromCsv, plan, delimiter);
		if (res.ok) {
			if (hash) hashRow(hash, res.draft);
			account.add(res.trail, res.draft);
			// The record is built now, so the raw row and the draft die young; only the dataset
			// fingerprint is filled in at the end.
			const id = res.draft.request_id ?? contentId(res.draft);
			account.id(id, raw.row, res.draft.request_id === undefined);
			records.push(
				assemble(res.draft, id, { format: data.format, schema, row: raw.row, fingerprint: '' }),
			);
		} else {
			const bad = invalidRow(
				raw.row,
				res.issues,
				rawOf(raw.value),
				requestIdOf(raw.value, mapping),
			);
			invalid.push(bad);
			account.skip(raw.row, bad.error);
			if (hash) hashInvalid(hash, raw.value);
		}
	};
	for (const raw of first) take(raw);
	first.length = 0;
	for (let next = rows.next(); next.done !== true; next = rows.next()) take(next.value);
	const fingerprint = hash
		? 'sha256:' + hash.digest('hex')
		: contentFingerprint(input as string | Uint8Array, {
				format: data.format,
				schema,
				...(mapping ? { mapping } : {}),
				...(delimiter !== undefined ? { listDelimiter: delimiter } : {}),
			});
	for (const r of records) r.source.fingerprint = fingerprint;
	const detected = options.schema === undefined || options.schema === 'auto';
	const out: LoadResult = {
		records,
		invalid,
		fingerprint,
		format: data.format,
		schema,
		account: account.finish({ format: data.format, schema, detected, mapping }, data.notes),
	};
	if (data.wrapper) out.wrapper = data.wrapper;
	return out;
}
