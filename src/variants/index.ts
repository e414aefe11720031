/**
 * Compare Variants: is variant B better than variant A on the same questions?
 *
 * Rows say which variant produced them (a `variant` field, or any field the caller names) and
 * pair across variants by `request_id`, else by the request text. From the pointwise Scores of
 * every row: per metric, each variant's mean with its interval (Wilson for yes/no, the seeded
 * bootstrap otherwise, as Eval Aggregate) and, per pair of variants, the paired difference with
 * the Regression Gate's own test (McNemar, signed-rank exact at small n, or the paired bootstrap),
 * Holm-adjusted across every test of the comparison. From pairwise verdicts (the Pairwise Judge's
 * Scores on rows holding `variant_a` and `variant_b`): win / tie / loss, the win rate with
 * Wilson's interval, the exact sign test on the decisive pairs, with three or more variants
 * Bradley-Terry strengths with bootstrap intervals and the win matrix; and the judge's health
 * (position consistency, first-slot preference). Cost and latency per variant from Cost &
 * Latency. Every row is accounted for: paired, unpaired (named), duplicated (named), or without
 * a variant (named). A variant whose rows or verdicts are missing is never declared the winner.
 */
import { wilsonInterval, type Interval } from '../stats/intervals';
import { bootstrapMeanInterval } from '../stats/bootstrap';
import { histogramFromValues } from '../stats/histogram';
import {
	bradleyTerryBootstrap,
	signTest,
	winMatrix,
	winRate,
	type PairOutcome,
	type WinRate,
} from '../stats/pairwise';
import { holmAdjust, type TestResult } from '../stats/tests';
import { pairedTest, rowValue, type GateMetricKind, type GateOptions } from '../gate';
import type { Direction, Score } from '../core/types';

import { getJudge } from '../judges/registry';

/** Options of {@link compareVariants}. */
export interface CompareVariantsOptions {
	/** Field naming the variant of a pointwise row (a dotted path); default `variant`. */
	variantField?: string;
	/** Field pairing rows across variants; default `request_id`, else the request text. */
	keyField?: string;
	/** Variants in this order first (the first is the baseline of every verdict line). */
	order?: string[];
	/** Family-wise significance level after Holm; default 0.05. */
	alpha?: number;
	/** Confidence level of intervals; default 0.95. */
	level?: number;
	/** Share of the requests a variant must have verdicts for to be declared better; default 0.95. */
	minCoverage?: number;
	/** Position consistency below which the judge is named in the warnings; default 0.8. */
	minConsistency?: number;
	/** Paired score test as the Regression Gate's option; default `wilcoxon`. */
	pairedScoreTest?: 'wilcoxon' | 'bootstrap';
	/** Bootstrap resamples of means and Bradley-Terry strengths; default 1000. */
	resamples?: number;
	/** Seed of the Bradley-Terry bootstrap and paired bootstrap tests; default 42. */
	seed?: number;
	/** Requests listed in `disagreements`; default 5. */
	topDisagreements?: number;
}

/** A row the comparison could not use as it stands, named. */
export interface RowProblem {
	/** 0-based position of the row in the input. */
	row: number;
	variant?: string;
	key?: string;
	reason: string;
}

/** Share of the requests a variant has a usable verdict for. */
export interface Coverage {
	/** Requests with an ok or not-applicable Score. */
	judged: number;
	/** Requests seen for any variant. */
	of: number;
	share: number;
}

/** One variant's figures on one metric. */
export interface VariantMetric {
	/** Mean of ok values (pass rate for yes/no), or null when none. */
	value: number | null;
	interval: Interval | null;
	n: number;
	errors: number;
	notApplicable: number;
	coverage: Coverage;
}

/** A metric across variants. */
export interface MetricComparison {
	metric: string;
	kind: GateMetricKind;
	direction: Direction;
	byVariant: Record<string, VariantMetric>;
}

/** Verdict of one pair of variants on one metric or criterion. */
export type PairVerdict = 'a_better' | 'b_better' | 'no_difference' | 'not_tested' | 'incomplete';

/** One pair of variants on one pointwise metric; b is compared with a (difference b - a). */
export interface PairMetricResult {
	metric: string;
	a: string;
	b: string;
	/** Pairs with an ok value on both sides. */
	pairs: number;
	/** Mean of b - a over the pairs (pass rate difference for yes/no); null without pairs. */
	difference: number | null;
	test: string;
	pValue: number | null;
	pAdjusted: number | null;
	verdict: PairVerdict;
	note: string;
}

/** One pair of variants on one pairwise criterion, from a's side. */
export interface PairwiseResult extends WinRate {
	criterion: string;
	a: string;
	b: string;
	/** Verdicts that flipped or changed with the order, counted as ties. */
	positionInconsistent: number;
	errors: number;
	coverage: Coverage;
	/** The sign test's p-value, Holm-adjusted with every other test of the comparison. */
	pAdjusted: number | null;
	verdict: PairVerdict;
	note: string;
}

/** Bradley-Terry strengths of one criterion (three or more variants). */
export interface CriterionRanking {
	criterion: string;
	variants: string[];
	strengths: Record<string, { strength: number; low: number; high: number }>;
	/** wins[a][b]: a's wins over b, ties as halves. */
	wins: Record<string, Record<string, number>>;
	games: Record<string, Record<string, number>>;
	regularized: boolean;
	resamples: number;
	seed: number;
}

/** The judge's own health on one criterion. */
export interface JudgeHealth {
	criterion: string;
	models: string[];
	/** Pairs judged in both orders. */
	judged: number;
	/** Pairs whose two orders gave the same verdict. */
	consistent: number;
	consistency: number | null;
	/** Pairs whose two orders named opposite winners. */
	flipped: number;
	/** Single-order verdicts that picked the answer in the first slot, and the second. */
	firstSlot: number;
	secondSlot: number;
	/** Share of decisive single-order verdicts that picked the first slot (0.5 = no bias). */
	firstSlotShare: number | null;
	/** Sign test of first against second slot picks. */
	slotTest: TestResult;
	warning: string | null;
}

/** Cost and latency of one variant (from Cost & Latency's figures). */
export interface VariantCost {
	costUsd: { mean: number | null; total: number | null; n: number };
	latencySeconds: { mean: number | null; n: number };
}

/** One verdict line per pair of variants. */
export interface PairSummary {
	a: string;
	b: string;
	line: string;
	/** Metrics and criteria on which b (or a) is significantly better, with complete coverage. */
	bBetter: string[];
	aBetter: string[];
	/** b's cost as a share of a's (mean per request), and its latency ratio. */
	costRatio: number | null;
	latencyRatio: number | null;
}

/** A request whose variants' scores differ most, for the reports' matrix. */
export interface Disagreement {
	key: string;
	request?: string;
	/** Sum over metrics of (highest - lowest variant value) / the scale's range. */
	spread: number;
	/** Each variant's values on the metrics it was scored on (null: not scored). */
	values: Record<string, Record<string, number | null>>;
}

/** Result of {@link compareVariants}. */
export interface VariantComparison {
	variants: string[];
	/** Distinct requests over all variants. */
	requests: number;
	rows: { total: number; pointwise: number; pairwise: number; byVariant: Record<string, number> };
	metrics: MetricComparison[];
	pairs: PairMetricResult[];
	pairwise: PairwiseResult[];
	rankings: CriterionRanking[];
	judgeHealth: JudgeHealth[];
	cost: Record<string, VariantCost>;
	summary: PairSummary[];
	/** The requests whose variants' scores differ most (at most `topDisagreements`). */
	disagreements: Disagreement[];
	/** Rows of one variant with no row of another variant for the same request. */
	unpaired: RowProblem[];
	duplicates: RowProblem[];
	/** Rows with no variant (or a pairwise row without both variant names). */
	unassigned: RowProblem[];
	warnings: string[];
	alpha: number;
	level: number;
	minCoverage: number;
	rule: string;
}

const RULE =
	'b better = the paired test (as the Regression Gate: McNemar, signed-rank, bootstrap) or the exact sign test on decisive pairwise verdicts is significant after Holm correction across every test of the comparison, and b has verdicts for at least the minimum coverage of the requests; a verdict that flips with the order is a tie.';

type Json = Record<string, unknown>;

function readPath(row: Json, path: string): unknown {
	if (path in row) return row[path];
	let cur: unknown = row;
	for (const part of path.split('.')) {
		if (!cur || typeof cur !== 'object') return undefined;
		cur = (cur as Json)[part];
	}
	return cur;
}

function nameOf(v: unknown): string | undefined {
	if (typeof v === 'string' && v.trim() !== '') return v.trim();
	if (typeof v === 'number' && Number.isFinite(v)) return String(v);
	return undefined;
}

function keyOf(row: Json, keyField: string): string | undefined {
	const id = nameOf(readPath(row, keyField));
	if (id !== undefined) return `id:${id}`;
	const req = row.request;
	if (typeof req === 'string' && req.trim() !== '') return `text:${req.trim()}`;
	if (req !== undefined && req !== null && typeof req === 'object')
		return `text:${JSON.stringify(req)}`;
	return undefined;
}

function shownKey(key: string): string {
	const text = key.replace(/^(id|text):/, '');
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function scoresOf(row: Json): [string, Score][] {
	const e = row.eval;
	if (!e || typeof e !== 'object') return [];
	return Object.entries(e as Record<string, unknown>).filter(
		(entry): entry is [string, Score] =>
			!!entry[1] && typeof entry[1] === 'object' && typeof (entry[1] as Score).status === 'string',
	);
}

const isCost = (s: Score): boolean =>
	typeof s.signature === 'string' && s.signature.startsWith('metric:cost_latency');
// A pairwise Score is one whose declaration is of the pairwise family (the Pairwise Judge's).
const isPairwise = (s: Score): boolean => getJudge(s.metric)?.family === 'pairwise';

// A pairwise Score under its judge's own key is named by its criterion; under a Result Key, by it.
function criterionOf(key: string, s: Score): string {
	const c = (s.details as Json | undefined)?.criterion;
	return key === s.metric && typeof c === 'string' && c !== '' ? c : key;
}

function finiteNumber(v: unknown): number | undefined {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

interface PointRow {
	index: number;
	variant: string;
	key: string;
	row: Json;
}

interface PairRow {
	index: number;
	a: string;
	b: string;
	key: string;
	row: Json;
}

/** Compares the variants found in `rows`; see the module comment. Never returns NaN. */
export function compareVariants(
	rows: readonly Json[],
	options: CompareVariantsOptions = {},
): VariantComparison {
	const variantField = options.variantField?.trim() || 'variant';
	const keyField = options.keyField?.trim() || 'request_id';
	const alpha = options.alpha ?? 0.05;
	const level = options.level ?? 0.95;
	const minCoverage = options.minCoverage ?? 0.95;
	const minConsistency = options.minConsistency ?? 0.8;
	const resamples = options.resamples ?? 1000;
	const seed = options.seed ?? 42;
	// alpha and level strictly inside (0, 1); the two minimums anywhere in [0, 1].
	for (const [name, v] of [
		['alpha', alpha],
		['level', level],
	] as const)
		if (!(v > 0 && v < 1)) throw new RangeError(`${name} must be within (0, 1), got ${v}`);
	for (const [name, v] of [
		['minCoverage', minCoverage],
		['minConsistency', minConsistency],
	] as const)
		if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be within [0, 1], got ${v}`);

	const unassigned: RowProblem[] = [];
	const duplicates: RowProblem[] = [];
	const points: PointRow[] = [];
	const pairRows: PairRow[] = [];
	const seenVariants: string[] = [];
	const addVariant = (v: string) => {
		if (!seenVariants.includes(v)) seenVariants.push(v);
	};
	const byVariantKey = new Map<string, PointRow>();
	const pairSeen = new Map<string, number>();

	rows.forEach((row, index) => {
		const key = keyOf(row, keyField);
		const scores = scoresOf(row);
		const pairwise = scores.some(([, s]) => isPairwise(s));
		if (pairwise) {
			const a = nameOf(row.variant_a);
			const b = nameOf(row.variant_b);
			if (!a || !b || a === b || !key) {
				unassigned.push({
					row: index,
					...(key ? { key: shownKey(key) } : {}),
					reason: !key
						? `no ${keyField} and no request text to pair by`
						: a && a === b
							? `variant_a and variant_b are both '${a}'`
							: 'a pairwise verdict needs both variant_a and variant_b',
				});
				return;
			}
			addVariant(a);
			addVariant(b);
			const pk = `${[a, b].sort().join('\u0000')}\u0000${key}`;
			const first = pairSeen.get(pk);
			if (first !== undefined) {
				duplicates.push({
					row: index,
					variant: `${a} vs ${b}`,
					key: shownKey(key),
					reason: `the same pair of variants on this request again (row ${first} is used)`,
				});
				return;
			}
			pairSeen.set(pk, index);
			pairRows.push({ index, a, b, key, row });
			return;
		}
		const variant = nameOf(readPath(row, variantField));
		if (!variant) {
			unassigned.push({
				row: index,
				...(key ? { key: shownKey(key) } : {}),
				reason: `no variant: the row has no '${variantField}' field`,
			});
			return;
		}
		if (!key) {
			unassigned.push({
				row: index,
				variant,
				reason: `no ${keyField} and no request text to pair by`,
			});
			return;
		}
		addVariant(variant);
		const vk = `${variant}\u0000${key}`;
		const first = byVariantKey.get(vk);
		if (first) {
			duplicates.push({
				row: index,
				variant,
				key: shownKey(key),
				reason: `a second row of variant '${variant}' for this request (row ${first.index} is used)`,
			});
			return;
		}
		const p = { index, variant, key, row };
		byVariantKey.set(vk, p);
		points.push(p);
	});

	const order = [
		...(options.order ?? []).filter((v) => seenVariants.includes(v)),
		...seenVariants.filter((v) => !(options.order ?? []).includes(v)),
	];
	const allKeys = new Set<string>([...points.map((p) => p.key), ...pairRows.map((p) => p.key)]);
	const requests = allKeys.size;
	const pointKeys = new Set(points.map((p) => p.key));
	const rowsOf = new Map<string, Map<string, PointRow>>();
	for (const v of order) rowsOf.set(v, new Map());
	for (const p of points) rowsOf.get(p.variant)!.set(p.key, p);
	const pointVariants = order.filter((v) => rowsOf.get(v)!.size > 0);

	// Unpaired: a row of a variant whose request another pointwise variant has no row for.
	const unpaired: RowProblem[] = [];
	for (const p of points) {
		const missing = pointVariants.filter((v) => v !== p.variant && !rowsOf.get(v)!.has(p.key));
		if (missing.length > 0)
			unpaired.push({
				row: p.index,
				variant: p.variant,
				key: shownKey(p.key),
				reason: `no row of ${missing.map((m) => `'${m}'`).join(', ')} for this request`,
			});
	}

	// Pointwise metrics.
	const metricInfo = new Map<string, { kind: GateMetricKind; direction: Direction }>();
	for (const p of points)
		for (const [k, s] of scoresOf(p.row)) {
			if (isCost(s) || isPairwise(s)) continue;
			const info = metricInfo.get(k);
			const kind: GateMetricKind =
				s.scale?.kind === 'binary' || typeof s.value === 'boolean' ? 'proportion' : 'mean';
			if (!info) metricInfo.set(k, { kind, direction: s.direction ?? 'higher' });
			else if (s.status === 'ok' && kind === 'proportion') info.kind = 'proportion';
		}
	const metricNames = [...metricInfo.keys()].sort();
	const metrics: MetricComparison[] = metricNames.map((metric) => {
		const { kind, direction } = metricInfo.get(metric)!;
		const byVariant: Record<string, VariantMetric> = {};
		for (const v of pointVariants) {
			const values: number[] = [];
			let errors = 0;
			let na = 0;
			for (const p of rowsOf.get(v)!.values()) {
				const s = (p.row.eval as Record<string, Score | undefined>)[metric];
				if (!s) continue;
				if (s.status === 'error') errors++;
				else if (s.status === 'not_applicable') na++;
				else {
					const x = rowValue(p.row as never, metric, kind);
					if (x !== null) values.push(x);
				}
			}
			const n = values.length;
			const mean = n ? values.reduce((a, x) => a + x, 0) / n : null;
			const interval =
				n === 0
					? null
					: kind === 'proportion'
						? (wilsonInterval(
								values.reduce((a, x) => a + x, 0),
								n,
								level,
							) ?? null)
						: (bootstrapMeanInterval(histogramFromValues(values), {
								level,
								resamples,
								salt: `${metric}|${v}`,
							}) ?? null);
			const judged = n + na;
			byVariant[v] = {
				value: mean,
				interval,
				n,
				errors,
				notApplicable: na,
				coverage: coverageOf(judged, pointKeys.size),
			};
		}
		return { metric, kind, direction, byVariant };
	});

	// Paired differences for every pair of pointwise variants, on every metric.
	const gateOptions: GateOptions = {
		pairedScoreTest: options.pairedScoreTest,
		bootstrap: { seed, resamples: 2000 },
	};
	const pairs: PairMetricResult[] = [];
	const tests: { result: PairMetricResult }[] = [];
	for (let i = 0; i < pointVariants.length; i++)
		for (let j = i + 1; j < pointVariants.length; j++) {
			const a = pointVariants[i];
			const b = pointVariants[j];
			for (const m of metrics) {
				const before: number[] = [];
				const after: number[] = [];
				for (const [key, pa] of rowsOf.get(a)!) {
					const pb = rowsOf.get(b)!.get(key);
					if (!pb) continue;
					const va = rowValue(pa.row as never, m.metric, m.kind);
					const vb = va === null ? null : rowValue(pb.row as never, m.metric, m.kind);
					if (va !== null && vb !== null) {
						before.push(va);
						after.push(vb);
					}
				}
				const result: PairMetricResult = {
					metric: m.metric,
					a,
					b,
					pairs: before.length,
					difference: before.length
						? after.reduce((s, x, k) => s + (x - before[k]), 0) / before.length
						: null,
					test: 'none',
					pValue: null,
					pAdjusted: null,
					verdict: 'not_tested',
					note: before.length ? '' : 'No request has a value of this metric for both variants.',
				};
				if (before.length > 0) {
					const t = pairedTest(m.kind, before, after, gateOptions);
					if (t) {
						result.test = t.test;
						result.pValue = t.pValue;
						if (t.note) result.note = t.note;
						tests.push({ result });
					}
				}
				pairs.push(result);
			}
		}

	// Pairwise verdicts.
	const criteria = new Map<string, { p: PairRow; s: Score }[]>();
	for (const p of pairRows)
		for (const [k, s] of scoresOf(p.row)) {
			if (!isPairwise(s)) continue;
			const name = criterionOf(k, s);
			const list = criteria.get(name);
			if (list) list.push({ p, s });
			else criteria.set(name, [{ p, s }]);
		}
	const pairwise: PairwiseResult[] = [];
	const pairwiseTests: PairwiseResult[] = [];
	const rankings: CriterionRanking[] = [];
	const judgeHealth: JudgeHealth[] = [];
	const warnings: string[] = [];
	for (const [criterion, list] of [...criteria.entries()].sort(([x], [y]) => x.localeCompare(y))) {
		const variants = order.filter((v) => list.some(({ p }) => p.a === v || p.b === v));
		const idx = new Map(variants.map((v, i) => [v, i]));
		const outcomes: PairOutcome[] = [];
		const cells = new Map<
			string,
			{ w: number; t: number; l: number; inc: number; err: number; keys: Set<string> }
		>();
		const models = new Set<string>();
		let judged = 0;
		let consistent = 0;
		let flipped = 0;
		let firstSlot = 0;
		let secondSlot = 0;
		for (const { p, s } of list) {
			// Oriented by the variants' order: x is the earlier variant.
			const swap = idx.get(p.a)! > idx.get(p.b)!;
			const x = swap ? p.b : p.a;
			const y = swap ? p.a : p.b;
			const cellKey = `${x}\u0000${y}`;
			let cell = cells.get(cellKey);
			if (!cell) cells.set(cellKey, (cell = { w: 0, t: 0, l: 0, inc: 0, err: 0, keys: new Set() }));
			if (s.status === 'error') {
				cell.err++;
				continue;
			}
			if (s.status !== 'ok' || typeof s.value !== 'number') continue;
			cell.keys.add(p.key);
			if (s.model) models.add(s.model);
			const forA = s.value;
			const forX = swap ? 1 - forA : forA;
			if (forX === 1) cell.w++;
			else if (forX === 0) cell.l++;
			else cell.t++;
			outcomes.push({
				a: idx.get(x)!,
				b: idx.get(y)!,
				outcome: forX === 1 ? 1 : forX === 0 ? 0 : 0.5,
				group: p.key,
			});
			const d = (s.details ?? {}) as Json;
			if (typeof d.positionConsistent === 'boolean') {
				judged++;
				if (d.positionConsistent) consistent++;
				else cell.inc++;
				if (d.flipped === true) flipped++;
			}
			for (const slot of Array.isArray(d.slots) ? d.slots : []) {
				if (slot === 'first') firstSlot++;
				else if (slot === 'second') secondSlot++;
			}
		}
		for (const [cellKey, c] of cells) {
			const [a, b] = cellKey.split('\u0000');
			const wr = winRate({ wins: c.w, ties: c.t, losses: c.l }, level);
			const result: PairwiseResult = {
				criterion,
				a,
				b,
				...wr,
				positionInconsistent: c.inc,
				errors: c.err,
				coverage: coverageOf(c.keys.size, requests),
				pAdjusted: null,
				verdict: 'not_tested',
				note: c.inc > 0 ? `${c.inc} verdicts changed with the order and count as ties.` : '',
			};
			pairwise.push(result);
			if (wr.comparisons > 0) pairwiseTests.push(result);
		}
		const consistency = judged ? consistent / judged : null;
		const decisive = firstSlot + secondSlot;
		const health: JudgeHealth = {
			criterion,
			models: [...models].sort(),
			judged,
			consistent,
			consistency,
			flipped,
			firstSlot,
			secondSlot,
			firstSlotShare: decisive ? firstSlot / decisive : null,
			slotTest: signTest(firstSlot, secondSlot),
			warning: null,
		};
		if (consistency !== null && consistency < minConsistency) {
			const who = health.models.length ? `judge ${health.models.join(', ')}` : 'the judge';
			health.warning = `${who} on ${criterion} changed its verdict with the order on ${judged - consistent} of ${judged} pairs (${pct(consistency)} consistent, ${flipped} flipped outright${decisive ? `; first slot picked ${pct(firstSlot / decisive)} of the time` : ''})`;
			warnings.push(`Position bias: ${health.warning}.`);
		}
		judgeHealth.push(health);
		if (variants.length >= 3 && outcomes.length > 0) {
			const bt = bradleyTerryBootstrap(variants.length, outcomes, { resamples, seed, level });
			const { wins, games } = winMatrix(variants.length, outcomes);
			const table = (m: number[][]) =>
				Object.fromEntries(
					variants.map((v, i) => [v, Object.fromEntries(variants.map((w, j) => [w, m[i][j]]))]),
				);
			rankings.push({
				criterion,
				variants,
				strengths: Object.fromEntries(
					variants.map((v, i) => [
						v,
						{ strength: bt.strengths[i], low: bt.intervals[i].low, high: bt.intervals[i].high },
					]),
				),
				wins: table(wins),
				games: table(games),
				regularized: bt.regularized,
				resamples: bt.resamples,
				seed: bt.seed,
			});
			if (bt.regularized)
				warnings.push(
					`Bradley-Terry on ${criterion}: a variant never won or never lost, so each compared pair got one virtual tie to keep the strengths finite.`,
				);
		}
	}

	// Holm across every test of the comparison: pointwise pairs and pairwise sign tests.
	const family: { p: number; set: (adj: number) => void }[] = [
		...tests.map((t) => ({
			p: t.result.pValue as number,
			set: (x: number) => (t.result.pAdjusted = x),
		})),
		...pairwiseTests.map((r) => ({ p: r.sign.pValue, set: (x: number) => (r.pAdjusted = x) })),
	];
	const adjusted = holmAdjust(family.map((f) => f.p));
	family.forEach((f, i) => f.set(adjusted[i]));

	const coverageFor = (variant: string, metric: string): Coverage =>
		metrics.find((m) => m.metric === metric)?.byVariant[variant]?.coverage ??
		coverageOf(0, requests);
	for (const r of pairs) {
		if (r.pAdjusted === null || r.difference === null) continue;
		const m = metricInfo.get(r.metric)!;
		const better = m.direction === 'higher' ? r.difference : -r.difference;
		decide(
			r,
			better,
			r.pAdjusted,
			alpha,
			minCoverage,
			coverageFor(r.a, r.metric),
			coverageFor(r.b, r.metric),
		);
	}
	for (const r of pairwiseTests) {
		const adj = r.pAdjusted ?? 1;
		// Pairwise coverage is the pair's: a request without a verdict is missing for both sides.
		decide(r, r.losses - r.wins, adj, alpha, minCoverage, r.coverage, r.coverage);
	}

	const cost = costOf(pointVariants, rowsOf);
	const summary = summarise(order, pairs, pairwise, cost, rowsOf, requests, alpha);
	if (unpaired.length > 0)
		warnings.push(
			`${unpaired.length} rows have no row of another variant for the same request (see unpaired).`,
		);
	if (duplicates.length > 0)
		warnings.push(`${duplicates.length} duplicated rows were not used (see duplicates).`);
	if (unassigned.length > 0)
		warnings.push(`${unassigned.length} rows name no variant (see unassigned).`);

	const disagreements = disagreementsOf(
		pointVariants,
		rowsOf,
		metrics,
		options.topDisagreements ?? 5,
	);
	const byVariant: Record<string, number> = {};
	for (const v of order) byVariant[v] = rowsOf.get(v)!.size;
	return {
		variants: order,
		requests,
		rows: { total: rows.length, pointwise: points.length, pairwise: pairRows.length, byVariant },
		metrics,
		pairs,
		pairwise,
		rankings,
		judgeHealth,
		cost,
		summary,
		disagreements,
		unpaired,
		duplicates,
		unassigned,
		warnings,
		alpha,
		level,
		minCoverage,
		rule: RULE,
	};
}

function disagreementsOf(
	variants: string[],
	rowsOf: Map<string, Map<string, PointRow>>,
	metrics: MetricComparison[],
	top: number,
): Disagreement[] {
	if (top <= 0 || variants.length < 2) return [];
	const keys = new Set<string>();
	for (const v of variants) for (const k of rowsOf.get(v)!.keys()) keys.add(k);
	const out: Disagreement[] = [];
	for (const key of keys) {
		const values: Record<string, Record<string, number | null>> = {};
		let spread = 0;
		let request: string | undefined;
		for (const m of metrics) {
			const seen: number[] = [];
			let range = 1;
			for (const v of variants) {
				const p = rowsOf.get(v)!.get(key);
				if (!p) continue;
				if (request === undefined && typeof p.row.request === 'string') request = p.row.request;
				const s = (p.row.eval as Record<string, Score | undefined>)[m.metric];
				const x = p ? rowValue(p.row as never, m.metric, m.kind) : null;
				if (s?.scale && s.scale.max > s.scale.min && s.scale.max < Number.MAX_SAFE_INTEGER)
					range = m.kind === 'proportion' ? 1 : s.scale.max - s.scale.min;
				(values[v] ??= {})[m.metric] = x;
				if (x !== null) seen.push(x);
			}
			if (seen.length >= 2) spread += (Math.max(...seen) - Math.min(...seen)) / range;
		}
		if (spread > 0)
			out.push({ key: shownKey(key), ...(request ? { request } : {}), spread, values });
	}
	return out.sort((a, b) => b.spread - a.spread || a.key.localeCompare(b.key)).slice(0, top);
}

function coverageOf(judged: number, of: number): Coverage {
	return { judged, of, share: of > 0 ? judged / of : 0 };
}

function pct(x: number): string {
	return `${Math.round(x * 100)}%`;
}

// `better` > 0 when b is better. A side below the coverage minimum is never declared better.
function decide(
	r: { verdict: PairVerdict; note: string; a: string; b: string },
	better: number,
	pAdjusted: number,
	alpha: number,
	minCoverage: number,
	covA: Coverage,
	covB: Coverage,
): void {
	if (!(pAdjusted < alpha) || better === 0) {
		r.verdict = 'no_difference';
		r.note = [r.note, `Not significant (Holm-adjusted p ${fmtP(pAdjusted)}).`]
			.filter(Boolean)
			.join(' ');
		return;
	}
	const winner = better > 0 ? r.b : r.a;
	const cov = better > 0 ? covB : covA;
	if (cov.share < minCoverage) {
		r.verdict = 'incomplete';
		r.note = [
			r.note,
			`${winner} looks better (Holm-adjusted p ${fmtP(pAdjusted)}) but has verdicts for only ${cov.judged} of ${cov.of} requests (minimum ${pct(minCoverage)}): not declared.`,
		]
			.filter(Boolean)
			.join(' ');
		return;
	}
	r.verdict = better > 0 ? 'b_better' : 'a_better';
	r.note = [r.note, `${winner} better (Holm-adjusted p ${fmtP(pAdjusted)}).`]
		.filter(Boolean)
		.join(' ');
}

/** A p-value as reports print it: 3 significant digits, `<0.001` below. */
export function fmtP(p: number): string {
	if (p < 0.001) return '<0.001';
	return p.toPrecision(2).replace(/^0\.(\d)$/, '0.$1');
}

function costOf(
	variants: string[],
	rowsOf: Map<string, Map<string, PointRow>>,
): Record<string, VariantCost> {
	const out: Record<string, VariantCost> = {};
	for (const v of variants) {
		const costs: number[] = [];
		const lat: number[] = [];
		for (const p of rowsOf.get(v)!.values()) {
			const f = figuresOf(p.row);
			if (f.cost !== undefined) costs.push(f.cost);
			if (f.latency !== undefined) lat.push(f.latency);
		}
		const total = costs.reduce((a, x) => a + x, 0);
		out[v] = {
			costUsd: {
				mean: costs.length ? total / costs.length : null,
				total: costs.length ? total : null,
				n: costs.length,
			},
			latencySeconds: {
				mean: lat.length ? lat.reduce((a, x) => a + x, 0) / lat.length : null,
				n: lat.length,
			},
		};
	}
	return out;
}

// Cost & Latency's figures: its Score's details, else the figures it writes on the row.
function figuresOf(row: Json): { cost?: number; latency?: number } {
	for (const [, s] of scoresOf(row)) {
		if (!isCost(s) || s.status === 'error') continue;
		const d = (s.details ?? {}) as Json;
		const cost = finiteNumber(d.cost_usd);
		const latency = finiteNumber(d.latency_seconds);
		if (cost !== undefined || latency !== undefined) return { cost, latency };
	}
	return { cost: finiteNumber(row.cost_usd), latency: finiteNumber(row.latency_seconds) };
}

function summarise(
	order: string[],
	pairs: PairMetricResult[],
	pairwise: PairwiseResult[],
	cost: Record<string, VariantCost>,
	rowsOf: Map<string, Map<string, PointRow>>,
	requests: number,
	alpha: number,
): PairSummary[] {
	const out: PairSummary[] = [];
	for (let i = 0; i < order.length; i++)
		for (let j = i + 1; j < order.length; j++) {
			const a = order[i];
			const b = order[j];
			const mine = pairs.filter((r) => r.a === a && r.b === b);
			const pw = pairwise.filter((r) => r.a === a && r.b === b);
			if (mine.length === 0 && pw.length === 0) continue;
			const parts: string[] = [];
			const bBetter: string[] = [];
			const aBetter: string[] = [];
			const same: string[] = [];
			const undecided: string[] = [];
			const adjOf = (r: PairMetricResult | PairwiseResult): number => r.pAdjusted ?? 1;
			for (const r of [...mine, ...pw]) {
				const name = 'criterion' in r ? `${r.criterion} (pairwise)` : r.metric;
				if (r.verdict === 'b_better') {
					bBetter.push(name);
					parts.push(`${b} better on ${name} (p ${fmtP(adjOf(r))})`);
				} else if (r.verdict === 'a_better') {
					aBetter.push(name);
					parts.push(`${a} better on ${name} (p ${fmtP(adjOf(r))})`);
				} else if (r.verdict === 'incomplete') undecided.push(name);
				else if (r.verdict === 'no_difference') same.push(name);
			}
			if (same.length) parts.push(`no difference on ${same.join(', ')}`);
			if (undecided.length) parts.push(`not decided on ${undecided.join(', ')} (verdicts missing)`);
			const ca = cost[a]?.costUsd.mean;
			const cb = cost[b]?.costUsd.mean;
			const costRatio = ca && cb !== null && cb !== undefined && ca > 0 ? cb / ca : null;
			// Under half a percent either way rounds to 0%: said as nothing rather than "0% cheaper".
			if (costRatio !== null && Math.abs(costRatio - 1) >= 0.005)
				parts.push(
					costRatio < 1
						? `${Math.round((1 - costRatio) * 100)}% cheaper`
						: `${Math.round((costRatio - 1) * 100)}% dearer`,
				);
			const la = cost[a]?.latencySeconds.mean;
			const lb = cost[b]?.latencySeconds.mean;
			const latencyRatio =
				la && lb !== null && lb !== undefined && la > 0 && lb > 0 ? lb / la : null;
			if (latencyRatio !== null && Math.abs(latencyRatio - 1) >= 0.05)
				parts.push(
					latencyRatio > 1
						? `${latencyRatio.toFixed(1)}x slower`
						: `${(1 / latencyRatio).toFixed(1)}x faster`,
				);
			const na = rowsOf.get(a)?.size ?? 0;
			const nb = rowsOf.get(b)?.size ?? 0;
			const coverage = na || nb ? `; rows ${a} ${na}/${requests}, ${b} ${nb}/${requests}` : '';
			out.push({
				a,
				b,
				line: `${b} vs ${a}: ${parts.length ? parts.join(', ') : 'nothing to compare'}${coverage} (alpha ${alpha}, Holm)`,
				bBetter,
				aBetter,
				costRatio,
				latencyRatio,
			});
		}
	return out;
}
