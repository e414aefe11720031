/**
 * Repeated sampling: one row judged `n` times by the same model (each sample its own call and
 * its own verdict-cache entry), the row's value the mean of the samples (yes/no: the majority,
 * a tie the failing verdict) with their spread, so a judge's own noise on a row is measured
 * instead of hidden in one sample. A failed sample makes the row an error naming it, as a failed
 * call of a fan-out does: a mean of the samples that happened to answer is never a score.
 * Samples only differ when the model samples: at temperature 0 most models answer the same.
 */
import { errorScore, notApplicableScore, okScore, scoreBase } from '../core/score';
import type { Score } from '../core/types';
import { foldScoreCalls } from '../core/usage';
import type { JudgeContext } from './context';
import { poolValues } from './panel';
import { judgeSignature } from './single';
import { spendStopDetails } from './spend';
import type { JudgeDecl } from './types';

/** What `details.samples` says about a row judged several times. */
export interface SampleSummary {
	n: number;
	/** Every sample's value, in sample order. */
	values: (number | boolean)[];
	/**
	 * Ratings: the standard deviation of the samples (population). Yes/no: the share of samples
	 * not with the row's verdict.
	 */
	spread: number;
}

/** The spread of samples around the row's value (see {@link SampleSummary.spread}). */
export function sampleSpread(values: ReadonlyArray<number | boolean>, pooled: number | boolean) {
	if (values.length === 0) return 0;
	if (typeof pooled === 'boolean') return values.filter((v) => v !== pooled).length / values.length;
	const nums = values as ReadonlyArray<number>;
	const mean = nums.reduce((a, b) => a + b, 0) / nums.length;
	return Math.sqrt(nums.reduce((a, v) => a + (v - mean) ** 2, 0) / nums.length);
}

/**
 * Judges one row `samples` times through `judge` (sample numbers 1..n in the context) and folds
 * the samples into one Score signed `|samples:<n>`. Never throws.
 */
export async function runRepeats<C extends JudgeContext>(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: C,
	samples: number,
	judge: (inputs: Record<string, unknown>, ctx: C) => Promise<Score>,
): Promise<Score> {
	const started = Date.now();
	const model = ctx.model ?? ctx.source.defaultModel;
	const signature = `${judgeSignature(decl, {
		model,
		temperature: ctx.temperature,
		promptOverride: ctx.promptOverride,
		scoreFrom: ctx.scoreFrom,
	})}|samples:${samples}`;
	const base = scoreBase(decl, decl.id, signature, ctx.threshold);
	const scores = await Promise.all(
		Array.from({ length: samples }, (_, k) => judge(inputs, { ...ctx, sample: k + 1 })),
	);
	const cost = foldScoreCalls(scores);
	const extras = {
		usage: cost.usage,
		attempts: cost.attempts,
		model: cost.model ?? model,
		latencyMs: Date.now() - started,
	};
	const withCache = cost.cache ? { cache: cost.cache } : {};
	const perSample = scores.map((s, k) => ({
		sample: k + 1,
		status: s.status,
		value: s.value,
		...(s.error !== undefined ? { error: s.error } : {}),
		...(s.cached ? { cached: true } : {}),
	}));
	const failed = scores.findIndex((s) => s.status === 'error');
	if (failed >= 0) {
		const n = scores.filter((s) => s.status === 'error').length;
		const why = (scores[failed].error ?? 'failed').replace(`${decl.displayName}: `, '');
		return errorScore(
			base,
			`${decl.displayName}: sample ${failed + 1} of ${samples}: ${why}${n > 1 ? ` (${n} of ${samples} samples failed)` : ''}`,
			{ ...extras, details: { samples: perSample, ...withCache, ...spendStopDetails(scores) } },
		);
	}
	const ok = scores.filter(
		(s): s is Score & { value: number | boolean } => s.status === 'ok' && s.value !== null,
	);
	if (ok.length < samples)
		return notApplicableScore(
			base,
			scores.find((s) => s.status === 'not_applicable')?.reason ?? 'nothing to judge',
			{ ...extras, details: withCache },
		);
	const values = ok.map((s) => s.value);
	const value = poolValues(
		values,
		typeof values[0] === 'boolean' ? 'majority' : 'mean',
		decl.threshold.direction,
	);
	const summary: SampleSummary = { n: samples, values, spread: sampleSpread(values, value) };
	const shown = typeof value === 'number' ? Number(value.toFixed(4)) : value;
	const score = okScore(base, value, {
		...extras,
		reason: `${samples} samples (${values.map(String).join(', ')}): ${String(shown)}${
			typeof value === 'number' ? `, spread ${Number(summary.spread.toFixed(4))}` : ''
		}. Sample 1: ${ok[0].reason ?? ''}`.trimEnd(),
		details: { samples: summary, ...withCache },
	});
	if (cost.cache?.hit) score.cached = true;
	return score;
}
