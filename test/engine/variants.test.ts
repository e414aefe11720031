/**
 * Pairwise Judge -> Compare Variants, and pointwise scores of two variants -> Compare Variants,
 * on the real engine. The judge talks HTTP through the `openai` SDK to the local server, which
 * plays a judge that prefers the grounded answer, except on some requests where it always picks
 * the answer in the first slot (position bias): those must come out as ties, position-inconsistent,
 * and the judge's consistency must be reported.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, singleNode } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const SECRET = 'sk-test-VARIANTS-SECRET-51c2';
const N = 12;
// On these requests the judge picks whichever answer it reads first.
const BIASED = new Set([3, 7, 10]);

function request(i: number): string {
	return `Question ${i}: how many days does a refund take?`;
}
// Variant "cheap" invents a number; variant "grounded" quotes the context.
const grounded = (i: number) => `GROUNDED answer ${i}: 14 days, as the policy says.`;
const invented = (i: number) => `Answer ${i}: about 30 days, I think.`;

function judgeReply(req: RecordedRequest) {
	const user = req.messages?.find((m) => m.role === 'user')?.content ?? '';
	const i = Number(/Question (\d+)/.exec(user)?.[1]);
	const first = user.indexOf('First answer:');
	const second = user.indexOf('Second answer:');
	const firstText = user.slice(first, second);
	if (BIASED.has(i))
		return { json: { reason: 'The first answer reads better.', verdict: 'first' } };
	const verdict = firstText.includes('GROUNDED') ? 'first' : 'second';
	return { json: { reason: 'Only one answer is backed by the context.', verdict } };
}

const creds = { ragEvalLlmApi: { id: '1', name: 'Judge' } };

describe('Compare Variants on the real engine', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(judgeReply);
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('pairwise verdicts in both orders, flips as ties, then the comparison names the better variant and the judge', async () => {
		// variant_a alternates so the better variant sits in both slots of the row.
		const rows: IDataObject[] = Array.from({ length: N }, (_, i) => {
			const aIsCheap = i % 2 === 0;
			return {
				request_id: `q${i}`,
				request: request(i),
				retrieved_context: [{ doc_uri: 'kb/refunds.md', content: 'Refunds take 14 days.' }],
				variant_a: aIsCheap ? 'cheap' : 'grounded',
				variant_b: aIsCheap ? 'grounded' : 'cheap',
				response_a: aIsCheap ? invented(i) : grounded(i),
				response_b: aIsCheap ? grounded(i) : invented(i),
			};
		});
		const run = await runWorkflow(
			chain(
				{
					name: 'Pairwise',
					type: 'judgePairwise',
					parameters: {
						model: 'judge-model',
						options: { criterion: 'groundedness', cache: false },
					},
					credentials: creds,
				},
				{
					name: 'Compare Variants',
					type: 'compareVariants',
					parameters: { options: { baseline: 'cheap' } },
				},
				{
					name: 'Eval Report',
					type: 'evalReport',
					parameters: { formats: ['markdown', 'slack', 'junit'], options: { textInJson: true } },
				},
			),
			{
				startItems: rows.map((json) => ({ json })),
				credentials: {
					ragEvalLlmApi: {
						provider: 'compatible',
						baseUrl: server.baseUrl,
						apiKey: SECRET,
						model: 'default-model',
					},
				},
			},
		);
		for (const n of run.executedNodes()) expect(run.nodeError(n)).toBeUndefined();

		// Two calls a row, and neither variant's name ever reaches the judge.
		const calls = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
		expect(calls).toHaveLength(2 * N);
		for (const c of calls)
			expect(JSON.stringify(c.messages)).not.toMatch(/grounded'|cheap|variant/);

		const judged = run.output('Pairwise');
		expect(judged).toHaveLength(N);
		const scores = judged.map((j) => (j.eval as Record<string, Score>).pairwise);
		scores.forEach((s, i) => {
			expect(s.status).toBe('ok');
			const d = s.details as Record<string, unknown>;
			expect(d.criterion).toBe('groundedness');
			if (BIASED.has(i)) {
				expect([s.value, d.positionConsistent, d.flipped, d.winner]).toEqual([
					0.5,
					false,
					true,
					'tie',
				]);
				expect(d.slots).toEqual(['first', 'first']);
				expect(s.reason).toMatch(/Position-inconsistent/);
			} else {
				// a is the cheap variant on even rows: it loses there and wins on odd rows.
				expect([s.value, d.positionConsistent]).toEqual([i % 2 === 0 ? 0 : 1, true]);
			}
		});

		const [cmp] = run.output('Compare Variants');
		expect(cmp.kind).toBe('variantComparison');
		expect(cmp.variants).toEqual(['cheap', 'grounded']);
		const pw = (cmp.pairwise as IDataObject[])[0];
		expect(pw).toMatchObject({
			criterion: 'groundedness',
			a: 'cheap',
			b: 'grounded',
			wins: 0,
			ties: 3,
			losses: 9,
			positionInconsistent: 3,
		});
		// 9 decisive pairs all for grounded: 2 / 2^9.
		expect((pw.sign as IDataObject).pValue).toBeCloseTo(2 / 512, 12);
		expect(pw.verdict).toBe('b_better');
		const health = (cmp.judgeHealth as IDataObject[])[0];
		expect(health).toMatchObject({
			judged: 12,
			consistent: 9,
			flipped: 3,
			consistency: 0.75,
			firstSlot: 15,
			secondSlot: 9,
		});
		expect(health.warning).toMatch(
			/judge judge-model on groundedness changed its verdict with the order on 3 of 12 pairs \(75% consistent/,
		);
		const [line] = cmp.summary as IDataObject[];
		expect(line.line).toMatch(
			/^grounded vs cheap: grounded better on groundedness \(pairwise\) \(p 0\.0039\)/,
		);
		expect(JSON.stringify(run.run.data)).not.toContain(SECRET);
		expect(JSON.stringify(cmp)).not.toMatch(/NaN/);

		// The report names the better variant, the ties and the judge's consistency.
		const [report] = run.output('Eval Report');
		expect(report.variants).toEqual([line.line]);
		const md = report.markdown as string;
		expect(md).toContain(
			'| groundedness | grounded vs cheap | 9/3/0 | 88% [60%, 97%] | 0.0039 | 0.0039 | 3 | 12/12 | grounded better |',
		);
		expect(md).toContain('| groundedness | judge-model | 75% (9/12) | 3 | 63% (p 0.31) |');
		expect(md).toContain('Position bias: judge judge-model on groundedness');
		// One case for the pairwise criterion: no variant is worse than the baseline (cheap), so it passes.
		expect(report.junit).toContain('tests="1" failures="0" errors="0"');
		expect(report.junit).toContain(
			'<testcase classname="variants" name="groundedness (pairwise)">',
		);
		expect(JSON.stringify(report.slack)).toContain('grounded better on groundedness');
	});

	it('pointwise scores and Cost & Latency of two variants: paired tests, Holm, cost and latency, unpaired rows named', async () => {
		const likert = (metric: string, value: number): Score => ({
			metric,
			value,
			scale: { kind: 'likert', min: 1, max: 5 },
			threshold: 3,
			direction: 'higher',
			pass: value >= 3,
			status: 'ok',
			signature: `judge:${metric}@1`,
		});
		const rows: IDataObject[] = [];
		for (let i = 0; i < N; i++)
			for (const variant of ['gpt-big', 'gpt-small']) {
				// gpt-small is missing its answer to the last request.
				if (variant === 'gpt-small' && i === N - 1) continue;
				const small = variant === 'gpt-small';
				rows.push({
					request_id: `q${i}`,
					request: request(i),
					variant,
					// Token counts and latency, from which Cost & Latency prices the row.
					total_input_token_count: small ? 400 : 1000,
					total_output_token_count: small ? 100 : 250,
					latency_seconds: small ? 2.8 : 2,
					eval: {
						relevance: likert('relevance', 4),
						groundedness: likert('groundedness', small && i < 9 ? 2 : 4),
					},
				});
			}
		const run = await runWorkflow(
			chain(
				{
					name: 'Cost & Latency',
					type: 'evalCostLatency',
					parameters: { model: 'gpt-4o-mini', maxLatencySeconds: 10 },
				},
				{ name: 'Compare Variants', type: 'compareVariants', parameters: {} },
			),
			{ startItems: rows.map((json) => ({ json })) },
		);
		for (const n of run.executedNodes()) expect(run.nodeError(n)).toBeUndefined();
		const [cmp] = run.output('Compare Variants');
		expect(cmp.variants).toEqual(['gpt-big', 'gpt-small']);
		const pairs = cmp.pairs as IDataObject[];
		const g = pairs.find((p) => p.metric === 'groundedness')!;
		// 9 equal drops among 11 pairs: the exact permutation test, 2 / 2^9, Holm x2.
		expect(g).toMatchObject({ pairs: 11, test: 'wilcoxon-permutation', verdict: 'a_better' });
		expect(g.pValue).toBeCloseTo(2 / 512, 12);
		expect(g.pAdjusted).toBeCloseTo(4 / 512, 12);
		expect(pairs.find((p) => p.metric === 'relevance')!.verdict).toBe('no_difference');
		expect(cmp.unpaired).toEqual([
			expect.objectContaining({
				variant: 'gpt-big',
				key: 'q11',
				reason: "no row of 'gpt-small' for this request",
			}),
		]);
		const cost = cmp.cost as Record<
			string,
			{ costUsd: { mean: number }; latencySeconds: { mean: number } }
		>;
		expect(cost['gpt-big'].costUsd.mean).toBeCloseTo((1000 * 0.15 + 250 * 0.6) / 1e6, 15);
		expect(cost['gpt-small'].costUsd.mean).toBeCloseTo((400 * 0.15 + 100 * 0.6) / 1e6, 15);
		const [line] = cmp.summary as IDataObject[];
		expect(line.line).toBe(
			'gpt-small vs gpt-big: gpt-big better on groundedness (p 0.0078), no difference on relevance, 60% cheaper, 1.4x slower; rows gpt-big 12/12, gpt-small 11/12 (alpha 0.05, Holm)',
		);
	});

	it('on the one judge runtime: each order cached under its own key, Estimate Only counts two calls a row', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'pairwise-cache-'));
		const rows: IDataObject[] = [0, 1].map((i) => ({
			request_id: `q${i}`,
			request: request(i),
			variant_a: 'cheap',
			variant_b: 'grounded',
			response_a: invented(i),
			response_b: grounded(i),
		}));
		const credentials = {
			ragEvalLlmApi: {
				provider: 'compatible',
				baseUrl: server.baseUrl,
				apiKey: SECRET,
				model: 'judge-model',
			},
		};
		const judge = (options: Record<string, string>) =>
			chain({
				name: 'Pairwise',
				type: 'judgePairwise',
				parameters: { options },
				credentials: creds,
			});
		try {
			const cached = { cacheFolder: dir, cacheStore: 'disk' };
			const first = await runWorkflow(judge(cached), {
				startItems: rows.map((json) => ({ json })),
				credentials,
			});
			const second = await runWorkflow(judge(cached), {
				startItems: rows.map((json) => ({ json })),
				credentials,
			});
			expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(4);
			const a = first.output('Pairwise').map((j) => (j.eval as Record<string, Score>).pairwise);
			const b = second.output('Pairwise').map((j) => (j.eval as Record<string, Score>).pairwise);
			expect(b.map((s) => [s.value, s.cached, s.attempts])).toEqual([
				[0, true, 0],
				[0, true, 0],
			]);
			expect(b.map((s) => s.value)).toEqual(a.map((s) => s.value));

			const est = await runWorkflow(judge({ runMode: 'estimate' }), {
				startItems: rows.map((json) => ({ json })),
				credentials,
			});
			expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(4);
			const e = est.output('Pairwise')[0].estimate as Record<string, IDataObject>;
			expect(e.pairwise).toMatchObject({ status: 'estimated', calls: 2 });
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('fails with the reason when the rows name fewer than two variants', async () => {
		const run = await runWorkflow(singleNode('n8n-nodes-rag-eval.compareVariants', {}), {
			startItems: [{ json: { request_id: 'q1', eval: {} } }],
		});
		expect(run.nodeError('Node')).toMatch(/at least two variants; found none/);
	});
});
