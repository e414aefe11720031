/**
 * An LLM judge as an evaluator (src/core/evaluator.ts): one row judged once, fanned out, or on
 * every assistant turn of its conversation, always one Score under the judge's id.
 */
import { singleScoreEvaluator, type Evaluator } from '../core/evaluator';
import { runJudge } from './run';
import { runEveryTurn, type TurnContext } from './turns';
import type { JudgeDecl } from './types';

/** How a judge evaluates a row: the call context, and which turns of a conversation it judges. */
export interface JudgeRowContext extends TurnContext {
	/**
	 * `every`: each assistant turn of `history`, folded by `turnRule` (default the judge's own);
	 * default `last`.
	 */
	turns?: 'every' | 'last';
}

/** The judge as an evaluator; a row with `history` and `turns: 'every'` is judged per turn. */
export function judgeEvaluator(decl: JudgeDecl): Evaluator<JudgeRowContext> {
	return singleScoreEvaluator(decl, (values, ctx) =>
		ctx.turns === 'every' && values.history !== undefined
			? runEveryTurn(decl, values, ctx)
			: runJudge(decl, values, ctx),
	);
}
