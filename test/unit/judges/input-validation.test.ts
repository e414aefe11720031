import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import { runJudge } from '../../../src/judges/run';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { relevanceConversation } from '../../../src/judges/specs/relevance';
import type { JudgeDecl } from '../../../src/judges/types';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

describe('judges reject malformed inputs like the metrics do', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const ctx = () => ({
		source: createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'm',
		}),
		governor: new Governor({ backoffBaseMs: 1 }),
	});

	it('a non-text response is an error naming the field, and no call is made', async () => {
		const s = await runJudge(
			groundedness,
			{ request: 'q', response: 42, retrieved_context: [{ content: 'c' }] },
			ctx(),
		);
		expect(s).toMatchObject({
			status: 'error',
			value: null,
			pass: null,
			error: 'response: expected text, got number',
		});
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('a context entry whose content is not text names its index', async () => {
		const s = await runJudge(
			groundedness,
			{
				request: 'q',
				response: 'r',
				retrieved_context: [{ content: 'ok' }, { doc_uri: 'd2', content: ['x'] }],
			},
			ctx(),
		);
		expect(s.status).toBe('error');
		expect(s.error).toBe('retrieved_context[1].content: expected string, got array');
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('a history turn without a role is an error', async () => {
		const s = await runJudge(
			relevanceConversation,
			{ request: 'q', response: 'r', history: [{ content: 'hi' }] },
			ctx(),
		);
		expect(s.status).toBe('error');
		expect(s.error).toBe('history[0].role: expected string, got undefined');
	});
});
