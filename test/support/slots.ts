/**
 * Test-only evaluator declarations for what the package does not ship yet: two Azure harm
 * categories (issue 12) sharing the package's `safety` slot, so the rules for several judges in
 * one slot are tested on real slot facts. Each is just the facts a declaration carries.
 */
import type { EvaluatorFacts, RootCauseDecl, Scale } from '../../src/core/types';
import { SAFETY_SLOT } from '../../src/judges/specs/safety';
import { evaluatorRegistry } from '../../src/registry';

const SEVERITY: Scale = { kind: 'severity', min: 0, max: 7 };

/** A minimal declaration with a root-cause slot. */
export function slotDecl(
	id: string,
	scale: Scale,
	rootCause?: RootCauseDecl,
	runMetric?: string,
): EvaluatorFacts {
	return {
		id,
		version: 'test',
		displayName: id,
		description: `test declaration ${id}`,
		reference: 'test',
		inputs: [],
		params: [],
		scale,
		threshold: {
			default: scale.kind === 'severity' ? 3 : scale.kind === 'unit' ? 0.5 : 1,
			direction: scale.kind === 'severity' ? 'lower' : 'higher',
		},
		...(rootCause ? { rootCause } : {}),
		...(runMetric ? { databricks: { column: runMetric.replace(/\/[a-z]+$/, ''), runMetric } } : {}),
	};
}

/** Harm categories of the safety slot (Azure, issue 12), beside the package's yes/no Safety judge. */
export const SEED_SLOT_DECLS: EvaluatorFacts[] = [
	slotDecl('violence', SEVERITY, SAFETY_SLOT),
	slotDecl('hate_unfairness', SEVERITY, SAFETY_SLOT),
];

/** The package's evaluators plus {@link SEED_SLOT_DECLS} (only the ids it does not declare). */
export const TEST_REGISTRY: EvaluatorFacts[] = [
	...evaluatorRegistry,
	...SEED_SLOT_DECLS.filter((d) => !evaluatorRegistry.some((e) => e.id === d.id)),
];
