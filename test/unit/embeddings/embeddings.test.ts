/**
 * The embedding parts below the nodes: cosine and autoevals' rescaling by hand-worked numbers,
 * the token split the cache stores, the vector cache (exact vectors, keys by model and text,
 * corrupt and expired entries), and embedTexts on the local server (one call for a row's texts,
 * a repeated text once, a failure carrying its cost).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosine, rescaleCosine } from '../../../src/embeddings/similarity';
import { embedTexts, splitTokens } from '../../../src/embeddings/embed';
import { VectorCache } from '../../../src/embeddings/cache';
import { createOpenAIEmbeddingSource } from '../../../src/embeddings/source';
import { diskBackend, type CacheBackend } from '../../../src/judges/cache';
import { ModelCallError } from '../../../src/judges/errors';
import { Governor } from '../../../src/judges/governor';
import {
	embeddingInputs,
	faults,
	startOpenAIServer,
	type OpenAIServer,
} from '../../support/openai-server';

describe('cosine and rescaling', () => {
	it('computes the cosine by hand-worked vectors', () => {
		// (1,2,2)·(2,1,2) = 8; both norms 3: 8/9.
		expect(cosine([1, 2, 2], [2, 1, 2])).toBeCloseTo(8 / 9, 15);
		expect(cosine([1, 0], [-1, 0])).toBe(-1);
		expect(cosine([3, 4], [6, 8])).toBe(1);
	});
	it('has no value for a vector of zeros and refuses unequal lengths', () => {
		expect(cosine([0, 0], [1, 0])).toBeUndefined();
		expect(() => cosine([1, 2], [1, 2, 3])).toThrow(/different lengths \(2 and 3\)/);
	});
	it('rescales from the floor as autoevals does: max(0, (cos - 0.7) / 0.3)', () => {
		expect(rescaleCosine(0.85, 0.7)).toBeCloseTo(0.5, 12);
		expect(rescaleCosine(1, 0.7)).toBeCloseTo(1, 12);
		expect(rescaleCosine(0.7, 0.7)).toBe(0);
		expect(rescaleCosine(0.2, 0.7)).toBe(0);
		expect(() => rescaleCosine(0.5, 1)).toThrow(/below 1/);
	});
});

describe('splitTokens', () => {
	it('splits a call total over texts by length, in whole tokens that sum to it', () => {
		// Lengths 10 and 30 of 40: 2.5 and 7.5 -> the remainders tie; 3 + 7 or 2 + 8 sum to 10.
		const s = splitTokens(10, ['a'.repeat(10), 'b'.repeat(30)]);
		expect(s[0] + s[1]).toBe(10);
		expect(splitTokens(12, ['a'.repeat(10), 'b'.repeat(30)])).toEqual([3, 9]);
		expect(splitTokens(7, ['x', 'y', 'z'])).toEqual([3, 2, 2]);
		expect(splitTokens(0, ['x'])).toEqual([0]);
	});
});

describe('VectorCache', () => {
	const source = { endpoint: 'compatible:http://h/v1', model: 'm', settings: {} };
	it('stores vectors exactly, keyed by endpoint, model and text', async () => {
		const cache = new VectorCache(diskBackend(mkdtempSync(join(tmpdir(), 'vec-'))), 0);
		const v = [0.1, -0.2, 1 / 3];
		const key = cache.keyOf(source, 'hello');
		expect(key).toMatch(/^embedding:[0-9a-f]{64}$/);
		expect(cache.keyOf(source, 'hello')).toBe(key);
		expect(cache.keyOf({ ...source, model: 'other' }, 'hello')).not.toBe(key);
		expect(cache.keyOf(source, 'hello!')).not.toBe(key);
		expect(cache.keyOf({ ...source, settings: { dimensions: 256 } }, 'hello')).not.toBe(key);
		expect(await cache.save(key, { vector: v, model: 'm-1', tokens: 2 })).toBeNull();
		const hit = await cache.lookup(key);
		expect(hit).toMatchObject({ kind: 'hit', entry: { vector: v, model: 'm-1', tokens: 2 } });
		expect(await cache.lookup(cache.keyOf(source, 'other'))).toEqual({ kind: 'miss' });
	});

	it('a corrupt entry is skipped with a reason and forgotten; an expired one is a miss', async () => {
		const store = new Map<string, string>();
		const backend: CacheBackend = {
			kind: 'disk',
			location: 'memory',
			get: async (k) => store.get(k) ?? null,
			set: async (k, v) => void store.set(k, v),
			remove: async (k) => void store.delete(k),
			close: async () => undefined,
		};
		let now = 1_000;
		const cache = new VectorCache(backend, 100, () => now);
		const key = cache.keyOf(source, 't');
		store.set(key, '{"format":"rag-eval-embedding/1","vector":"!!"}');
		expect(await cache.lookup(key)).toEqual({
			kind: 'skipped',
			why: 'corrupt cache entry (not a vector), embedded again',
		});
		expect(store.has(key)).toBe(false);
		await cache.save(key, { vector: [1, 2], model: 'm', tokens: 1 });
		now += 101;
		expect(await cache.lookup(key)).toEqual({ kind: 'miss' });
	});

	it('a text is never stored, only its vector under a hash', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'vec-text-'));
		const cache = new VectorCache(diskBackend(dir), 0);
		await cache.save(cache.keyOf(source, 'a secret sentence'), {
			vector: [1],
			model: 'm',
			tokens: 1,
		});
		const files = (d: string): string[] =>
			readdirSync(d, { withFileTypes: true }).flatMap((e) =>
				e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)],
			);
		for (const f of files(dir)) expect(readFileSync(f, 'utf8')).not.toContain('secret');
	});
});

describe('embedTexts on the local server', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const source = () =>
		createOpenAIEmbeddingSource(
			{ provider: 'compatible', baseUrl: server.baseUrl, model: 'chat', apiKey: 'sk-secret-1' },
			'emb',
		);

	it('embeds a row in one call, a repeated text once, and caches what it got', async () => {
		const store = new Map<string, string>();
		const backend: CacheBackend = {
			kind: 'redis',
			location: 'memory',
			get: async (k) => store.get(k) ?? null,
			set: async (k, v) => void store.set(k, v),
			remove: async (k) => void store.delete(k),
			close: async () => undefined,
		};
		const cache = new VectorCache(backend, 0);
		const ctx = { source: source(), governor: new Governor(), cache };
		const first = await embedTexts(['alpha beta', 'gamma', 'alpha beta'], ctx);
		expect(server.embeddingRequests().map(embeddingInputs)).toEqual([['alpha beta', 'gamma']]);
		expect(first.vectors[0]).toEqual(first.vectors[2]);
		expect(first.cost).toMatchObject({ attempts: 1, model: 'emb' });
		// The server counts ceil(length / 4) tokens a text: 3 + 2.
		expect(first.cost.usage).toEqual({ promptTokens: 5, completionTokens: 0, totalTokens: 5 });
		expect(first.cost.cache).toEqual({
			store: 'redis',
			hit: false,
			hits: 0,
			misses: 2,
			savedCalls: 0,
		});
		// One text cached, one new: one call for the new one; the saved tokens are the cached text's.
		const second = await embedTexts(['gamma', 'delta epsilon'], ctx);
		expect(server.embeddingRequests().map(embeddingInputs)[1]).toEqual(['delta epsilon']);
		expect(second.cost.cache).toMatchObject({ hit: false, hits: 1, misses: 1, savedCalls: 0 });
		expect(second.cost.cache?.savedUsage?.totalTokens).toBe(2);
		const third = await embedTexts(['gamma', 'alpha beta'], ctx);
		expect(server.embeddingRequests()).toHaveLength(2);
		expect(third.cost).toMatchObject({ attempts: 0, cache: { hit: true, savedCalls: 1 } });
	});

	it('a failed call rejects with its attempts, and its message holds no key', async () => {
		server.setEmbeddingDefault(() => ({
			status: 401,
			error: { message: 'Incorrect API key provided: sk-secret-1' },
		}));
		const err = await embedTexts(['x'], { source: source(), governor: new Governor() }).catch(
			(e: unknown) => e,
		);
		expect(err).toBeInstanceOf(ModelCallError);
		expect((err as ModelCallError).kind).toBe('fatal');
		expect((err as ModelCallError).message).not.toContain('sk-secret-1');
		expect((err as ModelCallError).cost).toMatchObject({ attempts: 1, model: 'emb' });
	});

	it('retries a server error through the governor', async () => {
		server.scriptEmbeddings(faults.serverError());
		const r = await embedTexts(['x y'], {
			source: source(),
			governor: new Governor({ backoffBaseMs: 1, backoffMaxMs: 2 }),
		});
		expect(r.cost.attempts).toBe(2);
		expect(server.embeddingRequests()).toHaveLength(2);
	});

	it('on Azure OpenAI the embedding model is the deployment called', async () => {
		const azure = createOpenAIEmbeddingSource(
			{
				provider: 'azure',
				azureEndpoint: server.url,
				azureDeployment: 'chat-deployment',
				apiKey: 'k',
				model: 'chat-deployment',
			},
			'embed-deployment',
		);
		const r = await embedTexts(['x'], { source: azure, governor: new Governor() });
		expect(r.vectors).toHaveLength(1);
		expect(server.embeddingRequests()[0].path).toBe(
			'/openai/deployments/embed-deployment/embeddings',
		);
		expect(azure.key).toMatch(/^azure:.*\/embed-deployment\|embed-deployment$/);
	});
});
