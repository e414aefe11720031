/**
 * Context sufficiency (Databricks Agent Evaluation, seed 001): did retrieval find documents with
 * enough information to produce the expected response (or every expected fact)? Yes/no with a
 * rationale; needs request, retrieved context and ground truth. With expected facts, the verdict
 * per fact says which ones the context lacks.
 */
import type { JudgeDecl } from '../types';
import { expectedFactsInput, expectedResponseInput, needsExpected } from './agent';
import { BINARY, contextInput, requestInput } from './common';
import { factsOutput, factsReason, missingFacts, type FactsVerdict } from './correctness';

/** Databricks context_sufficiency. */
export const contextSufficiency: JudgeDecl<FactsVerdict> = {
	id: 'context_sufficiency',
	order: 140,
	version: '1',
	displayName: 'Context Sufficiency',
	description:
		'Says yes when the retrieved context holds everything needed to produce the expected response or facts',
	reference:
		'Databricks Agent Evaluation context_sufficiency (seed 001): request, retrieved_context and expected_response (or expected_facts); yes/no with rationale',
	anchorNames: ['RetrievalSufficiency', 'is_context_sufficient'],
	inputs: [requestInput(true), contextInput(true), expectedResponseInput, expectedFactsInput],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: {
		slot: 'context_sufficiency',
		rank: { withGroundTruth: 1 },
		output: 9,
		fix: 'The retrieved context lacks what the expected answer needs: improve retrieval (query rewriting, hybrid search, a reranker, larger or more chunks) or add the missing facts to the corpus.',
	},
	databricks: {
		column: 'retrieval/llm_judged/context_sufficiency/rating',
		rationaleColumn: 'retrieval/llm_judged/context_sufficiency/rationale',
		runMetric: 'retrieval/llm_judged/context_sufficiency/rating/percentage',
	},
	prompt: {
		system: [
			'You decide whether retrieved documents contain enough information to write the expected answer to a request.',
			'Judge only the documents: do not use your own knowledge, and do not judge any generated answer.',
			'When expected facts are given, check each one: it is supported when the documents state it or clearly imply it. List every expected fact with "yes" or "no"; the verdict is "yes" only when all are supported.',
			'When an expected response is given, the verdict is "yes" when every essential statement of it can be derived from the documents.',
			'When no expected facts are given, return an empty facts list.',
		].join('\n'),
		user: 'Request:\n{request}\n\nRetrieved documents:\n{retrieved_context}\n\nExpected response:\n{expected_response}\n\nExpected facts:\n{expected_facts}',
	},
	output: factsOutput('context_sufficiency', 'the retrieved context'),
	toValue: (p) => p.verdict === 'yes' && missingFacts(p).length === 0,
	toReason: factsReason,
	toDetails: (p) => (p.facts.length > 0 ? { facts: p.facts, missingFacts: missingFacts(p) } : {}),
	notApplicable: needsExpected,
};
