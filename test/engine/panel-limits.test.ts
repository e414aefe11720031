/**
 * A panel's jurors on the real engine against the local OpenAI-compatible server, on the RAG Eval
 * LLM API credential's Panel Models: the spend limit reserves and charges each juror's calls at
 * that juror's own model price, and a juror whose key or model is rejected (a fatal error) is
 * told once for the run: the node fails only when the jurors left are below the quorum.
 */
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, type WorkflowJson } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const rows = [1, 2, 3].map((n) => ({
	request_id: `q${n}`,
	request: `question ${n}`,
	response: `answer ${n}`,
}));

function workflow(options: IDataObject, continueOnFail = false): WorkflowJson {
	const wf = chain(
		{
			name: 'Judge',
			type: 'judgeRelevanceToQuery',
			// One call at a time per juror, and no cache: every test counts the calls made.
			parameters: { options: { concurrency: 1, cache: false, ...options } },
			credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
		},
		{ name: 'After', type: 'n8n-nodes-base.noOp' },
	);
	if (continueOnFail) wf.nodes.find((n) => n.name === 'Judge')!.continueOnFail = true;
	return wf;
}

// Every call reports 900 prompt + 100 completion tokens, whatever it was sent.
const USAGE = { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 };
const yes = () => ({ json: { reason: 'It answers the question.', verdict: 'yes' }, usage: USAGE });
const rejected = () => ({
	status: 401,
	error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
});

let server: OpenAIServer;
const run = (wf: WorkflowJson, input: IDataObject[] = rows) =>
	runWorkflow(wf, {
		startItems: input.map((json) => ({ json })),
		credentials: {
			ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
		},
	});
const scoresOf = (r: Awaited<ReturnType<typeof run>>): Score[] =>
	r.output('After').map((x) => (x.eval as Record<string, Score>).relevance_to_query);
const hintsOf = (r: Awaited<ReturnType<typeof run>>): string[] =>
	(r.run.data.resultData.runData.Judge[0].hints ?? []).map((h) => h.message);
const calls = (model: string) => server.chatRequests().filter((c) => c.model === model).length;

beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

describe("a panel's spend limit prices each juror at its own model", () => {
	// Output tokens only, so a call's reservation does not depend on its prompt: Max Tokens 100
	// reserves 100 completion tokens, $0.1 for the cheap juror ($1000 per 1M) and $1 for the dear
	// one ($10000 per 1M). A $0.5 limit admits the cheap juror's call and refuses the dear one's.
	// Priced at the node's model (the first juror's, the cheap one), both calls would pass.
	const prices = JSON.stringify({
		'cheap-model': { input: 0, output: 1000 },
		'dear-model': { input: 0, output: 10000 },
	});

	it("a USD limit admits the cheap juror's call and refuses the dear juror's, naming the juror and the row", async () => {
		server.setDefaultFor('cheap-model', yes);
		server.setDefaultFor('dear-model', yes);
		const r = await run(
			workflow({
				panelModels: 'cheap-model, dear-model',
				maxTokens: 100,
				spendLimitUnit: 'usd',
				spendLimit: 0.5,
				modelPrices: prices,
			}),
			rows.slice(0, 1),
		);
		expect(r.nodeError('Judge')).toBeUndefined();
		expect(calls('cheap-model')).toBe(1);
		expect(calls('dear-model')).toBe(0);
		const [s] = scoresOf(r);
		expect(s.status).toBe('error');
		expect(s.details?.errorKind).toBe('spend_limit');
		// The cheap call's $0.1 is in flight or already spent ($0.1 either way: it reported 100
		// completion tokens); the dear call's $1 on top passes $0.5.
		expect(s.error).toMatch(
			/^row 1 \(request_id "q1"\): Relevance to Query: panel: 1 of 2 jurors answered, below the quorum of 2: credential \(dear-model\): spend limit reached: \$0\.(00|10) of \$0\.50 spent in this execution( \(\$0\.10 more in flight\))?, and the next call \(about \$1\.00\) would pass it \(option Spend Limit\); not called$/,
		);
		const jurors = (s.details!.panel as { jurors: { model: string; status: string }[] }).jurors;
		expect(jurors.map((j) => [j.model, j.status])).toEqual([
			['cheap-model', 'ok'],
			['dear-model', 'error'],
		]);
	});

	it('with quorum 1 the cheap juror judges row 1 alone; the limit then stops the later rows', async () => {
		server.setDefaultFor('cheap-model', yes);
		server.setDefaultFor('dear-model', yes);
		const r = await run(
			workflow({
				panelModels: 'cheap-model, dear-model',
				panelQuorum: 1,
				maxTokens: 100,
				spendLimitUnit: 'usd',
				spendLimit: 0.5,
				modelPrices: prices,
			}),
		);
		expect(server.chatRequests()).toHaveLength(1);
		const scores = scoresOf(r);
		expect(scores.map((s) => s.status)).toEqual(['ok', 'error', 'error']);
		expect(scores[0].reason).toContain('1 of 2 jurors answered');
		for (const s of scores.slice(1)) expect(s.details?.errorKind).toBe('spend_limit');
	});

	it('a USD limit fails the node before any call when a juror has no price, naming its model', async () => {
		const r = await run(
			workflow({
				panelModels: 'cheap-model, unpriced-model',
				spendLimitUnit: 'usd',
				spendLimit: 1,
				modelPrices: prices,
			}),
		);
		expect(r.nodeError('Judge')).toMatch(/no price for the judge model "unpriced-model"/);
		expect(server.chatRequests()).toHaveLength(0);
	});
});

describe("a rejected juror's fatal error is told once", () => {
	it('the first of three jurors rejected, quorum 2: every row judged by the other two, one warning, one call to it', async () => {
		server.setDefaultFor('juror-a', rejected);
		server.setDefaultFor('juror-b', yes);
		server.setDefaultFor('juror-c', yes);
		const r = await run(workflow({ panelModels: 'juror-a, juror-b, juror-c', panelQuorum: 2 }));
		expect(r.nodeError('Judge')).toBeUndefined();
		const scores = scoresOf(r);
		expect(scores.map((s) => [s.status, s.value])).toEqual(rows.map(() => ['ok', true]));
		for (const s of scores) expect(s.reason).toContain('2 of 3 jurors answered');
		// A 401 is never retried, and later rows do not call a rejected juror again.
		expect(calls('juror-a')).toBe(1);
		expect(calls('juror-b')).toBe(3);
		expect(calls('juror-c')).toBe(3);
		const warned = hintsOf(r).filter((h) => h.includes('rejected'));
		expect(warned).toHaveLength(1);
		expect(warned[0]).toMatch(
			/^Relevance to Query: panel: 1 of 3 jurors was rejected and judged no further rows; the other 2 judged with the quorum of 2: credential \(juror-a\): authentication failed \(401\): Incorrect API key provided/,
		);
	});

	it('a rejected juror that leaves the panel below its quorum fails the node once, naming it', async () => {
		server.setDefaultFor('juror-a', yes);
		server.setDefaultFor('juror-b', rejected);
		const r = await run(workflow({ panelModels: 'juror-a, juror-b' }));
		expect(r.nodeError('Judge')).toMatch(
			/^Relevance to Query: panel: 1 of 2 jurors was rejected, leaving 1, below the quorum of 2: credential \(juror-b\): authentication failed \(401\): Incorrect API key provided/,
		);
		expect(calls('juror-b')).toBe(1);
	});

	it('with Continue On Fail every row leaves with its own error naming the juror', async () => {
		server.setDefaultFor('juror-a', yes);
		server.setDefaultFor('juror-b', rejected);
		const r = await run(workflow({ panelModels: 'juror-a, juror-b' }, true));
		expect(r.nodeError('Judge')).toBeUndefined();
		const scores = scoresOf(r);
		expect(scores.map((s) => s.status)).toEqual(['error', 'error', 'error']);
		scores.forEach((s, i) =>
			expect(s.error).toMatch(
				new RegExp(
					`^row ${i + 1} \\(request_id "q${i + 1}"\\): Relevance to Query: panel: 1 of 2 jurors answered, below the quorum of 2: credential \\(juror-b\\): authentication failed \\(401\\)`,
				),
			),
		);
		expect(calls('juror-b')).toBe(1);
	});
});

describe("a panel's Estimate Only prices each juror at its own model", () => {
	it('a cheap and a dear juror at Max Tokens 100: $0.1 + $1 a row, three rows $3.3', async () => {
		const prices = JSON.stringify({
			'cheap-model': { input: 0, output: 1000 },
			'dear-model': { input: 0, output: 10000 },
		});
		const r = await run(
			workflow({
				panelModels: 'cheap-model, dear-model',
				maxTokens: 100,
				runMode: 'estimate',
				modelPrices: prices,
			}),
		);
		expect(r.nodeError('Judge')).toBeUndefined();
		expect(server.chatRequests()).toHaveLength(0);
		const ests = r
			.output('After')
			.map(
				(x) =>
					(
						x.estimate as Record<
							string,
							{ calls: number; usd: number; model: string; run: { usd: number; calls: number } }
						>
					).relevance_to_query,
			);
		for (const e of ests) {
			expect(e.calls).toBe(2);
			expect(e.model).toBe('cheap-model+dear-model');
			// 100 completion tokens at $1000 and at $10000 per 1M output tokens.
			expect(e.usd).toBeCloseTo(1.1, 12);
			expect(e.run.calls).toBe(6);
			expect(e.run.usd).toBeCloseTo(3.3, 12);
		}
	});
});
