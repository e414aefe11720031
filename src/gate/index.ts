/**
 * Regression gate: compares this run's summary (and, when given, its per-row scores) with a
 * baseline run, metric by metric, and decides which metrics regressed.
 *
 * The rule, per metric: a **regression** is a change in the bad direction larger than the
 * metric's tolerance (absolute, on the metric's own scale) AND significant at `alpha` after Holm
 * correction across all tested metrics. **Improved** is the mirror image. When no test is
 * possible (summary means without rows) the verdict falls back to the tolerance alone and the
 * row says so (`test: 'tolerance-only'`). Metrics absent on one side are reported, not dropped.
 *
 * Test choice: rows paired by `request_id` -> McNemar (pass/fail) or Wilcoxon signed-rank /
 * paired bootstrap (scores); unpaired rows -> two-proportion z-test or unpaired bootstrap;
 * summary only -> two-proportion z-test from rate x measured for proportions. Paired scores are
 * judged by the pairs that changed: up to 50 of them the signed-rank p-value is exact (every sign
 * assignment counted), and no bootstrap runs on fewer than 10 (the exact test decides instead).
 */

import type { Direction, Score } from '../core/types';
import { checkTally, manifestProblems, sharedRuns, tallyOf, type ManifestCheck } from '../manifest';
import {
	holmAdjust,
	mcnemar,
	pairedBootstrap,
	signedRankTest,
	twoProportionZTest,
	unpairedBootstrap,
	type TestResult,
} from '../stats/tests';

/** A test the gate ran, with what the row should say about the choice, if anything. */
type GateTest = TestResult & { note?: string };

/** What the gate needs of one run-level metric; the aggregate's summary satisfies it. */
export interface GateMetricLike {
	value?: number | null;
	measured: number;
	/** Which way is better, as the aggregate's summary states it (from the declarations). */
	direction?: Direction;
}

/** Per-metric-id statistics as the aggregate's `perMetric` holds them. */
export interface GatePerMetricLike {
	measured: number;
	scale?: { kind: string };
	mean?: { value?: number };
	passRate?: { value?: number };
	direction?: Direction;
}

/** What the gate needs of a run summary (structural, so any summary with `metrics` works). */
export interface GateSummaryLike {
	metrics: Record<string, GateMetricLike | undefined>;
	perMetric?: Record<string, GatePerMetricLike | undefined>;
	/** Rows judged of rows that should have been (the aggregate's `coverage`). */
	coverage?: { judged: number; of: number } | null;
	/** Row verdicts; coverage is read from them when `coverage` is absent. */
	overall?: { pass: number; fail: number; incomplete: number } | null;
	/** Rows a judge's spend limit stopped: any makes the run incomplete. */
	spendLimit?: { stopped: number } | null;
	/** The aggregate's run-manifest check: anything but complete makes the run incomplete. */
	manifest?: ManifestCheck | null;
}

/** Default {@link GateOptions.minCoverage}: 95% of the rows judged. */
export const DEFAULT_GATE_MIN_COVERAGE = 0.95;

/** Coverage of the current run as the gate judged it. */
export interface GateCoverage {
	judged: number;
	of: number;
	share: number;
	minimum: number;
	/** Rows that should have been judged and were not. */
	missing: number;
}

/** Rows judged of rows due in a summary, or null when the summary does not say. */
export function summaryCoverage(
	summary: GateSummaryLike,
	minimum: number = DEFAULT_GATE_MIN_COVERAGE,
): GateCoverage | null {
	let judged: number | undefined;
	let of: number | undefined;
	const c = summary.coverage;
	const o = summary.overall;
	if (c && Number.isFinite(c.judged) && Number.isFinite(c.of)) {
		judged = c.judged;
		of = c.of;
	} else if (o && [o.pass, o.fail, o.incomplete].every((x) => Number.isFinite(x))) {
		judged = o.pass + o.fail;
		of = judged + o.incomplete;
	}
	if (judged === undefined || of === undefined) return null;
	return { judged, of, share: of > 0 ? judged / of : 0, minimum, missing: of - judged };
}

/**
 * The metrics the gate compares: `metrics` as named, plus each `perMetric` id that no run-level
 * name already carries as a path segment, as `<id>/mean` (or `<id>/pass_rate` for yes/no scales).
 */
export function gateMetrics(summary: GateSummaryLike): Record<string, GateMetricLike> {
	const out: Record<string, GateMetricLike> = {};
	for (const [k, v] of Object.entries(summary.metrics)) if (v) out[k] = v;
	const covered = new Set(Object.keys(out).flatMap((k) => k.split('/')));
	for (const [id, m] of Object.entries(summary.perMetric ?? {})) {
		if (!m || covered.has(id)) continue;
		if (m.scale?.kind === 'binary')
			out[`${id}/pass_rate`] = {
				value: m.passRate?.value,
				measured: m.measured,
				direction: 'higher',
			};
		else
			out[`${id}/mean`] = {
				value: m.mean?.value,
				measured: m.measured,
				...(m.direction ? { direction: m.direction } : {}),
			};
	}
	return out;
}

/** A scored row: the item's json with its `request_id` and `eval` scores. */
export interface GateRow {
	request_id?: string | number | null;
	eval?: Record<string, Score | undefined> | null;
	/** Eval Dataset's bookkeeping, its run manifest in `source.run_manifest` (see src/manifest). */
	source?: unknown;
	/** The run manifest where rows of earlier versions carry it. */
	run_manifest?: unknown;
}

/** Whether a metric is a rate of passing rows or a mean of values. */
export type GateMetricKind = 'proportion' | 'mean';

/** Options of {@link compareRuns}. */
export interface GateOptions {
	/** Absolute tolerance per metric on its own scale; overrides `defaultTolerance`. */
	tolerances?: Record<string, number>;
	/** Tolerance for metrics not in `tolerances`; default 0 (any significant drop regresses). */
	defaultTolerance?: number;
	/** Family-wise significance level after Holm correction; default 0.05. */
	alpha?: number;
	/** This run's scored rows; enables paired or row-level tests. */
	currentRows?: readonly GateRow[];
	/** The baseline's scored rows. */
	baselineRows?: readonly GateRow[];
	/** Better direction per metric; otherwise as the summary or the scores state it, else higher. */
	directions?: Record<string, Direction>;
	/** Summary metric name -> `eval` key in rows, when the name does not contain the key. */
	rowMetric?: Record<string, string>;
	/** Proportion or mean per metric; otherwise inferred from the name and the scores. */
	kinds?: Record<string, GateMetricKind>;
	/**
	 * Rows per side below which no unpaired bootstrap runs (tolerance only), and non-zero paired
	 * differences below which no paired bootstrap runs (the exact signed-rank test instead); 10.
	 */
	minBootstrapRows?: number;
	/** Paired test for scores; default `wilcoxon`. */
	pairedScoreTest?: 'wilcoxon' | 'bootstrap';
	/** Bootstrap resamples and seed; defaults 2000 and 42. */
	bootstrap?: { resamples?: number; seed?: number };
	/** McNemar is exact below this many discordant pairs; default 25. */
	mcnemarExactBelow?: number;
	/** Pair rows only when pairs cover at least this share of each side's rows; default 0.5. */
	minPairCoverage?: number;
	/**
	 * Share of rows (0-1) the current run must have judged; default 0.95. Below it the result is
	 * `incomplete` whatever the metrics say: missing verdicts can hide any regression.
	 */
	minCoverage?: number;
}

/** Verdict of one metric. */
export type GateVerdict =
	| 'ok'
	| 'regressed'
	| 'improved'
	| 'missing_in_baseline'
	| 'missing_in_current'
	| 'insufficient_data';

/** One line of the gate table. */
export interface GateRowResult {
	metric: string;
	baseline: number | null;
	current: number | null;
	/** current - baseline, on the metric's scale. */
	delta: number | null;
	/** Raw two-sided p-value of the test, or null when no test ran. */
	pValue: number | null;
	/** Holm-adjusted p-value the verdict is based on. */
	pAdjusted: number | null;
	/** Test that ran: `mcnemar-exact`, `wilcoxon-normal`, ..., `tolerance-only` or `none`. */
	test: string;
	/** Pairs (paired) or observations (unpaired) the test used. */
	n: number | null;
	tolerance: number;
	direction: Direction;
	verdict: GateVerdict;
	/** Plain-words explanation of the verdict. */
	note: string;
}

/** Result of {@link compareRuns}. */
export interface GateResult {
	/** `incomplete` (coverage below the minimum) outranks `regressed`; `ok` is neither. */
	status: 'ok' | 'regressed' | 'incomplete';
	/** True when at least one metric regressed. */
	regressed: boolean;
	/** True when the current run's coverage is below the minimum. */
	incomplete: boolean;
	/** The current run's coverage, or null when its summary does not carry one (not enforced). */
	coverage: GateCoverage | null;
	// The three below are always set by compareRuns; optional for results stored before them.
	/** The summary's run-manifest check (null when its rows carried no manifest). */
	manifest?: ManifestCheck | null;
	/** The same check over Current Rows, when they carry manifests. */
	rowsManifest?: ManifestCheck | null;
	/** Why the run is incomplete, one sentence each; empty unless `incomplete`. */
	incompleteReasons?: string[];
	table: GateRowResult[];
	counts: Record<GateVerdict, number>;
	alpha: number;
	/** The decision rule in words, for reports. */
	rule: string;
}

const GATE_RULE =
	'Regressed = worse than baseline by more than the tolerance AND significant after Holm ' +
	'correction across metrics; without a possible test, tolerance alone decides (tolerance-only). ' +
	'Incomplete = fewer rows judged than the minimum coverage, a spend limit stopped rows, rows of the run missing or seen twice (run manifest), or a baseline that is the same run; it outranks Regressed.';

/** The reason a gate gives when Baseline Rows are the very run of Current Rows. */
export const SAME_RUN_REASON =
	'Baseline Rows come from the same run as Current Rows: the run would be compared with itself.';

const PROPORTION_NAME = /\/percentage$|pass_?rate|passrate|defect_?rate|\/rate$/i;

/** Compare a run against a baseline; see the module comment for the decision rule. */
export function compareRuns(
	current: GateSummaryLike,
	baseline: GateSummaryLike,
	options: GateOptions = {},
): GateResult {
	const alpha = options.alpha ?? 0.05;
	const baseMetrics = gateMetrics(baseline);
	const curMetrics = gateMetrics(current);
	const names = [...new Set([...Object.keys(baseMetrics), ...Object.keys(curMetrics)])];
	names.sort();
	const pairing = pairRows(options.currentRows, options.baselineRows);
	const evalKeys = new Set<string>();
	for (const rows of [options.currentRows, options.baselineRows]) {
		for (const r of rows ?? []) for (const k of Object.keys(r.eval ?? {})) evalKeys.add(k);
	}

	const pending: { row: GateRowResult; test: GateTest | null }[] = [];
	for (const metric of names) {
		const b = baseMetrics[metric];
		const c = curMetrics[metric];
		const key = resolveEvalKey(metric, options.rowMetric, evalKeys);
		const kind = options.kinds?.[metric] ?? inferKind(metric, key, options);
		// Direction comes from the declarations, through the summary or the scores; a metric
		// neither states is taken as higher-is-better and the row says so.
		const stated =
			options.directions?.[metric] ??
			c?.direction ??
			b?.direction ??
			(kind === 'mean' && key ? scoreDirection(key, options) : undefined) ??
			// A pass rate is better higher whatever the metric: that is not a guess.
			(kind === 'proportion' ? 'higher' : undefined);
		const direction = stated ?? 'higher';
		const tolerance = options.tolerances?.[metric] ?? options.defaultTolerance ?? 0;
		const row: GateRowResult = {
			metric,
			baseline: finite(b?.value),
			current: finite(c?.value),
			delta: null,
			pValue: null,
			pAdjusted: null,
			test: 'none',
			n: null,
			tolerance,
			direction,
			verdict: 'ok',
			note: stated
				? ''
				: 'Direction not stated by the summary or the scores: higher taken as better.',
		};
		if (!b) {
			row.verdict = 'missing_in_baseline';
			row.note = 'Metric is not in the baseline run: nothing to compare against.';
		} else if (!c) {
			row.verdict = 'missing_in_current';
			row.note = 'Metric was in the baseline but is missing from this run.';
		} else if (
			row.baseline === null ||
			row.current === null ||
			!(b.measured > 0) ||
			!(c.measured > 0)
		) {
			row.verdict = 'insufficient_data';
			row.note = 'No measured rows on one side, so there is no value to compare.';
		}
		if (row.verdict !== 'ok' || !b || !c) {
			pending.push({ row, test: null });
			continue;
		}
		row.delta = (row.current as number) - (row.baseline as number);
		const test = chooseTest(kind, key, b, c, row, pairing, options);
		if (test) {
			row.test = test.test;
			row.pValue = test.pValue;
			row.n = test.n;
			if (test.note) row.note = [test.note, row.note].filter(Boolean).join(' ');
		} else {
			row.test = 'tolerance-only';
		}
		pending.push({ row, test });
	}

	const tested = pending.filter((p) => p.test !== null);
	const adjusted = holmAdjust(tested.map((p) => p.test!.pValue));
	tested.forEach((p, i) => (p.row.pAdjusted = adjusted[i]));

	for (const { row } of pending) {
		if (row.delta === null) continue;
		const worse = row.direction === 'higher' ? -row.delta : row.delta;
		const beyond = Math.abs(row.delta) > row.tolerance;
		const significant = row.pAdjusted !== null && row.pAdjusted < alpha;
		const tolOnly = row.test === 'tolerance-only';
		if (beyond && (significant || tolOnly)) {
			row.verdict = worse > 0 ? 'regressed' : 'improved';
		}
		row.note = [explain(row, beyond, significant, tolOnly, alpha, worse), row.note]
			.filter(Boolean)
			.join(' ');
	}

	const table = pending.map((p) => p.row);
	const counts: Record<GateVerdict, number> = {
		ok: 0,
		regressed: 0,
		improved: 0,
		missing_in_baseline: 0,
		missing_in_current: 0,
		insufficient_data: 0,
	};
	for (const r of table) counts[r.verdict]++;
	const minCoverage = options.minCoverage ?? DEFAULT_GATE_MIN_COVERAGE;
	if (!(minCoverage >= 0 && minCoverage <= 1))
		throw new RangeError(`minCoverage must be within [0, 1], got ${minCoverage}`);
	const coverage = summaryCoverage(current, minCoverage);
	const checks = manifestChecks(current, options);
	const incompleteReasons: string[] = [];
	if (coverage !== null && coverage.share < minCoverage)
		incompleteReasons.push(
			`${coverage.missing} of ${coverage.of} rows not judged: coverage ${(coverage.share * 100).toFixed(1)}% is below the minimum ${(minCoverage * 100).toFixed(1)}%.`,
		);
	const stopped = current.spendLimit?.stopped ?? 0;
	if (stopped > 0) incompleteReasons.push(`A spend limit stopped ${stopped} rows.`);
	incompleteReasons.push(...checks.reasons);
	const incomplete = incompleteReasons.length > 0;
	const regressed = counts.regressed > 0;
	return {
		status: incomplete ? 'incomplete' : regressed ? 'regressed' : 'ok',
		regressed,
		incomplete,
		coverage,
		manifest: checks.summary,
		rowsManifest: checks.rows,
		incompleteReasons,
		table,
		counts,
		alpha,
		rule: GATE_RULE,
	};
}

/**
 * The run manifests behind the comparison: the summary's check (made by the aggregate), the same
 * check over Current Rows, and whether the baseline rows are this very run. Any problem makes
 * the run incomplete: paired tests over part of a run, or against itself, decide nothing.
 */
function manifestChecks(
	current: GateSummaryLike,
	options: GateOptions,
): { summary: ManifestCheck | null; rows: ManifestCheck | null; reasons: string[] } {
	const reasons: string[] = [];
	const summary =
		current.manifest && typeof current.manifest === 'object' ? current.manifest : null;
	if (summary && summary.complete === false)
		reasons.push(...manifestProblems(summary, 'Eval Aggregate'));
	let rows: ManifestCheck | null = null;
	if (options.currentRows) {
		const cur = tallyOf(options.currentRows as unknown as Record<string, unknown>[]);
		if (Object.keys(cur.tally).length > 0) {
			rows = checkTally(cur.tally, cur.unlisted);
			reasons.push(...manifestProblems(rows, 'Current Rows'));
			if (options.baselineRows) {
				const base = tallyOf(options.baselineRows as unknown as Record<string, unknown>[]);
				if (sharedRuns(cur.tally, base.tally).length > 0) reasons.push(SAME_RUN_REASON);
			}
		}
	}
	return { summary, rows, reasons };
}

function explain(
	row: GateRowResult,
	beyond: boolean,
	significant: boolean,
	tolOnly: boolean,
	alpha: number,
	worse: number,
): string {
	const way = worse > 0 ? 'worse' : 'better';
	if (row.delta === 0) return 'No change.';
	if (tolOnly) {
		return beyond
			? `${way} by more than the tolerance ${row.tolerance}; no statistical test possible (tolerance-only).`
			: `Change within the tolerance ${row.tolerance}; no statistical test possible (tolerance-only).`;
	}
	if (!beyond) return `Change within the tolerance ${row.tolerance}.`;
	if (!significant) {
		return `${way} by more than the tolerance but not significant (Holm-adjusted p >= ${alpha}).`;
	}
	return `${way} by more than the tolerance ${row.tolerance} and significant (Holm-adjusted p < ${alpha}).`;
}

function finite(v: number | null | undefined): number | null {
	return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

interface Pairing {
	current: readonly GateRow[];
	baseline: readonly GateRow[];
	/** Rows of both runs sharing a request_id, aligned by position. */
	pairedCurrent: GateRow[];
	pairedBaseline: GateRow[];
}

// The join on request_id is done once for all metrics: per metric only values are read.
function pairRows(current?: readonly GateRow[], baseline?: readonly GateRow[]): Pairing | null {
	if (!current || !baseline) return null;
	const byId = new Map<string, GateRow>();
	for (const r of baseline) {
		if (r.request_id === undefined || r.request_id === null) continue;
		// A duplicated id cannot pair unambiguously: the first occurrence wins, as in a join on key.
		const id = String(r.request_id);
		if (!byId.has(id)) byId.set(id, r);
	}
	const pairedCurrent: GateRow[] = [];
	const pairedBaseline: GateRow[] = [];
	const seen = new Set<string>();
	for (const r of current) {
		if (r.request_id === undefined || r.request_id === null) continue;
		const id = String(r.request_id);
		const b = byId.get(id);
		if (!b || seen.has(id)) continue;
		seen.add(id);
		pairedCurrent.push(r);
		pairedBaseline.push(b);
	}
	return { current, baseline, pairedCurrent, pairedBaseline };
}

// `response/llm_judged/groundedness/rating/percentage` carries its judge id as a path segment.
function resolveEvalKey(
	metric: string,
	explicit: Record<string, string> | undefined,
	keys: Set<string>,
): string | null {
	if (explicit?.[metric]) return explicit[metric];
	if (keys.has(metric)) return metric;
	const segments = metric.split('/').filter((s) => keys.has(s));
	return segments.length ? segments[segments.length - 1] : null;
}

function inferKind(metric: string, key: string | null, options: GateOptions): GateMetricKind {
	if (PROPORTION_NAME.test(metric)) return 'proportion';
	if (key) {
		for (const rows of [options.currentRows, options.baselineRows]) {
			for (const r of rows ?? []) {
				const s = r.eval?.[key];
				if (s && s.status === 'ok') return typeof s.value === 'boolean' ? 'proportion' : 'mean';
			}
		}
	}
	return 'mean';
}

// Direction belongs to the metric's declaration, so the first score of the key decides.
function scoreDirection(key: string, options: GateOptions): Direction | undefined {
	for (const rows of [options.currentRows, options.baselineRows]) {
		for (const r of rows ?? []) {
			const score = r.eval?.[key];
			if (score) return score.direction;
		}
	}
	return undefined;
}

/** Value a row contributes: pass/fail for proportions, the numeric value for means. */
export function rowValue(
	row: GateRow | undefined,
	key: string,
	kind: GateMetricKind,
): number | null {
	const s = row?.eval?.[key];
	if (!s || s.status !== 'ok') return null;
	if (kind === 'proportion') {
		if (typeof s.pass === 'boolean') return s.pass ? 1 : 0;
		return typeof s.value === 'boolean' ? (s.value ? 1 : 0) : null;
	}
	if (typeof s.value === 'number' && Number.isFinite(s.value)) return s.value;
	if (typeof s.value === 'boolean') return s.value ? 1 : 0;
	return null;
}

function chooseTest(
	kind: GateMetricKind,
	key: string | null,
	b: GateMetricLike,
	c: GateMetricLike,
	row: GateRowResult,
	pairing: Pairing | null,
	options: GateOptions,
): GateTest | null {
	if (key && pairing) {
		const curVals = valuesOf(pairing.current, key, kind);
		const baseVals = valuesOf(pairing.baseline, key, kind);
		if (curVals.length > 0 && baseVals.length > 0) {
			const before: number[] = [];
			const after: number[] = [];
			pairing.pairedCurrent.forEach((r, i) => {
				const a = rowValue(r, key, kind);
				const bv = a === null ? null : rowValue(pairing.pairedBaseline[i], key, kind);
				if (a !== null && bv !== null) {
					after.push(a);
					before.push(bv);
				}
			});
			const coverage = options.minPairCoverage ?? 0.5;
			if (
				after.length > 0 &&
				after.length >= coverage * Math.max(curVals.length, baseVals.length)
			) {
				return pairedTest(kind, before, after, options);
			}
			return unpairedTest(kind, curVals, baseVals, options);
		}
	}
	// Summary only: a rate times its measured count recovers the pass count.
	if (kind === 'proportion' && isRate(row.current) && isRate(row.baseline)) {
		const x1 = Math.round((row.current as number) * c.measured);
		const x2 = Math.round((row.baseline as number) * b.measured);
		return twoProportionZTest(x1, c.measured, x2, b.measured);
	}
	return null;
}

function isRate(v: number | null): boolean {
	return v !== null && v >= 0 && v <= 1;
}

function valuesOf(rows: readonly GateRow[], key: string, kind: GateMetricKind): number[] {
	const out: number[] = [];
	for (const r of rows) {
		const v = rowValue(r, key, kind);
		if (v !== null) out.push(v);
	}
	return out;
}

/** Rows per side (or non-zero paired differences) below which the gate runs no bootstrap test. */
export const MIN_BOOTSTRAP_ROWS = 10;

/**
 * The gate's test on paired values (`after` - `before`): McNemar for proportions, the exact or
 * normal signed-rank test (or the paired bootstrap above its floor) for means. Compare Variants
 * runs the same test on two variants' rows.
 */
export function pairedTest(
	kind: GateMetricKind,
	before: number[],
	after: number[],
	options: GateOptions,
): GateTest | null {
	if (kind === 'proportion') {
		let passToFail = 0;
		let failToPass = 0;
		before.forEach((b, i) => {
			if (b === 1 && after[i] === 0) passToFail++;
			else if (b === 0 && after[i] === 1) failToPass++;
		});
		return mcnemar(passToFail, failToPass, { exactBelow: options.mcnemarExactBelow });
	}
	const diffs = after.map((a, i) => a - before[i]);
	if (options.pairedScoreTest === 'bootstrap') {
		// Only pairs that changed carry evidence: a bootstrap of a few non-zero differences among
		// many zeros agrees with itself on most resamples (4 of 20 pairs one point down: p = 0.016).
		// Below the floor the exact signed-rank test decides instead, and the row says so.
		const floor = options.minBootstrapRows ?? MIN_BOOTSTRAP_ROWS;
		const changed = diffs.filter((d) => d !== 0).length;
		if (changed >= floor) return pairedBootstrap(diffs, options.bootstrap);
		return {
			...signedRankTest(diffs),
			note: `Paired bootstrap not run: only ${changed} of ${diffs.length} pairs differ (fewer than ${floor}), so the exact signed-rank test decided.`,
		};
	}
	return signedRankTest(diffs);
}

function unpairedTest(
	kind: GateMetricKind,
	current: number[],
	baseline: number[],
	options: GateOptions,
): TestResult | null {
	if (kind === 'proportion') {
		const x1 = current.reduce((a, v) => a + v, 0);
		const x2 = baseline.reduce((a, v) => a + v, 0);
		return twoProportionZTest(x1, current.length, x2, baseline.length);
	}
	const floor = options.minBootstrapRows ?? MIN_BOOTSTRAP_ROWS;
	if (current.length < floor || baseline.length < floor) return null;
	return unpairedBootstrap(current, baseline, options.bootstrap);
}
