/**
 * The options and model plumbing every node that calls an LLM shares (the judges, the safety
 * nodes' LLM Judge backend): the credential and a connected Chat Model, the governor's retry,
 * deadline and breaker options, the spend limit and estimate mode, and the verdict cache.
 */
import {
	NodeConnectionTypes,
	NodeOperationError,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeCredentialTestResult,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { DEFAULT_PRICES, DEFAULT_PRICES_TAKEN } from '../../src/cost';
import { DEFAULT_REPLY_TOKENS } from '../../src/judges/estimate';
import { DEFAULT_CACHE_TTL_MS, type CacheOptions } from '../../src/judges/cache';
import {
	DEFAULT_RATE_LIMIT_RETRIES,
	DEFAULT_ROW_DEADLINE_MS,
	DEFAULT_TIMEOUT_MS,
} from '../../src/judges/governor';
import {
	createChatModelSource,
	createOpenAIModelSource,
	testConnection,
	type LlmConfig,
	type ModelSource,
} from '../../src/judges/model';
import { PROVIDER_MAX_CONCURRENCY } from '../../src/judges/model';
import { SpendLimit, SpendLimitError, type SpendUnit } from '../../src/judges/spend';
import { priceTableOption } from './collect';

/** Credential type name of the judge model. */
export const LLM_CREDENTIAL = 'ragEvalLlmApi';

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

/** Retry, deadline and circuit-breaker options; their defaults are the Governor's. */
export const runtimeOptions: INodeProperties[] = [
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeoutSeconds',
		type: 'number',
		default: DEFAULT_TIMEOUT_MS / 1000,
		typeOptions: { minValue: 1 },
		description:
			'Longest single call; a timed-out call is retried at most Timeout Retries times. Raise it for reasoning models or slow local ones.',
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
			'Retries for server errors, resets, timeouts and rate limits without a wait. A rate limit whose reply says how long to wait (Retry-After) counts against Max Rate-Limit Retries instead.',
	},
	{
		displayName: 'Max Rate-Limit Retries',
		name: 'maxRateLimitRetries',
		type: 'number',
		default: DEFAULT_RATE_LIMIT_RETRIES,
		typeOptions: { minValue: 0, maxValue: 100 },
		description:
			'Retries after a rate limit whose reply says how long to wait (Retry-After, rate-limit reset headers): each waits what the server asked (a wait of 0 backs off instead), within the Row Deadline. Bounds the calls of a row whatever the deadlines.',
	},
	{
		displayName: 'Row Deadline (Seconds)',
		name: 'rowDeadlineSeconds',
		type: 'number',
		default: DEFAULT_ROW_DEADLINE_MS / 1000,
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
			"Rows in a row whose calls failed (server errors, resets, timeouts; not rate limits) with no answer from the model in between, after which calls pause for the cool-down; timed-out rows sooner, at 2. A row's own retries count once, and a row that fails while the model answers others is that row's fault, never the model's. The other nodes of the execution, and in queue mode every worker, share what this node learns. 0 = never.",
	},
	{
		displayName: 'Circuit Breaker Cool-Down (Seconds)',
		name: 'breakerCooldownSeconds',
		type: 'number',
		default: 10,
		typeOptions: { minValue: 0 },
		description:
			'After the breaker opens, wait this long, then probe with one call at a time from a row that has not failed: an answer resumes judging; two failed probes (the second after a backoff) and every remaining row leaves with "judge model unavailable". A later node facing a model found down this long ago probes it again; sooner, its rows leave at once. 0 = no probe.',
	},
];

// Spend limit and estimate-only mode: options, and what the execution does with them.

/** Mode, Spend Limit and the price table they read; off by default. */
export const spendOptions: INodeProperties[] = [
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

/**
 * The spend limit the options ask for, or undefined; a limit that cannot work fails the node.
 * `models`: a panel's jurors' models, each charged at its own price.
 */
export async function spendLimitFor(
	ctx: IExecuteFunctions,
	options: IDataObject,
	model: string,
	models?: ReadonlyArray<string>,
): Promise<SpendLimit | undefined> {
	const unit = options.spendLimitUnit as SpendUnit | 'none' | undefined;
	if (unit !== 'tokens' && unit !== 'usd') return undefined;
	try {
		return await SpendLimit.create({
			unit,
			amount: Number(options.spendLimit),
			model,
			models,
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

export function replyTokensOption(options: IDataObject): number {
	const v = options.replyTokens;
	return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? v : DEFAULT_REPLY_TOKENS;
}

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

/** The Chat Model sub-nodes connected to this node, in n8n's order (none: empty). */
export async function connectedChatModels(ctx: IExecuteFunctions): Promise<unknown[]> {
	const inputs = ctx.getNodeInputs?.() ?? [];
	if (!inputs.some((i) => i.type === NodeConnectionTypes.AiLanguageModel)) return [];
	const parents = ctx.getParentNodes?.(ctx.getNode().name, {
		connectionType: NodeConnectionTypes.AiLanguageModel,
		depth: 1,
	});
	if (parents && parents.length === 0) return [];
	const data = await ctx.getInputConnectionData(NodeConnectionTypes.AiLanguageModel, 0);
	return (Array.isArray(data) ? data : [data]).filter((m) => m !== undefined && m !== null);
}

/** The Chat Model sub-node connected to this node, if any (the first, when several are). */
async function connectedChatModel(ctx: IExecuteFunctions): Promise<unknown> {
	return (await connectedChatModels(ctx))[0];
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

/** Temperature, Seed and Concurrency, as every LLM-calling node offers them. */
export function samplingOptions(concurrencyOf: string, llmOnly = false): INodeProperties[] {
	return [
		{
			displayName: 'Temperature',
			name: 'temperature',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
			...(llmOnly ? { description: 'LLM Judge only' } : {}),
		},
		{
			displayName: 'Seed',
			name: 'seed',
			type: 'number',
			default: 0,
			description: `${llmOnly ? 'LLM Judge only: s' : 'S'}ampling seed where the server supports one (0 = none)`,
		},
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			default: 8,
			typeOptions: { minValue: 1, maxValue: 256 },
			description: `${concurrencyOf} in flight at once when the node starts; with a higher Max Concurrency they rise while the model's latency holds and no 429 comes, and halve on a 429`,
		},
		{
			displayName: 'Max Concurrency',
			name: 'maxConcurrency',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, maxValue: 256 },
			description: `Ceiling of ${concurrencyOf.toLowerCase()} in flight, shared by the nodes of one execution calling the same endpoint and model. 0 = by provider: ${PROVIDER_MAX_CONCURRENCY} for OpenAI and Azure OpenAI (whose rate-limit headers and 429s it follows), Concurrency itself (no rise) for other servers and Chat Model sub-nodes. Set it to Concurrency to keep a fixed number.`,
		},
	];
}
