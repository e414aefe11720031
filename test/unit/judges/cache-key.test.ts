/**
 * The verdict cache key is the request as it leaves (issue 43). Property: for the credential path
 * (createOpenAIModelSource) and the Chat Model path (a duck-typed LangChain-style model whose
 * invoke() posts through the openai SDK), each setting is changed one at a time, and across every
 * pair of runs the key differs exactly when the request the local server received differs
 * (endpoint, path and body, the per-call nonce masked). Then the cases through a real disk
 * cache, and verdicts stored under the first key format.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import {
	canonicalJson,
	diskBackend,
	VerdictCache,
	type CacheBackend,
	type CacheInfo,
} from '../../../src/judges/cache';
import { Governor } from '../../../src/judges/governor';
import {
	chatModelSettings,
	createChatModelSource,
	createOpenAIModelSource,
	type LlmConfig,
	type ModelSource,
} from '../../../src/judges/model';
import { runJudge, type JudgeContext } from '../../../src/judges/run';
import { factCheck } from '../../../src/judges/specs/factCheck';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { coherence } from '../../../src/judges/specs/quality';
import type { JudgeDecl } from '../../../src/judges/types';
import type { Score } from '../../../src/core/types';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../../support/openai-server';

const row = {
	request: 'When was the bridge opened?',
	response: 'It opened in 1932.',
	retrieved_context: [{ doc_uri: 'kb/bridge.md', content: 'The bridge opened in 1932.' }],
};
const factRow = { request: 'Doc: the bridge opened in 1932.', response: 'It opened in 1932.' };
const minicheck = { params: { factCheckMode: 'minicheck' } };

/** Replies for every judge here: a bare call (one user message) gets a word, others JSON. */
function answer(req: RecordedRequest) {
	if ((req.messages?.length ?? 0) === 1) return { content: 'Yes' };
	return { json: { reason: 'The context states it.', score: 5 } };
}

/** A cache that remembers the key each verdict is stored under and answers every lookup "miss". */
function recordingCache(): { cache: VerdictCache; stored: string[] } {
	const stored: string[] = [];
	const backend: CacheBackend = {
		kind: 'disk',
		location: 'memory',
		get: async () => null,
		set: async (key) => {
			stored.push(key);
		},
		remove: async () => undefined,
		close: async () => undefined,
	};
	return { cache: new VerdictCache(backend, 0), stored };
}

const ROLES: Record<string, 'system' | 'user' | 'assistant'> = {
	system: 'system',
	human: 'user',
	ai: 'assistant',
};
const toOpenAI = (messages: unknown) =>
	(messages as [string, string][]).map(([role, content]) => ({ role: ROLES[role], content }));

function lcMessage(r: OpenAI.Chat.ChatCompletion) {
	return {
		content: r.choices[0]?.message?.content ?? '',
		response_metadata: { model_name: r.model, finish_reason: r.choices[0]?.finish_reason },
		usage_metadata: {
			input_tokens: r.usage?.prompt_tokens ?? 0,
			output_tokens: r.usage?.completion_tokens ?? 0,
			total_tokens: r.usage?.total_tokens ?? 0,
		},
	};
}

interface OpenAIChatFields {
	model: string;
	temperature?: number;
	topP?: number;
	maxTokens?: number;
	seed?: number;
	frequencyPenalty?: number;
	presencePenalty?: number;
	stop?: string[];
	modelKwargs?: Record<string, unknown>;
	serviceTier?: string;
	timeout?: number;
	maxRetries?: number;
	apiKey: string;
	baseURL: string;
}

/**
 * Shaped like LangChain's ChatOpenAI as n8n's OpenAI Chat Model builds it: setting fields,
 * `clientConfig` with the key and base URL, `invocationParams()` giving the request parameters,
 * `withStructuredOutput` sending a strict JSON schema. Posts through the openai SDK.
 */
class ChatOpenAI {
	model: string;
	temperature?: number;
	topP?: number;
	maxTokens?: number;
	seed?: number;
	frequencyPenalty?: number;
	presencePenalty?: number;
	stop?: string[];
	modelKwargs?: Record<string, unknown>;
	/** A setting no field list names (only `invocationParams()` tells it is sent). */
	serviceTier?: string;
	timeout?: number;
	maxRetries?: number;
	streaming = false;
	callbacks = [{ handleLLMStart: () => undefined }];
	clientConfig: { apiKey: string; baseURL: string };
	constructor(f: OpenAIChatFields) {
		this.model = f.model;
		this.temperature = f.temperature;
		this.topP = f.topP;
		this.maxTokens = f.maxTokens;
		this.seed = f.seed;
		this.frequencyPenalty = f.frequencyPenalty;
		this.presencePenalty = f.presencePenalty;
		this.stop = f.stop;
		this.modelKwargs = f.modelKwargs;
		this.serviceTier = f.serviceTier;
		this.timeout = f.timeout;
		this.maxRetries = f.maxRetries;
		this.clientConfig = { apiKey: f.apiKey, baseURL: f.baseURL };
	}
	/** As LangChain's: call options first, the model's `modelKwargs` over them. */
	invocationParams(options?: { response_format?: unknown }): Record<string, unknown> {
		return {
			model: this.model,
			temperature: this.temperature,
			top_p: this.topP,
			max_tokens: this.maxTokens === -1 ? undefined : this.maxTokens,
			seed: this.seed,
			frequency_penalty: this.frequencyPenalty,
			presence_penalty: this.presencePenalty,
			stop: this.stop,
			stream: this.streaming,
			service_tier: this.serviceTier,
			response_format: options?.response_format,
			...(this.modelKwargs ?? {}),
		};
	}
	private async post(
		messages: unknown,
		callOptions: { response_format?: unknown },
		options?: unknown,
	) {
		const client = new OpenAI({
			apiKey: this.clientConfig.apiKey,
			baseURL: this.clientConfig.baseURL,
			maxRetries: 0,
			timeout: this.timeout,
		});
		const body = { ...this.invocationParams(callOptions), messages: toOpenAI(messages) };
		const r = await client.chat.completions.create(
			body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
			{ signal: (options as { signal?: AbortSignal } | undefined)?.signal },
		);
		return lcMessage(r);
	}
	invoke(messages: unknown, options?: unknown) {
		return this.post(messages, {}, options);
	}
	withStructuredOutput(schema: unknown, config?: { name?: string }) {
		return {
			invoke: async (messages: unknown, options?: unknown) => {
				const raw = await this.post(
					messages,
					{
						response_format: {
							type: 'json_schema',
							json_schema: { name: config?.name, schema, strict: true },
						},
					},
					options,
				);
				return { raw, parsed: JSON.parse(raw.content) as unknown };
			},
		};
	}
}

/** The same model without structured output: the judge asks for its format in the prompt. */
function withoutStructuredOutput<T extends object>(m: T): T {
	return Object.defineProperty(m, 'withStructuredOutput', { value: undefined });
}

interface OllamaFields {
	model: string;
	temperature?: number;
	topK?: number;
	topP?: number;
	numPredict?: number;
	seed?: number;
	format?: string;
	keepAlive?: string;
	baseUrl: string;
}

/**
 * Shaped like LangChain's ChatOllama, without `invocationParams`: the request is built from its
 * fields in Ollama's shape (`options`, `format`, `keep_alive`), so only the field reading can
 * see them. Posts through the openai SDK, which sends the body as given.
 */
class ChatOllama {
	model: string;
	temperature?: number;
	topK?: number;
	topP?: number;
	numPredict?: number;
	seed?: number;
	format?: string;
	keepAlive?: string;
	baseUrl: string;
	constructor(f: OllamaFields) {
		this.model = f.model;
		this.temperature = f.temperature;
		this.topK = f.topK;
		this.topP = f.topP;
		this.numPredict = f.numPredict;
		this.seed = f.seed;
		this.format = f.format;
		this.keepAlive = f.keepAlive;
		this.baseUrl = f.baseUrl;
	}
	async invoke(messages: unknown, options?: unknown) {
		const client = new OpenAI({ apiKey: 'ollama', baseURL: this.baseUrl, maxRetries: 0 });
		const body = {
			model: this.model,
			messages: toOpenAI(messages),
			options: {
				temperature: this.temperature,
				top_k: this.topK,
				top_p: this.topP,
				num_predict: this.numPredict,
				seed: this.seed,
			},
			format: this.format,
			keep_alive: this.keepAlive,
		};
		const r = await client.chat.completions.create(
			body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
			{ signal: (options as { signal?: AbortSignal } | undefined)?.signal },
		);
		return lcMessage(r);
	}
}

/** One run of a property: what the server received (nonce masked) and the key stored under. */
interface Observed {
	name: string;
	request: string;
	key: string;
}

describe('the verdict cache key is the request as it leaves (issue 43)', () => {
	let a: OpenAIServer;
	let b: OpenAIServer;
	const servers = () => [
		{ label: 'server A', s: a },
		{ label: 'server B', s: b },
	];
	beforeAll(async () => {
		a = await startOpenAIServer();
		b = await startOpenAIServer();
		for (const s of [a, b]) s.setDefault(answer);
	});
	afterAll(async () => {
		for (const s of [a, b]) {
			s.assertNoUnexpected();
			await s.close();
		}
	});

	/** The chat requests so far on both servers, by server. */
	const counts = () => servers().map(({ s }) => s.chatRequests().length);

	/** The one request a run sent, as text: which server, path, body (nonce masked, keys sorted). */
	function sentSince(before: number[]): string {
		const sent: string[] = [];
		servers().forEach(({ label, s }, i) => {
			for (const r of s.chatRequests().slice(before[i])) {
				const masked = r.rawBody.replace(/data-[0-9a-f]{24}/g, 'data-NONCE');
				sent.push(`${label} ${r.path} ${canonicalJson(JSON.parse(masked))}`);
			}
		});
		expect(sent).toHaveLength(1);
		return sent[0];
	}

	async function observe(
		name: string,
		decl: JudgeDecl,
		inputs: Record<string, unknown>,
		ctx: Omit<JudgeContext, 'governor' | 'cache'>,
	): Promise<Observed> {
		const { cache, stored } = recordingCache();
		const before = counts();
		const s = await runJudge(decl, inputs, {
			...ctx,
			cache,
			governor: new Governor({ backoffBaseMs: 1, maxRetries: 0 }),
		});
		expect({ name, status: s.status, error: s.error }).toEqual({
			name,
			status: 'ok',
			error: undefined,
		});
		expect(stored).toHaveLength(1);
		return { name, request: sentSince(before), key: stored[0] };
	}

	/** Every pair whose keys agree where their requests differ, or differ where they agree. */
	function disagreements(runs: Observed[]): string[] {
		const out: string[] = [];
		for (let i = 0; i < runs.length; i++) {
			for (let j = i + 1; j < runs.length; j++) {
				const sameKey = runs[i].key === runs[j].key;
				const sameRequest = runs[i].request === runs[j].request;
				if (sameKey !== sameRequest) {
					out.push(
						`${runs[i].name} / ${runs[j].name}: ${sameRequest ? 'same request, different keys' : 'different requests, same key'}`,
					);
				}
			}
		}
		return out;
	}

	const distinct = (runs: Observed[]) => new Set(runs.map((r) => r.request)).size;
	const keyOf = (runs: Observed[], name: string) => runs.find((r) => r.name === name)?.key;

	describe('credential path (createOpenAIModelSource)', () => {
		const compat = (over: Partial<LlmConfig> = {}): LlmConfig => ({
			provider: 'compatible',
			baseUrl: a.baseUrl,
			apiKey: 'sk-key-one',
			model: 'judge-a',
			...over,
		});
		const azure = (over: Partial<LlmConfig> = {}): LlmConfig => ({
			provider: 'azure',
			azureEndpoint: a.url,
			azureDeployment: 'dep-1',
			apiKey: 'az-key-one',
			model: 'judge-a',
			...over,
		});
		type Variant = [string, LlmConfig, Partial<JudgeContext>];
		const variants = (): Variant[] => [
			['base', compat(), {}],
			['another API key', compat({ apiKey: 'sk-key-two' }), {}],
			['another timeout', compat({ timeoutMs: 120_000 }), {}],
			['an organization (a header)', compat({ organization: 'org-x' }), {}],
			['default model judge-b', compat({ model: 'judge-b' }), {}],
			['node model gpt-4o', compat(), { model: 'gpt-4o' }],
			['default judge-b, node model gpt-4o', compat({ model: 'judge-b' }), { model: 'gpt-4o' }],
			['node model = the default', compat(), { model: 'judge-a' }],
			['temperature 0.7', compat(), { temperature: 0.7 }],
			['temperature 0 said', compat(), { temperature: 0 }],
			['seed 7', compat(), { seed: 7 }],
			['max tokens 300', compat(), { maxTokens: 300 }],
			['threshold 4', compat(), { threshold: 4 }],
			['server B', compat({ baseUrl: b.baseUrl }), {}],
			['azure dep-1', azure(), {}],
			['azure dep-1, another key', azure({ apiKey: 'az-key-two' }), {}],
			['azure dep-1, another API version', azure({ apiVersion: '2025-01-01-preview' }), {}],
			['azure dep-2', azure({ azureDeployment: 'dep-2' }), {}],
			['azure dep-1, node model gpt-4o', azure(), { model: 'gpt-4o' }],
			['azure without deployment', azure({ azureDeployment: undefined }), {}],
			[
				'azure without deployment, node model gpt-4o',
				azure({ azureDeployment: undefined }),
				{ model: 'gpt-4o' },
			],
		];

		it('structured calls: the key changes exactly when the request changes, setting by setting', async () => {
			const runs: Observed[] = [];
			for (const [name, config, ctx] of variants()) {
				runs.push(
					await observe(name, groundedness, row, {
						source: createOpenAIModelSource(config),
						...ctx,
					}),
				);
			}
			expect(disagreements(runs)).toEqual([]);
			// The settings that are sent do change the request (the property is not vacuous).
			expect(distinct(runs)).toBe(12);
			// Issue 43: two credentials to one endpoint that differ only in their default model,
			// both with Model = gpt-4o, are one request and one key.
			expect(keyOf(runs, 'default judge-b, node model gpt-4o')).toBe(
				keyOf(runs, 'node model gpt-4o'),
			);
			expect(keyOf(runs, 'another API key')).toBe(keyOf(runs, 'base'));
			// Azure: the deployment is called whatever the body's model says, but the body says it.
			expect(keyOf(runs, 'azure dep-1, node model gpt-4o')).not.toBe(keyOf(runs, 'azure dep-1'));
		});

		it('bare (MiniCheck) calls: temperature and max tokens of the node are not sent, so not keyed', async () => {
			const runs: Observed[] = [];
			for (const [name, config, ctx] of variants()) {
				runs.push(
					await observe(name, factCheck, factRow, {
						source: createOpenAIModelSource(config),
						...ctx,
						...minicheck,
					}),
				);
			}
			expect(disagreements(runs)).toEqual([]);
			expect(distinct(runs)).toBe(10);
			expect(keyOf(runs, 'temperature 0.7')).toBe(keyOf(runs, 'base'));
			expect(keyOf(runs, 'max tokens 300')).toBe(keyOf(runs, 'base'));
			expect(keyOf(runs, 'seed 7')).not.toBe(keyOf(runs, 'base'));
		});
	});

	describe('Chat Model path (duck-typed LangChain model)', () => {
		const openai = (over: Partial<OpenAIChatFields> = {}) =>
			new ChatOpenAI({
				model: 'llama3',
				temperature: 0,
				maxTokens: 256,
				apiKey: 'sk-sub-node-key',
				baseURL: a.baseUrl,
				...over,
			});
		type Variant = [string, unknown, Partial<JudgeContext>];
		const variants = (): Variant[] => [
			['base', openai(), {}],
			['temperature 1.2', openai({ temperature: 1.2 }), {}],
			['max tokens 16', openai({ maxTokens: 16 }), {}],
			['temperature 1.2, max tokens 16', openai({ temperature: 1.2, maxTokens: 16 }), {}],
			['max tokens unset', openai({ maxTokens: undefined }), {}],
			['top p 0.5', openai({ topP: 0.5 }), {}],
			['seed 11', openai({ seed: 11 }), {}],
			['frequency penalty 0.3', openai({ frequencyPenalty: 0.3 }), {}],
			['presence penalty 0.4', openai({ presencePenalty: 0.4 }), {}],
			['stop', openai({ stop: ['\n\n'] }), {}],
			[
				'json response format',
				openai({ modelKwargs: { response_format: { type: 'json_object' } } }),
				{},
			],
			['reasoning effort', openai({ modelKwargs: { reasoning_effort: 'low' } }), {}],
			['service tier flex', openai({ serviceTier: 'flex' }), {}],
			['model llama3.1', openai({ model: 'llama3.1' }), {}],
			['server B', openai({ baseURL: b.baseUrl }), {}],
			['another API key', openai({ apiKey: 'sk-other-sub-node-key' }), {}],
			['another timeout and retries', openai({ timeout: 90_000, maxRetries: 5 }), {}],
			['without structured output', withoutStructuredOutput(openai()), {}],
			["judge node's temperature 0.9", openai(), { temperature: 0.9 }],
			["judge node's seed 5", openai(), { seed: 5 }],
			["judge node's max tokens 100", openai(), { maxTokens: 100 }],
			["judge node's model gpt-4o", openai(), { model: 'gpt-4o' }],
			['threshold 2', openai(), { threshold: 2 }],
		];

		it('structured calls: the key changes exactly when the request changes, setting by setting', async () => {
			const runs: Observed[] = [];
			for (const [name, model, ctx] of variants()) {
				runs.push(
					await observe(name, groundedness, row, { source: createChatModelSource(model), ...ctx }),
				);
			}
			expect(disagreements(runs)).toEqual([]);
			expect(distinct(runs)).toBe(16);
			// Issue 43: {llama3, temperature 0, max tokens 256} and {llama3, 1.2, 16} are two keys;
			// the judge node's Temperature is not sent on this path, so it is not in the key.
			expect(keyOf(runs, 'temperature 1.2, max tokens 16')).not.toBe(keyOf(runs, 'base'));
			expect(keyOf(runs, "judge node's temperature 0.9")).toBe(keyOf(runs, 'base'));
		});

		it('bare (MiniCheck) calls follow the sub-node too', async () => {
			const runs: Observed[] = [];
			for (const [name, model, ctx] of variants()) {
				runs.push(
					await observe(name, factCheck, factRow, {
						source: createChatModelSource(model),
						...ctx,
						...minicheck,
					}),
				);
			}
			expect(disagreements(runs)).toEqual([]);
			// Without structured output is the same bare call: a bare call never uses it.
			expect(distinct(runs)).toBe(15);
			expect(keyOf(runs, 'temperature 1.2')).not.toBe(keyOf(runs, 'base'));
			expect(keyOf(runs, "judge node's seed 5")).toBe(keyOf(runs, 'base'));
		});

		it('a model without invocationParams is keyed by its setting fields (Ollama-shaped body)', async () => {
			const ollama = (over: Partial<OllamaFields> = {}) =>
				new ChatOllama({
					model: 'llama3',
					temperature: 0,
					numPredict: 256,
					baseUrl: a.baseUrl,
					...over,
				});
			const cases: Variant[] = [
				['base', ollama(), {}],
				['temperature 1.2, num predict 16', ollama({ temperature: 1.2, numPredict: 16 }), {}],
				['num predict 16', ollama({ numPredict: 16 }), {}],
				['top k 20', ollama({ topK: 20 }), {}],
				['top p 0.9', ollama({ topP: 0.9 }), {}],
				['seed 3', ollama({ seed: 3 }), {}],
				['format json', ollama({ format: 'json' }), {}],
				['keep alive 10m', ollama({ keepAlive: '10m' }), {}],
				['server B', ollama({ baseUrl: b.baseUrl }), {}],
				["judge node's temperature 0.9 and seed 4", ollama(), { temperature: 0.9, seed: 4 }],
			];
			const runs: Observed[] = [];
			for (const [name, model, ctx] of cases) {
				runs.push(
					await observe(name, groundedness, row, { source: createChatModelSource(model), ...ctx }),
				);
			}
			expect(disagreements(runs)).toEqual([]);
			expect(distinct(runs)).toBe(9);
		});

		it('never holds the API key, wherever the model object keeps it', () => {
			const m = Object.assign(openai(), {
				modelKwargs: { headers: { Authorization: 'Bearer sk-in-kwargs' }, api_key: 'sk-kw' },
				openAIApiKey: 'sk-field',
			});
			const text = JSON.stringify(chatModelSettings(m));
			expect(text).toContain('"temperature":0');
			for (const secret of ['sk-sub-node-key', 'sk-in-kwargs', 'sk-kw', 'sk-field'])
				expect(text).not.toContain(secret);
			// A cycle or a function in a setting neither throws nor reaches the key.
			const cyclic: Record<string, unknown> = { a: 1, f: () => 1 };
			cyclic.self = cyclic;
			expect(chatModelSettings({ tools: [cyclic] })).toEqual({
				fields: { tools: [{ a: 1, self: '[cut]' }] },
			});
		});
	});
});

describe('the request a key is built from is the one the first call sends', () => {
	let server: OpenAIServer;
	beforeAll(async () => {
		server = await startOpenAIServer();
		server.setDefault(answer);
	});
	afterAll(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it.each([
		['structured', groundedness, row, {}],
		['bare', factCheck, factRow, minicheck],
	] as const)('%s calls', async (_kind, decl, inputs, extra) => {
		const real = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-a',
		});
		const keyed: unknown[] = [];
		const sent: unknown[] = [];
		const source: ModelSource = {
			...real,
			sentSettings(request) {
				keyed.push(request);
				return real.sentSettings!(request);
			},
			chat(request) {
				const { messages: _m, signal: _s, ...rest } = request;
				sent.push(rest);
				return real.chat(request);
			},
		};
		const { cache } = recordingCache();
		const s = await runJudge(decl, inputs, {
			source,
			governor: new Governor({ maxRetries: 0 }),
			cache,
			model: 'gpt-4o',
			temperature: 0.4,
			seed: 3,
			maxTokens: 200,
			...extra,
		});
		expect(s.status).toBe('ok');
		expect(keyed).toHaveLength(1);
		expect(sent).toHaveLength(1);
		// Field by field, undefined ones included: a setting the call gains must reach the key.
		expect(keyed[0]).toStrictEqual(sent[0]);
	});
});

/** A disk cache, a fake clock and a call counter on the local server. */
describe('the issue 43 cases through a disk cache, and verdicts of the first key format', () => {
	let server: OpenAIServer;
	let cache: VerdictCache;
	let dir: string;
	let clock: number;
	const TTL = 3_600_000;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(answer);
		dir = mkdtempSync(join(tmpdir(), 'verdict-key-'));
		clock = Date.UTC(2026, 0, 1);
		cache = new VerdictCache(diskBackend(dir), TTL, () => clock);
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await cache.close();
		await server.close();
	});
	const calls = async (
		decl: JudgeDecl,
		inputs: Record<string, unknown>,
		ctx: Omit<JudgeContext, 'governor' | 'cache'>,
	): Promise<{ calls: number; score: Score }> => {
		const before = server.chatRequests().length;
		const score = await runJudge(decl, inputs, {
			...ctx,
			cache,
			governor: new Governor({ backoffBaseMs: 1, maxRetries: 0 }),
		});
		expect(score.error).toBeUndefined();
		return { calls: server.chatRequests().length - before, score };
	};
	const chat = (temperature: number, maxTokens: number) =>
		new ChatOpenAI({
			model: 'llama3',
			temperature,
			maxTokens,
			apiKey: 'k',
			baseURL: server.baseUrl,
		});
	const credential = (model: string): ModelSource =>
		createOpenAIModelSource({ provider: 'compatible', baseUrl: server.baseUrl, model });

	it('a Chat Model with other settings misses; the judge node Temperature beside a Chat Model hits', async () => {
		expect(
			(await calls(groundedness, row, { source: createChatModelSource(chat(0, 256)) })).calls,
		).toBe(1);
		expect(
			(await calls(groundedness, row, { source: createChatModelSource(chat(0, 256)) })).calls,
		).toBe(0);
		expect(
			(await calls(groundedness, row, { source: createChatModelSource(chat(1.2, 16)) })).calls,
		).toBe(1);
		const nodeTemp = await calls(groundedness, row, {
			source: createChatModelSource(chat(0, 256)),
			temperature: 1.5,
		});
		expect(nodeTemp.calls).toBe(0);
		expect(nodeTemp.score.cached).toBe(true);
	});

	it('two credentials to one endpoint differing only in their default model, both Model = gpt-4o: one verdict', async () => {
		expect(
			(await calls(groundedness, row, { source: credential('judge-a'), model: 'gpt-4o' })).calls,
		).toBe(1);
		const other = await calls(groundedness, row, {
			source: credential('judge-b'),
			model: 'gpt-4o',
		});
		expect(other.calls).toBe(0);
		expect(other.score.cached).toBe(true);
		// gpt-4o as the default and no override is the same request again.
		expect((await calls(groundedness, row, { source: credential('gpt-4o') })).calls).toBe(0);
		expect((await calls(groundedness, row, { source: credential('judge-b') })).calls).toBe(1);
	});

	// The first key format, written out here as it was (src/judges/cache.ts before issue 43):
	// endpoint = the source key of its day (endpoint|default model), the model called, the node's
	// temperature, seed and max tokens, the response mode.
	const sha = (t: string) => createHash('sha256').update(t).digest('hex');
	function firstFormatKey(
		decl: JudgeDecl,
		values: Record<string, unknown>,
		call: {
			endpoint: string;
			model: string;
			temperature?: number;
			seed?: number;
			maxTokens?: number;
		},
	): string {
		const inputs: Record<string, unknown> = {};
		for (const i of decl.inputs) inputs[i.name] = values[i.name];
		const parts = {
			format: 'rag-eval-verdict/1',
			call: {
				endpoint: call.endpoint,
				model: call.model,
				temperature: call.temperature ?? 0,
				seed: call.seed ?? null,
				maxTokens: call.maxTokens ?? null,
				responseMode: 'json_schema',
			},
			judge: `${decl.id}@${decl.version}`,
			output: { name: decl.output.name, schema: sha(canonicalJson(decl.output.jsonSchema)) },
			prompt: sha(canonicalJson(decl.prompt)),
			params: sha(canonicalJson({})),
			inputs: sha(canonicalJson(inputs)),
		};
		return `verdict:${sha(canonicalJson(parts))}`;
	}
	function firstFormatBareKey(
		endpoint: string,
		model: string,
		user: string,
		seed?: number,
	): string {
		const parts = {
			format: 'rag-eval-verdict/1',
			call: {
				endpoint,
				model,
				temperature: 0,
				seed: seed ?? null,
				maxTokens: 5,
				responseMode: 'bare',
			},
			judge: `${factCheck.id}@${factCheck.version}`,
			prompt: sha(user),
		};
		return `verdict:${sha(canonicalJson(parts))}`;
	}
	const oldEntry = (key: string, reason: string, storedAt: number) =>
		JSON.stringify({
			format: 'rag-eval-verdict/1',
			key,
			value: 2,
			reason,
			model: 'judge-old',
			attempts: 1,
			usage: { promptTokens: 70, completionTokens: 7, totalTokens: 77 },
			storedAt,
		});
	const plain = { request: 'Is the answer coherent?', response: 'Yes. It is. Coherent it is.' };
	const endpointOf = () => `compatible:${server.baseUrl}`;

	it('a verdict stored under the first format is read where that key meant this request, then found under the new key', async () => {
		const store = diskBackend(dir);
		const oldKey = firstFormatKey(coherence, plain, {
			endpoint: `${endpointOf()}|judge-a`,
			model: 'judge-a',
		});
		await store.set(oldKey, oldEntry(oldKey, 'stored by the earlier version', clock - 1000), TTL);
		await store.close();
		const first = await calls(coherence, plain, { source: credential('judge-a') });
		expect(first.calls).toBe(0);
		expect(first.score).toMatchObject({
			cached: true,
			value: 2,
			reason: 'stored by the earlier version',
		});
		expect((first.score.details?.cache as CacheInfo & { storedAt?: string }).storedAt).toBe(
			new Date(clock - 1000).toISOString(),
		);
		// Adopted under the new key: it answers with the first-format entry gone.
		await cache.backend.remove(oldKey);
		expect((await calls(coherence, plain, { source: credential('judge-a') })).score.cached).toBe(
			true,
		);
		// It keeps its stored-at, so it expires when it would have.
		clock += TTL;
		expect((await calls(coherence, plain, { source: credential('judge-a') })).calls).toBe(1);
	});

	it('under a default model that was not sent: read when that default is the model called or the current one, else a one-time miss', async () => {
		const store = diskBackend(dir);
		const rowOf = (n: number) => ({ ...plain, response: `${plain.response} (${n})` });
		const put = async (n: number, endpointModel: string, reason: string, temperature = 0) => {
			const key = firstFormatKey(coherence, rowOf(n), {
				endpoint: `${endpointOf()}|${endpointModel}`,
				model: 'gpt-4o',
				temperature,
			});
			await store.set(key, oldEntry(key, reason, clock), TTL);
		};
		// Stored by a credential whose default was judge-old, the node calling gpt-4o.
		await put(1, 'judge-old', 'old default');
		await put(2, 'judge-old', 'old default');
		// Stored by a credential whose default was gpt-4o itself, at temperature 0.3.
		await put(3, 'gpt-4o', 'default was the model', 0.3);
		await store.close();
		const judged = (n: number, source: ModelSource, temperature?: number) =>
			calls(coherence, rowOf(n), { source, model: 'gpt-4o', temperature });
		// The same credential (default judge-old): read.
		expect((await judged(1, credential('judge-old'))).score.reason).toBe('old default');
		// The default renamed since: that old default cannot be named, judged again once.
		const renamed = await judged(2, credential('judge-new'));
		expect(renamed.calls).toBe(1);
		expect((await judged(2, credential('judge-new'))).calls).toBe(0);
		// The default renamed, but the verdict's default was the model called: read.
		expect((await judged(3, credential('judge-new'), 0.3)).score.reason).toBe(
			'default was the model',
		);
	});

	it("the first format's source keys that still name a call: the model called and the current default (Azure: the deployment)", () => {
		const compatible = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: 'http://h/v1',
			model: 'judge-a',
		});
		expect(compatible.earlierCacheKeys?.('gpt-4o')).toEqual([
			'compatible:http://h/v1|gpt-4o',
			'compatible:http://h/v1|judge-a',
		]);
		expect(compatible.earlierCacheKeys?.()).toEqual(['compatible:http://h/v1|judge-a']);
		const deployment = createOpenAIModelSource({
			provider: 'azure',
			azureEndpoint: 'https://r.example.com',
			azureDeployment: 'dep-1',
			apiKey: 'k',
			model: 'judge-a',
		});
		// The earlier source key of an Azure deployment never held a model: one key, exact.
		expect(deployment.earlierCacheKeys?.('gpt-4o')).toEqual([
			'azure:https://r.example.com/dep-1|dep-1',
		]);
		expect(createChatModelSource(chat(0, 256)).earlierCacheKeys).toBeUndefined();
	});

	it('a Chat Model verdict of the first format is judged again once: its settings were not in that key', async () => {
		const store = diskBackend(dir);
		const model = chat(0, 256);
		const oldKey = firstFormatKey(coherence, plain, {
			endpoint: createChatModelSource(model).key,
			model: 'llama3',
		});
		await store.set(oldKey, oldEntry(oldKey, 'chat model', clock), TTL);
		await store.close();
		expect((await calls(coherence, plain, { source: createChatModelSource(model) })).calls).toBe(1);
		expect((await calls(coherence, plain, { source: createChatModelSource(model) })).calls).toBe(0);
	});

	it('a bare (MiniCheck) verdict of the first format is read', async () => {
		// The bare prompt, as the server receives it.
		await calls(factCheck, factRow, { source: credential('judge-a'), seed: 9, ...minicheck });
		const user = server.chatRequests()[0].messages?.[0].content ?? '';
		expect(user).toMatch(/^Document: /);
		const store = diskBackend(dir);
		const oldKey = firstFormatBareKey(`${endpointOf()}|judge-a`, 'judge-a', user);
		await store.set(
			oldKey,
			JSON.stringify({
				format: 'rag-eval-verdict/1',
				key: oldKey,
				value: false,
				reason: 'old bare',
				attempts: 1,
				storedAt: clock,
			}),
			TTL,
		);
		await store.close();
		const read = await calls(factCheck, factRow, { source: credential('judge-a'), ...minicheck });
		expect(read.calls).toBe(0);
		expect(read.score).toMatchObject({ cached: true, value: false, reason: 'old bare' });
	});
});
