/**
 * The figures of a trace from its normalised spans, whatever the format: token totals over LLM
 * calls (a parent repeating its children's usage is not counted twice), latency from the root
 * spans, the root's request and response, and the documents of the last retrieval in time.
 */
import type { RetrievedChunk, ToolCall } from '../schema';
import { finishCalls } from '../toolcalls';
import { isObject, type Row } from '../values';
import { genAiInput, genAiOutput, type Span, type Usage } from './normalise';
import { attr, decoded, present } from './read';
import { TraceError, type LlmCall, type ParsedTrace, type TraceFormat } from './types';

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
export function documentsOf(v: unknown): RetrievedChunk[] | undefined {
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
export function later(a: Span, b: Span): boolean {
	const as = a.start ?? -Infinity;
	const bs = b.start ?? -Infinity;
	if (as !== bs) return as > bs;
	const ae = a.end ?? -Infinity;
	const be = b.end ?? -Infinity;
	if (ae !== be) return ae > be;
	return a.order > b.order;
}

/** Throws when a span ends before it starts (clock skew): its latency cannot be trusted. */
export function checkSkew(spans: Span[]): void {
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

/** A span attribute or value decoded once more if it is still JSON text (Langfuse double-encodes). */
function deep(v: unknown): unknown {
	const d = decoded(v);
	return typeof d === 'string' ? decoded(d) : d;
}

/**
 * Tool calls from tool spans, in time order: the name (GenAI `gen_ai.tool.name`, Vercel
 * `ai.toolCall.name`, OpenInference `tool.name`, else the span name), the arguments (GenAI
 * `gen_ai.tool.call.arguments`, else span inputs), the result (span outputs), the span's error,
 * and the turn: how many LLM calls started before it, less one (the agent step that asked for it).
 */
function toolCallsOf(spans: Span[]): ToolCall[] | undefined {
	const tools = spans.filter((s) => s.kind === 'tool');
	if (tools.length === 0) return undefined;
	const byTime = (a: Span, b: Span) => (later(a, b) ? 1 : later(b, a) ? -1 : 0);
	tools.sort(byTime);
	const llms = spans.filter((s) => s.kind === 'llm').sort(byTime);
	const calls = tools.map((s) => {
		const a = s.attrs;
		const name = a['gen_ai.tool.name'] ?? a['ai.toolCall.name'] ?? attr(a, 'tool.name') ?? s.name;
		const call: ToolCall = { name: typeof name === 'string' ? name : s.name };
		const id = a['gen_ai.tool.call.id'] ?? a['ai.toolCall.id'] ?? attr(a, 'tool_call.id');
		if (typeof id === 'string' && id !== '') call.id = id;
		const args =
			a['gen_ai.tool.call.arguments'] ??
			a['ai.toolCall.args'] ??
			attr(a, 'tool.parameters') ??
			s.inputs;
		const result = a['gen_ai.tool.call.result'] ?? a['ai.toolCall.result'] ?? s.outputs;
		if (present(args)) call.arguments = deep(args);
		if (present(result)) call.result = deep(result);
		if (s.error !== undefined) call.error = s.error;
		const before = llms.filter((l) => later(s, l)).length;
		if (llms.length > 0 && before > 0) call.turn = before - 1;
		return call;
	});
	return finishCalls(calls);
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

/**
 * A trace's figures from its normalised spans: `latency` (seconds) when the format states it, else
 * from the root spans; `usageOverride` when the trace carries its own token total.
 */
export function fromSpans(
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
	const calls = toolCallsOf(spans);
	if (calls) out.tool_calls = calls;
	return out;
}
