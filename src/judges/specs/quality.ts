/**
 * Coherence, fluency and similarity (Azure AI Studio, seed 000), each 1-5 from "completely
 * lacks" to "perfect":
 * - coherence: do the sentences fit together and read naturally as a whole (query + response);
 * - fluency: is each sentence well written and grammatical (query + response);
 * - similarity: is the response equivalent in information and content to the ground truth
 *   (query + ground truth + response), "not at all similar" to "completely similar".
 */
import type { JudgeDecl } from '../types';
import { LIKERT, groundTruthInput, likertOutput, requestInput, responseInput } from './common';
import type { LikertVerdict } from './common';

/** Azure coherence, 1-5. */
export const coherence: JudgeDecl<LikertVerdict> = {
	id: 'coherence',
	order: 60,
	version: '1',
	displayName: 'Coherence',
	description: 'Rates 1-5 how well the sentences of the response fit together and read naturally',
	reference: 'Azure AI Studio coherence (seed 000): query and response, 1-5 stars',
	anchorNames: ['CoherenceEvaluator'],
	inputs: [requestInput(true), responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'coherence',
		output: 5,
		fix: 'The response is hard to follow: ask for a structured answer in the prompt, or use a stronger generator.',
	},
	prompt: {
		system: [
			'You rate the coherence of an answer: how well its sentences connect and whether, taken as a whole, it reads naturally.',
			'Look at the answer overall, not at single sentences. The question is given only so you know what the answer is about.',
			'Scale (integers only):',
			'1 - no coherence at all.',
			'2 - mostly incoherent.',
			'3 - partly coherent.',
			'4 - mostly coherent.',
			'5 - fully coherent.',
		].join('\n'),
		user: 'Question:\n{request}\n\nAnswer to rate:\n{response}',
	},
	output: likertOutput('coherence'),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
};

/** Azure fluency, 1-5. */
export const fluency: JudgeDecl<LikertVerdict> = {
	id: 'fluency',
	order: 70,
	version: '1',
	displayName: 'Fluency',
	description: 'Rates 1-5 whether the sentences of the response are well written and grammatical',
	reference: 'Azure AI Studio fluency (seed 000): query and response, 1-5 stars',
	anchorNames: ['FluencyEvaluator'],
	inputs: [requestInput(true), responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'fluency',
		output: 6,
		fix: 'The response reads poorly: check the generator model, its language settings and any post-processing that mangles text.',
	},
	prompt: {
		system: [
			'You rate the fluency of an answer: whether its individual sentences are well written, grammatical and use words properly.',
			'Look at the quality of each sentence. The question is given only so you know what the answer is about.',
			'Scale (integers only):',
			'1 - not fluent at all.',
			'2 - mostly not fluent.',
			'3 - partly fluent.',
			'4 - mostly fluent.',
			'5 - perfectly fluent.',
		].join('\n'),
		user: 'Question:\n{request}\n\nAnswer to rate:\n{response}',
	},
	output: likertOutput('fluency'),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
};

/** Azure GPT-similarity (equivalence), 1-5. */
export const similarity: JudgeDecl<LikertVerdict> = {
	id: 'similarity',
	order: 80,
	version: '1',
	displayName: 'Similarity',
	description: 'Rates 1-5 how equivalent the response is to the ground truth answer',
	reference:
		'Azure AI Studio GPT-similarity (seed 000): query, ground truth, response; 1-5 equivalence',
	anchorNames: ['SimilarityEvaluator', 'GPT similarity'],
	inputs: [requestInput(true), groundTruthInput, responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'similarity',
		output: 7,
		fix: 'The response drifts from the expected answer: check the expected answer, then the prompt and retrieval for this question.',
	},
	prompt: {
		system: [
			'You rate how equivalent a predicted answer is to the correct answer for the same question.',
			'The more the information and content of the predicted answer match the correct answer, the higher the rating.',
			'Scale (integers only):',
			'1 - not similar to the correct answer at all.',
			'2 - mostly not similar.',
			'3 - somewhat similar.',
			'4 - mostly similar.',
			'5 - completely similar: equivalent in information and content.',
		].join('\n'),
		user: 'Question:\n{request}\n\nCorrect answer:\n{expected_response}\n\nPredicted answer to rate:\n{response}',
	},
	output: likertOutput('similarity'),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
};
