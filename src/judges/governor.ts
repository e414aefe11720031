/**
 * The call governor: one per node execution, shared by all its items. Per credential+model key it
 * caps concurrency, times out each attempt, retries transient failures with exponential backoff
 * and full jitter, waits out rate limits the server paces (Retry-After, rate-limit headers) until
 * the row's deadline, fails fast and once on errors no retry can fix (bad key, missing model,
 * exhausted quota), and opens a circuit breaker when an endpoint keeps failing or hangs, so a model
 * that is down costs a handful of calls and seconds, not every row's full retry budget. The breaker
 * can be shared (./breaker.ts): with the other governors of one execution in this process, and
 * through a store (Redis) with other processes, so a later node does not learn it again. With a
 * Max Concurrency above Concurrency the calls in flight adapt (./concurrency.ts: up while latency
 * holds and no 429 comes, halved on a 429), one limit per key shared by the execution's governors.
 */
import {
	BREAKER_STATE_TTL_MS,
	breakerRegistry,
	breakerStoreKey,
	decodeBreaker,
	encodeBreaker,
	newBreakerCell,
	rowStoreId,
	STORED_SUSPECTS_MAX,
	type BreakerCell,
	type BreakerRegistry,
	type BreakerStore,
	type DownVerdict,
} from './breaker';
import { AdaptiveLimit, budgetTight } from './concurrency';
import { ModelCallError, parseDuration, storeErrorText } from './errors';

/** Default longest attempt: 30 s (a judge reply is a few hundred tokens). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default row budget: 120 s, two timed-out attempts and their retries, or two rate-limit minutes. */
export const DEFAULT_ROW_DEADLINE_MS = 120_000;
/** Default retries after server-paced rate limits, per governed call. */
export const DEFAULT_RATE_LIMIT_RETRIES = 30;

/** Tunables. Defaults: 8 concurrent, 30 s per attempt, 4 retries, 1 timeout retry, 120 s per row. */
export interface GovernorOptions {
	/** Calls in flight per key at the start; the whole time unless `maxConcurrency` is higher. */
	concurrency?: number;
	/**
	 * Ceiling of adaptive concurrency per key (a function: per key, e.g. by provider). Above
	 * `concurrency`, the calls in flight rise while latency holds and no 429 comes and fall on a
	 * 429; equal to it (the default), they stay fixed. Below it, it caps `concurrency`.
	 */
	maxConcurrency?: number | ((key: string) => number);
	/** Longest single attempt. */
	timeoutMs?: number;
	/** Retries for server errors, resets, timeouts and rate limits that give no wait. */
	maxRetries?: number;
	/**
	 * Retries after a rate limit whose server named a wait (Retry-After, rate-limit headers): a
	 * budget of their own, so a server that keeps pacing cannot make a row call without end.
	 */
	maxRateLimitRetries?: number;
	/** Of those retries, how many may follow a timeout (a hung model is rarely cured by waiting). */
	timeoutRetries?: number;
	/** One row's budget across all its attempts and waits, from its first call; 0 = none. */
	rowDeadlineMs?: number;
	/** The whole execution's budget, from the governor's creation; 0 = none. */
	nodeDeadlineMs?: number;
	/**
	 * Distinct rows whose calls failed with no answer from the server in between that open the
	 * breaker; 0 = never. One row's own retries never count twice, and a row whose call failed while
	 * the server answered others is that row's fault, not the endpoint's. Timed-out calls open it
	 * sooner: two rows (or this number, if lower).
	 */
	breakerThreshold?: number;
	/** Wait before probing once the breaker is open; 0 = no probe, stay open. */
	breakerCooldownMs?: number;
	/** First backoff ceiling; doubles per attempt up to `backoffMaxMs` (full jitter below it). */
	backoffBaseMs?: number;
	backoffMaxMs?: number;
	/** Longest server-requested wait honoured; longer requests are capped to this. */
	maxRetryAfterMs?: number;
	/** Injected for deterministic tests. */
	random?: () => number;
	/** Observes each scheduled retry (logging, tests); messages are already secret-free. */
	onRetry?: (info: RetryInfo) => void;
	/**
	 * Observes the breaker's transitions (open, closed again, unavailable for the execution), with
	 * what caused them, secret-free.
	 */
	onBreaker?: (key: string, state: BreakerState, info?: BreakerInfo) => void;
	/** Shares the breaker beyond this governor; without it the breaker is its own. */
	share?: BreakerShare;
}

/**
 * Where a governor's breaker is shared. Governors with the same `scope` (the n8n execution id) in
 * one process hold the same breaker per key: one that finds a model down ends the rows of the
 * others too, and a governor created later takes the verdict instead of calling. Through `store`
 * every process shares it: a governor reads it when it first calls a key and writes each
 * transition (open, down, closed). A failing store never fails a row: the local state is used and
 * `onStoreError` is told once.
 */
export interface BreakerShare {
	scope?: string;
	store?: BreakerStore;
	/** Default: the process's registry. */
	registry?: BreakerRegistry;
	onStoreError?: (message: string) => void;
}

/** One scheduled retry. */
export interface RetryInfo {
	key: string;
	/** Attempts made so far. */
	attempts: number;
	delayMs: number;
	error: ModelCallError;
}

/** A governed call's value and how many attempts (HTTP calls) it took. */
export interface GovernedResult<T> {
	value: T;
	attempts: number;
}

/**
 * A row's clock, shared by all the governed calls of one row (re-asks, format fallbacks), so the
 * row deadline spans them. It starts at the row's first call, not while the row waits for a slot.
 */
export interface RowClock {
	startedAt?: number;
}

/**
 * A check around each HTTP attempt (the spend limit): `admit` runs once the attempt holds a slot,
 * right before the call, and a returned error ends the row without a call; `settle` runs after the
 * admitted attempt, with its value or undefined when it failed, before the slot is released.
 */
export interface CallGate<T> {
	admit(): ModelCallError | undefined;
	settle(value: T | undefined): void;
}

/** State of an endpoint+model's circuit breaker, for diagnostics and tests. */
export type BreakerState = 'closed' | 'open' | 'probing' | 'unavailable';

/** What a breaker transition came from, for the node's notice and log. */
export interface BreakerInfo {
	/** `5 rows in a row failed (7 calls, no answer in between) (last: ...)`. */
	text: string;
	/** The cool-down before the probe, when it opened. */
	cooldownMs?: number;
}

/** Probe calls of rows that had not failed that must fail before a model is found down. */
export const PROBE_FAILURES_DOWN = 2;

/** How one call stands towards the breaker. */
interface CallMark {
	/** The row's identity on this key (hashed). */
	row: string;
	/** The call was a probe of an open breaker. */
	probe: boolean;
	/** The cell's answer count when the call was sent. */
	answersAtSend: number;
	/** The call's number in the cell's order of sending. */
	sendSeq: number;
}

let anonymousRows = 0;

interface Waiter {
	resolve: () => void;
	reject: (e: Error) => void;
}

interface Lane {
	key: string;
	/** This governor's calls in flight for the key, and its rows waiting for a slot. */
	active: number;
	queue: Waiter[];
	/** The key's limit, shared with the execution's other governors when scoped. */
	lim: AdaptiveLimit<Lane>;
	/** This governor's ceiling for the key; above the start, the limit adapts. */
	max: number;
	adaptive: boolean;
	/** The first fatal error: later ones never replace it. */
	fatal?: ModelCallError;
	/** Epoch ms before which no new call starts: a reply said a rate-limit budget is spent. */
	pausedUntil: number;
	/** HTTP calls made for this key. */
	calls: number;
	/** The breaker: this governor's own, or the one it shares (./breaker.ts). */
	cell: BreakerCell;
	/** Set once this governor gave up on the key: its own verdict, or one it took over. */
	unavailable?: ModelCallError;
}

interface Limit {
	at: number;
	which: 'row' | 'node';
	ms: number;
}

function abortedError(): ModelCallError {
	return new ModelCallError('aborted', 'the evaluation was cancelled before the judge answered');
}

function seconds(ms: number): string {
	return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

/**
 * Concurrency, timeouts, retries, deadlines and the circuit breaker for judge calls. Create one
 * per node execution and pass it to every item's call, so the cap is shared and a fatal error is
 * reported once for the execution. Caps, pauses and fatal errors are per instance; the breaker is
 * too unless `share` names a scope or a store.
 */
export class Governor {
	readonly concurrency: number;
	readonly timeoutMs: number;
	readonly maxRetries: number;
	readonly maxRateLimitRetries: number;
	readonly timeoutRetries: number;
	readonly rowDeadlineMs: number;
	readonly nodeDeadlineMs: number;
	readonly breakerThreshold: number;
	readonly breakerCooldownMs: number;
	/** Consecutive timed-out calls that open the breaker. */
	readonly timeoutThreshold: number;
	private readonly createdAt = Date.now();
	private readonly backoffBaseMs: number;
	private readonly backoffMaxMs: number;
	private readonly maxRetryAfterMs: number;
	private readonly random: () => number;
	private readonly onRetry?: (info: RetryInfo) => void;
	private readonly onBreaker?: (key: string, state: BreakerState, info?: BreakerInfo) => void;
	private readonly lanes = new Map<string, Lane>();
	private readonly share?: BreakerShare;
	/** Where the concurrency limit is shared (the execution), breaker or not. */
	private readonly limitScope?: { scope: string; registry: BreakerRegistry };
	private readonly maxConcurrency: number | ((key: string) => number);
	private storeProblem?: string;
	private readonly storeWrites = new Set<Promise<void>>();

	constructor(opts: GovernorOptions = {}) {
		const count = (v: number | undefined, d: number): number => Math.max(0, Math.floor(v ?? d));
		this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 8));
		this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
		this.maxRetries = count(opts.maxRetries, 4);
		this.maxRateLimitRetries = count(opts.maxRateLimitRetries, DEFAULT_RATE_LIMIT_RETRIES);
		this.timeoutRetries = count(opts.timeoutRetries, 1);
		this.rowDeadlineMs = Math.max(0, opts.rowDeadlineMs ?? DEFAULT_ROW_DEADLINE_MS);
		this.nodeDeadlineMs = Math.max(0, opts.nodeDeadlineMs ?? 0);
		this.breakerThreshold = count(opts.breakerThreshold, 5);
		this.breakerCooldownMs = Math.max(0, opts.breakerCooldownMs ?? 10_000);
		// A timeout already waited a whole attempt: two rows hung with no answer between is enough.
		this.timeoutThreshold = Math.min(this.breakerThreshold, 2);
		this.backoffBaseMs = opts.backoffBaseMs ?? 500;
		this.backoffMaxMs = opts.backoffMaxMs ?? 30_000;
		this.maxRetryAfterMs = opts.maxRetryAfterMs ?? 60_000;
		this.random = opts.random ?? Math.random;
		this.onRetry = opts.onRetry;
		this.onBreaker = opts.onBreaker;
		// Without a breaker there is nothing to share.
		this.share = this.breakerThreshold > 0 ? opts.share : undefined;
		const scope = opts.share?.scope;
		if (scope !== undefined)
			this.limitScope = { scope, registry: opts.share?.registry ?? breakerRegistry };
		this.maxConcurrency = opts.maxConcurrency ?? this.concurrency;
	}

	/** The adaptive ceiling for a key (at least 1). */
	maxConcurrencyFor(key: string): number {
		const m =
			typeof this.maxConcurrency === 'function' ? this.maxConcurrency(key) : this.maxConcurrency;
		return Math.max(1, Math.floor(Number.isFinite(m) ? m : this.concurrency));
	}

	/** Calls the key may have in flight now (the shared adaptive limit, capped by this governor). */
	concurrencyLimit(key: string): number {
		const lane = this.lanes.get(key);
		if (!lane) return Math.min(this.concurrency, this.maxConcurrencyFor(key));
		return Math.min(Math.floor(lane.lim.limit), lane.max);
	}

	/** The highest limit the key reached (shared with the execution's other governors). */
	concurrencyPeak(key: string): number {
		const lane = this.lanes.get(key);
		return lane ? Math.min(lane.lim.peak, lane.max) : this.concurrencyLimit(key);
	}

	/** The first fatal error recorded for a key, if any call with it failed unrecoverably. */
	fatalError(key: string): ModelCallError | undefined {
		return this.lanes.get(key)?.fatal;
	}

	/** The breaker's verdict for a key once it stopped calling it, if it did. */
	unavailableError(key: string): ModelCallError | undefined {
		return this.lanes.get(key)?.unavailable;
	}

	/** Where the key's circuit breaker stands. */
	breakerState(key: string): BreakerState {
		const lane = this.lanes.get(key);
		if (lane?.unavailable) return 'unavailable';
		if (!lane || !isOpen(lane.cell)) return 'closed';
		return lane.cell.probes > 0 ? 'probing' : 'open';
	}

	/** Why the shared breaker store could not be used (the local state was), if it failed. */
	shareProblem(): string | undefined {
		return this.storeProblem;
	}

	/** Waits for the breaker transitions still being written to the shared store. */
	async flushShared(): Promise<void> {
		while (this.storeWrites.size > 0) await Promise.all([...this.storeWrites]);
	}

	/** HTTP calls made for `key` so far, retries and probes included. */
	calls(key: string): number {
		return this.lanes.get(key)?.calls ?? 0;
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
	 * Runs `fn` under the key's concurrency cap, deadlines and breaker, with timeout and retries.
	 * `fn` receives a signal that fires on timeout or cancellation. Rejects with a
	 * `ModelCallError` carrying `attempts`; the error is this row's own, never another row's.
	 */
	async run<T>(
		key: string,
		fn: (signal: AbortSignal) => Promise<T>,
		opts: {
			signal?: AbortSignal;
			/** Response headers of a successful value, read for exhausted rate-limit budgets. */
			headersOf?: (value: T) => Record<string, string> | undefined;
			/** The row's clock when one row makes several governed calls. */
			clock?: RowClock;
			/** Admits or refuses each attempt and accounts for it (see {@link CallGate}). */
			gate?: CallGate<T>;
			/**
			 * The row's identity (its request id, else its position), the same for every call the row
			 * makes on any node of the execution: the breaker counts rows, not calls, and remembers
			 * rows that fail on their own. Absent: this call is a row of its own.
			 */
			row?: string;
		} = {},
	): Promise<GovernedResult<T>> {
		const lane = this.lane(key);
		const { cell } = lane;
		const outer = opts.signal;
		const clock = opts.clock ?? {};
		const row = opts.row !== undefined ? rowStoreId(opts.row) : `call:${++anonymousRows}`;
		let attempts = 0;
		let retries = 0;
		let paced = 0;
		let timeouts = 0;
		/** This row's latest retryable error. */
		let last: ModelCallError | undefined;
		const stop = (e: ModelCallError): ModelCallError => withAttempts(e, attempts);
		const aborted = (): ModelCallError => stop(abortedError());
		// The shared store is read once per key before the first call (bounded by its timeout).
		if (cell.ready) {
			await abortable(cell.ready, outer).catch(() => {
				throw aborted();
			});
		}
		for (;;) {
			if (outer?.aborted) throw aborted();
			const blocked = this.blocked(lane, last, attempts);
			if (blocked) throw stop(blocked);
			const limit = this.limit(clock);
			if (limit && Date.now() >= limit.at) throw stop(deadlineError(limit, attempts, last));
			const wait = this.breakerWait(lane, row);
			if (wait !== undefined) {
				const clean = !cell.failedRows.has(row);
				await this.watch(lane, bounded(wait, limit), outer, clean).catch(() => {
					throw aborted();
				});
				continue;
			}
			const pause = lane.pausedUntil - Date.now();
			if (pause > 0) {
				await sleep(bounded(pause, limit), outer).catch(() => {
					throw aborted();
				});
				continue;
			}
			await this.acquire(lane, outer).catch((e: Error) => {
				throw stop(e instanceof ModelCallError ? e : abortedError());
			});
			// The state may have changed while this row waited for a slot.
			const now = Date.now();
			const limitNow = this.limit(clock);
			if (
				this.blocked(lane, last, attempts) ||
				this.breakerWait(lane, row) !== undefined ||
				lane.pausedUntil > now ||
				(limitNow && now >= limitNow.at)
			) {
				this.release(lane);
				continue;
			}
			const refused = opts.gate?.admit();
			if (refused) {
				this.release(lane);
				throw stop(refused);
			}
			const mark: CallMark = {
				row,
				probe: isOpen(cell),
				answersAtSend: cell.answers,
				sendSeq: ++cell.sends,
			};
			if (mark.probe) cell.probes++;
			clock.startedAt ??= now;
			const limitAtCall = this.limit(clock);
			attempts++;
			lane.calls++;
			cell.inFlight++;
			const { epoch, generation } = lane.lim;
			const sent = Date.now();
			let error: ModelCallError | undefined;
			let value: T | undefined;
			try {
				value = await this.attempt(fn, outer, limitAtCall);
			} catch (e) {
				error =
					e instanceof ModelCallError
						? e
						: new ModelCallError('bad_request', e instanceof Error ? e.message : String(e));
			} finally {
				opts.gate?.settle(error ? undefined : value);
				cell.inFlight--;
				if (mark.probe) cell.probes = Math.max(0, cell.probes - 1);
				this.release(lane);
			}
			if (!error) {
				this.answered(lane, mark);
				cell.failedRows.delete(row);
				cell.suspects.delete(row);
				const headers = opts.headersOf?.(value as T);
				if (headers) this.notePause(lane, headers);
				if (
					lane.adaptive &&
					lane.lim.answered(Date.now() - sent, generation, lane.max, budgetTight(headers))
				)
					this.pump(lane.lim);
				return { value: value as T, attempts };
			}
			if (error.kind === 'aborted' || outer?.aborted) {
				this.notify(cell);
				throw aborted();
			}
			if (error.fatal) {
				lane.fatal ??= error;
				this.notify(cell);
				// Its own fatal error, even when earlier attempts of this row failed otherwise.
				throw stop(error);
			}
			if (error.kind === 'deadline') {
				this.notify(cell);
				throw stop(deadlineError(limitAtCall as Limit, attempts, last));
			}
			if (error.kind === 'rate_limit' && lane.adaptive) lane.lim.rateLimited(epoch);
			if (error.kind === 'rate_limit' || !error.retryable) this.answered(lane, mark);
			else this.failed(lane, error, mark);
			if (!error.retryable) throw stop(error);
			last = error;
			if (error.paced) paced++;
			else retries++;
			if (error.kind === 'timeout') timeouts++;
			if (
				retries > this.maxRetries ||
				timeouts > this.timeoutRetries ||
				paced > this.maxRateLimitRetries
			) {
				const calls = `${attempts} attempt${attempts > 1 ? 's' : ''}`;
				const why =
					timeouts > this.timeoutRetries
						? `${timeouts} timed-out attempt${timeouts > 1 ? 's' : ''}`
						: paced > this.maxRateLimitRetries
							? `${calls}: ${paced - 1} waits the server asked for, then a rate limit past option Max Rate-Limit Retries (${this.maxRateLimitRetries})`
							: calls;
				throw stop(
					new ModelCallError(error.kind, `${error.message} (gave up after ${why})`, {
						status: error.status,
					}),
				);
			}
			const delayMs = this.delayFor(error, error.paced ? paced : retries);
			const limitNext = this.limit(clock);
			if (limitNext && Date.now() + delayMs >= limitNext.at) {
				throw stop(deadlineError(limitNext, attempts, last));
			}
			this.onRetry?.({ key, attempts, delayMs, error });
			// Sleeping without a slot lets other rows use the capacity while this one waits.
			await sleep(delayMs, outer).catch(() => {
				throw aborted();
			});
		}
	}

	/** Why a row may not call at all: a fatal error or the breaker's verdict, told as its own. */
	private blocked(
		lane: Lane,
		last: ModelCallError | undefined,
		attempts: number,
	): ModelCallError | undefined {
		this.takeOver(lane);
		if (lane.fatal) {
			if (last) return afterOwn(last, lane.fatal);
			return new ModelCallError(
				'fatal',
				`${lane.fatal.message} (not called: an earlier call with this credential and model failed this way)`,
				{ status: lane.fatal.status },
			);
		}
		if (lane.unavailable) {
			const own =
				last && attempts > 0
					? ` This row made ${attempts} call${attempts > 1 ? 's' : ''}; its last error: ${last.message}`
					: '';
			return new ModelCallError('unavailable', `${lane.unavailable.message}${own}`);
		}
		return undefined;
	}

	/**
	 * A verdict reached by another governor (or read from the store) becomes this one's, so its
	 * rows leave without a call; once this governor's own cool-down has passed since the verdict,
	 * it may probe instead (none while another governor's probe is out).
	 */
	private takeOver(lane: Lane): void {
		const { cell } = lane;
		const down = cell.down;
		if (lane.unavailable || !down || cell.probes > 0) return;
		if (this.breakerCooldownMs > 0 && Date.now() >= down.at + this.breakerCooldownMs) return;
		lane.unavailable = new ModelCallError(
			'unavailable',
			`judge model unavailable: ${down.text}. Found down by ${foundBy(down)} ${seconds(Date.now() - down.at)} ago: not called.`,
			{ status: down.status },
		);
		this.onBreaker?.(lane.key, 'unavailable', { text: down.text });
	}

	/**
	 * Milliseconds `row` waits before it may call; undefined when it may go now. Open: until the
	 * cool-down ends, then one probe at a time, from a row that has not failed while one waits.
	 * Closed but with failures counting towards opening: no more calls in flight than it takes to
	 * open it, so a model that is down costs the threshold, not the threshold and a wave more.
	 */
	private breakerWait(lane: Lane, row: string): number | undefined {
		const { cell } = lane;
		if (!isOpen(cell)) {
			if (cell.failingRows.size === 0 || this.breakerThreshold === 0) return undefined;
			const toOpen = Math.min(
				this.breakerThreshold - cell.failingRows.size,
				cell.timedOutRows.size > 0 ? this.timeoutThreshold - cell.timedOutRows.size : Infinity,
			);
			return cell.inFlight >= Math.max(1, toOpen) ? Infinity : undefined;
		}
		const until = Math.max(cell.openUntil, cell.down ? cell.down.at + this.breakerCooldownMs : 0);
		const left = until - Date.now();
		if (left > 0) return left;
		if (cell.probes > 0) return Infinity;
		if (cell.failedRows.has(row) && cell.cleanWaiting > 0) return Infinity;
		return undefined;
	}

	/** The server answered (a reply, a rate limit, a request it rejected): the endpoint is up. */
	private answered(lane: Lane, call: CallMark): void {
		const { cell } = lane;
		cell.answers++;
		cell.answeredSend = Math.max(cell.answeredSend, call.sendSeq);
		const counting = cell.failingRows.size > 0;
		cell.touchedAt = Date.now();
		if (isOpen(cell) && !lane.unavailable) {
			// The rows whose failures opened it fail on their own: the model answers.
			for (const r of cell.failingRows) cell.suspects.add(r);
			this.clearEvidence(cell);
			cell.openUntil = 0;
			cell.probeFailures = 0;
			cell.down = undefined;
			cell.openedBy = undefined;
			this.onBreaker?.(lane.key, 'closed', { text: 'a probe call was answered: calls resume' });
			this.publish(lane);
			this.notify(cell);
			return;
		}
		this.clearEvidence(cell);
		if (counting) this.notify(cell);
	}

	private clearEvidence(cell: BreakerCell): void {
		cell.failingRows.clear();
		cell.timedOutRows.clear();
		cell.failedCalls = 0;
	}

	/** A retryable failure (not a rate limit): the row's own, or evidence about the endpoint. */
	private failed(lane: Lane, error: ModelCallError, call: CallMark): void {
		const { cell } = lane;
		cell.lastFailure = error;
		cell.touchedAt = Date.now();
		cell.failedRows.add(call.row);
		// The fault is this row's when the server answered a call sent after this one, or answered
		// others while this one timed out. (Answers to calls sent before it prove nothing about a fast
		// failure: a model that goes down fails the calls in flight right after answering others.)
		const answeredMeanwhile =
			cell.answeredSend > call.sendSeq ||
			(error.kind === 'timeout' && cell.answers > call.answersAtSend);
		if (answeredMeanwhile && !cell.suspects.has(call.row)) {
			cell.suspects.add(call.row);
			this.publish(lane);
		}
		const own = answeredMeanwhile || cell.suspects.has(call.row);
		if (lane.unavailable || this.breakerThreshold === 0) return this.notify(cell);
		if (call.probe) {
			// A probe of a row seen to fail on its own tells nothing about the endpoint.
			if (!own) cell.probeFailures++;
			if (cell.probeFailures >= PROBE_FAILURES_DOWN) return this.giveUp(lane, true);
			// Retried like any call: after a backoff, the next probe (a row that has not failed first).
			cell.openUntil = Date.now() + this.delayFor(error, Math.max(1, cell.probeFailures));
			return this.notify(cell);
		}
		if (own) return this.notify(cell);
		cell.failingRows.add(call.row);
		if (error.kind === 'timeout') cell.timedOutRows.add(call.row);
		cell.failedCalls++;
		if (isOpen(cell)) return this.notify(cell);
		const hung = cell.timedOutRows.size >= this.timeoutThreshold;
		if (!hung && cell.failingRows.size < this.breakerThreshold) return this.notify(cell);
		const rows = hung ? cell.timedOutRows.size : cell.failingRows.size;
		const calls = `${cell.failedCalls} call${cell.failedCalls > 1 ? 's' : ''}`;
		cell.openedBy = `${rows} rows in a row ${hung ? 'timed out' : 'failed'} (${calls}, no answer in between)`;
		cell.probeFailures = 0;
		if (this.breakerCooldownMs === 0) {
			cell.openUntil = Date.now();
			this.giveUp(lane, false);
			return;
		}
		cell.openUntil = Date.now() + this.breakerCooldownMs;
		this.onBreaker?.(lane.key, 'open', {
			text: `${cell.openedBy} (last: ${error.message})`,
			cooldownMs: this.breakerCooldownMs,
		});
		this.publish(lane);
		this.notify(cell);
	}

	/** The model is down: this governor makes no more calls, and its verdict is shared. */
	private giveUp(lane: Lane, probed: boolean): void {
		const { cell } = lane;
		const n = cell.probeFailures;
		const probe = probed
			? `, and ${n === 1 ? 'a probe call' : `${n} probe calls`} after a ${seconds(this.breakerCooldownMs)} cool-down failed too`
			: '';
		const opened = cell.openedBy ?? `${this.breakerThreshold} rows in a row failed`;
		const status = cell.lastFailure?.status;
		cell.down = {
			text: `${opened}${probe} (last: ${cell.lastFailure?.message ?? 'unknown'})`,
			status,
			at: Date.now(),
			from: 'local',
		};
		cell.probeFailures = 0;
		// Shared, the verdict holds for the other nodes only until their cool-down has passed.
		const shared = this.share?.scope !== undefined || this.share?.store !== undefined;
		const after =
			this.breakerCooldownMs === 0 || !shared
				? 'No more calls are made to it in this execution.'
				: `No more calls are made to it from this node (a later node probes it again after ${seconds(this.breakerCooldownMs)}).`;
		lane.unavailable = new ModelCallError(
			'unavailable',
			`judge model unavailable: ${cell.down.text}. ${after}`,
			{ status },
		);
		this.onBreaker?.(lane.key, 'unavailable', { text: cell.down.text });
		this.publish(lane);
		this.notify(cell);
	}

	/** Reads the shared store's state of a key into its fresh cell; a failure leaves it as it is. */
	private async seed(key: string, cell: BreakerCell, store: BreakerStore): Promise<void> {
		let raw: string | null;
		try {
			raw = await store.get(breakerStoreKey(key));
		} catch (e) {
			this.storeFailed(store, e);
			return;
		}
		const stored = decodeBreaker(raw);
		if (!stored) return;
		for (const r of stored.suspects ?? []) {
			cell.suspects.add(r);
			cell.failedRows.add(r);
		}
		// Nothing more stored, or this process learnt something itself meanwhile.
		if (stored.state === 'closed' || isOpen(cell)) return this.notify(cell);
		const last = stored.last ?? 'unknown';
		cell.openedBy = stored.opened;
		cell.lastFailure = new ModelCallError('server', last, { status: stored.status });
		if (stored.state === 'down') {
			cell.down = {
				text: stored.text ?? `${stored.opened} (last: ${last})`,
				status: stored.status,
				at: stored.at,
				from: 'store',
				location: store.location,
			};
			cell.openUntil = stored.at;
		} else {
			cell.openUntil = stored.until;
		}
		this.notify(cell);
	}

	/**
	 * Writes the cell's state to the shared store (open, down, or closed with the rows that fail on
	 * their own; closed without any removes it), not awaited.
	 */
	private publish(lane: Lane): void {
		const store = this.share?.store;
		if (!store) return;
		const { cell } = lane;
		const key = breakerStoreKey(lane.key);
		const opened = cell.openedBy ?? `${this.breakerThreshold} rows in a row failed`;
		const last = { last: cell.lastFailure?.message, status: cell.lastFailure?.status };
		const suspects =
			cell.suspects.size > 0 ? { suspects: [...cell.suspects].slice(-STORED_SUSPECTS_MAX) } : {};
		let write: Promise<void>;
		try {
			if (cell.down) {
				const { at, text } = cell.down;
				const value = { state: 'down' as const, at, until: at, opened, text, ...last };
				write = store.set(key, encodeBreaker({ ...value, ...suspects }), BREAKER_STATE_TTL_MS);
			} else if (isOpen(cell)) {
				const value = { state: 'open' as const, at: Date.now(), until: cell.openUntil, opened };
				write = store.set(
					key,
					encodeBreaker({ ...value, ...last, ...suspects }),
					BREAKER_STATE_TTL_MS,
				);
			} else if (cell.suspects.size > 0) {
				const value = { state: 'closed' as const, at: Date.now(), until: 0, opened: '' };
				write = store.set(key, encodeBreaker({ ...value, ...suspects }), BREAKER_STATE_TTL_MS);
			} else {
				write = store.remove(key);
			}
		} catch (e) {
			write = Promise.reject(e);
		}
		const done: Promise<void> = write
			.catch((e: unknown) => this.storeFailed(store, e))
			.finally(() => this.storeWrites.delete(done));
		this.storeWrites.add(done);
	}

	private storeFailed(store: BreakerStore, e: unknown): void {
		if (this.storeProblem) return;
		this.storeProblem = `circuit-breaker state not shared through ${store.location} (${storeErrorText(e)}): this node used its own state only`;
		this.share?.onStoreError?.(this.storeProblem);
	}

	/** The earlier of the row's and the node's deadlines, if any applies. */
	private limit(clock: RowClock): Limit | undefined {
		const node: Limit | undefined =
			this.nodeDeadlineMs > 0
				? { at: this.createdAt + this.nodeDeadlineMs, which: 'node', ms: this.nodeDeadlineMs }
				: undefined;
		const row: Limit | undefined =
			this.rowDeadlineMs > 0 && clock.startedAt !== undefined
				? { at: clock.startedAt + this.rowDeadlineMs, which: 'row', ms: this.rowDeadlineMs }
				: undefined;
		if (!node) return row;
		if (!row) return node;
		return row.at <= node.at ? row : node;
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

	/**
	 * The wait before retry number `n` of its kind: full jitter below an exponential ceiling. A wait
	 * the server asked for is honoured (up to Max Retry-After) with up to 10% of it added as jitter,
	 * so rows paced together do not return together; a wait of zero (`Retry-After: 0`, a date in the
	 * past, a reset of `0s`) gets the exponential backoff instead, with jitter but never below half
	 * its ceiling, so a server that keeps saying "now" is not called in a tight loop.
	 */
	private delayFor(error: ModelCallError, n: number): number {
		const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (Math.max(1, n) - 1));
		const asked = error.retryAfterMs;
		if (asked === undefined) return this.random() * ceiling;
		if (asked <= 0) return ceiling * (0.5 + 0.5 * this.random());
		return Math.min(asked * (1 + 0.1 * this.random()), this.maxRetryAfterMs);
	}

	private lane(key: string): Lane {
		let lane = this.lanes.get(key);
		if (!lane) {
			const share = this.share;
			const { cell, fresh } =
				share?.scope !== undefined
					? (share.registry ?? breakerRegistry).cell(share.scope, key)
					: { cell: newBreakerCell(), fresh: true };
			if (fresh && share?.store) cell.ready = this.seed(key, cell, share.store);
			const max = this.maxConcurrencyFor(key);
			const start = Math.min(this.concurrency, max);
			const lim = this.limitScope
				? this.limitScope.registry.limit<Lane>(this.limitScope.scope, key, start)
				: new AdaptiveLimit<Lane>(start);
			// A later governor starts where the execution got to, or at its own start if higher and
			// no 429 has lowered it.
			if (lim.decreases === 0 && lim.limit < start) lim.limit = start;
			const adaptive = max > start;
			lane = { key, active: 0, queue: [], lim, max, adaptive, pausedUntil: 0, calls: 0, cell };
			this.lanes.set(key, lane);
		}
		return lane;
	}

	/**
	 * Waits until the breaker changes state or `ms` passes; rejects on cancel. A row that has not
	 * failed is counted while it waits, so a row that has yields the probe to it.
	 */
	private watch(lane: Lane, ms: number, signal?: AbortSignal, clean = false): Promise<void> {
		const { cell } = lane;
		return new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(abortedError());
			if (clean) cell.cleanWaiting++;
			let left = false;
			const done = (): void => {
				if (left) return;
				left = true;
				if (timer) clearTimeout(timer);
				unlisten();
				const i = cell.watchers.indexOf(wake);
				if (i >= 0) cell.watchers.splice(i, 1);
				// The last row that has not failed leaves: a row that has may probe now.
				if (clean && --cell.cleanWaiting === 0 && isOpen(cell))
					queueMicrotask(() => this.notify(cell));
			};
			const wake = (): void => {
				done();
				resolve();
			};
			const timer = Number.isFinite(ms) ? setTimeout(wake, Math.max(0, ms)) : undefined;
			const unlisten = onAbort(signal, () => {
				done();
				reject(abortedError());
			});
			cell.watchers.push(wake);
		});
	}

	private notify(cell: BreakerCell): void {
		const watchers = cell.watchers;
		cell.watchers = [];
		for (const wake of watchers) wake();
	}

	private acquire(lane: Lane, signal?: AbortSignal): Promise<void> {
		if (lane.queue.length === 0 && lane.active < lane.max && lane.lim.open) {
			lane.active++;
			lane.lim.active++;
			return Promise.resolve();
		}
		lane.lim.members.add(lane);
		return new Promise<void>((resolve, reject) => {
			const waiter: Waiter = {
				resolve: () => {
					unlisten();
					resolve();
				},
				reject,
			};
			const unlisten = onAbort(signal, () => {
				const i = lane.queue.indexOf(waiter);
				if (i >= 0) lane.queue.splice(i, 1);
				reject(abortedError());
			});
			lane.queue.push(waiter);
		});
	}

	private release(lane: Lane): void {
		lane.active--;
		lane.lim.active--;
		this.pump(lane.lim);
	}

	/** Hands free slots under a limit to waiting rows, lane by lane (each within its own ceiling). */
	private pump(lim: AdaptiveLimit<Lane>): void {
		for (const lane of lim.members) {
			while (lane.queue.length > 0 && lim.open && lane.active < lane.max) {
				const next = lane.queue.shift() as Waiter;
				lane.active++;
				lim.active++;
				next.resolve();
			}
			if (lane.queue.length === 0) lim.members.delete(lane);
			if (!lim.open) return;
		}
	}

	/** One attempt, cut at the call timeout or at the deadline, whichever comes first. */
	private attempt<T>(
		fn: (signal: AbortSignal) => Promise<T>,
		outer: AbortSignal | undefined,
		limit: Limit | undefined,
	): Promise<T> {
		const ac = new AbortController();
		let timedOut = false;
		const left = limit ? limit.at - Date.now() : Infinity;
		const byDeadline = left < this.timeoutMs;
		const ms = Math.max(0, Math.min(this.timeoutMs, left));
		return new Promise<T>((resolve, reject) => {
			const timer = setTimeout(() => {
				timedOut = true;
				ac.abort();
				reject(
					byDeadline
						? new ModelCallError('deadline', 'the deadline passed during the call')
						: new ModelCallError(
								'timeout',
								`the judge model did not answer within ${seconds(this.timeoutMs)}`,
							),
				);
			}, ms);
			const unlisten = onAbort(outer, () => {
				ac.abort();
				reject(abortedError());
			});
			const cleanup = (): void => {
				clearTimeout(timer);
				unlisten();
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

/** Whether a breaker is open (or the model found down): calls wait, or one probes. */
function isOpen(cell: BreakerCell): boolean {
	return cell.openUntil > 0 || cell.down !== undefined;
}

function foundBy(down: DownVerdict): string {
	return down.from === 'store'
		? `another execution (breaker state shared through ${down.location ?? 'the store'})`
		: 'another node of this execution';
}

/** `p`, or a rejection once `signal` aborts. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
	if (!signal) return p;
	if (signal.aborted) return Promise.reject(abortedError());
	return new Promise<T>((resolve, reject) => {
		const unlisten = onAbort(signal, () => reject(abortedError()));
		p.then(
			(v) => {
				unlisten();
				resolve(v);
			},
			(e: unknown) => {
				unlisten();
				reject(e);
			},
		);
	});
}

const abortHubs = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `cb` when `signal` aborts; returns what unsubscribes it. One listener per signal however
 * many rows wait on it: the execution's cancel signal is shared by every row of a node, and an
 * EventTarget's add and remove walk the listeners it holds (quadratic over 2,000 waiting rows).
 */
function onAbort(signal: AbortSignal | undefined, cb: () => void): () => void {
	if (!signal) return () => undefined;
	let set = abortHubs.get(signal);
	if (!set) {
		const fresh = new Set<() => void>();
		abortHubs.set(signal, fresh);
		signal.addEventListener(
			'abort',
			() => {
				const all = [...fresh];
				fresh.clear();
				for (const f of all) f();
			},
			{ once: true },
		);
		set = fresh;
	}
	const own = set;
	own.add(cb);
	return () => {
		own.delete(cb);
	};
}

/** A row's own retryable error, ended by another call's fatal error. */
function afterOwn(own: ModelCallError, fatal: ModelCallError): ModelCallError {
	return new ModelCallError(
		'fatal',
		`${own.message}; not retried, because another call with this credential and model failed: ${fatal.message}`,
		{ status: own.status },
	);
}

function deadlineError(limit: Limit, attempts: number, last?: ModelCallError): ModelCallError {
	const whose = limit.which === 'row' ? "the row's deadline" : "the node's deadline";
	const option = limit.which === 'row' ? 'Row Deadline' : 'Node Deadline';
	const tried =
		attempts === 0
			? 'before this row was judged'
			: `after ${attempts} attempt${attempts > 1 ? 's' : ''}${last ? `; last error: ${last.message}` : ''}`;
	return new ModelCallError(
		'deadline',
		`${whose} of ${seconds(limit.ms)} passed ${tried} (option ${option})`,
		{ status: last?.status },
	);
}

function bounded(ms: number, limit: Limit | undefined): number {
	if (!limit) return ms;
	return Math.max(0, Math.min(ms, limit.at - Date.now()));
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
		const t = setTimeout(() => {
			unlisten();
			resolve();
		}, ms);
		const unlisten = onAbort(signal, () => {
			clearTimeout(t);
			reject(abortedError());
		});
	});
}
