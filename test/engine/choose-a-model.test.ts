/**
 * "Choose a model" on the real engine, three variants of one app answering the same 12 requests:
 * model-b is better on groundedness, model-c is cheaper and faster, model-a is the baseline. The
 * pointwise Groundedness judge and the Pairwise Judge talk HTTP to the local server, which plays a
 * judge that prefers the grounded answer but on three requests always picks the first slot. Then
 * Compare Variants -> Eval Report: the report names the better variant on that judge, the cost
 * difference, a tie for every flipped pair, Bradley-Terry and the judge's position consistency.
 */
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const SECRET = 'sk-test-CHOOSE-MODEL-9e1d';
const N = 12;
const BIASED = new Set([2, 5, 8]);
const MODELS = ['model-a', 'model-b', 'model-c'];

function answer(model: string, i: number): string {
	return model === 'model-b'
		? `Refunds take 14 days (policy, section ${i}). [grounded]`
		: `Refunds are quick, usually a couple of weeks (${model}, ${i}).`;
}

function judgeReply(req: RecordedRequest) {
	const system = req.messages?.find((m) => m.role === 'system')?.content ?? '';
	const user = req.messages?.find((m) => m.role === 'user')?.content ?? '';
	if (/You compare two answers/.test(system)) {
		const i = Number(/Request \[(\d+)\]/.exec(user)?.[1]);
		if (BIASED.has(i)) return { json: { reason: 'The first one.', verdict: 'first' } };
		const first = user.slice(user.indexOf('First answer:'), user.indexOf('Second answer:'));
		const second = user.slice(user.indexOf('Second answer:'));
		const g1 = first.includes('[grounded]');
		const g2 = second.includes('[grounded]');
		const verdict = g1 === g2 ? 'tie' : g1 ? 'first' : 'second';
		return { json: { reason: 'Compared with the context.', verdict } };
	}
	if (/supported by a given context/.test(system)) {
		const grounded = user.includes('[grounded]');
		return {
			json: { reason: grounded ? 'Stated in the context.' : 'Vague.', score: grounded ? 5 : 3 },
		};
	}
	return { status: 500, error: { message: `unexpected prompt: ${system.slice(0, 60)}` } };
}

const creds = { ragEvalLlmApi: { id: '1', name: 'Judge' } };
const request = (i: number) => `Request [${i}]: how long do refunds take?`;
const context = [{ doc_uri: 'kb/refunds.md', content: 'Refunds take 14 days.' }];

describe('Choose a model: three variants, pointwise and pairwise, on the real engine', () => {
	let server: OpenAIServer;
	beforeAll(async () => {
		server = await startOpenAIServer();
		server.setDefault(judgeReply);
	});
	afterAll(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('names the better variant, the cheaper one, every flipped pair a tie and the judge', async () => {
		const credentials = {
			ragEvalLlmApi: {
				provider: 'compatible',
				baseUrl: server.baseUrl,
				apiKey: SECRET,
				model: 'judge-model',
			},
		};
		// Each variant's answers, with what the app's Chat Model used (model-c: 40% of the tokens).
		const answers: IDataObject[] = [];
		for (let i = 0; i < N; i++)
			for (const variant of MODELS)
				answers.push({
					request_id: `q${i}`,
					request: request(i),
					retrieved_context: context,
					variant,
					response: answer(variant, i),
					total_input_token_count: variant === 'model-c' ? 400 : 1000,
					total_output_token_count: variant === 'model-c' ? 40 : 100,
					latency_seconds: variant === 'model-c' ? 1 : 2,
				});
		const pointwise = await runWorkflow(
			chain(
				{
					name: 'Groundedness',
					type: 'judgeGroundedness',
					parameters: { options: { cache: false } },
					credentials: creds,
				},
				{
					name: 'Cost & Latency',
					type: 'evalCostLatency',
					parameters: { model: 'gpt-4o-mini', maxLatencySeconds: 10 },
				},
			),
			{ startItems: answers.map((json) => ({ json })), credentials },
		);
		for (const n of pointwise.executedNodes()) expect(pointwise.nodeError(n)).toBeUndefined();
		const scored = pointwise.output('Cost & Latency');
		expect(scored).toHaveLength(3 * N);

		// Every pair of variants on every request, the first-named variant alternating.
		const pairs: IDataObject[] = [];
		for (let i = 0; i < N; i++)
			for (const [x, y] of [
				['model-a', 'model-b'],
				['model-a', 'model-c'],
				['model-b', 'model-c'],
			]) {
				const [a, b] = i % 2 ? [y, x] : [x, y];
				pairs.push({
					request_id: `q${i}`,
					request: request(i),
					retrieved_context: context,
					variant_a: a,
					variant_b: b,
					response_a: answer(a, i),
					response_b: answer(b, i),
				});
			}
		const pairwise = await runWorkflow(
			chain({
				name: 'Pairwise',
				type: 'judgePairwise',
				parameters: { options: { criterion: 'groundedness', cache: false } },
				credentials: creds,
			}),
			{ startItems: pairs.map((json) => ({ json })), credentials },
		);
		expect(pairwise.nodeError('Pairwise')).toBeUndefined();
		const verdicts = pairwise.output('Pairwise');
		for (const v of verdicts) {
			const s = (v.eval as Record<string, Score>).pairwise;
			const i = Number(String(v.request_id).slice(1));
			expect(s.status).toBe('ok');
			// Every pair the judge answered "first" in both orders is a tie, position-inconsistent.
			if (BIASED.has(i))
				expect([s.value, (s.details as IDataObject).positionConsistent]).toEqual([0.5, false]);
		}

		const compared = await runWorkflow(
			chain(
				{
					name: 'Compare Variants',
					type: 'compareVariants',
					parameters: { options: { resamples: 300 } },
				},
				{
					name: 'Eval Report',
					type: 'evalReport',
					parameters: { formats: ['markdown', 'junit'], options: { textInJson: true } },
				},
			),
			{ startItems: [...scored, ...verdicts].map((json) => ({ json })) },
		);
		for (const n of compared.executedNodes()) expect(compared.nodeError(n)).toBeUndefined();
		const [cmp] = compared.output('Compare Variants');
		expect(cmp.variants).toEqual(MODELS);
		const lines = (cmp.summary as IDataObject[]).map((s) => s.line);
		expect(lines).toEqual([
			expect.stringMatching(
				/^model-b vs model-a: model-b better on groundedness \(p 0\.00\d+\), model-b better on groundedness \(pairwise\) \(p 0\.0\d+\); rows model-a 12\/12, model-b 12\/12/,
			),
			expect.stringMatching(
				/^model-c vs model-a: no difference on groundedness, groundedness \(pairwise\), 60% cheaper, 2\.0x faster;/,
			),
			expect.stringMatching(
				/^model-c vs model-b: model-b better on groundedness \(p 0\.00\d+\), model-b better on groundedness \(pairwise\) \(p 0\.0\d+\), 60% cheaper, 2\.0x faster;/,
			),
		]);
		// Pairwise: 9 decisive for model-b against each other variant, the 3 biased requests ties.
		const ab = (cmp.pairwise as IDataObject[]).find((p) => p.a === 'model-a' && p.b === 'model-b')!;
		expect(ab).toMatchObject({ wins: 0, ties: 3, losses: 9, positionInconsistent: 3 });
		const ac = (cmp.pairwise as IDataObject[]).find((p) => p.a === 'model-a' && p.b === 'model-c')!;
		expect(ac).toMatchObject({ wins: 0, ties: 12, losses: 0, verdict: 'no_difference' });
		// Bradley-Terry: model-b first, its interval above the others' estimates.
		const [rank] = cmp.rankings as {
			strengths: Record<string, { strength: number; low: number }>;
		}[];
		expect(rank.strengths['model-b'].strength).toBeGreaterThan(rank.strengths['model-a'].strength);
		expect(rank.strengths['model-b'].low).toBeGreaterThan(rank.strengths['model-c'].strength);
		const [health] = cmp.judgeHealth as IDataObject[];
		expect(health).toMatchObject({ judged: 36, consistent: 27, consistency: 0.75 });

		const [report] = compared.output('Eval Report');
		const md = report.markdown as string;
		expect(md).toContain('model-b better on groundedness');
		expect(md).toContain('60% cheaper');
		expect(md).toContain('| groundedness | judge-model | 75% (27/36) | 9 |');
		expect(md).toContain('Position bias: judge judge-model on groundedness');
		expect(md).toContain('## Bradley-Terry: groundedness');
		// JUnit: groundedness and its pairwise case, neither worse than the baseline model-a.
		expect(report.junit).toContain('tests="2" failures="0" errors="0"');
		expect(
			JSON.stringify([pointwise.run.data, pairwise.run.data, compared.run.data]),
		).not.toContain(SECRET);
	});
});
