/**
 * MLflow traces: MLflow 2 (`info.execution_time_ms`, spans with `context`/`parent_id`/
 * `start_time`) and MLflow 3 (`info.execution_duration` "1.5s", OTel-shaped span dicts), with
 * the trace-level token usage, request and response from the trace info when present.
 */
import { isObject, typeName, type Row } from '../values';
import { fromSpans } from './figures';
import { mlflow2Span, otelSpan, usageOf, type Span } from './normalise';
import { decoded, finite, present } from './read';
import { TraceError, type ParsedTrace } from './types';

/** Protobuf JSON durations look like "1.250s". */
function durationSeconds(v: unknown): number | undefined {
	if (typeof v !== 'string') return undefined;
	const m = /^(-?\d+(?:\.\d+)?)s$/.exec(v.trim());
	return m ? Number(m[1]) : undefined;
}

/** An MLflow trace (`info`, `data.spans`); MLflow 3 when its info or spans use MLflow 3 names. */
export function parseMlflow(trace: Row): ParsedTrace {
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
