/**
 * A safety row whose LLM judge answered but unusably still cost tokens: the row's error Scores
 * carry the usage and the model of every call made (turns that answered and the call that
 * failed), so the aggregate's spend per model is never undercounted. Over HTTP to our local
 * OpenAI-compatible server.
 */
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import { evaluateHarms, evaluateProtectedMaterial } from '../../../src/safety/evaluate';
import { createLlmSafetyBackend } from '../../../src/safety/llm';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const usage = (p: number, c: number) => ({
	prompt_tokens: p,
	completion_tokens: c,
	total_tokens: p + c,
});

describe('LLM safety backend: failed rows keep their cost', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const backend = () =>
		createLlmSafetyBackend({
			source: createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			}),
		});
	const governor = () => new Governor({ backoffBaseMs: 1, timeoutMs: 5000, maxRetries: 0 });

	it('an unparseable verdict (after the re-ask) is an error with both calls tokens and the model', async () => {
		server.script(
			{ content: 'not json', usage: usage(300, 5), model: 'judge-model-2026' },
			{ content: 'still not json', usage: usage(320, 6), model: 'judge-model-2026' },
		);
		const scores = await evaluateHarms(
			{ request: 'q', response: 'a reply' },
			{ backend: backend(), governor: governor(), categories: ['violence', 'sexual'] },
		);
		for (const c of ['violence', 'sexual']) {
			expect(scores[c]).toMatchObject({
				status: 'error',
				value: null,
				model: 'judge-model-2026',
				attempts: 2,
				usage: { promptTokens: 620, completionTokens: 11, totalTokens: 631 },
			});
		}
		expect(server.chatRequests()).toHaveLength(2);
	});

	it('a conversation whose second turn fails counts the first turn and the failed call', async () => {
		server.script(
			{ json: { reason: 'plain', verdict: 'no' }, usage: usage(100, 4) },
			{ content: 'garbled', usage: usage(110, 3) },
			{ content: 'garbled again', usage: usage(120, 3) },
		);
		const score = await evaluateProtectedMaterial(
			{
				request: 'second question',
				response: 'second answer',
				history: [
					{ role: 'user', content: 'first question' },
					{ role: 'assistant', content: 'first answer' },
				],
			},
			{ backend: backend(), governor: governor() },
		);
		expect(score.status).toBe('error');
		expect(score.error).toMatch(/^turn 2: /);
		expect(score.usage).toEqual({ promptTokens: 330, completionTokens: 10, totalTokens: 340 });
		expect(score.attempts).toBe(3);
		expect(score.model).toBe('judge-model');
	});
});
