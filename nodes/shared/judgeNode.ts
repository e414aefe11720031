/**
 * Builds an n8n node type from a JudgeDecl: the judge model comes from the RAG Eval LLM API
 * credential or a connected Chat Model sub-node; one Governor per execution caps concurrency,
 * retries and fails fast; every row leaves with a Score (ok, not_applicable or error).
 */
import {
	NodeConnectionTypes,
	NodeOperationError,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { errorScore, labelRowError, notApplicableScore, scoreBase } from '../../src/core/score';
import type { Score } from '../../src/core/types';
import { DEFAULT_PRICES, DEFAULT_PRICES_TAKEN } from '../../src/cost';
import {
	DEFAULT_REPLY_TOKENS,
	estimateRow,
	recordingSource,
	runEstimate,
	type RowEstimate,
} from '../../src/judges/estimate';
import { DEFAULT_CACHE_TTL_MS, openVerdictCache, type CacheOptions } from '../../src/judges/cache';
import { Governor, type GovernorOptions } from '../../src/judges/governor';
import {
	createChatModelSource,
	createOpenAIModelSource,
	testConnection,
	type LlmConfig,
	type ModelSource,
} from '../../src/judges/model';
import { judgeSignature, runJudge } from '../../src/judges/run';
import { SpendLimit, SpendLimitError, type SpendUnit } from '../../src/judges/spend';
import { runEveryTurn } from '../../src/judges/turns';
import type { JudgeDecl } from '../../src/judges/types';
import {
	formatFields,
	iconFor,
	outputFormatProperty,
	readParam,
	readThreshold,
	routeScored,
	rowLabel,
	SCORING_OUTPUTS,
	splitProperties,
	withScore,
	type OutputFormat,
	throwIfFatal,
} from './common';
import { priceTableOption } from './collect';
import { inputProperty, paramProperty } from './metricNode';
import { executeServiceJudge, judgeBackendOf, withServiceBackends } from './judgeServiceBackend';

/** Credential type name of the judge model. */
export const LLM_CREDENTIAL = 'ragEvalLlmApi';

/** Node name of a judge: `judge` + PascalCase of its id (`groundedness` -> `judgeGroundedness`). */
export function judgeNodeName(id: string): string {
	return (
		'judge' +
		id
			.split(/[_-]/)
			.map((p) => p.charAt(0).toUpperCase() + p.slice(1))
			.join('')
	);
}

/** Map the credential's fields onto the library's model configuration. */
export function llmConfigFromCredential(c: IDataObject, modelOverride?: string): LlmConfig {
	const provider = (c.provider as LlmConfig['provider']) ?? 'openai';
	const str = (v: unknown): string | undefined =>
		typeof v === 'string' && v.trim() ? v.trim() : undefined;
	return {
		provider,
		apiKey: str(c.apiKey),
		baseUrl:
			provider === 'compatible'
				? str(c.baseUrl)
				: provider === 'openai'
					? str(c.openaiBaseUrl)
					: undefined,
		organization: provider === 'openai' ? str(c.organization) : undefined,
		azureEndpoint: str(c.azureEndpoint),
		azureDeployment: str(c.azureDeployment),
		apiVersion: str(c.apiVersion),
		model: str(modelOverride) ?? str(c.model) ?? str(c.azureDeployment) ?? 'gpt-4o-mini',
	};
}

/** Credential test shared by every judge node: lists models or makes a one-token call. */
export async function ragEvalLlmApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const result = await testConnection(
		llmConfigFromCredential((credential.data ?? {}) as IDataObject),
	);
	return { status: result.ok ? 'OK' : 'Error', message: result.message };
}

function promptProperties(decl: JudgeDecl): INodeProperties[] {
	return [
		{
			displayName: 'System Prompt',
			name: 'systemPrompt',
			type: 'string',
			typeOptions: { rows: 8 },
			default: decl.prompt.system,
			description:
				'Instructions for the judge. Placeholders in single braces, e.g. {response}, are filled per row (\\{ for a literal brace); judged text is wrapped in per-call delimiters.',
		},
		{
			displayName: 'User Prompt',
			name: 'userPrompt',
			type: 'string',
			typeOptions: { rows: 8 },
			default: decl.prompt.user,
			description: `Available placeholders: ${[...decl.inputs.map((i) => i.field), ...decl.params.map((p) => p.name), 'data_tag'].map((n) => `{${n}}`).join(', ')}`,
		},
	];
}

/**
 * Conversations: judge only the last exchange, or every assistant turn (Azure's conversation
 * format; default for the 1-5 judges). Yes/no (Databricks) judges judge the last turn by default.
 */
function conversationTurnsProperty(decl: JudgeDecl): INodeProperties {
	return {
		displayName: 'Conversation Turns',
		name: 'conversationTurns',
		type: 'options',
		default: decl.scale.kind === 'binary' ? 'last' : 'every',
		options: [
			{ name: 'Last Turn', value: 'last' },
			{
				name: 'Every Assistant Turn',
				value: 'every',
				description: 'Mean over the turns (harms: max); per-turn scores in details.turns',
			},
		],
		description:
			'For rows with a conversation history: judge only the last reply, or every assistant turn. Turns before the last have no retrieved context or ground truth unless the row carries turn_contexts.',
	};
}

/** The n8n description of a judge node. */
export function judgeDescription(decl: JudgeDecl): INodeTypeDescription {
	// A yes/no verdict passes by its value: a threshold field would have no effect.
	const binary = decl.scale.kind === 'binary';
	const thresholdProperty: INodeProperties[] = binary
		? []
		: [
				{
					displayName: 'Threshold',
					name: 'threshold',
					type: 'number',
					default: decl.threshold.default,
					typeOptions: { numberPrecision: 2 },
					description: `A row passes when the score is ${decl.threshold.direction === 'higher' ? 'at least' : 'at most'} this value (scale ${decl.scale.min}-${decl.scale.max})`,
				},
			];
	return {
		displayName: `${decl.displayName} Judge`,
		name: judgeNodeName(decl.id),
		icon: iconFor('judge'),
		group: ['transform'],
		version: 1,
		subtitle: binary
			? `${decl.displayName}: yes passes`
			: `={{ "${decl.displayName} ${decl.threshold.direction === 'higher' ? '>=' : '<='} " + $parameter.threshold }}`,
		description: decl.description,
		defaults: { name: decl.displayName },
		inputs: JUDGE_NODE_INPUTS,
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		credentials: [{ name: LLM_CREDENTIAL, required: false, testedBy: 'ragEvalLlmApiTest' }],
		properties: [
			{
				displayName:
					'Uses the RAG Eval LLM API credential, or the Chat Model connected below when there is one. Rows are judged concurrently with retries; failures are reported per row, never scored as 0.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			...decl.inputs.map(inputProperty),
			{
				displayName: 'Model',
				name: 'model',
				type: 'string',
				default: '',
				placeholder: 'gpt-4o-mini',
				description: "Model to judge with. Empty uses the credential's default model.",
			},
			...thresholdProperty,
			...splitProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					...decl.params.map(paramProperty),
					...promptProperties(decl),
					outputFormatProperty,
					{
						displayName: 'Temperature',
						name: 'temperature',
						type: 'number',
						default: 0,
						typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
					},
					{
						displayName: 'Seed',
						name: 'seed',
						type: 'number',
						default: 0,
						description: 'Sampling seed where the server supports one (0 = none)',
					},
					{
						displayName: 'Concurrency',
						name: 'concurrency',
						type: 'number',
						default: 8,
						typeOptions: { minValue: 1, maxValue: 256 },
						description: 'Judge calls in flight at once for this node',
					},
					...runtimeOptions,
					...spendOptions,
					...cacheProperties,
					{
						displayName: 'Result Key',
						name: 'resultKey',
						type: 'string',
						default: '',
						description: `Key under \`eval\` for this score. Defaults to ${decl.id}.`,
					},
					conversationTurnsProperty(decl),
				],
			},
		],
	};
}

/** Retry, deadline and circuit-breaker options; their defaults are the Governor's. */
export const runtimeOptions: INodeProperties[] = [
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeoutSeconds',
		type: 'number',
		default: 60,
		typeOptions: { minValue: 1 },
		description: 'Longest single call; a timed-out call is retried at most Timeout Retries times',
	},
	{
		displayName: 'Timeout Retries',
		name: 'timeoutRetries',
		type: 'number',
		default: 1,
		typeOptions: { minValue: 0, maxValue: 10 },
		description: 'How many of the retries may follow a timeout',
	},
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		default: 4,
		typeOptions: { minValue: 0, maxValue: 10 },
		description:
			'Retries for server errors, resets, timeouts and rate limits without a wait. A rate limit whose reply says how long to wait (Retry-After) is waited out until the Row Deadline instead.',
	},
	{
		displayName: 'Row Deadline (Seconds)',
		name: 'rowDeadlineSeconds',
		type: 'number',
		default: 180,
		typeOptions: { minValue: 0 },
		description:
			"One row's budget across all its calls, retries and waits, from its first call; then it leaves with an error. 0 = no limit.",
	},
	{
		displayName: 'Node Deadline (Seconds)',
		name: 'nodeDeadlineSeconds',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0 },
		description:
			'Budget of the whole node; rows not judged by then leave with an error naming the deadline. 0 = no limit.',
	},
	{
		displayName: 'Circuit Breaker Failures',
		name: 'breakerThreshold',
		type: 'number',
		default: 5,
		typeOptions: { minValue: 0 },
		description:
			'Consecutive failed calls (server errors, resets, timeouts; not rate limits) after which the model is treated as down. 0 = never.',
	},
	{
		displayName: 'Circuit Breaker Cool-Down (Seconds)',
		name: 'breakerCooldownSeconds',
		type: 'number',
		default: 10,
		typeOptions: { minValue: 0 },
		description:
			'After the breaker opens, wait this long and probe with one call: if it answers, judging resumes; if not, every remaining row leaves with "judge model unavailable". 0 = no probe.',
	},
];

// ---------------------------------------------------------------------------------------------
// Spend limit and estimate-only mode (issue 15): options, and what the execution does with them.

/** Mode, Spend Limit and the price table they read; off by default. */
const spendOptions: INodeProperties[] = [
	{
		displayName: 'Mode',
		name: 'runMode',
		type: 'options',
		default: 'judge',
		options: [
			{ name: 'Judge', value: 'judge', description: 'Call the judge model and score every row' },
			{
				name: 'Estimate Only',
				value: 'estimate',
				description:
					'Call nothing: render every prompt, count its tokens and price the run (item.json.estimate)',
			},
		],
		description:
			'Estimate Only prices a run before enabling it: rows leave with their estimated calls, tokens and USD under estimate.<result key>, never a score',
	},
	{
		displayName: 'Spend Limit Unit',
		name: 'spendLimitUnit',
		type: 'options',
		default: 'none',
		options: [
			{ name: 'No Limit', value: 'none' },
			{ name: 'Tokens', value: 'tokens' },
			{ name: 'USD', value: 'usd' },
		],
		description:
			'Limit what this node may spend in one execution; once the next call would pass it, the remaining rows leave with a "spend limit reached" error',
	},
	{
		displayName: 'Spend Limit',
		name: 'spendLimit',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 4 },
		description:
			'Prompt + completion tokens, or USD priced from Model Prices, that one execution may spend (with Spend Limit Unit set)',
	},
	{
		displayName: 'Model Prices (JSON)',
		name: 'modelPrices',
		type: 'json',
		default: JSON.stringify(DEFAULT_PRICES, null, 2),
		description: `USD per 1M input and output tokens by judge model, for a USD spend limit and estimates; the package's one price table (default: OpenAI list prices of ${DEFAULT_PRICES_TAKEN})`,
	},
	{
		displayName: 'Typical Reply Tokens',
		name: 'replyTokens',
		type: 'number',
		default: DEFAULT_REPLY_TOKENS,
		typeOptions: { minValue: 1 },
		description:
			'Completion tokens counted per call by estimates and reserved per call by the spend limit',
	},
];

/** The spend limit the options ask for, or undefined; a limit that cannot work fails the node. */
async function spendLimitFor(
	ctx: IExecuteFunctions,
	options: IDataObject,
	model: string,
): Promise<SpendLimit | undefined> {
	const unit = options.spendLimitUnit as SpendUnit | 'none' | undefined;
	if (unit !== 'tokens' && unit !== 'usd') return undefined;
	try {
		return await SpendLimit.create({
			unit,
			amount: Number(options.spendLimit),
			model,
			prices: priceTableOption(ctx, options.modelPrices),
			replyTokens: replyTokensOption(options),
		});
	} catch (e) {
		throw new NodeOperationError(ctx.getNode(), (e as Error).message, {
			description:
				e instanceof SpendLimitError
					? 'No judge call was made. Set Spend Limit to a positive amount, and for USD give the judge model a price in Model Prices.'
					: 'The spend limit could not be prepared (its tokenizer failed to load); no judge call was made.',
		});
	}
}

function replyTokensOption(options: IDataObject): number {
	const v = options.replyTokens;
	return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? v : DEFAULT_REPLY_TOKENS;
}

/** Estimate-only output: every row with `estimate.<key>` (its own and the run's), never a score. */
function estimateOutput(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	estimates: RowEstimate[],
	resultKey: string,
	model: string,
): INodeExecutionData[][] {
	const run = runEstimate(estimates, model);
	const out = items.map((item, i) => {
		const prev = (item.json.estimate as IDataObject | undefined) ?? {};
		const own = { ...estimates[i], run } as unknown as IDataObject;
		const json = { ...item.json, estimate: { ...prev, [resultKey]: own } };
		const next: INodeExecutionData = { json, pairedItem: { item: i } };
		if (item.binary) next.binary = item.binary;
		// Routed as a row that was not scored (Scored output, or Not Scored with the split).
		return { item: next, score: { pass: null } as Score };
	});
	return routeScored(ctx, out);
}

// ---- Judge verdict cache (issue 15 item 1) ----

/** Rows in, and an optional Chat Model sub-node that judges instead of the credential. */
export const JUDGE_NODE_INPUTS: INodeTypeDescription['inputs'] = [
	NodeConnectionTypes.Main,
	{
		type: NodeConnectionTypes.AiLanguageModel,
		displayName: 'Chat Model',
		required: false,
		maxConnections: 1,
	},
];

/** The verdict-cache options of every judge node (and of the safety nodes' LLM Judge backend). */
export const cacheProperties: INodeProperties[] = [
	{
		displayName: 'Cache Verdicts',
		name: 'cache',
		type: 'boolean',
		default: true,
		description:
			'Whether to reuse the verdict of an identical earlier call (same endpoint, model, temperature, seed, prompt, params and inputs) instead of calling the model. Cached scores say cached: true; details.cache names the store.',
	},
	{
		displayName: 'Cache TTL (Hours)',
		name: 'cacheTtlHours',
		type: 'number',
		default: DEFAULT_CACHE_TTL_MS / 3_600_000,
		typeOptions: { minValue: 0 },
		description: 'Verdicts older than this are judged again. 0 = never expire.',
	},
	{
		displayName: 'Cache Store',
		name: 'cacheStore',
		type: 'options',
		default: 'auto',
		options: [
			{
				name: 'Automatic',
				value: 'auto',
				description:
					"Redis when n8n runs in queue mode (its QUEUE_BULL_REDIS_* settings) or RAG_EVAL_CACHE_REDIS_URL is set; else the disk in n8n's user folder",
			},
			{ name: 'Disk', value: 'disk', description: 'A cache folder on this n8n instance' },
			{
				name: 'Redis',
				value: 'redis',
				description: "RAG_EVAL_CACHE_REDIS_URL, else n8n's QUEUE_BULL_REDIS_* settings",
			},
		],
	},
	{
		displayName: 'Cache Folder',
		name: 'cacheFolder',
		type: 'string',
		default: '',
		placeholder: '~/.n8n/rag-eval-cache',
		description:
			"Disk store folder. Empty: RAG_EVAL_CACHE_DIR, else rag-eval-cache in n8n's user folder.",
	},
];

/** Verdict-cache settings from the node's Options: on by default, 7-day TTL, store chosen by mode. */
export function cacheOptions(options: IDataObject): CacheOptions {
	const ttl = options.cacheTtlHours;
	const store = options.cacheStore;
	return {
		enabled: options.cache !== false,
		store: store === 'disk' || store === 'redis' ? store : 'auto',
		ttlMs:
			typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0
				? ttl * 3_600_000
				: DEFAULT_CACHE_TTL_MS,
		dir: typeof options.cacheFolder === 'string' ? options.cacheFolder : undefined,
	};
}

/** Governor settings from the node's Options; absent or invalid values take the defaults. */
export function governorOptions(options: IDataObject): GovernorOptions {
	const num = (name: string, fallback: number, min = 0): number => {
		const v = options[name];
		return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
	};
	return {
		concurrency: num('concurrency', 8, 1),
		timeoutMs: num('timeoutSeconds', 60, 0.001) * 1000,
		timeoutRetries: num('timeoutRetries', 1),
		maxRetries: num('maxRetries', 4),
		rowDeadlineMs: num('rowDeadlineSeconds', 180) * 1000,
		nodeDeadlineMs: num('nodeDeadlineSeconds', 0) * 1000,
		breakerThreshold: num('breakerThreshold', 5),
		breakerCooldownMs: num('breakerCooldownSeconds', 10) * 1000,
	};
}

/** How an error names a row: its position, and its request_id when it has one. */
async function connectedChatModel(ctx: IExecuteFunctions): Promise<unknown> {
	const inputs = ctx.getNodeInputs?.() ?? [];
	if (!inputs.some((i) => i.type === NodeConnectionTypes.AiLanguageModel)) return undefined;
	const parents = ctx.getParentNodes?.(ctx.getNode().name, {
		connectionType: NodeConnectionTypes.AiLanguageModel,
		depth: 1,
	});
	if (parents && parents.length === 0) return undefined;
	const data = await ctx.getInputConnectionData(NodeConnectionTypes.AiLanguageModel, 0);
	return Array.isArray(data) ? data[0] : data;
}

/** The judge model: a connected Chat Model, else the RAG Eval LLM API credential, else none. */
export async function resolveSource(ctx: IExecuteFunctions): Promise<ModelSource | undefined> {
	const model = await connectedChatModel(ctx);
	if (model) return createChatModelSource(model);
	let cred: IDataObject | undefined;
	try {
		cred = (await ctx.getCredentials(LLM_CREDENTIAL)) as IDataObject;
	} catch {
		return undefined;
	}
	if (!cred) return undefined;
	return createOpenAIModelSource(
		llmConfigFromCredential(cred, ctx.getNodeParameter('model', 0, '') as string),
	);
}

/** Execute a judge node over all items. */
export async function executeJudge(
	this: IExecuteFunctions,
	decl: JudgeDecl,
): Promise<INodeExecutionData[][]> {
	// Service backends (Groundedness via Azure AI Content Safety): ./judgeServiceBackend.ts.
	if (judgeBackendOf(this, decl) !== 'llm')
		return executeServiceJudge.call(this, decl, governorOptions);
	const items = this.getInputData();
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const source = await resolveSource(this);
	const governor = new Governor(governorOptions(options));
	const signal = this.getExecutionCancelSignal?.();
	const modelOverride = (this.getNodeParameter('model', 0, '') as string) || undefined;
	const temperature = (options.temperature as number | undefined) ?? 0;
	const seed = (options.seed as number) || undefined;
	const promptOverride = {
		system: (options.systemPrompt as string) || undefined,
		user: (options.userPrompt as string) || undefined,
	};
	const params: Record<string, unknown> = {};
	for (const p of decl.params) if (options[p.name] !== undefined) params[p.name] = options[p.name];
	// Spend limit / estimate only: checked before any call is made.
	const estimating = options.runMode === 'estimate';
	const judgeModel = modelOverride ?? source?.defaultModel ?? 'unknown';
	const spend = source && !estimating ? await spendLimitFor(this, options, judgeModel) : undefined;
	// Verdict cache (issue 15 item 1); no model means no calls, so no store is opened. Estimate
	// Only prices a cold run and must never store the recording source's placeholder replies.
	// Opened after the spend check, which may fail the node, so a store is never left open.
	const cache = source && !estimating ? openVerdictCache(cacheOptions(options)) : undefined;
	const estimates: RowEstimate[] = [];
	const estimateOpts = estimating
		? {
				model: judgeModel,
				prices: priceTableOption(this, options.modelPrices),
				replyTokens: replyTokensOption(options),
			}
		: undefined;

	const binary = decl.scale.kind === 'binary';
	const tasks = items.map(async (item, i): Promise<Score> => {
		const t = binary
			? ({ ok: true, value: undefined } as const)
			: readThreshold(this, i, decl.threshold.default);
		const threshold = t.ok ? t.value : undefined;
		const base = (model: string) =>
			scoreBase(decl, decl.id, judgeSignature(decl, { model, temperature }), threshold);
		if (!t.ok) return errorScore(base(modelOverride ?? 'unknown'), t.error);
		const raw: Record<string, unknown> = { ...params };
		for (const input of decl.inputs) {
			const r = readParam(this, input.name, i);
			if (!r.ok) return errorScore(base(modelOverride ?? 'unknown'), r.error);
			raw[input.name] = r.value;
		}
		if (!source) {
			return notApplicableScore(
				base('none'),
				'no judge model configured: add a RAG Eval LLM API credential or connect a Chat Model',
			);
		}
		const everyTurn =
			(options.conversationTurns ?? (binary ? 'last' : 'every')) === 'every' &&
			item.json.history !== undefined;
		if (everyTurn) {
			// The transcript and any per-turn contexts come from the record itself.
			raw.history ??= item.json.history;
			if (item.json.turn_contexts !== undefined) raw.turn_contexts = item.json.turn_contexts;
		}
		const judgeCtx = {
			source,
			governor,
			model: modelOverride,
			temperature,
			seed,
			threshold,
			promptOverride,
			params,
			signal,
			spend,
			cache,
		};
		const run = everyTurn ? runEveryTurn : runJudge;
		if (!estimateOpts) return run(decl, raw, judgeCtx);
		const rec = recordingSource(source);
		const score = await run(decl, raw, { ...judgeCtx, source: rec.source });
		estimates[i] = await estimateRow(
			rec.requests,
			labelRowError(score, rowLabel(item, i)),
			estimateOpts,
		);
		return score;
	});
	// Every task resolves to a Score (none throws), so the store is always released here.
	const scores = await Promise.all(tasks).finally(() => cache?.close());
	const resultKey = (options.resultKey as string) || decl.id;
	if (estimateOpts) {
		for (let i = 0; i < items.length; i++) {
			const s = labelRowError(scores[i], rowLabel(items[i], i));
			estimates[i] ??= await estimateRow([], s, estimateOpts);
		}
		return estimateOutput(this, items, estimates, resultKey, judgeModel);
	}

	throwIfFatal(
		this,
		governor,
		source?.key,
		'The judge model rejected the calls in a way no retry can fix (key, model name, quota or endpoint). Check the RAG Eval LLM API credential and the Model parameter.',
	);
	const format = (options.outputFormat as OutputFormat | undefined) ?? 'score';
	const scored = items.map((item, i) => {
		const score = labelRowError(scores[i], rowLabel(item, i));
		const extra = formatFields(format, resultKey, score, decl);
		return { item: withScore(item, i, resultKey, score, extra), score };
	});
	return routeScored(this, scored);
}

/** A node class for a judge: n8n's loader needs one class per file, so each file extends this. */
export function judgeNodeClass(decl: JudgeDecl): new () => INodeType {
	return class implements INodeType {
		description = withServiceBackends(decl, judgeDescription(decl));
		methods = { credentialTest: { ragEvalLlmApiTest } };
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeJudge.call(this, decl);
		}
	};
}
