/**
 * The judge verdict cache against the local OpenAI-compatible server: a second run makes no call,
 * anything that decides a verdict misses, TTL expiry, corrupt entries and unreachable stores are
 * skipped (the judge is called), fan-out, bare and per-turn calls are cached, and Redis works.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { aggregate } from '../../../src/aggregate';
import type { Score } from '../../../src/core/types';
import {
	diskBackend,
	openVerdictCache,
	redisBackend,
	redisSettingsFromEnv,
	VerdictCache,
	verdictKey,
	type CacheInfo,
} from '../../../src/judges/cache';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { runJudge, runJudges, type JudgeContext } from '../../../src/judges/run';
import { chunkRelevance } from '../../../src/judges/specs/chunkRelevance';
import { factCheck } from '../../../src/judges/specs/factCheck';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { coherence } from '../../../src/judges/specs/quality';
import { runEveryTurn } from '../../../src/judges/turns';
import type { JudgeDecl } from '../../../src/judges/types';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';
import { commandRuns, describeWithSystemDep } from '../../support/system-deps';

const SECRET = 'sk-cache-test-SECRET-91c2';
const rows = [1, 2, 3].map((i) => ({
	request: `When was bridge ${i} opened?`,
	response: `Bridge ${i} opened in 193${i}.`,
	retrieved_context: [{ doc_uri: `kb/b${i}.md`, content: `Bridge ${i} was opened in 193${i}.` }],
}));

function files(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir)) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...files(p));
		else out.push(p);
	}
	return out;
}

const cacheOf = (s: Score): CacheInfo => s.details?.cache as CacheInfo;

describe('judge verdict cache (disk) against the local server', () => {
	let server: OpenAIServer;
	let source: ModelSource;
	let dir: string;
	let clock: number;
	let cache: VerdictCache;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(() => ({
			json: { reason: 'The context states the year.', score: 5 },
			usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
		}));
		source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			apiKey: SECRET,
			model: 'judge-model',
		});
		dir = mkdtempSync(join(tmpdir(), 'verdict-cache-'));
		clock = Date.UTC(2026, 0, 1);
		cache = new VerdictCache(diskBackend(dir), 3_600_000, () => clock);
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const ctx = (extra: Partial<JudgeContext> = {}): JudgeContext => ({
		source,
		governor: new Governor({ backoffBaseMs: 1, maxRetries: 0 }),
		cache,
		...extra,
	});

	it('a second run over the same rows makes zero calls; cached scores keep value, reason and usage', async () => {
		const cold = await runJudges(groundedness, rows, ctx());
		expect(server.chatRequests()).toHaveLength(3);
		for (const s of cold) {
			expect(s).toMatchObject({ status: 'ok', value: 5, attempts: 1 });
			expect(s.cached).toBeUndefined();
			expect(cacheOf(s)).toEqual({ store: 'disk', hit: false, hits: 0, misses: 1, savedCalls: 0 });
		}
		const warm = await runJudges(groundedness, rows, ctx());
		expect(server.chatRequests()).toHaveLength(3);
		warm.forEach((s, i) => {
			expect(s).toMatchObject({
				status: 'ok',
				value: cold[i].value,
				pass: cold[i].pass,
				reason: cold[i].reason,
				signature: cold[i].signature,
				model: cold[i].model,
				usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
				attempts: 0,
				cached: true,
			});
			expect(cacheOf(s)).toMatchObject({
				store: 'disk',
				hit: true,
				hits: 1,
				misses: 0,
				savedCalls: 1,
				savedUsage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
				storedAt: new Date(clock).toISOString(),
			});
			expect(s.details?.responseMode).toBe('json_schema');
		});
	});

	it('the store holds hashes and verdicts: never the API key, the nonce or the judged text', async () => {
		await runJudges(groundedness, rows, ctx());
		const stored = files(dir)
			.map((f) => readFileSync(f, 'utf8'))
			.join('\n');
		expect(stored).toContain('The context states the year.');
		expect(stored).not.toContain(SECRET);
		expect(stored).not.toContain('Bridge 1 opened in 1931');
		expect(stored).not.toContain('When was bridge');
		for (const r of server.chatRequests()) {
			const nonce = /data-([0-9a-f]{24})/.exec(JSON.stringify(r.messages))?.[1];
			expect(nonce).toBeDefined();
			expect(stored).not.toContain(nonce as string);
		}
	});

	it('a changed response, model, prompt, param, temperature or seed misses; the API key and threshold do not', async () => {
		const row = rows[0];
		await runJudge(groundedness, row, ctx());
		expect(server.chatRequests()).toHaveLength(1);
		const calls = async (inputs: Record<string, unknown>, extra: Partial<JudgeContext> = {}) => {
			const before = server.chatRequests().length;
			const s = await runJudge(groundedness, inputs, ctx(extra));
			expect(s.status).toBe('ok');
			return server.chatRequests().length - before;
		};
		expect(await calls({ ...row, response: 'Bridge 1 opened in 1932.' })).toBe(1);
		expect(await calls(row, { model: 'other-model' })).toBe(1);
		expect(
			await calls(row, {
				promptOverride: { system: 'Rate groundedness strictly.\n{data_tag}' },
			}),
		).toBe(1);
		expect(await calls(row, { temperature: 0.5 })).toBe(1);
		expect(await calls(row, { seed: 7 })).toBe(1);
		expect(await calls(row, { threshold: 4 })).toBe(0);
		const otherKey = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			apiKey: 'sk-another-key',
			model: 'judge-model',
		});
		expect(await calls(row, { source: otherKey })).toBe(0);
		// A param is part of the key: fact check's document source changes the call.
		const fc = { request: 'Q?', response: 'Paris is in France.', retrieved_context: [] };
		// MiniCheck calls carry no response format and read a bare word.
		server.setDefault((req) =>
			req.responseFormat ? { json: { reason: 'ok', verdict: 'yes' } } : { content: 'Yes' },
		);
		const fact = async (params: Record<string, unknown>) => {
			const before = server.chatRequests().length;
			const s = await runJudge(factCheck, fc, ctx({ params }));
			expect(s.error).toBeUndefined();
			return server.chatRequests().length - before;
		};
		expect(await fact({})).toBe(1);
		expect(await fact({})).toBe(0);
		expect(await fact({ documentSource: 'request', factCheckMode: 'minicheck' })).toBe(1);
	});

	it('a verdict older than the TTL is judged again; within it, it is a hit', async () => {
		await runJudge(groundedness, rows[0], ctx());
		clock += 3_600_000 - 1;
		expect(await runJudge(groundedness, rows[0], ctx())).toMatchObject({
			cached: true,
		});
		expect(server.chatRequests()).toHaveLength(1);
		clock += 2;
		const expired = await runJudge(groundedness, rows[0], ctx());
		expect(expired.cached).toBeUndefined();
		expect(expired).toMatchObject({ status: 'ok', attempts: 1 });
		expect(server.chatRequests()).toHaveLength(2);
		// TTL 0 keeps verdicts forever.
		const forever = new VerdictCache(diskBackend(dir), 0, () => clock + 1e12);
		const s = await runJudge(groundedness, rows[0], ctx({ cache: forever }));
		expect(s.cached).toBe(true);
	});

	it('a corrupted cache entry is skipped: the judge is called, the row says so, then it is a hit again', async () => {
		await runJudge(groundedness, rows[0], ctx());
		const content = files(join(dir, 'verdicts-v2'));
		expect(content).toHaveLength(1);
		writeFileSync(content[0], readFileSync(content[0], 'utf8').replace('"value":5', '"value":1'));
		const s = await runJudge(groundedness, rows[0], ctx());
		expect(s).toMatchObject({ status: 'ok', value: 5, attempts: 1 });
		expect(s.cached).toBeUndefined();
		expect(cacheOf(s).skipped).toMatch(/corrupt cache entry \(EINTEGRITY\)/);
		expect(server.chatRequests()).toHaveLength(2);
		const again = await runJudge(groundedness, rows[0], ctx());
		expect(again).toMatchObject({ cached: true, value: 5 });
		expect(server.chatRequests()).toHaveLength(2);
	});

	it('an entry that is not a verdict is skipped like a corrupt one', async () => {
		const backend = diskBackend(dir);
		const raw = new VerdictCache({ ...backend, get: async () => '{"format":"something else"}' }, 0);
		const s = await runJudge(groundedness, rows[0], ctx({ cache: raw }));
		expect(s).toMatchObject({ status: 'ok', attempts: 1 });
		expect(cacheOf(s).skipped).toMatch(/not a verdict/);
	});

	it('an unwritable disk store never fails a row', async () => {
		const file = join(dir, 'not-a-folder');
		writeFileSync(file, 'x');
		const broken = new VerdictCache(diskBackend(join(file, 'cache')), 0);
		const s = await runJudge(groundedness, rows[0], ctx({ cache: broken }));
		expect(s).toMatchObject({ status: 'ok', value: 5, attempts: 1 });
		expect(cacheOf(s)).toMatchObject({ store: 'disk', hit: false });
		expect(cacheOf(s).skipped).toMatch(/disk cache (unreadable|not writable)/);
	});

	it('an error verdict is never cached: the next run calls the judge again', async () => {
		server.script({ status: 400, error: { message: 'bad request' } });
		const failed = await runJudge(groundedness, rows[0], ctx());
		expect(failed.status).toBe('error');
		const ok = await runJudge(groundedness, rows[0], ctx());
		expect(ok).toMatchObject({ status: 'ok', attempts: 1 });
		expect(server.chatRequests()).toHaveLength(2);
	});

	it('fan-out calls are cached one by one: a changed chunk re-judges only that chunk', async () => {
		server.setDefault(() => ({
			json: { reason: 'relevant', verdict: 'yes' },
			usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
		}));
		const chunks = ['a', 'b', 'c'].map((c) => ({ doc_uri: `kb/${c}.md`, content: `Chunk ${c}.` }));
		const row = { request: 'What?', retrieved_context: chunks };
		const cold = await runJudge(chunkRelevance, row, ctx());
		expect(cold).toMatchObject({ status: 'ok', attempts: 3 });
		expect(server.chatRequests()).toHaveLength(3);
		const warm = await runJudge(chunkRelevance, row, ctx());
		expect(server.chatRequests()).toHaveLength(3);
		expect(warm).toMatchObject({
			status: 'ok',
			value: cold.value,
			attempts: 0,
			cached: true,
			usage: { promptTokens: 150, completionTokens: 15, totalTokens: 165 },
		});
		expect(cacheOf(warm)).toMatchObject({ hit: true, hits: 3, misses: 0, savedCalls: 3 });
		const changed = { ...row, retrieved_context: [...chunks.slice(0, 2), { content: 'New.' }] };
		const partly = await runJudge(chunkRelevance, changed, ctx());
		expect(server.chatRequests()).toHaveLength(4);
		expect(partly).toMatchObject({ attempts: 1 });
		expect(partly.cached).toBeUndefined();
		expect(cacheOf(partly)).toMatchObject({ hit: false, hits: 2, misses: 1, savedCalls: 2 });
	});

	it('bare (MiniCheck) calls are cached', async () => {
		server.setDefault(() => ({
			content: 'Yes',
			usage: { prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 },
		}));
		const row = { request: 'Doc: the sky is blue.', response: 'The sky is blue.' };
		const opts = { params: { factCheckMode: 'minicheck' } };
		const cold = await runJudge(factCheck, row, ctx(opts));
		const warm = await runJudge(factCheck, row, ctx(opts));
		expect(server.chatRequests()).toHaveLength(1);
		expect(cold).toMatchObject({ status: 'ok', value: true, attempts: 1 });
		expect(warm).toMatchObject({ status: 'ok', value: true, attempts: 0, cached: true });
	});

	it('per-turn conversations cache every turn', async () => {
		const convo = {
			history: [
				{ role: 'user', content: 'Hi' },
				{ role: 'assistant', content: 'Hello, how can I help?' },
			],
			request: 'Which bag is warmest?',
			response: 'The Alpine 900.',
		};
		const cold = await runEveryTurn(coherence, convo, ctx());
		expect(server.chatRequests()).toHaveLength(2);
		const warm = await runEveryTurn(coherence, convo, ctx());
		expect(server.chatRequests()).toHaveLength(2);
		expect(warm).toMatchObject({ status: 'ok', value: cold.value, attempts: 0, cached: true });
		expect(cacheOf(warm)).toMatchObject({ hits: 2, misses: 0, savedCalls: 2 });
	});

	it('the aggregate counts cached usage as saved, not spent', async () => {
		const cold = await runJudges(groundedness, rows, ctx());
		const warm = await runJudges(groundedness, rows, ctx());
		const items = (scores: Score[]) =>
			scores.map((s, i) => ({ request_id: `r${i}`, eval: { groundedness: s } }));
		const a = aggregate(items(cold));
		expect(a.cost).toMatchObject({ calls: 3, totalTokens: 330 });
		expect(a.cost.saved).toBeUndefined();
		const b = aggregate(items(warm));
		expect(b.cost).toMatchObject({ calls: 0, promptTokens: 0, totalTokens: 0 });
		expect(b.cost.saved).toMatchObject({
			calls: 3,
			promptTokens: 300,
			completionTokens: 30,
			totalTokens: 330,
			byMetric: { groundedness: { calls: 3, totalTokens: 330 } },
		});
	});
});

describe('cache store selection', () => {
	it('auto uses Redis in n8n queue mode (QUEUE_BULL_REDIS_*) or with an explicit URL, else the disk', () => {
		const env = { N8N_USER_FOLDER: '/srv/n8n' } as NodeJS.ProcessEnv;
		const opts = { enabled: true, store: 'auto' as const, ttlMs: 1000 };
		expect(openVerdictCache(opts, env)?.backend.location).toBe('/srv/n8n/.n8n/rag-eval-cache');
		expect(openVerdictCache({ ...opts, dir: '/tmp/x' }, env)?.backend.location).toBe('/tmp/x');
		expect(openVerdictCache({ ...opts, enabled: false }, env)).toBeUndefined();
		const queue = {
			...env,
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: 'redis.internal',
			QUEUE_BULL_REDIS_PORT: '6380',
			QUEUE_BULL_REDIS_DB: '2',
			QUEUE_BULL_REDIS_PASSWORD: 'hunter2',
		};
		expect(redisSettingsFromEnv(queue)).toMatchObject({
			host: 'redis.internal',
			port: 6380,
			db: 2,
			password: 'hunter2',
		});
		const q = openVerdictCache(opts, queue);
		expect(q?.store).toBe('redis');
		expect(q?.backend.location).toBe('redis.internal:6380/2');
		void q?.close();
		expect(openVerdictCache({ ...opts, store: 'disk' }, queue)?.store).toBe('disk');
		const url = openVerdictCache(opts, {
			RAG_EVAL_CACHE_REDIS_URL: 'redis://user:pw-secret@cache.local:6390/3',
		});
		expect(url?.backend.location).toBe('cache.local:6390/3');
		void url?.close();
	});
});

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

/**
 * A redis-server of our own on a free port. Ready when it says so on its log (no polling with a
 * deadline, which a loaded machine can outrun); when it exits first (the port was taken between
 * freePort() and its bind), another port is tried.
 */
async function startRedis(): Promise<{ child: ChildProcess; port: number }> {
	let log = '';
	for (let attempt = 1; attempt <= 5; attempt++) {
		const port = await freePort();
		const child = spawn(
			'redis-server',
			['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
			{ stdio: ['ignore', 'pipe', 'pipe'] },
		);
		log = '';
		const ready = await new Promise<boolean>((resolve) => {
			const read = (d: Buffer) => {
				log += String(d);
				if (/Ready to accept connections/.test(log)) resolve(true);
			};
			child.stdout?.on('data', read);
			child.stderr?.on('data', read);
			child.once('exit', () => resolve(false));
			child.once('error', () => resolve(false));
		});
		if (ready) return { child, port };
	}
	throw new Error(`redis-server did not start:\n${log.slice(-2000)}`);
}

describeWithSystemDep(
	'judge verdict cache (Redis)',
	{
		available: commandRuns('redis-server'),
		missing: 'redis-server is not installed (Debian package redis-server)',
	},
	() => {
		let server: OpenAIServer;
		let source: ModelSource;
		let redis: ChildProcess | undefined;
		let port: number;
		// Our own client for looking inside the store (no redis-cli process per look).
		let inspector: IORedis;
		beforeAll(async () => {
			({ child: redis, port } = await startRedis());
			inspector = new IORedis({ host: '127.0.0.1', port, lazyConnect: true });
			await inspector.connect();
		}, 120_000);
		afterAll(async () => {
			await inspector?.quit();
			if (redis && redis.exitCode === null) {
				const exited = new Promise((r) => redis?.once('exit', r));
				redis.kill();
				await exited;
			}
		});
		beforeEach(async () => {
			server = await startOpenAIServer();
			server.setDefault(() => ({
				json: { reason: 'Stated.', score: 4 },
				usage: { prompt_tokens: 80, completion_tokens: 8, total_tokens: 88 },
			}));
			source = createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			});
		});
		afterEach(async () => {
			server.assertNoUnexpected();
			await server.close();
		});

		it('two cache clients (two workers) share hits; entries carry the TTL as a Redis expiry', async () => {
			const env = {
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(port),
			};
			// A day: no entry can expire between the two runs, however slow the machine.
			const ttlMs = 86_400_000;
			const opts = { enabled: true, store: 'auto' as const, ttlMs };
			const picked = openVerdictCache(opts, env);
			expect(picked?.store).toBe('redis');
			expect(picked?.backend.location).toBe(`127.0.0.1:${port}/0`);
			await picked?.close();
			// The two workers connect with the queue settings n8n gives them. Their connect and
			// command timeout (2 s by default, so that a dead Redis costs a row little) is raised
			// here: on a loaded machine a slow write would turn into a miss, and this test is about
			// sharing, not about speed.
			const settings = redisSettingsFromEnv(env);
			expect(settings).toMatchObject({ host: '127.0.0.1', port, db: 0 });
			const worker = () =>
				new VerdictCache(redisBackend({ ...settings, timeoutMs: 60_000 }), ttlMs);
			const worker1 = worker();
			const worker2 = worker();
			const governor = new Governor({ backoffBaseMs: 1, maxRetries: 0 });
			const cold = await runJudges(groundedness, rows, {
				source,
				governor,
				cache: worker1,
			});
			expect(cold.map((s) => cacheOf(s))).toEqual(
				cold.map(() => expect.objectContaining({ store: 'redis', hit: false })),
			);
			expect(cold.map((s) => cacheOf(s).skipped)).toEqual([undefined, undefined, undefined]);
			const warm = await runJudges(groundedness, rows, {
				source,
				governor,
				cache: worker2,
			});
			expect(server.chatRequests()).toHaveLength(3);
			for (const s of warm) expect(s).toMatchObject({ cached: true, attempts: 0, value: 4 });
			expect(cacheOf(warm[0])).toMatchObject({ store: 'redis', hit: true });
			// The client adds no prefix here: keys are read as stored.
			const keys = (await inspector.keys('n8n-rag-eval:verdict:*')).sort();
			expect(keys).toHaveLength(3);
			for (const key of keys) {
				const ttl = await inspector.pttl(key);
				expect(ttl).toBeGreaterThan(0);
				expect(ttl).toBeLessThanOrEqual(ttlMs);
			}
			await worker1.close();
			await worker2.close();
		});

		it('a verdict stored under the first key format is read and kept under the new key with the TTL it had left', async () => {
			const ttlMs = 86_400_000;
			const storedAt = Date.now() - 3_600_000;
			const values = { request: 'Is it coherent?', response: 'It is. Fully.' };
			const keys = verdictKey(coherence, coherence.prompt, values, {}, { source });
			expect(keys.earlier()).toHaveLength(1);
			const old = keys.earlier()[0];
			const entry = {
				format: 'rag-eval-verdict/1',
				key: old,
				value: 3,
				reason: 'earlier',
				attempts: 1,
				storedAt,
			};
			await inspector.set(`n8n-rag-eval:${old}`, JSON.stringify(entry), 'PX', ttlMs - 3_600_000);
			const worker = new VerdictCache(
				redisBackend({ host: '127.0.0.1', port, timeoutMs: 60_000 }),
				ttlMs,
			);
			const s = await runJudge(coherence, values, {
				source,
				governor: new Governor({ maxRetries: 0 }),
				cache: worker,
			});
			await worker.close();
			expect(server.chatRequests()).toHaveLength(0);
			expect(s).toMatchObject({ cached: true, value: 3, reason: 'earlier' });
			const adopted = await inspector.get(`n8n-rag-eval:${keys.key}`);
			expect(JSON.parse(adopted ?? '{}')).toMatchObject({ key: keys.key, storedAt, value: 3 });
			const left = await inspector.pttl(`n8n-rag-eval:${keys.key}`);
			expect(left).toBeGreaterThan(0);
			expect(left).toBeLessThanOrEqual(ttlMs - 3_600_000);
		});

		it('an unreachable Redis never fails a row: the judge is called and the row says why', async () => {
			const dead = await freePort();
			const cache = new VerdictCache(
				redisBackend({ host: '127.0.0.1', port: dead, password: 'pw-never-shown', timeoutMs: 500 }),
				60_000,
			);
			const governor = new Governor({ backoffBaseMs: 1, maxRetries: 0 });
			const scores = await runJudges(groundedness, rows, { source, governor, cache });
			expect(server.chatRequests()).toHaveLength(3);
			for (const s of scores) {
				expect(s).toMatchObject({ status: 'ok', value: 4, attempts: 1 });
				expect(cacheOf(s)).toMatchObject({ store: 'redis', hit: false });
				expect(cacheOf(s).skipped).toMatch(
					new RegExp(`redis cache unreadable at 127.0.0.1:${dead}/0`),
				);
				expect(JSON.stringify(s)).not.toContain('pw-never-shown');
			}
			await cache.close();
		});
	},
);
