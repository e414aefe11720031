/**
 * Semantic Similarity on the real engine, against the local server's embeddings (deterministic
 * word-hash vectors): the value is the cosine the test computes from the server's vectors, a
 * second run makes no embedding call, a failing call is the row's error, a row without an
 * expected response is not applicable, and a connected Embeddings sub-node embeds instead of the
 * credential.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { countTokens, loadEncoder } from '../../src/judges/estimate';
import { chain, runWorkflow, type WorkflowJson } from '../support/engine';
import {
	approxTokens,
	embeddingInputs,
	embedTestText,
	faults,
	startOpenAIServer,
	type OpenAIServer,
} from '../support/openai-server';

const rows = [
	{
		request_id: 's1',
		response: 'Returns are accepted within 30 days of delivery.',
		expected_response: 'Returns are accepted within 30 days of the delivery date.',
	},
	{
		request_id: 's2',
		response: 'The store opens at nine on Saturday.',
		expected_response: 'Refunds take five business days.',
	},
	{ request_id: 's3', response: 'An answer with nothing to compare to.' },
];

/** The cosine of two vectors, written out here apart from the code under test. */
function handCosine(a: number[], b: number[]): number {
	let dot = 0;
	let na = 0;
	let nb = 0;
	a.forEach((x, i) => {
		dot += x * b[i];
		na += x * x;
		nb += b[i] * b[i];
	});
	return dot / (Math.sqrt(na) * Math.sqrt(nb));
}

const serverCosine = (r: (typeof rows)[number]) =>
	handCosine(embedTestText(r.response), embedTestText(r.expected_response as string));

function workflow(parameters: INodeParameters, withCredential = true): WorkflowJson {
	return chain(
		{
			name: 'Similarity',
			type: 'evalSemanticSimilarity',
			parameters,
			...(withCredential ? { credentials: { ragEvalLlmApi: { id: '1', name: 'LLM' } } } : {}),
		},
		{ name: 'Eval Aggregate', type: 'evalAggregate' },
	);
}

describe('Semantic Similarity on the real engine', () => {
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
	const run = (parameters: INodeParameters, items = rows, wf = workflow(parameters)) =>
		runWorkflow(wf, { startItems: items.map((json) => ({ json })), credentials });
	const scores = (r: Awaited<ReturnType<typeof run>>): Score[] =>
		r.output('Similarity').map((x) => (x.eval as Record<string, Score>).semantic_similarity);

	it("scores the cosine of the server's vectors; the re-run makes no embedding call", async () => {
		const options = {
			cacheFolder: mkdtempSync(join(tmpdir(), 'embed-cache-')),
			cacheStore: 'disk',
		};
		const cold = await run({ options });
		expect(cold.nodeError('Similarity')).toBeUndefined();
		// One call per row with both texts, both texts in it: none for the row without a reference.
		const calls = server.embeddingRequests();
		expect(calls).toHaveLength(2);
		expect(calls.map(embeddingInputs).sort()).toEqual(
			[
				[rows[0].response, rows[0].expected_response],
				[rows[1].response, rows[1].expected_response],
			].sort(),
		);
		expect((calls[0].body as IDataObject).model).toBe('text-embedding-3-small');
		const [a, b, c] = scores(cold);
		const cosA = serverCosine(rows[0]);
		const cosB = serverCosine(rows[1]);
		// The two answers share 8 words of their 8 and 10 (cosine 8 / sqrt(80) = 0.894); the
		// unrelated pair shares none (0).
		expect(cosA).toBeGreaterThan(0.75);
		expect(cosB).toBeLessThan(0.75);
		expect(a.value as number).toBeCloseTo(cosA, 12);
		expect(b.value as number).toBeCloseTo(cosB, 12);
		expect(a).toMatchObject({
			status: 'ok',
			pass: true,
			threshold: 0.75,
			model: 'text-embedding-3-small',
			attempts: 1,
			signature: 'metric:semantic_similarity@1|embed:text-embedding-3-small|cos:raw',
		});
		expect(b).toMatchObject({ status: 'ok', pass: false });
		// The server's usage: its token count of each text, summed.
		const tokensA =
			approxTokens(rows[0].response) + approxTokens(rows[0].expected_response as string);
		expect(a.usage).toEqual({ promptTokens: tokensA, completionTokens: 0, totalTokens: tokensA });
		expect(a.details?.cache).toEqual({
			store: 'disk',
			hit: false,
			hits: 0,
			misses: 2,
			savedCalls: 0,
		});
		expect(c).toMatchObject({ status: 'not_applicable', value: null, pass: null });
		expect(c.reason).toContain('expected_response');
		const coldCost = (cold.output('Eval Aggregate')[0] as IDataObject).cost as IDataObject;
		expect(coldCost).toMatchObject({ calls: 2 });
		// The run level: two rows measured, one not applicable, the mean of the two cosines.
		const perMetric = (cold.output('Eval Aggregate')[0] as IDataObject).perMetric as IDataObject;
		const agg = perMetric.semantic_similarity as IDataObject;
		expect(agg).toMatchObject({ measured: 2, notApplicable: 1, errored: 0 });
		expect((agg.mean as IDataObject).value as number).toBeCloseTo((cosA + cosB) / 2, 12);
		expect((agg.passRate as IDataObject).value).toBe(0.5);

		const warm = await run({ options });
		expect(server.embeddingRequests()).toHaveLength(2);
		const [wa, wb] = scores(warm);
		expect(wa.value).toBe(a.value);
		expect(wb.value).toBe(b.value);
		expect(wa).toMatchObject({ cached: true, attempts: 0, usage: a.usage });
		expect(wa.details?.cache).toMatchObject({
			store: 'disk',
			hit: true,
			hits: 2,
			misses: 0,
			savedCalls: 1,
			savedUsage: a.usage,
		});
		const warmCost = (warm.output('Eval Aggregate')[0] as IDataObject).cost as IDataObject;
		expect(warmCost).toMatchObject({ calls: 0, totalTokens: 0 });
	});

	it('Rescaled mode maps the 0.7 floor to 0: (cos - 0.7) / 0.3, at least 0', async () => {
		const r = await run({ scoreMode: 'rescaled', threshold: 0.5, options: { cache: false } });
		const [a, b] = scores(r);
		const cosA = serverCosine(rows[0]);
		expect(a.value as number).toBeCloseTo((cosA - 0.7) / 0.3, 12);
		expect(a.details).toMatchObject({ rescaledFrom: 0.7 });
		expect(a.details?.cosine as number).toBeCloseTo(cosA, 12);
		expect(a.signature).toBe(
			'metric:semantic_similarity@1|embed:text-embedding-3-small|cos:rescaled-from-0.7',
		);
		// The unrelated pair's cosine is below the floor: 0, not a negative score.
		expect(b.value).toBe(0);
		expect(b.pass).toBe(false);
	});

	it("a failing embeddings call is the row's error naming the row, never a score", async () => {
		server.setEmbeddingDefault((req) =>
			embeddingInputs(req).includes(rows[0].response) ? faults.serverError() : {},
		);
		const r = await run({ options: { cache: false, maxRetries: 1 } });
		expect(r.nodeError('Similarity')).toBeUndefined();
		const [a, b] = scores(r);
		expect(a).toMatchObject({ status: 'error', value: null, pass: null, attempts: 2 });
		expect(a.error).toMatch(
			/^row 1 \(request_id "s1"\): Semantic Similarity: the embedding call failed: server error \(500\)/,
		);
		expect(b).toMatchObject({ status: 'ok' });
		// The failed row was tried twice (one retry), the other once.
		expect(server.embeddingRequests()).toHaveLength(3);
	});

	it('a connected Embeddings sub-node embeds instead of the credential', async () => {
		const wf = workflow({ options: { cache: false } }, false);
		wf.nodes.push({
			id: 'e',
			name: 'Embeddings',
			type: 'test.embeddings',
			typeVersion: 1,
			position: [200, 200],
			parameters: { baseUrl: server.baseUrl, model: 'duck-embedding' },
		});
		wf.connections.Embeddings = {
			ai_embedding: [[{ node: 'Similarity', type: 'ai_embedding', index: 0 }]],
		};
		const r = await runWorkflow(wf, { startItems: rows.slice(0, 1).map((json) => ({ json })) });
		expect(r.nodeError('Similarity')).toBeUndefined();
		const [a] = scores(r);
		expect(a.value as number).toBeCloseTo(serverCosine(rows[0]), 12);
		expect(a).toMatchObject({
			status: 'ok',
			model: 'duck-embedding',
			signature: 'metric:semantic_similarity@1|embed:duck-embedding|cos:raw',
		});
		// The sub-node reports no usage: the tokens are counted, and the Score says so.
		expect(a.details).toMatchObject({ usageEstimated: true });
		expect(a.usage?.promptTokens).toBeGreaterThan(0);
		expect(server.embeddingRequests()).toHaveLength(1);
	});

	it('without an Embeddings node or a credential every row is not applicable, and says why', async () => {
		const r = await runWorkflow(workflow({}, false), {
			startItems: rows.slice(0, 1).map((json) => ({ json })),
		});
		const [a] = scores(r);
		expect(a).toMatchObject({ status: 'not_applicable', value: null });
		expect(a.reason).toMatch(/no embedding model configured/);
		expect(server.embeddingRequests()).toHaveLength(0);
	});

	it('the spend limit counts embedding tokens: the call that would pass it is not made', async () => {
		// Row s1's call reserves its two texts' tokens (the embedding model's tokenizer, cl100k) and
		// is charged what the server reports; a limit of exactly that reservation admits it, and
		// then row s2's call would pass the limit: it is not made.
		const encoder = await loadEncoder('cl100k_base');
		const reserved =
			countTokens(encoder, rows[0].response) +
			countTokens(encoder, rows[0].expected_response as string);
		const r = await run({
			options: { cache: false, concurrency: 1, spendLimitUnit: 'tokens', spendLimit: reserved },
		});
		const [a, b] = scores(r);
		expect(a).toMatchObject({ status: 'ok' });
		expect(b).toMatchObject({ status: 'error', value: null, pass: null });
		expect(b.error).toMatch(/^row 2 \(request_id "s2"\): .*spend limit reached/);
		expect(server.embeddingRequests().map(embeddingInputs)).toEqual([
			[rows[0].response, rows[0].expected_response],
		]);
	});

	it('a key the server rejects fails the node once, and the key is nowhere in its error', async () => {
		credentials.ragEvalLlmApi.apiKey = 'sk-embed-secret-0123456789';
		server.setEmbeddingDefault(() => ({
			status: 401,
			error: { message: 'Incorrect API key provided: sk-embed-secret-0123456789.' },
		}));
		const r = await run({ options: { cache: false, concurrency: 1 } });
		const error = r.nodeError('Similarity');
		expect(error).toMatch(/authentication failed \(401\)/);
		expect(JSON.stringify(r.run.data)).not.toContain('sk-embed-secret-0123456789');
		// The first 401 is fatal for the key: the row waiting for a slot is not sent.
		expect(server.embeddingRequests()).toHaveLength(1);
	});
});
