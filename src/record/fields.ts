/**
 * The one field-mapping model: every schema reads source columns (or dotted paths into nested
 * objects) into the canonical fields listed here. A schema adapter proposes which column feeds
 * which field; the user's Column Mapping overrides that per field, for every schema; columns no one
 * claims are proposed by their common names (`expected_answer`, `truth`, `grading_notes`...), and
 * whatever is left goes to `metadata`, named in the dataset's account.
 */
import {
	conversation,
	keepIfLossy,
	lastIndex,
	messageResponse,
	readGuidelines,
	readRequest,
	readResponse,
	readTrace,
	toolCalls,
	toolDefinitions,
	type Draft,
} from './readers';
import type { ChatMessage, ExpectedChunk } from './schema';
import {
	asRetrieved,
	chunks,
	id,
	isBad,
	isObject,
	messages,
	nonNegative,
	structured,
	textList,
	typeName,
	unwrapHolder,
	type RowReader,
	type Row,
} from './values';

/** Canonical fields a column can be mapped onto (Databricks names, seed 001's figures). */
export const FIELDS = [
	'request_id',
	'request',
	'history',
	'response',
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
	'metadata',
] as const;
/** A canonical field name. */
export type Field = (typeof FIELDS)[number];

const FIELD_SET: ReadonlySet<string> = new Set(FIELDS);

/** Whether `name` is a canonical field (a Column Mapping target that overrides per field). */
export function isField(name: string): name is Field {
	return FIELD_SET.has(name);
}

/**
 * Chunk keys any source may use: Databricks, LangChain and MLflow documents, Azure's document
 * retrieval data (`document_id`, `query_relevance_label`), plain `{id, text}`. `grade` keys hold a
 * document's relevance label (graded or binary), which ranking metrics such as NDCG use.
 */
export const ANY_CHUNK = {
	uri: [
		'doc_uri',
		'id',
		'document_id',
		'doc_id',
		'documentId',
		'docId',
		'chunk_id',
		'source',
		'url',
		'uri',
	],
	content: ['content', 'text', 'page_content', 'pageContent', 'chunk', 'passage', 'snippet'],
	title: ['title'],
	grade: [
		'grade',
		'relevance',
		'query_relevance_label',
		'relevance_label',
		'relevance_grade',
		'is_relevant',
		'relevant',
	],
	score: ['relevance_score', 'score', 'retrieval_score', 'similarity'],
} as const;

/**
 * A column name as the field model compares it: letter case and word separators dropped, so
 * `ground_truth`, `groundTruth`, `Ground-Truth` and `GROUND TRUTH` are one name.
 */
export function nameKey(name: string): string {
	return name.replace(/[\s_\-.]+/g, '').toLowerCase();
}

/**
 * The field model: for each canonical field, the column names that feed it when no schema adapter
 * read them, in precedence order (when two of them are present, the earlier one feeds the field and
 * the later one stays in metadata, with the reason in the account). Names match in any letter case
 * and in snake, camel or kebab form (`nameKey`). Names that mean different things in different
 * tools are not here but in `AMBIGUOUS`, where the account says which field was chosen and why.
 * Per-tool schemas (src/record/schemas) read their own columns first: they override this model.
 */
export const FIELD_NAMES: Readonly<Partial<Record<Field, readonly string[]>>> = {
	request_id: [
		'request_id',
		'id',
		'example_id',
		'sample_id',
		'test_case_id',
		'case_id',
		'question_id',
		'query_id',
	],
	request: [
		'request',
		'question',
		'query',
		'input',
		'user_input',
		'prompt',
		'user_query',
		'user_question',
		'user_prompt',
		'user_message',
		'chat_input',
		'input_text',
		'question_text',
		'query_text',
		'instruction',
		'utterance',
	],
	history: ['history', 'chat_history', 'conversation_history', 'previous_messages'],
	response: [
		'response',
		'answer',
		'actual_output',
		'prediction',
		'generated_answer',
		'generated_response',
		'generated_text',
		'generation',
		'model_answer',
		'model_response',
		'model_output',
		'llm_answer',
		'llm_response',
		'llm_output',
		'predicted_answer',
		'actual_answer',
		'actual_response',
		'agent_response',
		'assistant_response',
		'bot_response',
		'chat_output',
	],
	expected_response: [
		'expected_response',
		'expected_output',
		'expected',
		'expected_answer',
		'reference',
		'reference_answer',
		'reference_response',
		'ground_truth',
		'groundtruth',
		'ground_truth_answer',
		'truth',
		'gt',
		'ideal',
		'ideal_answer',
		'ideal_response',
		'golden_answer',
		'gold_answer',
		'gold_response',
		'golden_response',
		'correct_answer',
		'target_answer',
	],
	expected_facts: ['expected_facts', 'facts', 'key_facts', 'expected_claims'],
	guidelines: ['guidelines', 'grading_notes'],
	retrieved_context: [
		'retrieved_context',
		'context',
		'contexts',
		'retrieved_contexts',
		'retrieval_context',
		'retrieved_documents',
		'retrieved_docs',
		'retrieved_chunks',
		'retrieved_passages',
		'retrieval_results',
		'search_results',
	],
	expected_retrieved_context: [
		'expected_retrieved_context',
		'reference_contexts',
		'expected_contexts',
		'retrieval_ground_truth',
		'expected_documents',
		'expected_docs',
		'relevant_documents',
		'relevant_docs',
		'relevant_contexts',
		'ground_truth_documents',
		'ground_truth_contexts',
		'golden_contexts',
		'gold_documents',
		'reference_documents',
		'qrels',
	],
	tool_calls: ['tool_calls', 'tools_called', 'function_calls'],
	expected_tool_calls: ['expected_tool_calls', 'reference_tool_calls', 'expected_tools'],
	tool_definitions: ['tool_definitions', 'tools', 'available_tools', 'functions'],
	expected_outcome: ['expected_outcome', 'reference_outcome', 'reference_goal'],
};

/**
 * Columns that could be either of two fields: an `output` or `target` is the app's answer in one
 * tool and the reference in another; `documents` or `sources` are what was retrieved in one and
 * what should have been in another. The first field is taken when the row already has the second
 * from another column, the second when it already has the first; when it has neither, `when` says
 * which is taken (the one whose misreading shows rather than hides). The account always says which
 * field was chosen and why; a Column Mapping decides it instead.
 */
export const AMBIGUOUS: Readonly<Record<string, { fields: [Field, Field]; when: Field }>> = {
	output: { fields: ['response', 'expected_response'], when: 'expected_response' },
	target: { fields: ['response', 'expected_response'], when: 'expected_response' },
	completion: { fields: ['response', 'expected_response'], when: 'expected_response' },
	documents: {
		fields: ['retrieved_context', 'expected_retrieved_context'],
		when: 'retrieved_context',
	},
	docs: { fields: ['retrieved_context', 'expected_retrieved_context'], when: 'retrieved_context' },
	sources: {
		fields: ['retrieved_context', 'expected_retrieved_context'],
		when: 'retrieved_context',
	},
	passages: {
		fields: ['retrieved_context', 'expected_retrieved_context'],
		when: 'retrieved_context',
	},
	chunks: {
		fields: ['retrieved_context', 'expected_retrieved_context'],
		when: 'retrieved_context',
	},
	citations: {
		fields: ['retrieved_context', 'expected_retrieved_context'],
		when: 'retrieved_context',
	},
};

/** A proposal by name: the field, and the name's place in that field's precedence list. */
export interface NameMatch {
	field: Field;
	rank: number;
}

const BY_KEY = new Map<string, NameMatch>();
for (const [field, names] of Object.entries(FIELD_NAMES) as [Field, readonly string[]][]) {
	names.forEach((n, rank) => {
		const k = nameKey(n);
		if (!BY_KEY.has(k)) BY_KEY.set(k, { field, rank });
	});
}
const AMBIGUOUS_BY_KEY = new Map(Object.entries(AMBIGUOUS).map(([n, a]) => [nameKey(n), a]));

/**
 * Column names seen, with their compared form: the rows of a file repeat their columns, so each
 * name is normalised once per process rather than once per row (bounded, for files of many names).
 */
const KEYS = new Map<string, string>();
function cachedKey(column: string): string {
	let k = KEYS.get(column);
	if (k === undefined) {
		k = nameKey(column);
		if (KEYS.size > 10000) KEYS.clear();
		KEYS.set(column, k);
	}
	return k;
}

/** The field a column name feeds by the field model, if any (any case, snake, camel or kebab). */
export function fieldByName(column: string): NameMatch | undefined {
	return BY_KEY.get(cachedKey(column));
}

/** The two fields an ambiguous column name could feed, if it is one. */
export function ambiguousByName(column: string): (typeof AMBIGUOUS)[string] | undefined {
	return AMBIGUOUS_BY_KEY.get(cachedKey(column));
}

/**
 * Common column names, proposed for a field no adapter filled, from columns no adapter read (the
 * exact spellings; `fieldByName` also matches other cases and separators).
 */
export const ALIASES: Readonly<Record<string, Field>> = Object.fromEntries(
	(Object.entries(FIELD_NAMES) as [Field, readonly string[]][]).flatMap(([f, names]) =>
		names.map((n) => [n, f]),
	),
);

/**
 * A context list as tools write it: a list, one chunk object, or an object that holds the list
 * under one key (`{"contexts": [...]}`, as JSON text too). Anything else is returned as it is.
 */
export function unwrapList(r: RowReader, value: unknown, path: string): unknown {
	const v = unwrapHolder(r, value, path);
	if (!isObject(v)) return v;
	const known = (list: readonly string[]) => list.some((k) => v[k] !== undefined);
	if (known(ANY_CHUNK.uri) || known(ANY_CHUNK.content)) return [v];
	return v;
}

/**
 * A promptflow / Azure chat history turn pair, `{inputs: {question}, outputs: {answer}}`: the first
 * text under a known name (or the only text) on each side.
 */
const PF_IN = ['question', 'query', 'chat_input', 'input', 'user_input', 'prompt'];
const PF_OUT = ['answer', 'response', 'output', 'chat_output', 'ground_truth', 'reply'];

function firstText(o: Row, names: string[]): string | undefined {
	for (const n of names) if (typeof o[n] === 'string') return o[n] as string;
	const texts = Object.values(o).filter((v): v is string => typeof v === 'string');
	return texts.length === 1 ? texts[0] : undefined;
}

/** Chat history as messages, or as promptflow `{inputs, outputs}` pairs (Azure simulator too). */
export function historyOf(r: RowReader, raw: unknown, path: string): ChatMessage[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || v === null || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of messages, got ${typeName(v)}`);
	if (!v.some((t) => isObject(t) && (isObject(t.inputs) || isObject(t.outputs)))) {
		return messages(r, v, path);
	}
	const out: ChatMessage[] = [];
	let ok = true;
	v.forEach((t, i) => {
		const at = `${path}[${i}]`;
		if (!isObject(t)) {
			ok = false;
			r.fail(at, `expected {inputs, outputs}, got ${typeName(t)}`);
			return;
		}
		const q = isObject(t.inputs) ? firstText(t.inputs, PF_IN) : undefined;
		const a = isObject(t.outputs) ? firstText(t.outputs, PF_OUT) : undefined;
		if (q === undefined && a === undefined) {
			ok = false;
			r.fail(at, 'has no question under inputs and no answer under outputs');
			return;
		}
		if (q !== undefined) out.push({ role: 'user', content: q });
		if (a !== undefined) {
			const turn: ChatMessage = { role: 'assistant', content: a };
			const ctx = isObject(t.outputs) ? t.outputs.context : undefined;
			if (typeof ctx === 'string' && ctx !== '') turn.context = [{ content: ctx }];
			out.push(turn);
		}
	});
	return ok ? out : undefined;
}

/**
 * A list of messages as the request: the last user message is the request and the turns before it
 * the history. A list without a user message (OpenAI evals that put the task in system turns)
 * takes its last non-assistant message as the request.
 */
export function requestFromMessages(r: RowReader, v: unknown[], path: string, d: Draft): boolean {
	const hasUser = v.some((m) => isObject(m) && (m.role === 'user' || m.type === 'human'));
	if (hasUser) {
		if (!conversation(r, v, path, d)) return false;
		d.request_raw = v;
		return true;
	}
	const msgs = messages(r, v, path);
	if (!msgs) return false;
	let u = msgs.length - 1;
	while (u >= 0 && (msgs[u].role === 'assistant' || msgs[u].role === 'tool')) u--;
	if (u < 0) {
		r.fail(path, 'has no user turn');
		return false;
	}
	d.request = msgs[u].content;
	if (u > 0) d.history = msgs.slice(0, u);
	const a = lastIndex(msgs, 'assistant', u);
	if (a >= 0 && msgs[a].content !== '') d.response = msgs[a].content;
	d.request_raw = v;
	return true;
}

/**
 * Retrieved documents that each carry a `relevance_score` are put in rank order by it, highest
 * first (ties keep their order), as Azure's document-retrieval evaluator ranks them; the account
 * says so when that changed the order. Other score keys (`score`, `similarity`) are kept on the
 * chunk but never reorder it: some stores report a distance there, lower being better.
 */
function rankByScore(r: RowReader, list: unknown, items: ExpectedChunk[], path: string): void {
	if (items.length < 2 || !Array.isArray(list) || list.length !== items.length) return;
	if (!list.every((c) => isObject(c) && c.relevance_score !== undefined)) return;
	if (!items.every((c) => c.score !== undefined)) return;
	const sorted = items
		.map((c, i) => [c, i] as const)
		.sort((a, b) => (b[0].score as number) - (a[0].score as number) || a[1] - b[1]);
	if (sorted.every(([, i], at) => i === at)) return;
	sorted.forEach(([c], at) => (items[at] = c));
	r.choose(path, 'ranked by relevance_score, highest first (the list was in another order)');
}

/** Text of a reference answer: strings as given; a number or boolean as its text. */
function referenceText(r: RowReader, v: unknown, path: string): string | undefined {
	if (v === undefined || v === null) return undefined;
	if (typeof v === 'string') return v;
	if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
	if (isObject(v)) {
		const t = firstText(v, PF_OUT);
		return t ?? JSON.stringify(v);
	}
	return r.fail(path, `expected string, got ${typeName(v)}`);
}

/**
 * Reads `value` (found at `path`, the user's name for it) into the canonical `field` of `d`. Used for
 * the Column Mapping of any schema, for nested records (dotted paths) and for proposals by name.
 */
export function readField(
	r: RowReader,
	field: Field,
	value: unknown,
	path: string,
	d: Draft,
): void {
	if (value === undefined || value === null) return;
	switch (field) {
		case 'request_id':
			d.request_id = id(r, value, path);
			return;
		case 'request': {
			const v = structured(r, value, path, true);
			if (Array.isArray(v)) requestFromMessages(r, v, path, d);
			else readRequest(r, v, path, d);
			return;
		}
		case 'history':
			d.history = historyOf(r, value, path);
			return;
		case 'response': {
			const v = structured(r, value, path, true);
			if (Array.isArray(v)) messageResponse(r, v, path, d);
			else readResponse(r, v, path, d);
			return;
		}
		case 'expected_response':
			d.expected_response = referenceText(r, value, path);
			return;
		case 'expected_facts':
			d.expected_facts = textList(
				r,
				typeof value === 'string' && !r.fromCsv ? [value] : value,
				path,
			);
			return;
		case 'guidelines':
			d.guidelines = readGuidelines(r, value, path);
			return;
		case 'retrieved_context':
		case 'expected_retrieved_context': {
			const list = unwrapList(r, value, path);
			if (isBad(list)) return;
			const res = chunks(r, list, path, ANY_CHUNK, 'either');
			if (res && field === 'retrieved_context') rankByScore(r, list, res.items, path);
			const kept = keepIfLossy(r, path, res, asRetrieved);
			if (field === 'retrieved_context') d.retrieved_context = kept;
			else d.expected_retrieved_context = kept;
			return;
		}
		case 'tool_calls':
			d.tool_calls = toolCalls(r, value, path);
			return;
		case 'expected_tool_calls':
			d.expected_tool_calls = toolCalls(r, value, path);
			return;
		case 'tool_definitions':
			d.tool_definitions = toolDefinitions(r, value, path);
			return;
		case 'expected_outcome':
			d.expected_outcome = referenceText(r, value, path);
			return;
		case 'trace':
			d.trace = readTrace(r, value, path);
			return;
		case 'latency_seconds':
			d.latency_seconds = nonNegative(r, value, path, false);
			return;
		case 'total_input_token_count':
		case 'total_output_token_count':
		case 'total_token_count':
			d[field] = nonNegative(r, value, path, true);
			return;
		case 'metadata': {
			const v = structured(r, value, path);
			if (isObject(v)) d.metadata = { ...d.metadata, ...v };
			else if (!isBad(v)) d.metadata = { ...d.metadata, [path]: v };
			return;
		}
	}
}

/** Draft fields a read may touch besides its own, restored when a proposal does not fit. */
const TOUCHED = ['request_raw', 'response_raw', 'history', 'response', 'tool_calls'] as const;

/**
 * Reads `value` into `field` only if it fits: a proposal by name must never turn a loadable row
 * into an invalid one. Returns whether the field was filled; on a misfit nothing changes.
 */
export function tryField(
	r: RowReader,
	field: Field,
	value: unknown,
	path: string,
	d: Draft,
): boolean {
	const m = r.mark();
	const saved: Partial<Draft> = {};
	for (const k of TOUCHED) saved[k] = d[k] as never;
	const before = d[field];
	readField(r, field, value, path, d);
	if (r.issues.length > m.issues || d[field] === undefined || d[field] === before) {
		const first = r.issues[m.issues];
		if (first !== undefined) {
			r.misfits ??= new Map();
			r.misfits.set(path, { path: first.path, message: `not read as ${field}: ${first.message}` });
		}
		r.rollback(m);
		(d as Record<string, unknown>)[field] = before;
		for (const k of TOUCHED) (d as Record<string, unknown>)[k] = saved[k];
		return false;
	}
	return true;
}
