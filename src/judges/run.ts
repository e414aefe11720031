/**
 * Running a judge on one row or a dataset: multi-call judges fan out (./fanout), every other row
 * is one call (./single). The modules below this one never import it, so the call path has no
 * import circle: run -> fanout -> single -> cache.
 */
import { errorScore } from '../core/score';
import type { Score } from '../core/types';
import type { JudgeContext } from './context';
import { runFanOut } from './fanout';
import { callKey } from './model';
import { judgeBase, judgeSingle } from './single';
import type { JudgeDecl } from './types';

export type { JudgeContext } from './context';
export { effectivePrompt, judgeSignature, promptOverrideProblems } from './single';

/** Judges one row. Never throws: failures are `error` Scores, missing fields `not_applicable`. */
export async function runJudge(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: JudgeContext,
): Promise<Score> {
	try {
		return decl.fanOut ? await runFanOut(decl, inputs, ctx) : await judgeSingle(decl, inputs, ctx);
	} catch (e) {
		// A bug in a declaration (toValue, notApplicable...) must not take the whole run down.
		return errorScore(
			judgeBase(decl, ctx, ctx.model ?? ctx.source.defaultModel),
			`${decl.displayName}: internal error: ${e instanceof Error ? e.message : String(e)}`,
		);
	}
}

/** Judges many rows with bounded concurrency; one Score per row, in order, never throws. */
export async function runJudges(
	decl: JudgeDecl,
	rows: ReadonlyArray<Record<string, unknown>>,
	ctx: JudgeContext & { concurrency?: number },
): Promise<Score[]> {
	const out: Score[] = new Array<Score>(rows.length);
	// The governor enforces the real cap; the pool only avoids creating every promise at once.
	const width = Math.max(
		1,
		ctx.concurrency ?? ctx.governor.maxConcurrencyFor(callKey(ctx.source, ctx.model)) * 2,
	);
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < rows.length) {
			const i = next++;
			out[i] = await runJudge(decl, rows[i], ctx);
		}
	};
	await Promise.all(Array.from({ length: Math.min(width, rows.length) }, worker));
	return out;
}
