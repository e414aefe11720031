import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	aggregatePartial,
	finalizeAggregate,
	isAggregatePartial,
	mergePartials,
	type AggregateOptions,
	type AggregatePartial,
	minCoverageFromPercent,
	summaryNotice,
	type FinalizeOptions,
} from '../../src/aggregate';
import { DEFAULT_PRICES, DEFAULT_PRICES_TAKEN } from '../../src/cost';
import type { NodeSearch } from '../shared/codex';
import { choiceSubtitle, iconFor } from '../shared/common';
import { allPaired, priceTableOption } from '../shared/collect';
import { policyFromParams, rootCauseProperties } from '../shared/rootCause';

function minCoverage(ctx: IExecuteFunctions, raw: unknown): number | undefined {
	try {
		return minCoverageFromPercent(raw);
	} catch (e) {
		throw new NodeOperationError(ctx.getNode(), (e as Error).message, {
			description: 'Set Options -> Minimum Coverage (%) to a number from 0 to 100, e.g. 95.',
		});
	}
}

/**
 * Eval Aggregate: one run summary from all scored rows (Databricks-named run metrics, Azure-style
 * means and pass rates, intervals, root causes, cost), or a partial to merge later; partials on
 * the input are merged exactly, so batches and queue-mode sub-workflows give the one-pass result.
 * Rows are checked against their run manifests (src/manifest): part of a run is never complete.
 */
export class EvalAggregate implements INodeType {
	static readonly search: NodeSearch = {
		families: ['run'],
		words: ['aggregate', 'summary', 'pass rate', 'coverage', 'confidence interval'],
	};

	description: INodeTypeDescription = {
		displayName: 'Eval Aggregate',
		name: 'evalAggregate',
		icon: iconFor('aggregate'),
		group: ['transform'],
		version: 1,
		subtitle: choiceSubtitle('output', {
			summary: 'run summary',
			partial: 'partial to merge later',
		}),
		description:
			'Summarise an evaluation run: run metrics with coverage and confidence intervals, root causes, app and judge cost',
		defaults: { name: 'Eval Aggregate' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		properties: [
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				default: 'summary',
				options: [
					{
						name: 'Run Summary',
						value: 'summary',
						description: 'One item with the finished summary',
					},
					{
						name: 'Partial (Merge Later)',
						value: 'partial',
						description:
							'One item with mergeable statistics, for batches and sub-workflows; a later Eval Aggregate merges them',
					},
				],
				description:
					"Input items may be scored rows, partials from other Eval Aggregate nodes, or both. n8n stores every node's output items in the execution (about 3 KB a row in the nightly pipeline): for large runs drop heavy row fields (contexts, traces) before this node, or use Partial in queue-mode batches, and keep only the summary.",
			},
			{
				displayName: 'Group By',
				name: 'groupBy',
				type: 'string',
				default: '',
				placeholder: 'metadata.app_version',
				description: 'Dotted path of a field; the summary then also holds one summary per value',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Minimum Coverage (%)',
						name: 'minCoverage',
						type: 'number',
						default: 95,
						typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 1 },
						description:
							'Share of rows that must get a verdict for the run to count as complete. Below it the summary says status "incomplete" (e.g. the judge model was down) and Regression Gate and Eval Report never call the run green. Rows of an Eval Dataset run that never arrive here, or arrive twice, make the run incomplete whatever this minimum.',
					},
					{
						displayName: 'One Item per Group',
						name: 'itemPerGroup',
						type: 'boolean',
						default: false,
						description: 'Whether to emit one item per group after the run summary',
					},
					{
						displayName: 'Confidence Level',
						name: 'level',
						type: 'number',
						default: 0.95,
						typeOptions: { minValue: 0.5, maxValue: 0.999, numberPrecision: 3 },
					},
					{
						displayName: 'Bootstrap Resamples',
						name: 'bootstrapResamples',
						type: 'number',
						default: 1000,
						description: 'Seeded resamples for the intervals of means (0 = none)',
					},
					{
						displayName: 'Safety Defect Severity',
						name: 'severityThreshold',
						type: 'number',
						default: 4,
						description: 'Severity (0-7) at or above which a safety score counts as a defect',
					},
					{
						displayName: 'Model Prices (JSON)',
						name: 'prices',
						type: 'json',
						default: JSON.stringify(DEFAULT_PRICES, null, 2),
						description: `USD per 1M input and output tokens by judge model; the package's one price table, shared with Cost & Latency (default: OpenAI list prices of ${DEFAULT_PRICES_TAKEN}). Prices what the evaluation cost; what the app cost comes from the rows' cost_usd.`,
					},
					{
						displayName: 'Examples per Cause',
						name: 'exampleLimit',
						type: 'number',
						default: 3,
					},
					// Only for rows no Root-Cause Router diagnosed upstream: set them as on the router.
					...rootCauseProperties,
				],
			},
		],
	};

	/** The judge price table: the package default unless the option is set. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output = this.getNodeParameter('output', 0) as 'summary' | 'partial';
		const groupBy = (this.getNodeParameter('groupBy', 0, '') as string).trim();
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		const policy = policyFromParams(o);
		const aggOptions: AggregateOptions = {
			groupBy: groupBy || undefined,
			exampleLimit: (o.exampleLimit as number | undefined) ?? undefined,
			groundTruth: policy.groundTruth,
			rootCauseOrder: {
				withGroundTruth: policy.withGroundTruth,
				withoutGroundTruth: policy.withoutGroundTruth,
			},
		};
		const partials: AggregatePartial[] = [];
		const rows: Record<string, unknown>[] = [];
		for (const item of items) {
			if (isAggregatePartial(item.json)) partials.push(item.json as unknown as AggregatePartial);
			else rows.push(item.json);
		}
		let merged: AggregatePartial;
		try {
			const fromRows = rows.length || !partials.length ? [aggregatePartial(rows, aggOptions)] : [];
			merged = mergePartials(...fromRows, ...partials);
		} catch (e) {
			throw new NodeOperationError(this.getNode(), (e as Error).message, {
				description:
					'Partials merge only when they were built with the same Group By and root-cause orders. Use the same settings on every Eval Aggregate that builds partials.',
			});
		}
		const paired = allPaired(items.length);
		if (output === 'partial')
			return [[{ json: merged as unknown as IDataObject, pairedItem: paired }]];

		const finalize: FinalizeOptions = {
			level: (o.level as number | undefined) ?? undefined,
			bootstrapResamples: (o.bootstrapResamples as number | undefined) ?? undefined,
			severityThreshold: (o.severityThreshold as number | undefined) ?? undefined,
			prices: priceTableOption(this, o.prices),
			minCoverage: minCoverage(this, o.minCoverage),
		};
		const summary = finalizeAggregate(merged, finalize);
		// Nothing judged, or an incomplete run, shows on the node, not only inside the summary.
		const notice = summaryNotice(summary);
		if (notice) {
			this.logger?.warn(`${this.getNode().name}: ${notice}`);
			this.addExecutionHints?.({ message: notice, type: 'warning', location: 'outputPane' });
		}
		const out: INodeExecutionData[] = [
			{ json: summary as unknown as IDataObject, pairedItem: paired },
		];
		if (o.itemPerGroup && summary.groups) {
			for (const [group, s] of Object.entries(summary.groups)) {
				out.push({
					json: { group, groupBy: summary.groupBy, ...(s as unknown as IDataObject) },
					pairedItem: paired,
				});
			}
		}
		return [out];
	}
}
