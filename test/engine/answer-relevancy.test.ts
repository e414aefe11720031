/**
 * Answer Relevancy (Ragas' ResponseRelevancy method) on the real engine, against the local server:
 * the judge model writes the questions, the server's word-hash vectors embed them, and the value
 * is the mean cosine the test computes by hand; 0 when every question is noncommittal; a re-run
 * makes no call at all; a judge failure is the row's error; a row without a request is not
 * applicable.
 */
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, type WorkflowJson } from '../support/engine';
import {
	embeddingInputs,
	embedTestText,
	faults,
	startOpenAIServer,
	type OpenAIServer,
} from '../support/openai-server';

const request = 'How long do I have to return an item?';
const row = {
	request_id: 'a1',
	request,
	response: 'You can return an item within 30 days of delivery.',
};
const questions = [
	// The request's words without its question mark: the same vector, another text.
	'how long do I have to return an item',
	'What is the return window for an item?',
	'When does delivery happen?',
];

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

function workflow(parameters: INodeParameters): WorkflowJson {
	return chain({
		name: 'Relevancy',
		type: 'evalAnswerRelevancy',
		parameters,
		credentials: { ragEvalLlmApi: { id: '1', name: 'LLM' } },
	});
}

const reply = (noncommittal: Array<'yes' | 'no'>) => ({
	json: {
		reason: 'The answer gives the return window.',
		questions: questions.map((question, i) => ({ question, noncommittal: noncommittal[i] })),
	},
	usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
});

describe('Answer Relevancy on the real engine', () => {
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
	const run = (parameters: INodeParameters, items: object[] = [row]) =>
		runWorkflow(workflow(parameters), {
			startItems: items.map((json) => ({ json: json as Record<string, string> })),
			credentials,
		});
	const scoreOf = (r: Awaited<ReturnType<typeof run>>): Score =>
		(r.output('Relevancy')[0].eval as Record<string, Score>).answer_relevancy;

	it('is the mean cosine of the generated questions to the request; a re-run calls nothing', async () => {
		server.setDefault(() => reply(['no', 'no', 'yes']));
		const cold = await run({});
		expect(cold.nodeError('Relevancy')).toBeUndefined();
		const s = scoreOf(cold);
		const q = embedTestText(request);
		const cosines = questions.map((t) => handCosine(embedTestText(t), q));
		// The first question has the request's words: cosine 1.
		expect(cosines[0]).toBeCloseTo(1, 6);
		const mean = (cosines[0] + cosines[1] + cosines[2]) / 3;
		expect(s.status).toBe('ok');
		expect(s.value as number).toBeCloseTo(mean, 12);
		expect(s.pass).toBe(mean >= 0.7);
		expect(s.threshold).toBe(0.7);
		expect(s.model).toBe('judge-model');
		expect(s.signature).toMatch(
			/^judge:answer_relevancy@1\|model:judge-model\|temp:0\|prompt:[0-9a-f]+\|embed:text-embedding-3-small\|n:3$/,
		);
		// One judge call (the three questions at once) and one embedding call (request + questions).
		expect(server.chatRequests()).toHaveLength(1);
		expect(server.embeddingRequests().map(embeddingInputs)).toEqual([[request, ...questions]]);
		// The judge saw the response, never the request: the questions must come from the answer.
		const prompt = server
			.chatRequests()[0]
			.messages!.map((m) => m.content)
			.join('\n');
		expect(prompt).toContain(row.response);
		expect(prompt).not.toContain(request);
		expect(prompt).toContain('Write 3 different questions');
		const embeddingTokens = [request, ...questions].reduce(
			(a, t) => a + Math.max(1, Math.ceil(t.length / 4)),
			0,
		);
		// The Score's cost: the judge's tokens and the embedding tokens.
		expect(s.usage).toEqual({
			promptTokens: 120 + embeddingTokens,
			completionTokens: 40,
			totalTokens: 160 + embeddingTokens,
		});
		expect(s.attempts).toBe(2);
		const details = s.details as { questions: { cosine: number; noncommittal: boolean }[] };
		expect(details.questions.map((x) => x.noncommittal)).toEqual([false, false, true]);
		details.questions.forEach((x, i) => expect(x.cosine).toBeCloseTo(cosines[i], 12));

		const warm = await run({});
		expect(server.chatRequests()).toHaveLength(1);
		expect(server.embeddingRequests()).toHaveLength(1);
		const w = scoreOf(warm);
		expect(w.value).toBe(s.value);
		expect(w).toMatchObject({ cached: true, attempts: 0 });
		expect(w.details?.cache).toMatchObject({ hit: true, hits: 1 + 4, misses: 0 });
	});

	it('is 0 when every generated question finds the answer noncommittal, without embedding', async () => {
		server.setDefault(() => reply(['yes', 'yes', 'yes']));
		const s = scoreOf(await run({ options: { cache: false } }));
		expect(s).toMatchObject({ status: 'ok', value: 0, pass: false });
		expect(s.details).toMatchObject({ allNoncommittal: true });
		expect(server.embeddingRequests()).toHaveLength(0);
	});

	it("a judge failure is the row's error, and nothing is embedded", async () => {
		server.setDefault(() => faults.serverError());
		const r = await run({ options: { cache: false, maxRetries: 0 } });
		expect(r.nodeError('Relevancy')).toBeUndefined();
		const s = scoreOf(r);
		expect(s).toMatchObject({ status: 'error', value: null, pass: null });
		expect(s.error).toMatch(/^row 1 \(request_id "a1"\): Answer Relevancy: .*server error \(500\)/);
		expect(server.embeddingRequests()).toHaveLength(0);
	});

	it('a row without a request is not applicable and costs no call', async () => {
		const s = scoreOf(await run({}, [{ request_id: 'a2', response: row.response }]));
		expect(s).toMatchObject({ status: 'not_applicable', value: null });
		expect(s.reason).toContain('request');
		expect(server.requests).toHaveLength(0);
	});

	it('a connected Chat Model writes the questions and a connected Embeddings node embeds them', async () => {
		server.setDefault(() => reply(['no', 'no', 'no']));
		const wf = chain({ name: 'Relevancy', type: 'evalAnswerRelevancy', parameters: {} });
		wf.nodes.push(
			{
				id: 'm',
				name: 'Chat Model',
				type: 'test.chatModel',
				typeVersion: 1,
				position: [200, 200],
				parameters: { baseUrl: server.baseUrl, model: 'duck-model' },
			},
			{
				id: 'e',
				name: 'Embeddings',
				type: 'test.embeddings',
				typeVersion: 1,
				position: [400, 200],
				parameters: { baseUrl: server.baseUrl, model: 'duck-embedding' },
			},
		);
		wf.connections['Chat Model'] = {
			ai_languageModel: [[{ node: 'Relevancy', type: 'ai_languageModel', index: 0 }]],
		};
		wf.connections.Embeddings = {
			ai_embedding: [[{ node: 'Relevancy', type: 'ai_embedding', index: 0 }]],
		};
		const r = await runWorkflow(wf, { startItems: [{ json: row }] });
		expect(r.nodeError('Relevancy')).toBeUndefined();
		const s = scoreOf(r);
		const q = embedTestText(request);
		const mean = questions.reduce((a, t) => a + handCosine(embedTestText(t), q), 0) / 3;
		expect(s.value as number).toBeCloseTo(mean, 12);
		expect(s.model).toBe('duck-model');
		expect(s.signature).toMatch(/\|model:duck-model\|.*\|embed:duck-embedding\|n:3$/);
		expect(s.details).toMatchObject({
			embedding: { model: 'duck-embedding', usageEstimated: true },
		});
		expect(server.chatRequests()[0].model).toBe('duck-model');
		expect((server.embeddingRequests()[0].body as { model: string }).model).toBe('duck-embedding');
	});

	it('Questions = 2 asks for two and averages two', async () => {
		server.setDefault(() => ({
			json: {
				reason: 'r',
				questions: questions.slice(1).map((question) => ({ question, noncommittal: 'no' })),
			},
		}));
		const s = scoreOf(await run({ options: { questionCount: 2, cache: false } }));
		const q = embedTestText(request);
		const mean =
			(handCosine(embedTestText(questions[1]), q) + handCosine(embedTestText(questions[2]), q)) / 2;
		expect(s.value as number).toBeCloseTo(mean, 12);
		expect(s.signature).toMatch(/\|n:2$/);
		const sent = server.chatRequests()[0].responseFormat?.json_schema?.schema as {
			properties: { questions: { description: string } };
		};
		expect(sent.properties.questions.description).toBe('the questions, 2 in all');
	});
});
