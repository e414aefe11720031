/**
 * Conversations judged per turn against the local server: every assistant turn scored, the mean
 * kept as the row's value with per-turn scores in details, turns without their own context left
 * out for judges that read context, and the judged reply never inside its own history.
 */
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { coherence } from '../../../src/judges/specs/quality';
import { relevanceConversationGt } from '../../../src/judges/specs/relevance';
import { conversationTurns, runEveryTurn } from '../../../src/judges/turns';
import type { JudgeDecl } from '../../../src/judges/types';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const history = [
	{ role: 'system', content: 'Be brief.' },
	{ role: 'user', content: 'Hi, which sleeping bag is warmest?' },
	{ role: 'assistant', content: 'The CozyNights bag. [score=2]' },
	{ role: 'user', content: 'Is it waterproof?' },
	{ role: 'assistant', content: 'Yes, the shell is waterproof. [score=4]' },
];
const row = {
	request: 'What temperature is it rated to?',
	response: 'It is rated to -5C. [score=5]',
	history,
	retrieved_context: [{ doc_uri: 'doc-cozy', content: 'Rated to -5C.' }],
	expected_response: '-5C',
};

describe('every assistant turn', () => {
	let server: OpenAIServer;
	let source: ModelSource;
	beforeEach(async () => {
		server = await startOpenAIServer();
		source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'm',
		});
		// Each reply carries its own score marker, so the judge's rating follows the judged turn.
		server.setDefault((req) => {
			const user = req.messages?.find((m) => m.role === 'user')?.content ?? '';
			// The judged reply comes last in every prompt; earlier turns may sit in its history.
			const score = Number([...user.matchAll(/\[score=(\d)\]/g)].at(-1)?.[1] ?? 3);
			return {
				json: { reason: `turn rated ${score}`, contradicts_ground_truth: 'no', score },
				usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
			};
		});
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const ctx = () => ({ source, governor: new Governor({ backoffBaseMs: 1, maxRetries: 0 }) });

	it('splits a transcript into exchanges, each with the turns before it as history', () => {
		const turns = conversationTurns([
			...history,
			{ role: 'user', content: row.request },
			{ role: 'assistant', content: row.response },
		]);
		expect(turns.map((t) => [t.request, t.history.length])).toEqual([
			['Hi, which sleeping bag is warmest?', 1],
			['Is it waterproof?', 3],
			['What temperature is it rated to?', 5],
		]);
	});

	it('scores every turn of a judge without context; the mean is the value, turns in details', async () => {
		const s = await runEveryTurn(coherence, row, ctx());
		expect(server.chatRequests()).toHaveLength(3);
		expect(s).toMatchObject({
			metric: 'coherence',
			status: 'ok',
			value: (2 + 4 + 5) / 3,
			pass: true,
			usage: { totalTokens: 36 },
			attempts: 3,
		});
		expect((s.details as { turns: { value: unknown }[] }).turns.map((t) => t.value)).toEqual([
			2, 4, 5,
		]);
		expect(s.signature).toMatch(/\|turns:every:mean$/);
	});

	it('judges needing context or ground truth judge earlier turns only when they carry their own', async () => {
		const g = await runEveryTurn(groundedness, row, ctx());
		expect(server.chatRequests()).toHaveLength(1);
		expect(g).toMatchObject({ value: 5 });
		const turns = (g.details as { turns: { status: string; reason?: string }[] }).turns;
		expect(turns.map((t) => t.status)).toEqual(['not_applicable', 'not_applicable', 'ok']);
		expect(turns[0].reason).toMatch(/only the last turn has retrieved_context/);
		const withOwn = await runEveryTurn(
			groundedness,
			{
				...row,
				turn_contexts: [[{ content: 'CozyNights is warm.' }], [{ content: 'Waterproof.' }]],
			},
			ctx(),
		);
		expect(withOwn.value).toBe((2 + 4 + 5) / 3);
		// The record keeps Azure's per-turn citations on the assistant turns of history: used too.
		const cited = await runEveryTurn(
			groundedness,
			{
				...row,
				history: row.history.map((m, i) =>
					m.role === 'assistant'
						? { ...m, context: [{ doc_uri: `doc-${i}`, content: `cited ${i}` }] }
						: m,
				),
			},
			ctx(),
		);
		expect(cited.value).toBe((2 + 4 + 5) / 3);
		const prompts = server.chatRequests().map((r) => r.messages?.[1]?.content ?? '');
		expect(prompts.some((p) => p.includes('(source: doc-2)') && p.includes('cited 2'))).toBe(true);
		const gt = await runEveryTurn(relevanceConversationGt, row, ctx());
		expect(gt.value).toBe(5);
	});

	it('a row without earlier assistant turns is judged once, as usual', async () => {
		const s = await runEveryTurn(coherence, { ...row, history: [] }, ctx());
		expect(server.chatRequests()).toHaveLength(1);
		expect(s).toMatchObject({ value: 5 });
		expect(s.details?.turns).toBeUndefined();
	});
});
