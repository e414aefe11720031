/**
 * The spend limit at library level against the local server: refused before a call (never after),
 * concurrency > 1 stays within the limit while replies stay within their reservation, retries
 * re-reserve, failed calls cost nothing, and limits that cannot work fail before any call.
 */
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { runJudges } from '../../../src/judges/run';
import {
	isSpendStopped,
	SpendLimit,
	SpendLimitError,
	spendStopDetails,
} from '../../../src/judges/spend';
import { groundedness } from '../../../src/judges/specs/groundedness';
import type { JudgeDecl } from '../../../src/judges/types';
import { faults, startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const rows = Array.from({ length: 12 }, (_, i) => ({
	request: `question ${i + 1}`,
	response: `answer ${i + 1}`,
	retrieved_context: [{ content: `context ${i + 1}` }],
}));

describe('SpendLimit', () => {
	let server: OpenAIServer;
	let source: ModelSource;
	beforeEach(async () => {
		server = await startOpenAIServer();
		source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'gpt-4o-mini',
		});
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('with concurrency 4 never spends past the limit while replies fit their reservation', async () => {
		// 100 tokens a call: well under any call's reservation (its prompt + 300).
		const usage = { prompt_tokens: 80, completion_tokens: 20, total_tokens: 100 };
		server.setDefault(() => ({ json: { reason: 'ok', score: 5 }, usage, delayMs: 20 }));
		const spend = await SpendLimit.create({
			unit: 'tokens',
			amount: 2500,
			model: 'gpt-4o-mini',
			prices: {},
		});
		const governor = new Governor({ concurrency: 4 });
		const scores = await runJudges(groundedness, rows, {
			source,
			governor,
			spend,
			concurrency: 12,
		});
		expect(scores).toHaveLength(rows.length);
		const made = server.chatRequests().length;
		expect(spend.spent()).toMatchObject({ tokens: made * 100, calls: made });
		expect(spend.spent().tokens).toBeLessThanOrEqual(2500);
		expect(spend.reached).toBe(true);
		const ok = scores.filter((s) => s.status === 'ok').length;
		const stopped = scores.filter(isSpendStopped).length;
		// Every row is accounted for: judged (one call each) or stopped before any call.
		expect(ok).toBe(made);
		expect(ok + stopped).toBe(rows.length);
		expect(stopped).toBeGreaterThan(0);
	});

	it('a failed attempt costs nothing; its retry reserves again', async () => {
		const usage = { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 };
		server.script(faults.serverError(), { json: { reason: 'ok', score: 5 }, usage });
		const spend = await SpendLimit.create({
			unit: 'tokens',
			amount: 1500,
			model: 'gpt-4o-mini',
			prices: {},
		});
		const governor = new Governor({ concurrency: 1, backoffBaseMs: 1 });
		// One row at a time, so row 2 does not take the slot while row 1 waits to retry.
		const scores = await runJudges(groundedness, rows.slice(0, 2), {
			source,
			governor,
			spend,
			concurrency: 1,
		});
		expect(server.chatRequests()).toHaveLength(2);
		expect(scores[0]).toMatchObject({ status: 'ok', attempts: 2 });
		expect(spend.spent()).toMatchObject({ tokens: 1000, calls: 1 });
		// Row 2: 1000 spent + its reservation (> 500) passes 1500.
		expect(scores[1].details?.errorKind).toBe('spend_limit');
		expect(scores[1].attempts).toBe(0);
	});

	it('limits that cannot work are refused before any call', async () => {
		await expect(
			SpendLimit.create({ unit: 'tokens', amount: 0, model: 'gpt-4o-mini', prices: {} }),
		).rejects.toThrow(SpendLimitError);
		await expect(
			SpendLimit.create({ unit: 'usd', amount: 1, model: 'local-llama', prices: {} }),
		).rejects.toThrow(/no price for the judge model "local-llama"/);
		const usd = await SpendLimit.create({
			unit: 'usd',
			amount: 1,
			model: 'gpt-4o-mini-2024-07-18',
			prices: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
		});
		expect(usd.spent()).toEqual({ tokens: 0, usd: 0, calls: 0 });
	});

	it('recognises rows stopped directly, in a fan-out call or in a conversation turn', () => {
		const base = {
			metric: 'm',
			value: null,
			pass: null,
			status: 'error' as const,
			scale: { kind: 'binary' as const, min: 0, max: 1 },
			signature: 's',
		};
		const direct = { ...base, details: { errorKind: 'spend_limit' } };
		const fan = { ...base, details: { calls: [{ key: 'chunk 2', details: direct.details }] } };
		const other = { ...base, details: { errorKind: 'timeout' } };
		expect(isSpendStopped(direct)).toBe(true);
		expect(isSpendStopped(fan)).toBe(true);
		expect(isSpendStopped(other)).toBe(false);
		expect(isSpendStopped({ ...direct, status: 'ok' })).toBe(false);
		expect(spendStopDetails([other, direct])).toEqual({ errorKind: 'spend_limit' });
		expect(spendStopDetails([other])).toEqual({});
	});
});
