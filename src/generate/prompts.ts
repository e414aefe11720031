/**
 * What the Eval Set Generator asks the model, declared like the judges (src/judges/types.ts) so
 * every call goes through the judges' one call path: nonce-delimited data blocks for document
 * text, structured output with the ladder and one re-ask, the verdict cache, the governor and the
 * spend limit. One declaration per question kind; two small checks (is a question answerable
 * from a passage; is it answerable without any document). The groundedness check of expected
 * facts reuses the Groundedness (Yes/No) judge itself (./check.ts).
 */
import { z } from 'zod';
import type { InputDecl, ParamDecl, Scale } from '../core/types';
import { judgeOutput } from '../judges/output';
import { reasonText, yesNo } from '../judges/parse';
import type { JudgeDecl } from '../judges/types';

/** The kinds of question the generator writes. */
export const QUESTION_KINDS = [
	'single_fact',
	'reasoning',
	'multi_chunk',
	'conversational',
	'unanswerable',
] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** Display names of the kinds (node options, docs). */
export const KIND_NAMES: Record<QuestionKind, string> = {
	single_fact: 'Single Fact',
	reasoning: 'Reasoning',
	multi_chunk: 'Multi-Chunk',
	conversational: 'Conversational Follow-Up',
	unanswerable: 'Unanswerable',
};

/** Passages a kind is written from: multi-chunk questions need two. */
export function passagesFor(kind: QuestionKind): number {
	return kind === 'multi_chunk' ? 2 : 1;
}

/** What the generator model returns for one question. */
export interface GeneratedQuestion {
	opening_question: string;
	opening_answer: string;
	question: string;
	expected_facts: string[];
	expected_response: string;
	cited_sources: string[];
}

const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };

const passagesInput: InputDecl = {
	name: 'passages',
	displayName: 'Passages',
	field: 'passages',
	kind: 'contexts',
	required: true,
	blankIsMissing: true,
	needsContent: true,
	description:
		'Document chunks to write the question from: a list of {doc_uri (the chunk id), content}',
};

const generatorParams: ParamDecl[] = [
	{
		name: 'language',
		displayName: 'Language',
		type: 'string',
		default: 'the language of the passages',
		description: 'Language the question and answer are written in',
	},
	{
		name: 'persona',
		displayName: 'Persona',
		type: 'string',
		default: 'a user of the product or service the documents describe',
		description: 'Who asks the question',
	},
	{
		name: 'variant',
		displayName: 'Variant',
		type: 'number',
		default: 1,
		description: 'Which question this is for the same passages and kind (1 = the first)',
	},
];

const questionOutput = judgeOutput(
	'eval_set_question',
	z.object({
		opening_question: z
			.string()
			.describe('conversational kind only: the first question of the conversation; else empty'),
		opening_answer: z
			.string()
			.describe('conversational kind only: the answer to the first question; else empty'),
		question: reasonText().describe('the question, as the asker would type it'),
		expected_facts: z
			.array(z.string())
			.describe(
				'each fact a correct answer must state, one short sentence each; empty when the passages do not answer the question',
			),
		expected_response: z
			.string()
			.describe(
				'a short correct answer using only the passages; for an unanswerable question, say the documents do not answer it',
			),
		cited_sources: z
			.array(z.string())
			.describe(
				'the source labels of the passages the answer comes from, exactly as shown; empty when unanswerable',
			),
	}),
);

const COMMON_RULES = [
	'You write test questions for evaluating a question-answering assistant that searches a collection of documents.',
	'You are given one or more passages from those documents; each passage is shown with its source label.',
	'Write the question as {persona} would, in {language}. Do not mention "the passage", "the text" or "the document" in the question: the asker has not seen them.',
	'The question must make sense on its own, naming what it is about, because the assistant will search many documents for it.',
	'Expected facts are the few short statements a correct answer must contain, each supported word for word or by plain paraphrase of the passages. Do not add knowledge from outside the passages.',
	'List in cited_sources the source labels of every passage your facts come from, copied exactly.',
	'This is request number {variant} for these passages and this kind of question: when it is above 1, ask about a different detail than the most obvious one.',
];

const KIND_RULES: Record<QuestionKind, string[]> = {
	single_fact: [
		'Kind: single fact. Ask for one specific fact the passage states (a number, name, date, condition, step or definition), answerable from one sentence or two.',
		'Leave opening_question and opening_answer empty.',
	],
	reasoning: [
		'Kind: reasoning. Ask a question whose answer needs a short inference from what the passage states: applying a rule to a case, comparing two stated values, or following two steps of a procedure. The answer must still follow from the passage alone.',
		'Leave opening_question and opening_answer empty.',
	],
	multi_chunk: [
		'Kind: multi-passage. Ask a question that can only be answered by combining information from at least two of the passages; one passage alone must not be enough.',
		'Cite every passage the answer combines (at least two).',
		'Leave opening_question and opening_answer empty.',
	],
	conversational: [
		'Kind: conversational follow-up. Write a two-turn conversation: an opening question with its answer from the passage, then a follow-up question that only makes sense after the opening (it may use "it", "that" or "what about"), whose answer is also in the passage.',
		'The expected facts and expected response answer the follow-up question.',
	],
	unanswerable: [
		'Kind: unanswerable. Ask a question on the same topic that a user could plausibly ask but that the passages do NOT answer: a detail they never state. It must not be answerable by inference from the passages either.',
		'Leave expected_facts and cited_sources empty; expected_response says that the documents do not give this information.',
		'Leave opening_question and opening_answer empty.',
	],
};

/** The generator declaration for one kind of question. */
function generatorDecl(kind: QuestionKind): JudgeDecl<GeneratedQuestion> {
	return {
		id: `generate_${kind}`,
		version: '1',
		displayName: `Eval Set Generator (${KIND_NAMES[kind]})`,
		description: `Writes one ${KIND_NAMES[kind].toLowerCase()} test question from document passages`,
		reference:
			'Synthetic evaluation sets from documents (Ragas test set generation; Databricks synthetic evaluation sets)',
		inputs: [passagesInput],
		params: generatorParams,
		scale: BINARY,
		threshold: { default: 1, direction: 'higher' },
		prompt: {
			system: [...COMMON_RULES, ...KIND_RULES[kind]].join('\n'),
			user: 'Passages:\n{passages}\n\nWrite one question of the kind asked, with its expected facts, expected response and cited sources.',
		},
		output: questionOutput,
		toValue: () => true,
		toReason: (p) => p.question,
		toDetails: (p) => ({ generated: p }),
	};
}

/** One generator declaration per kind. */
export const GENERATORS: Record<QuestionKind, JudgeDecl<GeneratedQuestion>> = Object.fromEntries(
	QUESTION_KINDS.map((k) => [k, generatorDecl(k)]),
) as Record<QuestionKind, JudgeDecl<GeneratedQuestion>>;

interface YesNo {
	reason: string;
	verdict: 'yes' | 'no';
}

const questionInput: InputDecl = {
	name: 'request',
	displayName: 'Question',
	field: 'request',
	kind: 'text',
	required: true,
	blankIsMissing: true,
	description: 'The generated question',
};

/**
 * Does a passage answer the question? An unanswerable question is kept only when the passages it
 * was written from do not answer it.
 */
export const answerableFromPassages: JudgeDecl<YesNo> = {
	id: 'generation_answerable',
	version: '1',
	displayName: 'Answerable from Passages',
	description: 'Says yes when the passages answer the question',
	reference: 'Eval Set Generator check for questions marked unanswerable',
	inputs: [
		questionInput,
		{ ...passagesInput, description: 'The passages the question was written from' },
	],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	prompt: {
		system: [
			'You decide whether some passages answer a question.',
			'Answer "yes" when the passages state the answer, or it follows from them by a plain inference.',
			'Answer "no" when the passages leave the question open: the detail asked for is not in them.',
			'Use only the passages, not your own knowledge.',
		].join('\n'),
		user: 'Question:\n{request}\n\nPassages:\n{passages}',
	},
	output: judgeOutput(
		'generation_answerable',
		z.object({
			reason: reasonText().describe('what the passages say about the question'),
			verdict: yesNo(),
		}),
	),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
};

/**
 * Could the question be answered correctly without the documents, from general knowledge? With
 * Require Documents, a question that could is dropped: it would not test retrieval.
 */
export const answerableWithoutDocuments: JudgeDecl<YesNo> = {
	id: 'generation_closed_book',
	version: '1',
	displayName: 'Answerable Without Documents',
	description: 'Says yes when general knowledge alone gives the expected answer',
	reference: 'Eval Set Generator check that a question needs the documents',
	inputs: [
		questionInput,
		{
			name: 'response',
			displayName: 'Expected Answer',
			field: 'response',
			kind: 'text',
			required: true,
			blankIsMissing: true,
			description: 'The expected answer (facts or response) of the generated question',
		},
	],
	params: [],
	scale: BINARY,
	threshold: { default: 0, direction: 'higher' },
	prompt: {
		system: [
			"You decide whether a question can be answered correctly without access to a particular organisation's documents.",
			'Answer "yes" when a well-informed person could give the expected answer from general or public knowledge alone.',
			'Answer "no" when the expected answer depends on specifics (names, numbers, rules, procedures) that only the documents would tell.',
		].join('\n'),
		user: 'Question:\n{request}\n\nExpected answer:\n{response}',
	},
	output: judgeOutput(
		'generation_closed_book',
		z.object({
			reason: reasonText().describe('what general knowledge would and would not give'),
			verdict: yesNo(),
		}),
	),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
};
