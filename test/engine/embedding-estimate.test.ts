/**
 * Estimate Only on the two embedding nodes, on the real engine against the local server: nothing
 * is called (neither /embeddings nor the judge), and every row leaves with its tokens and USD
 * under `estimate.<key>`, never a score. Semantic Similarity counts the response and the expected
 * response with the embedding model's tokenizer (cl100k for text-embedding-3-small) and prices
 * them at the default embedding price; Answer Relevancy adds its question call, counted as every
 * judge call is, and the request plus N stand-in questions of the request's length.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';
import type { RowEstimate, RunEstimate } from '../../src/judges/estimate';
import { countTokens, loadEncoder } from '../../src/judges/estimate';
import { chain, runWorkflow } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

type Est = RowEstimate & {
	run: RunEstimate;
	embedding?: { model: string; texts: number; promptTokens: number; usd?: number; basis?: string };
};

const simRows = [
	{
		request_id: 's1',
		response: 'Returns are accepted within 30 days of delivery.',
		expected_response: 'Returns are accepted within 30 days of the delivery date.',
	},
	{ request_id: 's2', response: 'An answer with nothing to compare to.' },
];

const arRow = {
	request_id: 'a1',
	request: 'How long do I have to return an item?',
	response: 'You can return an item within 30 days of delivery.',
};

describe('Estimate Only on the embedding nodes', () => {
	let server: OpenAIServer;
	let credentials: Record<string, ICredentialDataDecryptedObject>;
	beforeEach(async () => {
		server = await startOpenAIServer();
		credentials = {
			ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
		};
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const run = (type: string, parameters: INodeParameters, items: object[]) =>
		runWorkflow(
			chain({
				name: 'Node',
				type,
				parameters,
				credentials: { ragEvalLlmApi: { id: '1', name: 'LLM' } },
			}),
			{
				startItems: items.map((json) => ({ json: json as Record<string, string> })),
				credentials,
			},
		);

	it('Semantic Similarity: the two texts counted and priced at the embedding price, no call', async () => {
		const r = await run('evalSemanticSimilarity', { options: { runMode: 'estimate' } }, simRows);
		expect(r.nodeError('Node')).toBeUndefined();
		expect(server.embeddingRequests()).toHaveLength(0);
		expect(server.chatRequests()).toHaveLength(0);
		const out = r.output('Node');
		expect(out).toHaveLength(2);
		for (const x of out) expect(x.eval).toBeUndefined();
		const [a, b] = out.map((x) => (x.estimate as Record<string, Est>).semantic_similarity);
		const enc = await loadEncoder('cl100k_base');
		const tokens =
			countTokens(enc, simRows[0].response) + countTokens(enc, simRows[0].expected_response!);
		// "Returns are accepted within 30 days of delivery." is 10 cl100k tokens, the reference 12.
		expect(tokens).toBe(22);
		expect(a).toMatchObject({
			status: 'estimated',
			model: 'text-embedding-3-small',
			encoding: 'cl100k_base',
			approximate: false,
			calls: 1,
			promptTokens: 22,
			completionTokens: 0,
			totalTokens: 22,
			pricedAs: 'text-embedding-3-small',
		});
		// The default price of text-embedding-3-small: USD 0.02 per 1M input tokens.
		expect(a.usd).toBeCloseTo((22 * 0.02) / 1e6, 15);
		expect(a.embedding).toMatchObject({ texts: 2, promptTokens: 22 });
		expect(b).toMatchObject({ status: 'not_applicable', calls: 0, totalTokens: 0 });
		expect(b.reason).toContain('expected_response');
		expect(a.run).toMatchObject({ rows: 2, calls: 1, promptTokens: 22, totalTokens: 22 });
		expect(a.run.usd).toBeCloseTo((22 * 0.02) / 1e6, 15);
	});

	it('Answer Relevancy: the question call plus the request and N stand-in questions, no call', async () => {
		const prices = JSON.stringify({
			'judge-model': { input: 1, output: 2 },
			'text-embedding-3-small': { input: 0.02, output: 0 },
		});
		const r = await run(
			'evalAnswerRelevancy',
			{ options: { runMode: 'estimate', modelPrices: prices, questionCount: 2 } },
			[arRow],
		);
		expect(r.nodeError('Node')).toBeUndefined();
		expect(server.embeddingRequests()).toHaveLength(0);
		expect(server.chatRequests()).toHaveLength(0);
		const [x] = r.output('Node');
		expect(x.eval).toBeUndefined();
		const e = (x.estimate as Record<string, Est>).answer_relevancy;
		const enc = await loadEncoder('cl100k_base');
		const requestTokens = countTokens(enc, arRow.request);
		// "How long do I have to return an item?" is 10 cl100k tokens; three texts of it.
		expect(requestTokens).toBe(10);
		expect(e.embedding).toMatchObject({
			model: 'text-embedding-3-small',
			texts: 3,
			promptTokens: 30,
		});
		expect(e.embedding?.basis).toMatch(/2 questions counted at the request's length/);
		expect(e.embedding?.usd).toBeCloseTo((30 * 0.02) / 1e6, 15);
		expect(e).toMatchObject({
			status: 'estimated',
			model: 'judge-model',
			calls: 2,
			completionTokens: 300,
		});
		// The question prompt is the judge part: the rendered system and user turns.
		const judgePrompt = e.promptTokens - 30;
		expect(judgePrompt).toBeGreaterThan(100);
		expect(e.totalTokens).toBe(judgePrompt + 30 + 300);
		expect(e.usd).toBeCloseTo((judgePrompt * 1 + 300 * 2) / 1e6 + (30 * 0.02) / 1e6, 15);
		expect(e.run).toMatchObject({ rows: 1, calls: 2, totalTokens: e.totalTokens });
	});

	it('an embedding model without a price is counted, not priced, and nothing is stored', async () => {
		const folder = mkdtempSync(join(tmpdir(), 'embed-estimate-'));
		const r = await run(
			'evalSemanticSimilarity',
			{
				embeddingModel: 'house-embedder',
				options: { runMode: 'estimate', cacheStore: 'disk', cacheFolder: folder },
			},
			simRows.slice(0, 1),
		);
		expect(r.nodeError('Node')).toBeUndefined();
		expect(server.embeddingRequests()).toHaveLength(0);
		const [e] = r
			.output('Node')
			.map((x) => (x.estimate as Record<string, Est>).semantic_similarity);
		// Outside OpenAI's families the count is o200k's, flagged approximate.
		const enc = await loadEncoder('o200k_base');
		const tokens =
			countTokens(enc, simRows[0].response) + countTokens(enc, simRows[0].expected_response!);
		expect(e).toMatchObject({
			status: 'estimated',
			model: 'house-embedder',
			encoding: 'o200k_base',
			approximate: true,
			calls: 1,
			promptTokens: tokens,
			totalTokens: tokens,
		});
		expect(e.usd).toBeUndefined();
		expect(e.run.usd).toBeUndefined();
		expect(e.run.unpriced).toContain('house-embedder');
		expect(readdirSync(folder)).toEqual([]);
	});
});
