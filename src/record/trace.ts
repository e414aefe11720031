/**
 * One reader for the traces users have, giving the per-row figures Databricks Agent Evaluation
 * reports (seed 001: `total_token_count`, `total_input_token_count`, `total_output_token_count`
 * summed over every LLM span; `latency_seconds` end to end) and the record fields seed 002 lets a
 * trace supply (`request`, `response`, `retrieved_context` from the last retrieval step in time).
 *
 * Formats: MLflow 2 (`info.execution_time_ms`, spans with `context`/`parent_id`/`start_time`) and
 * MLflow 3 (`info.execution_duration` "1.5s", OTel-shaped span dicts), both with JSON-encoded
 * attribute values; OTLP JSON (`resourceSpans[].scopeSpans[].spans[]`, attributes as key/value
 * lists, nanosecond times as strings) with the OpenTelemetry GenAI conventions
 * (`gen_ai.operation.name`, `gen_ai.usage.input_tokens`/`output_tokens`) or OpenInference
 * attributes (`openinference.span.kind`, `llm.token_count.*`, `retrieval.documents.N.document.*`);
 * a bare list of spans in any of those shapes; and n8n execution data of AI Agent / LLM chain runs
 * (`resultData.runData`, where each Chat Model run records `tokenUsage` or `tokenUsageEstimate`).
 *
 * Spans are walked as flat lists with maps and loops, never recursion, so a trace of 100,000 spans
 * or a 100,000-deep parent chain is linear work and cannot overflow the stack.
 */
import type { RetrievedChunk } from './schema';
import { isObject, typeName, type Row } from './values';

/** Which trace shape `parseTrace` recognised. */
export type TraceFormat = 'mlflow2' | 'mlflow3' | 'otlp' | 'spans' | 'n8n';

/** Token usage of one LLM call, with the model that served it when the trace says so. */
export interface LlmCall {
	/** Span name (MLflow, OTel) or node name (n8n). */
	name: string;
	model?: string;
	input_tokens?: number;
	output_tokens?: number;
	total_tokens?: number;
	/** n8n recorded an estimate (`tokenUsageEstimate`) because the provider reported no usage. */
	estimated?: boolean;
}

/** What `parseTrace` reads from a trace; a field is absent when the trace does not carry it. */
export interface ParsedTrace {
	format: TraceFormat;
	/** Spans (or n8n node runs) read. */
	spans: number;
	/** The application's input: root span inputs, MLflow `data.request`, n8n `chatInput`. */
	request?: unknown;
	/** The application's final output: root span outputs, MLflow `data.response`, agent output. */
	response?: unknown;
	/** Documents of the last retriever span in time (seed 002), with `doc_uri` when known. */
	retrieved_context?: RetrievedChunk[];
	/** Input + output tokens over every LLM span (seed 001). */
	total_token_count?: number;
	/** Input tokens over every LLM span (seed 001). */
	total_input_token_count?: number;
	/** Output tokens over every LLM span (seed 001). */
	total_output_token_count?: number;
	/** End-to-end latency in seconds (seed 001). */
	latency_seconds?: number;
	/** Each LLM call counted in the token totals, for pricing by model. */
	llm_calls: LlmCall[];
	/** Things a reader should know: no LLM spans, estimated usage, spans without usage. */
	notes: string[];
}

/** A trace that cannot be read: malformed, unrecognised, or with a negative duration. */
export class TraceError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'TraceError';
	}
}

// ---------------------------------------------------------------------------------------------
// Small readers

/** MLflow stores span attributes JSON-encoded; objects from other exporters are used as they are. */
function decoded(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	// Fast path for the commonest encoded value, a plain quoted word such as "\"LLM\"".
	if (
		v.length >= 2 &&
		v[0] === '"' &&
		v[v.length - 1] === '"' &&
		!v.includes('\\') &&
		v.indexOf('"', 1) === v.length - 1
	)
		return v.slice(1, -1);
	const t = v.trimStart();
	const c = t[0];
	// Only JSON-looking text is parsed: plain prose stays prose without a try/catch per value.
	if (c !== '{' && c !== '[' && c !== '"' && !(c >= '0' && c <= '9') && c !== '-') {
		if (t !== 'true' && t !== 'false' && t !== 'null') return v;
	}
	try {
		return JSON.parse(v) as unknown;
	} catch {
		return v;
	}
}

/** A non-negative finite number from a number or numeric text (OTLP int64 values are strings). */
function num(v: unknown): number | undefined {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A finite number, negative allowed (times, so skew can be detected rather than hidden). */
function finite(v: unknown): number | undefined {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

function str(v: unknown): string | undefined {
	const d = decoded(v);
	return typeof d === 'string' && d !== '' ? d : undefined;
}

function present(v: unknown): boolean {
	return v !== undefined && v !== null && v !== '';
}

/** Protobuf JSON durations look like "1.250s". */
function durationSeconds(v: unknown): number | undefined {
	if (typeof v !== 'string') return undefined;
	const m = /^(-?\d+(?:\.\d+)?)s$/.exec(v.trim());
	return m ? Number(m[1]) : undefined;
}

/** Milliseconds since the epoch from an ISO date text or a number. */
function epochMs(v: unknown): number | undefined {
	if (typeof v === 'number' && Number.isFinite(v)) return v;
	if (typeof v !== 'string' || v.trim() === '') return undefined;
	const n = Number(v);
	if (Number.isFinite(n)) return n;
	const t = Date.parse(v);
	return Number.isFinite(t) ? t : undefined;
}

/** ISO date text (Phoenix span exports) or nanoseconds, as nanoseconds. */
function nanos(v: unknown): number | undefined {
	if (typeof v === 'string' && /[T:-]/.test(v.trim().slice(1))) {
		const t = Date.parse(v);
		return Number.isFinite(t) ? t * 1e6 : undefined;
	}
	return finite(v);
}

/**
 * One OTLP AnyValue as a plain value. Arrays of scalars are kept; deeper structures (kvlist,
 * nested arrays) are user data we do not need, so they are not walked.
 */
function anyValue(v: unknown): unknown {
	if (!isObject(v)) return undefined;
	if ('stringValue' in v) return v.stringValue;
	if ('intValue' in v) return finite(v.intValue);
	if ('doubleValue' in v) return finite(v.doubleValue);
	if ('boolValue' in v) return v.boolValue;
	if (isObject(v.arrayValue) && Array.isArray(v.arrayValue.values)) {
		const out: unknown[] = [];
		for (const x of v.arrayValue.values) {
			if (isObject(x) && !isObject(x.arrayValue) && !isObject(x.kvlistValue)) out.push(anyValue(x));
		}
		return out;
	}
	return undefined;
}

/** Attributes as a flat map: OTLP key/value lists are converted, plain objects used as they are. */
function attributeMap(v: unknown): Row {
	if (isObject(v)) return v;
	if (!Array.isArray(v)) return {};
	const out: Row = {};
	for (const kv of v) {
		if (isObject(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
	}
	return out;
}

/**
 * An attribute by dotted key: the flat key first (OTLP, MLflow), else the nested path (Phoenix
 * exports nest `{"llm": {"token_count": {...}}}`). A loop over the key's parts, not over data.
 */
const KEY_PARTS = new Map<string, string[]>();

function attr(attrs: Row, key: string): unknown {
	const v = attrs[key];
	if (v !== undefined) return v;
	let parts = KEY_PARTS.get(key);
	if (parts === undefined) {
		parts = key.split('.');
		KEY_PARTS.set(key, parts);
	}
	if (!isObject(attrs[parts[0]])) return undefined;
	let cur: unknown = attrs;
	for (const part of parts) {
		if (!isObject(cur)) return undefined;
		cur = cur[part];
	}
	return cur;
}

// ---------------------------------------------------------------------------------------------
// Normalised spans

type Kind = 'llm' | 'retriever' | 'other';

interface Usage {
	input?: number;
	output?: number;
	total?: number;
	estimated?: boolean;
}

interface Span {
	id: string;
	parent?: string;
	name: string;
	/** Nanoseconds; n8n milliseconds are scaled. */
	start?: number;
	end?: number;
	kind: Kind;
	usage?: Usage;
	model?: string;
	inputs?: unknown;
	outputs?: unknown;
	attrs: Row;
	/** Position in the input, to break time ties by order. */
	order: number;
}

/** Token usage objects use MLflow names (input/output), OpenAI's (prompt/completion) or n8n's. */
function usageOf(v: unknown): Usage | undefined {
	const u = decoded(v);
	if (!isObject(u)) return undefined;
	const input = num(u.input_tokens ?? u.prompt_tokens ?? u.promptTokens ?? u.inputTokens);
	const output = num(
		u.output_tokens ?? u.completion_tokens ?? u.completionTokens ?? u.outputTokens,
	);
	const total = num(u.total_tokens ?? u.totalTokens);
	if (input === undefined && output === undefined && total === undefined) return undefined;
	return { input, output, total };
}

const LLM_TYPES = new Set(['LLM', 'CHAT_MODEL']);
const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion']);
const RETRIEVER_OPERATIONS = new Set(['retrieval', 'retrieve', 'retriever']);

/** Kind, usage and model of a span from whichever convention its attributes follow. */
function classify(attrs: Row, span: Row): { kind: Kind; usage?: Usage; model?: string } {
	const mlflowType = str(attrs['mlflow.spanType']) ?? str(span.span_type);
	const oiKind = str(attr(attrs, 'openinference.span.kind')) ?? str(span.span_kind);
	const op = str(attrs['gen_ai.operation.name']);
	const type = (mlflowType ?? oiKind ?? '').toUpperCase();
	let kind: Kind = 'other';
	if (LLM_TYPES.has(type) || (op !== undefined && LLM_OPERATIONS.has(op))) kind = 'llm';
	else if (type === 'RETRIEVER' || (op !== undefined && RETRIEVER_OPERATIONS.has(op)))
		kind = 'retriever';

	let usage = usageOf(attrs['mlflow.chat.tokenUsage']) ?? usageOf(attrs['llm.token_usage']);
	if (!usage) {
		const input = num(attrs['gen_ai.usage.input_tokens'] ?? attrs['gen_ai.usage.prompt_tokens']);
		const output = num(
			attrs['gen_ai.usage.output_tokens'] ?? attrs['gen_ai.usage.completion_tokens'],
		);
		if (input !== undefined || output !== undefined) usage = { input, output };
	}
	if (!usage) {
		const input = num(attr(attrs, 'llm.token_count.prompt'));
		const output = num(attr(attrs, 'llm.token_count.completion'));
		const total = num(attr(attrs, 'llm.token_count.total'));
		if (input !== undefined || output !== undefined || total !== undefined)
			usage = { input, output, total };
	}
	const model =
		str(attrs['mlflow.llm.model']) ??
		str(attrs['gen_ai.response.model']) ??
		str(attrs['gen_ai.request.model']) ??
		str(attr(attrs, 'llm.model_name'));
	return { kind, usage, model };
}

function spanFrom(
	raw: Row,
	attrs: Row,
	order: number,
	base: Omit<Span, 'kind' | 'attrs' | 'order'>,
): Span {
	const c = classify(attrs, raw);
	const span = base as Span;
	span.kind = c.kind;
	if (c.usage) span.usage = c.usage;
	if (c.model !== undefined) span.model = c.model;
	span.attrs = attrs;
	span.order = order;
	return span;
}

/** MLflow 2 span: `context.span_id`, `parent_id`, `start_time`/`end_time` in ns. */
function mlflow2Span(s: Row, i: number): Span {
	const attrs = attributeMap(s.attributes);
	const ctx = isObject(s.context) ? s.context : {};
	return spanFrom(s, attrs, i, {
		id: String(ctx.span_id ?? s.span_id ?? i),
		parent: present(s.parent_id) ? String(s.parent_id) : undefined,
		name: typeof s.name === 'string' ? s.name : `span ${i + 1}`,
		start: nanos(s.start_time ?? s.start_time_ns),
		end: nanos(s.end_time ?? s.end_time_ns),
		inputs: s.inputs ?? attrs['mlflow.spanInputs'] ?? attr(attrs, 'input.value'),
		outputs: s.outputs ?? attrs['mlflow.spanOutputs'] ?? attr(attrs, 'output.value'),
	});
}

/** MLflow 3 span dicts and OTLP spans: OTel field names in snake or camel case. */
function otelSpan(s: Row, i: number): Span {
	const attrs = attributeMap(s.attributes);
	const ctx = isObject(s.context) ? s.context : {};
	const parent = s.parent_span_id ?? s.parentSpanId ?? s.parent_id;
	return spanFrom(s, attrs, i, {
		id: String(s.span_id ?? s.spanId ?? ctx.span_id ?? i),
		parent: present(parent) ? String(parent) : undefined,
		name: typeof s.name === 'string' ? s.name : `span ${i + 1}`,
		start: nanos(s.start_time_unix_nano ?? s.startTimeUnixNano ?? s.start_time),
		end: nanos(s.end_time_unix_nano ?? s.endTimeUnixNano ?? s.end_time),
		// Raw values: only the root's are ever decoded (see `spanInputs`), not every span's.
		inputs: attrs['mlflow.spanInputs'] ?? attr(attrs, 'input.value'),
		outputs: attrs['mlflow.spanOutputs'] ?? attr(attrs, 'output.value'),
	});
}

/**
 * GenAI message lists (`gen_ai.input.messages` / `output.messages`: `[{role, parts: [{type:
 * "text", content}]}]`, JSON text in OTLP) become `{messages: [{role, content}]}`, the chat shape
 * the record reads; the older `gen_ai.prompt` / `gen_ai.completion` strings are used as given.
 */
function genAiMessages(v: unknown): unknown {
	const list = decoded(v);
	if (!Array.isArray(list)) return list;
	const messages: { role: string; content: string }[] = [];
	for (const m of list) {
		if (!isObject(m) || typeof m.role !== 'string') continue;
		let content = typeof m.content === 'string' ? m.content : '';
		if (Array.isArray(m.parts)) {
			const texts: string[] = [];
			for (const p of m.parts) {
				if (isObject(p) && typeof p.content === 'string') texts.push(p.content);
			}
			content = texts.join('\n');
		}
		messages.push({ role: m.role, content });
	}
	return { messages };
}

function genAiInput(attrs: Row): unknown {
	const v = attrs['gen_ai.input.messages'];
	return v !== undefined ? genAiMessages(v) : attrs['gen_ai.prompt'];
}

function genAiOutput(attrs: Row): unknown {
	const v = attrs['gen_ai.output.messages'];
	return v !== undefined ? genAiMessages(v) : attrs['gen_ai.completion'];
}

// ---------------------------------------------------------------------------------------------
// Retrieved documents

/** One retrieved document as a chunk: MLflow Document, LangChain Document, or plain text. */
function chunkOf(d: unknown): RetrievedChunk | undefined {
	if (typeof d === 'string') return { content: d };
	if (!isObject(d)) return undefined;
	const content = d.page_content ?? d.pageContent ?? d.content ?? d.text;
	if (typeof content !== 'string') return undefined;
	const meta = isObject(d.metadata)
		? d.metadata
		: isObject(decoded(d.metadata))
			? (decoded(d.metadata) as Row)
			: {};
	const uri = meta.doc_uri ?? d.doc_uri ?? meta.source ?? meta.url ?? meta.uri ?? d.id ?? meta.id;
	const chunk: RetrievedChunk = { content };
	if (typeof uri === 'string' && uri !== '') chunk.doc_uri = uri;
	else if (typeof uri === 'number' && Number.isFinite(uri)) chunk.doc_uri = String(uri);
	return chunk;
}

/** A list of documents from a retriever's output (a list, or `{documents}` / `{response}`). */
function documentsOf(v: unknown): RetrievedChunk[] | undefined {
	let d = decoded(v);
	if (isObject(d)) d = d.documents ?? d.response ?? d.output ?? d.outputs;
	d = decoded(d);
	if (!Array.isArray(d)) return undefined;
	const out: RetrievedChunk[] = [];
	for (const x of d) {
		const c = chunkOf(x);
		if (c) out.push(c);
	}
	return out;
}

/** OpenInference flattens documents into `retrieval.documents.N.document.{id,content,metadata}`. */
function openInferenceDocuments(attrs: Row): RetrievedChunk[] | undefined {
	const nested = attr(attrs, 'retrieval.documents');
	if (Array.isArray(nested)) {
		const out: RetrievedChunk[] = [];
		for (const x of nested) {
			const doc = isObject(x) && isObject(x.document) ? x.document : x;
			const c = chunkOf(doc);
			if (c) out.push(c);
		}
		return out;
	}
	const byIndex = new Map<number, Row>();
	const re = /^retrieval\.documents\.(\d+)\.document\.(id|content|metadata)$/;
	for (const k of Object.keys(attrs)) {
		if (!k.startsWith('retrieval.documents.')) continue;
		const m = re.exec(k);
		if (!m) continue;
		const i = Number(m[1]);
		const doc = byIndex.get(i) ?? {};
		doc[m[2]] = attrs[k];
		byIndex.set(i, doc);
	}
	if (byIndex.size === 0) return undefined;
	const out: RetrievedChunk[] = [];
	for (const i of [...byIndex.keys()].sort((a, b) => a - b)) {
		const c = chunkOf(byIndex.get(i));
		if (c) out.push(c);
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Figures from normalised spans

/** The later of two spans in time (start, then end, then input order). */
function later(a: Span, b: Span): boolean {
	const as = a.start ?? -Infinity;
	const bs = b.start ?? -Infinity;
	if (as !== bs) return as > bs;
	const ae = a.end ?? -Infinity;
	const be = b.end ?? -Infinity;
	if (ae !== be) return ae > be;
	return a.order > b.order;
}

function checkSkew(spans: Span[]): void {
	for (const s of spans) {
		if (s.start !== undefined && s.end !== undefined && s.end < s.start) {
			throw new TraceError(
				`span "${s.name}" ends ${((s.start - s.end) / 1e9).toFixed(6)} s before it starts (clock skew?); latency cannot be trusted`,
			);
		}
	}
}

interface Totals {
	input?: number;
	output?: number;
	total?: number;
	calls: LlmCall[];
	notes: string[];
}

/**
 * Sums usage over LLM calls. A span counts when it reports usage and no span below it does: an
 * agent or chain span that repeats its children's total (OpenLLMetry, some SDKs) is not counted
 * twice. Ancestors are marked by walking up parent links, stopping at the first already marked,
 * so the whole pass is linear even for one 100,000-deep chain.
 */
function sumUsage(spans: Span[]): Totals {
	const byId = new Map<string, Span>();
	for (const s of spans) byId.set(s.id, s);
	const covered = new Set<string>();
	for (const s of spans) {
		if (!s.usage) continue;
		let p = s.parent;
		while (p !== undefined && !covered.has(p)) {
			covered.add(p);
			p = byId.get(p)?.parent;
		}
	}
	const t: Totals = { calls: [], notes: [] };
	let llmSpans = 0;
	let missing = 0;
	let estimated = 0;
	for (const s of spans) {
		if (s.kind === 'llm') llmSpans++;
		if (!s.usage) {
			if (s.kind === 'llm' && !covered.has(s.id)) missing++;
			continue;
		}
		if (covered.has(s.id)) continue;
		const u = s.usage;
		const total = u.total ?? (u.input ?? 0) + (u.output ?? 0);
		if (u.input !== undefined) t.input = (t.input ?? 0) + u.input;
		if (u.output !== undefined) t.output = (t.output ?? 0) + u.output;
		t.total = (t.total ?? 0) + total;
		if (u.estimated) estimated++;
		const call: LlmCall = { name: s.name };
		if (s.model !== undefined) call.model = s.model;
		if (u.input !== undefined) call.input_tokens = u.input;
		if (u.output !== undefined) call.output_tokens = u.output;
		call.total_tokens = total;
		if (u.estimated) call.estimated = true;
		t.calls.push(call);
	}
	if (t.calls.length === 0 && llmSpans === 0) {
		t.input = 0;
		t.output = 0;
		t.total = 0;
		t.notes.push('no LLM spans in the trace: token counts are 0');
	} else if (t.calls.length === 0) {
		t.notes.push(`${llmSpans} LLM span(s) report no token usage: token counts are unknown`);
	} else if (missing > 0) {
		t.notes.push(`${missing} LLM span(s) report no token usage and are not counted`);
	}
	if (estimated > 0)
		t.notes.push(
			`${estimated} LLM call(s) carry n8n's token estimate, not provider-reported usage`,
		);
	return t;
}

/** Root spans: no parent, or a parent that is not in the trace (a partial export). */
function roots(spans: Span[]): Span[] {
	const ids = new Set<string>();
	for (const s of spans) ids.add(s.id);
	const out: Span[] = [];
	for (const s of spans) if (s.parent === undefined || !ids.has(s.parent)) out.push(s);
	return out;
}

/** Seconds from the earliest root start to the latest root end. */
function rootSeconds(rs: Span[]): number | undefined {
	let start = Infinity;
	let end = -Infinity;
	for (const s of rs) {
		if (s.start === undefined || s.end === undefined) continue;
		if (s.start < start) start = s.start;
		if (s.end > end) end = s.end;
	}
	return end >= start ? (end - start) / 1e9 : undefined;
}

/** Documents of the latest retriever span that has any; only that span's output is decoded. */
function lastRetrieval(spans: Span[]): RetrievedChunk[] | undefined {
	const retrievers = spans.filter((s) => s.kind === 'retriever');
	retrievers.sort((a, b) => (later(a, b) ? -1 : later(b, a) ? 1 : 0));
	for (const s of retrievers) {
		const d = openInferenceDocuments(s.attrs) ?? documentsOf(s.outputs);
		if (d !== undefined) return d;
	}
	return undefined;
}

function fromSpans(
	format: TraceFormat,
	spans: Span[],
	latency: number | undefined,
	usageOverride?: Usage,
): ParsedTrace {
	checkSkew(spans);
	const rs = roots(spans);
	const root = rs.length > 0 ? rs.reduce((a, b) => (later(a, b) ? b : a)) : undefined;
	const out: ParsedTrace = { format, spans: spans.length, llm_calls: [], notes: [] };
	const seconds = latency ?? rootSeconds(rs);
	if (seconds !== undefined) out.latency_seconds = seconds;
	const t = sumUsage(spans);
	out.llm_calls = t.calls;
	// A trace-level total (MLflow's `mlflow.trace.tokenUsage`) settles the counts; span notes about
	// missing usage would then mislead.
	if (usageOverride)
		out.notes.push('token counts from the trace-level usage (mlflow.trace.tokenUsage)');
	else out.notes.push(...t.notes);
	const u = usageOverride ?? { input: t.input, output: t.output, total: t.total };
	if (u.input !== undefined) out.total_input_token_count = u.input;
	if (u.output !== undefined) out.total_output_token_count = u.output;
	const total =
		u.total ??
		(u.input !== undefined || u.output !== undefined
			? (u.input ?? 0) + (u.output ?? 0)
			: undefined);
	if (total !== undefined) out.total_token_count = total;
	if (root) {
		const request = present(root.inputs) ? decoded(root.inputs) : genAiInput(root.attrs);
		const response = present(root.outputs) ? decoded(root.outputs) : genAiOutput(root.attrs);
		if (present(request)) out.request = request;
		if (present(response)) out.response = response;
	}
	const docs = lastRetrieval(spans);
	if (docs) out.retrieved_context = docs;
	return out;
}

// ---------------------------------------------------------------------------------------------
// Formats

function parseMlflow(trace: Row): ParsedTrace {
	const info = isObject(trace.info) ? trace.info : {};
	const data = isObject(trace.data) ? trace.data : {};
	if (data.spans !== undefined && !Array.isArray(data.spans))
		throw new TraceError(`data.spans: expected array, got ${typeName(data.spans)}`);
	const rawSpans = Array.isArray(data.spans) ? data.spans : [];
	const v3 =
		'execution_duration' in info ||
		'trace_metadata' in info ||
		'trace_id' in info ||
		rawSpans.some((s) => isObject(s) && ('start_time_unix_nano' in s || 'parent_span_id' in s));
	const spans: Span[] = [];
	for (let i = 0; i < rawSpans.length; i++) {
		const s: unknown = rawSpans[i];
		if (!isObject(s)) throw new TraceError(`data.spans[${i}]: expected object, got ${typeName(s)}`);
		spans.push('context' in s || 'start_time' in s ? mlflow2Span(s, i) : otelSpan(s, i));
	}

	const ms = finite(info.execution_time_ms ?? info.execution_duration_ms);
	const dur = ms !== undefined ? ms / 1000 : durationSeconds(info.execution_duration);
	if (dur !== undefined && dur < 0)
		throw new TraceError(`info: execution time is negative (${dur} s); clock skew?`);

	const meta = isObject(info.trace_metadata)
		? info.trace_metadata
		: isObject(info.request_metadata)
			? info.request_metadata
			: {};
	const traceUsage = usageOf(meta['mlflow.trace.tokenUsage']);
	const out = fromSpans(v3 ? 'mlflow3' : 'mlflow2', spans, dur, traceUsage);
	if (present(data.request)) out.request = decoded(data.request);
	else if (out.request === undefined && present(meta['mlflow.traceInputs']))
		out.request = decoded(meta['mlflow.traceInputs']);
	if (present(data.response)) out.response = decoded(data.response);
	else if (out.response === undefined && present(meta['mlflow.traceOutputs']))
		out.response = decoded(meta['mlflow.traceOutputs']);
	return out;
}

function parseOtlp(resourceSpans: unknown[]): ParsedTrace {
	const spans: Span[] = [];
	for (let r = 0; r < resourceSpans.length; r++) {
		const rs: unknown = resourceSpans[r];
		if (!isObject(rs))
			throw new TraceError(`resourceSpans[${r}]: expected object, got ${typeName(rs)}`);
		const scopes = rs.scopeSpans ?? rs.instrumentationLibrarySpans ?? [];
		if (!Array.isArray(scopes))
			throw new TraceError(
				`resourceSpans[${r}].scopeSpans: expected array, got ${typeName(scopes)}`,
			);
		for (let s = 0; s < scopes.length; s++) {
			const scope: unknown = scopes[s];
			const list = isObject(scope) ? scope.spans : undefined;
			if (!Array.isArray(list))
				throw new TraceError(
					`resourceSpans[${r}].scopeSpans[${s}].spans: expected array, got ${typeName(list)}`,
				);
			for (let i = 0; i < list.length; i++) {
				const sp: unknown = list[i];
				if (!isObject(sp))
					throw new TraceError(
						`resourceSpans[${r}].scopeSpans[${s}].spans[${i}]: expected object, got ${typeName(sp)}`,
					);
				spans.push(otelSpan(sp, spans.length));
			}
		}
	}
	return fromSpans('otlp', spans, undefined);
}

function parseSpanList(list: unknown[], path: string): ParsedTrace {
	const spans: Span[] = [];
	for (let i = 0; i < list.length; i++) {
		const s: unknown = list[i];
		if (!isObject(s))
			throw new TraceError(`${path}[${i}]: expected span object, got ${typeName(s)}`);
		spans.push('context' in s && 'parent_id' in s ? mlflow2Span(s, i) : otelSpan(s, i));
	}
	return fromSpans('spans', spans, undefined);
}

// n8n ------------------------------------------------------------------------------------------

const N8N_RETRIEVER_CONNECTIONS = ['ai_retriever', 'ai_vectorStore'];

/** First json of a connection's items: `data[conn][0][0].json`. */
function firstJson(conn: unknown): Row | undefined {
	if (!Array.isArray(conn)) return undefined;
	for (const branch of conn) {
		if (!Array.isArray(branch)) continue;
		for (const item of branch) if (isObject(item) && isObject(item.json)) return item.json;
	}
	return undefined;
}

/** Every json of a connection's items, across branches. */
function allJson(conn: unknown): Row[] {
	const out: Row[] = [];
	if (!Array.isArray(conn)) return out;
	for (const branch of conn) {
		if (!Array.isArray(branch)) continue;
		for (const item of branch) if (isObject(item) && isObject(item.json)) out.push(item.json);
	}
	return out;
}

function n8nModel(options: unknown): string | undefined {
	if (!isObject(options)) return undefined;
	for (const k of [
		'model',
		'model_name',
		'modelName',
		'deployment_name',
		'azureOpenAIApiDeploymentName',
	]) {
		if (typeof options[k] === 'string' && options[k] !== '') return options[k] as string;
	}
	return undefined;
}

/**
 * n8n execution data (`resultData.runData`: node name -> runs). A Chat Model sub-node's run holds
 * `data.ai_languageModel` items `{response, tokenUsage | tokenUsageEstimate}` (n8n's
 * N8nLlmTracing) and `inputOverride.ai_languageModel` `{messages, options: {model}}`; retrievers
 * and vector stores hold `{response: Document[]}` under `ai_retriever` / `ai_vectorStore`. The
 * nodes those runs report to (`source[0].previousNode`) are the AI Agent / chain nodes, whose main
 * output carries the answer (`output` for agents, `text` for chains).
 */
function parseN8n(exec: Row, runData: Row): ParsedTrace {
	const spans: Span[] = [];
	const aiRoots = new Set<string>();
	let request: unknown;
	let requestAt = Infinity;
	let first = Infinity;
	let last = -Infinity;
	let order = 0;
	for (const [node, runsRaw] of Object.entries(runData)) {
		if (!Array.isArray(runsRaw))
			throw new TraceError(`runData["${node}"]: expected array of runs, got ${typeName(runsRaw)}`);
		for (let r = 0; r < runsRaw.length; r++) {
			const run: unknown = runsRaw[r];
			if (!isObject(run))
				throw new TraceError(`runData["${node}"][${r}]: expected object, got ${typeName(run)}`);
			const startMs = finite(run.startTime);
			const took = finite(run.executionTime);
			if (took !== undefined && took < 0)
				throw new TraceError(
					`runData["${node}"][${r}]: executionTime is negative (${took} ms); clock skew?`,
				);
			if (startMs !== undefined) {
				first = Math.min(first, startMs);
				last = Math.max(last, startMs + (took ?? 0));
			}
			const data = isObject(run.data) ? run.data : {};
			const input = isObject(run.inputOverride) ? run.inputOverride : {};
			const source = Array.isArray(run.source) ? run.source[0] : undefined;
			const parentNode =
				isObject(source) && typeof source.previousNode === 'string'
					? source.previousNode
					: undefined;
			const base = {
				name: node,
				start: startMs !== undefined ? startMs * 1e6 : undefined,
				end: startMs !== undefined ? (startMs + (took ?? 0)) * 1e6 : undefined,
				attrs: {},
			};
			if (data.ai_languageModel !== undefined) {
				const inJson = firstJson(input.ai_languageModel);
				const model = n8nModel(inJson?.options);
				if (parentNode) aiRoots.add(parentNode);
				for (const j of allJson(data.ai_languageModel)) {
					const real = usageOf(j.tokenUsage);
					const est = real ? undefined : usageOf(j.tokenUsageEstimate);
					const usage = real ?? (est ? { ...est, estimated: true } : undefined);
					spans.push({
						...base,
						id: `${node}#${r}#${order}`,
						kind: 'llm',
						usage,
						model,
						order: order++,
					});
				}
				continue;
			}
			const retr = N8N_RETRIEVER_CONNECTIONS.find((c) => data[c] !== undefined);
			if (retr) {
				if (parentNode) aiRoots.add(parentNode);
				const docs: unknown[] = [];
				for (const j of allJson(data[retr])) {
					const d = decoded(j.response ?? j.documents);
					if (Array.isArray(d)) docs.push(...d);
				}
				spans.push({
					...base,
					id: `${node}#${r}`,
					kind: 'retriever',
					outputs: docs,
					order: order++,
				});
				continue;
			}
			const main = firstJson(data.main);
			if (main && typeof main.chatInput === 'string' && (startMs ?? 0) < requestAt) {
				request = main.chatInput;
				requestAt = startMs ?? 0;
			}
			spans.push({ ...base, id: `${node}#${r}`, kind: 'other', outputs: main, order: order++ });
		}
	}
	checkSkew(spans);
	const started = epochMs(exec.startedAt);
	const stopped = epochMs(exec.stoppedAt);
	let latency: number | undefined;
	if (started !== undefined && stopped !== undefined) {
		if (stopped < started)
			throw new TraceError(
				`stoppedAt is ${(started - stopped) / 1000} s before startedAt; clock skew?`,
			);
		latency = (stopped - started) / 1000;
	} else if (last >= first) latency = (last - first) / 1000;

	const out = fromSpans('n8n', spans, latency);
	// fromSpans took request/response from a "root"; for n8n the answer is the AI node's output.
	delete out.request;
	delete out.response;
	if (request !== undefined) out.request = request;
	let answerAt: Span | undefined;
	for (const s of spans) {
		if (s.kind !== 'other' || !aiRoots.has(s.name) || !isObject(s.outputs)) continue;
		if (answerAt === undefined || later(s, answerAt)) answerAt = s;
	}
	if (answerAt && isObject(answerAt.outputs)) {
		const o = answerAt.outputs;
		let answer = o.output ?? o.text ?? o.response;
		if (isObject(answer) && typeof answer.text === 'string') answer = answer.text;
		if (present(answer)) out.response = answer;
	}
	return out;
}

function n8nRunData(t: Row): { exec: Row; runData: Row } | undefined {
	const candidates: Row[] = [t];
	if (isObject(t.data)) candidates.push(t.data);
	for (const c of candidates) {
		if (isObject(c.resultData) && isObject(c.resultData.runData))
			return { exec: t, runData: c.resultData.runData };
	}
	if (isObject(t.runData)) return { exec: t, runData: t.runData };
	return undefined;
}

/**
 * Reads a trace in any supported format (see the module comment) into the seed's per-row figures,
 * request, response and retrieved context. Accepts the trace as an object or JSON text.
 * Throws {@link TraceError} with a readable message for malformed traces and negative durations.
 */
export function parseTrace(trace: unknown): ParsedTrace {
	let t = trace;
	if (typeof t === 'string') {
		try {
			t = JSON.parse(t) as unknown;
		} catch (e) {
			throw new TraceError(`not valid JSON (${(e as Error).message})`);
		}
	}
	if (Array.isArray(t)) {
		// n8n's database keeps execution data "flatted" (an array of cross-referenced nodes).
		if (t.length > 0 && isObject(t[0]) && typeof t[0].resultData === 'string')
			throw new TraceError(
				'looks like n8n execution data in its stored (flatted) form; pass the execution as the n8n API returns it (GET /executions/{id}?includeData=true)',
			);
		return parseSpanList(t, 'trace');
	}
	if (!isObject(t)) throw new TraceError(`expected a trace object, got ${typeName(t)}`);
	if (Array.isArray(t.resourceSpans)) return parseOtlp(t.resourceSpans);
	if (isObject(t.info) || (isObject(t.data) && Array.isArray(t.data.spans))) return parseMlflow(t);
	const n8n = n8nRunData(t);
	if (n8n) return parseN8n(n8n.exec, n8n.runData);
	if (Array.isArray(t.spans)) return parseSpanList(t.spans, 'spans');
	if (Array.isArray(t.data) && t.data.every(isObject)) return parseSpanList(t.data, 'data');
	const keys = Object.keys(t).slice(0, 5).join(', ');
	throw new TraceError(
		`unrecognised trace format (keys: ${keys || 'none'}); expected an MLflow trace (info, data.spans), OTLP JSON (resourceSpans), a list of spans, or n8n execution data (resultData.runData)`,
	);
}
