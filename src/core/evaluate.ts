/**
 * The library form of every deterministic metric: one declaration in, one Score out.
 * Missing inputs give `not_applicable`, bad inputs and NaN give `error`, never a fake 0.
 */
import { singleScoreEvaluator, type Evaluator } from './evaluator';
import { readInputs } from './inputs';
import {
	errorScore,
	notApplicableScore,
	okScore,
	scoreBase,
	signatureOf,
	withSlotNote,
} from './score';
import type { MetricDecl, MetricResult, Score } from './types';

/** Options of one metric evaluation. */
export interface MetricRunOptions {
	threshold?: number;
	params?: Record<string, unknown>;
}

/** Parameter values with declared defaults filled in. */
export function withDefaults(
	decl: Pick<MetricDecl, 'params'>,
	params: Record<string, unknown> = {},
): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const p of decl.params) out[p.name] = params[p.name] ?? p.default;
	for (const [k, v] of Object.entries(params)) if (v !== undefined && !(k in out)) out[k] = v;
	return out;
}

/** Score key under `item.json.eval`. */
export function scoreKeyOf(decl: MetricDecl, params: Record<string, unknown>): string {
	return decl.scoreKey ? decl.scoreKey(withDefaults(decl, params)) : decl.id;
}

/** Signature of a metric with its parameters, sacreBLEU-style. */
export function metricSignature(decl: MetricDecl, params: Record<string, unknown>): string {
	const p = decl.params.map((d) => `${d.name}:${String(params[d.name])}`).join('|');
	return signatureOf('metric', decl, decl.signatureParts, p);
}

/** What a metric's params decide (defaults filled in, score key, signature), per params object. */
const prepared = new WeakMap<
	object,
	{ decl: MetricDecl; params: Record<string, unknown>; key: string; signature: string }
>();

function prepare(decl: MetricDecl, given: Record<string, unknown> | undefined) {
	const hit = given && prepared.get(given);
	if (hit && hit.decl === decl) return hit;
	const params = withDefaults(decl, given);
	const parts = {
		decl,
		params,
		key: scoreKeyOf(decl, params),
		signature: metricSignature(decl, params),
	};
	// A node hands every row the same frozen params object when they hold no expression.
	if (given && Object.isFrozen(given)) prepared.set(given, parts);
	return parts;
}

/** Evaluate a deterministic metric on one row of raw input values keyed by input name. */
export function evaluateMetric(
	decl: MetricDecl,
	raw: Record<string, unknown>,
	options: MetricRunOptions = {},
): Score {
	if (decl.companions?.length) {
		return evaluateMetricScores(decl, raw, options)[prepare(decl, options.params).key];
	}
	// The common path (every metric without companions): one Score, no record of Scores.
	const { params, key, signature } = prepare(decl, options.params);
	const base = scoreBase(decl, key, signature, options.threshold);
	const read = readInputs(decl.inputs, raw);
	if (!read.ok) {
		return 'missing' in read
			? notApplicableScore(base, read.reason)
			: errorScore(base, read.error.message);
	}
	try {
		const result = decl.compute(read.values, params);
		const pass =
			decl.passes && result.notApplicable === undefined && Number.isFinite(result.value)
				? decl.passes(result, params, base.threshold ?? decl.threshold.default)
				: undefined;
		return resultScore(base, result, pass);
	} catch (e) {
		return errorScore(base, e instanceof Error ? e.message : String(e));
	}
}

/** The Score of one computed result (main or companion), with its own pass rule. */
function resultScore(
	base: ReturnType<typeof scoreBase>,
	result: MetricResult,
	pass: boolean | undefined,
): Score {
	const extras = { details: result.details, stats: result.stats, reason: result.reason };
	if (result.notApplicable !== undefined)
		return notApplicableScore(base, result.notApplicable, { details: result.details });
	return okScore(base, result.value, extras, pass);
}

/**
 * Every Score of a metric on one row: the main one under its score key, then its companions'
 * (declarations with `companions`, e.g. Tool Calls) under their ids. A row that cannot be read or
 * computed gives every key the same not-applicable or error Score.
 */
export function evaluateMetricScores(
	decl: MetricDecl,
	raw: Record<string, unknown>,
	options: MetricRunOptions = {},
): Record<string, Score> {
	const { params, key, signature } = prepare(decl, options.params);
	const base = scoreBase(decl, key, signature, options.threshold);
	const companions = decl.companions ?? [];
	const companionBase = (c: (typeof companions)[number]) =>
		scoreBase(c, c.id, signatureOf('metric', c, decl.signatureParts, `of:${signature}`));
	const all = (make: (b: ReturnType<typeof scoreBase>) => Score): Record<string, Score> => {
		const out: Record<string, Score> = { [key]: make(base) };
		for (const c of companions) out[c.id] = make(companionBase(c));
		return out;
	};
	const read = readInputs(decl.inputs, raw);
	if (!read.ok) {
		return 'missing' in read
			? all((b) => notApplicableScore(b, read.reason))
			: all((b) => errorScore(b, read.error.message));
	}
	let result: MetricResult;
	try {
		result = decl.compute(read.values, params);
	} catch (e) {
		const message = e instanceof Error ? e.message : String(e);
		return all((b) => errorScore(b, message));
	}
	const pass =
		decl.passes && result.notApplicable === undefined && Number.isFinite(result.value)
			? decl.passes(result, params, base.threshold ?? decl.threshold.default)
			: undefined;
	const out: Record<string, Score> = { [key]: resultScore(base, result, pass) };
	for (const c of companions) {
		const r = result.companions?.[c.id];
		const b = companionBase(c);
		out[c.id] = r
			? resultScore(b, r, undefined)
			: notApplicableScore(b, `${c.displayName} has nothing to measure on this row`);
	}
	return out;
}

/** A deterministic metric as an evaluator: its Score under its score key (ROUGE: its type). */
export function metricEvaluator(decl: MetricDecl): Evaluator<MetricRunOptions> {
	if (!decl.companions?.length) {
		return singleScoreEvaluator(decl, (values, options) => evaluateMetric(decl, values, options));
	}
	const byId = new Map(decl.companions.map((c) => [c.id, c]));
	return {
		facts: decl,
		factsOf: (k) => byId.get(k) ?? decl,
		evaluateRow: async (values, options) => {
			const scores = evaluateMetricScores(decl, values, options);
			for (const [k, s] of Object.entries(scores)) scores[k] = withSlotNote(s, byId.get(k) ?? decl);
			return scores;
		},
	};
}
