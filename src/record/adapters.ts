/**
 * Reading one row into a canonical record, whatever its schema: the schema's adapter proposes
 * which column feeds which field (src/record/schemas), the user's Column Mapping overrides that per
 * field for every schema (dotted paths reach inside nested objects), columns nobody read are
 * proposed by their common names (fields.ts), and every other key lands in `metadata`. The row's
 * trace then fills what is still missing. What each column fed is kept for the dataset's account.
 */
import {
	ambiguousByName,
	fieldByName,
	isField,
	nameKey,
	readField,
	tryField,
	type Field,
} from './fields';
import {
	answerOf,
	readGuidelines,
	readRequest,
	readResponse,
	readTrace,
	toolCalls,
	toolDefinitions,
	type Adapter,
	type Draft,
	type Names,
} from './readers';
import { SCHEMAS, type SchemaName } from './schema';
import { azure } from './schemas/azure';
import { bedrock } from './schemas/bedrock';
import { databricks, springAi } from './schemas/databricks';
import { deepeval } from './schemas/deepeval';
import { langsmith, mlflow, phoenix } from './schemas/nested';
import { openaiEvals } from './schemas/openaiEvals';
import { promptfoo } from './schemas/promptfoo';
import { ragas } from './schemas/ragas';
import { trulens } from './schemas/trulens';
import { parseTrace, TraceError, type ParsedTrace } from './trace';
import {
	deeperThan,
	id,
	isObject,
	nonNegative,
	RowReader,
	structured,
	textList,
	TOO_DEEP,
	type Issue,
	type Row,
} from './values';

export type { Draft } from './readers';

const ADAPTERS: Record<SchemaName, Adapter> = {
	databricks,
	azure,
	ragas,
	deepeval,
	'spring-ai': springAi,
	'openai-evals': openaiEvals,
	mlflow,
	langsmith,
	phoenix,
	promptfoo,
	bedrock,
	trulens,
};

const FIGURES = [
	'latency_seconds',
	'total_input_token_count',
	'total_output_token_count',
	'total_token_count',
] as const;

// Seed 001 names the per-row counts total_input/output_token_count; earlier files used these.
const FIGURE_ALIASES: Partial<Record<(typeof FIGURES)[number], string>> = {
	total_input_token_count: 'input_token_count',
	total_output_token_count: 'output_token_count',
};

/** Columns every schema reads under their canonical names, and what they feed. */
const COMMON_COLUMNS: Readonly<Record<string, readonly string[]>> = {
	request_id: ['request_id'],
	expected_facts: ['expected_facts'],
	guidelines: ['guidelines'],
	trace: ['trace'],
	tool_calls: ['tool_calls'],
	expected_tool_calls: ['expected_tool_calls'],
	tool_definitions: ['tool_definitions'],
	latency_seconds: ['latency_seconds'],
	total_input_token_count: ['total_input_token_count'],
	input_token_count: ['total_input_token_count'],
	total_output_token_count: ['total_output_token_count'],
	output_token_count: ['total_output_token_count'],
	total_token_count: ['total_token_count'],
	metadata: ['metadata'],
};

/** Schemas whose records nest their fields, where `id` is the example's id. */
const NESTED: ReadonlySet<SchemaName> = new Set(['mlflow', 'langsmith', 'phoenix']);

/** Per schema, its columns and the common ones: what `take` records each column as feeding. */
const TABLES = Object.fromEntries(
	SCHEMAS.map((s) => [s, { ...COMMON_COLUMNS, ...ADAPTERS[s].columns }]),
) as Record<SchemaName, Readonly<Record<string, readonly string[]>>>;

/**
 * Fields every schema accepts under their canonical names (ids, facts, guidelines, trace). A field
 * an adapter already filled (MLflow `expectations.guidelines`, promptfoo rubrics) is kept unless
 * the row also has the canonical column.
 */
function common(r: RowReader, d: Draft): void {
	const requestId = id(r, r.take('request_id'), 'request_id');
	if (requestId !== undefined) d.request_id = requestId;
	const facts = textList(r, r.take('expected_facts'), 'expected_facts');
	if (facts !== undefined) d.expected_facts = facts;
	const guidelines = readGuidelines(r, r.take('guidelines'));
	if (guidelines !== undefined) d.guidelines = guidelines;
	const trace = readTrace(r, r.take('trace'));
	if (trace !== undefined) d.trace = trace;
	if (r.has('tool_calls')) {
		const calls = toolCalls(r, r.take('tool_calls'), 'tool_calls');
		if (calls !== undefined) d.tool_calls = calls;
	}
	if (r.has('expected_tool_calls')) {
		const calls = toolCalls(r, r.take('expected_tool_calls'), 'expected_tool_calls');
		if (calls !== undefined) d.expected_tool_calls = calls;
	}
	const defs = toolDefinitions(r, r.take('tool_definitions'));
	if (defs !== undefined) d.tool_definitions = defs;
	for (const k of FIGURES) {
		const alias = FIGURE_ALIASES[k];
		const key = alias !== undefined && !r.has(k) && r.has(alias) ? alias : k;
		const v = nonNegative(r, r.take(key), key, k !== 'latency_seconds');
		if (v !== undefined) d[k] = v;
	}
	const meta = structured(r, r.take('metadata'), 'metadata');
	if (isObject(meta)) d.metadata = { ...meta, ...d.metadata };
	else if (meta !== undefined) r.release('metadata', 'not an object: kept under its own name');
}

/** Request-id names read only in the nested tools' exports, where they name the example. */
const NESTED_IDS: ReadonlySet<string> = new Set(['id', 'exampleid']);

/** Whether a proposal of `field` is barred because the row already has a field it excludes. */
function barred(d: Draft, field: Field): string | undefined {
	if (field === 'expected_facts' && d.expected_response !== undefined) return 'expected_response';
	if (field === 'expected_response' && d.expected_facts !== undefined) return 'expected_facts';
	return undefined;
}

/**
 * Columns nobody read, proposed by the field model (fields.ts: `FIELD_NAMES`, any letter case,
 * snake, camel or kebab) for fields still empty. Where two columns name one field, the one earlier
 * in the field's precedence list feeds it and the other stays in metadata, with the reason. An
 * ambiguous column (`output`, `documents`) comes last and the account says which field it fed and
 * why. A value that does not fit the field stays in metadata: a proposal never makes a row invalid.
 */
function proposeByName(r: RowReader, d: Draft, schema: SchemaName): void {
	const plain: [string, Field, number][] = [];
	const ambiguous: string[] = [];
	for (const key in r.row) {
		if (r.seen(key) || !r.has(key)) continue;
		const match = fieldByName(key);
		if (match === undefined) {
			if (ambiguousByName(key) !== undefined) ambiguous.push(key);
			continue;
		}
		// An `id` column names the example in the nested tools' exports; elsewhere it stays in
		// metadata as before, so content-hash request ids (and baselines keyed on them) hold.
		if (match.field === 'request_id' && NESTED_IDS.has(nameKey(key)) && !NESTED.has(schema)) {
			continue;
		}
		plain.push([key, match.field, match.rank]);
	}
	// Precedence within a field; the row's own order otherwise (a stable sort).
	plain.sort((a, b) => (a[1] === b[1] ? a[2] - b[2] : 0));
	for (const [key, field] of plain) {
		const have = (d as Record<string, unknown>)[field];
		if (have !== undefined) {
			const by = r.feederOf(field);
			r.note(
				key,
				`not read as ${field}: ${by !== undefined && by !== key ? by : 'another column'} gave it`,
			);
			continue;
		}
		const bar = barred(d, field);
		if (bar !== undefined) {
			r.note(key, `not read as ${field}: the row gives ${bar} (at most one of the two)`);
			continue;
		}
		if (tryField(r, field, r.peek(key), key, d)) r.take(key, field);
		else r.note(key, `not read as ${field}: the value does not fit`);
	}
	for (const key of ambiguous) proposeAmbiguous(r, d, key);
}

/** An ambiguous column: which of its two fields it feeds, and the reason, in the account. */
function proposeAmbiguous(r: RowReader, d: Draft, key: string): void {
	const amb = ambiguousByName(key);
	if (amb === undefined) return;
	const [a, b] = amb.fields;
	const has = (f: Field) => (d as Record<string, unknown>)[f] !== undefined;
	const from = (f: Field) => r.feederOf(f) ?? 'another column';
	let field: Field;
	let why: string;
	if (has(a) && has(b)) {
		r.note(key, `could be ${a} or ${b}; the row has both from other columns`);
		return;
	}
	if (has(b)) {
		field = a;
		why = `could be ${a} or ${b}; ${from(b)} gives ${b}, so read as ${a}`;
	} else if (has(a)) {
		field = b;
		why = `could be ${a} or ${b}; ${from(a)} gives ${a}, so read as ${b}`;
	} else {
		field = amb.when;
		why = `could be ${a} or ${b}; no other column gives either, so read as ${field}`;
	}
	const bar = barred(d, field);
	if (bar !== undefined) {
		r.note(key, `could be ${a} or ${b}; not read as ${field}: the row gives ${bar}`);
		return;
	}
	if (tryField(r, field, r.peek(key), key, d)) {
		r.take(key, field);
		r.choose(key, `${why}; a Column Mapping decides otherwise`);
	} else r.note(key, `not read as ${field}: the value does not fit`);
}

/**
 * Fills the request or response from the trace's value when it reads as one (text, a chat
 * message object, any object); a value that does not (a list of tool calls as the output) is left
 * out with a note: what the trace holds must never make the row invalid.
 */
function fromTrace(
	raw: unknown,
	read: typeof readResponse,
	field: 'request' | 'response',
	d: Draft,
	notes: string[],
): void {
	const scratch: Draft = {};
	const sr = new RowReader({}, false, new Map());
	let value = raw;
	if (Array.isArray(raw)) {
		// A chat transcript reads as messages; any other list (tool calls) is not an answer.
		if (raw.some((m) => isObject(m) && typeof m.role === 'string')) value = { messages: raw };
		else value = undefined;
	}
	if (value !== undefined) read(sr, value, `trace.${field}`, scratch);
	// A final output object that is not a chat (a graph agent's state, `{output}`): its answer.
	if (field === 'response' && isObject(value) && scratch.response === JSON.stringify(value)) {
		const answer = answerOf(value);
		if (answer !== undefined) scratch.response = answer;
	}
	if (sr.issues.length > 0 || scratch[field] === undefined) {
		notes.push(
			`${field}: the trace's ${field === 'request' ? 'input' : 'output'} is not text or messages; left out`,
		);
		return;
	}
	d[field] = scratch[field];
	const rawKey = field === 'request' ? 'request_raw' : 'response_raw';
	if (scratch[rawKey] !== undefined) d[rawKey] = scratch[rawKey];
	if (field === 'request' && scratch.history !== undefined) d.history = scratch.history;
}

/** A trace's response or request as the record's text, for comparing with a given one. */
function asText(raw: unknown, read: typeof readResponse): string | undefined {
	const scratch: Draft = {};
	read(new RowReader({}, false, new Map()), raw, 'trace', scratch);
	return read === readResponse ? scratch.response : scratch.request;
}

/**
 * Fills the fields a row leaves out from its trace (`parseTrace`): figures, response, request,
 * retrieved context, tool calls. Given fields are what the user measured and are never
 * overwritten; where the trace disagrees, or has something to say (no LLM spans),
 * `metadata.trace_notes` says so. A trace that cannot be read leaves the row as it is, with the
 * reason in `metadata.trace_error`.
 */
function fillFromTrace(r: RowReader, d: Draft, names: Names): void {
	if (r.traceError !== undefined) return;
	try {
		fillFrom(r, d, names, parseTrace(d.trace));
	} catch (e) {
		if (e instanceof TraceError) r.traceError = e.message;
		// Text of a 100,000-deep request/response object cannot be built (JSON.stringify recurses).
		else if (e instanceof RangeError)
			r.fail(
				'trace',
				`a request or response in the trace is nested too deeply to read (${e.message})`,
			);
		else throw e;
	}
}

function fillFrom(r: RowReader, d: Draft, names: Names, t: ParsedTrace): void {
	const notes = [...t.notes];
	const before = TRACE_FILLS.map((k) => d[k]);
	for (const k of FIGURES) {
		const v = t[k];
		if (v === undefined) continue;
		const given = d[k];
		if (given === undefined) d[k] = v;
		else if (Math.abs(given - v) > 1e-9 * Math.max(1, Math.abs(v)))
			notes.push(`${k}: the row gives ${given}, the trace ${v}; kept the row's`);
	}
	if (t.response !== undefined && !r.failed.has(names.response)) {
		if (d.response === undefined) {
			if (deeperThan(t.response)) r.fail('trace.response', TOO_DEEP);
			else fromTrace(t.response, readResponse, 'response', d, notes);
		} else if (asText(t.response, readResponse) !== d.response)
			notes.push("response: differs from the trace's final output; kept the row's");
	}
	if (t.request !== undefined && !r.failed.has(names.request)) {
		if (d.request === undefined) {
			if (deeperThan(t.request)) r.fail('trace.request', TOO_DEEP);
			else fromTrace(t.request, readRequest, 'request', d, notes);
		} else if (asText(t.request, readRequest) !== d.request)
			notes.push("request: differs from the trace's input; kept the row's");
	}
	if (t.retrieved_context !== undefined && !r.failed.has('retrieved_context')) {
		if (d.retrieved_context === undefined) d.retrieved_context = t.retrieved_context;
		else if (JSON.stringify(d.retrieved_context) !== JSON.stringify(t.retrieved_context))
			notes.push("retrieved_context: differs from the trace's last retriever span; kept the row's");
	}
	if (t.tool_calls !== undefined && d.tool_calls === undefined && !r.failed.has('tool_calls')) {
		d.tool_calls = t.tool_calls;
	}
	if (
		t.tool_definitions !== undefined &&
		d.tool_definitions === undefined &&
		!r.failed.has('tool_definitions')
	) {
		d.tool_definitions = t.tool_definitions;
	}
	if (notes.length > 0) {
		// A copy: the user's metadata object is their input and stays untouched.
		if (d.metadata?.trace_notes === undefined) d.metadata = { ...d.metadata, trace_notes: notes };
	}
	// The account names what the trace filled, beside the trace itself.
	const filled = TRACE_FILLS.filter((k, i) => before[i] === undefined && d[k] !== undefined);
	if (filled.length > 0) {
		const traceKey = r.feederOf('trace') ?? 'trace';
		r.feeds(traceKey, 'trace', ...filled);
	}
}

/** Fields a trace may fill, for the account. */
const TRACE_FILLS = [
	'request',
	'history',
	'response',
	'retrieved_context',
	'tool_calls',
	'tool_definitions',
	'latency_seconds',
	'total_input_token_count',
	'total_output_token_count',
	'total_token_count',
] as const;

/** The top-level column of a (possibly dotted) name: what `RowReader.failed` records. */
function head(name: string): string {
	const i = name.search(/[.[]/);
	return i < 0 ? name : name.slice(0, i);
}

/**
 * Retrieved documents that carry relevance labels (graded or true/false) and a row with no
 * expected documents: the labelled documents are the expected ones, with their grades, so ranking
 * metrics can be computed. Recall then counts only the labelled documents; the account says so.
 */
function expectedFromLabels(r: RowReader, d: Draft): void {
	if (d.expected_retrieved_context !== undefined || d.retrieved_context === undefined) return;
	const labelled = d.retrieved_context.filter(
		(c) => c.doc_uri !== undefined && c.grade !== undefined,
	);
	if (labelled.length === 0) return;
	d.expected_retrieved_context = labelled.map((c) => ({
		doc_uri: c.doc_uri as string,
		grade: c.grade as number,
	}));
	const from = r.feederOf('retrieved_context');
	if (from === undefined) return;
	r.feeds(from, 'retrieved_context', 'expected_retrieved_context');
	r.choose(
		from,
		'its documents carry relevance labels and the row names no expected documents: the labelled ones are the expected documents, so recall counts only those',
	);
}

/**
 * A row with retrieval data only: documents named by id (what Retrieval Metrics match on) and
 * their relevance, no request, response or trace. Text-only contexts do not make one: nothing
 * could be measured on them without a request or a response.
 */
function retrievalOnly(d: Draft): boolean {
	const named = (list: { doc_uri?: string }[] | undefined) =>
		list !== undefined && list.some((c) => c.doc_uri !== undefined);
	return (
		d.request === undefined &&
		d.response === undefined &&
		d.trace === undefined &&
		(named(d.retrieved_context) || named(d.expected_retrieved_context))
	);
}

/** A row that lacks what a record needs: columns proposed by name that did not fit say why. */
function addMisfits(r: RowReader): void {
	if (r.misfits !== undefined) for (const issue of r.misfits.values()) r.issues.push(issue);
}

/** Whether a draft has what a record needs; records the issues otherwise. */
function check(r: RowReader, d: Draft, names: Names, schema: SchemaName): void {
	if (d.trace !== undefined && !r.failed.has('trace')) fillFromTrace(r, d, names);
	if (r.traceError !== undefined) d.metadata = { ...d.metadata, trace_error: r.traceError };
	expectedFromLabels(r, d);
	// Retrieval data alone is a row Retrieval Metrics can score (Azure's document-retrieval data);
	// judges that need a request say so on the row (not applicable: missing request).
	if (retrievalOnly(d)) {
		if (d.expected_facts !== undefined && d.expected_response !== undefined) {
			r.fail(
				'expected_facts',
				`cannot be given together with ${names.expectedResponse} (give at most one)`,
			);
		}
		return;
	}
	// Seed 002 marks `request` required in Databricks Agent Evaluation rows (only the response may
	// come from the trace). Azure's NLP rows (a response and a ground truth) are another schema.
	if (
		schema === 'databricks' &&
		d.request === undefined &&
		!r.failed.has(head(names.request)) &&
		!r.failed.has('trace')
	) {
		r.fail(
			names.request,
			'required in Databricks Agent Evaluation rows (seed 002): the question, as text or chat messages',
		);
		addMisfits(r);
		return;
	}
	// A golden set has no responses and Azure's NLP data no query; a row with neither says nothing.
	const issuesBefore = r.issues.length;
	if (
		d.request === undefined &&
		d.response === undefined &&
		d.trace === undefined &&
		!r.failed.has(head(names.request)) &&
		!r.failed.has(head(names.response))
	) {
		r.fail(
			names.request,
			names.request === names.response
				? 'has no user turn and no reply'
				: `required (give ${names.request} or ${names.response}, or both)`,
		);
	}
	if (r.issues.length > issuesBefore) addMisfits(r);
	if (d.expected_facts !== undefined && d.expected_response !== undefined) {
		r.fail(
			'expected_facts',
			`cannot be given together with ${names.expectedResponse} (give at most one)`,
		);
	}
}

/** Scores how strongly a row's keys suggest each schema; distinctive names weigh more. */
const MARKERS: Record<SchemaName, Record<string, number>> = {
	databricks: {
		request: 3,
		expected_facts: 2,
		expected_response: 2,
		retrieved_context: 3,
		expected_retrieved_context: 3,
		guidelines: 1,
		trace: 1,
		response: 1,
	},
	azure: {
		query: 3,
		messages: 3,
		conversation: 3,
		tool_definitions: 2,
		ground_truth: 1,
		context: 2,
		response: 1,
		question: 2,
		answer: 2,
		chat_history: 3,
		groundtruth: 3,
		prediction: 2,
		truth: 2,
		gt: 2,
	},
	ragas: {
		user_input: 3,
		retrieved_contexts: 3,
		reference: 2,
		reference_contexts: 3,
		retrieved_context_ids: 3,
		reference_context_ids: 3,
		reference_tool_calls: 3,
		grading_notes: 2,
		question: 2,
		answer: 2,
		contexts: 2,
		ground_truth: 1,
		response: 1,
	},
	deepeval: {
		input: 3,
		actual_output: 3,
		actualOutput: 3,
		expected_output: 3,
		expectedOutput: 3,
		retrieval_context: 3,
		retrievalContext: 3,
		tools_called: 2,
		toolsCalled: 2,
		turns: 2,
		scenario: 2,
		expected_outcome: 2,
		context: 1,
	},
	'spring-ai': { userText: 3, dataList: 3, responseContent: 3 },
	'openai-evals': { ideal: 5 },
	mlflow: { expectations: 4 },
	langsmith: {},
	phoenix: {},
	promptfoo: {},
	bedrock: { conversationTurns: 8, referenceResponse: 4, modelResponses: 4 },
	// TruLens's records table: names no other tool writes.
	trulens: {
		record_json: 6,
		cost_json: 4,
		perf_json: 4,
		app_json: 4,
		record_id: 2,
		main_input: 5,
		main_output: 5,
	},
};

/** How many rows `detectSchema` looks at: enough to see optional columns, cheap on big files. */
const DETECT_SAMPLE = 1000;

/** An object, or JSON text of one (a CSV cell). */
const objectLike = (v: unknown): boolean =>
	isObject(v) || (typeof v === 'string' && v.trimStart()[0] === '{');

/** Scores that depend on values, not only names: nested records, message-list inputs, promptfoo. */
function shapeScores(row: Row, score: Record<SchemaName, number>): void {
	if (objectLike(row.inputs)) {
		if ('expectations' in row || typeof row.outputs === 'string' || 'trace' in row) {
			score.mlflow += 6;
		} else if (objectLike(row.outputs)) score.langsmith += 6;
		else score.mlflow += 5;
	}
	if (objectLike(row.input) && ('output' in row || 'metadata' in row || 'id' in row)) {
		score.phoenix += 6;
	}
	if (Array.isArray(row.input)) score['openai-evals'] += 4;
	// A promptfoo test in JSON Lines: its variables and its assertions.
	if (isObject(row.vars) && (Array.isArray(row.assert) || 'providerOutput' in row)) {
		score.promptfoo += 8;
	}
	for (const k in row) {
		if (
			k.charCodeAt(0) === 0x5f &&
			(k.startsWith('__expected') ||
				k.startsWith('__metadata') ||
				k.startsWith('__config:') ||
				k === '__description' ||
				k === '__threshold' ||
				k === '__providerOutput' ||
				k === '__metric')
		) {
			score.promptfoo += 8;
			break;
		}
	}
}

/**
 * Picks the schema whose field names (and, for nested records, shapes) the rows use most (first
 * 1000 rows). Ties go to the earlier of SCHEMAS; rows with no known names are read as Databricks.
 */
export function detectSchema(rows: readonly unknown[]): SchemaName {
	const score = Object.fromEntries(SCHEMAS.map((s) => [s, 0])) as Record<SchemaName, number>;
	for (const row of rows.slice(0, DETECT_SAMPLE)) {
		if (!isObject(row)) continue;
		for (const s of SCHEMAS) {
			for (const [k, w] of Object.entries(MARKERS[s])) {
				if (row[k] !== undefined && row[k] !== null) score[s] += w;
			}
		}
		shapeScores(row, score);
	}
	let best: SchemaName = 'databricks';
	for (const s of SCHEMAS) if (score[s] > score[best]) best = s;
	return best;
}

/** Result of reading one row: a draft plus what each column fed, or the issues that stop it. */
export type DraftResult = { ok: true; draft: Draft; trail: Trail } | { ok: false; issues: Issue[] };

/** What one row's columns fed (canonical fields), and which went to metadata and why. */
export interface Trail {
	/** Columns read, in order, and the fields each may have fed (`fedFields[i]`). */
	fedKeys: readonly string[];
	fedFields: readonly (readonly string[])[];
	metadata: readonly string[];
	why: ReadonlyMap<string, string>;
	/** Why an ambiguous column was read as the field it fed (`output` as the reference...). */
	chosen: ReadonlyMap<string, string>;
}

/**
 * A Column Mapping split in two: targets that are canonical fields override that field for every
 * schema (the source may be a dotted path); other targets rename a column onto a source schema's
 * own name (`prompt` -> `userText`), read by that schema as if the file had used it.
 */
export interface MappingPlan {
	renames: Record<string, string>;
	fields: [string, Field][];
}

/** Splits a Column Mapping (`{your column: target}`) into renames and field overrides. */
export function planMapping(mapping: Record<string, string> | undefined): MappingPlan | undefined {
	if (!mapping) return undefined;
	const renames: Record<string, string> = {};
	const fields: [string, Field][] = [];
	for (const [from, to] of Object.entries(mapping)) {
		if (from === '' || to === '' || from === to) continue;
		if (isField(to)) fields.push([from, to]);
		else renames[from] = to;
	}
	return Object.keys(renames).length > 0 || fields.length > 0 ? { renames, fields } : undefined;
}

/**
 * Renames the user's columns onto the names the schema adapter reads, and checks that no field
 * override meets a column of the field's own name (that would silently overwrite one of them).
 */
export function applyMapping(
	row: Row,
	plan: MappingPlan | undefined,
): { row: Row; renamed: Map<string, string>; issues: Issue[] } {
	const renamed = new Map<string, string>();
	const issues: Issue[] = [];
	if (!plan) return { row, renamed, issues };
	for (const [from, to] of plan.fields) {
		const top = from.split('.')[0];
		if (!(from in row) && !(top in row)) continue;
		if (to in row && row[to] !== undefined && to !== from && !(to in plan.renames)) {
			issues.push({ path: from, message: `mapped to ${to}, but the row also has a ${to} field` });
		}
	}
	const entries = Object.entries(plan.renames).filter(([from]) => from in row);
	if (entries.length === 0) return { row, renamed, issues };
	const out: Row = { ...row };
	for (const [from] of entries) delete out[from];
	for (const [from, to] of entries) {
		if (to in out && out[to] !== undefined) {
			issues.push({ path: from, message: `mapped to ${to}, but the row also has a ${to} field` });
			out[from] = row[from];
			continue;
		}
		out[to] = row[from];
		renamed.set(to, from);
	}
	return { row: out, renamed, issues };
}

/** Hidden columns per mapping and schema: worked out once per load, not once per row. */
const HIDDEN = new WeakMap<MappingPlan, Map<SchemaName, Set<string> | undefined>>();

/**
 * The schema's own columns that feed only fields the user maps: hidden from the adapter, so the
 * user's column is read instead and the schema's stays in metadata, named in the account.
 */
function hiddenColumns(schema: SchemaName, plan: MappingPlan | undefined): Set<string> | undefined {
	if (!plan || plan.fields.length === 0) return undefined;
	let bySchema = HIDDEN.get(plan);
	if (bySchema === undefined) {
		bySchema = new Map();
		HIDDEN.set(plan, bySchema);
	}
	if (bySchema.has(schema)) return bySchema.get(schema);
	const hidden = computeHidden(schema, plan);
	bySchema.set(schema, hidden);
	return hidden;
}

function computeHidden(schema: SchemaName, plan: MappingPlan): Set<string> | undefined {
	const mapped = new Set<string>(plan.fields.map(([, f]) => f));
	// The user's own columns are theirs to place: the schema does not read them as well.
	const out = new Set<string>(plan.fields.map(([from]) => from).filter((f) => !f.includes('.')));
	for (const [col, fields] of Object.entries(ADAPTERS[schema].columns)) {
		const own = fields.filter((f) => f !== 'history' && f !== 'tool_calls' && f !== 'request_raw');
		if (own.length > 0 && own.every((f) => mapped.has(f))) out.add(col);
	}
	return out.size > 0 ? out : undefined;
}

/** Reads one (already renamed) row in a given schema into a draft record, collecting all issues. */
export function readRow(
	row: Row,
	schema: SchemaName,
	fromCsv: boolean,
	renamed: Map<string, string>,
	listDelimiter?: string,
	plan?: MappingPlan,
): DraftResult {
	const r = new RowReader(
		row,
		fromCsv,
		renamed,
		listDelimiter,
		hiddenColumns(schema, plan),
		TABLES[schema],
	);
	const d: Draft = {};
	const names = ADAPTERS[schema].read(r, d);
	common(r, d);
	if (plan) {
		for (const [from, field] of plan.fields) {
			const value = r.takeMapped(from, field);
			if (value === undefined) continue;
			readField(r, field, value, from, d);
			if (field === 'request') names.request = from;
			else if (field === 'response') names.response = from;
			else if (field === 'expected_response') names.expectedResponse = from;
		}
	}
	proposeByName(r, d, schema);
	check(r, d, names, schema);
	if (r.issues.length > 0) return { ok: false, issues: r.issues };
	const metaPaths: string[] = [];
	const left = r.leftovers(metaPaths);
	if (d.metadata) {
		for (const k of Object.keys(left)) {
			if (k in d.metadata) r.fail(`metadata.${k}`, `also given as a top-level field ${k}`);
		}
		if (r.issues.length > 0) return { ok: false, issues: r.issues };
		d.metadata = { ...d.metadata, ...left };
	} else d.metadata = left;
	const trail = {
		fedKeys: r.fedKeys,
		fedFields: r.fedFields,
		metadata: metaPaths,
		why: r.why,
		chosen: r.chosen,
	};
	return { ok: true, draft: d, trail };
}
