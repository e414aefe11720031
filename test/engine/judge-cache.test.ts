/**
 * The judge verdict cache on the real engine: Coherence -> Eval Aggregate run twice over the same
 * rows makes no judge call the second time, the aggregate reports the saved calls and tokens, the
 * Cache Verdicts switch turns it off, and the cache lives in the folder the node (or env) names.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, type WorkflowJson } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const rows = [1, 2, 3, 4].map((i) => ({
	request_id: `q${i}`,
	request: `Question ${i}?`,
	response: `Answer ${i}.`,
}));

function workflow(options: INodeParameters): WorkflowJson {
	return chain(
		{ name: 'Eval Dataset', type: 'evalDataset', parameters: { source: 'items' } },
		{
			name: 'Coherence',
			type: 'judgeCoherence',
			parameters: { threshold: 3, options },
			credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
		},
		{ name: 'Eval Aggregate', type: 'evalAggregate' },
	);
}

describe('judge verdict cache on the real engine', () => {
	let server: OpenAIServer;
	let credentials: Record<string, ICredentialDataDecryptedObject>;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(() => ({
			json: { reason: 'The answer addresses the question.', score: 4 },
			usage: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
		}));
		credentials = {
			ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
		};
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const run = (options: INodeParameters) =>
		runWorkflow(workflow(options), { startItems: rows.map((json) => ({ json })), credentials });
	const scores = (r: Awaited<ReturnType<typeof run>>): Score[] =>
		r.output('Coherence').map((x) => (x.eval as Record<string, Score>).coherence);

	it('the second run makes zero calls; the aggregate shows calls and tokens saved beside those spent', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'engine-cache-'));
		const options = { cacheFolder: dir, cacheStore: 'disk' };
		const cold = await run(options);
		expect(server.chatRequests()).toHaveLength(4);
		for (const s of scores(cold)) {
			expect(s).toMatchObject({ status: 'ok', value: 4, attempts: 1 });
			expect(s.details?.cache).toEqual({
				store: 'disk',
				hit: false,
				hits: 0,
				misses: 1,
				savedCalls: 0,
			});
		}
		const coldSummary = cold.output('Eval Aggregate')[0] as IDataObject;
		expect(coldSummary.cost).toMatchObject({ calls: 4, totalTokens: 880 });
		expect((coldSummary.cost as IDataObject).saved).toBeUndefined();
		expect(readdirSync(dir)).toEqual(expect.arrayContaining(['verdicts-v2', 'expiry-v2']));

		const warm = await run(options);
		expect(server.chatRequests()).toHaveLength(4);
		for (const s of scores(warm)) {
			expect(s).toMatchObject({ status: 'ok', value: 4, pass: true, attempts: 0, cached: true });
			expect(s.details?.cache).toMatchObject({ store: 'disk', hit: true, savedCalls: 1 });
		}
		const summary = warm.output('Eval Aggregate')[0] as IDataObject;
		expect(summary.cost).toMatchObject({
			calls: 0,
			totalTokens: 0,
			saved: { calls: 4, promptTokens: 800, completionTokens: 80, totalTokens: 880 },
		});
		// The verdicts are the same: only where they came from differs.
		expect((summary.perMetric as IDataObject).coherence).toEqual(
			(coldSummary.perMetric as IDataObject).coherence,
		);
	});

	it('Cache Verdicts off: every run calls the judge and nothing is written', async () => {
		const dir = join(mkdtempSync(join(tmpdir(), 'engine-cache-off-')), 'cache');
		const options = { cache: false, cacheFolder: dir };
		await run(options);
		const second = await run(options);
		expect(server.chatRequests()).toHaveLength(8);
		for (const s of scores(second)) {
			expect(s.cached).toBeUndefined();
			expect(s.details?.cache).toBeUndefined();
		}
		expect(existsSync(dir)).toBe(false);
	});

	it('by default the cache lives in RAG_EVAL_CACHE_DIR (the test setup), a changed TTL of 0 still hits', async () => {
		await run({});
		const again = await run({ cacheTtlHours: 0 });
		expect(server.chatRequests()).toHaveLength(4);
		expect(scores(again).every((s) => s.cached === true)).toBe(true);
		expect(readdirSync(process.env.RAG_EVAL_CACHE_DIR as string)).toContain('verdicts-v2');
	});
});
