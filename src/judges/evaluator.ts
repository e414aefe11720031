/**
 * An LLM judge as an evaluator (src/core/evaluator.ts): one row judged once, fanned out, or on
 * every assistant turn of its conversation, by one model or by a panel of jurors (./panel.ts),
 * once or in repeated samples (./repeats.ts), always one Score under the judge's id.
 */
import { singleScoreEvaluator, type Evaluator } from '../core/evaluator';
import type { Score } from '../core/types';
import { runPanel, type PanelOptions } from './panel';
import { runRepeats } from './repeats';
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
	/** Two or more jurors judge the row and their verdicts are pooled; absent: `source` alone. */
	panel?: PanelOptions;
	/** Each juror (or the model alone) judges the row this many times (./repeats.ts); default 1. */
	samples?: number;
}

/** The judge as an evaluator; a row with `history` and `turns: 'every'` is judged per turn. */
export function judgeEvaluator(decl: JudgeDecl): Evaluator<JudgeRowContext> {
	const once = (values: Record<string, unknown>, ctx: JudgeRowContext): Promise<Score> =>
		ctx.turns === 'every' && values.history !== undefined
			? runEveryTurn(decl, values, ctx)
			: runJudge(decl, values, ctx);
	// Repeats wrap one judge's row; a panel repeats each of its jurors.
	const repeated = (values: Record<string, unknown>, ctx: JudgeRowContext): Promise<Score> =>
		ctx.samples !== undefined && ctx.samples > 1
			? runRepeats(decl, values, ctx, Math.floor(ctx.samples), once)
			: once(values, ctx);
	return singleScoreEvaluator(decl, (values, ctx) =>
		ctx.panel && ctx.panel.jurors.length > 1
			? runPanel(decl, values, ctx, ctx.panel, repeated)
			: repeated(values, ctx),
	);
}
