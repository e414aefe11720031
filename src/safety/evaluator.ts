/**
 * The risk and safety evaluators on the one evaluator contract (src/core/evaluator.ts): Content
 * Safety writes one Score per harm category, Protected Material and Indirect Attack one each.
 * Whatever backend answers, the row is evaluated by the same functions (./evaluate).
 */
import type { Evaluator } from '../core/evaluator';
import type { EvaluatorFacts } from '../core/types';
import {
	evaluateHarms,
	evaluateIndirectAttack,
	evaluateProtectedMaterial,
	type SafetyRunOptions,
} from './evaluate';
import type { HarmCategory } from './levels';
import { harmDecls, indirectAttackDecl, protectedMaterialDecl } from './specs';

/** The three safety evaluators, as the nodes offer them. */
export type SafetyKind = 'content_safety' | 'protected_material' | 'indirect_attack';

/** The declaration whose inputs a safety evaluator reads (Content Safety: any harm category's). */
export function safetyFacts(kind: SafetyKind): EvaluatorFacts {
	return kind === 'content_safety'
		? harmDecls.violence
		: kind === 'protected_material'
			? protectedMaterialDecl
			: indirectAttackDecl;
}

/** A safety evaluator; its row Scores come from whichever backend `ctx` names. */
export function safetyEvaluator(kind: SafetyKind): Evaluator<SafetyRunOptions> {
	const facts = safetyFacts(kind);
	return {
		facts,
		factsOf: (key) => (kind === 'content_safety' ? harmDecls[key as HarmCategory] : facts),
		async evaluateRow(values, ctx) {
			if (kind === 'content_safety') return evaluateHarms(values, ctx);
			const score =
				kind === 'protected_material'
					? await evaluateProtectedMaterial(values, ctx)
					: await evaluateIndirectAttack(values, ctx);
			return { [score.metric]: score };
		},
	};
}
