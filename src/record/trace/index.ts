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
 * a bare list of spans in any of those shapes, one span or its bare `gen_ai.*` attributes; LangSmith
 * runs (a run, a run tree, a list of runs, the SDK's post/patch payloads); and n8n execution data of AI Agent / LLM chain runs
 * (`resultData.runData`, where each Chat Model run records `tokenUsage` or `tokenUsageEstimate`).
 *
 * Spans are walked as flat lists with maps and loops, never recursion, so a trace of 100,000 spans
 * or a 100,000-deep parent chain is linear work and cannot overflow the stack.
 *
 * The public API and the dispatch on the trace's shape live here; each format has its own file
 * (mlflow, otlp, spanList, n8n) reading it into normalised spans (normalise.ts), and figures.ts
 * turns those spans into the figures whatever the format.
 */
import { isObject, typeName } from '../values';
import { isDeepEvalTrace, parseDeepEval } from './deepeval';
import { parseLangfuse } from './langfuse';
import { isLangSmithPayloads, isLangSmithRun, parseLangSmith } from './langsmith';
import { parseMlflow } from './mlflow';
import { n8nRunData, parseN8n } from './n8n';
import { parseOtlp } from './otlp';
import { parseSpanList } from './spanList';
import { TraceError, type ParsedTrace } from './types';

export { TraceError, type LlmCall, type ParsedTrace, type TraceFormat } from './types';

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
		if (t.length > 0 && t.every(isLangSmithRun)) return parseLangSmith(t);
		return parseSpanList(t, 'trace');
	}
	if (!isObject(t)) throw new TraceError(`expected a trace object, got ${typeName(t)}`);
	if (Array.isArray(t.resourceSpans)) return parseOtlp(t.resourceSpans);
	if (isObject(t.info) || (isObject(t.data) && Array.isArray(t.data.spans))) return parseMlflow(t);
	if (isObject(t.trace) && Array.isArray(t.observations))
		return parseLangfuse(t.trace, t.observations);
	if (Array.isArray(t.observations) && t.observations.some((o) => isObject(o) && 'traceId' in o))
		return parseLangfuse(t, t.observations);
	if (isDeepEvalTrace(t)) return parseDeepEval(t);
	if (isLangSmithRun(t) || isLangSmithPayloads(t)) return parseLangSmith(t);
	const n8n = n8nRunData(t);
	if (n8n) return parseN8n(n8n.exec, n8n.runData, n8n.connections, n8n.nodes);
	if (Array.isArray(t.spans)) return parseSpanList(t.spans, 'spans');
	if (Array.isArray(t.data) && t.data.every(isObject)) return parseSpanList(t.data, 'data');
	// Bare OpenTelemetry GenAI span attributes (`gen_ai.*` keys), or one span object carrying them.
	if (Object.keys(t).some((k) => k.startsWith('gen_ai.')))
		return parseSpanList([{ name: 'gen_ai', attributes: t }], 'trace');
	if (isObject(t.attributes) || Array.isArray(t.attributes)) return parseSpanList([t], 'trace');
	const keys = Object.keys(t).slice(0, 5).join(', ');
	throw new TraceError(
		`unrecognised trace format (keys: ${keys || 'none'}); expected an MLflow trace (info, data.spans), OTLP JSON (resourceSpans), a list of spans (OpenTelemetry JS too), a Langfuse export (trace, observations), a LangSmith run (run_type, inputs, outputs), a DeepEval trace (llmSpans, retrieverSpans...), OpenTelemetry GenAI span attributes (gen_ai.*), or n8n execution data (resultData.runData)`,
	);
}
