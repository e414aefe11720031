/**
 * The explicit list of deterministic metrics, validated when the module loads: unique ids,
 * unique input names per metric, every input mapped to a record field, and parameter defaults
 * within their declared options.
 */
import type { EvaluatorFacts, MetricDecl } from '../core/types';
import { bleuMetric } from './bleu';
import { f1ScoreMetric } from './f1';
import { gleuMetric } from './gleu';
import { meteorMetric } from './meteor';
import { retrievalMetrics } from './retrieval';
import { rougeMetric } from './rouge';
import { sacreBleuMetric } from './sacrebleu';
import { toolCallsMetric } from './toolcalls';

/** Throws an Error describing the first problem in `metrics`; returns them unchanged. */
export function validateMetricRegistry<T extends EvaluatorFacts>(metrics: T[]): T[] {
	const ids = new Set<string>();
	for (const m of metrics) {
		if (!m.id) throw new Error('metric without an id');
		if (ids.has(m.id)) throw new Error(`duplicate metric id ${m.id}`);
		ids.add(m.id);
		const names = new Set<string>();
		for (const input of m.inputs) {
			if (names.has(input.name)) throw new Error(`${m.id}: duplicate input ${input.name}`);
			names.add(input.name);
			if (!input.field) throw new Error(`${m.id}: input ${input.name} has no field`);
		}
		for (const p of m.params) {
			if (p.type === 'options' && !p.options?.some((o) => o.value === p.default)) {
				throw new Error(`${m.id}: param ${p.name} default is not one of its options`);
			}
		}
		if (m.threshold.default < m.scale.min || m.threshold.default > m.scale.max) {
			throw new Error(`${m.id}: default threshold outside the scale`);
		}
	}
	return metrics;
}

/** Every deterministic metric, in the order nodes and docs list them. */
export const metricRegistry: MetricDecl[] = validateMetricRegistry([
	f1ScoreMetric,
	bleuMetric,
	gleuMetric,
	meteorMetric,
	rougeMetric,
	sacreBleuMetric,
	...retrievalMetrics,
	toolCallsMetric,
]);

/** Corpus finalizers by metric id, from the declarations that have one (`bleu`, `sacrebleu`). */
export const corpusFinalizers: Readonly<Record<string, NonNullable<MetricDecl['corpus']>>> =
	Object.fromEntries(metricRegistry.flatMap((m) => (m.corpus ? [[m.id, m.corpus] as const] : [])));
