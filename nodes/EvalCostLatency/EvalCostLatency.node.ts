import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	costLatency,
	costLatencyError,
	DEFAULT_PRICES,
	DEFAULT_PRICES_TAKEN,
} from '../../src/cost';
import { priceTableOption } from '../shared/collect';
import type { Score } from '../../src/core/types';
import {
	iconFor,
	readParam,
	routeScored,
	SCORING_OUTPUTS,
	splitProperties,
	withScore,
} from '../shared/common';

const budget = (v: unknown): number | undefined => {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
};

/**
 * Cost & Latency: per-row token counts, latency and USD cost from the row's trace (MLflow, OTLP,
 * OpenInference, n8n execution data) or its fields, checked against token, latency and cost
 * budgets with Pass / Fail outputs. Prices come from the package's one table, editable here.
 */
export class EvalCostLatency implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Cost & Latency',
		name: 'evalCostLatency',
		icon: iconFor('cost'),
		group: ['transform'],
		version: 1,
		subtitle: '={{ "tokens, latency and cost of each row" }}',
		description:
			'Token counts, latency and cost of each row from its trace, with token, latency and cost budgets',
		defaults: { name: 'Cost & Latency' },
		inputs: [NodeConnectionTypes.Main],
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		usableAsTool: true,
		properties: [
			{
				displayName: 'Trace',
				name: 'trace',
				type: 'json',
				default: '={{ $json.trace }}',
				description:
					"The row's trace: MLflow 2/3, OTLP JSON (GenAI or OpenInference attributes), a list of spans, or n8n execution data. When empty, rows coming straight from Execute Workflow (once for each item) use their sub-execution's run data; rows with neither use their token and latency fields.",
			},
			{
				displayName: 'Model',
				name: 'model',
				type: 'string',
				default: '',
				placeholder: 'gpt-4o-mini',
				description:
					'Model to price LLM calls with when the trace does not name one (and rows without a trace)',
			},
			{
				displayName: 'Max Tokens',
				name: 'maxTokens',
				type: 'number',
				default: 0,
				description: 'A row fails above this many tokens in total (0 = no limit)',
			},
			{
				displayName: 'Max Latency (Seconds)',
				name: 'maxLatencySeconds',
				type: 'number',
				default: 0,
				typeOptions: { numberPrecision: 3 },
				description: 'A row fails above this end-to-end latency (0 = no limit)',
			},
			{
				displayName: 'Max Cost (USD)',
				name: 'maxCostUsd',
				type: 'number',
				default: 0,
				typeOptions: { numberPrecision: 6 },
				description: 'A row fails above this cost (0 = no limit)',
			},
			...splitProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Model Prices (JSON)',
						name: 'prices',
						type: 'json',
						default: JSON.stringify(DEFAULT_PRICES, null, 2),
						description: `USD per 1M input and output tokens by model. The default is OpenAI's list prices of ${DEFAULT_PRICES_TAKEN}; edit it for your provider.`,
					},
					{
						displayName: 'Result Key',
						name: 'resultKey',
						type: 'string',
						default: '',
						description: 'Key under `eval` for the score. Defaults to cost_latency.',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		const prices = priceTableOption(this, o.prices);
		const key =
			typeof o.resultKey === 'string' && o.resultKey !== '' ? o.resultKey : 'cost_latency';
		const scored: { item: INodeExecutionData; score: Score }[] = [];
		for (let i = 0; i < items.length; i++) {
			const read = (name: string, fallback: unknown) => readParam(this, name, i, fallback as never);
			const params = {
				trace: read('trace', undefined),
				model: read('model', ''),
				maxTokens: read('maxTokens', 0),
				maxLatencySeconds: read('maxLatencySeconds', 0),
				maxCostUsd: read('maxCostUsd', 0),
			};
			const bad = Object.values(params).find((p) => !p.ok);
			let figures = {};
			let score: Score;
			if (bad && !bad.ok) {
				score = costLatencyError(`row ${i + 1}: ${bad.error}`, key);
			} else {
				const v = (p: { ok: true; value: unknown } | { ok: false; error: string }) =>
					p.ok ? p.value : undefined;
				const model = v(params.model);
				let trace = v(params.trace);
				// Rows from Execute Workflow ("run once for each item") name the sub-execution that
				// produced them: its run data is the agent's own trace (tokens of every Chat Model call).
				const sub = items[i].metadata?.subExecution;
				let subError: string | undefined;
				if ((trace === undefined || trace === null || trace === '') && sub?.executionId) {
					const data = await this.getExecutionDataById(String(sub.executionId));
					if (data) trace = data;
					else
						subError = `row ${i + 1}: execution ${sub.executionId} of the sub-workflow has no stored data (let n8n save its successful executions)`;
				}
				if (subError !== undefined) score = costLatencyError(subError, key);
				else {
					const r = costLatency(items[i].json, trace, {
						prices,
						model: typeof model === 'string' && model.trim() !== '' ? model.trim() : undefined,
						maxTokens: budget(v(params.maxTokens)),
						maxLatencySeconds: budget(v(params.maxLatencySeconds)),
						maxCostUsd: budget(v(params.maxCostUsd)),
						key,
					});
					figures = r.figures;
					score = r.score;
					if (score.status === 'error') score.error = `row ${i + 1}: ${score.error}`;
				}
			}
			const out = withScore(items[i], i, key, score);
			// The seed's per-row figures on the row itself, where Eval Aggregate reads them.
			out.json = { ...out.json, ...figures };
			scored.push({ item: out, score });
		}
		return routeScored(this, scored);
	}
}
