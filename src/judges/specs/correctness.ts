/**
 * Correctness (Databricks Agent Evaluation, seeds 001 and 002): is the response accurate against
 * the ground truth? With `expected_response` the response must agree with its information; with
 * `expected_facts` every expected fact must be supported by the response (how it is phrased does
 * not matter). The model lists a verdict per fact; a missing fact forces "no", and the rationale
 * and the Score's details name the missing facts. With both given, the facts are judged too
 * (seed 002 calls giving both an error; the loader reports that).
 */
import { z } from 'zod';
import { judgeOutput } from '../output';
import { reasonText, yesNo } from '../parse';
import type { JudgeDecl, JudgeOutput } from '../types';
import { expectedFactsInput, expectedResponseInput, needsExpected } from './agent';
import { BINARY, requestInput, responseInput } from './common';

/** One expected fact and whether a text supports it. */
export interface FactVerdict {
	fact: string;
	supported: 'yes' | 'no';
}

/** Parsed output of the fact-aware yes/no judges. */
export interface FactsVerdict {
	facts: FactVerdict[];
	reason: string;
	verdict: 'yes' | 'no';
}

/** `{ facts, reason, verdict }`: a verdict per expected fact first, and "no" when any is missing. */
export function factsOutput(name: string, supportedBy: string): JudgeOutput<FactsVerdict> {
	return judgeOutput(
		name,
		z
			.object({
				facts: z
					.array(z.object({ fact: z.string(), supported: yesNo() }))
					.describe(
						`each expected fact, copied, and whether ${supportedBy} supports it (empty when no facts are given)`,
					),
				reason: reasonText().describe('why the verdict was given, naming missing facts'),
				verdict: yesNo(),
			})
			.refine((v) => v.verdict === 'no' || v.facts.every((f) => f.supported === 'yes'), {
				message: 'the verdict must be "no" when an expected fact is not supported',
				path: ['verdict'],
			}),
	);
}

/** The facts a verdict marks unsupported. */
export function missingFacts(p: FactsVerdict): string[] {
	return p.facts.filter((f) => f.supported === 'no').map((f) => f.fact);
}

/** The rationale with the missing facts named, so a reader does not need the details. */
export function factsReason(p: FactsVerdict): string {
	const missing = missingFacts(p);
	return missing.length > 0 ? `${p.reason} Missing facts: ${missing.join('; ')}.` : p.reason;
}

/** Databricks correctness. */
export const correctness: JudgeDecl<FactsVerdict> = {
	id: 'correctness',
	order: 120,
	version: '1',
	displayName: 'Correctness',
	description:
		'Says yes when the response agrees with the expected response, or supports every expected fact',
	reference:
		'Databricks Agent Evaluation correctness (seeds 001, 002): request, response and expected_response or expected_facts; yes/no with rationale',
	anchorNames: ['is_correct'],
	inputs: [requestInput(true), responseInput, expectedResponseInput, expectedFactsInput],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: {
		slot: 'correctness',
		rank: { withGroundTruth: 3 },
		output: 11,
		fix: 'The response disagrees with the expected answer although retrieval was fine: first check the expected answer itself, then the prompt and how the model uses the context.',
	},
	databricks: {
		column: 'response/llm_judged/correctness/rating',
		rationaleColumn: 'response/llm_judged/correctness/rationale',
		runMetric: 'response/llm_judged/correctness/rating/percentage',
	},
	prompt: {
		system: [
			'You decide whether an answer to a request is correct, measured against ground truth.',
			'When expected facts are given, check each one: it is supported when the answer states it or something that clearly implies it, in any wording. List every expected fact with "yes" or "no". The verdict is "yes" only when every expected fact is supported and nothing in the answer contradicts them.',
			'When an expected response is given, the verdict is "yes" when the answer carries the same essential information and contradicts none of it; extra correct detail is fine, missing or wrong essentials are not.',
			'When no expected facts are given, return an empty facts list.',
		].join('\n'),
		user: 'Request:\n{request}\n\nExpected response:\n{expected_response}\n\nExpected facts:\n{expected_facts}\n\nAnswer to check:\n{response}',
	},
	output: factsOutput('correctness', 'the answer'),
	toValue: (p) => p.verdict === 'yes' && missingFacts(p).length === 0,
	toReason: factsReason,
	toDetails: (p) => (p.facts.length > 0 ? { facts: p.facts, missingFacts: missingFacts(p) } : {}),
	notApplicable: needsExpected,
};
