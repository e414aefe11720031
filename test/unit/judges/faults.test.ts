/**
 * Every fault mode of the issue against the local server: rows in = rows out, the faulty row
 * ends with a score or a clear error, retries stay within the limit, the other rows go on.
 */
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { runJudges } from '../../../src/judges/run';
import { groundedness } from '../../../src/judges/specs/groundedness';
import type { JudgeDecl } from '../../../src/judges/types';
import {
	faults,
	startOpenAIServer,
	type OpenAIServer,
	type ScriptedReply,
} from '../../support/openai-server';

const MAX_RETRIES = 2;
const rows = [1, 2, 3, 4].map((n) => ({
	request: `question ${n}`,
	response: `answer row-${n}`,
	retrieved_context: [{ content: `context for row ${n}` }],
}));
const good: ScriptedReply = { json: { reason: 'Supported by the context.', score: 4 } };

let server: OpenAIServer;
let source: ModelSource;
beforeEach(async () => {
	server = await startOpenAIServer();
	source = createOpenAIModelSource({
		provider: 'compatible',
		baseUrl: server.baseUrl,
		model: 'judge-model',
		apiKey: 'sk-test-faults-0000000000',
	});
});
afterEach(async () => {
	await server.close();
});

function rowOf(user: string): number {
	return Number(/row-(\d)/.exec(user)?.[1]);
}

/** Row 3 gets `sequence` (last element repeats); the other rows get a good reply. */
function faultOnRow3(sequence: ScriptedReply[]): Map<number, number> {
	const calls = new Map<number, number>();
	server.setDefault((req) => {
		const n = rowOf(req.messages?.[1]?.content ?? '');
		const k = calls.get(n) ?? 0;
		calls.set(n, k + 1);
		if (n !== 3) return good;
		return sequence[Math.min(k, sequence.length - 1)];
	});
	return calls;
}

async function run(): Promise<Awaited<ReturnType<typeof runJudges>>> {
	// A timeout far above a local reply's time even on a loaded CI machine: only a hang reaches it.
	const governor = new Governor({ maxRetries: MAX_RETRIES, backoffBaseMs: 2, timeoutMs: 1500 });
	const scores = await runJudges(groundedness, rows, { source, governor });
	expect(scores).toHaveLength(rows.length);
	for (const i of [0, 1, 3]) expect(scores[i]).toMatchObject({ status: 'ok', value: 4 });
	return scores;
}

const transient: [string, () => ScriptedReply][] = [
	['429 without a wait', faults.rateLimitedNoWait],
	['500', faults.serverError],
	['503', faults.unavailable],
	['a dropped connection', faults.drop],
	['a reset connection', faults.reset],
	['a body cut off mid-JSON', faults.truncatedBody],
];

describe.each(transient)('transient fault: %s', (_name, fault) => {
	it('recovers on retry and counts the attempts', async () => {
		const calls = faultOnRow3([fault(), good]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'ok', value: 4, attempts: 2 });
		expect(calls.get(3)).toBe(2);
	});

	it('gives up after the retry limit with a clear error', async () => {
		const calls = faultOnRow3([fault()]);
		const scores = await run();
		expect(scores[2]).toMatchObject({
			status: 'error',
			value: null,
			pass: null,
			attempts: MAX_RETRIES + 1,
		});
		expect(scores[2].error).toMatch(/gave up after 3 attempts/);
		expect(calls.get(3)).toBe(MAX_RETRIES + 1);
	});
});

describe.each([
	['429 with Retry-After', () => faults.rateLimited(0.01)],
	['429 with x-ratelimit-reset', () => faults.rateLimitedUntilReset('10ms')],
])('paced rate limit: %s', (_name, fault) => {
	it('is waited out beyond Max Retries until the model answers', async () => {
		const calls = faultOnRow3([...Array.from({ length: 8 }, fault), good]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'ok', value: 4, attempts: 9 });
		expect(calls.get(3)).toBe(9);
	});

	it("ends at the row's deadline with an error naming the deadline and the rate limit", async () => {
		faultOnRow3([fault()]);
		// A budget of waits past the deadline: the deadline is what ends the row here.
		const governor = new Governor({
			maxRetries: MAX_RETRIES,
			maxRateLimitRetries: 1000,
			rowDeadlineMs: 1500,
		});
		const scores = await runJudges(groundedness, rows, { source, governor });
		expect(scores[2]).toMatchObject({ status: 'error', value: null, pass: null });
		expect(scores[2].error).toMatch(
			/^Groundedness: the row's deadline of 1.5 s passed after \d+ attempts; last error: rate limited \(429\)/,
		);
		expect(scores[2].attempts).toBeGreaterThan(MAX_RETRIES + 1);
		for (const i of [0, 1, 3]) expect(scores[i]).toMatchObject({ status: 'ok' });
	});
});

describe('a hang past the timeout', () => {
	it('is retried once, then reported: a hung model does not take every retry at full length', async () => {
		const calls = faultOnRow3([faults.hang()]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'error', attempts: 2 });
		expect(scores[2].error).toMatch(
			/did not answer within 1.5 s \(gave up after 2 timed-out attempts\)/,
		);
		expect(calls.get(3)).toBe(2);
	});

	it('recovers when the retry answers', async () => {
		const calls = faultOnRow3([faults.hang(), good]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'ok', value: 4, attempts: 2 });
		expect(calls.get(3)).toBe(2);
	});
});

const unparsable: [string, () => ScriptedReply, RegExp][] = [
	['empty content', faults.empty, /the judge model returned an empty reply/],
	['truncated JSON', faults.truncatedJson, /neither a JSON object nor tagged text/],
	['a schema violation', faults.schemaViolation, /score: Expected number/],
	['an out-of-range score', faults.outOfRange, /score: Number must be less than or equal to 5/],
];

describe.each(unparsable)('unusable reply: %s', (_name, fault, message) => {
	it('re-asks once quoting the parse error and accepts a corrected reply', async () => {
		const calls = faultOnRow3([fault(), good]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'ok', value: 4, attempts: 2 });
		expect(calls.get(3)).toBe(2);
		const reask = server
			.chatRequests()
			.filter((r) => rowOf(r.messages?.[1]?.content ?? '') === 3)[1];
		const last = reask.messages?.[reask.messages.length - 1];
		expect(last?.role).toBe('user');
		expect(last?.content).toMatch(message);
	});

	it('ends with an error keeping the raw reply when the re-ask fails too', async () => {
		const calls = faultOnRow3([fault()]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'error', value: null, pass: null });
		expect(scores[2].error).toMatch(message);
		expect(String(scores[2].details?.rawReply)).toBe(
			fault().content ?? JSON.stringify(fault().json),
		);
		expect(calls.get(3)).toBe(2);
	});
});

const terminal: [string, () => ScriptedReply, RegExp][] = [
	['a refusal', faults.refusal, /refused: I'm sorry/],
	['finish_reason length', faults.length, /cut off at the token limit/],
	['finish_reason content_filter', faults.contentFilter, /content filter/],
];

describe.each(terminal)('terminal reply: %s', (_name, fault, message) => {
	it('is an error for that row only, without retries', async () => {
		const calls = faultOnRow3([fault(), good]);
		const scores = await run();
		expect(scores[2]).toMatchObject({ status: 'error', value: null, pass: null, attempts: 1 });
		expect(scores[2].error).toMatch(message);
		expect(scores[2].usage).toBeDefined();
		expect(calls.get(3)).toBe(1);
	});
});

describe('insufficient_quota', () => {
	it('fails fast: one call reaches the server, every row gets the same clear error', async () => {
		server.setDefault(() => ({ ...faults.insufficientQuota(), delayMs: 20 }));
		const governor = new Governor({ maxRetries: 4, backoffBaseMs: 2, concurrency: 1 });
		const scores = await runJudges(groundedness, rows, { source, governor });
		expect(scores).toHaveLength(4);
		expect(server.chatRequests()).toHaveLength(1);
		// the row that called carries the error; the others say they were not called
		expect(scores[0].error).toMatch(/quota is exhausted \(insufficient_quota\)/);
		expect(scores[0].error).not.toMatch(/not called/);
		for (const s of scores.slice(1))
			expect(s.error).toMatch(/quota is exhausted .*\(not called: an earlier call/);
		for (const s of scores)
			expect(s).toMatchObject({ status: 'error', value: null, details: { fatal: true } });
		expect(governor.fatalError(source.key)?.message).toMatch(/insufficient_quota/);
	});

	it.each([
		[401, /authentication failed \(401\): Nope\. Check the API key/],
		[403, /permission denied \(403\): Nope\. The credential/],
		[404, /not found \(404\): Nope\. Check the base URL/],
	])('%i is fatal for the execution and never retried', async (status, message) => {
		// The provider's message ends with a period; ours continues it without doubling it.
		server.setDefault(() => ({ status, error: { message: 'Nope.' }, delayMs: 10 }));
		const governor = new Governor({ maxRetries: 4, backoffBaseMs: 2, concurrency: 1 });
		const scores = await runJudges(groundedness, rows, { source, governor });
		expect(server.chatRequests()).toHaveLength(1);
		for (const s of scores) expect(s.error).toMatch(message);
	});

	it('400 unrelated to the response format fails that row only, without retry', async () => {
		const calls = faultOnRow3([
			{ status: 400, error: { message: "This model's maximum context length is 8192 tokens." } },
		]);
		const scores = await run();
		expect(scores[2].error).toMatch(/rejected the request \(400\).*context length/);
		expect(calls.get(3)).toBe(1);
	});
});
