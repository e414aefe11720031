/**
 * Model sources against the local server: the structured-output fallback ladder and its cache,
 * Azure deployment paths, the credential test, the duck-typed chat model, cancellation, and the
 * API key never leaking into scores, errors or logs.
 */
import { Governor } from '../../../src/judges/governor';
import {
	chatModelEndpoint,
	createChatModelSource,
	createOpenAIModelSource,
	testConnection,
	type LlmConfig,
} from '../../../src/judges/model';
import { runJudge, runJudges } from '../../../src/judges/run';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { relevance } from '../../../src/judges/specs/relevance';
import type { JudgeDecl } from '../../../src/judges/types';
import { faults, startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const FAKE_KEY = 'sk-LEAKCHECK-7f3a9c1e5b2d4f60a8e1';
const row = {
	request: 'q?',
	response: 'The answer.',
	retrieved_context: [{ content: 'The context.' }],
};

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	await server.close();
});
const compat = (extra: Partial<LlmConfig> = {}): LlmConfig => ({
	provider: 'compatible',
	baseUrl: server.baseUrl,
	model: 'judge-model',
	...extra,
});

describe('structured-output fallback ladder', () => {
	it('steps json_schema -> json_object -> tagged text, then reuses the working mode for later rows', async () => {
		server.script(
			faults.responseFormatUnsupported('json_schema'),
			faults.responseFormatUnsupported('json_object'),
			{ content: '<reason>Mostly relevant.</reason><score>4</score>' },
			{ content: '<reason>Fully relevant.</reason><score>5/5</score>' },
		);
		const source = createOpenAIModelSource(compat());
		const governor = new Governor();
		const first = await runJudge(relevance, row, { source, governor });
		expect(first).toMatchObject({ status: 'ok', value: 4, details: { responseMode: 'text' } });
		const second = await runJudge(relevance, row, { source, governor });
		expect(second).toMatchObject({ status: 'ok', value: 5 });
		const reqs = server.chatRequests();
		expect(reqs.map((r) => r.responseFormat?.type ?? 'none')).toEqual([
			'json_schema',
			'json_object',
			'none',
			'none',
		]);
		expect(reqs[2].messages?.[0].content).toContain('<reason>...</reason><score>...</score>');
		server.assertNoUnexpected();
	});

	it('JSON mode asks for the keys in order, reason first', async () => {
		server.script(faults.responseFormatUnsupported('json_schema'), {
			json: { reason: 'ok', score: 3 },
		});
		const source = createOpenAIModelSource(compat());
		const s = await runJudge(groundedness, row, { source, governor: new Governor() });
		expect(s.value).toBe(3);
		const sys = server.chatRequests()[1].messages?.[0].content ?? '';
		expect(sys.indexOf('- reason')).toBeLessThan(sys.indexOf('- score'));
	});

	it('sums usage over the re-ask', async () => {
		server.script(
			{
				content: 'I think it is good',
				usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
			},
			{
				json: { reason: 'r', score: 4 },
				usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
			},
		);
		const source = createOpenAIModelSource(compat());
		const s = await runJudge(groundedness, row, { source, governor: new Governor() });
		expect(s.usage).toEqual({ promptTokens: 220, completionTokens: 14, totalTokens: 234 });
		expect(s.attempts).toBe(2);
	});

	it('sends seed, temperature and the model override', async () => {
		server.script({ json: { reason: 'r', score: 4 } });
		const source = createOpenAIModelSource(compat());
		await runJudge(groundedness, row, {
			source,
			governor: new Governor(),
			seed: 42,
			temperature: 0.3,
			model: 'other-model',
		});
		expect(server.chatRequests()[0].body).toMatchObject({
			seed: 42,
			temperature: 0.3,
			model: 'other-model',
		});
	});
});

describe('Azure OpenAI', () => {
	it('calls the deployment path with api-version and the api-key header', async () => {
		server.script({ json: { reason: 'r', score: 5 }, model: 'gpt-4o-2024-08-06' });
		const source = createOpenAIModelSource({
			provider: 'azure',
			azureEndpoint: server.url,
			azureDeployment: 'judge-deploy',
			apiVersion: '2024-10-21',
			apiKey: FAKE_KEY,
			model: 'gpt-4o',
		});
		const s = await runJudge(groundedness, row, { source, governor: new Governor() });
		expect(s).toMatchObject({ value: 5, model: 'gpt-4o-2024-08-06' });
		const [req] = server.chatRequests();
		expect(req.path).toBe('/openai/deployments/judge-deploy/chat/completions');
		expect(req.query['api-version']).toBe('2024-10-21');
		expect(req.headers['api-key']).toBe(FAKE_KEY);
		expect(source.key).not.toContain(FAKE_KEY);
	});
});

describe('testConnection', () => {
	it('lists models', async () => {
		const r = await testConnection(compat());
		expect(r).toEqual({ ok: true, message: 'Connected: the server lists 2 model(s).' });
	});
	it('flags a model the server does not list', async () => {
		const r = await testConnection(compat({ model: 'missing-model' }));
		expect(r.ok).toBe(false);
		expect(r.message).toContain('"missing-model" is not among the 2 models');
	});
	it('falls back to a one-token completion where /models is not served', async () => {
		server.setModels({ status: 404, error: { message: 'Not Found' } });
		server.script({ content: 'p' });
		const r = await testConnection(compat());
		expect(r).toEqual({ ok: true, message: 'Connected: model "judge-model" answered.' });
		expect(server.chatRequests()[0].body).toMatchObject({ max_tokens: 1 });
	});
	it('reports an unreachable server readably', async () => {
		const r = await testConnection({
			provider: 'compatible',
			baseUrl: 'http://127.0.0.1:9/v1',
			model: 'm',
			timeoutMs: 2000,
		});
		expect(r.ok).toBe(false);
		expect(r.message).toMatch(/connection to the judge model failed/);
	});
});

describe('the API key never leaks', () => {
	it('is absent from scores, errors, connection-test messages and logs, even when the server echoes it', async () => {
		const logs: string[] = [];
		const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((m) =>
			jest.spyOn(console, m).mockImplementation((...args: unknown[]) => {
				logs.push(args.map(String).join(' '));
			}),
		);
		try {
			const echo = {
				status: 401,
				error: {
					message: `Incorrect API key provided: ${FAKE_KEY.slice(0, 7)}*****${FAKE_KEY.slice(-4)}. Full: ${FAKE_KEY}`,
					type: 'invalid_request_error',
					code: 'invalid_api_key',
				},
			};
			server.setDefault(() => echo);
			server.setModels(echo);
			const source = createOpenAIModelSource(compat({ apiKey: FAKE_KEY, provider: 'openai' }));
			const scores = await runJudges(groundedness, [row, row], {
				source,
				governor: new Governor(),
			});
			const conn = await testConnection(compat({ apiKey: FAKE_KEY, provider: 'openai' }));
			expect(server.requests[0].headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
			expect(scores[0].error).toMatch(/authentication failed \(401\)/);
			expect(conn.ok).toBe(false);
			const everything = JSON.stringify({ scores, conn, logs, key: source.key });
			expect(everything).not.toContain(FAKE_KEY);
			expect(everything).not.toContain(FAKE_KEY.slice(0, 12));
			expect(everything).not.toContain(FAKE_KEY.slice(-8));
		} finally {
			for (const s of spies) s.mockRestore();
		}
	});
});

describe('cancellation', () => {
	it('stops pending calls: rows in = rows out, all cancelled, queued rows never reach the server', async () => {
		server.setDefault(() => faults.hang());
		const source = createOpenAIModelSource(compat());
		const ac = new AbortController();
		const run = runJudges(groundedness, [row, row, row, row], {
			source,
			governor: new Governor({ concurrency: 1 }),
			signal: ac.signal,
		});
		await new Promise((r) => setTimeout(r, 100));
		ac.abort();
		const scores = await run;
		expect(scores).toHaveLength(4);
		for (const s of scores) expect(s).toMatchObject({ status: 'error', value: null });
		expect(scores[0].error).toMatch(/cancelled/);
		expect(server.chatRequests()).toHaveLength(1);
	});
});

describe('connected chat model (duck-typed)', () => {
	it('calls invoke() with tuple messages and reads usage_metadata and response_metadata', async () => {
		const seen: unknown[] = [];
		const chatModel = {
			model: 'claude-test',
			async invoke(messages: unknown) {
				seen.push(messages);
				return {
					content: [{ type: 'text', text: '{"reason": "Supported.", "score": 4}' }],
					usage_metadata: { input_tokens: 50, output_tokens: 7, total_tokens: 57 },
					response_metadata: { model_name: 'claude-test-2025', stop_reason: 'end_turn' },
				};
			},
		};
		const source = createChatModelSource(chatModel);
		expect(source.supportsResponseFormat).toBe(false);
		const s = await runJudge(groundedness, row, { source, governor: new Governor() });
		expect(s).toMatchObject({
			status: 'ok',
			value: 4,
			model: 'claude-test-2025',
			usage: { promptTokens: 50, completionTokens: 7, totalTokens: 57 },
		});
		const msgs = seen[0] as [string, string][];
		expect(msgs.map((m) => m[0])).toEqual(['system', 'human']);
		expect(msgs[0][1]).toContain('<reason>...</reason>');
	});

	it('uses withStructuredOutput when present, and falls back to text when it fails', async () => {
		const schemas: unknown[] = [];
		let structuredFails = false;
		const chatModel = {
			modelName: 'gemini-test',
			withStructuredOutput(schema: unknown) {
				schemas.push(schema);
				return {
					async invoke() {
						if (structuredFails)
							throw Object.assign(new Error('schema not supported'), { status: 400 });
						return {
							raw: {
								content: '',
								response_metadata: {
									tokenUsage: { promptTokens: 10, completionTokens: 3, totalTokens: 13 },
								},
							},
							parsed: { reason: 'fine', score: '5' },
						};
					},
				};
			},
			async invoke() {
				return { content: '<reason>ok</reason><score>2</score>' };
			},
		};
		const source = createChatModelSource(chatModel);
		const a = await runJudge(groundedness, row, { source, governor: new Governor() });
		expect(a).toMatchObject({ value: 5, usage: { totalTokens: 13 }, model: 'gemini-test' });
		expect(schemas[0]).toMatchObject({ properties: { reason: {}, score: {} } });
		structuredFails = true;
		const b = await runJudge(groundedness, row, { source, governor: new Governor() });
		expect(b).toMatchObject({ status: 'ok', value: 2 });
	});

	it('retries a rate-limited chat model and rejects objects without invoke()', async () => {
		let n = 0;
		const chatModel = {
			async invoke() {
				if (n++ === 0) throw Object.assign(new Error('Too many requests'), { status: 429 });
				return { content: '{"reason":"r","score":3}' };
			},
		};
		const s = await runJudge(groundedness, row, {
			source: createChatModelSource(chatModel),
			governor: new Governor({ backoffBaseMs: 1 }),
		});
		expect(s).toMatchObject({ value: 3, attempts: 2 });
		expect(() => createChatModelSource({})).toThrow(/no invoke\(\) method/);
	});
});

describe("a connected chat model's source key", () => {
	const invoke = async () => ({ content: '{"reason":"r","score":3}' });
	class ChatOpenAI {
		model = 'gpt-4o-mini';
		invoke = invoke;
		clientConfig: Record<string, unknown>;
		constructor(baseURL?: string) {
			this.clientConfig = { apiKey: 'sk-secret-in-config', baseURL };
		}
	}

	it('tells two servers apart and never holds a key, user info or a query', () => {
		const a = createChatModelSource(new ChatOpenAI('https://llm-a.example.com/v1/'));
		const b = createChatModelSource(
			new ChatOpenAI('https://user:pw@llm-b.example.com/v1?api-key=k1'),
		);
		const d = createChatModelSource(new ChatOpenAI());
		expect(a.key).toBe('chat-model:ChatOpenAI|gpt-4o-mini@https://llm-a.example.com/v1');
		expect(b.key).toBe('chat-model:ChatOpenAI|gpt-4o-mini@https://llm-b.example.com/v1');
		expect(d.key).toBe('chat-model:ChatOpenAI|gpt-4o-mini');
		for (const k of [a.key, b.key, d.key]) expect(k).not.toMatch(/sk-secret|pw|k1|user/);
	});

	it('reads the endpoint fields of the common chat model classes', () => {
		expect(
			chatModelEndpoint({
				azureOpenAIApiKey: 'az-key',
				azureOpenAIApiInstanceName: 'contoso',
				azureOpenAIApiDeploymentName: 'judge-4o',
			}),
		).toBe('azure:contoso/judge-4o');
		expect(
			chatModelEndpoint({
				azureOpenAIEndpoint: 'https://contoso.openai.azure.com/',
				azureOpenAIApiDeploymentName: 'judge-4o',
			}),
		).toBe('azure:https://contoso.openai.azure.com/judge-4o');
		expect(chatModelEndpoint({ apiUrl: 'https://gateway.example.com/anthropic' })).toBe(
			'https://gateway.example.com/anthropic',
		);
		expect(chatModelEndpoint({ baseUrl: 'http://127.0.0.1:11434' })).toBe('http://127.0.0.1:11434');
		expect(chatModelEndpoint({ baseUrl: 'not a url' })).toBe('');
		expect(chatModelEndpoint({ model: 'x' })).toBe('');
	});
});

describe('the test server itself', () => {
	it('answers an unscripted call with 500 and makes assertNoUnexpected fail', async () => {
		const res = await fetch(`${server.baseUrl}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
		});
		expect(res.status).toBe(500);
		expect(() => server.assertNoUnexpected()).toThrow(/1 unexpected call/);
	});

	it('serves the real completion shape with usage and the scripted model', async () => {
		server.script({ content: 'hello', model: 'served-model' });
		const res = await fetch(`${server.baseUrl}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'abcdefgh' }] }),
		});
		const body = (await res.json()) as Record<string, unknown>;
		expect(body).toMatchObject({
			object: 'chat.completion',
			model: 'served-model',
			choices: [
				{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' },
			],
			usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 },
		});
		server.assertNoUnexpected();
	});
});
