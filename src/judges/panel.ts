/**
 * Judge panels: one row judged by several jurors (connected Chat Models, models on the
 * credential) through the ordinary judge path, their verdicts pooled into one Score. The PoLL
 * study (Verga et al. 2024) found a panel of small models from different families closer to
 * human raters than one large judge; unlike the TruLens and Opik juries, the pooled Score here
 * also says how far the jurors disagreed, and a row where they do is a Review Queue reason.
 *
 * A juror that fails never stands in for a verdict: the pool counts who answered, and a row with
 * fewer answers than the quorum is the row's error naming the jurors that failed. Every juror's
 * verdict, signature, cost and cache hit stays in `details.panel.jurors`.
 * This module sits above the dispatcher (./run.ts) and is given the per-row judge function, so a
 * panel works the same for single calls, fan-outs and conversations judged turn by turn.
 */
import { errorScore, notApplicableScore, okScore, passes, scoreBase } from '../core/score';
import type { Direction, Scale, Score } from '../core/types';
import { cacheInfoOf, foldScoreCalls } from '../core/usage';
import { priceUsage, type PriceTable } from '../cost';
import type { JudgeContext } from './context';
import type { ModelSource } from './model';
import { judgeSignature } from './single';
import { spendStopDetails } from './spend';
import type { JudgeDecl } from './types';

/**
 * How the jurors' verdicts become the row's: `majority` (the most common verdict; on a tie the
 * worse one), `mean`, `median`, `worst` (by the judge's direction: one unsafe vote makes the row
 * unsafe). Yes/no verdicts have no mean: `mean` and `median` pool them by majority.
 */
export type PoolRule = 'majority' | 'mean' | 'median' | 'worst';

/** One member of a panel: a model source, the model it calls, and how the Score names it. */
export interface Juror {
	/** Unique within the panel: `chat model 2 (llama3.1)`, `credential (gpt-4o-mini)`. */
	label: string;
	source: ModelSource;
	/** The model called on the source; absent: its default. */
	model?: string;
}

/** A panel: two or more jurors, the pool rule, the quorum, and prices for each juror's cost. */
export interface PanelOptions {
	jurors: ReadonlyArray<Juror>;
	/** Default: the judge's declared rule, else majority for yes/no, the mean for ratings. */
	pool?: PoolRule;
	/** Jurors that must answer for the row to have a verdict; default (and 0) every juror. */
	quorum?: number;
	/** Prices each juror's tokens (`costUsd`) when its model is in the table. */
	prices?: Readonly<PriceTable>;
}

/** The default pool rule of a judge: its declared one, else majority for yes/no, else the mean. */
export function defaultPoolRule(decl: Pick<JudgeDecl, 'scale' | 'panelPool'>): PoolRule {
	return decl.panelPool ?? (decl.scale.kind === 'binary' ? 'majority' : 'mean');
}

/** The quorum a panel applies: the option within 1..jurors, every juror when absent or 0. */
export function panelQuorum(jurors: number, quorum?: number): number {
	if (quorum === undefined || !Number.isFinite(quorum) || quorum <= 0) return jurors;
	return Math.min(jurors, Math.max(1, Math.floor(quorum)));
}

// Lower is worse for a judge whose higher values pass, and the reverse.
function worseFirst(dir: Direction): (a: number, b: number) => number {
	return dir === 'higher' ? (a, b) => a - b : (a, b) => b - a;
}

/**
 * Pools jurors' values by `rule` for a judge of direction `dir`. Yes/no verdicts: majority (a tie
 * takes the failing verdict) or worst. Numbers: mean, median (the mean of the middle two for an
 * even count), worst, or majority (the most common value, a tie the worst of the tied).
 */
export function poolValues(
	values: ReadonlyArray<number | boolean>,
	rule: PoolRule,
	dir: Direction,
): number | boolean {
	if (values.length === 0) throw new RangeError('poolValues: no values');
	if (typeof values[0] === 'boolean') {
		const bools = values as ReadonlyArray<boolean>;
		const failing = dir !== 'higher';
		if (rule === 'worst') return bools.some((v) => v === failing) ? failing : !failing;
		const yes = bools.filter((v) => v).length;
		const no = bools.length - yes;
		return yes === no ? failing : yes > no;
	}
	const nums = (values as ReadonlyArray<number>).slice().sort(worseFirst(dir));
	if (rule === 'worst') return nums[0];
	if (rule === 'mean') return nums.reduce((a, b) => a + b, 0) / nums.length;
	if (rule === 'median') {
		const asc = nums.slice().sort((a, b) => a - b);
		const mid = asc.length >> 1;
		return asc.length % 2 === 1 ? asc[mid] : (asc[mid - 1] + asc[mid]) / 2;
	}
	// majority: the most frequent value; among equally frequent ones the worst (nums is worst first).
	let best = nums[0];
	let bestCount = 0;
	for (const v of nums) {
		const c = nums.filter((x) => x === v).length;
		if (c > bestCount) [best, bestCount] = [v, c];
	}
	return best;
}

/** How far a panel's answers are apart, as kept in `details.panel`. */
export interface PanelDisagreement {
	/** Share of the jurors that answered whose pass/fail differs from the pooled one (0-1). */
	disagreement: number;
	/** Ratings and scores: highest minus lowest juror value, on the judge's scale. */
	spread?: number;
	/**
	 * Whether the panel disagrees: a juror passes what another fails, or (ratings) their values
	 * lie half the scale or more apart, the Review Queue's rule for judges that disagree.
	 */
	disagrees: boolean;
}

/** The disagreement of jurors' verdicts with the pooled verdict's pass. */
export function panelDisagreement(
	verdicts: ReadonlyArray<{ value: number | boolean; pass: boolean | null }>,
	pooledPass: boolean,
	scale: Pick<Scale, 'min' | 'max'>,
): PanelDisagreement {
	const n = verdicts.length;
	const against = verdicts.filter((v) => v.pass !== pooledPass).length;
	const out: PanelDisagreement = {
		disagreement: n > 0 ? against / n : 0,
		disagrees: against > 0,
	};
	const nums = verdicts.map((v) => v.value).filter((v): v is number => typeof v === 'number');
	if (nums.length === n && n > 0) {
		out.spread = Math.max(...nums) - Math.min(...nums);
		const span = scale.max - scale.min;
		if (span > 0 && out.spread >= span / 2) out.disagrees = true;
	}
	return out;
}

/** The model a juror calls. */
function jurorModel(j: Juror): string {
	return j.model ?? j.source.defaultModel;
}

/** What `details.panel.jurors` keeps of one juror's Score. */
function jurorDetail(j: Juror, s: Score, prices?: Readonly<PriceTable>): Record<string, unknown> {
	const d: Record<string, unknown> = {
		juror: j.label,
		model: s.model ?? jurorModel(j),
		status: s.status,
		value: s.value,
		pass: s.pass,
	};
	if (s.reason !== undefined) d.reason = s.reason;
	if (s.error !== undefined) d.error = s.error;
	d.signature = s.signature;
	if (s.usage) d.usage = s.usage;
	d.attempts = s.attempts ?? 0;
	if (s.latencyMs !== undefined) d.latencyMs = s.latencyMs;
	if (s.cached) d.cached = true;
	if (s.usage && prices && !s.cached) {
		const priced = priceUsage(
			[
				{
					model: s.model ?? jurorModel(j),
					input_tokens: s.usage.promptTokens,
					output_tokens: s.usage.completionTokens,
				},
			],
			prices,
		);
		if (priced.usd !== undefined) d.costUsd = priced.usd;
	}
	if (s.details?.weighting !== undefined) d.weighting = s.details.weighting;
	if (s.details?.samples !== undefined) d.samples = s.details.samples;
	return d;
}

/** The panel's signature: the judge's, with every juror's model, the pool rule and the quorum. */
export function panelSignature(
	decl: JudgeDecl,
	ctx: Pick<JudgeContext, 'temperature' | 'promptOverride' | 'scoreFrom'> & { samples?: number },
	panel: PanelOptions,
): string {
	// In the jurors' model order, not n8n's connection order: the same panel signs the same.
	const models = panel.jurors.map(jurorModel).sort().join('+');
	const rule = panel.pool ?? defaultPoolRule(decl);
	const quorum = panelQuorum(panel.jurors.length, panel.quorum);
	return `${judgeSignature(decl, { model: `panel[${models}]`, temperature: ctx.temperature, promptOverride: ctx.promptOverride, scoreFrom: ctx.scoreFrom })}|pool:${rule}|quorum:${quorum}${ctx.samples !== undefined && ctx.samples > 1 ? `|samples:${Math.floor(ctx.samples)}` : ''}`;
}

/**
 * Judges one row with every juror of `panel` (each through `judge`, with its own source and
 * model) and pools the verdicts. Never throws: below the quorum the row is an error naming the
 * jurors that failed; jurors that all find the row not applicable make it not applicable.
 */
export async function runPanel<C extends JudgeContext & { samples?: number }>(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: C,
	panel: PanelOptions,
	judge: (inputs: Record<string, unknown>, ctx: C) => Promise<Score>,
): Promise<Score> {
	const started = Date.now();
	const jurors = panel.jurors;
	const rule = panel.pool ?? defaultPoolRule(decl);
	const quorum = panelQuorum(jurors.length, panel.quorum);
	const base = scoreBase(decl, decl.id, panelSignature(decl, ctx, panel), ctx.threshold);
	const scores = await Promise.all(
		jurors.map((j) => judge(inputs, { ...ctx, source: j.source, model: j.model })),
	);
	const verdicts = scores.map((s, i) => jurorDetail(jurors[i], s, panel.prices));
	const ok = scores
		.map((s, i) => ({ s, j: jurors[i] }))
		.filter(
			(x): x is { s: Score & { value: number | boolean }; j: Juror } =>
				x.s.status === 'ok' && x.s.value !== null,
		);
	const failed = scores.map((s, i) => ({ s, j: jurors[i] })).filter((x) => x.s.status === 'error');
	const cost = foldScoreCalls(scores);
	const models = [...new Set(ok.map((x) => x.s.model ?? jurorModel(x.j)))];
	const summary = {
		pool: rule,
		quorum,
		jurors: jurors.length,
		answered: ok.length,
	};
	const extras = {
		usage: cost.usage,
		attempts: cost.attempts,
		model: (models.length > 0 ? models : jurors.map(jurorModel)).join('+'),
		latencyMs: Date.now() - started,
	};
	const withCache = cost.cache ? { cache: cost.cache } : {};
	const answeredText = `${ok.length} of ${jurors.length} jurors answered`;
	if (ok.length < quorum) {
		if (failed.length === 0) {
			// Nobody failed: the row itself cannot be judged (missing inputs), by every juror alike.
			const why = scores.find((s) => s.reason !== undefined)?.reason ?? 'nothing to judge';
			return notApplicableScore(base, why, {
				...extras,
				details: { panel: { ...summary, jurors: verdicts }, ...withCache },
			});
		}
		const errors = failed
			.map((x) => `${x.j.label}: ${(x.s.error ?? 'failed').replace(`${decl.displayName}: `, '')}`)
			.join('; ');
		return errorScore(
			base,
			`${decl.displayName}: panel: ${answeredText}, below the quorum of ${quorum}: ${errors}`,
			{
				...extras,
				details: {
					panel: { ...summary, jurors: verdicts },
					...withCache,
					...spendStopDetails(scores),
				},
			},
		);
	}
	const value = poolValues(
		ok.map((x) => x.s.value),
		rule,
		decl.threshold.direction,
	);
	const threshold = base.threshold;
	const pooledPass = passes(value, threshold, base.direction);
	const spread = panelDisagreement(
		ok.map((x) => ({ value: x.s.value, pass: x.s.pass })),
		pooledPass,
		decl.scale,
	);
	const votes = ok.map((x) => `${x.j.label} ${String(x.s.value)}`).join(', ');
	const agreeing = ok.find((x) => x.s.pass === pooledPass) ?? ok[0];
	const shown = typeof value === 'number' ? Number(value.toFixed(4)) : value;
	const reason =
		`Panel of ${jurors.length}, ${rule}: ${String(shown)} (${votes}); ${answeredText}` +
		`${spread.disagrees ? '; the jurors disagree' : ''}. ${agreeing.j.label}: ${agreeing.s.reason ?? ''}`.trimEnd();
	const score = okScore(base, value, {
		...extras,
		reason,
		details: {
			panel: { ...summary, ...spread, jurors: verdicts },
			...withCache,
		},
	});
	if (cost.cache?.hit && ok.every((x) => x.s.cached || cacheInfoOf(x.s)?.hit)) score.cached = true;
	return score;
}

/** What a panel's fatal errors mean for the node run: see {@link panelFatal}. */
export interface PanelFatal {
	/** The jurors whose key, model or quota was rejected, with the first such error of each. */
	rejected: { label: string; error: string }[];
	/** Jurors left that can still answer. */
	left: number;
	/**
	 * Set when the rejected jurors leave fewer than the quorum: no row can have a verdict, so the
	 * node fails with this message (as a lone judge's does), naming each rejected juror once.
	 */
	failure?: string;
	/** Set when the panel still has its quorum: the one notice that names the rejected jurors. */
	notice?: string;
}

/**
 * A panel's fatal errors (a rejected key, an unknown model, an exhausted quota: what fails a lone
 * judge's node), told once for the run instead of as each row's error. `fatalOf(juror)` is the
 * first fatal error of the juror's calls, if any. A rejected juror fails every later call, so
 * when the jurors left are fewer than the quorum no row can be judged and the node fails naming
 * them; when the quorum is still met the rows are judged by the others and the run carries one
 * notice naming the rejected jurors. Undefined when no juror was rejected.
 */
export function panelFatal(
	jurors: ReadonlyArray<Pick<Juror, 'label'>>,
	quorum: number | undefined,
	fatalOf: (juror: number) => string | undefined,
): PanelFatal | undefined {
	const rejected: PanelFatal['rejected'] = [];
	jurors.forEach((j, i) => {
		const error = fatalOf(i);
		if (error !== undefined) rejected.push({ label: j.label, error });
	});
	if (rejected.length === 0) return undefined;
	const need = panelQuorum(jurors.length, quorum);
	const left = jurors.length - rejected.length;
	const named = rejected.map((r) => `${r.label}: ${r.error}`).join('; ');
	const who = `juror${jurors.length === 1 ? '' : 's'} ${rejected.length === 1 ? 'was' : 'were'}`;
	if (left < need)
		return {
			rejected,
			left,
			failure: `panel: ${rejected.length} of ${jurors.length} ${who} rejected, leaving ${left}, below the quorum of ${need}: ${named}`,
		};
	return {
		rejected,
		left,
		notice: `panel: ${rejected.length} of ${jurors.length} ${who} rejected and judged no further rows; the other ${left} judged with the quorum of ${need}: ${named}`,
	};
}
