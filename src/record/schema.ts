/**
 * The canonical eval record. Its spine is the Databricks Agent Evaluation input schema (seed 002):
 * snake_case names, at most one of `expected_facts` and `expected_response`. `request` and
 * `response` are each optional (a golden set has no responses; Azure's NLP data has no query), but
 * a record carries at least one of them, a trace, or retrieval data (a retrieval-only row: the
 * documents retrieved and their relevance labels, as Azure's document-retrieval data has them). Azure, Spring AI, Ragas and DeepEval rows are
 * mapped onto it by adapters.
 */
import { z } from 'zod';

/**
 * A chunk the application retrieved. Seed 002 makes `content` optional: a chunk may carry only its
 * `doc_uri` (enough for document recall); judges that need the text skip such a chunk. Text-only
 * chunks (Azure `context`, Ragas, DeepEval, Spring AI) carry only `content`.
 */
export const RetrievedChunk = z
	.object({
		doc_uri: z.string().optional(),
		content: z.string().optional(),
		/** The document's title, when the source gives one (Azure `context.citations[].title`). */
		title: z.string().optional(),
		/** The document's relevance label, when the source labels what was retrieved. */
		grade: z.number().nonnegative().optional(),
		/** The retriever's own score for the document (Azure `relevance_score`), when given. */
		score: z.number().optional(),
	})
	.refine((c) => c.doc_uri !== undefined || c.content !== undefined, {
		message: 'needs doc_uri or content',
	});
/** A chunk the application retrieved. */
export type RetrievedChunk = z.infer<typeof RetrievedChunk>;

/**
 * A chunk that should have been retrieved. Databricks requires `doc_uri` (document recall needs
 * it); Ragas reference contexts without ids and DeepEval `context` carry text only.
 */
export const ExpectedChunk = z
	.object({
		doc_uri: z.string().optional(),
		content: z.string().optional(),
		title: z.string().optional(),
		/** Graded or binary relevance (Azure `query_relevance_label`); ungraded means relevant. */
		grade: z.number().nonnegative().optional(),
		score: z.number().optional(),
	})
	.refine((c) => c.doc_uri !== undefined || c.content !== undefined, {
		message: 'needs doc_uri or content',
	});
/** A chunk that should have been retrieved. */
export type ExpectedChunk = z.infer<typeof ExpectedChunk>;

/**
 * A tool call the application made, one shape for every source (n8n executions and AI Agent
 * intermediate steps, OpenAI messages, Azure agent messages, Ragas, DeepEval, trace tool spans;
 * src/record/toolcalls.ts). `arguments` keep their structure (JSON text is parsed); arguments that
 * are text but not JSON stay in `arguments_raw` and `arguments` is then absent. `result` is what
 * the tool returned (paired by `id` from the tool turn), `error` why it failed. `position` is the
 * call's 0-based place in the trajectory, `turn` the 0-based assistant turn (agent step) that
 * made it, when the source says.
 */
export const ToolCall = z.object({
	id: z.string().optional(),
	name: z.string(),
	arguments: z.unknown().optional(),
	arguments_raw: z.string().optional(),
	result: z.unknown().optional(),
	error: z.string().optional(),
	position: z.number().int().nonnegative().optional(),
	turn: z.number().int().nonnegative().optional(),
});
/** A tool call the application made. */
export type ToolCall = z.infer<typeof ToolCall>;

/**
 * A tool the application could call: its name, description and parameter JSON schema (OpenAI
 * `function.parameters`, MCP `inputSchema`, n8n `$fromAI` parameters), plus what the source gave.
 */
export const ToolDefinition = z
	.object({
		name: z.string(),
		description: z.string().optional(),
		parameters: z.unknown().optional(),
	})
	.passthrough();
/** A tool the application could call. */
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/**
 * One chat turn with its text; the original form is kept in `request_raw`. A turn may carry the
 * context it cited (Azure per-turn `context`, DeepEval `retrieval_context`), the tool calls it made,
 * or, for a tool turn, the id of the call it answers.
 */
export const ChatMessage = z.object({
	role: z.string(),
	content: z.string(),
	context: z.array(RetrievedChunk).optional(),
	tool_calls: z.array(ToolCall).optional(),
	tool_call_id: z.string().optional(),
});
/** One chat turn. */
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * Dataset schemas the adapters understand, in the order detection breaks ties: Databricks
 * (canonical names), Azure AI Evaluation (with the legacy promptflow QA names), Ragas, DeepEval,
 * Spring AI, OpenAI evals, and the nested records of MLflow 3, LangSmith and Phoenix, promptfoo
 * test CSVs, Amazon Bedrock evaluation job datasets and TruLens records-and-feedback tables.
 */
export const SCHEMAS = [
	'databricks',
	'azure',
	'ragas',
	'deepeval',
	'spring-ai',
	'openai-evals',
	'mlflow',
	'langsmith',
	'phoenix',
	'promptfoo',
	'bedrock',
	'trulens',
] as const;
/** A dataset schema name. */
export type SchemaName = (typeof SCHEMAS)[number];

/**
 * Where a record came from; `items` means rows handed over already parsed. `present` says whether
 * the dataset row itself carried a request and a response (a golden set has no responses: the app
 * under test produces them after Eval Dataset, so read `response`, not this flag, downstream).
 */
export const RecordSource = z.object({
	format: z.enum(['json', 'jsonl', 'csv', 'items']),
	schema: z.string(),
	row: z.number().int().positive(),
	fingerprint: z.string(),
	present: z.object({ request: z.boolean(), response: z.boolean() }),
});
/** Where a record came from. */
export type RecordSource = z.infer<typeof RecordSource>;

const count = z.number().int().nonnegative();

const EvalRecordObject = z.object({
	request_id: z.string(),
	request: z.string().optional(),
	request_raw: z.unknown().optional(),
	history: z.array(ChatMessage).optional(),
	response: z.string().optional(),
	response_raw: z.unknown().optional(),
	expected_response: z.string().optional(),
	expected_facts: z.array(z.string()).optional(),
	guidelines: z.union([z.array(z.string()), z.record(z.array(z.string()))]).optional(),
	retrieved_context: z.array(RetrievedChunk).optional(),
	expected_retrieved_context: z.array(ExpectedChunk).optional(),
	tool_calls: z.array(ToolCall).optional(),
	expected_tool_calls: z.array(ToolCall).optional(),
	tool_definitions: z.array(ToolDefinition).optional(),
	/** What the agent should have achieved (Ragas `reference` of agent goal accuracy, a task's end state). */
	expected_outcome: z.string().optional(),
	trace: z.unknown().optional(),
	latency_seconds: z.number().nonnegative().optional(),
	total_input_token_count: count.optional(),
	total_output_token_count: count.optional(),
	total_token_count: count.optional(),
	metadata: z.record(z.unknown()),
	source: RecordSource,
});

/**
 * Zod schema of the canonical record. Unknown top-level keys pass through because items keep
 * travelling through a workflow (metric nodes add `eval`), and re-validating must not strip them.
 */
export const EvalRecord = EvalRecordObject.passthrough().superRefine((r, ctx) => {
	if (
		r.request === undefined &&
		r.response === undefined &&
		r.trace === undefined &&
		r.retrieved_context === undefined &&
		r.expected_retrieved_context === undefined
	) {
		ctx.addIssue({
			code: 'custom',
			path: ['request'],
			message: 'a request, a response, a trace or retrieval data is required',
		});
	}
	if (r.expected_facts !== undefined && r.expected_response !== undefined) {
		ctx.addIssue({
			code: 'custom',
			path: ['expected_facts'],
			message: 'give at most one of expected_facts and expected_response',
		});
	}
});
/** The canonical record every judge and metric node reads from. */
export type EvalRecord = z.infer<typeof EvalRecordObject>;
