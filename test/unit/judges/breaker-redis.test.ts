/**
 * The circuit breaker shared through Redis, as n8n's queue-mode workers share it: two governors in
 * one process, each with its own Redis connection (as two workers have), judging over HTTP against
 * the local server, with a real redis-server on a free port. And a Redis that is down: the local
 * breaker state is used, the governor says so once, and no row is affected.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { breakerStoreKey, decodeBreaker } from '../../../src/judges/breaker';
import { redisBackend } from '../../../src/judges/cache';
import { Governor, type GovernorOptions } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { runJudges } from '../../../src/judges/run';
import { groundedness } from '../../../src/judges/specs/groundedness';
import type { JudgeDecl } from '../../../src/judges/types';
import { faults, startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const SECRET = 'sk-test-breaker-redis-5b1e0c';
const rows = Array.from({ length: 4 }, (_, i) => ({
	request: `question ${i}`,
	response: `answer ${i}`,
	retrieved_context: [{ content: `context ${i}` }],
}));

async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = createServer();
		s.listen(0, '127.0.0.1', () => {
			const port = (s.address() as { port: number }).port;
			s.close(() => resolve(port));
		});
		s.on('error', reject);
	});
}

const redisCli = (port: number, ...args: string[]): string =>
	spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();

let server: OpenAIServer;
let source: ModelSource;
beforeEach(async () => {
	server = await startOpenAIServer();
	source = createOpenAIModelSource({
		provider: 'compatible',
		baseUrl: server.baseUrl,
		model: 'judge-model',
		apiKey: SECRET,
	});
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

describe('breaker state shared through Redis', () => {
	let redis: ChildProcess | undefined;
	let port: number;
	beforeAll(async () => {
		port = await freePort();
		redis = spawn(
			'redis-server',
			['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
			{ stdio: 'ignore' },
		);
		for (let i = 0; i < 50; i++) {
			if (redisCli(port, 'ping') === 'PONG') return;
			await new Promise((r) => setTimeout(r, 100));
		}
		throw new Error('redis-server did not start (Debian package redis-server)');
	});
	afterAll(async () => {
		if (redis && redis.exitCode === null) {
			const exited = new Promise((r) => redis?.once('exit', r));
			redis.kill();
			await exited;
		}
	});
	beforeEach(() => {
		redisCli(port, 'flushall');
	});

	/** A governor with its own connection to the shared Redis (one per worker). */
	function worker(opts: GovernorOptions = {}) {
		const store = redisBackend({ host: '127.0.0.1', port });
		const problems: string[] = [];
		const governor = new Governor({
			backoffBaseMs: 1,
			backoffMaxMs: 2,
			concurrency: 4,
			timeoutMs: 5000,
			breakerCooldownMs: 0,
			...opts,
			share: { store, onStoreError: (m) => problems.push(m) },
		});
		const judge = () => runJudges(groundedness as JudgeDecl, rows, { source, governor });
		const close = async () => {
			await governor.flushShared();
			await store.close();
		};
		return { governor, judge, close, problems };
	}

	it('a model one worker found hung is not called by the other: its rows leave at once, named unavailable', async () => {
		server.setDefault(() => faults.hang());
		const w1 = worker({ timeoutMs: 300 });
		const first = await w1.judge();
		await w1.close();
		// two timeouts in a row open it; at most the 4 rows in flight were called
		const learnt = w1.governor.calls(source.key);
		expect(learnt).toBeGreaterThanOrEqual(2);
		expect(learnt).toBeLessThanOrEqual(4);
		for (const s of first) expect(s).toMatchObject({ status: 'error', value: null, pass: null });

		// The entry: the hash of the governor key (no endpoint, no model, no key), with an expiry.
		const key = `n8n-rag-eval:${breakerStoreKey(source.key)}`;
		expect(redisCli(port, '--scan', '--pattern', 'n8n-rag-eval:breaker:*')).toBe(key);
		const ttl = Number(redisCli(port, 'pttl', key));
		expect(ttl).toBeGreaterThan(0);
		expect(ttl).toBeLessThanOrEqual(10 * 60_000);
		const raw = redisCli(port, 'get', key);
		expect(decodeBreaker(raw)).toMatchObject({
			state: 'down',
			opened: expect.stringMatching(
				/^2 rows in a row timed out \([2-4] calls, no answer in between\)$/,
			),
		});
		expect(raw).not.toContain(SECRET);
		expect(raw).not.toContain(server.baseUrl);

		const w2 = worker({ timeoutMs: 300 });
		const second = await w2.judge();
		await w2.close();
		expect(w2.governor.calls(source.key)).toBe(0);
		expect(server.chatRequests().length).toBeLessThanOrEqual(learnt);
		for (const s of second) {
			expect(s).toMatchObject({ status: 'error', value: null, pass: null, attempts: 0 });
			expect(s.details?.errorKind).toBe('unavailable');
			expect(s.error).toBe(
				`Groundedness: judge model unavailable: 2 rows in a row timed out (2 calls, no answer in between) (last: the judge model did not answer within 300 ms). Found down by another execution (breaker state shared through 127.0.0.1:${port}/0) ${/(\d+ ms|[\d.]+ s) ago/.exec(String(s.error))?.[1]} ago: not called.`,
			);
		}
		expect([...w1.problems, ...w2.problems]).toEqual([]);
	});

	it("after the cool-down another worker's probe finds the model back: judging resumes and the entry is gone", async () => {
		let up = false;
		server.setDefault(() =>
			up ? { json: { reason: 'Supported.', score: 4 } } : faults.serverError(),
		);
		const w1 = worker({ breakerThreshold: 3 });
		await w1.judge();
		await w1.close();
		const key = `n8n-rag-eval:${breakerStoreKey(source.key)}`;
		expect(decodeBreaker(redisCli(port, 'get', key))?.state).toBe('down');

		up = true;
		await new Promise((r) => setTimeout(r, 30));
		const w2 = worker({ breakerThreshold: 3, breakerCooldownMs: 20 });
		const scores = await w2.judge();
		await w2.close();
		expect(scores.map((s) => s.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
		// the probe, then the other rows: no call was lost to learning the state again
		expect(w2.governor.calls(source.key)).toBe(4);
		expect(redisCli(port, 'exists', key)).toBe('0');
	});
});

describe('a Redis that is down', () => {
	async function deadStore() {
		const dead = await freePort();
		return {
			dead,
			store: redisBackend({
				host: '127.0.0.1',
				port: dead,
				password: 'pw-never-shown',
				timeoutMs: 500,
			}),
		};
	}

	it('never fails a row: a healthy model judges every row, and the governor says once that it kept its own state', async () => {
		server.setDefault(() => ({ json: { reason: 'Supported.', score: 4 } }));
		const { dead, store } = await deadStore();
		const problems: string[] = [];
		const governor = new Governor({
			share: { scope: 'exec-redis-down', store, onStoreError: (m) => problems.push(m) },
		});
		const scores = await runJudges(groundedness as JudgeDecl, rows, { source, governor });
		await governor.flushShared();
		await store.close();
		expect(scores.map((s) => [s.status, s.value])).toEqual(Array(4).fill(['ok', 4]));
		expect(server.chatRequests()).toHaveLength(4);
		expect(problems).toHaveLength(1);
		expect(problems[0]).toMatch(
			new RegExp(
				`^circuit-breaker state not shared through 127\\.0\\.0\\.1:${dead}/0 \\(.+\\): this node used its own state only$`,
			),
		);
		expect(governor.shareProblem()).toBe(problems[0]);
		expect(problems[0]).not.toContain('pw-never-shown');
	});

	it('the local breaker still opens on a hung model: rows leave named unavailable, not 0', async () => {
		server.setDefault(() => faults.hang());
		const { store } = await deadStore();
		const governor = new Governor({
			backoffBaseMs: 1,
			concurrency: 4,
			timeoutMs: 100,
			breakerCooldownMs: 0,
			share: { store },
		});
		const scores = await runJudges(groundedness as JudgeDecl, rows, { source, governor });
		await governor.flushShared();
		await store.close();
		expect(server.chatRequests().length).toBeLessThanOrEqual(4);
		expect(governor.breakerState(source.key)).toBe('unavailable');
		for (const s of scores) {
			expect(s).toMatchObject({ status: 'error', value: null, pass: null });
			expect(s.error).toMatch(
				/judge model unavailable: 2 rows in a row timed out \([2-4] calls, no answer in between\)/,
			);
		}
		expect(governor.shareProblem()).toMatch(/circuit-breaker state not shared/);
	});
});
