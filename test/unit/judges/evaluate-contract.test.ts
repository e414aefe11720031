/**
 * Spring AI's Evaluator contract in the library API (issue 41 item 6, seed 003):
 * evaluate({ userText, dataList, responseContent }) -> { pass, score, feedback, metadata } for any
 * declared judge, against the local OpenAI-compatible server. A judge that gave no verdict
 * rejects with the Score; it never resolves with a score it did not give.
 */
import { evaluate, EvaluationError, evaluationRecord } from '../../../src';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import type { JudgeContext } from '../../../src/judges/context';
import { factCheck } from '../../../src/judges/specs/factCheck';
import { relevance } from '../../../src/judges/specs/relevance';
import { faults, startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const KEY = 'sk-EVALCONTRACT-3b9d0c7e1a5f42d6';
let server: OpenAIServer;
let ctx: JudgeContext;
beforeEach(async () => {
	server = await startOpenAIServer();
	ctx = {
		source: createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
			apiKey: KEY,
		}),
		governor: new Governor({ backoffBaseMs: 1, timeoutMs: 2000, maxRetries: 0 }),
	};
});
afterEach(async () => {
	await server.close();
});

// Seed 003's RelevancyEvaluator example: the Carina question, the retrieved documents, the answer.
const carina = {
	userText: 'What is the purpose of Carina?',
	dataList: [
		{ text: 'Carina is a safe, shared library of bicycles for the city.' },
		{ pageContent: 'Members borrow a bike at one dock and return it at another.' },
	],
	responseContent: 'Carina lends bicycles to its members across the city.',
};

describe('evaluate: the Spring AI Evaluator contract over any declared judge', () => {
	it('a yes/no judge by id: pass, score 1, the reason as feedback, the request in the prompt', async () => {
		server.script({ json: { reason: 'In line with both documents.', verdict: 'yes' } });
		const res = await evaluate('relevancy', carina, ctx);
		expect(res).toMatchObject({
			pass: true,
			score: 1,
			feedback: 'In line with both documents.',
			metadata: { judge: 'relevancy', scale: { kind: 'binary' }, model: 'judge-model' },
		});
		expect(res.metadata.result.status).toBe('ok');
		expect(res.metadata.signature).toBe(res.metadata.result.signature);
		// userText, both dataList documents (text and LangChain's pageContent) and the answer
		// reached the model.
		const prompt = server
			.chatRequests()[0]
			.messages!.map((m) => m.content)
			.join('\n');
		expect(prompt).toContain(carina.userText);
		expect(prompt).toContain('safe, shared library of bicycles');
		expect(prompt).toContain('return it at another');
		expect(prompt).toContain(carina.responseContent);
		expect(JSON.stringify(res)).not.toContain(KEY);
	});

	it('a "no" verdict is pass false and score 0, not an exception', async () => {
		server.script({ json: { reason: 'It speaks of cars.', verdict: 'no' } });
		const res = await evaluate('relevancy', { ...carina, responseContent: 'A car brand.' }, ctx);
		expect(res).toMatchObject({ pass: false, score: 0, feedback: 'It speaks of cars.' });
	});

	it("a 1-5 judge: the score on its own scale, pass by the judge's default threshold or ctx's", async () => {
		server.script({ json: { reason: 'Mostly relevant.', score: 3 } });
		const res = await evaluate(relevance, carina, ctx);
		expect(res).toMatchObject({ pass: true, score: 3, metadata: { threshold: 3 } });
		server.script({ json: { reason: 'Mostly relevant.', score: 3 } });
		const strict = await evaluate(relevance, carina, { ...ctx, threshold: 4 });
		expect(strict).toMatchObject({ pass: false, score: 3, metadata: { threshold: 4 } });
	});

	it("seed 003's fact check: the document as userText with an empty dataList, the claim as responseContent", async () => {
		server.script({ json: { reason: 'The document says nothing of it.', verdict: 'no' } });
		const res = await evaluate(
			factCheck,
			{
				userText: 'The Earth is the third planet from the Sun and the only one known to hold life.',
				dataList: [],
				responseContent: 'The Earth is the fourth planet from the Sun.',
			},
			ctx,
		);
		expect(res).toMatchObject({ pass: false, score: 0, metadata: { judge: 'fact_check' } });
		const prompt = server
			.chatRequests()[0]
			.messages!.map((m) => m.content)
			.join('\n');
		expect(prompt).toContain('third planet from the Sun');
		expect(prompt).toContain('fourth planet');
	});

	it('a failed call rejects with an EvaluationError carrying the error Score, never a score', async () => {
		server.script(faults.serverError());
		const err = await evaluate('relevancy', carina, ctx).then(
			() => null,
			(e: unknown) => e,
		);
		expect(err).toBeInstanceOf(EvaluationError);
		const e = err as EvaluationError;
		expect(e.score).toMatchObject({ status: 'error', value: null, pass: null });
		expect(e.message).toMatch(/^relevancy: /);
		expect(e.message).not.toContain(KEY);
	});

	it('a request the judge cannot judge rejects as not applicable, naming the missing field', async () => {
		const err = (await evaluate('relevancy', { userText: 'q?', dataList: ['ctx'] }, ctx).catch(
			(e: unknown) => e,
		)) as EvaluationError;
		expect(err).toBeInstanceOf(EvaluationError);
		expect(err.score.status).toBe('not_applicable');
		expect(err.message).toMatch(/not applicable: missing response/);
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('an unknown judge id is a clear error; extra record fields come in `fields`', async () => {
		await expect(evaluate('no_such_judge', carina, ctx)).rejects.toThrow(
			'evaluate: no judge with id "no_such_judge"',
		);
		expect(
			evaluationRecord({ userText: 'q', fields: { expected_response: 'a' }, dataList: ['d'] }),
		).toEqual({ request: 'q', expected_response: 'a', retrieved_context: ['d'] });
	});
});
