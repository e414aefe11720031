/**
 * A bare list of spans (a JSON array, or `spans` / `data` holding one) in MLflow 2 or OTel shape.
 */
import { isObject, typeName } from '../values';
import { fromSpans } from './figures';
import { mlflow2Span, otelSpan, type Span } from './normalise';
import { TraceError, type ParsedTrace } from './types';

/** A list of spans; `path` names the list in error messages. */
export function parseSpanList(list: unknown[], path: string): ParsedTrace {
	const spans: Span[] = [];
	for (let i = 0; i < list.length; i++) {
		const s: unknown = list[i];
		if (!isObject(s))
			throw new TraceError(`${path}[${i}]: expected span object, got ${typeName(s)}`);
		spans.push('context' in s && 'parent_id' in s ? mlflow2Span(s, i) : otelSpan(s, i));
	}
	return fromSpans('spans', spans, undefined);
}
