/**
 * Normalised spans: the one span shape every format is read into (id, parent, times, kind, token
 * usage, model, inputs, outputs), the readers for MLflow 2 spans and OTel-shaped spans (MLflow 3,
 * OTLP, span lists), and the GenAI message conventions for a root span's input and output.
 */
import { isObject, type Row } from '../values';
import { attr, attributeMap, decoded, nanos, num, present, str } from './read';

/** What a span is for: an LLM call, a retrieval, a tool call, or anything else. */
export type Kind = 'llm' | 'retriever' | 'tool' | 'other';

/** Token usage of one span; `estimated` when n8n estimated it. */
export interface Usage {
	input?: number;
	output?: number;
	total?: number;
	estimated?: boolean;
}

/** One span (or n8n node run) in the shape every format is read into. */
export interface Span {
	id: string;
	parent?: string;
	/** The trace the span belongs to, when the format says (OTel trace id, Langfuse traceId). */
	trace?: string;
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
	/** Why the span failed, when its status says it did (tool calls that failed). */
	error?: string;
}

/**
 * The failure a span's status records: OTel / MLflow 3 `status {code: ERROR | 2, message}`,
 * MLflow 2 `status {status_code: ERROR, description}`, or a GenAI `error.type` attribute.
 */
function spanError(raw: Row, attrs: Row): string | undefined {
	const st = raw.status;
	if (isObject(st)) {
		const code = st.code ?? st.status_code ?? st.statusCode;
		if (code === 2 || (typeof code === 'string' && /ERROR$/i.test(code))) {
			const m = st.message ?? st.description;
			return typeof m === 'string' && m !== '' ? m : 'the span ended in error';
		}
	} else if (typeof st === 'string' && /^(STATUS_CODE_)?ERROR$/i.test(st)) {
		return 'the span ended in error';
	}
	const type = attrs['error.type'];
	if (typeof type === 'string' && type !== '') {
		const m = attrs['error.message'] ?? attrs['exception.message'];
		return typeof m === 'string' && m !== '' ? `${type}: ${m}` : type;
	}
	return undefined;
}

/** Token usage objects use MLflow names (input/output), OpenAI's (prompt/completion) or n8n's. */
export function usageOf(v: unknown): Usage | undefined {
	const u = decoded(v);
	if (!isObject(u)) return undefined;
	// MLflow / OpenAI / n8n names, and Langfuse `usageDetails` ({input, output, total}).
	const input = num(
		u.input_tokens ?? u.prompt_tokens ?? u.promptTokens ?? u.inputTokens ?? u.input,
	);
	const output = num(
		u.output_tokens ?? u.completion_tokens ?? u.completionTokens ?? u.outputTokens ?? u.output,
	);
	const total = num(u.total_tokens ?? u.totalTokens ?? u.total);
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
	// Vercel AI SDK: `ai.generateText.doGenerate` / `ai.streamText.doStream` are the model calls,
	// `ai.toolCall` the tool executions.
	const aiOp = str(attrs['ai.operationId']);
	let kind: Kind = 'other';
	if (
		LLM_TYPES.has(type) ||
		(op !== undefined && LLM_OPERATIONS.has(op)) ||
		(aiOp !== undefined && /\.do(Generate|Stream)$/.test(aiOp))
	)
		kind = 'llm';
	else if (type === 'RETRIEVER' || (op !== undefined && RETRIEVER_OPERATIONS.has(op)))
		kind = 'retriever';
	else if (type === 'TOOL' || op === 'execute_tool' || aiOp === 'ai.toolCall') kind = 'tool';

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
	if (!usage) {
		// Vercel AI SDK 5 (`inputTokens`) and 4 (`promptTokens`) on the call and its parent.
		const input = num(attrs['ai.usage.inputTokens'] ?? attrs['ai.usage.promptTokens']);
		const output = num(attrs['ai.usage.outputTokens'] ?? attrs['ai.usage.completionTokens']);
		const total = num(attrs['ai.usage.totalTokens']);
		if (input !== undefined || output !== undefined || total !== undefined)
			usage = { input, output, total };
	}
	// OpenLLMetry names the call `llm.request.type`; a span that names a GenAI provider and counts
	// tokens is a model call whatever it omits.
	if (kind === 'other') {
		const reqType = str(attrs['llm.request.type']);
		const provider = attrs['gen_ai.system'] ?? attrs['gen_ai.provider.name'];
		if ((reqType !== undefined && LLM_OPERATIONS.has(reqType)) || (provider !== undefined && usage))
			kind = 'llm';
	}
	const model =
		str(attrs['mlflow.llm.model']) ??
		str(attrs['gen_ai.response.model']) ??
		str(attrs['gen_ai.request.model']) ??
		str(attr(attrs, 'llm.model_name')) ??
		str(attrs['ai.response.model']) ??
		str(attrs['ai.model.id']);
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
	const error = spanError(raw, attrs);
	if (error !== undefined) span.error = error;
	return span;
}

/** MLflow 2 span: `context.span_id`, `parent_id`, `start_time`/`end_time` in ns. */
export function mlflow2Span(s: Row, i: number): Span {
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

/** An id from text or a number (OTLP ids are hex text, some exporters write numbers). */
function idText(v: unknown): string | undefined {
	return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/**
 * MLflow 3 span dicts, OTLP spans and OpenTelemetry JS spans as the JS SDK serialises them
 * (`_spanContext` / `spanContext()` ids, `parentSpanId` or `parentSpanContext`, `startTime` as
 * `[seconds, nanos]`; the console exporter's `id`, `parentId`, `timestamp` and `duration` in
 * microseconds): OTel field names in snake or camel case.
 */
export function otelSpan(s: Row, i: number): Span {
	const attrs = attributeMap(s.attributes);
	const ctx = isObject(s.context)
		? s.context
		: isObject(s._spanContext)
			? s._spanContext
			: isObject(s.spanContext)
				? s.spanContext
				: {};
	const parentCtx = isObject(s.parentSpanContext)
		? s.parentSpanContext
		: isObject(s._parentSpanContext)
			? s._parentSpanContext
			: undefined;
	const parent =
		s.parent_span_id ?? s.parentSpanId ?? s.parent_id ?? parentCtx?.spanId ?? s.parentId;
	let start = nanos(s.start_time_unix_nano ?? s.startTimeUnixNano ?? s.start_time ?? s.startTime);
	let end = nanos(s.end_time_unix_nano ?? s.endTimeUnixNano ?? s.end_time ?? s.endTime);
	if (start === undefined && typeof s.timestamp === 'number') {
		// The console exporter: microseconds since the epoch, and the duration in microseconds.
		start = s.timestamp * 1e3;
		const dur = typeof s.duration === 'number' ? s.duration : undefined;
		if (dur !== undefined) end = start + dur * 1e3;
	}
	if (start !== undefined && end === undefined) {
		const dur = nanos(s._duration ?? s.duration);
		if (dur !== undefined && Array.isArray(s._duration ?? s.duration)) end = start + dur;
	}
	const span = spanFrom(s, attrs, i, {
		id: idText(s.span_id ?? s.spanId ?? ctx.span_id ?? ctx.spanId ?? s.id) ?? String(i),
		parent: present(parent) ? String(parent) : undefined,
		name: typeof s.name === 'string' ? s.name : `span ${i + 1}`,
		start,
		end,
		// Raw values: only the root's are ever decoded (see `spanInputs`), not every span's.
		inputs: attrs['mlflow.spanInputs'] ?? attr(attrs, 'input.value') ?? attrs['ai.prompt'],
		outputs:
			attrs['mlflow.spanOutputs'] ?? attr(attrs, 'output.value') ?? attrs['ai.response.text'],
	});
	const trace = idText(s.trace_id ?? s.traceId ?? ctx.trace_id ?? ctx.traceId);
	if (trace !== undefined) span.trace = trace;
	return span;
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

/**
 * Indexed messages as OpenLLMetry (Traceloop) writes them: `gen_ai.prompt.0.role`,
 * `gen_ai.prompt.0.content`, `gen_ai.prompt.1.role`... in numeric order (10 after 9).
 */
function indexedMessages(attrs: Row, prefix: string): unknown {
	const byIndex = new Map<number, { role?: string; content?: string }>();
	const re = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)\\.(role|content)$`);
	for (const [k, v] of Object.entries(attrs)) {
		const m = re.exec(k);
		if (!m || typeof v !== 'string') continue;
		const i = Number(m[1]);
		const e = byIndex.get(i) ?? {};
		if (m[2] === 'role') e.role = v;
		else e.content = v;
		byIndex.set(i, e);
	}
	if (byIndex.size === 0) return undefined;
	const messages = [...byIndex.entries()]
		.sort((a, b) => a[0] - b[0])
		.map(([, e]) => ({ role: e.role ?? 'user', content: e.content ?? '' }));
	return { messages };
}

export function genAiInput(attrs: Row): unknown {
	const v = attrs['gen_ai.input.messages'];
	if (v !== undefined) return genAiMessages(v);
	return attrs['gen_ai.prompt'] ?? indexedMessages(attrs, 'gen_ai.prompt');
}

export function genAiOutput(attrs: Row): unknown {
	const v = attrs['gen_ai.output.messages'];
	if (v !== undefined) return genAiMessages(v);
	if (attrs['gen_ai.completion'] !== undefined) return attrs['gen_ai.completion'];
	// Indexed completions are the reply's turns: the assistant's says what the model answered.
	const out = indexedMessages(attrs, 'gen_ai.completion') as
		| { messages: { role: string }[] }
		| undefined;
	if (out) for (const m of out.messages) if (m.role === 'user') m.role = 'assistant';
	return out;
}
