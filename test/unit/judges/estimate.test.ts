/**
 * Estimate-only mode: token counts of fixed strings (checked against OpenAI's published examples
 * and by hand), the encoding chosen per model family, and that the recorded calls are exactly what
 * a real run sends the local server (single call, fan-out and conversation turns).
 */
import type { Score } from '../../../src/core/types';
import {
	countChatTokens,
	countTokens,
	encodingFor,
	estimateRequest,
	estimateRow,
	loadEncoder,
	recordingSource,
	runEstimate,
} from '../../../src/judges/estimate';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ChatMessage } from '../../../src/judges/model';
import { runJudge } from '../../../src/judges/run';
import { chunkRelevance } from '../../../src/judges/specs/chunkRelevance';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { coherence } from '../../../src/judges/specs/quality';
import { runEveryTurn } from '../../../src/judges/turns';
import type { JudgeDecl } from '../../../src/judges/types';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

describe('token counts of fixed strings', () => {
	it('cl100k: the ids OpenAI publishes for "tiktoken is great!" and "China is great!"', async () => {
		const enc = await loadEncoder('cl100k_base');
		// OpenAI cookbook, "How to count tokens with tiktoken": t|ik|token| is| great|!
		expect(enc.encode('tiktoken is great!')).toEqual([83, 1609, 5963, 374, 2294, 0]);
		expect(enc.encode('China is great!')).toEqual([23078, 374, 2294, 0]);
		expect(countTokens(enc, 'tiktoken is great!')).toBe(6);
		expect(countTokens(enc, '')).toBe(0);
	});

	it('o200k: counts checked once by hand', async () => {
		const enc = await loadEncoder('o200k_base');
		expect(countTokens(enc, 'hello world')).toBe(2); // hello| world
		expect(countTokens(enc, 'Hello, world!')).toBe(4); // Hello|,| world|!
		expect(countTokens(enc, 'The quick brown fox jumps over the lazy dog.')).toBe(10);
		// Special-token text in judged data is ordinary text, never a control token.
		expect(countTokens(enc, '<|endoftext|>')).toBeGreaterThan(1);
	});

	it('chat framing: 3 per message + role + content, and 3 priming the reply', async () => {
		const enc = await loadEncoder('cl100k_base');
		const messages: ChatMessage[] = [
			{ role: 'system', content: 'tiktoken is great!' },
			{ role: 'user', content: 'China is great!' },
		];
		// (3 + 1 + 6) + (3 + 1 + 4) + 3
		expect(countChatTokens(enc, messages)).toBe(21);
		const est = estimateRequest(enc, { messages, mode: 'text', maxTokens: 40 });
		expect(est).toEqual({ promptTokens: 21, completionTokens: 40 });
		expect(estimateRequest(enc, { messages, mode: 'text' }).completionTokens).toBe(300);
		const schema = { type: 'object' };
		const withSchema = estimateRequest(enc, {
			messages,
			mode: 'json_schema',
			jsonSchema: { name: 'x', schema },
		});
		expect(withSchema.promptTokens).toBe(21 + countTokens(enc, JSON.stringify(schema)));
	});

	it('picks the encoding by model family and says when the count is approximate', () => {
		for (const m of ['gpt-4o-mini', 'gpt-4o-2024-08-06', 'gpt-4.1', 'o3', 'o4-mini', 'gpt-5'])
			expect(encodingFor(m)).toEqual({ encoding: 'o200k_base', approximate: false });
		expect(encodingFor('openai/gpt-4o')).toEqual({ encoding: 'o200k_base', approximate: false });
		for (const m of ['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo', 'gpt-35-turbo'])
			expect(encodingFor(m)).toEqual({ encoding: 'cl100k_base', approximate: false });
		for (const m of ['llama3.1:8b', 'mistral-large', 'my-azure-deployment', 'o3x'])
			expect(encodingFor(m)).toEqual({ encoding: 'o200k_base', approximate: true });
	});
});

describe('estimates render exactly what a real run sends', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const gov = (): Governor => new Governor({ backoffBaseMs: 1, timeoutMs: 2000 });
	// The nonce is fresh per call, so calls are compared with it masked.
	const masked = (messages: ReadonlyArray<{ role: string; content: string }>) =>
		messages.map((m) => ({
			role: m.role,
			content: m.content.replace(/data-[0-9a-f]{24}/g, 'data-NONCE'),
		}));

	async function compare(
		decl: JudgeDecl,
		row: Record<string, unknown>,
		reply: unknown,
		everyTurn = false,
	) {
		server.setDefault(() => ({ json: reply }));
		const real = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'gpt-4o-mini',
		});
		const run = everyTurn ? runEveryTurn : runJudge;
		const judged = await run(decl, row, { source: real, governor: gov() });
		expect(judged.status).toBe('ok');
		const rec = recordingSource(real);
		const score = await run(decl, row, { source: rec.source, governor: gov() });
		const sent = server.chatRequests().map((r) => JSON.stringify(masked(r.messages ?? [])));
		const counted = rec.requests.map((r) => JSON.stringify(masked(r.messages)));
		expect(counted.sort()).toEqual(sent.sort());
		// Same response format as the first real attempt.
		expect(rec.requests.map((r) => r.mode)).toEqual(
			server.chatRequests().map((r) => r.responseFormat?.type ?? 'text'),
		);
		return { score, requests: rec.requests };
	}

	it('a single-call judge: one call, counted with the model family tokenizer, priced', async () => {
		const row = {
			request: 'When was the bridge opened?',
			response: 'The bridge opened in 1932.',
			retrieved_context: [{ content: 'The bridge was opened to traffic in 1932.' }],
		};
		const { score, requests } = await compare(groundedness, row, {
			reason: 'Stated.',
			score: 5,
		});
		expect(score).toMatchObject({ status: 'error', details: { errorKind: 'not_called' } });
		const prices = { 'gpt-4o-mini': { input: 0.15, output: 0.6 } };
		const est = await estimateRow(requests, score, { model: 'gpt-4o-mini', prices });
		const enc = await loadEncoder('o200k_base');
		const prompt = estimateRequest(enc, requests[0]).promptTokens;
		expect(est).toMatchObject({
			status: 'estimated',
			calls: 1,
			encoding: 'o200k_base',
			approximate: false,
			promptTokens: prompt,
			completionTokens: 300,
			totalTokens: prompt + 300,
			pricedAs: 'gpt-4o-mini',
		});
		expect(est.usd).toBeCloseTo((prompt * 0.15 + 300 * 0.6) / 1e6, 15);
	});

	it('a fan-out judge: one counted call per chunk', async () => {
		const row = {
			request: 'q',
			response: 'a',
			retrieved_context: [{ content: 'one' }, { content: 'two' }, { content: 'three' }],
		};
		const { requests } = await compare(chunkRelevance, row, {
			reason: 'Relevant.',
			verdict: 'yes',
		});
		expect(requests).toHaveLength(3);
	});

	it('a conversation judged per turn: one counted call per assistant turn', async () => {
		const row = {
			request: 'And the second?',
			response: 'It is B.',
			history: [
				{ role: 'user', content: 'What is the first?' },
				{ role: 'assistant', content: 'It is A.' },
			],
		};
		const { requests } = await compare(coherence, row, { reason: 'On topic.', score: 4 }, true);
		expect(requests).toHaveLength(2);
	});

	it('rows that would not be judged cost nothing and say why; the run sums the rows', async () => {
		const na: Score = {
			metric: 'groundedness',
			value: null,
			pass: null,
			status: 'not_applicable',
			reason: 'response is missing',
			scale: { kind: 'likert', min: 1, max: 5 },
			signature: 's',
		};
		const prices = { 'gpt-4o-mini': { input: 0.15, output: 0.6 } };
		const a = await estimateRow([], na, { model: 'gpt-4o-mini', prices });
		expect(a).toMatchObject({ status: 'not_applicable', calls: 0, totalTokens: 0, usd: 0 });
		const b = await estimateRow(
			[{ messages: [{ role: 'user', content: 'hello world' }], mode: 'text', temperature: 0 }],
			{ ...na, status: 'error', error: 'not called' },
			{ model: 'gpt-4o-mini', prices, replyTokens: 10 },
		);
		// 3 + 1 (user) + 2 (hello| world) + 3 priming; 10 reply tokens.
		expect(b).toMatchObject({ calls: 1, promptTokens: 9, completionTokens: 10, totalTokens: 19 });
		const run = runEstimate([a, b], 'gpt-4o-mini');
		expect(run).toMatchObject({ rows: 2, calls: 1, promptTokens: 9, totalTokens: 19 });
		expect(run.usd).toBeCloseTo((9 * 0.15 + 10 * 0.6) / 1e6, 15);
		const unpriced = runEstimate(
			[await estimateRow([], na, { model: 'local-llama', prices })],
			'local-llama',
		);
		expect(unpriced.usd).toBeUndefined();
		expect(unpriced.unpriced).toMatch(/no price for model "local-llama"/);
	});
});
