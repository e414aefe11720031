/**
 * The library form of every deterministic metric: one declaration in, one Score out.
 * Missing inputs give `not_applicable`, bad inputs and NaN give `error`, never a fake 0.
 */
import { singleScoreEvaluator, type Evaluator } from './evaluator';
import { readInputs } from './inputs';
import { errorScore, notApplicableScore, okScore, scoreBase, signatureOf } from './score';
import type { MetricDecl, Score } from './types';

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
			decl.passes && Number.isFinite(result.value)
				? decl.passes(result, params, base.threshold ?? decl.threshold.default)
				: undefined;
		return okScore(base, result.value, { details: result.details, stats: result.stats }, pass);
	} catch (e) {
		return errorScore(base, e instanceof Error ? e.message : String(e));
	}
}

/** A deterministic metric as an evaluator: its Score under its score key (ROUGE: its type). */
export function metricEvaluator(decl: MetricDecl): Evaluator<MetricRunOptions> {
	return singleScoreEvaluator(decl, (values, options) => evaluateMetric(decl, values, options));
}
