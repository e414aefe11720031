/**
 * DeepEval traces, as a test run export holds them on each test case (`trace`) and as DeepEval's
 * tracing writes them: the trace's own `input` / `output` / `startTime` / `endTime`, and spans by
 * kind in `baseSpans`, `agentSpans`, `llmSpans` (model, `inputTokenCount` / `outputTokenCount`),
 * `retrieverSpans` (`retrievalContext`, else the output) and `toolSpans`, linked by `parentUuid`;
 * snake_case twins (`llm_spans`, `parent_uuid`, `input_token_count`) are read too.
 */
import { isObject, typeName, type Row } from '../values';
import { fromSpans } from './figures';
import type { Kind, Span } from './normalise';
import { finite, nanos, present } from './read';
import { TraceError, type ParsedTrace } from './types';

const LISTS: [string, string, Kind][] = [
	['baseSpans', 'base_spans', 'other'],
	['agentSpans', 'agent_spans', 'other'],
	['llmSpans', 'llm_spans', 'llm'],
	['retrieverSpans', 'retriever_spans', 'retriever'],
	['toolSpans', 'tool_spans', 'tool'],
];

/** Whether `t` is a DeepEval trace (any of its span lists is present). */
export function isDeepEvalTrace(t: Row): boolean {
	return LISTS.some(([camel, snake]) => Array.isArray(t[camel]) || Array.isArray(t[snake]));
}

function span(s: Row, kind: Kind, order: number): Span {
	const out: Span = {
		id: typeof s.uuid === 'string' ? s.uuid : String(order),
		name: typeof s.name === 'string' ? s.name : `span ${order + 1}`,
		start: nanos(s.startTime ?? s.start_time),
		end: nanos(s.endTime ?? s.end_time),
		kind,
		inputs: s.input,
		outputs: s.output,
		attrs: {},
		order,
	};
	const parent = s.parentUuid ?? s.parent_uuid;
	if (typeof parent === 'string' && parent !== '') out.parent = parent;
	if (kind === 'retriever') {
		// The retrieved texts; an output given as one text is one document.
		const ctx = s.retrievalContext ?? s.retrieval_context;
		if (Array.isArray(ctx)) out.outputs = ctx;
		else if (typeof s.output === 'string' && s.output !== '') out.outputs = [s.output];
	}
	if (kind === 'llm') {
		const input = finite(s.inputTokenCount ?? s.input_token_count);
		const output = finite(s.outputTokenCount ?? s.output_token_count);
		if (input !== undefined || output !== undefined) out.usage = { input, output };
		if (typeof s.model === 'string' && s.model !== '') out.model = s.model;
	}
	return out;
}

/** A DeepEval trace: its spans, and the trace's own input, output and duration. */
export function parseDeepEval(t: Row): ParsedTrace {
	const spans: Span[] = [];
	for (const [camel, snake, kind] of LISTS) {
		const key = Array.isArray(t[camel]) ? camel : snake;
		const list = t[key];
		if (list === undefined || list === null) continue;
		if (!Array.isArray(list)) throw new TraceError(`${key}: expected array, got ${typeName(list)}`);
		for (let i = 0; i < list.length; i++) {
			const s: unknown = list[i];
			if (!isObject(s)) throw new TraceError(`${key}[${i}]: expected object, got ${typeName(s)}`);
			spans.push(span(s, kind, spans.length));
		}
	}
	const start = nanos(t.startTime ?? t.start_time);
	const end = nanos(t.endTime ?? t.end_time);
	let latency: number | undefined;
	if (start !== undefined && end !== undefined) {
		if (end < start)
			throw new TraceError(`the trace ends ${(start - end) / 1e9} s before it starts; clock skew?`);
		latency = (end - start) / 1e9;
	}
	const out = fromSpans('deepeval', spans, latency);
	if (present(t.input)) out.request = t.input;
	if (present(t.output)) out.response = t.output;
	return out;
}
