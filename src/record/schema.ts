/**
 * The canonical eval record. Its spine is the Databricks Agent Evaluation input schema (seed 002):
 * snake_case names, `response` or `trace` required, at most one of `expected_facts` and
 * `expected_response`. Azure, Spring AI, Ragas and DeepEval rows are mapped onto it by adapters.
 */
import { z } from 'zod';

/** One chat turn reduced to text; the original form is kept in `request_raw`. */
export const ChatMessage = z.object({ role: z.string(), content: z.string() });
/** One chat turn reduced to text. */
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * A chunk the application retrieved. Seed 002 requires `doc_uri` and makes `content` optional;
 * other formats carry text without ids, so either is enough. Judges that read the text report a
 * content-less chunk as not applicable; the retrieval metrics need only the URI.
 */
export const RetrievedChunk = z
	.object({ doc_uri: z.string().optional(), content: z.string().optional() })
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
	.object({ doc_uri: z.string().optional(), content: z.string().optional() })
	.refine((c) => c.doc_uri !== undefined || c.content !== undefined, {
		message: 'needs doc_uri or content',
	});
/** A chunk that should have been retrieved. */
export type ExpectedChunk = z.infer<typeof ExpectedChunk>;

/** Dataset schemas the adapters understand. */
export const SCHEMAS = ['databricks', 'azure', 'ragas', 'deepeval', 'spring-ai'] as const;
/** A dataset schema name. */
export type SchemaName = (typeof SCHEMAS)[number];

/** Where a record came from; `items` means rows handed over already parsed. */
export const RecordSource = z.object({
	format: z.enum(['json', 'jsonl', 'csv', 'items']),
	schema: z.string(),
	row: z.number().int().positive(),
	fingerprint: z.string(),
});
/** Where a record came from. */
export type RecordSource = z.infer<typeof RecordSource>;

const count = z.number().int().nonnegative();

const EvalRecordObject = z.object({
	request_id: z.string(),
	request: z.string(),
	request_raw: z.unknown().optional(),
	history: z.array(ChatMessage).optional(),
	response: z.string().optional(),
	response_raw: z.unknown().optional(),
	expected_response: z.string().optional(),
	expected_facts: z.array(z.string()).optional(),
	guidelines: z.union([z.array(z.string()), z.record(z.array(z.string()))]).optional(),
	retrieved_context: z.array(RetrievedChunk).optional(),
	expected_retrieved_context: z.array(ExpectedChunk).optional(),
	trace: z.unknown().optional(),
	latency_seconds: z.number().nonnegative().optional(),
	input_token_count: count.optional(),
	output_token_count: count.optional(),
	total_token_count: count.optional(),
	metadata: z.record(z.unknown()),
	source: RecordSource,
});

/**
 * Zod schema of the canonical record. Unknown top-level keys pass through because items keep
 * travelling through a workflow (metric nodes add `eval`), and re-validating must not strip them.
 */
export const EvalRecord = EvalRecordObject.passthrough().superRefine((r, ctx) => {
	if (r.response === undefined && r.trace === undefined) {
		ctx.addIssue({ code: 'custom', path: ['response'], message: 'response or trace is required' });
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
