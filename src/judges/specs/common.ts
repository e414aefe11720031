/**
 * Building blocks shared by the judge specs: canonical-record inputs and the common
 * reason-then-score output for 1-5 rubrics.
 */
import { z } from 'zod';
import type { InputDecl, Scale } from '../../core/types';
import { judgeOutput } from '../output';
import { likertInt, reasonText, yesNo } from '../parse';
import type { JudgeOutput } from '../types';

/** Azure's 1-5 rating scale. */
export const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };

/** Yes/no verdicts (Databricks style); value is boolean. */
export const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };

/** The user's question (`request`). */
export function requestInput(required: boolean): InputDecl {
	return {
		name: 'request',
		displayName: 'Query',
		field: 'request',
		kind: 'text',
		required,
		blankIsMissing: true,
		description: 'The question or request the application answered',
	};
}

/** The application's answer (`response`). */
export const responseInput: InputDecl = {
	name: 'response',
	displayName: 'Response',
	field: 'response',
	kind: 'text',
	required: true,
	blankIsMissing: true,
	description: 'The answer produced by the application under evaluation',
};

/** Retrieved documents (`retrieved_context`, array of {doc_uri?, content}). */
export function contextInput(required: boolean): InputDecl {
	return {
		name: 'context',
		displayName: 'Context',
		field: 'retrieved_context',
		kind: 'contexts',
		required,
		blankIsMissing: true,
		needsContent: true,
		description: 'Retrieved documents: a list of {doc_uri, content} or of strings',
	};
}

/** The reference answer (`expected_response`). */
export const groundTruthInput: InputDecl = {
	name: 'expectedResponse',
	displayName: 'Ground Truth',
	field: 'expected_response',
	kind: 'text',
	required: true,
	blankIsMissing: true,
	description: 'The correct (ground truth) answer',
};

/** Earlier conversation turns (`history`, array of {role, content}). */
export const historyInput: InputDecl = {
	name: 'history',
	displayName: 'Conversation History',
	field: 'history',
	kind: 'messages',
	required: false,
	blankIsMissing: true,
	description: 'Earlier turns of the conversation: a list of {role, content}',
};

/** Parsed output of a reason-then-score rubric. */
export interface LikertVerdict {
	reason: string;
	score: number;
}

/** `{ reason, score }` with an integer 1-5 score; reason first so the model reasons before rating. */
export function likertOutput(name: string): JudgeOutput<LikertVerdict> {
	return judgeOutput(
		name,
		z.object({
			reason: reasonText().describe('why the score was given, citing the inputs'),
			score: likertInt(1, 5).describe('the rating, an integer from 1 to 5'),
		}),
	);
}

/** Parsed output of a yes/no verdict. */
export interface YesNoVerdict {
	reason: string;
	verdict: 'yes' | 'no';
}

/** `{ reason, verdict }` with verdict "yes" or "no". */
export function yesNoOutput(name: string): JudgeOutput<YesNoVerdict> {
	return judgeOutput(
		name,
		z.object({
			reason: reasonText().describe('why the verdict was given, citing the inputs'),
			verdict: yesNo(),
		}),
	);
}
