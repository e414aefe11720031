import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { prepareDataset, type DatasetSource } from '../../src/dataset/prepare';
import type { NodeSearch } from '../shared/codex';
import { choiceSubtitle, iconFor } from '../shared/common';

/** Where the rows come from, as the Source parameter stores it. */
type Source = 'items' | 'binary' | 'text';

const SOURCE_OPTIONS = [
	{
		name: 'Pasted Text',
		value: 'text',
		description: 'JSON, JSON Lines or CSV pasted into this node',
	},
	{
		name: 'Incoming Items',
		value: 'items',
		description:
			'Each incoming item is one row (Google Sheets, Data Table, HTTP Request, Code, ...)',
	},
	{
		name: 'Binary File',
		value: 'binary',
		description:
			'A JSON, JSON Lines or CSV file in a binary property (Read Files, form upload, HTTP download)',
	},
];

/**
 * Source, once per node version. Version 1 read Incoming Items by default, which after a Manual
 * Trigger is one empty item and so one invalid row; version 2 starts on Pasted Text, which runs
 * after any trigger. n8n saves no default values, so version 1 nodes keep reading items.
 */
const sourceProperty = (version: number, def: Source): INodeProperties => ({
	displayName: 'Source',
	name: 'source',
	type: 'options',
	default: def,
	displayOptions: { show: { '@version': [version] } },
	options: SOURCE_OPTIONS,
	description: 'Where the rows come from',
});

/** Whether every incoming item is empty, as a trigger's single item is. */
function onlyEmptyItems(items: INodeExecutionData[]): boolean {
	return items.length > 0 && items.every((i) => Object.keys(i.json).length === 0 && !i.binary);
}

/**
 * Eval Dataset: turns incoming rows, an uploaded file or pasted text into canonical eval
 * records. Every row leaves: valid ones on Rows, the rest on Invalid with row, field and message.
 * Rows carry their run manifest (`source.run_manifest`), so Eval Aggregate can tell part of a run.
 */
export class EvalDataset implements INodeType {
	static readonly search: NodeSearch = {
		families: ['dataset'],
		words: ['load dataset', 'ground truth', 'jsonl', 'csv', 'records'],
	};

	description: INodeTypeDescription = {
		displayName: 'Eval Dataset',
		name: 'evalDataset',
		icon: iconFor('dataset'),
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: choiceSubtitle('source', {
			text: 'from pasted text',
			items: 'from incoming items',
			binary: 'from a file',
		}),
		description:
			'Load an evaluation dataset (Azure/promptflow, Amazon Bedrock, Databricks, Ragas, DeepEval, OpenAI evals, MLflow, LangSmith, Phoenix, promptfoo, Spring AI, TruLens, or common column names; JSON, JSONL or CSV) into canonical rows, saying where every column went',
		defaults: { name: 'Eval Dataset' },
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: [
			{ type: NodeConnectionTypes.Main, displayName: 'Rows' },
			{ type: NodeConnectionTypes.Main, displayName: 'Invalid' },
		],
		properties: [
			{
				displayName:
					'Each row is one case for the judges and metrics after this node. Trying things out? Keep it to a few rows (Options, Limit).',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			sourceProperty(1, 'items'),
			sourceProperty(2, 'text'),
			{
				displayName: 'Input Binary Field',
				name: 'binaryProperty',
				type: 'string',
				default: 'data',
				required: true,
				displayOptions: { show: { source: ['binary'] } },
				description: 'Name of the binary property that holds the dataset file',
			},
			{
				displayName: 'Dataset',
				name: 'text',
				type: 'string',
				typeOptions: { rows: 10 },
				default: '',
				placeholder:
					'{"request": "How long is the refund window?", "response": "30 days.", "expected_response": "Refunds are accepted for 30 days."}',
				displayOptions: { show: { source: ['text'] } },
				description:
					'Rows as a JSON array, JSON Lines (one object a line) or CSV with a header row. Column names of the common tools are understood, see Schema.',
			},
			{
				displayName: 'File Format',
				name: 'format',
				type: 'options',
				default: 'auto',
				displayOptions: { hide: { source: ['items'] } },
				options: [
					{ name: 'Detect', value: 'auto' },
					{ name: 'JSON', value: 'json' },
					{ name: 'JSON Lines', value: 'jsonl' },
					{ name: 'CSV', value: 'csv' },
				],
			},
			{
				displayName: 'Schema',
				name: 'schema',
				type: 'options',
				default: 'auto',
				options: [
					{ name: 'Detect', value: 'auto', description: 'Detected once for the whole dataset' },
					{
						name: 'Amazon Bedrock Evaluation',
						value: 'bedrock',
						description:
							'Model evaluation prompt, referenceResponse, modelResponses; RAG evaluation conversationTurns',
					},
					{
						name: 'Azure AI Evaluation / Promptflow',
						value: 'azure',
						description:
							'Query or question, response or answer, context, ground_truth, chat_history',
					},
					{ name: 'Databricks Agent Evaluation', value: 'databricks' },
					{
						name: 'DeepEval',
						value: 'deepeval',
						description: 'Test cases, goldens, conversational goldens, test-run exports',
					},
					{
						name: 'LangSmith',
						value: 'langsmith',
						description: 'Examples: inputs and reference outputs',
					},
					{
						name: 'MLflow 3',
						value: 'mlflow',
						description: 'Evaluation records: inputs, outputs, expectations',
					},
					{ name: 'OpenAI Evals', value: 'openai-evals', description: 'Input messages and ideal' },
					{
						name: 'Phoenix',
						value: 'phoenix',
						description: 'Dataset examples: input and reference output',
					},
					{
						name: 'Promptfoo',
						value: 'promptfoo',
						description: 'Test CSVs: vars, __expected, __metadata',
					},
					{ name: 'Ragas', value: 'ragas' },
					{ name: 'Spring AI', value: 'spring-ai' },
					{
						name: 'TruLens',
						value: 'trulens',
						description:
							'Records and feedback: input, output, record_json, feedback scores and calls',
					},
				],
			},
			{
				displayName: 'Column Mapping',
				name: 'mapping',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add mapping',
				description:
					'Map your own columns onto the canonical fields. A mapping replaces what the schema would read for that field. For a value inside an object, use a dotted path (inputs.question). A list of chat messages mapped to request gives the request and its history.',
				options: [
					{
						displayName: 'Mapping',
						name: 'pairs',
						values: [
							{
								displayName: 'Your Column',
								name: 'from',
								type: 'string',
								default: '',
								placeholder: 'question',
								description: 'A column name, or a dotted path into an object (inputs.question)',
							},
							{
								displayName: 'Canonical Field',
								name: 'to',
								type: 'string',
								default: '',
								placeholder: 'request',
								description:
									'One of request, response, expected_response, retrieved_context, expected_retrieved_context, expected_facts, guidelines, tool_calls, expected_tool_calls, trace, metadata, or the row ID field (request_id)',
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
						displayName: 'List Delimiter',
						name: 'listDelimiter',
						type: 'string',
						default: '',
						placeholder: '|',
						description:
							'CSV only. List cells that are not JSON (contexts, expected facts) are split on this text. When empty, DeepEval CSVs are split on | (as DeepEval writes them) and other CSVs need JSON lists.',
					},
					{
						displayName: 'Limit',
						name: 'limit',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							'Emit at most this many valid rows (0 = all), after sampling and de-duplication. n8n keeps every row in the execution data (about 3 KB a row, more with traces): keep runs small while trying things out.',
					},
					{
						displayName: 'Max Rows',
						name: 'maxRows',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							'Fail, evaluating nothing, when the dataset has more rows than this (0 = no limit). Set it wherever others send the dataset, e.g. behind a webhook.',
					},
					{
						displayName: 'Sample Size',
						name: 'sampleSize',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: 'Draw a random sample of this many valid rows (0 = no sampling)',
					},
					{
						displayName: 'Sample Seed',
						name: 'sampleSeed',
						type: 'number',
						default: 42,
						description: 'The same seed and dataset give the same sample, night after night',
					},
					{
						displayName: 'De-Duplicate By',
						name: 'dedupe',
						type: 'options',
						default: 'none',
						options: [
							{ name: 'Nothing', value: 'none' },
							{ name: 'Request ID', value: 'request_id' },
							{
								name: 'Content',
								value: 'content',
								description: 'Same request, response and expectations',
							},
						],
						description: 'Later duplicates go to the Invalid output, naming the row they repeat',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const source = this.getNodeParameter('source', 0) as Source;
		const schema = this.getNodeParameter('schema', 0, 'auto') as string;
		const format = (
			source === 'items' ? 'auto' : this.getNodeParameter('format', 0, 'auto')
		) as string;
		const mappingParam = this.getNodeParameter('mapping', 0, {}) as {
			pairs?: { from: string; to: string }[];
		};
		const mapping: Record<string, string> = {};
		for (const p of mappingParam.pairs ?? []) if (p.from && p.to) mapping[p.from] = p.to;
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;

		// Max Rows: a dataset over the limit fails the node before anything downstream runs; with
		// "On Error: Continue" the failure leaves as one error item (error output), never as rows.
		const maxRows = Math.max(0, Math.floor(Number(options.maxRows) || 0));
		const overLimit = (count: number): INodeExecutionData[][] | null => {
			if (!maxRows || count <= maxRows) return null;
			const message = `The dataset has ${count} rows, more than Max Rows (${maxRows}); nothing was evaluated`;
			const description =
				"Send a smaller dataset (split it over several runs), or raise Max Rows in this node's options.";
			if (!this.continueOnFail())
				throw new NodeOperationError(this.getNode(), message, { itemIndex: 0, description });
			const details = { reason: 'max_rows', rows: count, maxRows, description };
			return [[{ json: { error: message, details }, pairedItem: { item: 0 } }], []];
		};

		const sources: DatasetSource[] = [];
		if (source === 'items') {
			const refused = overLimit(items.length);
			if (refused) return refused;
			// A trigger's empty item is no dataset: say where rows can come from instead.
			if (onlyEmptyItems(items))
				this.addExecutionHints?.({
					message:
						'The incoming items are empty (a trigger sends one empty item): paste rows with Source set to Pasted Text, read a file with Binary File, or connect the node that reads your dataset (Google Sheets, Data Table, HTTP Request).',
					type: 'warning',
					location: 'outputPane',
				});
			sources.push({ rows: items.map((i) => i.json), itemIndex: null });
		} else if (source === 'text') {
			const text = this.getNodeParameter('text', 0, '') as string;
			if (text.trim() === '' && !this.continueOnFail())
				throw new NodeOperationError(this.getNode(), 'No rows pasted yet', {
					itemIndex: 0,
					description:
						'Paste your rows into Dataset: a JSON array, JSON Lines (one object a line) or CSV with a header row, e.g. {"request": "How long is the refund window?", "response": "30 days."}. Or set Source to Incoming Items or Binary File.',
				});
			sources.push({ content: text, itemIndex: 0 });
		} else {
			const prop = this.getNodeParameter('binaryProperty', 0) as string;
			for (let i = 0; i < items.length; i++) {
				if (!items[i].binary?.[prop]) {
					throw new NodeOperationError(
						this.getNode(),
						`No binary property "${prop}" on item ${i + 1}`,
						{
							itemIndex: i,
							description:
								'Connect a node that outputs the dataset file (Read/Write Files from Disk, a form upload, HTTP Request with "File" response) and set Input Binary Field to its property name.',
						},
					);
				}
				const buffer = await this.helpers.getBinaryDataBuffer(i, prop);
				sources.push({
					content: new Uint8Array(buffer),
					itemIndex: i,
					fileName: items[i].binary?.[prop]?.fileName,
				});
			}
		}

		const result = prepareDataset(sources, {
			format: format as 'auto',
			schema: schema as 'auto',
			mapping,
			listDelimiter: (options.listDelimiter as string) || undefined,
			limit: (options.limit as number) || 0,
			sampleSize: (options.sampleSize as number) || 0,
			sampleSeed: (options.sampleSeed as number) ?? 42,
			dedupe: (options.dedupe as 'none' | 'request_id' | 'content') ?? 'none',
		});
		if (result.fatal) {
			if (this.continueOnFail()) {
				const { message, remedy: description, itemIndex = 0 } = result.fatal;
				const details = { reason: 'unreadable', description };
				return [[{ json: { error: message, details }, pairedItem: { item: itemIndex } }], []];
			}
			throw new NodeOperationError(this.getNode(), result.fatal.message, {
				itemIndex: result.fatal.itemIndex ?? 0,
				description: result.fatal.remedy,
			});
		}
		if (source !== 'items') {
			const refused = overLimit(result.rows.length + result.invalid.length + result.excluded);
			if (refused) return refused;
		}
		// Nothing silent: where every column went, and which rows were skipped, in the output pane
		// and the execution log.
		for (const a of result.accounts) {
			const text = a.lines.join('\n');
			this.logger?.info(`Eval Dataset: ${text}`);
			if (typeof this.addExecutionHints === 'function') {
				const attention =
					a.account.skipped.length > 0 ||
					a.account.columns.some((c) => c.to.includes('metadata')) ||
					a.account.notes.length > 0;
				this.addExecutionHints({
					message: text,
					type: attention ? 'warning' : 'info',
					location: 'outputPane',
				});
			}
		}
		const rows: INodeExecutionData[] = result.rows.map((r) => ({
			json: r.json as IDataObject,
			pairedItem: { item: r.itemIndex },
		}));
		const invalid: INodeExecutionData[] = result.invalid.map((r) => ({
			json: r.json as IDataObject,
			pairedItem: { item: r.itemIndex },
		}));
		return [rows, invalid];
	}
}
