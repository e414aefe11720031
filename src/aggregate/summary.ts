/**
 * Run summary from a partial. Databricks run-metric names follow seed 001 (Mosaic AI Agent
 * Evaluation, "how metrics are aggregated at the level of an MLflow run"): yes-share of each
 * yes/no judge, mean chunk precision, mean document recall, mean token counts and latency.
 * Azure-style figures (seed 000) sit beside them per metric: mean, pass rate at the threshold,
 * defect rate at a severity threshold ("instances at the threshold level and above"), and corpus
 * BLEU from summed statistics, never a mean of sentence BLEU.
 */
import { coverageText, percentText, roundText } from '../core/display';
import type { Direction, EvaluatorFacts, Scale } from '../core/types';
import { SEVERITY_LEVELS, type SeverityLevel } from '../safety/levels';
import { corpusFinalizers as defaultCorpusFinalizers } from '../metrics/registry';
import { evaluatorById, evaluatorRegistry } from '../registry';
import { findPrice, type ModelPrice } from '../cost';
import { checkTally, manifestProblems, type ManifestCheck } from '../manifest';
import { INCOMPLETE, suggestedFixFor } from '../rootcause';
import { bootstrapMeanInterval, DEFAULT_RESAMPLES } from '../stats/bootstrap';
import {
	histogramCount,
	histogramCountWhere,
	histogramMean,
	histogramSum,
	mergeHistograms,
	type Histogram,
} from '../stats/histogram';
import { wilsonInterval, type Interval } from '../stats/intervals';
import { histogramQuantile } from '../stats/percentile';
import { exactRound, exactSum } from '../stats/sum';
import {
	AGENT_FIELDS,
	type AggregatePartial,
	type FieldPartial,
	type GroupPartial,
	type MetricPartial,
	type UsagePartial,
	type WorstRow,
	WORST_ROWS,
} from './partial';

/** Summed corpus statistics handed to a finalizer. */
export type SummedStats = Record<string, number | number[]>;

/** Corpus score from summed statistics, keyed by metric id (see `src/metrics/corpus.ts`). */
export type CorpusFinalizer = (summed: SummedStats) => number;

// The package's one price table lives in src/cost; re-exported here for existing imports.
export type { ModelPrice };

/** Options that only shape the summary (they may differ between finalizations of one partial). */
export interface FinalizeOptions {
	/** Evaluator declarations giving Databricks names and fixes; the package's by default. */
	registry?: ReadonlyArray<EvaluatorFacts>;
	/** Judge model prices, USD per 1M prompt (`input`) and completion (`output`) tokens. */
	prices?: Record<string, ModelPrice>;
	/** Two-sided confidence level of every interval (default 0.95). */
	level?: number;
	/** Bootstrap resamples for means (default 1000; 0 turns bootstrap intervals off). */
	bootstrapResamples?: number;
	/**
	 * Budget of values drawn per bootstrap (default 2e7): large metrics get fewer resamples,
	 * never under 200 (`ci.resamples` says how many), so 100k-row runs finalize in seconds.
	 */
	bootstrapMaxDraws?: number;
	/** Severity at or above which a safety score is a defect (default 4: Azure's "medium" on 0-7). */
	severityThreshold?: number;
	/** Corpus finalizers by metric id (`Score.metric`); defaults to the declarations' (`bleu`, `sacrebleu`). */
	corpusFinalizers?: Record<string, CorpusFinalizer>;
	/**
	 * Share of rows (0-1) that must be judged for the run to count as complete (default 0.95);
	 * below it `status` is `incomplete` and no report may call the run green.
	 */
	minCoverage?: number;
}

/** Default {@link FinalizeOptions.minCoverage}: 95% of the rows judged. */
export const DEFAULT_MIN_COVERAGE = 0.95;

/**
 * Minimum coverage given in percent (as the nodes show it) as a share; empty gives undefined
 * (the default applies). Throws a RangeError naming the value when it is not within 0-100.
 */
export function minCoverageFromPercent(raw: unknown): number | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const pct = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN;
	if (!Number.isFinite(pct) || pct < 0 || pct > 100)
		throw new RangeError(`Minimum Coverage must be a percentage from 0 to 100, got ${String(raw)}`);
	return pct / 100;
}

/**
 * How many of the rows that should have been judged were judged. `basis` says what counted:
 * `verdicts` (a judge gave the row a pass or fail: incomplete rows are the rest) or, in runs
 * without any judge, `scores` (rows minus the most errored scores of any one metric).
 */
export interface RunCoverage {
	judged: number;
	of: number;
	/** judged / of; 0 for a run without rows (nothing vouches for it). */
	share: number;
	/** The minimum this run was held to. */
	minimum: number;
	basis: 'verdicts' | 'scores';
}

/** Why an estimate has no value. */
export type EstimateNote =
	| 'no measured rows'
	| 'nothing judged'
	| 'no pass verdicts'
	| 'no corpus finalizer'
	| 'corpus statistic failed';

/** A number with its interval, or a note saying why there is none (never NaN or null). */
export interface Estimate {
	value?: number;
	ci?: Interval;
	note?: EstimateNote;
}

/**
 * Coverage of a metric over the rows: `measured` (status ok with a value), `notApplicable`,
 * `errored` (judge errors and malformed scores) and `absent` (rows without this metric at all).
 */
export interface Coverage {
	measured: number;
	notApplicable: number;
	errored: number;
	absent: number;
}

/**
 * One Databricks-named run metric: the estimate plus its coverage, and which way is better (from
 * the evaluator's declaration; lower for tokens, latency and cost), so a gate needs no guessing.
 */
export type RunMetric = Estimate & Coverage & { direction?: Direction };

/** A rate with the counts behind it. */
export interface RateEstimate extends Estimate {
	/** Rows counted as successes (passes, defects). */
	count: number;
	/** Rows in the denominator. */
	of: number;
}

/** Percentiles (linear interpolation, numpy's default). */
export interface Percentiles {
	p50: number;
	p90: number;
	p99: number;
}

/** Azure-style figures of one `item.json.eval` key. */
export interface MetricSummary extends Coverage {
	scale?: Scale;
	/** Mean of the values (yes/no as 1/0); Wilson interval for yes/no, bootstrap otherwise. */
	mean: Estimate;
	/** Share of rows passing at their threshold among rows with a verdict (Wilson). */
	passRate: RateEstimate;
	min?: number;
	max?: number;
	percentiles?: Percentiles;
	/** Severity scales: share of measured rows at or above `severityThreshold` (Wilson). */
	defectRate?: RateEstimate & { threshold: number; category: string };
	/** Metrics with sufficient statistics (BLEU flavours): the corpus score over `rows`. */
	corpus?: Estimate & { rows: number };
	/** The Databricks run-metric name this key also appears under, if any. */
	runMetric?: string;
	/** Which way is better, from the evaluator's declaration (`Score.direction`). */
	direction?: Direction;
}

/**
 * One metric as people read it (`scores.<key>`, keyed like the rows' `eval.<key>`): the headline
 * figure exact and rounded, and the rows behind it. Yes/no verdicts are read by their pass rate,
 * other scales by their mean (with the pass rate at the threshold beside it).
 */
export interface ScoreLine {
	figure: 'pass rate' | 'mean';
	/** The figure, exact; absent when no row was scored (never 0 for "nothing"). */
	value?: number;
	/** The figure rounded for reading ("66.7%", "4.333"), or "nothing scored". */
	display: string;
	/** Beside a mean: the share of scored rows passing their threshold, exact and rounded. */
	passRate?: number;
	passRateDisplay?: string;
	measured: number;
	notApplicable: number;
	errored: number;
	absent: number;
	/** The rows behind the figure: "9 of 19 rows scored, 10 errored". */
	coverage: string;
	/** Figure and coverage in one line, as the reports print it. */
	line: string;
	scale?: Scale;
	direction?: Direction;
}

/**
 * One safety category over the run (seed 000: "the severity of each row and the defect rate at
 * the chosen level"): measured rows per level, the rows failing at the threshold their own Scores
 * carry (the Defect Level picked on the node), and the worst rows by `request_id`.
 */
export interface SeveritySummary {
	/** Measured rows per level (very low 0-1, low 2-3, medium 4-5, high 6-7). */
	distribution: Record<SeverityLevel, number>;
	/** Rows whose Score failed (at its own threshold) among rows with a verdict (Wilson). */
	defectsAtScoreLevel: RateEstimate;
	/** Highest severities first (low and above only), at most {@link WORST_ROWS}. */
	worst: { id: string; severity: number; level: SeverityLevel; metric: string }[];
}

/** One line of the ranked root-cause table. */
export interface RootCauseRow {
	cause: string;
	count: number;
	/** Of all rows. */
	share: number;
	/** Of failing rows. */
	shareOfFailures: number;
	/** Smallest `request_id`s among the rows with this cause. */
	examples: string[];
	suggestedFix: string;
}

/** Judge tokens (and USD when priced) of one model or metric. */
export interface CostLine extends UsagePartial {
	usd?: number;
}

/** Judge cost of the run. */
export interface CostSummary extends CostLine {
	byModel: Record<string, CostLine>;
	byMetric: Record<string, UsagePartial>;
	/** Models that made calls but have no price (their tokens are not in `usd`). */
	unpricedModels?: string[];
	/**
	 * What the judge verdict cache saved: calls and tokens (USD when priced) the cached verdicts
	 * cost when first judged, by eval key. Not part of the totals above, which count calls made.
	 */
	saved?: CostLine & { byMetric: Record<string, UsagePartial> };
}

/**
 * What the application under evaluation cost over the rows: `cost_usd` (written by Cost & Latency)
 * and the rows' token counts. Kept apart from `cost`, which is what the evaluation (judges) cost.
 */
export interface AppCostSummary {
	/** Sum of `cost_usd` over the rows that carry one; absent when none does. */
	usd?: number;
	/** Rows with a `cost_usd`. */
	rowsPriced: number;
	/** Rows without one (no trace, model not in the price table). */
	rowsUnpriced: number;
	inputTokens: number;
	outputTokens: number;
	totalTokens: number;
}

/** Summary of the run or of one group. */
export interface GroupSummary {
	rows: number;
	/**
	 * Row verdicts (see `determineRootCause`). `passRate` is over every row that should have been
	 * judged (pass + fail + incomplete), so missing verdicts pull it down; `judgedPassRate` is
	 * over judged rows only. Runs without any judge have no verdicts: both are over pass + fail.
	 */
	overall: {
		pass: number;
		fail: number;
		incomplete: number;
		passRate: RateEstimate;
		judgedPassRate: RateEstimate;
	};
	/** Rows judged against rows that should have been, and the minimum held to. */
	coverage: RunCoverage;
	/** `incomplete` when coverage is below its minimum: such a run is never green. */
	status: 'complete' | 'incomplete';
	/** Every metric the rows carry, by its `eval` key, as people read it (see {@link ScoreLine}). */
	scores: Record<string, ScoreLine>;
	/** Databricks-named run metrics (seed 001), plus `agent/<field>/p50|p90|p99`. */
	metrics: Record<string, RunMetric>;
	/** Azure-style figures per eval key. */
	perMetric: Record<string, MetricSummary>;
	/** Defect rate per safety category over every severity-scale metric of that category. */
	defectRates: Record<string, RateEstimate & { threshold: number }>;
	/** Per safety category: rows per severity level, defects at the nodes' levels, worst rows. */
	severity: Record<string, SeveritySummary>;
	/** Root causes of failing rows, most frequent first (ties by name). */
	rootCauses: RootCauseRow[];
	/** Rows a judge could not score. */
	incomplete: { count: number; share: number; examples: string[]; suggestedFix: string };
	/** What the evaluation cost: judge tokens and USD. */
	cost: CostSummary;
	/** What the application cost (see {@link AppCostSummary}). */
	appCost: AppCostSummary;
	/** Rows a judge's spend limit stopped; present only when it stopped any (the run is incomplete). */
	spendLimit?: { stopped: number; share: number; examples: string[] };
	/** Summed estimates of Estimate Only judge nodes; present only when rows carry estimates. */
	estimate?: EstimateSummary;
}

/** What Estimate Only judge nodes expect the run to cost: calls, tokens and USD where priced. */
export interface EstimateSummary extends CostLine {
	/** Rows carrying an estimate. */
	rows: number;
	byModel: Record<string, CostLine>;
	/** By estimate key (the judge node's result key). */
	byKey: Record<string, UsagePartial>;
	/** Models without a price (their tokens are not in `usd`). */
	unpricedModels?: string[];
}

/**
 * The run summary: {@link GroupSummary} for all rows, and with `groupBy` one summary per group
 * value (rows whose field is an array count in each of its groups; missing values in `(none)`).
 */
export interface AggregateSummary extends GroupSummary {
	groupBy?: string;
	groups?: Record<string, GroupSummary>;
	/**
	 * The rows checked against their run manifests (rows from Eval Dataset carry one); absent when
	 * no row did. Rows that never arrived count in `coverage.of` (and, judged by verdicts, in
	 * `overall.passRate.of`) as rows not judged; anything missing, twice or conflicting makes the
	 * run `incomplete` whatever the minimum coverage.
	 */
	manifest?: ManifestCheck;
}

const NO_ROWS: EstimateNote = 'no measured rows';
const DEFAULT_MAX_DRAWS = 2e7;
const MIN_RESAMPLES = 200;

/**
 * Databricks run-metric name of an eval key: the declared `databricks.runMetric` of the evaluator
 * behind it (found by `Score.metric`, so a custom Result Key keeps it). Custom judges follow
 * seed 001's pattern for user judges: yes/no -> `response/llm_judged/<key>/rating/percentage`,
 * per-chunk precision -> `retrieval/llm_judged/<key>/precision/average`.
 */
export function runMetricName(
	key: string,
	m: Pick<MetricPartial, 'scale' | 'chunked' | 'metric'>,
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): string | undefined {
	const decl = evaluatorById(m.metric ?? key, registry);
	if (decl) return decl.databricks?.runMetric;
	if (m.scale?.kind === 'binary') return `response/llm_judged/${key}/rating/percentage`;
	if (m.scale?.kind === 'unit' && m.chunked) return `retrieval/llm_judged/${key}/precision/average`;
	return undefined;
}

interface Ctx {
	registry: ReadonlyArray<EvaluatorFacts>;
	level: number;
	resamples: number;
	maxDraws: number;
	severityThreshold: number;
	finalizers: Record<string, CorpusFinalizer>;
	minCoverage: number;
	prices?: Record<string, ModelPrice>;
}

function rate(
	count: number,
	of: number,
	level: number,
	emptyNote: EstimateNote = NO_ROWS,
): RateEstimate {
	if (of === 0) return { count, of, note: emptyNote };
	return { value: count / of, ci: wilsonInterval(count, of, level), count, of };
}

function meanEstimate(h: Histogram, binary: boolean, salt: string, ctx: Ctx): Estimate {
	const n = histogramCount(h);
	const mean = histogramMean(h);
	if (mean === undefined) return { note: NO_ROWS };
	if (binary)
		return {
			value: mean,
			ci: wilsonInterval(
				histogramCountWhere(h, (x) => x === 1),
				n,
				ctx.level,
			),
		};
	if (ctx.resamples <= 0) return { value: mean };
	const budget = Math.max(MIN_RESAMPLES, Math.floor(ctx.maxDraws / n));
	const resamples = Math.min(ctx.resamples, budget);
	const ci = bootstrapMeanInterval(h, { resamples, level: ctx.level, salt });
	return ci ? { value: mean, ci } : { value: mean };
}

function percentiles(h: Histogram): Percentiles | undefined {
	if (histogramCount(h) === 0) return undefined;
	return {
		p50: histogramQuantile(h, 0.5) as number,
		p90: histogramQuantile(h, 0.9) as number,
		p99: histogramQuantile(h, 0.99) as number,
	};
}

function corpusEstimate(
	key: string,
	m: MetricPartial,
	ctx: Ctx,
): (Estimate & { rows: number }) | undefined {
	if (!m.stats || m.statsRows === 0) return undefined;
	const finalize = ctx.finalizers[m.metric ?? key];
	if (!finalize) return { rows: m.statsRows, note: 'no corpus finalizer' };
	const summed: SummedStats = {};
	for (const [name, s] of Object.entries(m.stats))
		summed[name] = s.scalar ? exactRound(s.parts[0] ?? []) : s.parts.map((p) => exactRound(p));
	try {
		const value = finalize(summed);
		if (Number.isFinite(value)) return { value, rows: m.statsRows };
	} catch {
		// A malformed statistic (wrong shape from a foreign producer) must not sink the summary.
	}
	return { rows: m.statsRows, note: 'corpus statistic failed' };
}

function metricSummary(key: string, m: MetricPartial, rows: number, ctx: Ctx): MetricSummary {
	const binary = m.scale?.kind === 'binary';
	const out: MetricSummary = {
		...(m.scale ? { scale: m.scale } : {}),
		measured: m.measured,
		notApplicable: m.notApplicable,
		errored: m.errored,
		absent: rows - m.measured - m.notApplicable - m.errored,
		mean: meanEstimate(m.values, binary, key, ctx),
		passRate: rate(
			m.passed,
			m.passed + m.failed,
			ctx.level,
			m.measured === 0 ? NO_ROWS : 'no pass verdicts',
		),
	};
	if (m.values.v.length > 0) {
		out.min = m.values.v[0];
		out.max = m.values.v[m.values.v.length - 1];
		if (!binary) out.percentiles = percentiles(m.values);
	}
	if (m.scale?.kind === 'severity') {
		const t = ctx.severityThreshold;
		out.defectRate = {
			...rate(
				histogramCountWhere(m.values, (x) => x >= t),
				m.measured,
				ctx.level,
			),
			threshold: t,
			category: m.category ?? key,
		};
	}
	const corpus = corpusEstimate(key, m, ctx);
	if (corpus) out.corpus = corpus;
	const name = runMetricName(key, m, ctx.registry);
	if (name) out.runMetric = name;
	if (m.direction) out.direction = m.direction;
	return out;
}

function scaleText(scale: Scale | undefined): string {
	if (!scale || scale.kind === 'binary' || scale.kind === 'count') return '';
	return ` on ${scale.min}-${scale.max}`;
}

/** One metric's {@link ScoreLine}, from its summary: figures rounded by the reports' own rule. */
function scoreLine(s: MetricSummary, rows: number): ScoreLine {
	const binary = s.scale?.kind === 'binary';
	const { measured, notApplicable, errored, absent } = s;
	const coverage = coverageText(s, rows);
	const pass = s.passRate;
	const passText =
		pass.value !== undefined ? `${pass.count} passed of ${pass.of} scored` : undefined;
	const line: ScoreLine = {
		figure: binary ? 'pass rate' : 'mean',
		display: 'nothing scored',
		measured,
		notApplicable,
		errored,
		absent,
		coverage,
		line: `nothing scored — ${coverage}`,
		...(s.scale ? { scale: s.scale } : {}),
		...(s.direction ? { direction: s.direction } : {}),
	};
	if (binary && pass.value !== undefined) {
		line.value = pass.value;
		line.display = percentText(pass.value);
		line.line = `pass rate ${line.display} (${passText}) — ${coverage}`;
	} else if (!binary && s.mean.value !== undefined) {
		line.value = s.mean.value;
		line.display = roundText(s.mean.value);
		let text = `mean ${line.display}${scaleText(s.scale)}`;
		if (pass.value !== undefined) {
			line.passRate = pass.value;
			line.passRateDisplay = percentText(pass.value);
			text += `, ${line.passRateDisplay} pass (${passText})`;
		}
		line.line = `${text} — ${coverage}`;
	}
	return line;
}

function costLine(u: UsagePartial, model: string, ctx: Ctx): CostLine {
	const found = ctx.prices ? findPrice(model, ctx.prices) : undefined;
	if (!found) return { ...u };
	const price = found.price;
	return { ...u, usd: (u.promptTokens * price.input + u.completionTokens * price.output) / 1e6 };
}

function costSummary(g: GroupPartial, ctx: Ctx): CostSummary {
	const byModel: Record<string, CostLine> = {};
	const total: UsagePartial = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
	const usd: number[] = [];
	const unpriced: string[] = [];
	for (const model of Object.keys(g.costByModel).sort()) {
		const line = costLine(g.costByModel[model], model, ctx);
		byModel[model] = line;
		total.calls += line.calls;
		total.promptTokens += line.promptTokens;
		total.completionTokens += line.completionTokens;
		total.totalTokens += line.totalTokens;
		if (line.usd !== undefined) usd.push(line.usd);
		else if (line.calls > 0) unpriced.push(model);
	}
	// Keys sorted: a merged partial may hold them in another insertion order than one pass.
	const byMetric: Record<string, UsagePartial> = {};
	for (const k of Object.keys(g.costByMetric).sort()) byMetric[k] = { ...g.costByMetric[k] };
	const out: CostSummary = { ...total, byModel, byMetric };
	if (ctx.prices) {
		out.usd = exactSum(usd);
		if (unpriced.length > 0) out.unpricedModels = unpriced;
	}
	if (g.savedByModel) out.saved = cacheSaved(g, ctx);
	return out;
}

/** Calls, tokens and (priced) USD the verdict cache saved. */
function cacheSaved(g: GroupPartial, ctx: Ctx): NonNullable<CostSummary['saved']> {
	const total: UsagePartial = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
	const usd: number[] = [];
	let allPriced = true;
	for (const model of Object.keys(g.savedByModel ?? {}).sort()) {
		const line = costLine((g.savedByModel ?? {})[model], model, ctx);
		total.calls += line.calls;
		total.promptTokens += line.promptTokens;
		total.completionTokens += line.completionTokens;
		total.totalTokens += line.totalTokens;
		if (line.usd !== undefined) usd.push(line.usd);
		else allPriced = false;
	}
	const byMetric: Record<string, UsagePartial> = {};
	for (const k of Object.keys(g.savedByMetric ?? {}).sort())
		byMetric[k] = { ...(g.savedByMetric ?? {})[k] };
	const out: NonNullable<CostSummary['saved']> = { ...total, byMetric };
	if (ctx.prices && allPriced) out.usd = exactSum(usd);
	return out;
}

// A judge is what root cause reads (a declared root-cause slot or a judge-like scale); a run with
// one, even one that only said not_applicable (no model configured), is judged by verdicts.
function hasJudge(g: GroupPartial, registry: ReadonlyArray<EvaluatorFacts>): boolean {
	return Object.entries(g.metrics).some(([key, m]) => {
		const kind = m.scale?.kind;
		return (
			evaluatorById(m.metric ?? key, registry)?.rootCause !== undefined ||
			kind === 'binary' ||
			kind === 'likert' ||
			kind === 'severity'
		);
	});
}

function runCoverage(
	g: GroupPartial,
	minimum: number,
	registry: ReadonlyArray<EvaluatorFacts>,
): RunCoverage {
	// Estimated rows were meant for a judge that made no call: they count as not judged.
	if (hasJudge(g, registry) || (g.estimate?.rows ?? 0) > 0) {
		const judged = g.passed + g.failed;
		const of = judged + g.incomplete.count;
		return { judged, of, share: of === 0 ? 0 : judged / of, minimum, basis: 'verdicts' };
	}
	// Deterministic metrics only: every row has a score unless its input was bad, and the most
	// errored metric bounds the rows that lack one from below.
	let missing = 0;
	for (const m of Object.values(g.metrics)) missing = Math.max(missing, m.errored);
	const judged = Math.max(0, g.rows - missing);
	return {
		judged,
		of: g.rows,
		share: g.rows === 0 ? 0 : judged / g.rows,
		minimum,
		basis: 'scores',
	};
}

// A partial stored before an agent field existed (cost_usd) reads as no rows measured.
const NO_FIELD: FieldPartial = {
	measured: 0,
	notApplicable: 0,
	errored: 0,
	values: { v: [], c: [] },
};

function appCostSummary(g: GroupPartial): AppCostSummary {
	const c = g.agent.cost_usd ?? NO_FIELD;
	const out: AppCostSummary = {
		rowsPriced: c.measured,
		rowsUnpriced: g.rows - c.measured,
		inputTokens: histogramSum(g.agent.input_token_count.values),
		outputTokens: histogramSum(g.agent.output_token_count.values),
		totalTokens: histogramSum(g.agent.total_token_count.values),
	};
	if (c.measured > 0) out.usd = histogramSum(c.values);
	return out;
}

/** The level of a value on the 0-7 scale; a fractional value from a foreign producer by its range. */
function levelBand(v: number): SeverityLevel {
	return (SEVERITY_LEVELS.find((l) => v <= l.max) ?? SEVERITY_LEVELS[SEVERITY_LEVELS.length - 1])
		.level;
}

/** Severity distribution, defects at the Scores' own levels and worst rows per category. */
function severitySummaries(g: GroupPartial, ctx: Ctx): Record<string, SeveritySummary> {
	const acc: Record<
		string,
		{ h: Histogram; passed: number; failed: number; worst: (WorstRow & { metric: string })[] }
	> = {};
	for (const key of Object.keys(g.metrics).sort()) {
		const m = g.metrics[key];
		if (m.scale?.kind !== 'severity') continue;
		const cat = m.category ?? key;
		const a = (acc[cat] ??= { h: { v: [], c: [] }, passed: 0, failed: 0, worst: [] });
		a.h = mergeHistograms(a.h, m.values);
		a.passed += m.passed;
		a.failed += m.failed;
		for (const w of m.worst ?? []) a.worst.push({ ...w, metric: m.metric ?? key });
	}
	const out: Record<string, SeveritySummary> = {};
	for (const cat of Object.keys(acc).sort()) {
		const a = acc[cat];
		const distribution = Object.fromEntries(SEVERITY_LEVELS.map((l) => [l.level, 0])) as Record<
			SeverityLevel,
			number
		>;
		a.h.v.forEach((v, i) => (distribution[levelBand(v)] += a.h.c[i]));
		const worst = a.worst
			.sort((x, y) => y.value - x.value || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
			.slice(0, WORST_ROWS)
			.map((w) => ({ id: w.id, severity: w.value, level: levelBand(w.value), metric: w.metric }));
		out[cat] = {
			distribution,
			defectsAtScoreLevel: rate(a.failed, a.passed + a.failed, ctx.level),
			worst,
		};
	}
	return out;
}

function groupSummary(g: GroupPartial, ctx: Ctx): GroupSummary {
	const metrics: Record<string, RunMetric> = {};
	const perMetric: Record<string, MetricSummary> = {};
	const scores: Record<string, ScoreLine> = {};
	const severityByCategory: Record<string, { h: Histogram }> = {};
	for (const key of Object.keys(g.metrics).sort()) {
		const m = g.metrics[key];
		const s = metricSummary(key, m, g.rows, ctx);
		perMetric[key] = s;
		scores[key] = scoreLine(s, g.rows);
		if (s.runMetric && !(s.runMetric in metrics)) {
			const { measured, notApplicable, errored, absent, direction } = s;
			metrics[s.runMetric] = { ...s.mean, measured, notApplicable, errored, absent };
			if (direction) metrics[s.runMetric].direction = direction;
		}
		if (m.scale?.kind === 'severity') {
			const cat = m.category ?? key;
			const prev = severityByCategory[cat];
			severityByCategory[cat] = { h: prev ? mergeHistograms(prev.h, m.values) : m.values };
		}
	}
	for (const f of AGENT_FIELDS) {
		const a = g.agent[f] ?? NO_FIELD;
		const coverage = {
			measured: a.measured,
			notApplicable: a.notApplicable,
			errored: a.errored,
			absent: g.rows - a.measured - a.notApplicable - a.errored,
		};
		// Tokens and latency: fewer and faster is better.
		const direction: Direction = 'lower';
		metrics[`agent/${f}/average`] = {
			...meanEstimate(a.values, false, f, ctx),
			...coverage,
			direction,
		};
		const p = percentiles(a.values);
		for (const q of ['p50', 'p90', 'p99'] as const)
			metrics[`agent/${f}/${q}`] = p
				? { value: p[q], ...coverage, direction }
				: { note: NO_ROWS, ...coverage, direction };
	}
	const defectRates: GroupSummary['defectRates'] = {};
	for (const cat of Object.keys(severityByCategory).sort()) {
		const h = severityByCategory[cat].h;
		const t = ctx.severityThreshold;
		defectRates[cat] = {
			...rate(
				histogramCountWhere(h, (x) => x >= t),
				histogramCount(h),
				ctx.level,
			),
			threshold: t,
		};
	}
	const failing = g.failed;
	const rootCauses: RootCauseRow[] = Object.entries(g.causes)
		.map(([cause, c]) => ({
			cause,
			count: c.count,
			share: g.rows === 0 ? 0 : c.count / g.rows,
			shareOfFailures: failing === 0 ? 0 : c.count / failing,
			examples: [...c.examples],
			suggestedFix: suggestedFixFor(cause, ctx.registry),
		}))
		.sort((a, b) => b.count - a.count || (a.cause < b.cause ? -1 : a.cause > b.cause ? 1 : 0));
	const coverage = runCoverage(g, ctx.minCoverage, ctx.registry);
	const judgedPassRate = rate(g.passed, g.passed + g.failed, ctx.level);
	const due = g.passed + g.failed + g.incomplete.count;
	return {
		rows: g.rows,
		overall: {
			pass: g.passed,
			fail: g.failed,
			incomplete: g.incomplete.count,
			// Rows were due and none got a verdict: "nothing judged", not a pass rate of 0 (which
			// would read as every row failing).
			passRate:
				coverage.basis !== 'verdicts'
					? judgedPassRate
					: due > 0 && g.passed + g.failed === 0
						? { count: 0, of: due, note: 'nothing judged' }
						: rate(g.passed, due, ctx.level),
			judgedPassRate,
		},
		coverage,
		// A spend limit that stopped any row leaves the run incomplete, whatever the coverage.
		status:
			coverage.share < coverage.minimum || (g.spendStopped?.count ?? 0) > 0
				? 'incomplete'
				: 'complete',
		scores,
		metrics,
		perMetric,
		defectRates,
		severity: severitySummaries(g, ctx),
		rootCauses,
		incomplete: {
			count: g.incomplete.count,
			share: g.rows === 0 ? 0 : g.incomplete.count / g.rows,
			examples: [...g.incomplete.examples],
			suggestedFix: suggestedFixFor(INCOMPLETE, ctx.registry),
		},
		cost: costSummary(g, ctx),
		appCost: appCostSummary(g),
		...spendAndEstimateSummary(g, ctx),
	};
}

// Spend limit and estimates (issue 15) --------------------------------------------------------

function spendAndEstimateSummary(
	g: GroupPartial,
	ctx: Ctx,
): Pick<GroupSummary, 'spendLimit' | 'estimate'> {
	const out: Pick<GroupSummary, 'spendLimit' | 'estimate'> = {};
	if (g.spendStopped && g.spendStopped.count > 0) {
		out.spendLimit = {
			stopped: g.spendStopped.count,
			share: g.rows === 0 ? 0 : g.spendStopped.count / g.rows,
			examples: [...g.spendStopped.examples],
		};
	}
	if (g.estimate) {
		// Priced like the judges' real cost: the same table, lines by model.
		const priced = costSummary({ ...g, costByModel: g.estimate.byModel, costByMetric: {} }, ctx);
		const byKey: Record<string, UsagePartial> = {};
		for (const k of Object.keys(g.estimate.byKey).sort()) byKey[k] = { ...g.estimate.byKey[k] };
		const est: EstimateSummary = {
			rows: g.estimate.rows,
			calls: priced.calls,
			promptTokens: priced.promptTokens,
			completionTokens: priced.completionTokens,
			totalTokens: priced.totalTokens,
			byModel: priced.byModel,
			byKey,
		};
		// A partial sum never poses as the estimate: USD only when every model was priced.
		if (priced.usd !== undefined && !priced.unpricedModels) est.usd = priced.usd;
		if (priced.unpricedModels) est.unpricedModels = priced.unpricedModels;
		out.estimate = est;
	}
	return out;
}

/**
 * Holds the run summary to its manifests: rows that never reached the aggregate were due and not
 * judged, so they join `coverage.of` (and the verdict pass rate's denominator), and a run with rows
 * missing, twice or conflicting is `incomplete` even when the share would clear the minimum: a
 * summary of part of a run (or of a run and a copy) is not the run's. Duplicates are not taken
 * out of the figures (which copy to keep is unknown); `manifest.duplicates` says how many.
 */
function applyManifest(summary: AggregateSummary, check: ManifestCheck, ctx: Ctx): void {
	summary.manifest = check;
	if (check.missing > 0) {
		const c = summary.coverage;
		const of = c.of + check.missing;
		summary.coverage = { ...c, of, share: of === 0 ? 0 : c.judged / of };
		if (c.basis === 'verdicts') {
			const r = summary.overall.passRate;
			summary.overall.passRate =
				r.note === 'nothing judged'
					? { ...r, of: r.of + check.missing }
					: rate(r.count, r.of + check.missing, ctx.level);
		}
	}
	if (!check.complete) summary.status = 'incomplete';
}

/**
 * Turns a partial into the run summary ({@link AggregateSummary}). Pure: the same partial (or any
 * merge of partials over the same rows) and options always give the same summary, bit for bit.
 */
export function finalizeAggregate(
	partial: AggregatePartial,
	options: FinalizeOptions = {},
): AggregateSummary {
	const level = options.level ?? 0.95;
	if (!(level > 0 && level < 1)) throw new RangeError(`level must be within (0, 1), got ${level}`);
	const minCoverage = options.minCoverage ?? DEFAULT_MIN_COVERAGE;
	if (!(minCoverage >= 0 && minCoverage <= 1))
		throw new RangeError(`minCoverage must be within [0, 1], got ${minCoverage}`);
	const ctx: Ctx = {
		registry: options.registry ?? evaluatorRegistry,
		level,
		resamples: Math.max(0, Math.floor(options.bootstrapResamples ?? DEFAULT_RESAMPLES)),
		maxDraws: options.bootstrapMaxDraws ?? DEFAULT_MAX_DRAWS,
		severityThreshold: options.severityThreshold ?? 4,
		finalizers: options.corpusFinalizers ?? defaultCorpusFinalizers,
		minCoverage,
		...(options.prices ? { prices: options.prices } : {}),
	};
	const summary: AggregateSummary = groupSummary(partial.all, ctx);
	if (partial.manifest)
		applyManifest(summary, checkTally(partial.manifest.runs, partial.manifest.unlisted), ctx);
	if (partial.config.groupBy !== null) {
		summary.groupBy = partial.config.groupBy;
		summary.groups = {};
		for (const name of Object.keys(partial.groups).sort())
			summary.groups[name] = groupSummary(partial.groups[name], ctx);
	}
	return summary;
}

/**
 * What a person should see on the aggregate before reading the summary, or undefined for a run
 * that is complete: "Nothing judged" when no row got a verdict (the summary then has no pass
 * rate), else why the run is incomplete; then every metric that missed rows, with its coverage.
 */
export function summaryNotice(summary: AggregateSummary): string | undefined {
	const c = summary.coverage;
	const nothing = summary.rows > 0 && c.basis === 'verdicts' && c.judged === 0;
	if (!nothing && summary.status !== 'incomplete') return undefined;
	const lines: string[] = [];
	if (nothing)
		lines.push(
			`Nothing judged: none of the ${c.of} rows got a verdict, so the summary has no pass rate`,
		);
	else
		lines.push(
			`Run incomplete: ${c.judged} of ${c.of} rows judged (${percentText(c.share)}; minimum ${percentText(c.minimum)})`,
		);
	if (summary.manifest) lines.push(...manifestProblems(summary.manifest, 'Eval Aggregate'));
	if (summary.spendLimit)
		lines.push(`A spend limit stopped ${summary.spendLimit.stopped} rows before they were judged`);
	for (const [key, line] of Object.entries(summary.scores))
		if (line.measured < summary.rows) lines.push(`${key}: ${line.line}`);
	return lines.join('\n');
}
