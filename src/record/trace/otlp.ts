/**
 * OTLP JSON traces (`resourceSpans[].scopeSpans[].spans[]`), whose spans follow the OpenTelemetry
 * GenAI conventions or OpenInference attributes.
 */
import { isObject, typeName } from '../values';
import { otelSpan, type Span } from './normalise';
import { firstTrace } from './spanList';
import { TraceError, type ParsedTrace } from './types';

/** OTLP JSON: every span of every resource and scope, in order. */
export function parseOtlp(resourceSpans: unknown[]): ParsedTrace {
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
	return firstTrace('otlp', spans);
}
