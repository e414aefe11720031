/**
 * The seeds' own modes on the real engine, judged over HTTP by the local OpenAI-compatible
 * server: Spring AI Relevancy against a model that answers a bare YES/NO (as the seed's prompt
 * asks), Fact Check in Standard and Auto mode against a MiniCheck-style model that answers only
 * Yes/No, and a 1-5 judge over a conversation folded by the mean or by the worst turn.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const creds = { ragEvalLlmApi: { id: '1', name: 'Judge' } };

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

function credentials() {
	return {
		ragEvalLlmApi: {
			provider: 'compatible',
			baseUrl: server.baseUrl,
			apiKey: 'sk-seed-modes-0000',
			model: 'judge-model',
		},
	};
}

/** Runs one judge node over the rows; every row comes out on the Scored output. */
async function judge(type: string, rows: IDataObject[], parameters: INodeParameters) {
	const r = await runWorkflow(chain({ name: 'Judge', type, parameters, credentials: creds }), {
		startItems: rows.map((json) => ({ json })),
		credentials: credentials(),
	});
	expect(r.nodeError('Judge')).toBeUndefined();
	return r.output('Judge');
}

const scoreOf = (row: IDataObject, key: string) => (row.eval as Record<string, Score>)[key];
const text = (req: RecordedRequest) => (req.messages ?? []).map((m) => m.content).join('\n');

describe('Spring AI Relevancy against a model answering a bare YES/NO', () => {
	it('takes the bare word as the verdict, says the model gave no reason, and asks once per row', async () => {
		// As the seed's prompt asks: one word, whatever case, punctuation or whitespace around it.
		server.setDefault((req) => {
			const t = text(req);
			if (t.includes('bikes')) return { content: 'YES' };
			if (t.includes('cars')) return { content: ' no.\n' };
			return { content: '**Yes**' };
		});
		const base = {
			request: 'What is the purpose of Carina?',
			retrieved_context: [{ content: 'Carina is a bike-sharing service.' }],
		};
		const out = await judge(
			'judgeRelevancy',
			[
				{ ...base, response: 'Carina provides shared bikes.' },
				{ ...base, response: 'Carina rents out cars.' },
				{ ...base, response: 'Carina is for sharing.' },
			],
			{},
		);
		const scores = out.map((row) => scoreOf(row, 'relevancy'));
		expect(scores.map((s) => [s.status, s.value, s.pass])).toEqual([
			['ok', true, true],
			['ok', false, false],
			['ok', true, true],
		]);
		expect(scores[0].reason).toBe(
			'The model answered "YES" and gave no reason (the seed\'s prompt asks for a bare YES/NO).',
		);
		expect(scores[1].reason).toMatch(/^The model answered "no\." and gave no reason/);
		expect(scores[1].details).toMatchObject({ bareReply: 'no.' });
		// Not re-asked: the word is the answer the seed's prompt wants.
		expect(server.chatRequests()).toHaveLength(3);
	});
});

// Spring AI's own example: the document travels as the request, with no retrieved context.
const facts = [
	{
		request: 'The Earth is the third planet from the Sun.',
		response: 'The Earth is the third planet from the Sun.',
	},
	{
		request: 'The Earth is the third planet from the Sun.',
		response: 'The Earth is the fourth planet from the Sun.',
	},
	{
		request: 'Water boils at 100 degrees Celsius at sea level.',
		response: 'Water boils at 100 degrees Celsius at sea level.',
	},
];

/** Bespoke-MiniCheck-like: a bare Yes/No to anything, and right when given its own prompt. */
function miniCheck(req: RecordedRequest) {
	const bare = req.messages?.length === 1 && req.messages[0].content.startsWith('Document: ');
	if (!bare) return { content: 'Yes' };
	return { content: text(req).includes('fourth') ? 'No' : 'Yes', usage: usage(20, 1) };
}
const usage = (p: number, c: number) => ({
	prompt_tokens: p,
	completion_tokens: c,
	total_tokens: p + c,
});

describe('Fact Check against a bare Yes/No (MiniCheck) model', () => {
	it('Standard mode: each row errors at once, saying to switch to MiniCheck mode', async () => {
		server.setDefault(miniCheck);
		const out = await judge('judgeFactCheck', facts, {});
		for (const row of out) {
			const s = scoreOf(row, 'fact_check');
			expect(s.status).toBe('error');
			expect(s.error).toMatch(
				/the model answered "Yes" where a JSON verdict was asked: a fact-checking model such as Bespoke MiniCheck answers only Yes or No; set Mode to MiniCheck \(or Auto\)/,
			);
		}
		// No re-ask: a model that answers one word will not write JSON the second time.
		expect(server.chatRequests()).toHaveLength(facts.length);
	});

	it('Auto mode: the first bare reply switches the rest of the run to MiniCheck, recorded per row', async () => {
		server.setDefault(miniCheck);
		const out = await judge('judgeFactCheck', facts, { options: { factCheckMode: 'auto' } });
		const scores = out.map((row) => scoreOf(row, 'fact_check'));
		expect(scores.map((s) => [s.status, s.value])).toEqual([
			['ok', true],
			['ok', false],
			['ok', true],
		]);
		// One structured probe, then only MiniCheck's bare prompt: the other rows waited for it.
		const chats = server.chatRequests();
		expect(chats.map((c) => (c.messages?.length === 1 ? 'bare' : 'standard'))).toEqual([
			'standard',
			'bare',
			'bare',
			'bare',
		]);
		const switched = scores.filter(
			(s) => (s.details?.autoSwitch as { switchedHere: boolean }).switchedHere,
		);
		expect(switched).toHaveLength(1);
		for (const s of scores) {
			expect(s.signature).toMatch(/\|calls:bare\|factCheckMode:auto>minicheck$/);
			expect(s.details?.autoSwitch).toMatchObject({
				factCheckMode: 'minicheck',
				reason: 'the model answered "Yes" where a JSON verdict was asked',
			});
		}
		// The probing row paid for both calls.
		expect(switched[0].attempts).toBe(2);
		expect(switched[0].usage!.totalTokens).toBeGreaterThan(21);
	});

	it('Auto mode against a model that writes JSON stays in Standard mode', async () => {
		server.setDefault(() => ({ json: { reason: 'The document says so.', verdict: 'yes' } }));
		const out = await judge('judgeFactCheck', facts, { options: { factCheckMode: 'auto' } });
		for (const row of out) {
			const s = scoreOf(row, 'fact_check');
			expect(s).toMatchObject({ status: 'ok', value: true, reason: 'The document says so.' });
			expect(s.signature).not.toMatch(/minicheck|bare/);
			expect(s.details?.autoSwitch).toBeUndefined();
		}
		expect(server.chatRequests()).toHaveLength(facts.length);
	});
});

describe('1-5 judges over conversations: the mean or the worst turn', () => {
	const conversation = {
		request: 'And on Sundays?',
		response: 'ANSWER-TWO: closed on Sundays.',
		history: [
			{ role: 'user', content: 'When does the store open?' },
			{ role: 'assistant', content: 'ANSWER-ONE: blue.' },
		],
	};
	// The first turn rates 2, the last 5: the mean (3.5) passes, the worst (2) fails.
	const rate = (req: RecordedRequest) => ({
		json: {
			reason: text(req).includes('ANSWER-ONE') ? 'Makes no sense.' : 'Clear.',
			score: text(req).includes('ANSWER-ONE') ? 2 : 5,
		},
	});

	it('Every Assistant Turn (Mean) passes a 5 and a 2 as 3.5', async () => {
		server.setDefault(rate);
		const [row] = await judge('judgeCoherence', [conversation], {
			options: { conversationTurns: 'every' },
		});
		const s = scoreOf(row, 'coherence');
		expect(s).toMatchObject({ status: 'ok', value: 3.5, pass: true });
		expect(s.signature).toMatch(/\|turns:every:mean$/);
		expect(s.details).toMatchObject({ turnRule: 'mean' });
	});

	it('Every Assistant Turn (Worst) fails it as 2, naming the deciding turn', async () => {
		server.setDefault(rate);
		const [row] = await judge('judgeCoherence', [conversation], {
			options: { conversationTurns: 'every_worst' },
		});
		const s = scoreOf(row, 'coherence');
		expect(s).toMatchObject({ status: 'ok', value: 2, pass: false });
		expect(s.signature).toMatch(/\|turns:every:worst$/);
		expect(s.details).toMatchObject({
			turnRule: 'worst',
			turns: [
				{ turn: 1, value: 2 },
				{ turn: 2, value: 5 },
			],
		});
		expect(s.reason).toMatch(/the row takes the worst turn, turn 1/);
		expect(server.chatRequests()).toHaveLength(2);
	});
});
