/**
 * Adaptive concurrency over HTTP against the local OpenAI-compatible server, which counts the
 * requests it holds at once (never a wall-clock figure): the calls in flight rise (doubling at
 * first) while latency holds and no 429 comes, up to Max Concurrency and never past it; a latency that grows with the
 * load stops the rise; a provider limit answered with 429 + Retry-After halves it, once per wave,
 * and every row still leaves with its score; the governors of one execution share one limit per
 * endpoint+model (a later node starts where the earlier one got to, two at once stay under it);
 * a fixed Concurrency (Max = Concurrency, the library's default) never moves.
 */
import { BreakerRegistry } from '../../../src/judges/breaker';
import { AdaptiveLimit, budgetTight } from '../../../src/judges/concurrency';
import { Governor, type GovernorOptions } from '../../../src/judges/governor';
import {
	createOpenAIModelSource,
	providerMaxConcurrency,
	type ModelSource,
} from '../../../src/judges/model';
import { runJudges } from '../../../src/judges/run';
import { coherence } from '../../../src/judges/specs/quality';
import {
	startOpenAIServer,
	type OpenAIServer,
	type ScriptedReply,
} from '../../support/openai-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rows = (n: number, tag = 'r') =>
	Array.from({ length: n }, (_, i) => ({
		request: `Question ${tag}${i}?`,
		response: `Answer ${tag}${i}, clear and complete.`,
	}));

/** A server that counts the chat requests it holds; each request's count at arrival is kept. */
interface Counting {
	inFlight: number;
	peak: number;
	/** In-flight count (this one included) when each request arrived, in arrival order. */
	arrivals: number[];
	limited: number;
	reset(): void;
}

function counting(
	server: OpenAIServer,
	opts: {
		/** Server latency for a request arriving with `n` in flight (itself included). */
		delay?: (n: number) => number;
		/** Serve one request at a time, each taking this long (latency = queue + service). */
		serial?: number;
		/** Answer 429 (Retry-After 0.02 s) when more than this many are in flight. */
		limit?: number;
		/** Answer 429 to the first this many requests. */
		first429?: number;
		/** Headers of every answer (rate-limit budgets). */
		headers?: Record<string, string>;
	},
): Counting {
	const c: Counting = {
		inFlight: 0,
		peak: 0,
		arrivals: [],
		limited: 0,
		reset() {
			c.peak = 0;
			c.arrivals = [];
		},
	};
	let line: Promise<unknown> = Promise.resolve();
	server.setDefault(async (): Promise<ScriptedReply> => {
		c.inFlight++;
		const n = c.inFlight;
		c.peak = Math.max(c.peak, n);
		c.arrivals.push(n);
		const over =
			(opts.limit !== undefined && n > opts.limit) ||
			(opts.first429 !== undefined && c.arrivals.length <= opts.first429);
		try {
			if (over) await sleep(1);
			else if (opts.serial !== undefined) await (line = line.then(() => sleep(opts.serial ?? 0)));
			else await sleep(opts.delay?.(n) ?? 0);
		} finally {
			c.inFlight--;
		}
		if (over) {
			c.limited++;
			return {
				status: 429,
				headers: { 'retry-after': '0.02' },
				error: { message: 'Rate limit reached for requests', code: 'rate_limit_exceeded' },
			};
		}
		return { json: { reason: 'Clear.', score: 4 }, headers: opts.headers };
	});
	return c;
}

describe('AdaptiveLimit, the rule on its own', () => {
	/** Answers one window of calls at the current limit, each taking `ms`. */
	const window = (lim: AdaptiveLimit<unknown>, ms: number, max = 64, tight = false) => {
		const { generation } = lim;
		const n = Math.max(4, Math.floor(lim.limit));
		for (let i = 0; i < n; i++) lim.answered(ms, generation, max, tight);
	};

	it('doubles per window until latency passes twice the best window, then adds one per window', () => {
		const lim = new AdaptiveLimit<unknown>(4);
		const seen = [lim.limit];
		for (const ms of [50, 50, 60, 70, 110, 90, 90]) {
			window(lim, ms);
			seen.push(lim.limit);
		}
		// 4 -> 8 -> 16 -> 32 -> 64 (capped at 64) would follow without the hold at 110 ms.
		expect(seen).toEqual([4, 8, 16, 32, 64, 64, 64, 64]);
		const again = new AdaptiveLimit<unknown>(4);
		for (const ms of [50, 50, 110, 90, 90]) window(again, ms);
		// 4 -> 8 -> 16, held at 110 ms (> 2 x 50), then one a window: 17, 18.
		expect(again.limit).toBe(18);
		expect(again.slowStart).toBe(false);
	});

	it('halves on a 429 once per wave and never below one; a tight budget holds it', () => {
		const lim = new AdaptiveLimit<unknown>(16);
		const { epoch } = lim;
		for (let i = 0; i < 10; i++) lim.rateLimited(epoch);
		expect(lim.limit).toBe(8);
		for (let i = 0; i < 5; i++) lim.rateLimited(lim.epoch);
		expect(lim.limit).toBe(1);
		const held = new AdaptiveLimit<unknown>(8);
		window(held, 50, 64, true);
		expect(held.limit).toBe(8);
		expect(
			budgetTight({ 'x-ratelimit-limit-tokens': '200000', 'x-ratelimit-remaining-tokens': '9000' }),
		).toBe(true);
		expect(budgetTight({ 'x-ratelimit-remaining-requests': '1' })).toBe(false);
	});
});

describe('adaptive concurrency over HTTP', () => {
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
		server.assertNoUnexpected();
		await server.close();
	});

	const judge = async (governor: Governor, n: number, tag?: string) => {
		const scores = await runJudges(coherence, rows(n, tag), { source, governor });
		// Every row leaves with its score, whatever the limit did.
		for (const s of scores) expect(s).toMatchObject({ status: 'ok', value: 4 });
		return scores;
	};
	const gov = (opts: GovernorOptions) =>
		new Governor({ maxRetries: 0, backoffBaseMs: 1, rowDeadlineMs: 0, ...opts });

	it('rises while latency holds and no 429 comes, up to Max Concurrency and never past it', async () => {
		const c = counting(server, { delay: () => 60 });
		const governor = gov({ concurrency: 2, maxConcurrency: 12 });
		await judge(governor, 240);
		expect(c.peak).toBe(12);
		expect(governor.concurrencyPeak(source.key)).toBe(12);
		// It started at 2: the first requests came two at a time.
		expect(Math.max(...c.arrivals.slice(0, 4))).toBe(2);
	});

	it('a fixed Concurrency (Max Concurrency = Concurrency, the default) never moves', async () => {
		const c = counting(server, { delay: () => 20, limit: 3 });
		const governor = gov({ concurrency: 4 });
		await judge(governor, 60);
		expect(c.peak).toBe(4);
		expect(governor.concurrencyLimit(source.key)).toBe(4);
		expect(c.limited).toBeGreaterThan(0);
	});

	it('a latency that grows with the load stops the rise (the server, not the limit, is the bottleneck)', async () => {
		// A server that serves one request at a time, 60 ms each: latency = 60 ms x requests held
		// (plus the client's own time, which a busy machine makes large).
		const c = counting(server, { serial: 60 });
		const governor = gov({ concurrency: 2, maxConcurrency: 32 });
		await judge(governor, 60);
		// From 2 in flight (120 ms) it doubles while the median stays within 2x: to 4, at most 8,
		// then stops, far from the ceiling of 32.
		expect(c.peak).toBeGreaterThanOrEqual(3);
		expect(c.peak).toBeLessThanOrEqual(8);
		expect(governor.concurrencyPeak(source.key)).toBeLessThanOrEqual(8);
	});

	it('a provider limit answered with 429 + Retry-After halves it; far fewer 429s than a fixed 32', async () => {
		const adaptive = counting(server, { delay: () => 20, limit: 6 });
		const governor = gov({ concurrency: 4, maxConcurrency: 32 });
		await judge(governor, 200, 'a');
		// It kept coming back to the provider's limit and halving: a handful of 429s per climb.
		expect(adaptive.limited).toBeGreaterThan(0);
		expect(adaptive.limited).toBeLessThan(60);
		expect(governor.concurrencyLimit(source.key)).toBeLessThanOrEqual(7);
		const adaptiveLimited = adaptive.limited;

		const fixed = counting(server, { delay: () => 20, limit: 6 });
		await judge(gov({ concurrency: 32 }), 200, 'f');
		expect(fixed.limited).toBeGreaterThan(3 * adaptiveLimited);
	});

	it('no rise while the replies say less than a tenth of a rate-limit budget is left', async () => {
		const c = counting(server, {
			delay: () => 30,
			headers: { 'x-ratelimit-limit-requests': '500', 'x-ratelimit-remaining-requests': '40' },
		});
		const governor = gov({ concurrency: 3, maxConcurrency: 16 });
		await judge(governor, 60);
		expect(c.peak).toBe(3);
		expect(governor.concurrencyPeak(source.key)).toBe(3);
	});

	it('by provider: hosted OpenAI and Azure OpenAI may rise, other servers and Chat Models stay', () => {
		const key = (provider: 'openai' | 'azure' | 'compatible') =>
			createOpenAIModelSource({
				provider,
				apiKey: 'k',
				baseUrl: 'http://127.0.0.1:1/v1',
				azureEndpoint: 'https://x.openai.azure.com',
				azureDeployment: 'gpt-4o-mini',
				model: 'gpt-4o-mini',
			}).key;
		expect(providerMaxConcurrency(key('openai'))).toBe(64);
		expect(providerMaxConcurrency(key('azure'))).toBe(64);
		expect(providerMaxConcurrency(key('compatible'))).toBeUndefined();
		expect(providerMaxConcurrency('chat-model:ChatOllama|llama3')).toBeUndefined();
	});

	it('a wave of 429s halves the limit once, not once per 429', async () => {
		const c = counting(server, { delay: () => 30, first429: 16 });
		const governor = gov({ concurrency: 16, maxConcurrency: 32 });
		await judge(governor, 16);
		expect(c.limited).toBe(16);
		// The 16 retries came at most 8 at a time (16 halved once), and it did not fall to 1.
		expect(Math.max(...c.arrivals.slice(16))).toBeLessThanOrEqual(8);
		expect(governor.concurrencyLimit(source.key)).toBeGreaterThanOrEqual(8);
	});

	describe('shared by the governors of one execution', () => {
		const make = (registry: BreakerRegistry, scope: string, opts: GovernorOptions) =>
			gov({ ...opts, share: { scope, registry } });

		it('a later node starts where the earlier one got to, and so does a later execution within ten minutes', async () => {
			const registry = new BreakerRegistry();
			const c = counting(server, { delay: () => 40 });
			const first = make(registry, 'exec-1', { concurrency: 2, maxConcurrency: 10 });
			await judge(first, 200, 'a');
			expect(first.concurrencyPeak(source.key)).toBe(10);

			c.reset();
			const later = make(registry, 'exec-1', { concurrency: 2, maxConcurrency: 10 });
			await judge(later, 40, 'b');
			// Its first requests already came ten at a time.
			expect(Math.max(...c.arrivals.slice(0, 10))).toBe(10);

			// Another execution (the next batch's sub-workflow) in the same process starts there too.
			c.reset();
			const next = make(registry, 'exec-2', { concurrency: 2, maxConcurrency: 10 });
			await judge(next, 20, 'c');
			expect(Math.max(...c.arrivals.slice(0, 10))).toBe(10);
			registry.release('exec-1');
			registry.release('exec-2');
			expect(registry.limitCount).toBe(0);
		});

		it('an execution more than ten minutes after the last use of the key starts at its Concurrency', async () => {
			let clock = 0;
			const registry = new BreakerRegistry(10 * 60_000, () => clock);
			const c = counting(server, { delay: () => 40 });
			await judge(make(registry, 'exec-1', { concurrency: 2, maxConcurrency: 10 }), 120, 'a');
			clock += 11 * 60_000;
			c.reset();
			await judge(make(registry, 'exec-2', { concurrency: 2, maxConcurrency: 10 }), 8, 'b');
			expect(Math.max(...c.arrivals.slice(0, 4))).toBe(2);
		});

		it('a fixed node of a later execution keeps its own Concurrency', async () => {
			const registry = new BreakerRegistry();
			const c = counting(server, { delay: () => 20, limit: 4 });
			// An adaptive node that met 429s above 4 in flight, then a fixed node at 6.
			await judge(make(registry, 'exec-1', { concurrency: 4, maxConcurrency: 16 }), 80, 'a');
			c.reset();
			await judge(make(registry, 'exec-2', { concurrency: 6 }), 30, 'b');
			expect(c.peak).toBe(6);
		});

		it('two nodes at once keep their calls together under the one limit', async () => {
			const registry = new BreakerRegistry();
			const c = counting(server, { delay: () => 20 });
			const a = make(registry, 'exec-1', { concurrency: 5 });
			const b = make(registry, 'exec-1', { concurrency: 5 });
			await Promise.all([judge(a, 60, 'a'), judge(b, 60, 'b')]);
			expect(c.peak).toBe(5);
		});

		it('a node with a lower Max Concurrency stays under its own ceiling', async () => {
			const registry = new BreakerRegistry();
			const c = counting(server, { delay: () => 40 });
			await judge(make(registry, 'exec-1', { concurrency: 2, maxConcurrency: 12 }), 200, 'a');
			c.reset();
			const capped = make(registry, 'exec-1', { concurrency: 2, maxConcurrency: 4 });
			await judge(capped, 40, 'b');
			expect(c.peak).toBe(4);
		});
	});
});
