/**
 * A bare list of spans (a JSON array, or `spans` / `data` holding one) in MLflow 2 or OTel shape,
 * OpenTelemetry JS spans as the JS SDK serialises them (the Vercel AI SDK's telemetry) included.
 * Spans of several traces are not summed into one: the first trace is read and a note says how
 * many others the list holds.
 */
import { isObject, typeName } from '../values';
import { fromSpans } from './figures';
import { mlflow2Span, otelSpan, type Span } from './normalise';
import { TraceError, type ParsedTrace, type TraceFormat } from './types';

/** The spans grouped by trace id, in order of their first appearance. */
export function byTrace(spans: Span[]): Map<string | undefined, Span[]> {
	const groups = new Map<string | undefined, Span[]>();
	for (const s of spans) {
		const g = groups.get(s.trace);
		if (g) g.push(s);
		else groups.set(s.trace, [s]);
	}
	return groups;
}

/** The earliest start among `spans` (Infinity when none has a start). */
function earliest(spans: Span[]): number {
	let t = Infinity;
	for (const s of spans) if (s.start !== undefined && s.start < t) t = s.start;
	return t;
}

/** A list of spans; `path` names the list in error messages. */
export function parseSpanList(list: unknown[], path: string): ParsedTrace {
	const spans: Span[] = [];
	let otelJs = false;
	for (let i = 0; i < list.length; i++) {
		const s: unknown = list[i];
		if (!isObject(s))
			throw new TraceError(`${path}[${i}]: expected span object, got ${typeName(s)}`);
		if ('_spanContext' in s || 'spanContext' in s) otelJs = true;
		spans.push('context' in s && 'parent_id' in s ? mlflow2Span(s, i) : otelSpan(s, i));
	}
	return firstTrace(otelJs ? 'otel-js' : 'spans', spans);
}

/**
 * Figures of the spans, or, when they belong to several traces, of the first trace (earliest
 * start) with a note naming how many others there are: each trace is a run of its own.
 */
export function firstTrace(format: TraceFormat, spans: Span[]): ParsedTrace {
	const groups = byTrace(spans);
	if (groups.size <= 1) return fromSpans(format, spans, undefined);
	const ordered = [...groups.entries()].sort((a, b) => earliest(a[1]) - earliest(b[1]));
	const [id, first] = ordered[0];
	const out = fromSpans(format, first, undefined);
	out.notes.push(
		`the spans belong to ${groups.size} traces; read the first (${id ?? 'no trace id'}, ${first.length} of ${spans.length} spans); give each trace its own row to read the others`,
	);
	return out;
}
