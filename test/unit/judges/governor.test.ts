/** The governor: concurrency cap, retry delays from headers and backoff, fatal errors, cancel. */
import { ModelCallError, parseDuration, retryAfterFromHeaders } from '../../../src/judges/errors';
import { Governor, type RetryInfo } from '../../../src/judges/governor';

const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('retryAfterFromHeaders', () => {
	it('reads retry-after-ms, retry-after seconds and dates, and rate-limit reset durations', () => {
		expect(retryAfterFromHeaders(headers({ 'retry-after-ms': '150', 'retry-after': '9' }))).toBe(
			150,
		);
		expect(retryAfterFromHeaders(headers({ 'retry-after': '0.2' }))).toBe(200);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(
			retryAfterFromHeaders(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now),
		).toBe(3000);
		expect(
			retryAfterFromHeaders(
				headers({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }),
			),
		).toBe(360000);
		expect(retryAfterFromHeaders(headers({}))).toBeUndefined();
	});
	it('parses Go-style durations', () => {
		expect(parseDuration('20ms')).toBe(20);
		expect(parseDuration('1m30.5s')).toBe(90500);
		expect(parseDuration('2')).toBe(2000);
		expect(parseDuration('soon')).toBeUndefined();
	});
});

describe('Governor', () => {
	it('never runs more than `concurrency` calls per key, and keys are independent', async () => {
		const gov = new Governor({ concurrency: 3 });
		let active = 0;
		let peak = 0;
		const task = async (): Promise<number> => {
			active++;
			peak = Math.max(peak, active);
			await new Promise((r) => setTimeout(r, 5));
			active--;
			return 1;
		};
		const results = await Promise.all([...Array.from({ length: 12 }, () => gov.run('a', task))]);
		expect(results).toEqual(Array.from({ length: 12 }, () => ({ value: 1, attempts: 1 })));
		expect(peak).toBe(3);
		expect(gov.active('a')).toBe(0);
		// a second key in the same governor has its own cap
		peak = 0;
		await Promise.all([
			...Array.from({ length: 4 }, () => gov.run('a', task)),
			...Array.from({ length: 4 }, () => gov.run('b', task)),
		]);
		expect(peak).toBe(6);
	});

	it('honours the server-requested wait and otherwise backs off exponentially with full jitter', async () => {
		const retries: RetryInfo[] = [];
		const gov = new Governor({
			backoffBaseMs: 4,
			backoffMaxMs: 10,
			random: () => 0.5,
			onRetry: (i) => retries.push(i),
		});
		const errs = [
			new ModelCallError('rate_limit', '429', { retryAfterMs: 30 }),
			new ModelCallError('server', '500'),
			new ModelCallError('server', '500'),
			new ModelCallError('connection', 'reset'),
		];
		let n = 0;
		const r = await gov.run('k', async () => {
			if (n < errs.length) throw errs[n++];
			return 'ok';
		});
		expect(r).toEqual({ value: 'ok', attempts: 5 });
		// 30 from Retry-After plus 0.5 x 10% of it as jitter (a paced wait is not a retry); then
		// 0.5 x min(10, 4 x 2^(retry-1))
		expect(retries.map((x) => x.delayMs)).toEqual([31.5, 2, 4, 5]);
	});

	it('pauses new calls for a key when a reply says its rate-limit budget is spent', async () => {
		const gov = new Governor();
		const spent = { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '80ms' };
		const fresh = { 'x-ratelimit-remaining-requests': '9', 'x-ratelimit-reset-requests': '80ms' };
		await gov.run('k', async () => spent, { headersOf: (h) => h });
		expect(gov.pausedFor('k')).toBeGreaterThan(0);
		expect(gov.pausedFor('other')).toBe(0);
		const order: string[] = [];
		const paused = gov.run('k', async () => (order.push('k'), fresh), { headersOf: (h) => h });
		const free = gov.run('other', async () => (order.push('other'), fresh), {
			headersOf: (h) => h,
		});
		await Promise.all([paused, free]);
		// the paused key's call was issued first but ran after the unpaused key's
		expect(order).toEqual(['other', 'k']);
		expect(gov.pausedFor('k')).toBe(0);
	});

	it('caps a very long Retry-After', async () => {
		const retries: RetryInfo[] = [];
		const gov = new Governor({ maxRetryAfterMs: 5, onRetry: (i) => retries.push(i) });
		let n = 0;
		await gov.run('k', async () => {
			if (n++ === 0) throw new ModelCallError('rate_limit', '429', { retryAfterMs: 3_600_000 });
			return 1;
		});
		expect(retries[0].delayMs).toBe(5);
	});

	it('does not retry bad requests', async () => {
		const gov = new Governor({ backoffBaseMs: 1 });
		let calls = 0;
		await expect(
			gov.run('k', async () => {
				calls++;
				throw new ModelCallError('bad_request', 'too long');
			}),
		).rejects.toMatchObject({ kind: 'bad_request', attempts: 1 });
		expect(calls).toBe(1);
	});

	it('after a fatal error, queued and later calls for the key fail with that message without running', async () => {
		const gov = new Governor({ concurrency: 1 });
		let calls = 0;
		const fatal = async (): Promise<never> => {
			calls++;
			await new Promise((r) => setTimeout(r, 5));
			throw new ModelCallError('fatal', 'authentication failed (401)');
		};
		const results = await Promise.allSettled([
			gov.run('k', fatal),
			gov.run('k', fatal),
			gov.run('k', fatal),
		]);
		const later = await gov.run('k', fatal).catch((e: ModelCallError) => e);
		expect(calls).toBe(1);
		expect(results[0]).toMatchObject({
			status: 'rejected',
			reason: { message: 'authentication failed (401)' },
		});
		for (const r of [...results.slice(1), { status: 'rejected', reason: later }])
			expect(r).toMatchObject({
				status: 'rejected',
				reason: {
					kind: 'fatal',
					message:
						'authentication failed (401) (not called: an earlier call with this credential and model failed this way)',
				},
			});
		// another key, and another governor (another execution), are unaffected
		await expect(gov.run('other', async () => 2)).resolves.toMatchObject({ value: 2 });
		await expect(new Governor().run('k', async () => 3)).resolves.toMatchObject({ value: 3 });
	});

	it('times out a call that never settles and retries it', async () => {
		const gov = new Governor({ timeoutMs: 20, maxRetries: 1, backoffBaseMs: 1 });
		const signals: AbortSignal[] = [];
		const err = await gov
			.run('k', (signal) => {
				signals.push(signal);
				return new Promise<never>(() => undefined);
			})
			.catch((e: ModelCallError) => e);
		expect(err).toMatchObject({ kind: 'timeout', attempts: 2 });
		expect(signals.map((s) => s.aborted)).toEqual([true, true]);
	});

	it('the cancel signal aborts the running call, queued calls and backoff sleeps', async () => {
		const gov = new Governor({ concurrency: 1, backoffBaseMs: 10_000, random: () => 1 });
		const ac = new AbortController();
		let started = 0;
		const hang = (signal: AbortSignal): Promise<never> => {
			started++;
			return new Promise((_, reject) =>
				signal.addEventListener('abort', () => reject(new Error('aborted'))),
			);
		};
		const running = gov.run('k', hang, { signal: ac.signal });
		const queued = gov.run('k', hang, { signal: ac.signal });
		const sleeping = gov.run(
			'other',
			async () => {
				throw new ModelCallError('server', '500');
			},
			{ signal: ac.signal },
		);
		await new Promise((r) => setTimeout(r, 10));
		ac.abort();
		const out = await Promise.allSettled([running, queued, sleeping]);
		for (const r of out)
			expect(r).toMatchObject({ status: 'rejected', reason: { kind: 'aborted' } });
		expect(started).toBe(1);
		expect(gov.active('k')).toBe(0);
	});
});
