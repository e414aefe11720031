/**
 * A judge declared in this one file and nowhere else, as a user or contributor would add one:
 * "verbosity", 1-5 where lower is better, with its own root-cause slot and Databricks names.
 * test/unit/declarations/add-judge.test.ts shows everything else derives from it, and
 * four-files.test.ts adds this file to a copy of the package as src/judges/specs/verbosity.ts
 * (its imports rewritten to that folder) to show a new judge touches exactly four files.
 */
import { LIKERT, likertOutput, requestInput, responseInput } from '../../src/judges/specs/common';
import type { LikertVerdict } from '../../src/judges/specs/common';
import type { JudgeDecl } from '../../src/judges/types';

/** Verbosity: how much the response says beyond what the request needs (1 terse - 5 rambling). */
export const verbosity: JudgeDecl<LikertVerdict> = {
	id: 'verbosity',
	// After the built-in judges, before the custom judge (1000).
	order: 950,
	version: '1',
	displayName: 'Verbosity',
	description: 'Rates 1-5 how much the response says beyond what the request needs',
	reference: 'test-only judge',
	inputs: [requestInput(true), responseInput],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'lower' },
	rootCause: {
		slot: 'verbosity',
		rank: { withoutGroundTruth: 5 },
		output: 999,
		fix: 'The response rambles: ask for a short answer in the prompt and cap the output tokens.',
	},
	databricks: {
		column: 'response/llm_judged/verbosity/rating',
		runMetric: 'response/llm_judged/verbosity/rating/average',
	},
	prompt: {
		system: 'Rate from 1 (says exactly what is needed) to 5 (says far more than needed).',
		user: 'Request:\n{request}\n\nResponse:\n{response}',
	},
	output: likertOutput('verbosity'),
	toValue: (p) => p.score,
	toReason: (p) => p.reason,
};
