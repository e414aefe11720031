/**
 * Pairwise Judge: which of two answers to one request is better on a criterion? Asked in both
 * orders with the variants' names hidden (src/judges/pairwise.ts); a verdict that changes with the
 * order is a tie, marked position-inconsistent. The criteria are our own wording of what the
 * package's pointwise judges measure: overall quality, groundedness in the row's retrieved
 * context, helpfulness, correctness against the reference answer, or the workflow author's own.
 */
import { z } from 'zod';
import { InputError } from '../../core/inputs';
import type { InputDecl } from '../../core/types';
import { judgeOutput } from '../output';
import { pairwiseFanOut } from '../pairwise';
import { reasonText } from '../parse';
import type { JudgeDecl } from '../types';
import { contextInput, requestInput } from './common';

/** Parsed verdict of one order. */
export interface PairwiseVerdict {
	reason: string;
	verdict: 'first' | 'second' | 'tie';
}

function answerInput(slot: 'a' | 'b'): InputDecl {
	return {
		name: slot === 'a' ? 'responseA' : 'responseB',
		displayName: slot === 'a' ? 'Response A' : 'Response B',
		field: slot === 'a' ? 'response_a' : 'response_b',
		kind: 'text',
		required: true,
		blankIsMissing: true,
		description: `The answer of the ${slot === 'a' ? 'first' : 'second'} variant (its name, in variant_${slot}, is never shown to the judge)`,
	};
}

const referenceInput: InputDecl = {
	name: 'expectedResponse',
	displayName: 'Ground Truth',
	field: 'expected_response',
	kind: 'text',
	required: false,
	blankIsMissing: true,
	description: 'The reference answer (needed by the Correctness criterion)',
};

/** The built-in criteria, by param value. */
export const PAIRWISE_CRITERIA = [
	'overall',
	'groundedness',
	'helpfulness',
	'correctness',
	'custom',
] as const;

export const pairwiseJudge: JudgeDecl<PairwiseVerdict> = {
	id: 'pairwise',
	order: 900,
	version: '1',
	family: 'pairwise',
	displayName: 'Pairwise',
	description:
		"Says which of two variants' answers is better on a criterion, asked in both orders with the names hidden",
	reference:
		'Pairwise comparison with position swap (Zheng et al. 2023, MT-Bench, section 3.4); a verdict that changes with the order is a tie',
	anchorNames: ['PairwiseEvaluator', 'pairwise comparison', 'LLM-as-a-judge pairwise'],
	inputs: [
		requestInput(true),
		answerInput('a'),
		answerInput('b'),
		contextInput(false),
		referenceInput,
	],
	params: [
		{
			name: 'criterion',
			displayName: 'Criterion',
			type: 'options',
			default: 'overall',
			options: [
				{ name: 'Overall Quality', value: 'overall' },
				{ name: 'Groundedness in the Context', value: 'groundedness' },
				{ name: 'Helpfulness', value: 'helpfulness' },
				{ name: 'Correctness Against the Reference', value: 'correctness' },
				{ name: 'Custom (Describe Below)', value: 'custom' },
			],
			description: 'What "better" means for this comparison',
		},
		{
			name: 'customCriterion',
			displayName: 'Custom Criterion',
			type: 'string',
			default: '',
			description: 'With the Custom criterion: what makes one answer better, in a sentence or two',
		},
	],
	// The value is response A's outcome: 1 better, 0.5 tie, 0 worse; it passes when A is not worse.
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	prompt: {
		system: [
			'You compare two answers to the same request and say which one is better on one criterion. The answers come from two systems you know nothing about; their order means nothing.',
			'Criteria:',
			'- overall: the better answer serves the request best as a whole: it is accurate, relevant, complete without padding, and clear.',
			'- groundedness: the better answer states only what the supplied context supports; invented or contradicted claims count against it, and so does ignoring the context.',
			'- helpfulness: the better answer does more to solve what the user asked for, in a form they can use.',
			'- correctness: the better answer agrees more closely with the reference answer on the facts; phrasing does not matter.',
			'- custom: judge by the description the workflow author gave.',
			'Judge only on the criterion named. Do not prefer the longer answer for its length. Say "tie" when neither is better on it.',
		].join('\n'),
		user: [
			'Criterion: {criterion}',
			'Custom criterion description (used only when the criterion is custom): {customCriterion}',
			'',
			'Request:\n{request}',
			'',
			'Context:\n{retrieved_context}',
			'',
			'Reference answer:\n{expected_response}',
			'',
			'First answer:\n{response_a}',
			'',
			'Second answer:\n{response_b}',
		].join('\n'),
	},
	output: judgeOutput(
		'pairwise',
		z.object({
			reason: reasonText().describe('what sets the answers apart on the criterion'),
			verdict: z
				.enum(['first', 'second', 'tie'])
				.describe('which answer is better on the criterion: first, second or tie'),
		}),
	),
	toValue: (p) => (p.verdict === 'first' ? 1 : p.verdict === 'second' ? 0 : 0.5),
	toReason: (p) => p.reason,
	fanOut: pairwiseFanOut(
		{ first: 'responseA', second: 'responseB' },
		{
			prepare(values, params) {
				const c = String(params.criterion ?? 'overall');
				if (!(PAIRWISE_CRITERIA as readonly string[]).includes(c))
					throw new InputError('criterion', `unknown criterion '${c}'`);
				if (c === 'custom' && String(params.customCriterion ?? '').trim() === '')
					throw new InputError(
						'customCriterion',
						'the Custom criterion needs a description (Options -> Custom Criterion)',
					);
				if (c === 'groundedness' && values.context === undefined)
					return "the groundedness criterion needs the row's retrieved_context";
				if (c === 'correctness' && values.expectedResponse === undefined)
					return "the correctness criterion needs the row's expected_response";
				return null;
			},
			details: (params) => ({
				criterion: String(params.criterion ?? 'overall'),
			}),
		},
	),
};
