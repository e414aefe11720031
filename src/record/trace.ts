/**
 * Per-row figures from an MLflow trace, named as Databricks Agent Evaluation reports them
 * (seed 001): `latency_seconds`, `input_token_count`, `output_token_count`, `total_token_count`.
 * Reads MLflow 2 traces (`info.execution_time_ms`, `data.spans[].attributes` holding JSON-encoded
 * values) and MLflow 3 ones (`info.execution_duration` as "1.5s", `trace_metadata`).
 */
import { isObject, type Row } from './values';

/** Figures read from a trace; each is absent when the trace does not carry it. */
export interface TraceFigures {
	latency_seconds?: number;
	input_token_count?: number;
	output_token_count?: number;
	total_token_count?: number;
	/** The application's final output, for rows that give a trace instead of a response. */
	response?: unknown;
}

/** MLflow stores span attributes JSON-encoded; objects from other exporters are used as they are. */
function decoded(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	try {
		return JSON.parse(v) as unknown;
	} catch {
		return v;
	}
}

function num(v: unknown): number | undefined {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Token usage objects use either OpenAI names (prompt/completion) or MLflow names (input/output). */
function usage(v: unknown): { input?: number; output?: number; total?: number } | undefined {
	const u = decoded(v);
	if (!isObject(u)) return undefined;
	const input = num(u.input_tokens ?? u.prompt_tokens);
	const output = num(u.output_tokens ?? u.completion_tokens);
	const total = num(u.total_tokens);
	if (input === undefined && output === undefined && total === undefined) return undefined;
	return { input, output, total };
}

const USAGE_KEYS = ['mlflow.chat.tokenUsage', 'llm.token_usage'];

function spanUsage(span: Row): ReturnType<typeof usage> {
	const attrs = isObject(span.attributes) ? span.attributes : {};
	for (const k of USAGE_KEYS) {
		const u = usage(attrs[k]);
		if (u) return u;
	}
	return undefined;
}

function isRoot(span: Row): boolean {
	return span.parent_id === undefined || span.parent_id === null || span.parent_id === '';
}

/** Span times are nanoseconds (MLflow 2 `start_time`, OpenTelemetry `start_time_unix_nano`). */
function spanSeconds(span: Row): number | undefined {
	const start = num(span.start_time ?? span.start_time_unix_nano ?? span.start_time_ns);
	const end = num(span.end_time ?? span.end_time_unix_nano ?? span.end_time_ns);
	if (start === undefined || end === undefined || end < start) return undefined;
	return (end - start) / 1e9;
}

/** Protobuf JSON durations look like "1.250s". */
function durationSeconds(v: unknown): number | undefined {
	if (typeof v === 'string') {
		const m = /^(\d+(?:\.\d+)?)s$/.exec(v.trim());
		return m ? Number(m[1]) : undefined;
	}
	return undefined;
}

/**
 * Reads latency, token counts and the final output from an MLflow trace. Tokens come from the
 * trace-level total when MLflow recorded one, else the sum over spans that report their own usage
 * (so nested spans are not counted twice, since MLflow puts usage on the model-call span only).
 */
export function traceFigures(trace: unknown): TraceFigures {
	const out: TraceFigures = {};
	if (!isObject(trace)) return out;
	const info = isObject(trace.info) ? trace.info : {};
	const data = isObject(trace.data) ? trace.data : {};
	const spans = Array.isArray(data.spans) ? data.spans.filter(isObject) : [];
	const root = spans.find(isRoot);

	const ms = num(info.execution_time_ms ?? info.execution_duration_ms);
	out.latency_seconds =
		ms !== undefined
			? ms / 1000
			: (durationSeconds(info.execution_duration) ?? (root ? spanSeconds(root) : undefined));

	const meta = isObject(info.trace_metadata)
		? info.trace_metadata
		: isObject(info.request_metadata)
			? info.request_metadata
			: {};
	let total = usage(meta['mlflow.trace.tokenUsage']);
	if (!total) {
		for (const s of spans) {
			const u = spanUsage(s);
			if (!u) continue;
			total ??= {};
			if (u.input !== undefined) total.input = (total.input ?? 0) + u.input;
			if (u.output !== undefined) total.output = (total.output ?? 0) + u.output;
			const t = u.total ?? (u.input ?? 0) + (u.output ?? 0);
			total.total = (total.total ?? 0) + t;
		}
	}
	if (total) {
		out.input_token_count = total.input;
		out.output_token_count = total.output;
		out.total_token_count =
			total.total ??
			(total.input !== undefined || total.output !== undefined
				? (total.input ?? 0) + (total.output ?? 0)
				: undefined);
	}

	if (data.response !== undefined && data.response !== null) out.response = decoded(data.response);
	else if (root) {
		const attrs = isObject(root.attributes) ? root.attributes : {};
		const outputs = root.outputs ?? attrs['mlflow.spanOutputs'];
		if (outputs !== undefined && outputs !== null) out.response = decoded(outputs);
	}
	for (const k of Object.keys(out) as (keyof TraceFigures)[]) {
		if (out[k] === undefined) delete out[k];
	}
	return out;
}
