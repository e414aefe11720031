/**
 * The class of a safety node (Content Safety, Protected Material, Indirect Attack) over
 * ./safetyNode.ts: its search words, its output schema, its description and its run.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { evaluatorNames, type NodeSearch, type SearchableNodeClass } from './codex';
import { HARM_CATEGORIES, HARM_NAMES } from '../../src/safety/levels';
import { safetyFacts } from '../../src/safety/evaluator';
import { harmDecls } from '../../src/safety/specs';
import { ragEvalLlmApiTest } from './llmOptions';
import { scoringOutputSchema } from './outputSchema';
import { executeSafety, safetyDescription, type SafetyNodeType } from './safetyNode';

/** A node class for a safety node: n8n's loader needs one class per file, so each file extends this. */
export function safetyNodeClass(type: SafetyNodeType): SearchableNodeClass {
	return class implements INodeType {
		static readonly search: NodeSearch = {
			families: ['safety'],
			words: type === 'content_safety' ? HARM_CATEGORIES.map((c) => HARM_NAMES[c]) : [],
			anchors: evaluatorNames(
				type === 'content_safety' ? HARM_CATEGORIES.map((c) => harmDecls[c]) : [safetyFacts(type)],
			),
		};
		// Content Safety with its default categories: one Score per harm category.
		static readonly outputSchema = scoringOutputSchema(
			safetyFacts(type).inputs,
			type === 'content_safety' ? [...HARM_CATEGORIES] : [safetyFacts(type).id],
		);
		description = safetyDescription(type);
		methods = { credentialTest: { ragEvalLlmApiTest } };
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeSafety.call(this, type);
		}
	};
}
