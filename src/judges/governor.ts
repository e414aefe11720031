/**
 * The call governor: one per node execution, shared by all its items. It caps concurrency per
 * credential+model key, times out each attempt, retries transient failures with exponential
 * backoff and full jitter (honouring Retry-After and rate-limit headers), and fails fast and once
 * on errors that no retry can fix (bad key, missing model, exhausted quota).
 */
import { ModelCallError, parseDuration } from './errors';

/** Tunables; the defaults are the (8 concurrent, 60 s per call, 4 retries). */
export interface GovernorOptions {
	concurrency?: number;
	timeoutMs?: number;
	maxRetries?: number;
	/** First backoff ceiling; doubles per attempt up to `backoffMaxMs` (full jitter below it). */
	backoffBaseMs?: number;
	backoffMaxMs?: number;
	/** Longest server-requested wait honoured; longer requests are capped to this. */
	maxRetryAfterMs?: number;
	/** Injected for deterministic tests. */
	random?: () => number;
	/** Observes each scheduled retry (logging, tests); messages are already secret-free. */
	onRetry?: (info: RetryInfo) => void;
}

/** One scheduled retry. */
export interface RetryInfo {
	key: string;
	/** Attempts made so far. */
	attempts: number;
	delayMs: number;
	error: ModelCallError;
}

/** A governed call's value and how many attempts it took. */
export interface GovernedResult<T> {
	value: T;
	attempts: number;
}

interface Waiter {
	resolve: () => void;
	reject: (e: Error) => void;
}

interface Lane {
	active: number;
	queue: Waiter[];
	fatal?: ModelCallError;
	/** Epoch ms before which no new call starts: a reply said a rate-limit budget is spent. */
	pausedUntil: number;
}

function abortedError(): ModelCallError {
	return new ModelCallError('aborted', 'the evaluation was cancelled before the judge answered');
}

/**
 * Concurrency, timeouts and retries for judge calls. Create one per node execution and pass it to
 * every item's call, so the cap is shared and a fatal error is reported once for the execution;
 * lanes are per instance, so concurrent executions never see each other's state.
 */
export class Governor {
	readonly concurrency: number;
	readonly timeoutMs: number;
	readonly maxRetries: number;
	private readonly backoffBaseMs: number;
	private readonly backoffMaxMs: number;
	private readonly maxRetryAfterMs: number;
	private readonly random: () => number;
	private readonly onRetry?: (info: RetryInfo) => void;
	private readonly lanes = new Map<string, Lane>();

	constructor(opts: GovernorOptions = {}) {
		this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 8));
		this.timeoutMs = opts.timeoutMs ?? 60_000;
		this.maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? 4));
		this.backoffBaseMs = opts.backoffBaseMs ?? 500;
		this.backoffMaxMs = opts.backoffMaxMs ?? 30_000;
		this.maxRetryAfterMs = opts.maxRetryAfterMs ?? 60_000;
		this.random = opts.random ?? Math.random;
		this.onRetry = opts.onRetry;
	}

	/** The fatal error recorded for a key, if any call with it failed unrecoverably. */
	fatalError(key: string): ModelCallError | undefined {
		return this.lanes.get(key)?.fatal;
	}

	/** Milliseconds new calls for `key` still wait because a rate-limit budget is spent. */
	pausedFor(key: string): number {
		return Math.max(0, (this.lanes.get(key)?.pausedUntil ?? 0) - Date.now());
	}

	/** Calls currently holding a slot for `key` (for tests and diagnostics). */
	active(key: string): number {
		return this.lanes.get(key)?.active ?? 0;
	}

	/**
	 * Runs `fn` under the key's concurrency cap with timeout and retries. `fn` receives a signal
	 * that fires on timeout or cancellation. Rejects with a `ModelCallError` carrying `attempts`.
	 */
	async run<T>(
		key: string,
		fn: (signal: AbortSignal) => Promise<T>,
		opts: {
			signal?: AbortSignal;
			/** Response headers of a successful value, read for exhausted rate-limit budgets. */
			headersOf?: (value: T) => Record<string, string> | undefined;
		} = {},
	): Promise<GovernedResult<T>> {
		const lane = this.lane(key);
		const outer = opts.signal;
		let attempts = 0;
		for (;;) {
			if (lane.fatal) throw withAttempts(lane.fatal, attempts);
			if (outer?.aborted) throw withAttempts(abortedError(), attempts);
			const pause = lane.pausedUntil - Date.now();
			if (pause > 0) {
				await sleep(pause, outer).catch(() => {
					throw withAttempts(abortedError(), attempts);
				});
			}
			await this.acquire(lane, outer).catch((e: Error) => {
				throw withAttempts(e instanceof ModelCallError ? e : abortedError(), attempts);
			});
			let error: ModelCallError | undefined;
			let value: T | undefined;
			try {
				if (lane.fatal) throw lane.fatal;
				attempts++;
				value = await this.attempt(fn, outer);
			} catch (e) {
				error =
					e instanceof ModelCallError
						? e
						: new ModelCallError('bad_request', e instanceof Error ? e.message : String(e));
			} finally {
				this.release(lane);
			}
			if (!error) {
				const headers = opts.headersOf?.(value as T);
				if (headers) this.notePause(lane, headers);
				return { value: value as T, attempts };
			}
			if (error === lane.fatal) throw withAttempts(error, attempts);
			if (error.fatal) {
				lane.fatal = error;
				throw withAttempts(error, attempts);
			}
			if (outer?.aborted) throw withAttempts(abortedError(), attempts);
			if (!error.retryable || attempts > this.maxRetries) {
				if (error.retryable) {
					const e = new ModelCallError(
						error.kind,
						`${error.message} (gave up after ${attempts} attempts)`,
						{ status: error.status },
					);
					throw withAttempts(e, attempts);
				}
				throw withAttempts(error, attempts);
			}
			const delayMs = this.delayFor(error, attempts);
			this.onRetry?.({ key, attempts, delayMs, error });
			// Sleeping without a slot lets other rows use the capacity while this one waits.
			await sleep(delayMs, outer).catch(() => {
				throw withAttempts(abortedError(), attempts);
			});
		}
	}

	/**
	 * OpenAI-style `x-ratelimit-remaining-*: 0` means the next call would be a 429; waiting for
	 * the matching reset is cheaper than collecting the 429s.
	 */
	private notePause(lane: Lane, headers: Record<string, string>): void {
		let wait = 0;
		for (const kind of ['requests', 'tokens']) {
			if (headers[`x-ratelimit-remaining-${kind}`]?.trim() !== '0') continue;
			const reset = parseDuration(headers[`x-ratelimit-reset-${kind}`] ?? '');
			if (reset !== undefined) wait = Math.max(wait, Math.min(reset, this.maxRetryAfterMs));
		}
		if (wait > 0) lane.pausedUntil = Math.max(lane.pausedUntil, Date.now() + wait);
	}

	private delayFor(error: ModelCallError, attempts: number): number {
		if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, this.maxRetryAfterMs);
		const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (attempts - 1));
		return this.random() * ceiling;
	}

	private lane(key: string): Lane {
		let lane = this.lanes.get(key);
		if (!lane) {
			lane = { active: 0, queue: [], pausedUntil: 0 };
			this.lanes.set(key, lane);
		}
		return lane;
	}

	private acquire(lane: Lane, signal?: AbortSignal): Promise<void> {
		if (lane.active < this.concurrency) {
			lane.active++;
			return Promise.resolve();
		}
		return new Promise<void>((resolve, reject) => {
			const waiter: Waiter = {
				resolve: () => {
					signal?.removeEventListener('abort', onAbort);
					resolve();
				},
				reject,
			};
			const onAbort = (): void => {
				const i = lane.queue.indexOf(waiter);
				if (i >= 0) lane.queue.splice(i, 1);
				reject(abortedError());
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			lane.queue.push(waiter);
		});
	}

	private release(lane: Lane): void {
		const next = lane.queue.shift();
		// The slot passes straight to the next waiter, so `active` stays constant.
		if (next) next.resolve();
		else lane.active--;
	}

	private attempt<T>(fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
		const ac = new AbortController();
		let timedOut = false;
		return new Promise<T>((resolve, reject) => {
			const onOuterAbort = (): void => {
				ac.abort();
				reject(abortedError());
			};
			const timer = setTimeout(() => {
				timedOut = true;
				ac.abort();
				reject(
					new ModelCallError(
						'timeout',
						`the judge model did not answer within ${this.timeoutMs} ms`,
					),
				);
			}, this.timeoutMs);
			outer?.addEventListener('abort', onOuterAbort, { once: true });
			const cleanup = (): void => {
				clearTimeout(timer);
				outer?.removeEventListener('abort', onOuterAbort);
			};
			fn(ac.signal).then(
				(v) => {
					cleanup();
					resolve(v);
				},
				(e: unknown) => {
					cleanup();
					// Our own abort surfaces from the SDK as a user abort; report it as the timeout.
					if (timedOut) return;
					reject(e);
				},
			);
		});
	}
}

function withAttempts(error: ModelCallError, attempts: number): ModelCallError {
	const e = new ModelCallError(error.kind, error.message, {
		status: error.status,
		retryAfterMs: error.retryAfterMs,
	});
	e.attempts = attempts;
	return e;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (ms <= 0) return signal?.aborted ? Promise.reject(abortedError()) : Promise.resolve();
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(abortedError());
		const onAbort = (): void => {
			clearTimeout(t);
			reject(abortedError());
		};
		const t = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
