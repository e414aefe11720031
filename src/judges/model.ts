/**
 * The model seam: one chat call, whatever answers it. `createOpenAIModelSource` covers OpenAI,
 * Azure OpenAI and OpenAI-compatible servers through the `openai` SDK; `createChatModelSource`
 * duck-types a connected n8n/LangChain chat model without importing LangChain.
 */
import OpenAI, {
	APIConnectionError,
	APIConnectionTimeoutError,
	APIError,
	APIUserAbortError,
	AzureOpenAI,
} from 'openai';
import type { Usage } from '../core/types';
import { judgeFetch } from './transport';
import { connectionError, ModelCallError, redact, retryAfterFromHeaders } from './errors';

/** One chat message sent to the judge model. */
export interface ChatMessage {
	role: 'system' | 'user' | 'assistant';
	content: string;
}

/** How the reply's structure is requested: strict JSON schema, JSON mode, or plain text. */
export type ResponseMode = 'json_schema' | 'json_object' | 'text';

/** One chat call. The governor supplies `signal` (cancel + per-call timeout). */
export interface ChatRequest {
	messages: ChatMessage[];
	mode: ResponseMode;
	/** Required when `mode` is `json_schema`. */
	jsonSchema?: { name: string; schema: Record<string, unknown> };
	/** Overrides the source's default model. */
	model?: string;
	temperature: number;
	seed?: number;
	maxTokens?: number;
	/**
	 * Ask for every reply token's log-probability and this many most likely alternatives (for
	 * probability-weighted ratings, ./logprobs.ts); absent: none asked.
	 */
	topLogprobs?: number;
	signal?: AbortSignal;
}

/** One reply token's log-probability and its most likely alternatives. */
export interface TokenLogprob {
	token: string;
	logprob: number;
	top: { token: string; logprob: number }[];
}

/** What came back from one chat call. */
export interface ChatResult {
	content: string;
	/** Model that actually answered, as reported by the server. */
	model: string;
	usage: Usage | null;
	finishReason: string | null;
	/** Set when the model declined (OpenAI `message.refusal`). */
	refusal?: string | null;
	headers?: Record<string, string>;
	/** The reply's tokens with their log-probabilities, when the server sent them. */
	logprobs?: TokenLogprob[] | null;
}

/** A chat request without its messages and signal: what a call sends besides the conversation. */
export type RequestSettings = Omit<ChatRequest, 'messages' | 'signal'>;

/** Anything that can answer one chat call; errors are thrown as `ModelCallError`. */
export interface ModelSource {
	/** Governor key of a call with the default model: endpoint + model, never the API key. */
	readonly key: string;
	/**
	 * The governor key of a call that names `model` (an override on the node): endpoint + the model
	 * actually called. Absent: the source calls one model whatever is asked (a Chat Model sub-node).
	 */
	keyFor?(model?: string): string;
	readonly defaultModel: string;
	/** Whether the source accepts `json_schema`/`json_object` modes at all. */
	readonly supportsResponseFormat: boolean;
	/**
	 * The provider and endpoint calls go to, without the model and never the API key: the verdict
	 * cache key's endpoint part. Absent: `key`.
	 */
	readonly endpoint?: string;
	/**
	 * What `chat(request)` sends besides the messages: the model it calls and every setting that
	 * reaches the server, as sent (for a Chat Model sub-node, its own settings: the request's
	 * temperature, seed and max tokens are not sent). Never the API key. Absent: the request's
	 * model, temperature, seed and max tokens are taken as sent.
	 */
	sentSettings?(request: RequestSettings): Record<string, unknown>;
	/**
	 * The `key` values under which the verdict cache's first key format stored a call naming
	 * `model` and still means that same request (./cache.ts reads them on a miss). Absent: none
	 * do.
	 */
	earlierCacheKeys?(model?: string): string[];
	chat(request: ChatRequest): Promise<ChatResult>;
}

/** Settings of the "RAG Eval LLM API" credential plus the model chosen on the node. */
export interface LlmConfig {
	provider: 'openai' | 'azure' | 'compatible';
	/** Optional for local OpenAI-compatible servers (Ollama, vLLM, LM Studio, llama.cpp). */
	apiKey?: string;
	baseUrl?: string;
	azureEndpoint?: string;
	azureDeployment?: string;
	apiVersion?: string;
	model: string;
	organization?: string;
	/** Hard ceiling for one HTTP call inside the SDK; the governor's timeout usually fires first. */
	timeoutMs?: number;
}

const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/** The SDK client of a credential: no SDK retries (the governor owns them), our transport. */
export function makeClient(config: LlmConfig): OpenAI {
	// The governor owns retries, so the SDK must surface every 429/5xx to it.
	const common = {
		maxRetries: 0,
		timeout: config.timeoutMs ?? 600_000,
		// The SDK builds and reads every request; ./transport moves the bytes (keep-alive node:http).
		fetch: judgeFetch,
	};
	if (config.provider === 'azure') {
		return new AzureOpenAI({
			...common,
			apiKey: config.apiKey ?? '',
			endpoint: config.azureEndpoint ?? config.baseUrl,
			deployment: config.azureDeployment,
			apiVersion: config.apiVersion ?? DEFAULT_AZURE_API_VERSION,
		});
	}
	return new OpenAI({
		...common,
		// Local servers accept any key, but the SDK refuses to start without one.
		apiKey: config.apiKey && config.apiKey !== '' ? config.apiKey : 'not-needed',
		baseURL: config.baseUrl && config.baseUrl !== '' ? config.baseUrl : undefined,
		organization: config.organization && config.organization !== '' ? config.organization : null,
	});
}

/** Provider and endpoint of a credential, never the key: the first part of governor and cache keys. */
export function endpointOf(config: LlmConfig): string {
	if (config.provider === 'azure') {
		return `azure:${config.azureEndpoint ?? config.baseUrl ?? ''}/${config.azureDeployment ?? ''}`;
	}
	return `${config.provider}:${config.baseUrl ?? 'https://api.openai.com/v1'}`;
}

/** Response headers as a lower-case record (the governor reads rate-limit headers). */
export function headersToRecord(headers: Headers | undefined): Record<string, string> {
	const out: Record<string, string> = {};
	headers?.forEach((value, name) => {
		out[name.toLowerCase()] = value;
	});
	return out;
}

function mapUsage(
	u:
		| { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }
		| undefined
		| null,
): Usage | null {
	if (!u) return null;
	const promptTokens = u.prompt_tokens ?? 0;
	const completionTokens = u.completion_tokens ?? 0;
	return {
		promptTokens,
		completionTokens,
		totalTokens: u.total_tokens ?? promptTokens + completionTokens,
	};
}

const RESPONSE_FORMAT_HINT = /response_format|json_schema|json_object|structured output|schema/i;

/** Classifies an HTTP status + body into a retry decision with a readable message. */
export function classifyStatus(
	status: number,
	detail: string,
	opts: { code?: string | null; type?: string | null; retryAfterMs?: number } = {},
): ModelCallError {
	const text = detail.trim() === '' ? `status ${status}` : detail.trim();
	// The provider's message as the first sentence of ours (it may already end with a period).
	const said = text.replace(/\.+$/, '');
	const quota =
		opts.code === 'insufficient_quota' ||
		opts.type === 'insufficient_quota' ||
		/insufficient_quota/i.test(text);
	if (quota) {
		return new ModelCallError(
			'fatal',
			`the judge model's quota is exhausted (insufficient_quota): ${said}. Add credit or use another credential.`,
			{ status },
		);
	}
	if (status === 429)
		return new ModelCallError('rate_limit', `rate limited (429): ${text}`, {
			status,
			retryAfterMs: opts.retryAfterMs,
		});
	if (status === 401)
		return new ModelCallError(
			'fatal',
			`authentication failed (401): ${said}. Check the API key of the judge credential.`,
			{ status },
		);
	if (status === 403)
		return new ModelCallError(
			'fatal',
			`permission denied (403): ${said}. The credential may not have access to this model.`,
			{ status },
		);
	if (status === 404)
		return new ModelCallError(
			'fatal',
			`not found (404): ${said}. Check the base URL, deployment and model name.`,
			{ status },
		);
	if (status === 400 || status === 422) {
		if (RESPONSE_FORMAT_HINT.test(text))
			return new ModelCallError(
				'response_format_unsupported',
				`the endpoint rejected the response format (${status}): ${text}`,
				{ status },
			);
		return new ModelCallError(
			'bad_request',
			`the judge model rejected the request (${status}): ${text}`,
			{ status },
		);
	}
	if (status === 408 || status === 409 || status >= 500)
		return new ModelCallError('server', `server error (${status}): ${text}`, {
			status,
			retryAfterMs: opts.retryAfterMs,
		});
	return new ModelCallError('bad_request', `unexpected status ${status}: ${text}`, { status });
}

/** Maps anything the SDK throws to a `ModelCallError` whose message holds no secret. */
export function toModelError(
	err: unknown,
	secrets: ReadonlyArray<string | undefined> = [],
): ModelCallError {
	if (err instanceof ModelCallError) return err;
	if (err instanceof APIUserAbortError)
		return new ModelCallError('aborted', 'the call was cancelled');
	if (err instanceof APIConnectionTimeoutError)
		return new ModelCallError('timeout', 'the judge model did not answer in time');
	if (err instanceof APIConnectionError) return connectionError(err, secrets);
	// The SDK parses the body itself: a reply cut off mid-body surfaces as a bare SyntaxError.
	// (By name: a SyntaxError from another realm, e.g. a test VM, is not `instanceof` this one's.)
	const named = err as { name?: unknown; message?: unknown } | null;
	if (typeof named === 'object' && named?.name === 'SyntaxError') {
		return new ModelCallError(
			'server',
			redact(
				`the judge model's HTTP reply is not valid JSON (cut off?): ${String(named.message)}`,
				secrets,
			),
		);
	}
	if (err instanceof APIError && typeof err.status === 'number') {
		const headers = err.headers as Headers | undefined;
		const retryAfterMs = retryAfterFromHeaders((n) => headers?.get(n));
		const body = err.error as { message?: unknown } | undefined;
		const detail = typeof body?.message === 'string' ? body.message : err.message;
		return classifyStatus(err.status, redact(detail, secrets), {
			code: err.code,
			type: err.type,
			retryAfterMs,
		});
	}
	return genericError(err, secrets);
}

function genericError(err: unknown, secrets: ReadonlyArray<string | undefined>): ModelCallError {
	const e = err as {
		name?: unknown;
		message?: unknown;
		status?: unknown;
		code?: unknown;
		response?: { status?: unknown };
	};
	const message = redact(typeof e?.message === 'string' ? e.message : String(err), secrets);
	if (e?.name === 'AbortError') return new ModelCallError('aborted', 'the call was cancelled');
	const status =
		typeof e?.status === 'number'
			? e.status
			: typeof e?.response?.status === 'number'
				? e.response.status
				: undefined;
	if (status !== undefined)
		return classifyStatus(status, message, {
			code: typeof e.code === 'string' ? e.code : undefined,
		});
	if (
		e?.code === 'ECONNRESET' ||
		/ECONNRESET|socket hang up|fetch failed|ECONNREFUSED/i.test(message)
	)
		return connectionError(err, secrets);
	if (/timed? ?out|ETIMEDOUT/i.test(message))
		return new ModelCallError('timeout', `the judge model did not answer in time: ${message}`);
	if (/rate.?limit|\b429\b/i.test(message))
		return new ModelCallError('rate_limit', `rate limited: ${message}`);
	if (/insufficient_quota/i.test(message)) return classifyStatus(429, message);
	return new ModelCallError('bad_request', `the judge model call failed: ${message}`);
}

/** The adaptive-concurrency ceiling of hosted OpenAI and Azure OpenAI endpoints by default. */
export const PROVIDER_MAX_CONCURRENCY = 64;

/**
 * The default ceiling of calls in flight for a governor key, or undefined to keep the node's
 * Concurrency fixed. OpenAI and Azure OpenAI state their limits as requests and tokens per minute,
 * answer 429 with Retry-After past them, and OpenAI says in every reply how much budget is left:
 * adaptive concurrency follows both, so they may rise to {@link PROVIDER_MAX_CONCURRENCY}. Other
 * OpenAI-compatible servers (Ollama, vLLM, LM Studio) are often one machine that queues what it
 * cannot serve, and a Chat Model sub-node's endpoint is unknown: they stay where they start.
 */
export function providerMaxConcurrency(key: string): number | undefined {
	return /^(openai|azure|openai_moderation:(openai|azure)):/.test(key)
		? PROVIDER_MAX_CONCURRENCY
		: undefined;
}

/**
 * The chat completion body of `req` (the SDK sends it as it is): the one place a call's settings
 * are chosen, for the call and for what the verdict cache keys it by.
 */
function completionParams(
	config: LlmConfig,
	req: RequestSettings,
	messages: ChatMessage[],
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
	const params: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
		model: req.model ?? config.model,
		messages,
		temperature: req.temperature,
	};
	if (req.seed !== undefined) params.seed = req.seed;
	if (req.maxTokens !== undefined) params.max_tokens = req.maxTokens;
	if (req.topLogprobs !== undefined && req.topLogprobs > 0) {
		params.logprobs = true;
		params.top_logprobs = req.topLogprobs;
	}
	if (req.mode === 'json_schema' && req.jsonSchema) {
		params.response_format = {
			type: 'json_schema',
			json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: true },
		};
	} else if (req.mode === 'json_object') {
		params.response_format = { type: 'json_object' };
	}
	return params;
}

/** A `ModelSource` backed by the `openai` SDK (OpenAI, Azure OpenAI, compatible servers). */
export function createOpenAIModelSource(config: LlmConfig): ModelSource {
	const client = makeClient(config);
	const secrets = [config.apiKey];
	const endpoint = endpointOf(config);
	// Azure OpenAI with a deployment calls that deployment whatever model the request names.
	const keyFor = (model?: string): string =>
		`${endpoint}|${config.provider === 'azure' ? (config.azureDeployment ?? model ?? config.model) : (model ?? config.model)}`;
	return {
		key: keyFor(),
		keyFor,
		defaultModel: config.model,
		supportsResponseFormat: true,
		// The Azure deployment is in the endpoint (the URL path); the body says the rest.
		endpoint,
		sentSettings(req: RequestSettings): Record<string, unknown> {
			const sent: Record<string, unknown> = { ...completionParams(config, req, []) };
			delete sent.messages;
			return sent;
		},
		earlierCacheKeys(model?: string): string[] {
			// The first key format held the source key of its day: the endpoint and the credential's
			// default model (Azure: the deployment, if any) beside the model called. The default model
			// is never sent, so a verdict stored under any default answers the same request; the ones
			// that can be named here are a default that was the model called, and this credential's.
			const old = (defaultModel: string) =>
				`${endpoint}|${config.provider === 'azure' ? (config.azureDeployment ?? defaultModel) : defaultModel}`;
			return [...new Set([old(model ?? config.model), old(config.model)])];
		},
		async chat(req: ChatRequest): Promise<ChatResult> {
			const params = completionParams(config, req, req.messages);
			try {
				const { data, response } = await client.chat.completions
					.create(params, { signal: req.signal })
					.withResponse();
				const choice = data.choices?.[0];
				return {
					content: choice?.message?.content ?? '',
					refusal: choice?.message?.refusal ?? null,
					model: data.model ?? params.model,
					usage: mapUsage(data.usage),
					finishReason: choice?.finish_reason ?? null,
					headers: headersToRecord(response.headers),
					logprobs: tokenLogprobs(choice?.logprobs),
				};
			} catch (err) {
				throw toModelError(err, secrets);
			}
		},
	};
}

/**
 * A reply's token log-probabilities in the shape OpenAI sends them (`{content: [{token, logprob,
 * top_logprobs}]}`, which LangChain's OpenAI models keep in `response_metadata.logprobs`), or
 * null when absent or malformed.
 */
export function tokenLogprobs(raw: unknown): TokenLogprob[] | null {
	const content = asRecord(raw).content;
	if (!Array.isArray(content) || content.length === 0) return null;
	const out: TokenLogprob[] = [];
	for (const t of content) {
		const r = asRecord(t);
		if (typeof r.token !== 'string' || typeof r.logprob !== 'number') return null;
		const top = Array.isArray(r.top_logprobs) ? r.top_logprobs : [];
		out.push({
			token: r.token,
			logprob: r.logprob,
			top: top
				.map(asRecord)
				.filter((a) => typeof a.token === 'string' && typeof a.logprob === 'number')
				.map((a) => ({ token: a.token as string, logprob: a.logprob as number })),
		});
	}
	return out;
}

/**
 * The governor key of a call to `source` naming `model`: the endpoint and the model actually called,
 * so the breaker, the adaptive concurrency and fatal errors of one model never touch another model
 * on the same credential.
 */
export function callKey(source: Pick<ModelSource, 'key' | 'keyFor'>, model?: string): string {
	return source.keyFor ? source.keyFor(model) : source.key;
}

/** Minimal shape of a LangChain-style chat model (n8n's Chat Model sub-nodes). */
interface DuckChatModel {
	invoke(input: unknown, options?: unknown): Promise<unknown>;
	withStructuredOutput?: (
		schema: unknown,
		config?: unknown,
	) => { invoke(input: unknown, options?: unknown): Promise<unknown> };
	model?: unknown;
	modelName?: unknown;
	model_name?: unknown;
}

function isDuckChatModel(m: unknown): m is DuckChatModel {
	return (
		typeof m === 'object' && m !== null && typeof (m as { invoke?: unknown }).invoke === 'function'
	);
}

function asRecord(v: unknown): Record<string, unknown> {
	return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

function num(v: unknown): number | undefined {
	return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Text of a LangChain message content: a string or an array of parts with `text`. */
function contentText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return content
			.map((p) =>
				typeof p === 'string'
					? p
					: typeof asRecord(p).text === 'string'
						? (asRecord(p).text as string)
						: '',
			)
			.join('');
	}
	return '';
}

function usageOfMessage(msg: Record<string, unknown>): Usage | null {
	const um = asRecord(msg.usage_metadata);
	const inT = num(um.input_tokens);
	const outT = num(um.output_tokens);
	if (inT !== undefined || outT !== undefined) {
		const p = inT ?? 0;
		const c = outT ?? 0;
		return { promptTokens: p, completionTokens: c, totalTokens: num(um.total_tokens) ?? p + c };
	}
	const rm = asRecord(msg.response_metadata);
	const tu = asRecord(rm.tokenUsage ?? rm.token_usage ?? rm.usage);
	const p = num(tu.promptTokens) ?? num(tu.prompt_tokens) ?? num(tu.input_tokens);
	const c = num(tu.completionTokens) ?? num(tu.completion_tokens) ?? num(tu.output_tokens);
	if (p === undefined && c === undefined) return null;
	return {
		promptTokens: p ?? 0,
		completionTokens: c ?? 0,
		totalTokens: num(tu.totalTokens) ?? num(tu.total_tokens) ?? (p ?? 0) + (c ?? 0),
	};
}

function modelOfMessage(msg: Record<string, unknown>): string | undefined {
	const rm = asRecord(msg.response_metadata);
	for (const v of [rm.model_name, rm.model, rm.modelName])
		if (typeof v === 'string' && v !== '') return v;
	return undefined;
}

function finishOfMessage(msg: Record<string, unknown>): string | null {
	const rm = asRecord(msg.response_metadata);
	for (const v of [rm.finish_reason, rm.stop_reason, rm.finishReason])
		if (typeof v === 'string') return v;
	return null;
}

const ROLE_MAP: Record<ChatMessage['role'], string> = {
	system: 'system',
	user: 'human',
	assistant: 'ai',
};

/**
 * Where a LangChain chat model sends its calls, as far as its public fields tell (OpenAI-compatible
 * `clientConfig.baseURL`, Azure OpenAI's endpoint, instance and deployment, Anthropic's `apiUrl`,
 * Ollama's `baseUrl`, and the like): scheme, host and path only, never user info or a query (where
 * a key could sit). Empty when the model uses its provider's default endpoint.
 */
export function chatModelEndpoint(model: unknown): string {
	const m = asRecord(model);
	const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
	const url = (v: unknown) => {
		const s = str(v);
		if (!s) return undefined;
		try {
			const u = new URL(s);
			return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
		} catch {
			return undefined;
		}
	};
	const azure = [
		url(m.azureOpenAIEndpoint) ?? url(m.azureOpenAIBasePath),
		str(m.azureOpenAIApiInstanceName),
		str(m.azureOpenAIApiDeploymentName),
	].filter((v): v is string => v !== undefined);
	if (azure.length) return `azure:${azure.join('/')}`;
	return (
		url(asRecord(m.clientConfig).baseURL) ??
		url(asRecord(m.clientOptions).baseURL) ??
		url(m.apiUrl) ??
		url(m.baseUrl) ??
		url(m.baseURL) ??
		url(m.endpoint) ??
		''
	);
}

/**
 * The fields through which the LangChain chat model classes n8n's Chat Model sub-nodes build
 * (OpenAI and the servers that speak its API, Azure OpenAI, Anthropic, Google Gemini and Vertex,
 * Ollama, Mistral, Groq, Bedrock, Cohere and the like) put a setting into the request: sampling,
 * length, stop, seed, output format, tools, reasoning and the provider's extra request fields.
 * Client settings that never reach the body (timeout, retries, callbacks, the key) are not here.
 */
const CHAT_MODEL_SETTING_FIELDS = [
	'temperature',
	'topP',
	'topK',
	'minP',
	'typicalP',
	'tfsZ',
	'maxTokens',
	'maxCompletionTokens',
	'maxOutputTokens',
	'maxTokensToSample',
	'numPredict',
	'numCtx',
	'seed',
	'randomSeed',
	'frequencyPenalty',
	'presencePenalty',
	'repeatPenalty',
	'repetitionPenalty',
	'repeatLastN',
	'penalizeNewline',
	'mirostat',
	'mirostatEta',
	'mirostatTau',
	'stop',
	'stopSequences',
	'n',
	'logitBias',
	'logprobs',
	'topLogprobs',
	'responseFormat',
	'format',
	'json',
	'responseMimeType',
	'responseSchema',
	'tools',
	'toolChoice',
	'reasoning',
	'reasoningEffort',
	'thinking',
	'think',
	'thinkingBudget',
	'verbosity',
	'safetySettings',
	'safeMode',
	'safePrompt',
	'streaming',
	'keepAlive',
	'user',
	'modelKwargs',
	'invocationKwargs',
	'additionalModelRequestFields',
] as const;

// Names under which a secret may sit in a setting object (a header, a token); never keyed.
const SECRET_NAME =
	/api.?key|secret|password|passwd|authori[sz]ation|bearer|credential|access.?token|auth.?token|^token$|^key$/i;

/**
 * A setting as plain data: functions, symbols and secrets' names dropped, class instances read by
 * their own fields, cycles and depth past 8 cut, so that the same settings always give the same
 * text and nothing the model object holds besides them can reach a cache key.
 */
function plainSetting(v: unknown, seen: Set<object> = new Set(), depth = 0): unknown {
	if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
	if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
	if (typeof v === 'bigint') return v.toString();
	if (typeof v !== 'object') return undefined;
	if (seen.has(v) || depth >= 8) return '[cut]';
	seen.add(v);
	try {
		if (Array.isArray(v)) return v.map((x) => plainSetting(x, seen, depth + 1) ?? null);
		const out: Record<string, unknown> = {};
		for (const [k, x] of Object.entries(v)) {
			if (SECRET_NAME.test(k)) continue;
			const p = plainSetting(x, seen, depth + 1);
			if (p !== undefined) out[k] = p;
		}
		return out;
	} finally {
		seen.delete(v);
	}
}

/**
 * What a LangChain chat model puts in its requests besides the messages: its setting fields
 * ({@link CHAT_MODEL_SETTING_FIELDS}) and, where the class has one, what its `invocationParams()`
 * returns (the request parameters LangChain itself builds each call from, and keys its own cache
 * by). Plain data, without any API key.
 */
export function chatModelSettings(model: unknown): Record<string, unknown> {
	const m = asRecord(model);
	const fields: Record<string, unknown> = {};
	for (const name of CHAT_MODEL_SETTING_FIELDS) {
		const v = plainSetting(m[name]);
		if (v !== undefined && v !== null) fields[name] = v;
	}
	const out: Record<string, unknown> = { fields };
	if (typeof m.invocationParams === 'function') {
		try {
			const params = (m.invocationParams as (options: unknown) => unknown).call(model, {});
			if (typeof params === 'object' && params !== null)
				out.invocationParams = plainSetting(params);
		} catch {
			// A class whose parameters need call options: its fields above still say what it sends.
		}
	}
	return out;
}

/**
 * Wraps a connected chat model (anything with `invoke(messages)`). Structured output goes
 * through the model's own `withStructuredOutput` when present; otherwise JSON is requested in
 * the prompt and parsed by the runner's fallback ladder.
 */
export function createChatModelSource(model: unknown): ModelSource {
	if (!isDuckChatModel(model)) {
		throw new Error(
			'The connected chat model has no invoke() method; connect an n8n Chat Model sub-node.',
		);
	}
	const name =
		[model.model, model.modelName, model.model_name].find(
			(v): v is string => typeof v === 'string' && v !== '',
		) ?? 'chat-model';
	const ctor = (model as { constructor?: { name?: unknown } }).constructor?.name;
	const endpoint = chatModelEndpoint(model);
	const structuredOutput = typeof model.withStructuredOutput === 'function';
	return {
		// The endpoint keeps two Chat Model nodes of one class and model name on different servers
		// apart (in the verdict cache, and in the governor's per-source state).
		key: `chat-model:${typeof ctor === 'string' ? ctor : 'unknown'}|${name}${endpoint ? `@${endpoint}` : ''}`,
		defaultModel: name,
		supportsResponseFormat: typeof model.withStructuredOutput === 'function',
		endpoint: `chat-model:${typeof ctor === 'string' ? ctor : 'unknown'}${endpoint ? `@${endpoint}` : ''}`,
		// The sub-node calls its own model with its own settings: the request's model, temperature,
		// seed and max tokens never reach it. What does is the structured-output schema, if used.
		sentSettings(req: RequestSettings): Record<string, unknown> {
			const structured = req.mode !== 'text' && req.jsonSchema && structuredOutput;
			return {
				model: name,
				structuredOutput: structured
					? { name: req.jsonSchema?.name, schema: req.jsonSchema?.schema }
					: null,
				...chatModelSettings(model),
			};
		},
		async chat(req: ChatRequest): Promise<ChatResult> {
			// LangChain's tuple form is the message shape every chat model version accepts.
			const messages = req.messages.map((m) => [ROLE_MAP[m.role], m.content]);
			const options = req.signal ? { signal: req.signal } : undefined;
			try {
				if (
					req.mode !== 'text' &&
					req.jsonSchema &&
					typeof model.withStructuredOutput === 'function'
				) {
					const structured = model.withStructuredOutput(req.jsonSchema.schema, {
						name: req.jsonSchema.name,
						includeRaw: true,
					});
					const out = asRecord(await structured.invoke(messages, options));
					const raw = asRecord(out.raw);
					const parsed =
						out.parsed !== undefined && out.parsed !== null
							? out.parsed
							: 'raw' in out
								? null
								: out;
					const content = parsed !== null ? JSON.stringify(parsed) : contentText(raw.content);
					return {
						content,
						model: modelOfMessage(raw) ?? name,
						usage: usageOfMessage(raw),
						finishReason: finishOfMessage(raw),
						logprobs: tokenLogprobs(asRecord(raw.response_metadata).logprobs),
					};
				}
				const msg = asRecord(await model.invoke(messages, options));
				return {
					content: contentText(msg.content),
					model: modelOfMessage(msg) ?? name,
					usage: usageOfMessage(msg),
					finishReason: finishOfMessage(msg),
					logprobs: tokenLogprobs(asRecord(msg.response_metadata).logprobs),
				};
			} catch (err) {
				const e = toModelError(err);
				// A model that cannot do structured output for this schema may still answer in text.
				if (req.mode !== 'text' && e.kind === 'bad_request') {
					throw new ModelCallError('response_format_unsupported', e.message, { status: e.status });
				}
				throw e;
			}
		},
	};
}

/** Result of the credential test. */
export interface ConnectionTestResult {
	ok: boolean;
	message: string;
}

/**
 * Checks a credential against its server: the models list, or a one-token completion where the
 * list is not served (Azure deployments, some local servers). Messages never contain the key.
 */
export async function testConnection(config: LlmConfig): Promise<ConnectionTestResult> {
	const client = makeClient({ ...config, timeoutMs: config.timeoutMs ?? 15_000 });
	const secrets = [config.apiKey];
	if (config.provider !== 'azure') {
		try {
			const page = await client.models.list();
			const ids = page.data.map((m) => m.id);
			const hasModel = config.model === '' || ids.length === 0 || ids.includes(config.model);
			if (!hasModel) {
				return {
					ok: false,
					message: `Connected, but model "${config.model}" is not among the ${ids.length} models the server lists (e.g. ${ids.slice(0, 5).join(', ')}).`,
				};
			}
			return { ok: true, message: `Connected: the server lists ${ids.length} model(s).` };
		} catch (err) {
			const e = toModelError(err, secrets);
			if (e.kind === 'fatal' && e.status !== 404)
				return { ok: false, message: redact(e.message, secrets) };
			if (e.kind === 'connection' || e.kind === 'timeout')
				return { ok: false, message: redact(e.message, secrets) };
			// 404/405/5xx on /models: some servers do not serve the list; try a tiny completion.
		}
	}
	try {
		await client.chat.completions.create({
			model: config.model,
			messages: [{ role: 'user', content: 'ping' }],
			max_tokens: 1,
		});
		return { ok: true, message: `Connected: model "${config.model}" answered.` };
	} catch (err) {
		return { ok: false, message: redact(toModelError(err, secrets).message, secrets) };
	}
}
