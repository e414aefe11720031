/**
 * Embedding one row's texts on the one runtime: the vectors already in the cache are read, the
 * rest go to the source in one batched call (a text asked twice is embedded once) through the
 * execution's Governor (concurrency, timeouts, retries, the breaker) and the spend limit, and
 * the new vectors are stored. The row's cost says what was spent and what the cache saved, in
 * the shape every Score carries (`usage`, `attempts`, `details.cache`).
 */
import type { Usage } from '../core/types';
import type { CacheInfo, CallCost } from '../core/usage';
import { ModelCallError } from '../judges/errors';
import { countTokens, encodingFor, loadEncoder } from '../judges/estimate';
import type { Governor, RowClock } from '../judges/governor';
import type { SpendLimit } from '../judges/spend';
import type { VectorCache } from './cache';
import type { EmbeddingResult, EmbeddingSource } from './source';

/** What embedding a row needs besides its texts. */
export interface EmbeddingContext {
	source: EmbeddingSource;
	governor: Governor;
	/** The vector cache; absent = every text goes to the model. */
	cache?: VectorCache;
	spend?: SpendLimit;
	signal?: AbortSignal;
	/** The row's identity for the circuit breaker (its request id, else its position). */
	row?: string;
	/** The row's clock when it makes other governed calls too (Answer Relevancy's judge call). */
	clock?: RowClock;
}

/** A row's vectors and what they cost. */
export interface EmbeddedTexts {
	/** One vector per text asked, in order. */
	vectors: number[][];
	cost: CallCost & { cache?: CacheInfo };
	/** True when the source reported no tokens and they were counted with the tokenizer. */
	usageEstimated: boolean;
	/** Model that answered (of the call, or of the cached vectors). */
	model: string;
}

/**
 * Splits `total` tokens over texts in proportion to their length, in whole tokens that sum to
 * `total` (largest remainder): the cache stores what each text cost.
 */
export function splitTokens(total: number, texts: ReadonlyArray<string>): number[] {
	const lengths = texts.map((t) => Math.max(1, t.length));
	const sum = lengths.reduce((a, b) => a + b, 0);
	const exact = lengths.map((l) => (total * l) / sum);
	const out = exact.map(Math.floor);
	let left = total - out.reduce((a, b) => a + b, 0);
	const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r);
	for (const { i } of order) {
		if (left <= 0) break;
		out[i]++;
		left--;
	}
	return out;
}

function usageOf(tokens: number): Usage {
	return { promptTokens: tokens, completionTokens: 0, totalTokens: tokens };
}

/**
 * The vectors of `texts`. Rejects with a `ModelCallError` (its `cost` says what the row spent)
 * when the call fails; a broken cache only costs the call it could have saved.
 */
export async function embedTexts(
	texts: ReadonlyArray<string>,
	ctx: EmbeddingContext,
): Promise<EmbeddedTexts> {
	const started = Date.now();
	const { source, cache } = ctx;
	const unique = [...new Set(texts)];
	const found = new Map<string, { vector: number[]; tokens: number; model: string }>();
	const keys = new Map<string, string>();
	let skipped: string | undefined;
	if (cache) {
		await Promise.all(
			unique.map(async (t) => {
				const key = cache.keyOf(source, t);
				keys.set(t, key);
				const r = await cache.lookup(key);
				if (r.kind === 'hit') found.set(t, r.entry);
				else if (r.kind === 'skipped') skipped ??= r.why;
			}),
		);
	}
	const missing = unique.filter((t) => !found.has(t));
	const hits = found.size;
	const hitTokens = [...found.values()].reduce((a, e) => a + e.tokens, 0);
	let attempts = 0;
	let fresh = 0;
	let model = source.model;
	let usageEstimated = false;
	const cacheInfo = (): CacheInfo | undefined => {
		if (!cache) return undefined;
		const hit = missing.length === 0 && hits > 0;
		return {
			store: cache.backend.kind,
			hit,
			hits,
			misses: missing.length,
			savedCalls: hit ? 1 : 0,
			...(hits > 0 ? { savedUsage: usageOf(hitTokens) } : {}),
			...(skipped ? { skipped } : {}),
		};
	};
	if (missing.length > 0) {
		let result: EmbeddingResult;
		try {
			const governed = await ctx.governor.run<EmbeddingResult>(
				source.key,
				(signal) => source.embed(missing, signal),
				{
					signal: ctx.signal,
					row: ctx.row,
					clock: ctx.clock,
					headersOf: (r) => r.headers,
					gate: ctx.spend?.embeddingGate(missing, source.model),
				},
			);
			attempts = governed.attempts;
			result = governed.value;
		} catch (e) {
			const err =
				e instanceof ModelCallError
					? e
					: new ModelCallError('bad_request', String((e as Error)?.message ?? e));
			err.cost = {
				attempts: err.attempts ?? 0,
				model: source.model,
				latencyMs: Date.now() - started,
				cache: cacheInfo(),
			};
			throw err;
		}
		model = result.model || model;
		let perText: number[];
		if (result.usage) {
			fresh = result.usage.totalTokens;
			perText = splitTokens(fresh, missing);
		} else {
			// Sub-nodes report no usage: the model family's tokenizer counts what was sent.
			const encoder = await loadEncoder(encodingFor(source.model).encoding);
			perText = missing.map((t) => countTokens(encoder, t));
			fresh = perText.reduce((a, b) => a + b, 0);
			usageEstimated = true;
		}
		missing.forEach((t, i) =>
			found.set(t, { vector: result.vectors[i], tokens: perText[i], model }),
		);
		if (cache) {
			const unsaved = await Promise.all(
				missing.map((t, i) =>
					cache.save(keys.get(t) as string, {
						vector: result.vectors[i],
						model,
						tokens: perText[i],
					}),
				),
			);
			skipped ??= unsaved.find((u) => u !== null) ?? undefined;
		}
	} else if (found.size > 0) {
		model = [...found.values()][0].model;
	}
	const info = cacheInfo();
	return {
		vectors: texts.map((t) => (found.get(t) as { vector: number[] }).vector),
		cost: {
			usage: usageOf(hitTokens + fresh),
			attempts,
			model,
			latencyMs: Date.now() - started,
			...(info ? { cache: info } : {}),
		},
		usageEstimated,
		model,
	};
}
