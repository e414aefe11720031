/**
 * Adaptive concurrency for one endpoint+model (AIMD, with TCP's slow start): the calls allowed in
 * flight double per window of answered calls until the first sign of congestion, then rise by one
 * per window, while the window's median latency stays within twice the best window's and no call
 * was rate limited or told that its rate-limit budget is nearly spent; they halve on a 429 (once
 * per wave: a 429 from a call started before the last decrease is already answered for).
 * Latency never lowers the limit, it only stops the rise: a judge that is slow because the client
 * is busy gains nothing from fewer calls. The governors of one execution share one limit per key
 * (./breaker.ts's registry), so a later judge node starts where the earlier one got to, and the
 * calls they have in flight together stay under it. A new execution starts where the key's latest
 * limit in the process got to, when it was used within the last ten minutes (the previous batch's
 * sub-workflow, the previous run).
 */

/** A window's median latency may be this many times the best window's and the limit still rises. */
export const LATENCY_TOLERANCE = 2;
/** On a 429 the limit is multiplied by this (at least 1 call stays allowed). */
export const DECREASE_FACTOR = 0.5;
/** Below this share of a rate-limit budget left (x-ratelimit-remaining / limit), no rise. */
export const HEADROOM = 0.1;
/** The fewest answered calls a window judges the latency by. */
const MIN_WINDOW = 4;

/** One endpoint+model's limit and the calls in flight under it, shared by its `members`. */
export class AdaptiveLimit<M> {
	/** Calls allowed in flight (the floor of it); rises and falls when adaptive members call. */
	limit: number;
	/** Calls in flight, all members together. */
	active = 0;
	/** The governors' lanes holding or waiting for slots under this limit. */
	readonly members = new Set<M>();
	/** Bumped on each decrease: 429s of calls started before it were answered for already. */
	epoch = 0;
	/**
	 * Bumped on every change: a window counts only calls started at the current limit, so the
	 * latency it judges is the latency of that limit, not of the one before.
	 */
	generation = 0;
	/** Best window median latency seen (ms). */
	baseline?: number;
	/** Highest limit reached, and how often it rose and fell (diagnostics and tests). */
	peak: number;
	increases = 0;
	decreases = 0;
	touchedAt: number;
	private window: number[] = [];
	private tight = false;
	/** Doubling per window until the first latency hold, tight budget or 429. */
	slowStart = true;

	constructor(
		start: number,
		private readonly now: () => number = Date.now,
	) {
		this.limit = Math.max(1, Math.floor(start));
		this.peak = this.limit;
		this.touchedAt = now();
	}

	/**
	 * Starts where `other` (the same key's limit in an earlier execution of this process) got to:
	 * its limit, whether it still doubles and its best latency. Not its 429s: a node of this
	 * execution still starts at its own Concurrency if that is higher (a fixed one stays fixed).
	 */
	learnFrom(other: AdaptiveLimit<unknown>): void {
		this.limit = Math.max(1, Math.floor(other.limit));
		this.peak = this.limit;
		this.slowStart = other.slowStart;
		this.baseline = other.baseline;
	}

	/** Whether another call may start under the shared limit. */
	get open(): boolean {
		return this.active < Math.floor(this.limit);
	}

	/**
	 * An answered call of an adaptive member, started in `generation`, took `ms`; `tight` when its
	 * reply said the rate-limit budget is nearly spent. Returns true when the limit rose (to `max`).
	 */
	answered(ms: number, generation: number, max: number, tight: boolean): boolean {
		this.touchedAt = this.now();
		if (generation !== this.generation) return false;
		this.window.push(ms);
		if (tight) this.tight = true;
		if (this.window.length < Math.max(MIN_WINDOW, Math.floor(this.limit))) return false;
		const p50 = median(this.window);
		const held = this.tight;
		this.window = [];
		this.tight = false;
		this.baseline = this.baseline === undefined ? p50 : Math.min(this.baseline, p50);
		const slow = p50 > this.baseline * LATENCY_TOLERANCE;
		if (held || slow) this.slowStart = false;
		if (held || slow || this.limit >= max) return false;
		const now = Math.floor(this.limit);
		this.limit = Math.min(max, this.slowStart ? now * 2 : now + 1);
		this.peak = Math.max(this.peak, this.limit);
		this.increases++;
		this.generation++;
		return true;
	}

	/** A call of an adaptive member started in `epoch` was rate limited: true when the limit fell. */
	rateLimited(epoch: number): boolean {
		this.touchedAt = this.now();
		if (epoch !== this.epoch) return false;
		this.limit = Math.max(1, Math.floor(this.limit * DECREASE_FACTOR));
		this.slowStart = false;
		this.epoch++;
		this.generation++;
		this.window = [];
		this.tight = false;
		this.decreases++;
		return true;
	}
}

function median(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	const mid = s.length >> 1;
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Whether a reply's rate-limit headers say less than {@link HEADROOM} of a budget is left
 * (OpenAI's `x-ratelimit-limit-*` and `x-ratelimit-remaining-*` for requests and tokens).
 */
export function budgetTight(headers: Record<string, string> | undefined): boolean {
	if (!headers) return false;
	for (const kind of ['requests', 'tokens']) {
		const limit = Number(headers[`x-ratelimit-limit-${kind}`]);
		const left = Number(headers[`x-ratelimit-remaining-${kind}`]);
		if (limit > 0 && Number.isFinite(left) && left < limit * HEADROOM) return true;
	}
	return false;
}
