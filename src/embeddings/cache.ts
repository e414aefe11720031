/**
 * Vectors in the verdict cache's store (../judges/cache.ts: disk or Redis, same TTL and sweep):
 * one entry per text, keyed by a SHA-256 of the endpoint, the model, the source's settings and the
 * SHA-256 of the text (the text itself is never stored). The value holds the vector as base64 of
 * float64 (exact: a re-run computes the same cosine), its length, the model that answered and the
 * tokens the text cost when first embedded. A broken store or entry never fails a row: the text is
 * embedded again and the Score says why the cache was skipped.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, readStoreEntry, type CacheBackend } from '../judges/cache';
import { storeErrorText } from '../judges/errors';
import type { EmbeddingSource } from './source';

const ENTRY_FORMAT = 'rag-eval-embedding/1';
const KEY_FORMAT = 'rag-eval-embedding-key/1';

const entrySchema = z.object({
	format: z.literal(ENTRY_FORMAT),
	key: z.string(),
	model: z.string(),
	dims: z.number().int().positive(),
	vector: z.string(),
	tokens: z.number().int().nonnegative(),
	storedAt: z.number().int().nonnegative(),
});

/** One cached vector. */
export interface StoredVector {
	vector: number[];
	model: string;
	tokens: number;
	storedAt: number;
}

/** A lookup's outcome; `skipped` says why the store could not answer. */
export type VectorLookup =
	| { kind: 'hit'; entry: StoredVector }
	| { kind: 'miss' }
	| { kind: 'skipped'; why: string };

function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

function encode(vector: number[]): string {
	return Buffer.from(new Float64Array(vector).buffer).toString('base64');
}

function decode(text: string, dims: number): number[] | undefined {
	const buf = Buffer.from(text, 'base64');
	if (buf.length !== dims * 8) return undefined;
	const out = Array.from(new Float64Array(buf.buffer, buf.byteOffset, dims));
	return out.every(Number.isFinite) ? out : undefined;
}

/** Vectors of one source in one store; every method resolves, whatever the store does. */
export class VectorCache {
	constructor(
		readonly backend: CacheBackend,
		/** Entries older than this are misses; 0 keeps them forever. */
		readonly ttlMs: number,
		private readonly now: () => number = Date.now,
	) {}

	/** The key of `text` embedded by `source`: `embedding:<sha256>`. */
	keyOf(source: Pick<EmbeddingSource, 'endpoint' | 'model' | 'settings'>, text: string): string {
		return `embedding:${sha256(
			canonicalJson({
				format: KEY_FORMAT,
				endpoint: source.endpoint,
				model: source.model,
				settings: source.settings,
				text: sha256(text),
			}),
		)}`;
	}

	async lookup(key: string): Promise<VectorLookup> {
		return readStoreEntry(this.backend, key, {
			ttlMs: this.ttlMs,
			now: this.now,
			parse: (json): StoredVector | undefined => {
				const r = entrySchema.safeParse(json);
				const vector =
					r.success && r.data.key === key ? decode(r.data.vector, r.data.dims) : undefined;
				return r.success && vector
					? { vector, model: r.data.model, tokens: r.data.tokens, storedAt: r.data.storedAt }
					: undefined;
			},
			what: 'a vector',
			redo: 'embedded again',
		});
	}

	/** Stores a vector; returns why it could not be stored, or null. */
	async save(key: string, entry: Omit<StoredVector, 'storedAt'>): Promise<string | null> {
		const value = {
			format: ENTRY_FORMAT,
			key,
			model: entry.model,
			dims: entry.vector.length,
			vector: encode(entry.vector),
			tokens: entry.tokens,
			storedAt: this.now(),
		};
		try {
			await this.backend.set(key, JSON.stringify(value), this.ttlMs);
			return null;
		} catch (e) {
			return `${this.backend.kind} cache not writable at ${this.backend.location}: ${storeErrorText(e)}`;
		}
	}
}
