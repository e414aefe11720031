/**
 * Issue 15 items 2-3 on the real engine against the local OpenAI-compatible server: the spend
 * limit stops calls at the row whose next call would cross it (concurrency 1), every remaining row
 * leaves with a `spend_limit` error and nothing is lost; a USD limit without a price fails before
 * any call; a row stopped mid fan-out is an error, never a partial score; Estimate Only calls
 * nothing and writes estimates, never scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import type { RowEstimate, RunEstimate } from '../../src/judges/estimate';
import { chain, runWorkflow, type WorkflowJson } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const rows = [1, 2, 3, 4, 5].map((n) => ({
	request_id: `q${n}`,
	request: `question ${n}`,
	response: `answer ${n}`,
	retrieved_context: [{ content: `context ${n}` }],
}));

function workflow(type: string, name: string, options: IDataObject): WorkflowJson {
	return chain(
		{
			name,
			type,
			// The verdict cache is off: every test counts the calls its own limit lets through.
			parameters: { options: { concurrency: 1, cache: false, ...options } },
			credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
		},
		{ name: 'After', type: 'n8n-nodes-base.noOp' },
	);
}

// Every call reports 1000 tokens (900 prompt + 100 completion), whatever it was sent.
const USAGE = { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 };

describe('spend limit and estimate only on the real engine', () => {
	let server: OpenAIServer;
	const credentials = () => ({
		ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
	});
	const run = (wf: WorkflowJson, input = rows) =>
		runWorkflow(wf, { startItems: input.map((json) => ({ json })), credentials: credentials() });
	let cacheDir: string;
	beforeEach(async () => {
		server = await startOpenAIServer();
		cacheDir = mkdtempSync(join(tmpdir(), 'rag-eval-spend-cache-'));
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
		rmSync(cacheDir, { recursive: true, force: true });
	});

	it('a token limit stops at exactly the row whose call would cross it; later rows error too', async () => {
		server.setDefault(() => ({ json: { reason: 'Supported.', score: 5 }, usage: USAGE }));
		// A call reserves its prompt (a few hundred tokens) + 300 reply tokens. After 3 calls 3000
		// tokens are spent, and 3000 + the 4th call's reservation passes 3200: row 4 is stopped.
		const r = await run(
			workflow('judgeGroundedness', 'Groundedness', {
				spendLimitUnit: 'tokens',
				spendLimit: 3200,
			}),
		);
		expect(server.chatRequests()).toHaveLength(3);
		const out = r.output('After');
		expect(out.map((x) => x.request_id)).toEqual(rows.map((x) => x.request_id));
		const scores = out.map((x) => (x.eval as Record<string, Score>).groundedness);
		expect(scores.slice(0, 3).map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
		for (const [i, s] of scores.slice(3).entries()) {
			expect(s).toMatchObject({ status: 'error', value: null, pass: null });
			expect(s.details?.errorKind).toBe('spend_limit');
			expect(s.error).toMatch(new RegExp(`^row ${i + 4} \\(request_id "q${i + 4}"\\): .*`));
			expect(s.error).toMatch(/spend limit reached: 3000 tokens of 3200 tokens spent/);
		}
	});

	it('cached verdicts make no call, so they never count toward the limit', async () => {
		server.setDefault(() => ({ json: { reason: 'Supported.', score: 5 }, usage: USAGE }));
		const cached = { cache: true, cacheFolder: cacheDir };
		await run(workflow('judgeGroundedness', 'Groundedness', cached));
		expect(server.chatRequests()).toHaveLength(5);
		// A limit that would stop the 2nd call: every row is a hit, so all five are scored.
		const r = await run(
			workflow('judgeGroundedness', 'Groundedness', {
				...cached,
				spendLimitUnit: 'tokens',
				spendLimit: 1500,
			}),
		);
		expect(server.chatRequests()).toHaveLength(5);
		const scores = r.output('After').map((x) => (x.eval as Record<string, Score>).groundedness);
		expect(scores.map((s) => [s.status, s.cached])).toEqual(rows.map(() => ['ok', true]));
	});

	it('a USD limit prices each call from Model Prices and stops at the crossing row', async () => {
		server.setDefault(() => ({ json: { reason: 'Supported.', score: 5 }, usage: USAGE }));
		// $1 per 1000 tokens: each call spends $1; the reservation of the 3rd call passes $2.5.
		const prices = JSON.stringify({ 'judge-model': { input: 1000, output: 1000 } });
		const r = await run(
			workflow('judgeGroundedness', 'Groundedness', {
				spendLimitUnit: 'usd',
				spendLimit: 2.5,
				modelPrices: prices,
			}),
		);
		expect(server.chatRequests()).toHaveLength(2);
		const statuses = r
			.output('After')
			.map((x) => (x.eval as Record<string, Score>).groundedness.status);
		expect(statuses).toEqual(['ok', 'ok', 'error', 'error', 'error']);
	});

	it('a USD limit for a model without a price fails the node before any call', async () => {
		const r = await run(
			workflow('judgeGroundedness', 'Groundedness', { spendLimitUnit: 'usd', spendLimit: 1 }),
		);
		expect(r.nodeError('Groundedness')).toMatch(/no price for the judge model "judge-model"/);
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('a row stopped mid fan-out is an error naming the call, never a partial score', async () => {
		server.setDefault(() => ({ json: { reason: 'Relevant.', verdict: 'yes' }, usage: USAGE }));
		const chunks = [
			{
				request_id: 'c1',
				request: 'question',
				response: 'answer',
				retrieved_context: [{ content: 'one' }, { content: 'two' }, { content: 'three' }],
			},
			{
				request_id: 'c2',
				request: 'question 2',
				response: 'answer 2',
				retrieved_context: [{ content: 'four' }],
			},
		];
		// Each call reserves its prompt + 1000 reply tokens (> 1000): calls 1 and 2 fit 2500, call 3
		// (2000 spent + over 1000 reserved) does not.
		const r = await run(
			workflow('judgeChunkRelevance', 'Chunk Relevance', {
				spendLimitUnit: 'tokens',
				spendLimit: 2500,
				replyTokens: 1000,
			}),
			chunks as typeof rows,
		);
		expect(server.chatRequests()).toHaveLength(2);
		const [first, second] = r
			.output('After')
			.map((x) => (x.eval as Record<string, Score>).chunk_relevance);
		expect(first).toMatchObject({ status: 'error', value: null, pass: null });
		expect(first.error).toMatch(/chunk 3: spend limit reached/);
		expect(first.details?.errorKind).toBe('spend_limit');
		// The two calls made are still accounted on the row.
		expect(first.usage?.totalTokens).toBe(2000);
		expect(second).toMatchObject({ status: 'error' });
		expect(second.details?.errorKind).toBe('spend_limit');
	});

	it('the Custom Judge has the same limit', async () => {
		server.setDefault(() => ({ json: { reason: 'Polite.', verdict: 'yes' }, usage: USAGE }));
		const wf = workflow('judgeCustomJudge', 'Tone', {
			spendLimitUnit: 'tokens',
			spendLimit: 2200,
		});
		Object.assign(wf.nodes[1].parameters, {
			judgeName: 'tone',
			criterion: 'The response must be polite.',
		});
		const r = await run(wf);
		// 2000 spent after two calls; the third call's reservation passes 2200.
		expect(server.chatRequests()).toHaveLength(2);
		const tone = r.output('After').map((x) => (x.eval as Record<string, Score>).tone);
		expect(tone.map((s) => s.status)).toEqual(['ok', 'ok', 'error', 'error', 'error']);
		expect(tone[2].details?.errorKind).toBe('spend_limit');
	});

	it('without a limit every row is judged (the option is off by default)', async () => {
		server.setDefault(() => ({ json: { reason: 'Supported.', score: 5 }, usage: USAGE }));
		const r = await run(workflow('judgeGroundedness', 'Groundedness', {}));
		expect(server.chatRequests()).toHaveLength(5);
		expect(
			r.output('After').every((x) => (x.eval as Record<string, Score>).groundedness.pass),
		).toBe(true);
	});

	it('Estimate Only calls nothing and writes per-row and run estimates, never a score', async () => {
		const input = [...rows.slice(0, 2), { request_id: 'q9', request: 'no answer' }];
		const r = await run(
			workflow('judgeGroundedness', 'Groundedness', {
				runMode: 'estimate',
				modelPrices: JSON.stringify({ 'judge-model': { input: 1, output: 2 } }),
			}),
			input as typeof rows,
		);
		expect(server.chatRequests()).toHaveLength(0);
		const out = r.output('After');
		expect(out).toHaveLength(3);
		for (const x of out) expect(x.eval).toBeUndefined();
		const est = out.map((x) => (x.estimate as Record<string, RowEstimate>).groundedness);
		expect(est[0]).toMatchObject({
			status: 'estimated',
			calls: 1,
			model: 'judge-model',
			encoding: 'o200k_base',
			approximate: true,
			completionTokens: 300,
		});
		expect(est[0].promptTokens).toBeGreaterThan(100);
		expect(est[0].totalTokens).toBe(est[0].promptTokens + 300);
		expect(est[0].usd).toBeCloseTo((est[0].promptTokens * 1 + 300 * 2) / 1e6, 12);
		expect(est[2]).toMatchObject({ status: 'not_applicable', calls: 0, totalTokens: 0 });
		expect(est[2].reason).toMatch(/response/);
		const total = (est[0] as RowEstimate & { run: RunEstimate }).run;
		expect(total).toMatchObject({
			rows: 3,
			calls: 2,
			totalTokens: est[0].totalTokens + est[1].totalTokens,
		});
		expect(total.usd).toBeCloseTo((est[0].usd ?? 0) + (est[1].usd ?? 0), 12);
	});
});
