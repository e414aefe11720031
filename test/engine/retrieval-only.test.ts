/**
 * Retrieval-only rows on the real engine: Azure's document-retrieval data (real rows, no query and
 * no response: only the documents retrieved with their scores and graded relevance labels) ->
 * Eval Dataset -> Retrieval Metrics (NDCG@3 with exponential gain, as Azure's evaluator computes
 * it) -> a judge that needs a request, which says so on every row instead of calling a model.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { chain, runWorkflow } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const FILE = 'azure-samples-document-retrieval-trec-covid-trimmed.jsonl';
const file = readFileSync(path.join(__dirname, '../fixtures/datasets-collected', FILE));
const fileItem = {
	json: {},
	binary: {
		data: { data: file.toString('base64'), mimeType: 'application/jsonl', fileName: FILE },
	},
};

type Evals = Record<string, { value: number | null; status: string; reason?: string }>;

describe('retrieval-only rows: Eval Dataset -> Retrieval Metrics -> a judge', () => {
	let server: OpenAIServer;
	beforeAll(async () => {
		server = await startOpenAIServer();
	});
	afterAll(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('NDCG@3 over graded labels equals what Azure computes; the judge names the missing request', async () => {
		const wf = chain(
			{
				name: 'Eval Dataset',
				type: 'evalDataset',
				parameters: { source: 'binary', binaryProperty: 'data', format: 'auto', schema: 'auto' },
			},
			{
				name: 'NDCG',
				type: 'evalRetrievalMetrics',
				parameters: { metric: 'ndcg_at_k', k: 3, gain: 'exponential' },
			},
			{
				name: 'NDCG Linear',
				type: 'evalRetrievalMetrics',
				parameters: { metric: 'ndcg_at_k', k: 3, options: { resultKey: 'ndcg_linear' } },
			},
			{
				name: 'Relevance to Query',
				type: 'judgeRelevanceToQuery',
				credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
			},
		);
		const r = await runWorkflow(wf, {
			startItems: [fileItem],
			credentials: {
				ragEvalLlmApi: {
					provider: 'compatible',
					baseUrl: server.baseUrl,
					apiKey: 'sk-retrieval-only-0000',
					model: 'judge-model',
				},
			},
		});
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();
		expect(r.output('Eval Dataset', 1)).toEqual([]);

		// By hand, Azure's way: rank by relevance_score; gain 2^label - 1 over log2(rank + 1); the
		// ideal is the three best labels, 2, 2, 2: 3 + 3/log2(3) + 3/2.
		const ideal = 3 + 3 / Math.log2(3) + 1.5;
		const want = [
			1 / ideal, // retrieved labels 1, 0, 0
			(3 / Math.log2(3) + 3 / 2) / ideal, // 0, 2, 2
			3 / ideal, // 2, 0, 0
		];
		const out = r.output('Relevance to Query');
		expect(out).toHaveLength(3);
		out.forEach((x, i) => {
			const evals = x.eval as Evals;
			expect(evals.ndcg_at_k.status).toBe('ok');
			expect(evals.ndcg_at_k.value).toBeCloseTo(want[i], 12);
		});
		// 0.156426..., as the Azure evaluator reports ndcg@3 for the first row of its sample.
		expect((out[0].eval as Evals).ndcg_at_k.value).toBeCloseTo(0.1564262420075855, 12);
		// Linear gain (trec_eval) on the same row: 1 over 2 + 2/log2(3) + 1.
		expect((out[0].eval as Evals).ndcg_linear.value).toBeCloseTo(1 / (3 + 2 / Math.log2(3)), 12);

		for (const x of out) {
			const judged = Object.entries(x.eval as Evals).find(([k]) => !k.startsWith('ndcg'));
			expect(judged?.[1]).toMatchObject({ status: 'not_applicable', value: null });
			expect(judged?.[1].reason).toMatch(/missing request/);
		}
		expect(server.requests).toHaveLength(0);
	});
});
