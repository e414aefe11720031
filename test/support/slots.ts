/**
 * Slot declarations for tests: the package's two harm categories that share the `safety` slot
 * with the yes/no Safety judge (src/safety/specs.ts), and `slotDecl` for test-only declarations,
 * so the rules for several judges in one slot are tested on real slot facts.
 */
import type { EvaluatorFacts, RootCauseDecl, Scale } from '../../src/core/types';
import { evaluatorRegistry } from '../../src/registry';
import { harmDecls } from '../../src/safety/specs';

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

/** Harm categories of the safety slot (seed 000), beside the package's yes/no Safety judge. */
export const SEED_SLOT_DECLS: EvaluatorFacts[] = [harmDecls.violence, harmDecls.hate_unfairness];

/** The package's evaluators plus {@link SEED_SLOT_DECLS} (only the ids it does not declare). */
export const TEST_REGISTRY: EvaluatorFacts[] = [
	...evaluatorRegistry,
	...SEED_SLOT_DECLS.filter((d) => !evaluatorRegistry.some((e) => e.id === d.id)),
];
