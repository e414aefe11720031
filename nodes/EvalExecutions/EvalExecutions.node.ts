import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type ILoadOptionsFunctions,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	defaultBaseUrl,
	instanceUrl,
	N8nApiClient,
	N8nApiError,
	readExecutions,
	readState,
	settleWatermark,
	withPending,
	type SamplingMode,
	type TraceDetail,
	type WindowMode,
} from '../../src/executions';
import { newRunId, withRunManifest, type RunManifest } from '../../src/manifest';
import { sha256 } from '../../src/record/hash';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';

/** Where the watermarks live in the node's static data, one per monitored workflow. */
const WATERMARKS = 'watermarks';

/** The client for the node's n8n API credential; base URL defaulting to this instance. */
async function clientFor(ctx: IExecuteFunctions | ILoadOptionsFunctions): Promise<N8nApiClient> {
	const creds = await ctx.getCredentials('n8nApi');
	const apiKey = typeof creds.apiKey === 'string' ? creds.apiKey : '';
	const baseUrl =
		typeof creds.baseUrl === 'string' && creds.baseUrl.trim() !== ''
			? creds.baseUrl
			: defaultBaseUrl();
	return new N8nApiClient({ baseUrl, apiKey });
}

/** The workflow id from a resource locator or a plain string. */
function workflowIdOf(raw: unknown): string {
	if (typeof raw === 'string' || typeof raw === 'number') return String(raw).trim();
	if (raw && typeof raw === 'object' && 'value' in raw) {
		const v = (raw as { value: unknown }).value;
		if (typeof v === 'string' || typeof v === 'number') return String(v).trim();
	}
	return '';
}

/**
 * Eval Executions: reads finished executions of a workflow through n8n's public API and turns each
 * into a canonical eval row (request, response, retrieved context, tool calls, tokens, latency,
 * model), so the judges and Cost & Latency evaluate production traffic. A watermark in the
 * workflow's static data means no execution is evaluated twice.
 */
export class EvalExecutions implements INodeType {
	static readonly search: NodeSearch = {
		families: ['monitoring'],
		words: ['executions', 'n8n api', 'sample executions'],
	};

	description: INodeTypeDescription = {
		displayName: 'Eval Executions',
		name: 'evalExecutions',
		icon: iconFor('executions'),
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ $parameter.window === "sinceLastRun" ? "since the last run" : $parameter.window === "lastHours" ? "last " + $parameter.hours + " hours" : "all executions" }}',
		description:
			"Read a workflow's finished executions through n8n's API and turn each into an eval row, to judge production traffic",
		defaults: { name: 'Eval Executions' },
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: [
			{ type: NodeConnectionTypes.Main, displayName: 'Rows' },
			{ type: NodeConnectionTypes.Main, displayName: 'Invalid' },
		],
		// n8n's own API credential, so users reuse the key they have. n8n 2.41 lets any node use it
		// (the type sets no restrictToSupportedNodes); the rules below are for cloud-verified
		// packages, which this self-hosted package is not (see eslint.config.mjs).
		// eslint-disable-next-line @n8n/community-nodes/no-credential-reuse, @n8n/community-nodes/valid-credential-references
		credentials: [{ name: 'n8nApi', required: true }],
		properties: [
			{
				displayName:
					"Runs once per execution of this workflow, whatever items arrive. Since Last Run remembers the newest execution read (in this workflow's static data, saved by production runs only): a manual test run reads from there without moving it, and a run that fails leaves it where it was.",
				name: 'runNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Workflow',
				name: 'workflowId',
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
				required: true,
				description: 'The workflow whose executions to evaluate (your AI app)',
				modes: [
					{
						displayName: 'From List',
						name: 'list',
						type: 'list',
						typeOptions: { searchListMethod: 'searchWorkflows', searchable: true },
					},
					{
						displayName: 'By ID',
						name: 'id',
						type: 'string',
						placeholder: 'e.g. 2Pk0hWZ0rnQVU6iN',
						hint: 'The ID is in the workflow URL: /workflow/<ID>',
					},
				],
			},
			{
				displayName: 'App Node',
				name: 'appNode',
				type: 'string',
				default: '',
				placeholder: 'AI Agent',
				description:
					'Name of the node whose input is the request and whose output is the response (an AI Agent, a chain, an HTTP Request to your model). Empty: the last AI Agent, chain or LLM node that ran, else the last node that ran.',
			},
			{
				displayName: 'Window',
				name: 'window',
				type: 'options',
				default: 'sinceLastRun',
				options: [
					{
						name: 'Since Last Run',
						value: 'sinceLastRun',
						description:
							'Executions newer than the last one this node read in a production run; the first run reads the last Hours',
					},
					{
						name: 'Last Hours',
						value: 'lastHours',
						description: 'Executions started in the last Hours',
					},
					{
						name: 'All',
						value: 'all',
						description: 'Every stored execution, up to Max Executions',
					},
				],
			},
			{
				displayName: 'Hours',
				name: 'hours',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 24,
				description:
					'How far back to read: the window with Last Hours, the first run with Since Last Run',
				displayOptions: { show: { window: ['lastHours', 'sinceLastRun'] } },
			},
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				default: ['success', 'error'],
				options: [
					{ name: 'Success', value: 'success' },
					{ name: 'Error', value: 'error' },
					{ name: 'Crashed', value: 'crashed' },
					{ name: 'Canceled', value: 'canceled' },
				],
				description: 'Executions with these statuses are evaluated (empty: every finished one)',
			},
			{
				displayName: 'Sampling',
				name: 'sampling',
				type: 'options',
				default: 'rate',
				options: [
					{ name: 'All', value: 'all', description: 'Evaluate every execution read' },
					{ name: 'Rate', value: 'rate', description: 'A percent of the executions read' },
					{ name: 'Fixed Number', value: 'fixed', description: 'At most this many a run' },
				],
			},
			{
				displayName: 'Sample Rate (%)',
				name: 'sampleRate',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 2 },
				default: 10,
				displayOptions: { show: { sampling: ['rate'] } },
			},
			{
				displayName: 'Sample Size',
				name: 'sampleSize',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 50,
				displayOptions: { show: { sampling: ['fixed'] } },
			},
			{
				displayName: 'Seed',
				name: 'seed',
				type: 'number',
				default: 42,
				description:
					'The same seed and executions give the same sample; an execution is in or out whatever else ran',
				displayOptions: { show: { sampling: ['rate', 'fixed'] } },
			},
			{
				displayName: 'Stratify by Status',
				name: 'stratifyByStatus',
				type: 'boolean',
				default: false,
				description:
					'Whether each status gets its share of the sample, with at least one execution of every status read (so rare failures are always judged)',
				displayOptions: { show: { sampling: ['rate', 'fixed'] } },
			},
			{
				displayName: 'Max Executions',
				name: 'maxExecutions',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1000,
				description:
					'Read at most this many executions (newest first) before sampling. With Since Last Run, older ones beyond it are skipped for good.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Keep Trace',
						name: 'traceDetail',
						type: 'options',
						default: 'slim',
						options: [
							{
								name: 'LLM Calls Only',
								value: 'slim',
								description:
									'Each row keeps its LLM calls (tokens, model): what Cost & Latency prices, at a few hundred bytes a call',
							},
							{
								name: 'Whole Execution',
								value: 'full',
								description: 'Each row keeps the execution as the API returned it (large)',
							},
							{ name: 'None', value: 'none' },
						],
					},
				],
			},
		],
	};

	methods = {
		listSearch: {
			async searchWorkflows(
				this: ILoadOptionsFunctions,
				filter?: string,
				paginationToken?: string,
			): Promise<INodeListSearchResult> {
				const client = await clientFor(this);
				const page = await client.listWorkflows(paginationToken);
				const f = (filter ?? '').toLowerCase();
				return {
					results: page.data
						.filter((w) => !f || w.name.toLowerCase().includes(f) || w.id === filter)
						.map((w) => ({ name: w.name, value: w.id })),
					paginationToken: page.nextCursor ?? undefined,
				};
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const workflowId = workflowIdOf(this.getNodeParameter('workflowId', 0, ''));
		const window = this.getNodeParameter('window', 0, 'sinceLastRun') as WindowMode;
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const sampling = this.getNodeParameter('sampling', 0, 'rate') as SamplingMode;
		const fail = (message: string, description?: string): never => {
			throw new NodeOperationError(this.getNode(), message, { itemIndex: 0, description });
		};
		if (workflowId === '') fail('Choose the workflow to monitor (Workflow is empty)');

		const staticData = this.getWorkflowStaticData('node');
		const marks = { ...((staticData[WATERMARKS] as IDataObject | undefined) ?? {}) };
		// Assigned at the top level, so n8n's change tracking sees it and saves the static data.
		const store = (state: unknown): void => {
			marks[workflowId] = state as IDataObject;
			staticData[WATERMARKS] = { ...marks };
		};
		const production = this.getMode() !== 'manual';
		const hints: string[] = [];
		try {
			const client = await clientFor(this);
			let afterId: string | undefined;
			let settledState = readState(marks[workflowId]);
			if (window === 'sinceLastRun') {
				const settled = await settleWatermark(settledState, async (id) => {
					const e = await client.getExecution(id, false);
					return e ? String(e.status ?? (e.finished ? 'success' : 'unknown')) : undefined;
				});
				settledState = settled.state;
				// Committing or dropping is a fact about the past run: keep it whatever this run does.
				if (production && settled.outcome !== 'none') store(settledState);
				if (settled.note) hints.push(settled.note);
				afterId = settledState.lastId;
			}
			const now = new Date();
			const result = await readExecutions(client, {
				workflowId,
				statuses: this.getNodeParameter('statuses', 0, ['success', 'error']) as string[],
				window,
				hours: this.getNodeParameter('hours', 0, 24) as number,
				afterId,
				sampling: {
					mode: sampling,
					rate: this.getNodeParameter('sampleRate', 0, 10) as number,
					size: this.getNodeParameter('sampleSize', 0, 50) as number,
					seed: this.getNodeParameter('seed', 0, 42) as number,
					stratify: this.getNodeParameter('stratifyByStatus', 0, false) as boolean,
				},
				maxExecutions: this.getNodeParameter('maxExecutions', 0, 1000) as number,
				convert: {
					appNode: this.getNodeParameter('appNode', 0, '') as string,
					instance: instanceUrl(client.baseUrl),
					traceDetail: (options.traceDetail as TraceDetail | undefined) ?? 'slim',
				},
				now,
			});
			if (window === 'sinceLastRun') {
				if (production)
					store(withPending(settledState, result.stats.newest_id, this.getExecutionId(), now));
				else if (result.stats.newest_id !== undefined)
					hints.push(
						`Manual run: the watermark stays at ${afterId ?? 'none'} (n8n saves it in production runs only), so the next production run reads these executions again`,
					);
			}
			const s = result.stats;
			hints.unshift(
				`Workflow ${s.workflow_name ? `"${s.workflow_name}" ` : ''}(${s.workflow_id}): ${s.seen} executions read, ${s.sampled} sampled, ${s.converted} converted, ${s.invalid} invalid${s.other_status ? `, ${s.other_status} with other statuses skipped` : ''}`,
			);
			hints.push(...result.notices);
			for (const message of hints) {
				this.logger?.info(`Eval Executions: ${message}`);
				if (typeof this.addExecutionHints === 'function')
					this.addExecutionHints({
						message,
						type: result.notices.includes(message) ? 'warning' : 'info',
						location: 'outputPane',
					});
			}

			const ids = result.rows.map((r) => String((r.metadata as IDataObject).execution_id));
			const fingerprint = `sha256:${sha256(`n8n-executions\n${workflowId}\n${ids.join('\n')}`)}`;
			const base = {
				run_id: newRunId(),
				total_rows: result.rows.length,
				dataset_fingerprint: fingerprint,
			};
			const summary = {
				seen: s.seen,
				sampled: s.sampled,
				converted: s.converted,
				invalid: s.invalid,
				stopped_at: s.stopped_at,
				newest_id: s.newest_id ?? null,
				after_id: s.after_id ?? null,
			};
			const rows: INodeExecutionData[] = result.rows.map((r, i) => {
				const manifest: RunManifest & { executions: IDataObject } = {
					...base,
					position: i + 1,
					executions: summary,
				};
				// Bookkeeping in one field, last, as Eval Dataset writes it.
				const json = withRunManifest({ ...r, source: { fingerprint } }, manifest);
				return { json: json as IDataObject, pairedItem: { item: 0 } };
			});
			const invalid: INodeExecutionData[] = result.invalid.map((r) => ({
				json: r as unknown as IDataObject,
				pairedItem: { item: 0 },
			}));
			return [rows, invalid];
		} catch (e) {
			if (e instanceof N8nApiError) {
				const description =
					e.kind === 'auth'
						? 'Open the n8n API credential and paste a valid key (Settings > n8n API).'
						: e.kind === 'network'
							? "Check the credential's Base URL (e.g. http://localhost:5678/api/v1) and that n8n's public API is enabled (N8N_PUBLIC_API_DISABLED is not true)."
							: e.kind === 'not_found'
								? 'Pick the workflow again from the list, or check its ID in the workflow URL.'
								: undefined;
				fail(e.message, description);
			}
			if (e instanceof RangeError) fail(e.message);
			throw e instanceof NodeOperationError
				? e
				: new NodeOperationError(this.getNode(), e as Error, { itemIndex: 0 });
		}
	}
}
