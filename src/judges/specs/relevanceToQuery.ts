/**
 * Relevance to query (Databricks Agent Evaluation, seed 001): does the response address the
 * user's request? Yes/no with a rationale; inputs request and response, no ground truth.
 */
import type { JudgeDecl } from '../types';
import { BINARY, requestInput, responseInput, yesNoOutput, type YesNoVerdict } from './common';

/** Databricks relevance_to_query. */
export const relevanceToQuery: JudgeDecl<YesNoVerdict> = {
	id: 'relevance_to_query',
	order: 100,
	version: '1',
	displayName: 'Relevance to Query',
	description: 'Says yes when the response addresses the request',
	reference:
		'Databricks Agent Evaluation relevance_to_query (seed 001): request and response, yes/no with rationale',
	anchorNames: ['RelevanceToQuery', 'is_context_relevant'],
	inputs: [requestInput(true), responseInput],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: {
		slot: 'relevance_to_query',
		rank: { withoutGroundTruth: 3 },
		output: 13,
		fix: 'The response does not address the request: check the prompt template, how history and the request reach the generator, and whether the agent answered a different question.',
		aliases: ['relevant_to_query'],
	},
	databricks: {
		column: 'response/llm_judged/relevance_to_query/rating',
		rationaleColumn: 'response/llm_judged/relevance_to_query/rationale',
		runMetric: 'response/llm_judged/relevance_to_query/rating/percentage',
	},
	prompt: {
		system: [
			'You decide whether an answer addresses the request it was given.',
			'Answer "yes" when the answer responds to what the request actually asks, even if it is brief or you cannot check its facts.',
			'Answer "no" when it answers a different question, ignores part of the request that matters, or only talks around it.',
			'Do not judge whether the answer is true; only whether it is on point.',
		].join('\n'),
		user: 'Request:\n{request}\n\nAnswer to check:\n{response}',
	},
	output: yesNoOutput('relevance_to_query'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
};
