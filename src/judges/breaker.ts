/**
 * The circuit breaker's state of one endpoint+model, shared beyond one governor: by the governors
 * of one n8n execution in this process (a registry keyed by execution id + governor key), and by
 * every process through a store (Redis in queue mode). A judge node that meets a model another
 * node already found down takes that verdict instead of learning it again with its own calls.
 * The governor key names an endpoint and a model, never a key; the store sees only its hash.
 */
import { createHash } from 'node:crypto';
import type { CacheBackend } from './cache';
import { AdaptiveLimit } from './concurrency';
import type { ModelCallError } from './errors';

/**
 * How long shared breaker state lives without use: in the registry (an execution that ended
 * leaves its entries behind, as a node cannot see the end of its execution), and as the expiry of
 * a Redis entry. Ten minutes outlast the gap between two judge nodes of a pipeline; past that a
 * verdict only saves a later node its first failures, and every probe refreshes it.
 */
export const BREAKER_STATE_TTL_MS = 10 * 60_000;

/** The verdict that a model is down, as the node that reached it worded it. */
export interface DownVerdict {
	/** `2 calls in a row timed out, and a probe call ... (last: ...)`, secret-free. */
	text: string;
	status?: number;
	/** Epoch ms it was reached. */
	at: number;
	/** Where this process learnt it: a governor of this process, or the shared store. */
	from: 'local' | 'store';
	/** The store's location when it came from there (`host:port/db`). */
	location?: string;
}

/**
 * The breaker of one endpoint+model; several governors may hold the same one. It opens on evidence
 * about the endpoint, never on one row's: failures count only from distinct rows, only when the
 * server answered no other call while the failed one was out, and never from a row already seen to
 * fail on its own (a context the model stalls on, a prompt a filter rejects with a 500).
 */
export interface BreakerCell {
	/** Answers the server gave (any reply, a rate limit, a rejected request), counted. */
	answers: number;
	/** Calls sent, counted: each call's number is its place in the order of sending. */
	sends: number;
	/** The highest number of a call the server answered. */
	answeredSend: number;
	/** Distinct rows whose calls failed with no answer in between, since the last answer. */
	failingRows: Set<string>;
	/** Those of them whose failing call timed out. */
	timedOutRows: Set<string>;
	/** Calls that failed since the last answer, from any row (for the message). */
	failedCalls: number;
	/** Rows with a failed call on this key: they probe only when no row that has not failed waits. */
	failedRows: Set<string>;
	/**
	 * Rows whose calls failed while the server answered other calls: their failures are their own,
	 * and never count towards opening the breaker again (in this execution, on any node).
	 */
	suspects: Set<string>;
	lastFailure?: ModelCallError;
	/** What opened it (`5 rows in a row failed (7 calls, no answer in between)`). */
	openedBy?: string;
	/** While > 0 the breaker is open: no call before this time, then probes (half-open). */
	openUntil: number;
	/** Probe calls in flight: half-open admits one at a time. */
	probes: number;
	/** Probe calls of rows that had not failed, failed since it opened. */
	probeFailures: number;
	/** Calls in flight on the key, from every governor holding the cell. */
	inFlight: number;
	/** Rows that have not failed, waiting for the breaker to let them call. */
	cleanWaiting: number;
	down?: DownVerdict;
	/** Rows (of any governor holding the cell) waiting for it to change. */
	watchers: Array<() => void>;
	/** Epoch ms of its last use, for the registry's expiry. */
	touchedAt: number;
	/** Settles once the shared store was read for it (never rejects); absent without a store. */
	ready?: Promise<void>;
}

export function newBreakerCell(): BreakerCell {
	return {
		answers: 0,
		sends: 0,
		answeredSend: 0,
		failingRows: new Set(),
		timedOutRows: new Set(),
		failedCalls: 0,
		failedRows: new Set(),
		suspects: new Set(),
		openUntil: 0,
		probes: 0,
		probeFailures: 0,
		inFlight: 0,
		cleanWaiting: 0,
		watchers: [],
		touchedAt: Date.now(),
	};
}

/** The most row hashes a store entry keeps (the suspects of one key). */
export const STORED_SUSPECTS_MAX = 500;

/** A row's identity in the shared store: a hash, so no request text or id is written. */
export function rowStoreId(row: string): string {
	return createHash('sha256').update(row).digest('hex').slice(0, 32);
}

/**
 * Breaker cells by execution id + governor key, for the governors of one process. Entries unused
 * for the TTL are dropped on the next lookup; an execution's entries go at once when it is
 * cancelled ({@link release}).
 */
export class BreakerRegistry {
	private readonly cells = new Map<string, { scope: string; cell: BreakerCell }>();
	private readonly limits = new Map<string, { scope: string; limit: AdaptiveLimit<unknown> }>();
	/** The latest limit of each key, whatever its execution: where the next execution starts. */
	private readonly latest = new Map<string, AdaptiveLimit<unknown>>();

	constructor(
		readonly ttlMs: number = BREAKER_STATE_TTL_MS,
		private readonly now: () => number = Date.now,
	) {}

	/** The cell of `key` in `scope`; `fresh` when this call created it. */
	cell(scope: string, key: string): { cell: BreakerCell; fresh: boolean } {
		this.sweep();
		const id = `${scope}\u0000${key}`;
		const found = this.cells.get(id);
		if (found) {
			found.cell.touchedAt = this.now();
			return { cell: found.cell, fresh: false };
		}
		const cell = newBreakerCell();
		cell.touchedAt = this.now();
		this.cells.set(id, { scope, cell });
		return { cell, fresh: true };
	}

	/**
	 * The concurrency limit of `key` in `scope` (./concurrency.ts), created by the first governor
	 * that asks: where the key's latest limit in this process got to, if it was used within the
	 * TTL (another execution: the sub-workflow of the previous batch, the previous run), else at
	 * `start` calls. Kept apart from the breaker cells: a governor without a breaker still shares
	 * its execution's limit.
	 */
	limit<M>(scope: string, key: string, start: number): AdaptiveLimit<M> {
		this.sweep();
		const id = `${scope}\u0000${key}`;
		const found = this.limits.get(id);
		if (found) {
			found.limit.touchedAt = this.now();
			return found.limit as AdaptiveLimit<M>;
		}
		const limit = new AdaptiveLimit<M>(start, this.now);
		const before = this.latest.get(key);
		if (before && before.touchedAt >= this.now() - this.ttlMs) limit.learnFrom(before);
		this.limits.set(id, { scope, limit: limit as AdaptiveLimit<unknown> });
		this.latest.set(key, limit as AdaptiveLimit<unknown>);
		return limit;
	}

	/** Forgets every cell and limit of an execution. */
	release(scope: string): void {
		for (const [id, e] of this.cells) if (e.scope === scope) this.cells.delete(id);
		for (const [id, e] of this.limits) if (e.scope === scope) this.limits.delete(id);
	}

	/** Cells held (for tests and diagnostics). */
	get size(): number {
		this.sweep();
		return this.cells.size;
	}

	/** Limits held (for tests and diagnostics). */
	get limitCount(): number {
		this.sweep();
		return this.limits.size;
	}

	private sweep(): void {
		const oldest = this.now() - this.ttlMs;
		for (const [id, e] of this.cells) if (e.cell.touchedAt < oldest) this.cells.delete(id);
		for (const [id, e] of this.limits) {
			// A limit with calls in flight is in use, however long ago it was last looked up.
			if (e.limit.touchedAt < oldest && e.limit.active === 0) this.limits.delete(id);
		}
		for (const [key, l] of this.latest) if (l.touchedAt < oldest) this.latest.delete(key);
	}
}

/** The process's registry, which every judge node's governor shares. */
export const breakerRegistry = new BreakerRegistry();

/**
 * A key-value store for breaker state across processes: the verdict cache's Redis backend
 * (`redisBackend(redisSettingsFromEnv())`, the same settings), whose every method may throw.
 */
export type BreakerStore = Pick<CacheBackend, 'location' | 'get' | 'set' | 'remove' | 'close'>;

const FORMAT = 'rag-eval-breaker/1';

/** The store's key for a governor key: a hash, so no endpoint or model name is listed. */
export function breakerStoreKey(key: string): string {
	return `breaker:${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * What a store entry holds: an open breaker, a model found down, or (closed) only the rows seen to
 * fail on their own. Readers of an earlier release ignore a `closed` entry (an unknown state).
 */
export interface StoredBreaker {
	state: 'open' | 'down' | 'closed';
	/** Epoch ms it opened or the model was found down. */
	at: number;
	/** Epoch ms of the probe of an open breaker. */
	until: number;
	/** What opened it (`2 calls in a row timed out`). */
	opened: string;
	/** The verdict's text of a model found down. */
	text?: string;
	/** The last failure's message and status. */
	last?: string;
	status?: number;
	/** Hashes ({@link rowStoreId}) of rows whose failures were their own. */
	suspects?: string[];
}

export function encodeBreaker(s: StoredBreaker): string {
	return JSON.stringify({ format: FORMAT, ...s });
}

/** A stored entry, or undefined when it is not one (another format, corrupt). */
export function decodeBreaker(raw: string | null): StoredBreaker | undefined {
	if (raw === null) return undefined;
	let v: Record<string, unknown>;
	try {
		v = JSON.parse(raw) as Record<string, unknown>;
	} catch {
		return undefined;
	}
	const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
	const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
	if (typeof v !== 'object' || v === null || v.format !== FORMAT) return undefined;
	if (v.state !== 'open' && v.state !== 'down' && v.state !== 'closed') return undefined;
	if (!num(v.at) || !num(v.until) || typeof v.opened !== 'string') return undefined;
	if (v.state === 'down' && typeof v.text !== 'string') return undefined;
	return {
		state: v.state,
		at: v.at,
		until: v.until,
		opened: v.opened,
		text: str(v.text),
		last: str(v.last),
		status: num(v.status) ? v.status : undefined,
		suspects: Array.isArray(v.suspects)
			? v.suspects.filter((x): x is string => typeof x === 'string').slice(0, STORED_SUSPECTS_MAX)
			: undefined,
	};
}
