/**
 * The evaluators that read embeddings, in the order nodes and docs list them. They join the
 * evaluator registry (../registry.ts) like the metrics and judges, and each is an evaluator on the
 * one contract (../core/evaluator.ts).
 */
import { singleScoreEvaluator, type Evaluator } from '../core/evaluator';
import { validateMetricRegistry } from '../metrics/registry';
import { answerRelevancy } from './answerRelevancy';
import { semanticSimilarity } from './similarity';
import type { EmbeddingMetricDecl, EmbeddingRowContext } from './types';

/** Every embedding evaluator; validated like the metrics (ids, inputs, params, threshold). */
export const embeddingRegistry: EmbeddingMetricDecl[] = validateMetricRegistry([
	semanticSimilarity,
	answerRelevancy,
]);

/** An embedding evaluator on the evaluator contract. */
export function embeddingEvaluator(decl: EmbeddingMetricDecl): Evaluator<EmbeddingRowContext> {
	return singleScoreEvaluator(decl, (values, ctx) => decl.score(values, ctx));
}
