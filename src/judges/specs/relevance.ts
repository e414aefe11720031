/**
 * Relevance, the three Azure AI Studio variants (seed 000, "Relevância"), one declaration each so
 * every node has a fixed set of inputs:
 * - `relevance`: query + context + response; 1-5 from "completely lacks relevance" to "perfect",
 *   judged on whether all and only the important aspects of the query are addressed.
 * - `relevance_conversation`: conversation without ground truth; the judge first writes a
 *   reference answer from the history, query and documents only, then rates 1 (never usable) to
 *   5 (ideal, strict); 5 when no documents were retrieved (answered here without a model call).
 * - `relevance_conversation_gt`: with ground truth; 5 ideal and consistent, 4 a little too narrow
 *   or broad, 3 partly helpful, 2-1 barely/not relevant and contradicting; a contradiction of the
 *   ground truth always scores 1-2 (enforced on the parsed reply).
 */
import { z } from 'zod';
import { judgeOutput } from '../output';
import { likertInt, reasonText, yesNo } from '../parse';
import type { JudgeDecl } from '../types';
import {
	LIKERT,
	contextInput,
	groundTruthInput,
	historyInput,
	likertOutput,
	requestInput,
	responseInput,
} from './common';
import type { LikertVerdict } from './common';

/** Query/response relevance with context. */
export const relevance: JudgeDecl<LikertVerdict> = {
	id: 'relevance',
	order: 30,
	version: '1',
	displayName: 'Relevance',
	description:
		'Rates 1-5 how well the response addresses the main aspects of the query, given the context',
	reference:
		'Azure AI Studio relevance, query/response format (seed 000): query, context, response; 1-5 stars',
	anchorNames: ['RelevanceEvaluator'],
	inputs: [requestInput(true), contextInput(true), responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'relevance',
		output: 2,
		fix: 'The response does not address the query well: check the prompt template and that the request reaches the generator intact.',
	},
	prompt: {
		system: [
			'You rate how relevant an answer is to a question, using the supplied context as background.',
			'An answer is relevant when it covers the important aspects of the question, and only those: missing key points and padding with unrelated material both lower the rating.',
			'Scale (integers only):',
			'1 - the answer is not relevant at all.',
			'2 - the answer is mostly irrelevant.',
			'3 - the answer is partly relevant.',
			'4 - the answer is mostly relevant.',
			'5 - the answer is fully relevant: every important aspect and nothing beside the point.',
		].join('\n'),
		user: 'Question:\n{request}\n\nContext:\n{retrieved_context}\n\nAnswer to rate:\n{response}',
	},
	output: likertOutput('relevance'),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
};

/** Parsed output of the conversation variant: the reference answer comes before the rating. */
export interface ConversationRelevanceVerdict {
	reference_answer: string;
	reason: string;
	score: number;
}

/** Conversation relevance without ground truth. */
export const relevanceConversation: JudgeDecl<ConversationRelevanceVerdict> = {
	id: 'relevance_conversation',
	order: 40,
	version: '1',
	displayName: 'Relevance (Conversation)',
	description:
		'Rates 1-5 a conversational response against a reference answer built from the history and retrieved documents',
	reference:
		'Azure AI Studio relevance, conversation format without ground truth (seed 000): reference answer from history, query and documents; 5 when no documents were retrieved',
	anchorNames: ['RelevanceEvaluator', 'conversation relevance'],
	inputs: [requestInput(true), historyInput, contextInput(false), responseInput],
	params: [
		{
			name: 'domain',
			displayName: 'Domain',
			type: 'string',
			default: 'general',
			description: 'Subject area of the conversation, named in the prompt (e.g. "insurance")',
		},
	],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'relevance_conversation',
		output: 3,
		fix: "The reply does not serve the latest turn of the conversation: check how history reaches the generator (truncation, ordering) and whether the agent lost track of the user's question.",
	},
	prompt: {
		system: [
			'You evaluate the reply a {domain} assistant gave to the latest query of a conversation.',
			'Work in this order:',
			'1. Use the conversation history to understand what the query really asks.',
			'2. Write a reference answer using only the history, the query and the retrieved documents, not your own knowledge.',
			'3. Rate the reply against that reference answer and the history:',
			'5 - ideal: the reply contains everything needed to answer the query. Give 5 sparingly.',
			'4 - mostly relevant, though a little too narrow or too broad.',
			'3 - somewhat relevant: partly helpful, but hard to read or mixed with irrelevant content.',
			'2 - barely relevant: at best a last resort.',
			'1 - irrelevant: it should never be used to answer this query.',
			'If no reference answer can be written because the documents hold nothing relevant, rate 5.',
			'The reply may be in any language; judge its meaning. Write the reference answer, reason and rating in English.',
		].join('\n'),
		user: 'Conversation history:\n{history}\n\nQuery:\n{request}\n\nRetrieved documents:\n{retrieved_context}\n\nReply to rate:\n{response}',
	},
	output: judgeOutput(
		'relevance_conversation',
		z.object({
			reference_answer: z
				.string()
				.describe('answer built only from the history, query and documents'),
			reason: reasonText().describe('why the score was given'),
			score: likertInt(1, 5).describe('the rating, an integer from 1 to 5'),
		}),
	),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
	toDetails: (p) => ({ referenceAnswer: p.reference_answer }),
	fixedResult: (inputs) =>
		inputs.context === undefined
			? {
					value: 5,
					reason:
						'No documents were retrieved, so no reference answer can be built; the rubric rates this case 5.',
				}
			: null,
};

/** Parsed output of the ground-truth variant. */
export interface GroundTruthRelevanceVerdict {
	reason: string;
	contradicts_ground_truth: 'yes' | 'no';
	score: number;
}

/** Conversation relevance with ground truth: contradictions score 1-2. */
export const relevanceConversationGt: JudgeDecl<GroundTruthRelevanceVerdict> = {
	id: 'relevance_conversation_gt',
	order: 50,
	version: '1',
	displayName: 'Relevance (Conversation, Ground Truth)',
	description:
		'Rates 1-5 whether the response answers the query as fully as the ground truth, without contradicting it',
	reference:
		'Azure AI Studio relevance, conversation format with ground truth (seed 000): 1-5, contradictions of the ground truth score 1-2',
	anchorNames: ['RelevanceEvaluator', 'conversation relevance'],
	inputs: [requestInput(true), historyInput, groundTruthInput, responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'relevance_conversation_gt',
		output: 4,
		fix: 'The reply misses what the reference answer for this turn gives: check the reference first, then how history and retrieval feed this turn.',
	},
	prompt: {
		system: [
			'You rate how relevant a generated answer is to a query, measured against a ground-truth answer.',
			'Mainly ask: does the generated answer carry enough information to answer the query, judged by what the ground truth contains?',
			'Lower the rating for missing information and for much extraneous material.',
			'If the generated answer contradicts the ground truth (for "Is water wet?", ground truth "Yes", answer "No, it is not"), the rating must be 1 or 2, and the reason must name the contradiction.',
			'Scale:',
			'5 - ideal: all the information needed to answer, consistent with the ground truth.',
			'4 - mostly relevant, a little too narrow or too broad, consistent with the ground truth.',
			'3 - somewhat relevant: partly helpful but hard to read or padded, consistent with the ground truth.',
			'2 - barely relevant, a last resort, and it contradicts the ground truth.',
			'1 - irrelevant, never usable for this query, and it contradicts the ground truth.',
			'Use the conversation history, when given, to understand the query.',
		].join('\n'),
		user: 'Conversation history:\n{history}\n\nQuery:\n{request}\n\nGround truth answer:\n{expected_response}\n\nGenerated answer to rate:\n{response}',
	},
	output: judgeOutput(
		'relevance_conversation_gt',
		z
			.object({
				reason: reasonText().describe('why the score was given'),
				contradicts_ground_truth: yesNo(),
				score: likertInt(1, 5).describe('the rating, an integer from 1 to 5'),
			})
			.refine((v) => v.contradicts_ground_truth === 'no' || v.score <= 2, {
				message: 'an answer that contradicts the ground truth must score 1 or 2',
				path: ['score'],
			}),
	),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
	toDetails: (p) => ({ contradictsGroundTruth: p.contradicts_ground_truth === 'yes' }),
};
