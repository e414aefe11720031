/**
 * A model that is down, hung, briefly down or rate-limited, against the local server: a model down
 * for good costs a bounded number of requests and every row leaves with a named error; a model
 * only briefly down still ends with every row scored. Connection errors name their cause, and
 * cost counts every HTTP call.
 */
import { createServer } from 'node:net';
import { aggregate } from '../../../src/aggregate';
import { Governor, type GovernorOptions } from '../../../src/judges/governor';
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

const SECRET = 'sk-test-outage-7f3a9c2d41e0';
const good: ScriptedReply = { json: { reason: 'Supported by the context.', score: 4 } };
const rowsOf = (n: number) =>
	Array.from({ length: n }, (_, i) => ({
		request: `question ${i}`,
		response: `answer ${i}`,
		retrieved_context: [{ content: `context ${i}` }],
	}));

let server: OpenAIServer;
let source: ModelSource;
beforeEach(async () => {
	server = await startOpenAIServer();
	source = sourceAt(server.baseUrl);
});
afterEach(async () => {
	await server.close();
});

function sourceAt(baseUrl: string): ModelSource {
	return createOpenAIModelSource({
		provider: 'compatible',
		baseUrl,
		model: 'judge-model',
		apiKey: SECRET,
	});
}

function judge(rows: number, opts: GovernorOptions, src: ModelSource = source) {
	const governor = new Governor({ backoffBaseMs: 2, backoffMaxMs: 10, ...opts });
	return runJudges(groundedness, rowsOf(rows), { source: src, governor }).then((scores) => ({
		scores,
		governor,
	}));
}

describe('a model down for good', () => {
	it('answering 500 to everything: 60 rows cost a handful of requests, not 300, and each row is named unavailable', async () => {
		server.setDefault(() => faults.serverError());
		const { scores, governor } = await judge(60, { concurrency: 8, breakerCooldownMs: 20 });
		expect(scores).toHaveLength(60);
		// The first wave (concurrency 8); once rows fail with no answer between, no more calls go out
		// than it takes to open the breaker; then two probes. Before rows were counted: 13.
		const requests = server.chatRequests().length;
		console.log(`model down (500 to all), 60 rows at concurrency 8: ${requests} requests`);
		expect(requests).toBeGreaterThanOrEqual(5 + 2);
		expect(requests).toBeLessThanOrEqual(8 + 2);
		expect(governor.calls(source.key)).toBe(requests);
		for (const s of scores) {
			expect(s).toMatchObject({ status: 'error', value: null, pass: null });
			expect(s.error).toMatch(
				/^Groundedness: judge model unavailable: 5 rows in a row failed \([5-8] calls, no answer in between\), and 2 probe calls after a 20 ms cool-down failed too \(last: server error \(500\)/,
			);
			expect(s.details?.errorKind).toBe('unavailable');
		}
		// each row's attempts are its own HTTP calls: they add up to what the server saw
		expect(scores.reduce((a, s) => a + (s.attempts ?? 0), 0)).toBe(requests);
	});

	it('accepting and never answering: timeouts open the breaker, no row waits out every retry', async () => {
		server.setDefault(() => faults.hang());
		const { scores } = await judge(40, { concurrency: 4, timeoutMs: 100, breakerCooldownMs: 0 });
		expect(scores).toHaveLength(40);
		const requests = server.chatRequests().length;
		// Two timeouts in a row open it (a row gives up after two), plus the calls in flight; before
		// timeouts opened it sooner, 5 failures did: every row in flight timed out twice.
		expect(requests).toBeLessThanOrEqual(2 + 3);
		for (const s of scores) {
			expect(s.status).toBe('error');
			expect(s.error).toMatch(
				/judge model unavailable: 2 rows in a row timed out \([2-4] calls, no answer in between\) \(last: the judge model did not answer within 100 ms\)/,
			);
		}
	});

	it('with the breaker off, every row still ends within its own retry budget', async () => {
		server.setDefault(() => faults.serverError());
		const { scores } = await judge(6, { concurrency: 2, breakerThreshold: 0, maxRetries: 2 });
		expect(server.chatRequests()).toHaveLength(18);
		for (const s of scores)
			expect(s.error).toMatch(/server error \(500\).*gave up after 3 attempts/);
	});
});

describe('a model only briefly down', () => {
	it('a burst of 5xx that opens the breaker: the probe finds it back and every row is scored', async () => {
		const states: string[] = [];
		// 503 until enough consecutive failures have opened the breaker, then back up
		server.setDefault(() => (states.length === 0 ? faults.unavailable() : good));
		const governor = new Governor({
			backoffBaseMs: 2,
			concurrency: 8,
			breakerCooldownMs: 30,
			onBreaker: (_key, state) => states.push(state),
		});
		const scores = await runJudges(groundedness, rowsOf(30), { source, governor });
		expect(states).toEqual(['open', 'closed']);
		expect(scores.map((s) => s.status)).toEqual(Array(30).fill('ok'));
		expect(governor.breakerState(source.key)).toBe('closed');
	});

	it('a 429 storm with Retry-After: more 429s than Max Retries per row, every row is scored', async () => {
		let n = 0;
		// the first 120 calls are rate-limited: about 15 per row in flight, far above Max Retries
		server.setDefault(() => (n++ < 120 ? faults.rateLimited(0.005) : good));
		const { scores } = await judge(20, { concurrency: 8, maxRetries: 2 });
		expect(scores.map((s) => s.status)).toEqual(Array(20).fill('ok'));
		expect(Math.max(...scores.map((s) => s.attempts ?? 0))).toBeGreaterThan(3);
		expect(server.chatRequests().length).toBe(120 + 20);
	});
});

describe('fatal errors at concurrency 8', () => {
	it('the first fatal error is kept, and a row whose own call was rate-limited says so', async () => {
		let n = 0;
		server.setDefault(() => {
			const k = n++;
			if (k === 0) return { status: 401, error: { message: 'bad key' }, delayMs: 40 };
			if (k === 1) return { status: 403, error: { message: 'no access' }, delayMs: 80 };
			return faults.rateLimited(0.01);
		});
		const { scores, governor } = await judge(20, { concurrency: 8 });
		expect(governor.fatalError(source.key)?.message).toMatch(/^authentication failed \(401\)/);
		const errors = scores.map((s) => String(s.error));
		const own401 = errors.filter(
			(e) =>
				/^Groundedness: authentication failed \(401\): bad key/.test(e) && !/not called/.test(e),
		);
		expect(own401).toHaveLength(1);
		expect(errors.filter((e) => /^Groundedness: permission denied \(403\)/.test(e))).toHaveLength(
			1,
		);
		const limited = errors.filter((e) => /^Groundedness: rate limited \(429\)/.test(e));
		expect(limited.length).toBeGreaterThan(0);
		for (const e of limited)
			expect(e).toMatch(
				/; not retried, because another call with this credential and model failed: authentication failed \(401\)/,
			);
		const notCalled = errors.filter((e) => /\(not called: an earlier call/.test(e));
		expect(1 + 1 + limited.length + notCalled.length).toBe(20);
		for (const s of scores) expect(s).toMatchObject({ status: 'error', value: null, pass: null });
	});
});

describe('connection errors name their cause', () => {
	async function oneRow(src: ModelSource): Promise<string> {
		const { scores } = await judge(1, { maxRetries: 0, breakerThreshold: 0 }, src);
		return String(scores[0].error);
	}

	it('ECONNREFUSED when nothing listens', async () => {
		const port = await new Promise<number>((resolve) => {
			const s = createServer().listen(0, '127.0.0.1', () => {
				const p = (s.address() as { port: number }).port;
				s.close(() => resolve(p));
			});
		});
		const error = await oneRow(sourceAt(`http://127.0.0.1:${port}/v1`));
		expect(error).toMatch(
			/connection to the judge model failed: ECONNREFUSED \(connection refused: nothing listens at that host and port\)/,
		);
	});

	it('ECONNRESET on a reset, and the closed socket by name', async () => {
		server.script(faults.reset(), faults.drop());
		expect(await oneRow(source)).toMatch(/failed: ECONNRESET \(connection reset by the server\)/);
		expect(await oneRow(source)).toMatch(
			/failed: (UND_ERR_SOCKET|ECONNRESET) \(the server closed the connection before answering\)/,
		);
	});

	it('a TLS failure is fatal and says so (https to a plain-http port)', async () => {
		const error = await oneRow(sourceAt(server.baseUrl.replace('http:', 'https:')));
		expect(error).toMatch(
			/connection to the judge model failed: (ERR_SSL_\w+|EPROTO) \(TLS handshake failed/,
		);
		expect(error).toMatch(/Check the base URL/);
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('an unknown host names the DNS failure', async () => {
		const error = await oneRow(sourceAt('http://no-such-host.invalid/v1'));
		expect(error).toMatch(/failed: (ENOTFOUND|EAI_AGAIN) \(DNS lookup failed/);
		expect(error).not.toContain(SECRET);
	});
});

describe('cost counts HTTP calls', () => {
	it('retries, re-asks and failed rows count; billed tokens of failed attempts are kept', async () => {
		const script = new Map<number, ScriptedReply[]>([
			[0, [good]],
			[1, [faults.serverError(), faults.serverError(), good]],
			[2, [faults.truncatedJson(), good]],
			[3, [faults.empty(), faults.empty()]],
			[4, [faults.serverError()]],
		]);
		const seen = new Map<number, number>();
		server.setDefault((req) => {
			const row = Number(/answer (\d+)/.exec(req.messages?.[1]?.content ?? '')?.[1]);
			const k = seen.get(row) ?? 0;
			seen.set(row, k + 1);
			const seq = script.get(row) ?? [good];
			return seq[Math.min(k, seq.length - 1)];
		});
		const { scores } = await judge(5, { concurrency: 1, maxRetries: 2, breakerThreshold: 0 });
		expect(scores.map((s) => s.attempts)).toEqual([1, 3, 2, 2, 3]);
		expect(scores.map((s) => s.status)).toEqual(['ok', 'ok', 'ok', 'error', 'error']);
		expect(scores[3].error).toMatch(/after one re-ask: the judge model returned an empty reply/);
		// the re-ask after an empty reply carries no empty assistant turn
		const reask = server
			.chatRequests()
			.filter((r) => /answer 3/.test(r.messages?.[1]?.content ?? ''))[1];
		expect(reask.messages?.map((m) => m.role)).toEqual(['system', 'user', 'user']);
		// the truncated first reply was billed: its tokens are in the row's usage
		const billed = server
			.chatRequests()
			.filter((r) => /answer 2/.test(r.messages?.[1]?.content ?? ''));
		expect(billed).toHaveLength(2);
		const items = scores.map((s) => ({ eval: { groundedness: s } }));
		const summary = aggregate(items, { bootstrapResamples: 0 });
		expect(summary.cost.calls).toBe(server.chatRequests().length);
		expect(summary.cost.calls).toBe(11);
		expect(summary.cost.byMetric.groundedness.calls).toBe(11);
		const tokens = scores.reduce((a, s) => a + (s.usage?.totalTokens ?? 0), 0);
		expect(summary.cost.totalTokens).toBe(tokens);
		expect(scores[2].usage?.completionTokens).toBeGreaterThan(
			scores[0].usage?.completionTokens ?? 0,
		);
	});
});
