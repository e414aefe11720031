import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { compareVariants, type CompareVariantsOptions } from '../../src/variants';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { allPaired } from '../shared/collect';

/**
 * Compare Variants: is variant B better than variant A on the same questions? Reads every scored
 * row (pointwise Scores of any node, Cost & Latency, and the Pairwise Judge's verdicts) and emits
 * one comparison: per metric each variant's mean with its interval and the paired test of every
 * pair of variants (Holm-adjusted), pairwise win rates, Bradley-Terry strengths with three or more
 * variants, the judge's position consistency, cost and latency, and one verdict line per pair.
 */
export class CompareVariants implements INodeType {
	static readonly search: NodeSearch = {
		families: ['run'],
		words: [
			'compare variants',
			'a/b test',
			'ab test',
			'choose a model',
			'model comparison',
			'pairwise',
			'win rate',
			'bradley-terry',
			'significance test',
		],
	};

	description: INodeTypeDescription = {
		displayName: 'Compare Variants',
		name: 'compareVariants',
		icon: iconFor('gate'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ 'variants by ' + ($parameter.variantField || 'variant') }}",
		description:
			'Compare app variants on the same questions: paired tests per metric, pairwise win rates, judge position bias, cost and latency',
		defaults: { name: 'Compare Variants' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: undefined,
		properties: [
			{
				displayName: 'Variant Field',
				name: 'variantField',
				type: 'string',
				default: 'variant',
				placeholder: 'metadata.model',
				description:
					'Dotted path of the field naming the variant that produced a row (a field the workflow sets, a dataset column, or what Eval Executions writes: metadata.model, metadata.workflow_id). Pairwise Judge rows name theirs in variant_a and variant_b.',
			},
			{
				displayName: 'Pair By',
				name: 'keyField',
				type: 'string',
				default: 'request_id',
				description:
					'Field pairing rows of different variants; rows without it pair by their request text',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Baseline Variant',
						name: 'baseline',
						type: 'string',
						default: '',
						description:
							'The variant the others are compared with, listed first (default: the first variant seen)',
					},
					{
						displayName: 'Significance Level',
						name: 'alpha',
						type: 'number',
						default: 0.05,
						typeOptions: { minValue: 0.001, maxValue: 0.5, numberPrecision: 3 },
						description: 'Family-wise, after Holm correction across every test of the comparison',
					},
					{
						displayName: 'Confidence Level',
						name: 'level',
						type: 'number',
						default: 0.95,
						typeOptions: { minValue: 0.5, maxValue: 0.999, numberPrecision: 3 },
					},
					{
						displayName: 'Minimum Coverage (%)',
						name: 'minCoverage',
						type: 'number',
						default: 95,
						typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 1 },
						description:
							'Share of the requests a variant must have verdicts for before it can be declared better',
					},
					{
						displayName: 'Minimum Position Consistency (%)',
						name: 'minConsistency',
						type: 'number',
						default: 80,
						typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 1 },
						description:
							'A pairwise judge whose verdicts agree across the two orders less often than this is named in the warnings',
					},
					{
						displayName: 'Paired Score Test',
						name: 'pairedScoreTest',
						type: 'options',
						default: 'wilcoxon',
						options: [
							{ name: 'Wilcoxon Signed-Rank', value: 'wilcoxon' },
							{ name: 'Paired Bootstrap', value: 'bootstrap' },
						],
						description: "As the Regression Gate's option of the same name",
					},
					{
						displayName: 'Bootstrap Resamples',
						name: 'resamples',
						type: 'number',
						default: 1000,
						typeOptions: { minValue: 100 },
						description: 'Seeded resamples for the intervals of means and Bradley-Terry strengths',
					},
					{
						displayName: 'Seed',
						name: 'seed',
						type: 'number',
						default: 42,
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		const percent = (v: unknown, d: number) => (typeof v === 'number' ? v / 100 : d);
		const options: CompareVariantsOptions = {
			variantField: this.getNodeParameter('variantField', 0, 'variant') as string,
			keyField: this.getNodeParameter('keyField', 0, 'request_id') as string,
			order: typeof o.baseline === 'string' && o.baseline.trim() ? [o.baseline.trim()] : undefined,
			alpha: (o.alpha as number | undefined) ?? undefined,
			level: (o.level as number | undefined) ?? undefined,
			minCoverage: percent(o.minCoverage, 0.95),
			minConsistency: percent(o.minConsistency, 0.8),
			pairedScoreTest: o.pairedScoreTest === 'bootstrap' ? 'bootstrap' : 'wilcoxon',
			resamples: (o.resamples as number | undefined) ?? undefined,
			seed: (o.seed as number | undefined) ?? undefined,
		};
		let result;
		try {
			result = compareVariants(
				items.map((i) => i.json),
				options,
			);
		} catch (e) {
			throw new NodeOperationError(this.getNode(), (e as Error).message);
		}
		if (result.variants.length < 2) {
			const found = result.variants.length ? `only '${result.variants[0]}'` : 'none';
			throw new NodeOperationError(
				this.getNode(),
				`Compare Variants needs rows of at least two variants; found ${found}`,
				{
					description: `Each row names its variant in the '${options.variantField}' field (Variant Field), or is a Pairwise Judge row with variant_a and variant_b. ${result.unassigned.length} of ${items.length} rows name none.`,
				},
			);
		}
		for (const w of result.warnings) {
			this.logger?.warn(`${this.getNode().name}: ${w}`);
			this.addExecutionHints?.({ message: w, type: 'warning', location: 'outputPane' });
		}
		return [
			[
				{
					json: { kind: 'variantComparison', ...result } as unknown as IDataObject,
					pairedItem: allPaired(items.length),
				},
			],
		];
	}
}
