/**
 * The one evaluator contract: an evaluator is its facts (the declaration) plus `evaluateRow`,
 * which turns one row's input values into its Scores, keyed by score key. Metrics, judges (single
 * call, fan-out, every turn), service-backed judges and the safety evaluators (every backend) all
 * implement it, so the n8n item loop (nodes/shared/scoreItems.ts) and library callers drive them
 * the same way. `evaluateRow` never throws for a row: a row that cannot be scored leaves with a
 * not-applicable or error Score.
 */
import { withSlotNote } from './score';
import type { EvaluatorFacts, Score } from './types';

/** One evaluator; `C` is what a row is evaluated with (model, governor, threshold...). */
export interface Evaluator<C> {
	/** The declaration: inputs, scale, threshold, root-cause slot, Databricks names. */
	readonly facts: EvaluatorFacts;
	/** The facts of one score key it writes (several only for Content Safety's categories). */
	factsOf(key: string): EvaluatorFacts;
	/** The row's Scores by score key, in output order. Never rejects. */
	evaluateRow(values: Record<string, unknown>, ctx: C): Promise<Record<string, Score>>;
}

/** An evaluator writing one Score under its own key, from a per-row function. */
export function singleScoreEvaluator<C>(
	facts: EvaluatorFacts,
	score: (values: Record<string, unknown>, ctx: C) => Score | Promise<Score>,
): Evaluator<C> {
	return {
		facts,
		factsOf: () => facts,
		async evaluateRow(values, ctx) {
			// Where the node's pass and the root cause's verdict differ, the row says so.
			const s = withSlotNote(await score(values, ctx), facts);
			return { [s.metric]: s };
		},
	};
}
