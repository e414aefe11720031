import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { minCoverageFromPercent } from '../../src/aggregate';
import { compareRuns, type GateRow, type GateSummaryLike } from '../../src/gate';
import { baselineFromHistory } from '../../src/history';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { jsonOption } from '../shared/collect';

function isSummary(v: unknown): v is GateSummaryLike {
	return !!v && typeof v === 'object' && typeof (v as { metrics?: unknown }).metrics === 'object';
}

/**
 * Regression Gate: compares this run's summary with a baseline (last night's summary from a Data
 * Table, database, file or pinned JSON), per metric, with tolerances, significance tests and
 * Holm correction. Routes to OK, Regressed or Incomplete (too few rows judged, e.g. the judge
 * model was down) with the full comparison table. Output indexes never move: OK 0, Regressed 1,
 * Incomplete 2.
 */
export class RegressionGate implements INodeType {
	static readonly search: NodeSearch = {
		families: ['run'],
		words: ['regression', 'gate', 'baseline', 'compare runs', 'ci', 'significance test'],
	};

	description: INodeTypeDescription = {
		displayName: 'Regression Gate',
		name: 'regressionGate',
		icon: iconFor('gate'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ 'tolerance ' + $parameter.defaultTolerance }}",
		description:
			'Compare an evaluation summary with a baseline run and branch on significant regressions',
		defaults: { name: 'Regression Gate' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [
			{ type: NodeConnectionTypes.Main, displayName: 'OK' },
			{ type: NodeConnectionTypes.Main, displayName: 'Regressed' },
			{ type: NodeConnectionTypes.Main, displayName: 'Incomplete' },
		],
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		properties: [
			{
				displayName: 'Current Summary',
				name: 'current',
				type: 'json',
				default: '={{ $json }}',
				description: 'The run summary from Eval Aggregate',
			},
			{
				displayName: 'Baseline Summary',
				name: 'baseline',
				type: 'json',
				default: '',
				placeholder: "={{ $('Load Last Run').first().json }}",
				description:
					"The summary to compare against, usually last night's, loaded by an expression. Empty on the first night: every metric is then reported as missing in the baseline.",
			},
			{
				displayName: 'Default Tolerance',
				name: 'defaultTolerance',
				type: 'number',
				default: 0.02,
				typeOptions: { numberPrecision: 4 },
				description:
					'A metric must get worse by more than this (in its own units) to count as a regression',
			},
			{
				displayName: 'Tolerances',
				name: 'tolerances',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add tolerance',
				options: [
					{
						displayName: 'Tolerance',
						name: 'pairs',
						values: [
							{
								displayName: 'Metric',
								name: 'metric',
								type: 'string',
								default: '',
								placeholder: 'response/llm_judged/groundedness/rating/percentage',
							},
							{
								displayName: 'Tolerance',
								name: 'tolerance',
								type: 'number',
								default: 0.02,
								typeOptions: { numberPrecision: 4 },
							},
						],
					},
				],
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
							'Share of rows this run must have judged. Below it the item leaves on Incomplete (never OK), whatever the metrics say.',
					},
					{
						displayName: 'Significance Level',
						name: 'alpha',
						type: 'number',
						default: 0.05,
						typeOptions: { numberPrecision: 3 },
					},
					{
						displayName: 'Compare Against',
						name: 'compareAgainst',
						type: 'options',
						default: 'baseline',
						options: [
							{
								name: 'Baseline Summary',
								value: 'baseline',
								description: 'The Baseline Summary parameter (usually last night)',
							},
							{
								name: 'Last Run in History',
								value: 'last',
								description: 'The newest entry of Run History',
							},
							{
								name: 'Median of Last K Runs',
								value: 'median',
								description:
									"Each metric's median over the last K runs of Run History: one noisy night neither sets off nor hides a regression. Summary-only tests (rates: z-test; means: tolerance).",
							},
						],
					},
					{
						displayName: 'Run History',
						name: 'history',
						type: 'json',
						default: '',
						placeholder: '={{ $json.history }}',
						description:
							'Earlier run summaries, oldest first (e.g. kept in workflow static data with appendHistory); used by Compare Against: Last Run in History or Median of Last K Runs',
					},
					{
						displayName: 'Runs in Median (K)',
						name: 'medianRuns',
						type: 'number',
						default: 7,
						typeOptions: { minValue: 1 },
					},
					{
						displayName: 'Current Rows',
						name: 'currentRows',
						type: 'json',
						default: '',
						description:
							'Scored rows of this run; with baseline rows sharing request IDs, paired tests are used',
					},
					{ displayName: 'Baseline Rows', name: 'baselineRows', type: 'json', default: '' },
					{
						displayName: 'Paired Score Test',
						name: 'pairedScoreTest',
						type: 'options',
						default: 'wilcoxon',
						options: [
							{ name: 'Wilcoxon Signed-Rank', value: 'wilcoxon' },
							{ name: 'Paired Bootstrap', value: 'bootstrap' },
						],
						description:
							'Only pairs whose score changed count: up to 50 of them the signed-rank p-value is exact, and the bootstrap needs at least 10 (with fewer the exact signed-rank test decides and the row says so)',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const ok: INodeExecutionData[] = [];
		const regressed: INodeExecutionData[] = [];
		const incomplete: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const current = jsonOption<unknown>(
				this,
				'Current Summary',
				this.getNodeParameter('current', i),
				'the summary',
			);
			if (!isSummary(current)) {
				throw new NodeOperationError(
					this.getNode(),
					`Item ${i + 1} is not an evaluation summary (no "metrics")`,
					{
						itemIndex: i,
						description:
							'Connect the output of Eval Aggregate, or set Current Summary to an expression that returns it.',
					},
				);
			}
			const baselineRaw = jsonOption<unknown>(
				this,
				'Baseline Summary',
				this.getNodeParameter('baseline', i, ''),
				'the baseline summary',
			);
			const o = this.getNodeParameter('options', i, {}) as IDataObject;
			const mode = (o.compareAgainst as 'baseline' | 'last' | 'median' | undefined) ?? 'baseline';
			let baseline: GateSummaryLike = isSummary(baselineRaw) ? baselineRaw : { metrics: {} };
			let baselineFound = isSummary(baselineRaw);
			let baselineSource = baselineFound ? 'the baseline summary' : 'no baseline';
			if (mode !== 'baseline') {
				const history = jsonOption<unknown>(this, 'Run History', o.history, 'the run history');
				if (history !== undefined && !Array.isArray(history)) {
					throw new NodeOperationError(this.getNode(), 'Run History must be an array', {
						itemIndex: i,
						description: 'Give the earlier run summaries as an array, oldest first.',
					});
				}
				const chosen = baselineFromHistory(history, mode, (o.medianRuns as number) || 7);
				baseline = chosen.baseline;
				baselineFound = chosen.runs > 0;
				baselineSource = chosen.description;
			}
			const t = this.getNodeParameter('tolerances', i, {}) as {
				pairs?: { metric: string; tolerance: number }[];
			};
			const tolerances: Record<string, number> = {};
			for (const p of t.pairs ?? []) if (p.metric) tolerances[p.metric] = p.tolerance;
			let minCoverage: number | undefined;
			try {
				minCoverage = minCoverageFromPercent(o.minCoverage);
			} catch (e) {
				throw new NodeOperationError(this.getNode(), (e as Error).message, {
					itemIndex: i,
					description: 'Set Options -> Minimum Coverage (%) to a number from 0 to 100, e.g. 95.',
				});
			}
			const result = compareRuns(current, baseline, {
				minCoverage,
				tolerances,
				defaultTolerance: this.getNodeParameter('defaultTolerance', i, 0.02) as number,
				alpha: (o.alpha as number | undefined) ?? 0.05,
				currentRows: jsonOption<GateRow[]>(this, 'Current Rows', o.currentRows, 'rows'),
				// A median of runs has no rows of its own to pair with.
				baselineRows:
					mode === 'median'
						? undefined
						: jsonOption<GateRow[]>(this, 'Baseline Rows', o.baselineRows, 'rows'),
				pairedScoreTest: (o.pairedScoreTest as 'wilcoxon' | 'bootstrap' | undefined) ?? 'wilcoxon',
			});
			const json: IDataObject = {
				status: result.status,
				regressed: result.regressed,
				incomplete: result.incomplete,
				baselineFound,
				baselineSource,
				gate: result as unknown as IDataObject,
				summary: current as unknown as IDataObject,
			};
			const target =
				result.status === 'incomplete'
					? incomplete
					: result.status === 'regressed'
						? regressed
						: ok;
			target.push({ json, pairedItem: { item: i } });
		}
		return [ok, regressed, incomplete];
	}
}
