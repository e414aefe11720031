/**
 * The judge's chat calls go over node:http (src/judges/http.ts), not the openai SDK's fetch: the
 * request is the one the SDK would send (URL with a trailing-slash base, key, organization,
 * OPENAI_CUSTOM_HEADERS, body), replies and errors read as the SDK reads them (error bodies that
 * are JSON, text or empty; a 200 that is not JSON), the configured per-call ceiling holds, and the
 * calls go through the process's global agent, where n8n puts its proxy agent.
 */
import * as http from 'node:http';
import { ModelCallError } from '../../../src/judges/errors';
import { createOpenAIModelSource, type LlmConfig } from '../../../src/judges/model';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

const request = {
	messages: [{ role: 'user' as const, content: 'Rate this.' }],
	mode: 'json_schema' as const,
	jsonSchema: { name: 'verdict', schema: { type: 'object' } },
	temperature: 0,
	seed: 7,
	maxTokens: 50,
};
const config = (extra: Partial<LlmConfig> = {}): LlmConfig => ({
	provider: 'openai',
	apiKey: 'sk-transport-test-0000',
	baseUrl: `${server.baseUrl}/`,
	organization: 'org-42',
	model: 'judge-model',
	...extra,
});
const failure = (p: Promise<unknown>): Promise<ModelCallError> =>
	p.then(
		() => {
			throw new Error('expected a failure');
		},
		(e: ModelCallError) => e,
	);

describe('chat calls over node:http', () => {
	it('send what the SDK sends: path, key, organization, custom headers and body', async () => {
		process.env.OPENAI_CUSTOM_HEADERS = 'X-Team: evals\nX-Run: nightly';
		try {
			server.script({ json: { score: 4 }, headers: { 'x-ratelimit-remaining-requests': '99' } });
			const r = await createOpenAIModelSource(config()).chat(request);
			expect(r).toMatchObject({
				content: '{"score":4}',
				model: 'judge-model',
				finishReason: 'stop',
			});
			expect(r.headers?.['x-ratelimit-remaining-requests']).toBe('99');
		} finally {
			delete process.env.OPENAI_CUSTOM_HEADERS;
		}
		const [req] = server.chatRequests();
		expect(req.path).toBe('/v1/chat/completions');
		expect(req.headers).toMatchObject({
			authorization: 'Bearer sk-transport-test-0000',
			'openai-organization': 'org-42',
			'content-type': 'application/json',
			'x-team': 'evals',
			'x-run': 'nightly',
		});
		expect(req.body).toEqual({
			model: 'judge-model',
			messages: request.messages,
			temperature: 0,
			seed: 7,
			max_tokens: 50,
			response_format: {
				type: 'json_schema',
				json_schema: { name: 'verdict', schema: { type: 'object' }, strict: true },
			},
		});
	});

	it('read error replies as the SDK does: JSON, plain text or empty', async () => {
		const source = createOpenAIModelSource(config());
		server.script({ status: 503, rawBody: 'upstream overloaded' });
		expect(await failure(source.chat(request))).toMatchObject({
			kind: 'server',
			message: 'server error (503): 503 upstream overloaded',
		});
		server.script({ status: 500, rawBody: '' });
		expect((await failure(source.chat(request))).message).toBe(
			'server error (500): 500 status code (no body)',
		);
		server.script({
			status: 429,
			headers: { 'retry-after': '2' },
			error: { message: 'Slow down', code: 'rate_limit_exceeded' },
		});
		expect(await failure(source.chat(request))).toMatchObject({
			kind: 'rate_limit',
			retryAfterMs: 2000,
			message: 'rate limited (429): Slow down',
		});
		server.script({
			status: 401,
			error: { message: 'Incorrect API key provided: sk-tra****0000' },
		});
		const e = await failure(source.chat(request));
		expect(e.kind).toBe('fatal');
		expect(e.message).not.toContain('sk-transport-test-0000');
	});

	it('a 200 that is not JSON is an empty reply (the SDK returns its text), a cut-off JSON body a server error', async () => {
		const source = createOpenAIModelSource(config());
		server.setDefault(() => ({ status: 200, rawBody: 'hello' }));
		// rawBody is sent as JSON content: a body that does not parse is a cut-off reply.
		expect(await failure(source.chat(request))).toMatchObject({ kind: 'server' });
		server.setDefault(null);
		const text = http.createServer((_q, res) => {
			res.writeHead(200, { 'content-type': 'text/plain' });
			res.end('not json');
		});
		await new Promise<void>((r) => text.listen(0, '127.0.0.1', () => r()));
		try {
			const port = (text.address() as { port: number }).port;
			const r = await createOpenAIModelSource(
				config({ baseUrl: `http://127.0.0.1:${port}/v1` }),
			).chat(request);
			expect(r).toMatchObject({ content: '', finishReason: null });
		} finally {
			await new Promise((r) => text.close(r));
		}
	});

	it('the configured per-call ceiling ends a call that hangs as a timeout', async () => {
		server.script({ hang: true });
		const e = await failure(createOpenAIModelSource(config({ timeoutMs: 100 })).chat(request));
		expect(e).toMatchObject({ kind: 'timeout' });
	});

	it("go through the process's global agent, where n8n installs its proxy agent", async () => {
		// The module itself, as n8n assigns it (the namespace import's properties are read-only).
		const nodeHttp = jest.requireActual<typeof http>('node:http');
		const original = nodeHttp.globalAgent;
		let connections = 0;
		const agent = new http.Agent({ keepAlive: true });
		const create = agent.createConnection.bind(agent);
		agent.createConnection = ((...args: Parameters<typeof create>) => {
			connections++;
			return create(...args);
		}) as typeof agent.createConnection;
		nodeHttp.globalAgent = agent;
		try {
			server.script({ json: { score: 1 } });
			await createOpenAIModelSource(config()).chat(request);
			expect(connections).toBe(1);
		} finally {
			nodeHttp.globalAgent = original;
			agent.destroy();
		}
	});
});
