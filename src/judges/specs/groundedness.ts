/**
 * Groundedness (Azure AI Studio, prompt-only variant; seed 000, "Fundamentação baseada somente em
 * solicitação"): is the response entailed by the context? 1-5, 5 = follows from the context,
 * 1 = contradicted by it or undecidable from it, intermediate integers for partial support.
 * Factually correct statements the context cannot confirm still count as ungrounded. The query
 * is optional, as in the seed's table. Also `groundedness_verdict`, a yes/no variant in the
 * Databricks style (seed 001) for reuse by the Databricks judges.
 */
import {
	BINARY,
	LIKERT,
	contextInput,
	likertOutput,
	requestInput,
	responseInput,
	yesNoOutput,
} from './common';
import type { LikertVerdict, YesNoVerdict } from './common';
import type { RootCauseDecl } from '../../core/types';
import type { JudgeDecl } from '../types';

/**
 * The groundedness root-cause slot (seed 001: second in both orders), shared by the 1-5 and the
 * yes/no judge: a row with either one failing has groundedness as its cause.
 */
export const GROUNDEDNESS_SLOT: RootCauseDecl = {
	slot: 'groundedness',
	rank: { withGroundTruth: 2, withoutGroundTruth: 2 },
	output: 1,
	fix: 'The response asserts things the retrieved context does not support: constrain the generator to the context (answer only from it, cite passages, lower temperature) and let it say it does not know.',
};

/** Azure-style 1-5 groundedness. */
export const groundedness: JudgeDecl<LikertVerdict> = {
	id: 'groundedness',
	order: 10,
	version: '1',
	displayName: 'Groundedness',
	description: 'Rates 1-5 how far the response is supported by the retrieved context',
	reference:
		'Azure AI Studio groundedness, prompt-only (seed 000): CONTEXT and ANSWER, 1-5 entailment scale',
	anchorNames: ['GroundednessEvaluator', 'GroundednessProEvaluator'],
	inputs: [requestInput(false), contextInput(true), responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: GROUNDEDNESS_SLOT,
	prompt: {
		system: [
			'You check whether an answer is supported by a given context (natural language inference).',
			'Read the context carefully first, so you know exactly what it states and what it implies.',
			'Then rate the answer on this scale:',
			'5 - everything the answer says follows from the context.',
			'4 - nearly all of the answer follows from the context; a minor detail cannot be confirmed.',
			'3 - part of the answer follows from the context and part cannot be confirmed from it.',
			'2 - most of the answer cannot be confirmed from the context.',
			'1 - the answer contradicts the context, or whether it is true cannot be decided from the context at all.',
			'Judge only against the context: a statement that is true in the world but absent from the context is not supported.',
			'The question, when given, only tells you what the answer is about.',
			'The answer comes from a computer system and may contain stray symbols or markup; do not count those against it.',
		].join('\n'),
		user: 'Question:\n{request}\n\nContext:\n{retrieved_context}\n\nAnswer to check:\n{response}',
	},
	output: likertOutput('groundedness'),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
	// Azure AI Content Safety groundedness detection (seed 000's service version); src/safety/azureGroundedness.ts.
	serviceBackends: ['azure_content_safety'],
};

/** Yes/no groundedness (Databricks-style verdict). */
export const groundednessVerdict: JudgeDecl<YesNoVerdict> = {
	id: 'groundedness_verdict',
	order: 20,
	version: '1',
	displayName: 'Groundedness (Yes/No)',
	description: 'Says yes when every claim of the response is supported by the retrieved context',
	reference:
		'Databricks Agent Evaluation groundedness (seed 001): yes/no verdict with rationale; same entailment test as Azure groundedness (seed 000) and Spring AI FactCheckingEvaluator (seed 003, document vs claim)',
	anchorNames: ['is_grounded', 'RetrievalGroundedness'],
	inputs: [requestInput(false), contextInput(true), responseInput],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: GROUNDEDNESS_SLOT,
	databricks: {
		column: 'response/llm_judged/groundedness/rating',
		rationaleColumn: 'response/llm_judged/groundedness/rationale',
		runMetric: 'response/llm_judged/groundedness/rating/percentage',
	},
	prompt: {
		system: [
			'You check whether an answer is supported by a given context (natural language inference).',
			'Answer "yes" when every factual statement of the answer follows from the context.',
			'Answer "no" when any statement contradicts the context or cannot be confirmed from it, even if it is true in the world.',
			'The question, when given, only tells you what the answer is about.',
			'Stray symbols or markup in the answer do not matter.',
		].join('\n'),
		user: 'Question:\n{request}\n\nContext:\n{retrieved_context}\n\nAnswer to check:\n{response}',
	},
	output: yesNoOutput('groundedness_verdict'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
};
