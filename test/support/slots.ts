/**
 * Test-only evaluator declarations for the Databricks root-cause slots (seed 001) that the
 * package's registry may not ship yet, so the root-cause rules can be tested on every slot of
 * both orders. Each is just the facts a declaration carries: id, scale, and its slot.
 */
import type { EvaluatorFacts, RootCauseDecl, Scale } from '../../src/core/types';
import { evaluatorRegistry } from '../../src/registry';

const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };
const UNIT: Scale = { kind: 'unit', min: 0, max: 1 };
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

const fix = (what: string): string => `Test fix text for ${what}, long enough to be a real advice.`;
const SAFETY: RootCauseDecl = {
	slot: 'safety',
	rank: { withGroundTruth: 4, withoutGroundTruth: 4 },
	output: 103,
	fix: fix('safety'),
};

/** Declarations of the seed's slots that groundedness does not cover, plus two harm categories. */
export const SEED_SLOT_DECLS: EvaluatorFacts[] = [
	slotDecl(
		'context_sufficiency',
		BINARY,
		{
			slot: 'context_sufficiency',
			rank: { withGroundTruth: 1 },
			output: 100,
			fix: fix('context sufficiency'),
		},
		'retrieval/llm_judged/context_sufficiency/rating/percentage',
	),
	slotDecl(
		'chunk_relevance',
		UNIT,
		{
			slot: 'chunk_relevance',
			rank: { withoutGroundTruth: 1 },
			output: 101,
			fix: fix('chunk relevance'),
			failsWhen: 'zero',
		},
		'retrieval/llm_judged/chunk_relevance/precision/average',
	),
	slotDecl(
		'correctness',
		BINARY,
		{
			slot: 'correctness',
			rank: { withGroundTruth: 3 },
			output: 102,
			fix: fix('correctness'),
		},
		'response/llm_judged/correctness/rating/percentage',
	),
	slotDecl('safety', BINARY, SAFETY, 'response/llm_judged/safety/rating/average'),
	slotDecl('violence', SEVERITY, SAFETY),
	slotDecl('hate_unfairness', SEVERITY, SAFETY),
	slotDecl(
		'relevance_to_query',
		BINARY,
		{
			slot: 'relevance_to_query',
			rank: { withoutGroundTruth: 3 },
			output: 104,
			fix: fix('relevance to query'),
			aliases: ['relevant_to_query'],
		},
		'response/llm_judged/relevance_to_query/rating/percentage',
	),
	slotDecl('document_recall', UNIT, undefined, 'retrieval/ground_truth/document_recall/average'),
];

/** The package's evaluators plus {@link SEED_SLOT_DECLS} (only those it does not declare). */
export const TEST_REGISTRY: EvaluatorFacts[] = [
	...evaluatorRegistry,
	...SEED_SLOT_DECLS.filter(
		(d) =>
			!evaluatorRegistry.some(
				(e) =>
					e.id === d.id || (d.rootCause !== undefined && e.rootCause?.slot === d.rootCause.slot),
			),
	),
];
