/**
 * Every evaluator of the package, metrics and judges, as one list. The root-cause orders and
 * fixes, the router's outputs, Databricks names, the gate's directions and the README tables
 * are all derived from it: a judge's facts live in its declaration and nowhere else.
 */
import type { EvaluatorFacts, RootCauseDecl } from './core/types';
import { embeddingRegistry } from './embeddings/registry';
import { judgeRegistry } from './judges/registry';
import { metricRegistry } from './metrics/registry';
import { safetyRegistry } from './safety/specs';

/** A root-cause slot with the evaluators that answer for it. */
export interface SlotInfo extends RootCauseDecl {
	/** Ids of the evaluators declaring this slot, in registry order. */
	evaluators: string[];
}

/**
 * Problems with the evaluators' shared facts: ids unique across metrics and judges, evaluators of
 * one slot declaring the same slot facts, router output positions unique, Databricks names unique.
 */
export function evaluatorProblems(list: ReadonlyArray<EvaluatorFacts>): string[] {
	const problems: string[] = [];
	const ids = new Set<string>();
	const slots = new Map<string, { by: string; facts: string }>();
	const outputs = new Map<number, string>();
	const columns = new Map<string, string>();
	for (const e of list) {
		if (ids.has(e.id)) problems.push(`duplicate evaluator id '${e.id}'`);
		ids.add(e.id);
		const rc = e.rootCause;
		if (rc) {
			const facts = JSON.stringify(rc);
			const seen = slots.get(rc.slot);
			if (seen && seen.facts !== facts) {
				problems.push(`${e.id}: slot '${rc.slot}' is declared differently by ${seen.by}`);
			} else if (!seen) {
				slots.set(rc.slot, { by: e.id, facts });
				const taken = outputs.get(rc.output);
				if (taken !== undefined)
					problems.push(`${e.id}: router output ${rc.output} is already slot '${taken}'`);
				outputs.set(rc.output, rc.slot);
			}
			if (rc.fix.trim().length < 20) problems.push(`${e.id}: slot '${rc.slot}' needs a fix text`);
		}
		const d = e.databricks;
		for (const name of [d?.column, ...(d?.columnAliases ?? []), d?.rationaleColumn, d?.runMetric]) {
			if (name === undefined) continue;
			const owner = columns.get(name);
			// Evaluators sharing a slot (two groundedness scales) may not share Databricks names.
			if (owner !== undefined) problems.push(`${e.id}: Databricks name '${name}' is ${owner}'s`);
			columns.set(name, e.id);
		}
	}
	return problems;
}

/** Validates the list, throwing with every problem found; returns it unchanged. */
export function validateEvaluators<T extends ReadonlyArray<EvaluatorFacts>>(list: T): T {
	const problems = evaluatorProblems(list);
	if (problems.length > 0) throw new Error(`Invalid evaluator registry:\n${problems.join('\n')}`);
	return list;
}

/** Every metric, judge, risk/safety and embedding evaluator of the package, each list in its own order. */
export const evaluatorRegistry: ReadonlyArray<EvaluatorFacts> = validateEvaluators([
	...metricRegistry,
	// Scores a metric writes beside its own (Tool Calls' arguments and failed calls): they have
	// their own slots, thresholds and run-metric names, so they are evaluators here too.
	...metricRegistry.flatMap((m) => m.companions ?? []),
	...judgeRegistry,
	...safetyRegistry,
	...embeddingRegistry,
]);

const slotCache = new WeakMap<ReadonlyArray<EvaluatorFacts>, SlotInfo[]>();

/** The root-cause slots of a registry, ordered by their fixed router output position. */
export function slotsOf(registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry): SlotInfo[] {
	const cached = slotCache.get(registry);
	if (cached) return cached;
	const bySlot = new Map<string, SlotInfo>();
	for (const e of registry) {
		if (!e.rootCause) continue;
		const info = bySlot.get(e.rootCause.slot);
		if (info) info.evaluators.push(e.id);
		else bySlot.set(e.rootCause.slot, { ...e.rootCause, evaluators: [e.id] });
	}
	const slots = [...bySlot.values()].sort((a, b) => a.output - b.output);
	slotCache.set(registry, slots);
	return slots;
}

/** Looks an evaluator up by id (the `metric` of its Scores, or its declaration id). */
export function evaluatorById(
	id: string,
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): EvaluatorFacts | undefined {
	return registry.find((e) => e.id === id);
}
