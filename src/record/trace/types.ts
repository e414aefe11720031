/**
 * What reading a trace gives: the recognised format, the per-row figures and record fields
 * (`ParsedTrace`), each LLM call counted (`LlmCall`), and the error for unreadable traces.
 */
import type { RetrievedChunk, ToolCall, ToolDefinition } from '../schema';

/** Which trace shape `parseTrace` recognised. */
export type TraceFormat =
	| 'mlflow2'
	| 'mlflow3'
	| 'otlp'
	| 'spans'
	| 'otel-js'
	| 'n8n'
	| 'langfuse'
	| 'langsmith'
	| 'deepeval';

/** Token usage of one LLM call, with the model that served it when the trace says so. */
export interface LlmCall {
	/** Span name (MLflow, OTel) or node name (n8n). */
	name: string;
	model?: string;
	input_tokens?: number;
	output_tokens?: number;
	total_tokens?: number;
	/** n8n recorded an estimate (`tokenUsageEstimate`) because the provider reported no usage. */
	estimated?: boolean;
}

/** What `parseTrace` reads from a trace; a field is absent when the trace does not carry it. */
export interface ParsedTrace {
	format: TraceFormat;
	/** Spans (or n8n node runs) read. */
	spans: number;
	/** The application's input: root span inputs, MLflow `data.request`, n8n `chatInput`. */
	request?: unknown;
	/** The application's final output: root span outputs, MLflow `data.response`, agent output. */
	response?: unknown;
	/** Documents of the last retriever span in time (seed 002), with `doc_uri` when known. */
	retrieved_context?: RetrievedChunk[];
	/** Tool calls the trace records (tool spans, n8n tool sub-nodes), in time order. */
	tool_calls?: ToolCall[];
	/** Tools the agent had (n8n: the tool nodes connected to the agent), when the trace says. */
	tool_definitions?: ToolDefinition[];
	/** Input + output tokens over every LLM span (seed 001). */
	total_token_count?: number;
	/** Input tokens over every LLM span (seed 001). */
	total_input_token_count?: number;
	/** Output tokens over every LLM span (seed 001). */
	total_output_token_count?: number;
	/** End-to-end latency in seconds (seed 001). */
	latency_seconds?: number;
	/** Each LLM call counted in the token totals, for pricing by model. */
	llm_calls: LlmCall[];
	/** Things a reader should know: no LLM spans, estimated usage, spans without usage. */
	notes: string[];
}

/** A trace that cannot be read: malformed, unrecognised, or with a negative duration. */
export class TraceError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'TraceError';
	}
}
