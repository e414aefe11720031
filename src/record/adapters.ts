/**
 * Schema adapters: one row of Azure (seed 000), Databricks (seed 002), Spring AI (seed 003),
 * Ragas or DeepEval shape becomes one canonical record, or a list of issues. Every key the adapter
 * does not map lands in `metadata`; a lossy conversion keeps the original under its own name.
 */
import type { ChatMessage, EvalRecord, ExpectedChunk, RetrievedChunk, SchemaName } from './schema';
import { SCHEMAS } from './schema';
import { traceFigures } from './trace';
import {
	asRetrieved,
	chunks,
	id,
	isBad,
	isObject,
	messages,
	nonNegative,
	RowReader,
	structured,
	text,
	textList,
	typeName,
	type Issue,
	type Row,
} from './values';

/** A record before the loader stamps `source` and, when none was given, the content-hash id. */
export type Draft = Omit<EvalRecord, 'source' | 'request_id' | 'request' | 'metadata'> & {
	request_id?: string;
	request?: string;
	metadata?: Row;
};

/** Source-format names used in "required" messages, so users see their own field names. */
interface Names {
	request: string;
	response: string;
	expectedResponse: string;
	/** Set when the request came from a conversation whose last user turn has no reply. */
	responseHint?: string;
}

const DBX_CHUNK = { uri: ['doc_uri'], content: ['content'] } as const;

function lastIndex(msgs: ChatMessage[], role: string, after = -1): number {
	for (let i = msgs.length - 1; i > after; i--) if (msgs[i].role === role) return i;
	return -1;
}

/** Databricks request: plain string, OpenAI `{messages}`, `{query, history}`, or any object. */
function readRequest(r: RowReader, raw: unknown, path: string, d: Draft): void {
	const v = structured(r, raw, path, true);
	if (v === undefined) return;
	if (typeof v === 'string') {
		d.request = v;
		return;
	}
	if (!isObject(v)) {
		r.fail(path, `expected string or object, got ${typeName(v)}`);
		return;
	}
	d.request_raw = v;
	if (Array.isArray(v.messages)) {
		const msgs = messages(r, v.messages, `${path}.messages`);
		if (!msgs) return;
		const u = lastIndex(msgs, 'user');
		if (u < 0) {
			r.fail(`${path}.messages`, 'has no user message');
			return;
		}
		d.request = msgs[u].content;
		if (u > 0) d.history = msgs.slice(0, u);
		return;
	}
	if (typeof v.query === 'string') {
		d.request = v.query;
		if (v.history !== undefined && v.history !== null) {
			d.history = messages(r, v.history, `${path}.history`);
		}
		return;
	}
	// Arbitrary agent input (seed 002): judges still get text, the original stays in request_raw.
	d.request = JSON.stringify(v);
}

/** Databricks response: plain string, OpenAI `{choices}`, a chat `{messages}`, or any object. */
function readResponse(r: RowReader, raw: unknown, path: string, d: Draft): void {
	const v = structured(r, raw, path, true);
	if (v === undefined) return;
	if (typeof v === 'string') {
		d.response = v;
		return;
	}
	if (!isObject(v)) {
		r.fail(path, `expected string or object, got ${typeName(v)}`);
		return;
	}
	d.response_raw = v;
	const choice = Array.isArray(v.choices) ? (v.choices[0] as unknown) : undefined;
	if (isObject(choice) && isObject(choice.message) && typeof choice.message.content === 'string') {
		d.response = choice.message.content;
		return;
	}
	if (Array.isArray(v.messages)) {
		const last = [...v.messages]
			.reverse()
			.find(
				(m): m is Row => isObject(m) && m.role === 'assistant' && typeof m.content === 'string',
			);
		if (last) {
			d.response = last.content as string;
			return;
		}
	}
	d.response = JSON.stringify(v);
}

/** Keeps a lossily converted original in metadata under its own name. */
function keepIfLossy<T>(
	r: RowReader,
	key: string,
	res: { items: ExpectedChunk[]; lossy: boolean } | undefined,
	pick: (items: ExpectedChunk[]) => T,
): T | undefined {
	if (!res) return undefined;
	if (res.lossy) r.release(key);
	return pick(res.items);
}

/** Ids of Ragas contexts may be strings or integers. */
function idList(r: RowReader, raw: unknown, path: string): string[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of ids, got ${typeName(v)}`);
	const out: string[] = [];
	v.forEach((x, i) => {
		const s = id(r, x, `${path}[${i}]`);
		if (s !== undefined) out.push(s);
	});
	return out.length === v.length ? out : undefined;
}

/** Pairs Ragas context texts with their ids; a length mismatch cannot be paired safely. */
function zipIds(
	r: RowReader,
	texts: string[] | undefined,
	ids: string[] | undefined,
	idsKey: string,
	textsKey: string,
): ExpectedChunk[] | undefined {
	if (texts && ids && ids.length !== texts.length) {
		return r.fail(idsKey, `has ${ids.length} ids for ${texts.length} ${textsKey}`);
	}
	if (texts) return texts.map((c, i) => (ids ? { doc_uri: ids[i], content: c } : { content: c }));
	if (ids) return ids.map((u) => ({ doc_uri: u }));
	return undefined;
}

/**
 * A chat transcript: the last user turn is the request, the last assistant turn after it the
 * response. `contextOf` reads what that assistant turn cites (Azure citations, DeepEval turns).
 */
function conversation(
	r: RowReader,
	raw: unknown,
	path: string,
	d: Draft,
	fullHistory: boolean,
	contextOf?: (turn: Row, at: string) => RetrievedChunk[] | undefined,
): Names | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	const msgs = messages(r, v, path);
	if (!msgs || !Array.isArray(v)) return undefined;
	const u = lastIndex(msgs, 'user');
	if (u < 0) {
		r.fail(path, 'has no user turn');
		return undefined;
	}
	d.request = msgs[u].content;
	d.request_raw = { [path]: v };
	// History is the turns before the judged exchange: the judged reply must not appear in it (the
	// whole transcript, with Azure's per-turn citations, stays in request_raw).
	void fullHistory;
	const history = msgs.slice(0, u);
	if (history.length > 0) d.history = history;
	const a = lastIndex(msgs, 'assistant', u);
	if (a >= 0) {
		d.response = msgs[a].content;
		const turn = v[a] as unknown;
		if (contextOf && isObject(turn)) d.retrieved_context = contextOf(turn, `${path}[${a}]`);
	}
	return {
		request: path,
		response: path,
		expectedResponse: 'expected_response',
		responseHint: 'needs an assistant turn after the last user turn (or a trace)',
	};
}

/** Azure conversation citations: `context.citations[{id, title, content}]`, or a plain string. */
function azureCitations(r: RowReader, turn: Row, at: string): RetrievedChunk[] | undefined {
	const c = turn.context;
	if (c === undefined || c === null) return undefined;
	if (typeof c === 'string') return c === '' ? undefined : [{ content: c }];
	if (!isObject(c)) return r.fail(`${at}.context`, `expected object or string, got ${typeName(c)}`);
	if (c.citations === undefined || c.citations === null) return undefined;
	const res = chunks(
		r,
		c.citations,
		`${at}.context.citations`,
		{ uri: ['id'], content: ['content'] },
		'content',
	);
	// Titles are not part of the canonical chunk; the whole transcript stays in request_raw.
	return res ? asRetrieved(res.items) : undefined;
}

function azure(r: RowReader, d: Draft): Names {
	let names: Names = { request: 'query', response: 'response', expectedResponse: 'ground_truth' };
	if (r.has('messages')) {
		names =
			conversation(r, r.take('messages'), 'messages', d, true, (t, at) =>
				azureCitations(r, t, at),
			) ?? names;
		names.expectedResponse = 'ground_truth';
	} else {
		d.request = text(r, r.take('query'), 'query');
		readResponse(r, r.take('response'), 'response', d);
		const ctx = r.take('context');
		if (ctx !== '') {
			const res = chunks(
				r,
				ctx,
				'context',
				{ uri: ['id', 'doc_uri'], content: ['content'] },
				'content',
			);
			d.retrieved_context = keepIfLossy(r, 'context', res, asRetrieved);
		}
	}
	d.expected_response = text(r, r.take('ground_truth'), 'ground_truth');
	return names;
}

function databricks(r: RowReader, d: Draft): Names {
	readRequest(r, r.take('request'), 'request', d);
	readResponse(r, r.take('response'), 'response', d);
	d.expected_response = text(r, r.take('expected_response'), 'expected_response');
	const history = r.take('history');
	if (history !== undefined) {
		if (d.history) r.fail('history', 'given both here and inside request');
		else d.history = messages(r, history, 'history');
	}
	// Seed 002: doc_uri required, content optional; content-only chunks are accepted as before.
	const ret = chunks(r, r.take('retrieved_context'), 'retrieved_context', DBX_CHUNK, 'either');
	d.retrieved_context = keepIfLossy(r, 'retrieved_context', ret, (x) => x);
	const exp = chunks(
		r,
		r.take('expected_retrieved_context'),
		'expected_retrieved_context',
		DBX_CHUNK,
		'doc_uri',
	);
	d.expected_retrieved_context = keepIfLossy(r, 'expected_retrieved_context', exp, (x) => x);
	return { request: 'request', response: 'response', expectedResponse: 'expected_response' };
}

function springAi(r: RowReader, d: Draft): Names {
	d.request = text(r, r.take('userText'), 'userText');
	// Spring AI Documents carry `text` (1.0) or `content` (earlier), an `id` and metadata.
	const res = chunks(
		r,
		r.take('dataList'),
		'dataList',
		{ uri: ['id'], content: ['text', 'content'] },
		'content',
	);
	d.retrieved_context = keepIfLossy(r, 'dataList', res, asRetrieved);
	d.response = text(r, r.take('responseContent'), 'responseContent');
	return {
		request: 'userText',
		response: 'responseContent',
		expectedResponse: 'expected_response',
	};
}

/** The first present key among a current name and its legacy alias (Ragas 0.1 names). */
function pick(r: RowReader, keys: string[]): [string, unknown] {
	const k = keys.find((x) => r.has(x)) ?? keys[0];
	return [k, r.take(k)];
}

function ragas(r: RowReader, d: Draft): Names {
	let names: Names = { request: 'user_input', response: 'response', expectedResponse: 'reference' };
	const [inKey, input] = pick(r, ['user_input', 'question']);
	const inputV = structured(r, input, inKey, true);
	if (Array.isArray(inputV)) {
		// A Ragas MultiTurnSample: user_input is the transcript itself.
		names = conversation(r, inputV, inKey, d, false) ?? names;
		names.expectedResponse = 'reference';
	} else {
		d.request = text(r, inputV, inKey);
		names.request = inKey;
	}
	const [outKey, output] = pick(r, ['response', 'answer']);
	const out = text(r, output, outKey);
	// An explicit response column wins over the transcript's last assistant turn.
	if (out !== undefined) d.response = out;
	if (!Array.isArray(inputV)) names.response = outKey;

	const [ctxKey, ctx] = pick(r, ['retrieved_contexts', 'contexts']);
	const texts = textList(r, ctx, ctxKey);
	const ids = r.has('retrieved_context_ids')
		? idList(r, r.take('retrieved_context_ids'), 'retrieved_context_ids')
		: undefined;
	const retrieved =
		ids && !texts ? undefined : zipIds(r, texts, ids, 'retrieved_context_ids', ctxKey);
	// Id-only retrieval has no text for judges; the ids stay in metadata for id-based metrics.
	if (ids && !texts) r.release('retrieved_context_ids');
	d.retrieved_context = retrieved ? asRetrieved(retrieved) : undefined;

	const [refKey, ref] = pick(r, ['reference', 'ground_truth']);
	d.expected_response = text(r, ref, refKey);
	names.expectedResponse = refKey;
	const refTexts = textList(r, r.take('reference_contexts'), 'reference_contexts');
	const refIds = idList(r, r.take('reference_context_ids'), 'reference_context_ids');
	d.expected_retrieved_context = zipIds(
		r,
		refTexts,
		refIds,
		'reference_context_ids',
		'reference_contexts',
	);
	return names;
}

function deepeval(r: RowReader, d: Draft): Names {
	let names: Names = {
		request: 'input',
		response: 'actual_output',
		expectedResponse: 'expected_output',
	};
	if (r.has('turns') && !r.has('input')) {
		// A ConversationalTestCase: each assistant turn may carry its own retrieval_context.
		names =
			conversation(r, r.take('turns'), 'turns', d, false, (t, at) => {
				const list = textList(r, t.retrieval_context, `${at}.retrieval_context`);
				return list?.map((content) => ({ content }));
			}) ?? names;
		names.expectedResponse = 'expected_output';
	} else {
		d.request = text(r, r.take('input'), 'input');
		const out = text(r, r.take('actual_output'), 'actual_output');
		if (out !== undefined) d.response = out;
		d.retrieved_context = textList(r, r.take('retrieval_context'), 'retrieval_context')?.map(
			(content) => ({
				content,
			}),
		);
	}
	d.expected_response = text(r, r.take('expected_output'), 'expected_output');
	// DeepEval `context` is ideal (ground-truth) context without document ids.
	d.expected_retrieved_context = textList(r, r.take('context'), 'context')?.map((content) => ({
		content,
	}));
	return names;
}

const ADAPTERS: Record<SchemaName, (r: RowReader, d: Draft) => Names> = {
	databricks,
	azure,
	'spring-ai': springAi,
	ragas,
	deepeval,
};

function readGuidelines(r: RowReader, raw: unknown): Draft['guidelines'] {
	const v = structured(r, raw, 'guidelines');
	if (v === undefined || isBad(v)) return undefined;
	if (Array.isArray(v)) return textList(r, v, 'guidelines');
	if (!isObject(v))
		return r.fail('guidelines', `expected array or named map of arrays, got ${typeName(v)}`);
	const out: Record<string, string[]> = {};
	let ok = true;
	for (const [name, list] of Object.entries(v)) {
		const l = textList(r, list, `guidelines.${name}`);
		if (l === undefined) {
			ok = false;
			if (!Array.isArray(list)) continue;
		} else out[name] = l;
	}
	return ok ? out : undefined;
}

function readTrace(r: RowReader, raw: unknown): unknown {
	if (raw === undefined) return undefined;
	if (typeof raw === 'string') {
		try {
			raw = JSON.parse(raw) as unknown;
		} catch (e) {
			return r.fail('trace', `not valid MLflow trace JSON (${(e as Error).message})`);
		}
	}
	if (!isObject(raw)) return r.fail('trace', `expected MLflow trace object, got ${typeName(raw)}`);
	return raw;
}

const FIGURES = [
	'latency_seconds',
	'input_token_count',
	'output_token_count',
	'total_token_count',
] as const;

/** Fields every schema accepts under their canonical names (ids, facts, guidelines, trace). */
function common(r: RowReader, d: Draft): void {
	d.request_id = id(r, r.take('request_id'), 'request_id');
	d.expected_facts = textList(r, r.take('expected_facts'), 'expected_facts');
	d.guidelines = readGuidelines(r, r.take('guidelines'));
	d.trace = readTrace(r, r.take('trace'));
	for (const k of FIGURES) {
		const v = nonNegative(r, r.take(k), k, k !== 'latency_seconds');
		if (v !== undefined) d[k] = v;
	}
	const meta = structured(r, r.take('metadata'), 'metadata');
	if (isObject(meta)) d.metadata = meta;
	else if (meta !== undefined) r.release('metadata');
}

/** Whether a draft has every field a record needs; records the issues otherwise. */
function check(r: RowReader, d: Draft, names: Names): void {
	if (d.trace !== undefined) {
		const fig = traceFigures(d.trace);
		// A column given explicitly is what the user measured; the trace only fills gaps.
		for (const k of FIGURES) if (d[k] === undefined && fig[k] !== undefined) d[k] = fig[k];
		if (d.response === undefined && fig.response !== undefined && !r.failed.has(names.response)) {
			readResponse(r, fig.response, 'trace.data.response', d);
		}
	}
	if (d.request === undefined && !r.failed.has(names.request)) r.fail(names.request, 'required');
	if (d.response === undefined && d.trace === undefined && !r.failed.has(names.response)) {
		r.fail(names.response, names.responseHint ?? 'required (give a response or an MLflow trace)');
	}
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
	azure: { query: 3, messages: 3, ground_truth: 1, context: 1, response: 1 },
	ragas: {
		user_input: 3,
		retrieved_contexts: 3,
		reference: 2,
		reference_contexts: 3,
		retrieved_context_ids: 3,
		reference_context_ids: 3,
		question: 2,
		answer: 2,
		contexts: 2,
		ground_truth: 1,
		response: 1,
	},
	deepeval: {
		input: 3,
		actual_output: 3,
		expected_output: 3,
		retrieval_context: 3,
		turns: 2,
		context: 1,
	},
	'spring-ai': { userText: 3, dataList: 3, responseContent: 3 },
};

/** How many rows `detectSchema` looks at: enough to see optional columns, cheap on big files. */
const DETECT_SAMPLE = 1000;

/**
 * Picks the schema whose field names the rows use most (first 1000 rows). Ties go to the earlier
 * of databricks, azure, ragas, deepeval, spring-ai; rows with no known names are read as Databricks.
 */
export function detectSchema(rows: readonly unknown[]): SchemaName {
	const score: Record<SchemaName, number> = {
		databricks: 0,
		azure: 0,
		ragas: 0,
		deepeval: 0,
		'spring-ai': 0,
	};
	for (const row of rows.slice(0, DETECT_SAMPLE)) {
		if (!isObject(row)) continue;
		for (const s of SCHEMAS) {
			for (const [k, w] of Object.entries(MARKERS[s])) {
				if (row[k] !== undefined && row[k] !== null) score[s] += w;
			}
		}
	}
	let best: SchemaName = 'databricks';
	for (const s of SCHEMAS) if (score[s] > score[best]) best = s;
	return best;
}

/** Result of reading one row: a draft plus its metadata, or the issues that stop it. */
export type DraftResult = { ok: true; draft: Draft } | { ok: false; issues: Issue[] };

/** Renames the user's columns onto the names the schema adapter reads. */
export function applyMapping(
	row: Row,
	mapping: Record<string, string> | undefined,
): { row: Row; renamed: Map<string, string>; issues: Issue[] } {
	const renamed = new Map<string, string>();
	const issues: Issue[] = [];
	if (!mapping) return { row, renamed, issues };
	const entries = Object.entries(mapping).filter(([from, to]) => from !== to && from in row);
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

/** Reads one (already mapped) row in a given schema into a draft record, collecting all issues. */
export function readRow(
	row: Row,
	schema: SchemaName,
	fromCsv: boolean,
	renamed: Map<string, string>,
): DraftResult {
	const r = new RowReader(row, fromCsv, renamed);
	const d: Draft = {};
	const names = ADAPTERS[schema](r, d);
	common(r, d);
	check(r, d, names);
	if (r.issues.length > 0) return { ok: false, issues: r.issues };
	const left = r.leftovers();
	if (d.metadata) {
		for (const k of Object.keys(left)) {
			if (k in d.metadata) r.fail(`metadata.${k}`, `also given as a top-level field ${k}`);
		}
		if (r.issues.length > 0) return { ok: false, issues: r.issues };
		d.metadata = { ...d.metadata, ...left };
	} else d.metadata = left;
	return { ok: true, draft: d };
}
