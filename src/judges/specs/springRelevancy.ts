/**
 * Relevancy (Spring AI RelevancyEvaluator, seed 003): is the response for the query in line with
 * the context information? The seed's prompt asks for a bare YES/NO; here the same question is
 * asked with our structured output (rationale, then yes/no) and nonce-delimited data. A model that
 * answers as the seed's prompt asks, a bare YES or NO, is taken at its word: the Score keeps the
 * verdict and says the model gave no reason (`details.bareReply` holds the reply).
 */
import type { JudgeDecl } from '../types';
import {
	BINARY,
	contextInput,
	requestInput,
	responseInput,
	yesNoOutput,
	type YesNoVerdict,
} from './common';

/** Spring AI RelevancyEvaluator. */
export const springRelevancy: JudgeDecl<YesNoVerdict> = {
	id: 'relevancy',
	order: 160,
	version: '1',
	displayName: 'Relevancy (Spring AI)',
	description:
		'Says yes when the response to the query is in line with the context information (Spring AI RelevancyEvaluator)',
	reference:
		'Spring AI RelevancyEvaluator (seed 003): userText, dataList, responseContent; YES/NO on whether the response is in line with the context',
	anchorNames: ['RelevancyEvaluator'],
	inputs: [requestInput(true), contextInput(true), responseInput],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: {
		slot: 'relevancy',
		output: 15,
		fix: 'The response is not in line with the retrieved context for this query: check that the context reaches the generator and that the prompt asks it to answer from that context.',
	},
	prompt: {
		system: [
			'You decide whether the answer to a query is in line with the context information provided.',
			'Answer "yes" when the answer responds to the query and agrees with the context; answer "no" when it ignores the context, contradicts it, or does not answer the query.',
		].join('\n'),
		user: 'Query:\n{request}\n\nContext:\n{retrieved_context}\n\nAnswer to check:\n{response}',
	},
	output: yesNoOutput('relevancy'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
	bareYesNo: {
		verdict: (yes, reply) => ({
			verdict: yes ? 'yes' : 'no',
			reason: `The model answered ${JSON.stringify(reply)} and gave no reason (the seed's prompt asks for a bare YES/NO).`,
		}),
	},
};
