/**
 * Readers shared by the schema adapters and the field mapping: the shapes a request, a response,
 * a transcript, tool calls and guidelines take across Databricks, Azure, Ragas, DeepEval, OpenAI
 * evals and the nested (MLflow, LangSmith, Phoenix) records. Each reads into a `Draft` or records
 * an issue on the `RowReader`.
 */
import type {
	ChatMessage,
	EvalRecord,
	ExpectedChunk,
	RetrievedChunk,
	ToolCall,
	ToolDefinition,
} from './schema';
import { finishCalls, readCall, readDefinition } from './toolcalls';
import {
	asRetrieved,
	chunks,
	id,
	isBad,
	parseNested,
	isObject,
	messages,
	RowReader,
	splitCell,
	structured,
	textList,
	typeName,
	type Row,
	type TurnContext,
} from './values';

/** A record before the loader stamps `source` and, when none was given, the content-hash id. */
export type Draft = Omit<EvalRecord, 'source' | 'request_id' | 'request' | 'metadata'> & {
	request_id?: string;
	request?: string;
	metadata?: Row;
};

/**
 * A schema: which canonical fields each of its columns feeds (for the account, and so a field
 * mapped by the user hides the schema's own column for it), and how it reads a row.
 */
export interface Adapter {
	columns: Readonly<Record<string, readonly string[]>>;
	read: (r: RowReader, d: Draft) => Names;
}

/** Source-format names used in messages, so users see their own field names. */
export interface Names {
	request: string;
	response: string;
	expectedResponse: string;
}

export const DBX_CHUNK = { uri: ['doc_uri'], content: ['content'] } as const;

export function lastIndex(msgs: ChatMessage[], role: string, after = -1): number {
	for (let i = msgs.length - 1; i > after; i--) if (msgs[i].role === role) return i;
	return -1;
}

/** Databricks request: plain string, OpenAI `{messages}`, `{query, history}`, or any object. */
export function readRequest(r: RowReader, raw: unknown, path: string, d: Draft): void {
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
	// `{prompt}` (Vercel AI SDK `ai.prompt`, Langfuse trace input): the prompt is the request.
	if (
		typeof v.prompt === 'string' &&
		Object.keys(v).every((k) => k === 'prompt' || k === 'system')
	) {
		d.request = v.prompt;
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
export function readResponse(r: RowReader, raw: unknown, path: string, d: Draft): void {
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
	// An n8n AI Agent's output with its intermediate steps returned: the answer and the calls.
	if (typeof v.output === 'string' && Array.isArray(v.intermediateSteps)) {
		d.response = v.output;
		if (d.tool_calls === undefined && v.intermediateSteps.length > 0) {
			try {
				d.tool_calls = finishCalls(
					v.intermediateSteps.map((s, i) => readCall(s, `${path}.intermediateSteps[${i}]`)),
				);
			} catch (e) {
				r.fail(`${path}.intermediateSteps`, (e as Error).message);
			}
		}
		return;
	}
	const choice = Array.isArray(v.choices) ? (v.choices[0] as unknown) : undefined;
	if (isObject(choice) && isObject(choice.message) && typeof choice.message.content === 'string') {
		d.response = choice.message.content;
		return;
	}
	if (Array.isArray(v.messages)) {
		// A chat, or a graph agent's final state: the answer is the last AI message's text.
		for (let i = v.messages.length - 1; i >= 0; i--) {
			const t = aiText(v.messages[i]);
			if (t !== undefined) {
				d.response = t;
				return;
			}
		}
	}
	d.response = JSON.stringify(v);
}

/** Keys an application's output object holds its answer under, in the order they are tried. */
const ANSWER_KEYS = ['output', 'answer', 'final_answer', 'response', 'output_text', 'result'];

/**
 * The answer in a trace's final output object: `{output: "..."}` (LangChain agents, LangSmith
 * runs), `{answer: "...", sources}`, under a common key. A dataset's own response column is not
 * read this way: seed 002 gives judges an arbitrary dict response as its JSON.
 */
export function answerOf(v: unknown): string | undefined {
	if (!isObject(v)) return undefined;
	for (const k of ANSWER_KEYS) if (typeof v[k] === 'string') return v[k] as string;
	return undefined;
}

/**
 * The text of an AI message with something to say: `{role: 'assistant'}`, LangChain's `{type:
 * 'ai'}` and its serialised `{lc, type: 'constructor', id: [..., 'AIMessage'], kwargs}`, content
 * as text or text parts. Undefined for any other message, and for one that only calls tools.
 */
function aiText(m: unknown): string | undefined {
	if (!isObject(m)) return undefined;
	let msg: Row = m;
	if (m.type === 'constructor' && Array.isArray(m.id) && isObject(m.kwargs)) {
		const cls = m.id[m.id.length - 1];
		if (typeof cls !== 'string' || !/^AIMessage(Chunk)?$/.test(cls)) return undefined;
		msg = { ...m.kwargs, type: 'ai' };
	}
	if (msg.role !== 'assistant' && msg.role !== 'ai' && msg.type !== 'ai') return undefined;
	const c = msg.content;
	if (typeof c === 'string') return c !== '' ? c : undefined;
	if (!Array.isArray(c)) return undefined;
	const texts = c
		.map((p) =>
			typeof p === 'string' ? p : isObject(p) && typeof p.text === 'string' ? p.text : '',
		)
		.filter((t) => t !== '');
	return texts.length > 0 ? texts.join('\n') : undefined;
}

/** Keeps a lossily converted original in metadata under its own name. */
export function keepIfLossy<T>(
	r: RowReader,
	key: string,
	res: { items: ExpectedChunk[]; lossy: boolean } | undefined,
	pick: (items: ExpectedChunk[]) => T,
): T | undefined {
	if (!res) return undefined;
	if (res.lossy) r.release(key, 'also kept whole: its items carry more than an id and a text');
	return pick(res.items);
}

/** Ids of Ragas contexts may be strings or integers. */
export function idList(r: RowReader, raw: unknown, path: string): string[] | undefined {
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
export function zipIds(
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
export function pairToolCalls(msgs: ChatMessage[], raw: unknown[]): ToolCall[] | undefined {
	const calls: ToolCall[] = [];
	const byId = new Map<string, ToolCall>();
	let turn = -1;
	msgs.forEach((m, i) => {
		if (m.role === 'assistant') turn++;
		for (const c of m.tool_calls ?? []) {
			const call: ToolCall = { ...c };
			if (turn >= 0) call.turn = turn;
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
	return calls.length > 0 ? finishCalls(calls) : undefined;
}

/** Index of the last assistant turn after `after` that says something (not only tool calls). */
export function lastReply(msgs: ChatMessage[], after: number): number {
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
export function conversation(
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
export function messageResponse(r: RowReader, v: unknown[], path: string, d: Draft): void {
	const msgs = messages(r, v, path);
	if (!msgs) return;
	d.response_raw = v;
	const a = lastReply(msgs, -1);
	if (a >= 0) d.response = msgs[a].content;
	const calls = pairToolCalls(msgs, v);
	if (calls) d.tool_calls = [...(d.tool_calls ?? []), ...calls];
}

/** Azure per-turn context: `context.citations[{id, title, content}]`, or a plain string. */
export function azureCitations(r: RowReader, turn: Row, at: string): RetrievedChunk[] | undefined {
	const c = turn.context;
	if (c === undefined || c === null) return undefined;
	if (typeof c === 'string') return c === '' ? undefined : [{ content: c }];
	if (!isObject(c)) return r.fail(`${at}.context`, `expected object or string, got ${typeName(c)}`);
	if (c.citations === undefined || c.citations === null) return undefined;
	const res = chunks(
		r,
		c.citations,
		`${at}.context.citations`,
		{ uri: ['id'], content: ['content'], title: ['title'] },
		'content',
	);
	// Seed 000's citations are {id, title, content}: the title stays on the chunk (reports and
	// judges' document lists can name the document); the whole transcript stays in request_raw.
	return res ? asRetrieved(res.items) : undefined;
}

/** Azure conversation rows: `{"conversation": {"messages": [...], "context": ...}}` (SDK files). */
/** The first present key among a current name and its legacy alias (Ragas 0.1 names). */
export function pick(r: RowReader, keys: string[]): [string, unknown] {
	const k = keys.find((x) => r.has(x)) ?? keys[0];
	return [k, r.take(k)];
}

/**
 * Tool calls as DeepEval writes them (`{name, input_parameters | inputParameters | input, output}`),
 * as Ragas does (`{name, args}`), in OpenAI form (`{id, function: {name, arguments}}`) or in
 * canonical form (`{id, name, arguments, result}`); JSON text (a CSV cell, or text inside JSON) and
 * Python literals are parsed, and JSON-text arguments too.
 */
export function toolCalls(r: RowReader, raw: unknown, path: string): ToolCall[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || v === null || isBad(v)) return undefined;
	if (!Array.isArray(v)) return r.fail(path, `expected array of tool calls, got ${typeName(v)}`);
	const out: ToolCall[] = [];
	let ok = true;
	v.forEach((c, i) => {
		const at = `${path}[${i}]`;
		const fn = isObject(c) && isObject(c.function) ? c.function : c;
		const name = isObject(fn) ? (fn.name ?? fn.tool_name ?? fn.toolName) : undefined;
		if (!isObject(c) || typeof name !== 'string') {
			ok = false;
			if (!isObject(c)) r.fail(at, `expected a tool call object, got ${typeName(c)}`);
			else r.fail(`${at}.name`, `expected string, got ${typeName(name)}`);
			return;
		}
		const callId = c.id ?? c.tool_call_id ?? c.toolCallId;
		const call: ToolCall =
			typeof callId === 'string' && callId !== '' ? { id: callId, name } : { name };
		let args =
			(fn as Row).arguments ??
			(fn as Row).args ??
			c.input_parameters ??
			c.inputParameters ??
			c.input ??
			c.tool_kwargs;
		if (typeof args === 'string') {
			const t = args.trimStart();
			if (t[0] === '{' || t[0] === '[') {
				try {
					args = JSON.parse(args) as unknown;
				} catch {
					// arguments that are not JSON stay as the text they are
				}
			}
		}
		if (args !== undefined && args !== null) call.arguments = args;
		const result = c.result ?? c.output;
		if (result !== undefined && result !== null) call.result = result;
		if (typeof c.error === 'string' && c.error !== '') call.error = c.error;
		if (typeof c.turn === 'number' && Number.isInteger(c.turn) && c.turn >= 0) call.turn = c.turn;
		out.push(call);
	});
	return ok ? finishCalls(out) : undefined;
}

/** Tool definitions (Azure agent data): objects with a string `name`, kept as given. */
export function toolDefinitions(
	r: RowReader,
	raw: unknown,
	path = 'tool_definitions',
): ToolDefinition[] | undefined {
	const v = structured(r, raw, path);
	if (v === undefined || isBad(v)) return undefined;
	const list = isObject(v) ? [v] : v;
	if (!Array.isArray(list)) {
		return r.fail(path, `expected array of tool definitions, got ${typeName(v)}`);
	}
	let ok = true;
	const out: ToolDefinition[] = [];
	list.forEach((t, i) => {
		// OpenAI `{type: 'function', function: {...}}`, MCP `inputSchema` and the canonical shape.
		try {
			out.push(readDefinition(t, `${path}[${i}]`));
		} catch (e) {
			ok = false;
			const m = (e as Error).message;
			const at = m.slice(0, m.indexOf(': '));
			r.fail(at, m.slice(m.indexOf(': ') + 2));
		}
	});
	return ok ? out : undefined;
}

export function readGuidelines(
	r: RowReader,
	raw: unknown,
	path = 'guidelines',
): Draft['guidelines'] {
	let v = structured(r, raw, path);
	if (v === undefined || v === null || isBad(v)) return undefined;
	// One guideline as plain text (MLflow `expectations.guidelines`, Ragas `grading_notes`).
	if (typeof v === 'string') v = r.fromCsv && r.listDelimiter ? splitCell(r, v) : [v];
	if (Array.isArray(v)) return textList(r, v, path);
	if (!isObject(v))
		return r.fail(path, `expected array or named map of arrays, got ${typeName(v)}`);
	const out: Record<string, string[]> = {};
	let ok = true;
	for (const [name, list] of Object.entries(v)) {
		const l = textList(r, list, `${path}.${name}`);
		if (l === undefined) {
			ok = false;
			if (!Array.isArray(list)) continue;
		} else out[name] = l;
	}
	return ok ? out : undefined;
}

/**
 * A row's trace: an object or a list of spans, or JSON text holding one. A trace that is neither
 * (text that is not JSON, a number) is kept as given and the reason is noted on the reader
 * (`traceError`): the row keeps its other fields. Only a trace nested too deep is an issue.
 */
export function readTrace(r: RowReader, raw: unknown, path = 'trace'): unknown {
	if (raw === undefined) return undefined;
	if (typeof raw === 'string') {
		let parsed: unknown;
		try {
			parsed = parseNested(r, raw, path);
		} catch (e) {
			r.traceError = `not valid JSON (${(e as Error).message})`;
			return raw;
		}
		if (isBad(parsed)) return undefined;
		raw = parsed;
	}
	if (!isObject(raw) && !Array.isArray(raw)) {
		r.traceError = `expected a trace object or a list of spans, got ${typeName(raw)}`;
	}
	return raw;
}
