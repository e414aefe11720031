/**
 * What calls cost and what the verdict cache saved, folded one way for every evaluator that makes
 * several calls for a row (fan-out judges, conversation turns, safety backends).
 */
import type { Score, Usage } from './types';

/** Sum of two usages; either may be absent. */
export function sumUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
	if (!b) return a;
	if (!a) return { ...b };
	return {
		promptTokens: a.promptTokens + b.promptTokens,
		completionTokens: a.completionTokens + b.completionTokens,
		totalTokens: a.totalTokens + b.totalTokens,
	};
}

/** Which store answered: `disk` (files in n8n's user folder) or `redis` (shared by workers). */
export type CacheStoreKind = 'disk' | 'redis';

/** What one Score says about the cache (`details.cache`); fan-out and per-turn rows sum calls. */
export interface CacheInfo {
	store: CacheStoreKind;
	/** True when every model call of the Score was answered by the cache. */
	hit: boolean;
	/** Calls answered by the cache, and calls that went to the model (fan-out rows have several). */
	hits: number;
	misses: number;
	/** HTTP calls and tokens the cached verdicts cost when they were first judged. */
	savedCalls: number;
	savedUsage?: Usage;
	/** Why the cache was not used for (one of) the calls: corrupt entry, store unreachable... */
	skipped?: string;
}

/** The `details.cache` of a Score, when it has a well-formed one. */
export function cacheInfoOf(score: Pick<Score, 'details'> | undefined): CacheInfo | undefined {
	const c = score?.details?.cache as Partial<CacheInfo> | undefined;
	if (typeof c !== 'object' || c === null) return undefined;
	if (c.store !== 'disk' && c.store !== 'redis') return undefined;
	return c as CacheInfo;
}

/**
 * Folds the cache of a row's calls (fan-out) or turns into the row's: hits and misses counted,
 * saved calls and tokens summed, the first skip reason kept. Undefined when no call used a cache.
 */
export function foldCacheInfo(scores: ReadonlyArray<Score>): CacheInfo | undefined {
	return foldCacheInfos(scores.map(cacheInfoOf));
}

/** `foldCacheInfo` over the cache summaries themselves (absent ones skipped). */
export function foldCacheInfos(infos: ReadonlyArray<CacheInfo | undefined>): CacheInfo | undefined {
	let out: CacheInfo | undefined;
	for (const c of infos) {
		if (!c) continue;
		out ??= { store: c.store, hit: true, hits: 0, misses: 0, savedCalls: 0 };
		out.hits += c.hits;
		out.misses += c.misses;
		out.savedCalls += c.savedCalls;
		out.savedUsage = sumUsage(out.savedUsage, c.savedUsage);
		out.skipped ??= c.skipped;
	}
	if (out) out.hit = out.misses === 0 && out.hits > 0;
	return out;
}

/** What one call (or one Score's calls) cost. */
export interface CallCost {
	usage?: Usage;
	attempts?: number;
	/** Model or service version that answered. */
	model?: string;
	latencyMs?: number;
	cache?: CacheInfo;
}

/** The calls of one row folded: usage and attempts summed, the slowest latency, the last model. */
export interface FoldedCalls {
	usage?: Usage;
	attempts: number;
	latencyMs: number;
	model?: string;
	cache?: CacheInfo;
}

/** Folds call costs; absent entries (a call that never ran) count nothing. */
export function foldCalls(parts: ReadonlyArray<CallCost | undefined>): FoldedCalls {
	let usage: Usage | undefined;
	let attempts = 0;
	let latencyMs = 0;
	let model: string | undefined;
	for (const p of parts) {
		if (!p) continue;
		usage = sumUsage(usage, p.usage);
		attempts += p.attempts ?? 0;
		latencyMs = Math.max(latencyMs, p.latencyMs ?? 0);
		model = p.model || model;
	}
	const cache = foldCacheInfos(parts.map((p) => p?.cache));
	return {
		...(usage ? { usage } : {}),
		attempts,
		latencyMs,
		...(model ? { model } : {}),
		...(cache ? { cache } : {}),
	};
}

/** Folds the costs of Scores (fan-out calls, turns), their cache summaries included. */
export function foldScoreCalls(scores: ReadonlyArray<Score>): FoldedCalls {
	return foldCalls(scores.map((s) => ({ ...s, cache: cacheInfoOf(s) })));
}
