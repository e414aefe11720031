/**
 * Schema adapters: one row of Azure (seed 000), Databricks (seed 002), Spring AI (seed 003),
 * Ragas or DeepEval shape becomes one canonical record, or a list of issues. Every key the adapter
 * does not map lands in `metadata`; a lossy conversion keeps the original under its own name.
 */
import type {
	ChatMessage,
	EvalRecord,
	ExpectedChunk,
	RetrievedChunk,
	SchemaName,
	ToolCall,
	ToolDefinition,
} from './schema';
import { SCHEMAS } from './schema';
import { parseTrace, TraceError, type ParsedTrace } from './trace';
import {
	asRetrieved,
	chunks,
	deeperThan,
	id,
	isBad,
	isObject,
	messages,
	nonNegative,
	parseNested,
	RowReader,
	splitCell,
	structured,
	text,
	textList,
	TOO_DEEP,
	typeName,
	type Issue,
	type Row,
	type TurnContext,
} from './values';

/** A record before the loader stamps `source` and, when none was given, the content-hash id. */
export type Draft = Omit<EvalRecord, 'source' | 'request_id' | 'request' | 'metadata'> & {
	request_id?: string;
	request?: string;
	metadata?: Row;
};

/** Source-format names used in messages, so users see their own field names. */
interface Names {
	request: string;
	response: string;
	expectedResponse: string;
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
	const v = structured(r, splitCell(r, raw), path);
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
 * Pairs tool calls with the tool turns that answer them (by call id). `raw` is the source list the
 * messages were read from, index for index, so a structured `tool_result` keeps its structure.
 */
function pairToolCalls(msgs: ChatMessage[], raw: unknown[]): ToolCall[] | undefined {
	const calls: ToolCall[] = [];
	const byId = new Map<string, ToolCall>();
	msgs.forEach((m, i) => {
		for (const c of m.tool_calls ?? []) {
			const call = { ...c };
			calls.push(call);
			if (call.id !== undefined) byId.set(call.id, call);
		}
		if (m.role !== 'tool' || m.tool_call_id === undefined) return;
		const call = byId.get(m.tool_call_id);
		if (call === undefined || call.result !== undefined) return;
		const src = raw[i] as Row;
		const parts = Array.isArray(src.content) ? src.content : [];
		const results = parts.filter((p): p is Row => isObject(p) && p.type === 'tool_result');
		call.result = results.length === 1 ? results[0].tool_result : m.content;
	});
	return calls.length > 0 ? calls : undefined;
}

/** Index of the last assistant turn after `after` that says something (not only tool calls). */
function lastReply(msgs: ChatMessage[], after: number): number {
	for (let i = msgs.length - 1; i > after; i--) {
		if (msgs[i].role === 'assistant' && msgs[i].content !== '') return i;
	}
	return -1;
}

/**
 * A chat transcript: the last user turn is the request, the turns before it the history, the last
 * assistant text after it the response (absent in a golden conversation that ends on the user), and
 * the tool calls after it the record's `tool_calls`. The reply's cited context is its
 * `retrieved_context`; earlier turns keep theirs on the turn.
 */
function conversation(
	r: RowReader,
	v: unknown,
	path: string,
	d: Draft,
	contextOf?: TurnContext,
): boolean {
	const msgs = messages(r, v, path, contextOf);
	if (!msgs || !Array.isArray(v)) return false;
	const u = lastIndex(msgs, 'user');
	if (u < 0) {
		r.fail(path, 'has no user turn');
		return false;
	}
	d.request = msgs[u].content;
	if (u > 0) d.history = msgs.slice(0, u);
	const a = lastReply(msgs, u);
	if (a >= 0) {
		d.response = msgs[a].content;
		if (msgs[a].context) d.retrieved_context = msgs[a].context;
	}
	d.tool_calls = pairToolCalls(msgs.slice(u + 1), v.slice(u + 1) as unknown[]);
	return true;
}

/** A response given as a list of messages (Azure agent data): final text, tool calls kept. */
function messageResponse(r: RowReader, v: unknown[], path: string, d: Draft): void {
	const msgs = messages(r, v, path);
	if (!msgs) return;
	d.response_raw = v;
	const a = lastReply(msgs, -1);
	if (a >= 0) d.response = msgs[a].content;
	const calls = pairToolCalls(msgs, v);
	if (calls) d.tool_calls = [...(d.tool_calls ?? []), ...calls];
}

/** Azure per-turn context: `context.citations[{id, title, content}]`, or a plain string. */
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

/** Azure conversation rows: `{"conversation": {"messages": [...], "context": ...}}` (SDK files). */
function azureConversation(r: RowReader, d: Draft): void {
	const v = structured(r, r.take('conversation'), 'conversation');
	if (v === undefined || isBad(v)) return;
	if (!isObject(v)) {
		r.fail('conversation', `expected an object with messages, got ${typeName(v)}`);
		return;
	}
	if (v.messages === undefined || v.messages === null) {
		r.fail('conversation.messages', 'required');
		return;
	}
	const ok = conversation(r, v.messages, 'conversation.messages', d, (t, at) =>
		azureCitations(r, t, at),
	);
	if (!ok) return;
	d.request_raw = { conversation: v };
	// The conversation's own keys besides its messages (a conversation-level `context`) are
	// metadata; an empty string says nothing and is left out.
	const meta: Row = {};
	for (const [k, x] of Object.entries(v)) {
		if (k !== 'messages' && x !== undefined && x !== null && x !== '') meta[k] = x;
	}
	if (Object.keys(meta).length > 0) d.metadata = meta;
}

function azure(r: RowReader, d: Draft): Names {
	const names: Names = { request: 'query', response: 'response', expectedResponse: 'ground_truth' };
	if (r.has('conversation')) {
		azureConversation(r, d);
		names.request = names.response = 'conversation';
	} else if (r.has('messages')) {
		const v = structured(r, r.take('messages'), 'messages');
		if (v !== undefined && !isBad(v)) {
			if (conversation(r, v, 'messages', d, (t, at) => azureCitations(r, t, at))) {
				d.request_raw = { messages: v };
			}
		}
		names.request = names.response = 'messages';
	} else {
		const q = structured(r, r.take('query'), 'query', true);
		if (Array.isArray(q)) {
			// Agent data: the query is the conversation so far (system, user, tool turns).
			if (conversation(r, q, 'query', d)) d.request_raw = { query: q };
		} else d.request = text(r, q, 'query');
		const resp = structured(r, r.take('response'), 'response', true);
		if (Array.isArray(resp)) messageResponse(r, resp, 'response', d);
		else readResponse(r, resp, 'response', d);
		const ctx = r.take('context');
		if (ctx !== '') {
			const res = chunks(
				r,
				ctx,
				'context',
				{ uri: ['id', 'doc_uri'], content: ['content'] },
				'content',
				false,
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
	// Seed 002: `doc_uri` names the chunk's document and `content` is optional. A text-only chunk
	// still loads (judges can read it); see docs/decisions.md.
	const ret = chunks(r, r.take('retrieved_context'), 'retrieved_context', DBX_CHUNK, 'either');
	d.retrieved_context = keepIfLossy(r, 'retrieved_context', ret, asRetrieved);
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
	const names: Names = {
		request: 'user_input',
		response: 'response',
		expectedResponse: 'reference',
	};
	const [inKey, input] = pick(r, ['user_input', 'question']);
	const inputV = structured(r, input, inKey, true);
	if (Array.isArray(inputV)) {
		// A Ragas MultiTurnSample: user_input is the transcript itself.
		if (conversation(r, inputV, inKey, d)) d.request_raw = { [inKey]: inputV };
		names.request = names.response = inKey;
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

/**
 * Tool calls as DeepEval writes them (`{name, input_parameters | inputParameters | input, output}`)
 * or in canonical form (`{id, name, arguments, result}`); JSON text in a CSV cell is parsed.
 */
function toolCalls(r: RowReader, raw: unknown, path: string): ToolCall[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of tool calls, got ${typeName(v)}`);
	const out: ToolCall[] = [];
	let ok = true;
	v.forEach((c, i) => {
		const at = `${path}[${i}]`;
		if (!isObject(c) || typeof c.name !== 'string') {
			ok = false;
			if (!isObject(c)) r.fail(at, `expected a tool call object, got ${typeName(c)}`);
			else r.fail(`${at}.name`, `expected string, got ${typeName(c.name)}`);
			return;
		}
		const call: ToolCall = typeof c.id === 'string' ? { id: c.id, name: c.name } : { name: c.name };
		const args = c.arguments ?? c.input_parameters ?? c.inputParameters ?? c.input;
		if (args !== undefined && args !== null) call.arguments = args;
		const result = c.result ?? c.output;
		if (result !== undefined && result !== null) call.result = result;
		out.push(call);
	});
	return ok ? out : undefined;
}

/** Tool definitions (Azure agent data): objects with a string `name`, kept as given. */
function toolDefinitions(r: RowReader, raw: unknown): ToolDefinition[] | undefined {
	const path = 'tool_definitions';
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	const list = isObject(v) ? [v] : v;
	if (!Array.isArray(list)) {
		return r.fail(path, `expected array of tool definitions, got ${typeName(v)}`);
	}
	let ok = true;
	list.forEach((t, i) => {
		if (isObject(t) && typeof t.name === 'string') return;
		ok = false;
		if (!isObject(t)) r.fail(`${path}[${i}]`, `expected a tool definition, got ${typeName(t)}`);
		else r.fail(`${path}[${i}].name`, `expected string, got ${typeName(t.name)}`);
	});
	return ok ? (list as ToolDefinition[]) : undefined;
}

function deepeval(r: RowReader, d: Draft): Names {
	const names: Names = {
		request: 'input',
		response: 'actual_output',
		expectedResponse: 'expected_output',
	};
	if (r.has('turns') && !r.has('input')) {
		// A ConversationalTestCase or ConversationalGolden: each assistant turn may carry its own
		// retrieval_context; a golden ends on the user's turn and has no response yet.
		const v = structured(r, r.take('turns'), 'turns');
		const ok =
			v !== undefined &&
			!isBad(v) &&
			conversation(r, v, 'turns', d, (t, at) => {
				const list = textList(r, t.retrieval_context, `${at}.retrieval_context`);
				return list?.map((content) => ({ content }));
			});
		if (ok) d.request_raw = { turns: v };
		names.request = names.response = 'turns';
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
	const called = toolCalls(r, r.take('tools_called'), 'tools_called');
	if (called) d.tool_calls = called;
	d.expected_tool_calls = toolCalls(r, r.take('expected_tools'), 'expected_tools');
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
			raw = parseNested(r, raw, 'trace');
		} catch (e) {
			return r.fail('trace', `not valid MLflow trace JSON (${(e as Error).message})`);
		}
		if (isBad(raw)) return undefined;
	}
	if (!isObject(raw)) return r.fail('trace', `expected MLflow trace object, got ${typeName(raw)}`);
	return raw;
}

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

/** Fields every schema accepts under their canonical names (ids, facts, guidelines, trace). */
function common(r: RowReader, d: Draft): void {
	d.request_id = id(r, r.take('request_id'), 'request_id');
	d.expected_facts = textList(r, r.take('expected_facts'), 'expected_facts');
	d.guidelines = readGuidelines(r, r.take('guidelines'));
	d.trace = readTrace(r, r.take('trace'));
	if (r.has('tool_calls')) d.tool_calls = toolCalls(r, r.take('tool_calls'), 'tool_calls');
	if (r.has('expected_tool_calls')) {
		d.expected_tool_calls = toolCalls(r, r.take('expected_tool_calls'), 'expected_tool_calls');
	}
	d.tool_definitions = toolDefinitions(r, r.take('tool_definitions'));
	for (const k of FIGURES) {
		const alias = FIGURE_ALIASES[k];
		const key = alias !== undefined && !r.has(k) && r.has(alias) ? alias : k;
		const v = nonNegative(r, r.take(key), key, k !== 'latency_seconds');
		if (v !== undefined) d[k] = v;
	}
	const meta = structured(r, r.take('metadata'), 'metadata');
	if (isObject(meta)) d.metadata = meta;
	else if (meta !== undefined) r.release('metadata');
}

/** A trace's response or request as the record's text, for comparing with a given one. */
function asText(raw: unknown, read: typeof readResponse): string | undefined {
	const scratch: Draft = {};
	read(new RowReader({}, false, new Map()), raw, 'trace', scratch);
	return read === readResponse ? scratch.response : scratch.request;
}

/**
 * Fills the fields a row leaves out from its trace (`parseTrace`): figures, response, request,
 * retrieved context. Given fields are what the user measured and are never overwritten; where the
 * trace disagrees, or has something to say (no LLM spans), `metadata.trace_notes` says so.
 */
function fillFromTrace(r: RowReader, d: Draft, names: Names): void {
	try {
		fillFrom(r, d, names, parseTrace(d.trace));
	} catch (e) {
		if (e instanceof TraceError) r.fail('trace', e.message);
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
			else readResponse(r, t.response, 'trace.response', d);
		} else if (asText(t.response, readResponse) !== d.response)
			notes.push("response: differs from the trace's final output; kept the row's");
	}
	if (t.request !== undefined && !r.failed.has(names.request)) {
		if (d.request === undefined) {
			if (deeperThan(t.request)) r.fail('trace.request', TOO_DEEP);
			else readRequest(r, t.request, 'trace.request', d);
		} else if (asText(t.request, readRequest) !== d.request)
			notes.push("request: differs from the trace's input; kept the row's");
	}
	if (t.retrieved_context !== undefined && !r.failed.has('retrieved_context')) {
		if (d.retrieved_context === undefined) d.retrieved_context = t.retrieved_context;
		else if (JSON.stringify(d.retrieved_context) !== JSON.stringify(t.retrieved_context))
			notes.push("retrieved_context: differs from the trace's last retriever span; kept the row's");
	}
	if (notes.length > 0) {
		// A copy: the user's metadata object is their input and stays untouched.
		if (d.metadata?.trace_notes === undefined) d.metadata = { ...d.metadata, trace_notes: notes };
	}
}

/** Whether a draft has what a record needs; records the issues otherwise. */
function check(r: RowReader, d: Draft, names: Names): void {
	if (d.trace !== undefined && !r.failed.has('trace')) fillFromTrace(r, d, names);
	// A golden set has no responses and Azure's NLP data no query; a row with neither says nothing.
	const reported = r.failed.has(names.request) || r.failed.has(names.response);
	if (d.request === undefined && d.response === undefined && d.trace === undefined && !reported) {
		r.fail(
			names.request,
			names.request === names.response
				? 'has no user turn and no reply'
				: `required (give ${names.request} or ${names.response}, or both)`,
		);
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
	azure: {
		query: 3,
		messages: 3,
		conversation: 3,
		tool_definitions: 2,
		ground_truth: 1,
		context: 1,
		response: 1,
	},
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
	listDelimiter?: string,
): DraftResult {
	const r = new RowReader(row, fromCsv, renamed, listDelimiter);
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
