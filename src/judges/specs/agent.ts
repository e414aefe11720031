/**
 * Building blocks of the Databricks agent judges (seeds 001 and 002): the inputs they add to the
 * shared ones (expected facts, guidelines, chunks that may lack text) and the ground-truth rule
 * of correctness and context sufficiency (an expected response or expected facts).
 */
import type { InputDecl } from '../../core/types';
import { contextInput, groundTruthInput } from './common';

/** The reference answer, optional where expected facts can stand in for it. */
export const expectedResponseInput: InputDecl = { ...groundTruthInput, required: false };

/** The facts a correct answer must contain (`expected_facts`, a list of strings). */
export const expectedFactsInput: InputDecl = {
	name: 'expectedFacts',
	displayName: 'Expected Facts',
	field: 'expected_facts',
	kind: 'texts',
	required: false,
	blankIsMissing: true,
	description: 'Facts every correct answer must contain: a list of strings',
};

/** Retrieved chunks judged one by one: a chunk without text is skipped, not the whole row. */
export const chunksInput: InputDecl = { ...contextInput(true), needsContent: false };

/** Not applicable unless the row has an expected response or expected facts. */
export function needsExpected(values: Record<string, unknown>): string | null {
	return values.expectedResponse === undefined && values.expectedFacts === undefined
		? 'missing expected_response and expected_facts: this judge needs one of them (ground truth)'
		: null;
}
