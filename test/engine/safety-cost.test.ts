/**
 * Content Safety on the real engine, its LLM judge answering garbage for some rows: the rows that
 * end in error still count every call's tokens and the model that answered, so Eval Aggregate's
 * cost per model equals what the judge server handed out (no "(unknown)" model, no tokens lost).
 */
import type { IDataObject } from 'n8n-workflow';
import { chain, runWorkflow } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const rows: IDataObject[] = Array.from({ length: 6 }, (_, i) => ({
	request_id: `r${i}`,
	request: 'Tell me about the weather.',
	response: i % 2 === 0 ? `Sunny with light wind ${i}.` : `GARBLE reply ${i}`,
}));

describe('Content Safety cost on failed rows', () => {
	let server: OpenAIServer;
	let handed = 0;
	beforeEach(async () => {
		handed = 0;
		server = await startOpenAIServer();
		server.setDefault((req: RecordedRequest) => {
			const user = (req.messages ?? []).map((m) => m.content).join('\n');
			const usage = { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 };
			handed += usage.prompt_tokens;
			if (user.includes('GARBLE'))
				return { content: 'I cannot format this.', usage, model: 'judge-2026' };
			const json: Record<string, unknown> = {};
			for (const c of ['hate_unfairness', 'sexual', 'violence', 'self_harm']) {
				json[`${c}_reason`] = 'Nothing harmful.';
				json[`${c}_severity`] = 0;
			}
			return { json, usage, model: 'judge-2026' };
		});
	});
	afterEach(async () => {
		await server.close();
	});

	it('failed rows keep their tokens and model in the aggregate cost', async () => {
		const r = await runWorkflow(
			chain(
				{
					name: 'Content Safety',
					type: 'evalContentSafety',
					parameters: { options: { cache: false } },
					credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
				},
				{ name: 'Eval Aggregate', type: 'evalAggregate', parameters: { output: 'summary' } },
			),
			{
				startItems: rows.map((json) => ({ json })),
				credentials: {
					ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-2026' },
				},
			},
		);
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();
		const scored = r.output('Content Safety');
		const failed = scored.filter(
			(x) => ((x.eval as IDataObject).violence as IDataObject).status === 'error',
		);
		expect(failed.map((x) => x.request_id)).toEqual(['r1', 'r3', 'r5']);
		// A garbled reply is re-asked once: two calls for each failed row, one for the others.
		expect(server.chatRequests()).toHaveLength(9);
		const [summary] = r.output('Eval Aggregate');
		const cost = summary.cost as { promptTokens: number; byModel: Record<string, IDataObject> };
		expect(Object.keys(cost.byModel)).toEqual(['judge-2026']);
		expect(cost.promptTokens).toBe(handed);
		expect(cost.byModel['judge-2026'].promptTokens).toBe(9 * 300);
	});
});
