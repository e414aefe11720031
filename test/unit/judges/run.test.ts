import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { runJudge, runJudges } from '../../../src/judges/run';
import { groundedness, groundednessVerdict } from '../../../src/judges/specs/groundedness';
import {
	relevance,
	relevanceConversation,
	relevanceConversationGt,
} from '../../../src/judges/specs/relevance';
import { retrieval, retrievalValue } from '../../../src/judges/specs/retrieval';
import type { JudgeDecl } from '../../../src/judges/types';
import { faults, startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const row = {
	request: 'When was the bridge opened?',
	response: 'The bridge opened in 1932.',
	retrieved_context: [
		{ doc_uri: 'kb/bridge.md', content: 'The bridge was opened to traffic in 1932.' },
	],
};

describe('runJudge against the local server', () => {
	let server: OpenAIServer;
	let source: ModelSource;
	beforeEach(async () => {
		server = await startOpenAIServer();
		source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
	});
	afterEach(async () => {
		await server.close();
	});
	const gov = (): Governor => new Governor({ backoffBaseMs: 1, timeoutMs: 2000 });

	it('scores a row with reason, usage, model, attempts and signature', async () => {
		server.script({
			json: { reason: 'The context states 1932.', score: 5 },
			model: 'judge-model-2024',
			usage: { prompt_tokens: 120, completion_tokens: 15, total_tokens: 135 },
		});
		const score = await runJudge(groundedness, row, { source, governor: gov() });
		expect(score).toMatchObject({
			metric: 'groundedness',
			status: 'ok',
			value: 5,
			pass: true,
			threshold: 3,
			reason: 'The context states 1932.',
			model: 'judge-model-2024',
			attempts: 1,
			usage: { promptTokens: 120, completionTokens: 15, totalTokens: 135 },
		});
		expect(score.signature).toMatch(
			/^judge:groundedness@1\|model:judge-model-2024\|temp:0\|prompt:[0-9a-f]{12}$/,
		);
		// Latency is recorded, but its size is wall-clock time: only its presence is asserted.
		expect(score.latencyMs).toEqual(expect.any(Number));
		const [req] = server.chatRequests();
		expect(req.model).toBe('judge-model');
		expect((req.body as { temperature: number }).temperature).toBe(0);
		expect(req.responseFormat?.type).toBe('json_schema');
		expect(req.responseFormat?.json_schema?.strict).toBe(true);
		expect(
			Object.keys((req.responseFormat?.json_schema?.schema as { properties: object }).properties),
		).toEqual(['reason', 'score']);
		server.assertNoUnexpected();
	});

	it('applies the threshold and direction; low scores fail', async () => {
		server.script({ json: { reason: 'Contradicts the context.', score: 2 } });
		const score = await runJudge(groundedness, row, {
			source,
			governor: gov(),
			threshold: 2,
		});
		expect(score).toMatchObject({ value: 2, pass: true, threshold: 2 });
		server.script({ json: { reason: 'Contradicts the context.', score: 2 } });
		const s2 = await runJudge(groundedness, row, { source, governor: gov() });
		expect(s2).toMatchObject({ value: 2, pass: false });
	});

	it('marks rows missing a required field not_applicable, naming it, without calling the model', async () => {
		const score = await runJudge(
			groundedness,
			{ request: 'q', response: 'r' },
			{ source, governor: gov() },
		);
		expect(score.status).toBe('not_applicable');
		expect(score.value).toBeNull();
		expect(score.pass).toBeNull();
		expect(score.reason).toContain('retrieved_context');
		expect(server.requests).toHaveLength(0);
	});

	it('yes/no groundedness yields a boolean that passes when true', async () => {
		server.script(
			{ json: { reason: 'Supported.', verdict: 'Yes.' } },
			{ json: { reason: 'Not in context.', verdict: 'no' } },
		);
		const a = await runJudge(groundednessVerdict, row, { source, governor: gov() });
		const b = await runJudge(groundednessVerdict, row, { source, governor: gov() });
		expect([a.value, a.pass, b.value, b.pass]).toEqual([true, true, false, false]);
	});

	it('relevance_conversation rates 5 without a model call when no documents were retrieved', async () => {
		const score = await runJudge(
			relevanceConversation,
			{ request: 'q?', response: 'a', retrieved_context: [] },
			{ source, governor: gov() },
		);
		expect(score).toMatchObject({ status: 'ok', value: 5, pass: true, attempts: 0 });
		expect(server.requests).toHaveLength(0);
	});

	it('relevance_conversation keeps the reference answer and fills the domain param', async () => {
		server.script({
			json: { reference_answer: 'It opened in 1932.', reason: 'Matches.', score: 4 },
		});
		const score = await runJudge(
			relevanceConversation,
			{ ...row, history: [{ role: 'user', content: 'Hi' }] },
			{ source, governor: gov(), params: { domain: 'civil engineering' } },
		);
		expect(score).toMatchObject({ value: 4, details: { referenceAnswer: 'It opened in 1932.' } });
		expect(server.chatRequests()[0].messages?.[0].content).toContain('civil engineering');
	});

	it('relevance_conversation_gt rejects a contradiction scored above 2, re-asks, then accepts', async () => {
		server.script(
			{
				json: {
					reason: 'Contradicts the ground truth.',
					contradicts_ground_truth: 'yes',
					score: 4,
				},
			},
			{
				json: {
					reason: 'Contradicts the ground truth.',
					contradicts_ground_truth: 'yes',
					score: 2,
				},
			},
		);
		const score = await runJudge(
			relevanceConversationGt,
			{ ...row, expected_response: 'It opened in 1931.' },
			{ source, governor: gov() },
		);
		expect(score).toMatchObject({ status: 'ok', value: 2, pass: false });
		const second = server.chatRequests()[1].messages ?? [];
		expect(second[second.length - 1].content).toContain('must score 1 or 2');
	});

	it('retrieval combines intent coverage with the rubric rating into a float', async () => {
		server.script({
			json: {
				intents: [
					{ intent: 'opening year', supported: 'yes', documents: ['doc1'] },
					{ intent: 'architect', supported: 'no', documents: [] },
				],
				documents: [{ id: 'doc1', relevance: 4 }],
				reason: 'One of two intents covered.',
				score: 3,
			},
		});
		const score = await runJudge(retrieval, row, { source, governor: gov() });
		// coverage 1/2 -> 3 on 1-5; mean with rubric 3 -> 3
		expect(score.value).toBe(3);
		expect(score.details).toMatchObject({ intentCoverage: 0.5, rubricScore: 3 });
	});

	it('uses an edited prompt, and refuses one that drops a required input', async () => {
		server.script({ json: { reason: 'ok', score: 4 } });
		const promptOverride = {
			user: 'Check {response} against {retrieved_context} (question: {request})',
		};
		const s = await runJudge(groundedness, row, {
			source,
			governor: gov(),
			promptOverride,
		});
		expect(s.value).toBe(4);
		expect(server.chatRequests()[0].messages?.[1].content).toMatch(
			/^Check <data-[0-9a-f]{24} name="response">/,
		);
		const bad = await runJudge(groundedness, row, {
			source,
			governor: gov(),
			promptOverride: { user: 'Rate {answer}' },
		});
		expect(bad.status).toBe('error');
		expect(bad.error).toContain('unknown placeholder {answer}');
		expect(bad.error).toContain('does not include {response}');
		expect(server.chatRequests()).toHaveLength(1);
	});

	it('turns a throwing declaration into an error score instead of rejecting', async () => {
		server.script({ json: { reason: 'ok', score: 4 } });
		const broken = {
			...groundedness,
			toValue: () => {
				throw new Error('boom');
			},
		} as unknown as JudgeDecl;
		const s = await runJudge(broken, row, { source, governor: gov() });
		expect(s).toMatchObject({
			status: 'error',
			value: null,
			error: 'Groundedness: internal error: boom',
		});
	});

	it('retrieval value: full coverage lifts, zero coverage pulls down, always within 1-5', () => {
		const v = (supported: ('yes' | 'no')[], score: number) =>
			retrievalValue({
				intents: supported.map((s) => ({ intent: 'i', supported: s, documents: [] })),
				documents: [],
				reason: 'r',
				score,
			});
		expect(v(['yes', 'yes'], 5)).toBe(5);
		expect(v(['no', 'no'], 1)).toBe(1);
		expect(v(['yes', 'no', 'no'], 4)).toBeCloseTo((1 + 4 / 3 + 4) / 2, 3);
		expect(v(['yes'], 2)).toBe(3.5);
	});

	it('runJudges returns one score per row in order', async () => {
		server.setDefault((req) => {
			const user = req.messages?.[1].content ?? '';
			const n = Number(/row-(\d)/.exec(user)?.[1] ?? 1);
			return { json: { reason: `row ${n}`, score: n }, delayMs: (5 - n) * 5 };
		});
		const rows = [1, 2, 3, 4, 5].map((n) => ({ ...row, response: `answer row-${n}` }));
		const scores = await runJudges(relevance, rows, { source, governor: gov() });
		expect(scores.map((s) => s.value)).toEqual([1, 2, 3, 4, 5]);
		expect(scores.map((s) => s.reason)).toEqual(['row 1', 'row 2', 'row 3', 'row 4', 'row 5']);
	});
});
