/**
 * Langfuse trace exports: `{trace, observations}` as the Langfuse UI and API give them (or a trace
 * object whose `observations` are the observation objects). Observations are spans: GENERATION is
 * an LLM call (`usageDetails` {input, output, total}, `model`), RETRIEVER a retrieval, TOOL a tool
 * call; the trace's `input` / `output` are the request and response (JSON text, sometimes encoded
 * twice) and its `latency` the end-to-end seconds.
 */
import { isObject, typeName, type Row } from '../values';
import { fromSpans } from './figures';
import { usageOf, type Kind, type Span } from './normalise';
import { decoded, finite, nanos, present } from './read';
import { TraceError, type ParsedTrace } from './types';

const KINDS: Record<string, Kind> = { GENERATION: 'llm', RETRIEVER: 'retriever', TOOL: 'tool' };

/** A value decoded once more while it is still JSON text (Langfuse may encode twice). */
function twice(v: unknown): unknown {
	const d = decoded(v);
	return typeof d === 'string' ? decoded(d) : d;
}

function observation(o: Row, i: number): Span {
	const type = typeof o.type === 'string' ? o.type.toUpperCase() : '';
	const span: Span = {
		id: typeof o.id === 'string' ? o.id : String(i),
		name: typeof o.name === 'string' ? o.name : `observation ${i + 1}`,
		start: nanos(o.startTime ?? o.start_time),
		end: nanos(o.endTime ?? o.end_time),
		kind: KINDS[type] ?? 'other',
		inputs: o.input,
		outputs: o.output,
		attrs: {},
		order: i,
	};
	const parent = o.parentObservationId ?? o.parent_observation_id;
	if (typeof parent === 'string' && parent !== '') span.parent = parent;
	if (typeof o.traceId === 'string') span.trace = o.traceId;
	const usage =
		usageOf(o.usageDetails) ??
		usageOf(o.usage) ??
		usageOf({ input: o.inputUsage ?? o.promptTokens, output: o.outputUsage ?? o.completionTokens });
	// Langfuse reports zero usage for spans that are not model calls: only generations count.
	if (usage && span.kind === 'llm') span.usage = usage;
	if (typeof o.model === 'string' && o.model !== '') span.model = o.model;
	if (o.level === 'ERROR') {
		const m = o.statusMessage ?? o.status_message;
		span.error = typeof m === 'string' && m !== '' ? m : 'the observation ended in error';
	}
	return span;
}

/** A Langfuse trace (`trace`) and its observations. */
export function parseLangfuse(trace: Row, observations: unknown[]): ParsedTrace {
	const spans: Span[] = [];
	for (let i = 0; i < observations.length; i++) {
		const o: unknown = observations[i];
		if (!isObject(o))
			throw new TraceError(`observations[${i}]: expected object, got ${typeName(o)}`);
		spans.push(observation(o, i));
	}
	const latency = finite(trace.latency);
	if (latency !== undefined && latency < 0)
		throw new TraceError(`trace.latency is negative (${latency} s); clock skew?`);
	const out = fromSpans('langfuse', spans, latency);
	// Tool arguments and results are JSON text in Langfuse, sometimes encoded twice.
	for (const c of out.tool_calls ?? []) {
		if (typeof c.arguments === 'string') c.arguments = twice(c.arguments);
		if (typeof c.result === 'string') c.result = twice(c.result);
	}
	if (present(trace.input)) out.request = twice(trace.input);
	else if (out.request !== undefined) out.request = twice(out.request);
	if (present(trace.output)) out.response = twice(trace.output);
	else if (out.response !== undefined) out.response = twice(out.response);
	return out;
}
