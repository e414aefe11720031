/**
 * The governor's circuit breaker, deadlines, paced rate limits, timeout retries and per-row
 * errors, on plain functions (the local-server versions are in outage.test.ts).
 */
import { BreakerRegistry, decodeBreaker, type BreakerStore } from '../../../src/judges/breaker';
import { ModelCallError } from '../../../src/judges/errors';
import { Governor, type GovernorOptions, type RowClock } from '../../../src/judges/governor';

const server500 = (): ModelCallError => new ModelCallError('server', 'server error (500): boom');
const paced429 = (ms = 1): ModelCallError =>
	new ModelCallError('rate_limit', 'rate limited (429): slow down', {
		status: 429,
		retryAfterMs: ms,
	});
const fast = { backoffBaseMs: 1, backoffMaxMs: 2 };
const hang = (): Promise<never> => new Promise<never>(() => undefined);

/** The error a governed call rejected with; fails the test if it resolved. */
async function failure(p: Promise<unknown>): Promise<ModelCallError> {
	return p.then(
		() => {
			throw new Error('expected the call to fail');
		},
		(e: ModelCallError) => e,
	);
}

async function settle<T>(ps: Promise<T>[]): Promise<Array<T | ModelCallError>> {
	return Promise.all(ps.map((p) => p.catch((e: ModelCallError) => e)));
}

describe('circuit breaker', () => {
	it('after N rows in a row fail stops calling: the remaining rows get a named error fast', async () => {
		const gov = new Governor({
			...fast,
			concurrency: 2,
			breakerThreshold: 3,
			breakerCooldownMs: 0,
		});
		let calls = 0;
		const down = async (): Promise<never> => {
			calls++;
			await new Promise((r) => setTimeout(r, 2));
			throw server500();
		};
		const out = await settle(Array.from({ length: 40 }, () => gov.run('k', down)));
		// at most the threshold plus the calls already in flight when it opened
		expect(calls).toBeGreaterThanOrEqual(3);
		expect(calls).toBeLessThanOrEqual(3 + 2);
		expect(gov.calls('k')).toBe(calls);
		expect(gov.breakerState('k')).toBe('unavailable');
		for (const e of out) {
			expect(e).toBeInstanceOf(ModelCallError);
			expect((e as ModelCallError).message).toMatch(
				/^judge model unavailable: 3 rows in a row failed \([345] calls, no answer in between\) \(last: server error \(500\): boom\)/,
			);
			expect((e as ModelCallError).kind).toBe('unavailable');
		}
		// a row that had made calls says so
		expect(out.some((e) => /This row made \d calls?; its last error/.test(String(e)))).toBe(true);
		// another key is unaffected
		await expect(gov.run('other', async () => 1)).resolves.toMatchObject({ value: 1 });
	});

	it('probes once after the cool-down and resumes when the model is back', async () => {
		const transitions: string[] = [];
		let probedAt = 0;
		let openedAt = 0;
		const gov = new Governor({
			...fast,
			concurrency: 4,
			breakerThreshold: 3,
			breakerCooldownMs: 30,
			onBreaker: (_key, state) => {
				transitions.push(state);
				if (state === 'open') openedAt = Date.now();
			},
		});
		let calls = 0;
		// down until the breaker opens, back up by the time it probes
		const flaky = async (): Promise<string> => {
			calls++;
			if (transitions.length === 0) throw server500();
			probedAt ||= Date.now();
			return 'ok';
		};
		const out = await settle(Array.from({ length: 20 }, () => gov.run('k', flaky)));
		expect(out.every((r) => (r as { value?: string }).value === 'ok')).toBe(true);
		expect(transitions).toEqual(['open', 'closed']);
		// no call between the opening and the end of the cool-down (timers may fire a little early)
		expect(probedAt - openedAt).toBeGreaterThanOrEqual(25);
		expect(gov.breakerState('k')).toBe('closed');
		// 20 successes plus the failures before it opened (3, and up to 3 more in flight)
		expect(calls).toBeLessThanOrEqual(20 + 3 + 3);
	});

	it('two failed probes end the execution for the key with the probes named', async () => {
		const gov = new Governor({
			...fast,
			concurrency: 1,
			breakerThreshold: 2,
			breakerCooldownMs: 10,
		});
		let calls = 0;
		const out = await settle(
			Array.from({ length: 10 }, () =>
				gov.run('k', async () => {
					calls++;
					throw server500();
				}),
			),
		);
		// two rows' failures (one row's retry waits without its slot, so the next row calls), two probes
		expect(calls).toBe(4);
		for (const e of out)
			expect((e as Error).message).toMatch(/2 probe calls after a 10 ms cool-down failed too/);
		expect(gov.unavailableError('k')?.message).toMatch(
			/^judge model unavailable: 2 rows in a row failed \(2 calls, no answer in between\), and 2 probe calls/,
		);
	});

	it('an answer between failures resets the count: interleaved errors never open it', async () => {
		const gov = new Governor({
			...fast,
			concurrency: 1,
			breakerThreshold: 2,
			breakerCooldownMs: 0,
		});
		for (let i = 0; i < 20; i++) {
			let n = 0;
			// each row: one failure, then an answer; never two failures in a row
			const r = await gov.run('k', async () => {
				if (n++ === 0) throw server500();
				return i;
			});
			expect(r).toEqual({ value: i, attempts: 2 });
		}
		expect(gov.breakerState('k')).toBe('closed');
	});

	it('rate limits are not failures for the breaker', async () => {
		const gov = new Governor({
			...fast,
			concurrency: 4,
			breakerThreshold: 2,
			breakerCooldownMs: 0,
		});
		let n = 0;
		const out = await settle(
			Array.from({ length: 8 }, () =>
				gov.run('k', async () => {
					if (n++ < 30) throw paced429();
					return 'ok';
				}),
			),
		);
		expect(out.every((r) => (r as { value?: string }).value === 'ok')).toBe(true);
		expect(gov.breakerState('k')).toBe('closed');
	});
});

describe('timeouts and the breaker', () => {
	it("a hung model opens it once two rows timed out with no answer between; one row's own timeouts never do", async () => {
		const states: string[] = [];
		const gov = new Governor({
			...fast,
			concurrency: 1,
			timeoutMs: 10,
			breakerCooldownMs: 0,
			onBreaker: (_k, state) => states.push(state),
		});
		let calls = 0;
		const hung = (): Promise<never> => {
			calls++;
			return hang();
		};
		const first = await failure(gov.run('k', hung, { row: 'a' }));
		// the row's own error: it timed out twice, and one row says nothing about the endpoint
		expect(first.message).toMatch(/did not answer within 10 ms \(gave up after 2 timed-out/);
		expect(states).toEqual([]);
		const out = await settle([gov.run('k', hung, { row: 'b' }), gov.run('k', hung, { row: 'c' })]);
		// row b's first timeout is the second row's: the breaker opens, row c is not called
		expect(calls).toBe(3);
		expect(states).toEqual(['unavailable']);
		for (const e of out)
			expect((e as Error).message).toMatch(
				/^judge model unavailable: 2 rows in a row timed out \(3 calls, no answer in between\) \(last: the judge model did not answer within 10 ms\)\. No more calls are made to it in this execution\./,
			);
	});

	it('timed-out rows open it at two rows, never more than the failure threshold', async () => {
		expect(new Governor({}).timeoutThreshold).toBe(2);
		expect(new Governor({ timeoutRetries: 0 }).timeoutThreshold).toBe(2);
		expect(new Governor({ timeoutRetries: 3 }).timeoutThreshold).toBe(2);
		expect(new Governor({ breakerThreshold: 1 }).timeoutThreshold).toBe(1);
	});

	it('defaults: 30 s per call, 120 s per row', () => {
		const gov = new Governor();
		expect([gov.timeoutMs, gov.rowDeadlineMs]).toEqual([30_000, 120_000]);
	});
});

describe('a breaker shared by the governors of one execution', () => {
	const down = (count: { n: number }) => async (): Promise<never> => {
		count.n++;
		throw server500();
	};
	const make = (registry: BreakerRegistry, scope: string, opts: GovernorOptions = {}) =>
		new Governor({
			...fast,
			concurrency: 2,
			breakerThreshold: 3,
			breakerCooldownMs: 0,
			...opts,
			share: { scope, registry },
		});

	it('a later governor takes the verdict: its rows leave at once, named unavailable, without a call', async () => {
		const registry = new BreakerRegistry();
		const first = { n: 0 };
		const g1 = make(registry, 'exec-1');
		await settle(Array.from({ length: 6 }, () => g1.run('k', down(first))));
		expect(g1.breakerState('k')).toBe('unavailable');
		const later = { n: 0 };
		const states: string[] = [];
		const g2 = make(registry, 'exec-1', { onBreaker: (_k, s) => states.push(s) });
		const out = await settle(Array.from({ length: 6 }, () => g2.run('k', down(later))));
		expect(later.n).toBe(0);
		expect(g2.calls('k')).toBe(0);
		expect(states).toEqual(['unavailable']);
		for (const e of out) {
			expect(e).toMatchObject({ kind: 'unavailable', attempts: 0 });
			expect((e as Error).message).toMatch(
				/^judge model unavailable: 3 rows in a row failed \([345] calls, no answer in between\) \(last: server error \(500\): boom\)\. Found down by another node of this execution \d+ ms ago: not called\.$/,
			);
		}
		// another execution, and another key, learn for themselves
		const other = { n: 0 };
		await settle([make(registry, 'exec-2').run('k', down(other))]);
		expect(other.n).toBeGreaterThan(0);
		await expect(g2.run('k2', async () => 1)).resolves.toMatchObject({ value: 1 });
	});

	it('once its cool-down has passed since the verdict, a later governor probes (a second probe after a backoff): an answer closes it for all', async () => {
		const registry = new BreakerRegistry();
		const g1 = make(registry, 'exec');
		await settle(Array.from({ length: 4 }, () => g1.run('k', down({ n: 0 }))));
		await new Promise((r) => setTimeout(r, 30));
		// still down: two probes, and the rows behind them leave with the probes named
		const g2 = make(registry, 'exec', { breakerCooldownMs: 20 });
		const probed = { n: 0 };
		const out2 = await settle(Array.from({ length: 5 }, () => g2.run('k', down(probed))));
		expect(probed.n).toBe(2);
		for (const e of out2.filter((e) => (e as ModelCallError).attempts === 0))
			expect((e as Error).message).toMatch(
				/^judge model unavailable: 3 rows in a row failed \([345] calls, no answer in between\), and 2 probe calls after a 20 ms cool-down failed too/,
			);
		await new Promise((r) => setTimeout(r, 30));
		// back up: the next governor's probe answers and every row is judged
		const g3 = make(registry, 'exec', { breakerCooldownMs: 20 });
		let answered = 0;
		const out3 = await settle(
			Array.from({ length: 5 }, () =>
				g3.run('k', async () => {
					answered++;
					return 'ok';
				}),
			),
		);
		expect(out3.map((r) => (r as { value?: string }).value)).toEqual(Array(5).fill('ok'));
		expect(answered).toBe(5);
		expect(g3.breakerState('k')).toBe('closed');
		// the first governors keep their own verdict; a new one starts closed
		expect(g1.breakerState('k')).toBe('unavailable');
		await expect(make(registry, 'exec').run('k', async () => 2)).resolves.toMatchObject({
			value: 2,
			attempts: 1,
		});
	});

	it('two governors at once: while one probes the other waits for its answer, never probing itself', async () => {
		const registry = new BreakerRegistry();
		const opened: string[] = [];
		const g1 = make(registry, 'exec', {
			breakerCooldownMs: 40,
			onBreaker: (_k, s) => opened.push(s),
		});
		const g2 = make(registry, 'exec', { breakerCooldownMs: 40 });
		const c1 = { n: 0 };
		const c2 = { n: 0 };
		const rows1 = Array.from({ length: 4 }, () => g1.run('k', down(c1)));
		// g2 starts once g1's breaker is open
		while (opened.length === 0) await new Promise((r) => setTimeout(r, 1));
		const rows2 = Array.from({ length: 4 }, () => g2.run('k', down(c2)));
		const out = await settle([...rows1, ...rows2]);
		// two probes in all, one at a time, by whichever rows came first after the cool-down
		expect(c1.n + c2.n).toBeLessThanOrEqual(3 + 2 + 2);
		expect(c2.n).toBeLessThanOrEqual(2);
		expect(g1.breakerState('k')).toBe('unavailable');
		expect(g2.breakerState('k')).toBe('unavailable');
		for (const e of out.slice(4))
			expect((e as Error).message).toMatch(/^judge model unavailable: /);
	});

	it('without a breaker (threshold 0) nothing is shared either way', async () => {
		const registry = new BreakerRegistry();
		await settle(Array.from({ length: 4 }, () => make(registry, 'e').run('k', down({ n: 0 }))));
		const count = { n: 0 };
		const off = make(registry, 'e', { breakerThreshold: 0, maxRetries: 1 });
		await settle([off.run('k', down(count))]);
		expect(count.n).toBe(2);
		expect(off.breakerState('k')).toBe('closed');
	});

	it('the registry forgets an execution when it is released, and unused cells after the TTL', () => {
		let now = 1_000;
		const registry = new BreakerRegistry(60_000, () => now);
		const a = registry.cell('e1', 'k');
		expect(a.fresh).toBe(true);
		expect(registry.cell('e1', 'k')).toEqual({ cell: a.cell, fresh: false });
		registry.cell('e2', 'k');
		expect(registry.size).toBe(2);
		registry.release('e1');
		expect(registry.size).toBe(1);
		expect(registry.cell('e1', 'k').fresh).toBe(true);
		now += 60_001;
		expect(registry.size).toBe(0);
	});
});

describe('rate limits with a server-given wait', () => {
	it('are retried past Max Retries until the model answers', async () => {
		const gov = new Governor({ ...fast, maxRetries: 2, maxRateLimitRetries: 30 });
		let n = 0;
		const r = await gov.run('k', async () => {
			if (n++ < 25) throw paced429();
			return 'ok';
		});
		expect(r).toEqual({ value: 'ok', attempts: 26 });
	});

	it("end at the row's deadline with an error naming the deadline and the rate limit", async () => {
		const gov = new Governor({ rowDeadlineMs: 200, maxRateLimitRetries: 100 });
		let calls = 0;
		const e = await failure(
			gov.run('k', async () => {
				calls++;
				throw paced429(10);
			}),
		);
		expect(e).toMatchObject({ kind: 'deadline' });
		expect(e.message).toMatch(
			/^the row's deadline of 200 ms passed after \d+ attempts; last error: rate limited \(429\): slow down \(option Row Deadline\)$/,
		);
		expect(e.attempts).toBe(calls);
		// Paced at 10 ms, 200 ms leave room for at most ~20 calls (fewer when timers fire late).
		expect(calls).toBeGreaterThan(2);
		expect(calls).toBeLessThanOrEqual(21);
	});

	it('count against a budget of their own: a server pacing forever costs Max Rate-Limit Retries + 1 calls', async () => {
		const gov = new Governor({ ...fast, maxRetries: 2, rowDeadlineMs: 0 });
		let calls = 0;
		const e = await failure(
			gov.run('k', async () => {
				calls++;
				throw paced429(5);
			}),
		);
		expect(calls).toBe(gov.maxRateLimitRetries + 1);
		expect(gov.maxRateLimitRetries).toBe(30);
		expect(e.message).toBe(
			'rate limited (429): slow down (gave up after 31 attempts: 30 waits the server asked for, then a rate limit past option Max Rate-Limit Retries (30))',
		);
	});

	it('a wait of zero backs off with jitter, never a tight loop', async () => {
		const delays: number[] = [];
		const gov = new Governor({
			backoffBaseMs: 4,
			backoffMaxMs: 40,
			maxRateLimitRetries: 6,
			rowDeadlineMs: 0,
			onRetry: (i) => delays.push(i.delayMs),
		});
		await failure(gov.run('k', async () => Promise.reject(paced429(0))));
		expect(delays).toHaveLength(6);
		// each wait is at least half its exponential ceiling (4, 8, 16, 32, 40, 40 ms), at most all of it
		const ceilings = [4, 8, 16, 32, 40, 40];
		delays.forEach((d, i) => {
			expect(d).toBeGreaterThanOrEqual(ceilings[i] / 2);
			expect(d).toBeLessThanOrEqual(ceilings[i]);
		});
	});

	it('without a wait they are ordinary retries, bounded by Max Retries', async () => {
		const gov = new Governor({ ...fast, maxRetries: 2 });
		let calls = 0;
		const e = await failure(
			gov.run('k', async () => {
				calls++;
				throw new ModelCallError('rate_limit', 'rate limited (429): no hint', { status: 429 });
			}),
		);
		expect(calls).toBe(3);
		expect(e.message).toMatch(/gave up after 3 attempts/);
	});
});

describe('timeouts and deadlines', () => {
	it('a timed-out call is retried once by default, whatever Max Retries says', async () => {
		const gov = new Governor({ ...fast, timeoutMs: 10, maxRetries: 4 });
		let calls = 0;
		const e = await failure(
			gov.run('k', () => {
				calls++;
				return new Promise<never>(() => undefined);
			}),
		);
		expect(calls).toBe(2);
		expect(e).toMatchObject({ kind: 'timeout', attempts: 2 });
		expect(e.message).toMatch(/did not answer within 10 ms \(gave up after 2 timed-out attempts\)/);
	});

	it("the row deadline cuts a call short and spans all of a row's calls", async () => {
		// The first call leaves the row most of its deadline even when timers fire late on a loaded
		// machine; the second hangs, and only the deadline (not the 60 s timeout) can end it.
		const gov = new Governor({ timeoutMs: 60000, rowDeadlineMs: 400 });
		const clock: RowClock = {};
		await gov.run('k', async () => new Promise((r) => setTimeout(() => r(1), 20)), { clock });
		const e = await failure(gov.run('k', () => new Promise<never>(() => undefined), { clock }));
		expect(e).toMatchObject({ kind: 'deadline', attempts: 1 });
		expect(e.message).toMatch(/^the row's deadline of 400 ms passed after 1 attempt \(option Row/);
	});

	it('the node deadline ends queued rows before they call, naming the deadline', async () => {
		const gov = new Governor({ concurrency: 1, nodeDeadlineMs: 30, timeoutMs: 1000 });
		let calls = 0;
		const out = await settle(
			Array.from({ length: 5 }, () =>
				gov.run('k', () => {
					calls++;
					return new Promise<never>(() => undefined);
				}),
			),
		);
		expect(calls).toBe(1);
		expect(out[0]).toMatchObject({ kind: 'deadline' });
		expect((out[0] as Error).message).toMatch(
			/^the node's deadline of 30 ms passed after 1 attempt/,
		);
		for (const e of out.slice(1))
			expect((e as Error).message).toMatch(
				/node's deadline .* passed before this row was judged \(option Node Deadline\)/,
			);
	});
});

describe('fatal errors', () => {
	it('the first fatal error is the one kept, and each row carries its own error', async () => {
		const gov = new Governor({ ...fast, concurrency: 3 });
		const gate = (ms: number) => new Promise((r) => setTimeout(r, ms));
		const auth = gov.run('k', async () => {
			await gate(5);
			throw new ModelCallError('fatal', 'authentication failed (401)', { status: 401 });
		});
		const perm = gov.run('k', async () => {
			await gate(15);
			throw new ModelCallError('fatal', 'permission denied (403)', { status: 403 });
		});
		let n = 0;
		const limited = gov.run('k', async () => {
			if (n++ === 0) {
				await gate(1);
				throw new ModelCallError('rate_limit', 'rate limited (429): slow down', {
					status: 429,
					retryAfterMs: 20,
				});
			}
			return 'never';
		});
		const later = gate(8).then(() => gov.run('k', async () => 'never'));
		const [a, p, l, x] = await settle([auth, perm, limited, later]);
		expect(gov.fatalError('k')?.message).toBe('authentication failed (401)');
		expect((a as Error).message).toBe('authentication failed (401)');
		expect((p as Error).message).toBe('permission denied (403)');
		expect((l as Error).message).toBe(
			'rate limited (429): slow down; not retried, because another call with this credential and model failed: authentication failed (401)',
		);
		expect((x as Error).message).toMatch(/^authentication failed \(401\) \(not called: /);
		expect(n).toBe(1);
	});
});

describe('rows that fail on their own, shared through the store', () => {
	/** A store in memory with the Redis backend's methods, as two workers see one Redis. */
	function memoryStore(): BreakerStore & { entries: Map<string, string> } {
		const entries = new Map<string, string>();
		return {
			entries,
			location: 'memory',
			get: async (k) => entries.get(k) ?? null,
			set: async (k, v) => void entries.set(k, v),
			remove: async (k) => void entries.delete(k),
			close: async () => undefined,
		};
	}
	const worker = (store: BreakerStore | undefined, scope: string) =>
		new Governor({
			...fast,
			concurrency: 4,
			timeoutMs: 20,
			breakerCooldownMs: 0,
			share: { scope, store, registry: new BreakerRegistry() },
		});
	const answers = async () => {
		await new Promise((r) => setTimeout(r, 2));
		return 'ok';
	};

	it("a row one worker saw time out while the model answered is that row's fault on another worker too", async () => {
		const store = memoryStore();
		const w1 = worker(store, 'exec-1');
		// 'long' hangs while three other rows are answered: the row's own fault, written to the store
		const first = await settle([
			w1.run('k', hang, { row: 'long' }),
			...['a', 'b', 'c'].map((row) => w1.run('k', answers, { row })),
		]);
		expect((first[0] as ModelCallError).message).toMatch(
			/did not answer within 20 ms \(gave up after 2/,
		);
		await w1.flushShared();
		const [raw] = [...store.entries.values()];
		const stored = decodeBreaker(raw);
		expect(stored).toMatchObject({ state: 'closed' });
		expect(stored?.suspects).toHaveLength(1);
		expect(raw).not.toContain('long');

		// Another worker, alone with 'long' and a second hung row: without what the store says, the
		// two timed-out rows would open the breaker; with it, only one row counts.
		const w2 = worker(store, 'exec-2');
		const second = await settle([
			w2.run('k', hang, { row: 'long' }),
			w2.run('k', hang, { row: 'other' }),
		]);
		for (const e of second)
			expect((e as ModelCallError).message).toMatch(/did not answer within 20 ms/);
		expect(w2.breakerState('k')).toBe('closed');

		const w3 = worker(undefined, 'exec-3');
		const third = await settle([
			w3.run('k', hang, { row: 'long' }),
			w3.run('k', hang, { row: 'other' }),
		]);
		expect(w3.breakerState('k')).toBe('unavailable');
		expect(
			third.some((e) => /judge model unavailable: 2 rows in a row timed out/.test(String(e))),
		).toBe(true);
	});
});
