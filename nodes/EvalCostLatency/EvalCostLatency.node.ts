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
	FIGURE_DATABRICKS_COLUMNS,
	NO_BUDGET_REASON,
} from '../../src/cost';
import { parseTrace } from '../../src/record/trace';
import type { NodeSearch } from '../shared/codex';
import { priceTableOption } from '../shared/collect';
import { iconFor, outputFormatProperty, SCORING_OUTPUTS, splitProperties } from '../shared/common';
import { scoreItems } from '../shared/scoreItems';

/** The parameters read for every row. */
const INPUTS = ['trace', 'model', 'maxTokens', 'maxLatencySeconds', 'maxCostUsd'].map((name) => ({
	name,
}));

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
	static readonly search: NodeSearch = {
		families: ['metric'],
		words: ['cost', 'latency', 'tokens', 'usage', 'price', 'budget'],
	};

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
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		properties: [
			{
				displayName: 'Trace',
				name: 'trace',
				type: 'json',
				default: '={{ $json.trace }}',
				description:
					"The row's trace: MLflow 2/3, OTLP JSON (GenAI or OpenInference attributes), a list of spans, or n8n execution data. When empty, rows coming straight from Execute Workflow (once for each item) use their sub-execution's run data (and get its tool calls as tool_calls, failed runs included); rows with neither use their token and latency fields.",
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
					// Databricks columns: agent/total_token_count, agent/input_token_count... (src/cost).
					outputFormatProperty,
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
		// The seed's per-row figures go on the row itself, where Eval Aggregate reads them.
		const figures: Record<string, unknown>[] = [];
		return scoreItems(this, {
			inputs: INPUTS,
			factsOf: () => ({}),
			unreadable: (error) => ({ [key]: costLatencyError(error, key) }),
			rowFields: (index) => (figures[index] ?? {}) as IDataObject,
			figureColumns: FIGURE_DATABRICKS_COLUMNS as Readonly<Record<string, string>>,
			// No budget set leaves every row not scored by design: its figures are the point.
			byDesign: (score) => score.reason === NO_BUDGET_REASON,
			evaluateRow: async (values, { index }) => {
				const model = values.model;
				let trace = values.trace;
				// Rows from Execute Workflow ("run once for each item") name the sub-execution that
				// produced them: its run data is the agent's own trace (tokens of every Chat Model call).
				const sub = items[index].metadata?.subExecution;
				const agent: IDataObject = {};
				if ((trace === undefined || trace === null || trace === '') && sub?.executionId) {
					const data = await this.getExecutionDataById(String(sub.executionId));
					if (!data) {
						const why = `execution ${sub.executionId} of the sub-workflow has no stored data (let n8n save its successful executions)`;
						return { [key]: costLatencyError(why, key) };
					}
					trace = data;
					// The same run data holds what the agent did: every tool sub-node run, failed ones
					// included (an agent's intermediate steps do not say which failed), for Tool Calls.
					const row = items[index].json;
					if (row.tool_calls === undefined) {
						try {
							agent.tool_calls = (parseTrace(data).tool_calls ?? []) as unknown as IDataObject[];
						} catch {
							// costLatency below names what is wrong with the trace on the row's score.
						}
					}
				}
				const r = costLatency(items[index].json, trace, {
					prices,
					model: typeof model === 'string' && model.trim() !== '' ? model.trim() : undefined,
					maxTokens: budget(values.maxTokens),
					maxLatencySeconds: budget(values.maxLatencySeconds),
					maxCostUsd: budget(values.maxCostUsd),
					key,
				});
				figures[index] = { ...r.figures, ...agent };
				return { [key]: r.score };
			},
		});
	}
}
