/**
 * The judge verdict cache: re-runs of unchanged rows answer from the cache instead of the model.
 * The key is a SHA-256 of the request as it leaves (endpoint, the model called and every setting
 * sent, as the source says: `ModelSource.sentSettings`), the response mode, the judge, its output
 * schema, prompt templates and params, and the canonical input values; it never holds the
 * per-call nonce or the API key, and inputs are only hashed. The value is the verdict, its
 * reason and details, the model that answered, the HTTP calls and usage it cost, and when.
 * Stores: files on disk (./diskStore.ts: integrity-checked reads, so a corrupt entry is detected;
 * expiry swept by the hour it falls in) and Redis (`ioredis`) so n8n queue-mode workers share hits. A broken store never fails a row: the judge
 * is called and the Score says the cache was skipped (`details.cache.skipped`).
 */
import IORedis from 'ioredis';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { okScore, type ScoreBase } from '../core/score';
import type { CacheInfo, CacheStoreKind } from '../core/usage';
import type { Score } from '../core/types';
import { DiskStore, SWEEP_INTERVAL_MS, sweepDiskStore } from './diskStore';
import { storeErrorText } from './errors';
import { TOP_LOGPROBS, weightable } from './logprobs';
import { byTemplates } from './prompt';
import type { ModelSource, RequestSettings } from './model';
import type { BareCall, JudgeDecl, JudgePrompt } from './types';

export { diskSweepsDone, sweepDiskStore, type SweepResult } from './diskStore';
export {
	cacheInfoOf,
	foldCacheInfo,
	foldCacheInfos,
	type CacheInfo,
	type CacheStoreKind,
} from '../core/usage';

/**
 * The call settings a key is made of (a judge context has them all). Named here rather than
 * imported, so the cache depends on nothing that calls it.
 */
export interface CallSettings {
	source: Pick<
		ModelSource,
		| 'key'
		| 'defaultModel'
		| 'supportsResponseFormat'
		| 'endpoint'
		| 'sentSettings'
		| 'earlierCacheKeys'
	>;
	model?: string;
	temperature?: number;
	seed?: number;
	maxTokens?: number;
	/** `weighted`: rating judges ask for log-probabilities and store the weighted score. */
	scoreFrom?: 'sampled' | 'weighted';
	/** A repeated sample's number: each sample is its own cache entry. */
	sample?: number;
}

/** A raw key-value store under the verdict cache; every method may throw (the cache catches). */
export interface CacheBackend {
	readonly kind: CacheStoreKind;
	/** Where it lives, for messages: a folder or `host:port/db` (never a password). */
	readonly location: string;
	get(key: string): Promise<string | null>;
	set(key: string, value: string, ttlMs: number): Promise<void>;
	remove(key: string): Promise<void>;
	close(): Promise<void>;
}

/** The stored entry's format (unchanged since the first key format: old entries still parse). */
const CACHE_FORMAT = 'rag-eval-verdict/1';
/** The key's format: the request as sent (the first format, `CACHE_FORMAT`'s, is read on a miss). */
const KEY_FORMAT = 'rag-eval-verdict-key/2';
/** Default time to live of a verdict: 7 days. */
export const DEFAULT_CACHE_TTL_MS = 7 * 24 * 3600 * 1000;

const usageSchema = z.object({
	promptTokens: z.number().int().nonnegative(),
	completionTokens: z.number().int().nonnegative(),
	totalTokens: z.number().int().nonnegative(),
});
const entrySchema = z.object({
	format: z.literal(CACHE_FORMAT),
	key: z.string(),
	value: z.union([z.number().finite(), z.boolean()]),
	reason: z.string().optional(),
	details: z.record(z.unknown()).optional(),
	usage: usageSchema.optional(),
	model: z.string().optional(),
	attempts: z.number().int().nonnegative(),
	latencyMs: z.number().nonnegative().optional(),
	storedAt: z.number().int().nonnegative(),
});
type CacheEntry = z.infer<typeof entrySchema>;

type Lookup =
	| { kind: 'hit'; entry: CacheEntry }
	| { kind: 'miss' }
	| { kind: 'skipped'; why: string };

/**
 * The entry stored under `key`, as both caches (verdicts, vectors) read their store: `parse` turns
 * the stored JSON into an entry, or undefined when it is not one of this key's (corrupt, another
 * format); such an entry is removed and skipped with `redo` said ("judged again"), an expired one
 * removed and a miss, and a store that cannot be read a skipped reason naming it. Never throws.
 */
export async function readStoreEntry<T extends { storedAt: number }>(
	backend: CacheBackend,
	key: string,
	rules: {
		ttlMs: number;
		now: () => number;
		parse: (json: unknown) => T | undefined;
		/** What an entry is, for the reason: "a verdict", "a vector". */
		what: string;
		redo: string;
	},
): Promise<{ kind: 'hit'; entry: T } | { kind: 'miss' } | { kind: 'skipped'; why: string }> {
	const forget = async (): Promise<void> => {
		try {
			await backend.remove(key);
		} catch {
			// Best effort: the next write replaces the entry anyway.
		}
	};
	let raw: string | null;
	try {
		raw = await backend.get(key);
	} catch (e) {
		const code = (e as { code?: unknown })?.code;
		if (code === 'EINTEGRITY' || code === 'EBADSIZE') {
			await forget();
			return { kind: 'skipped', why: `corrupt cache entry (${String(code)}), ${rules.redo}` };
		}
		return {
			kind: 'skipped',
			why: `${backend.kind} cache unreadable at ${backend.location}: ${storeErrorText(e)}`,
		};
	}
	if (raw === null) return { kind: 'miss' };
	let entry: T | undefined;
	try {
		entry = rules.parse(JSON.parse(raw));
	} catch {
		entry = undefined;
	}
	if (!entry) {
		await forget();
		return { kind: 'skipped', why: `corrupt cache entry (not ${rules.what}), ${rules.redo}` };
	}
	if (rules.ttlMs > 0 && rules.now() - entry.storedAt > rules.ttlMs) {
		await forget();
		return { kind: 'miss' };
	}
	return { kind: 'hit', entry };
}

/**
 * Verdicts in one store with one time to live. Lookups and writes never throw: a broken store
 * turns into a `skipped` reason on the row.
 */
export class VerdictCache {
	constructor(
		readonly backend: CacheBackend,
		/** Entries older than this are misses; 0 keeps them forever. */
		readonly ttlMs: number = DEFAULT_CACHE_TTL_MS,
		private readonly now: () => number = Date.now,
	) {}

	/** The store kind, for `details.cache.store`. */
	get store(): CacheStoreKind {
		return this.backend.kind;
	}

	/** A cached verdict, a miss (absent or expired), or why the cache could not be read. */
	async lookup(key: string): Promise<Lookup> {
		return readStoreEntry(this.backend, key, {
			ttlMs: this.ttlMs,
			now: this.now,
			parse: (json) => {
				const r = entrySchema.safeParse(json);
				return r.success && r.data.key === key ? r.data : undefined;
			},
			what: 'a verdict',
			redo: 'judged again',
		});
	}

	/**
	 * Stores a verdict found under an earlier key format under its current key, as it was (same
	 * stored-at, so it expires when it would have); best effort, a failure only costs a lookup.
	 */
	async adopt(entry: CacheEntry, key: string): Promise<void> {
		const ttl = this.ttlMs > 0 ? Math.max(1, this.ttlMs - (this.now() - entry.storedAt)) : 0;
		try {
			await this.backend.set(key, JSON.stringify({ ...entry, key }), ttl);
		} catch {
			// The earlier key keeps answering until it expires.
		}
	}

	/** Stores an ok verdict; returns why it could not be stored, or null. */
	async save(key: string, score: Score): Promise<string | null> {
		if (score.status !== 'ok' || score.value === null) return null;
		const entry: CacheEntry = {
			format: CACHE_FORMAT,
			key,
			value: score.value,
			reason: score.reason,
			details: score.details,
			usage: score.usage,
			model: score.model,
			attempts: score.attempts ?? 0,
			latencyMs: score.latencyMs,
			storedAt: this.now(),
		};
		try {
			await this.backend.set(key, JSON.stringify(entry), this.ttlMs);
			return null;
		} catch (e) {
			return `${this.backend.kind} cache not writable at ${this.backend.location}: ${storeErrorText(e)}`;
		}
	}

	/** Releases the store (the Redis connection). */
	async close(): Promise<void> {
		try {
			await this.backend.close();
		} catch {
			// Closing a broken connection has nothing left to lose.
		}
	}
}

/** JSON with object keys sorted at every level, `undefined` dropped: one text per value. */
export function canonicalJson(v: unknown): string {
	return canonical(v, undefined, '');
}

/** {@link canonicalJson}, with the object `swap` (when given) written as the string `as`. */
function canonical(v: unknown, swap: object | undefined, as: string): string {
	if (v === undefined) return 'null';
	if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
	if (v === swap) return JSON.stringify(as);
	if (Array.isArray(v)) return `[${v.map((x) => canonical(x, swap, as)).join(',')}]`;
	const obj = v as Record<string, unknown>;
	const keys = Object.keys(obj)
		.filter((k) => obj[k] !== undefined)
		.sort();
	return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k], swap, as)}`).join(',')}}`;
}

function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

/** The keys of one call: the one it is stored under, and earlier formats' naming the same request. */
export interface VerdictKey {
	key: string;
	/**
	 * Keys of the first format that still mean this request, read in order on a miss: built only
	 * then, so a run of hits pays nothing for them.
	 */
	earlier(): string[];
}

// A node's rows share their judge's schema and prompt: each is hashed once, not once per call.
const schemaHashes = new WeakMap<object, string>();
const promptKeys = new Map<string, Map<string, string>>();

function schemaHash(schema: Record<string, unknown>): string {
	let h = schemaHashes.get(schema);
	if (h === undefined) schemaHashes.set(schema, (h = sha256(canonicalJson(schema))));
	return h;
}

/**
 * The request part of a cache key, one function for every source: where the call goes (provider
 * and endpoint, without the model), the response mode (it decides the format instructions in the
 * messages) and the hash of what the source says it sends besides the messages (the model called
 * and each setting as sent). A source that does not say is taken to send the request's model,
 * temperature, seed, max tokens and schema.
 */
export function requestIdentity(
	source: CallSettings['source'],
	request: RequestSettings,
): { endpoint: string; mode: string; sent: string } {
	const sent = source.sentSettings
		? source.sentSettings(request)
		: {
				model: request.model ?? source.defaultModel,
				temperature: request.temperature,
				seed: request.seed,
				maxTokens: request.maxTokens,
				jsonSchema: request.mode === 'json_schema' ? request.jsonSchema : undefined,
			};
	// The output schema travels in every structured request: canonicalised once per judge, not per
	// call, and written here as its hash.
	const schema = request.jsonSchema?.schema;
	const schemaText = schema ? `schema:sha256:${schemaHash(schema)}` : '';
	return {
		endpoint: source.endpoint ?? source.key,
		mode: request.mode,
		sent: sha256(canonical(sent, schema, schemaText)),
	};
}

/**
 * What a structured call of `decl` sends besides its messages, in `mode`: ./single.ts sends this,
 * and the key is built from it at the mode the output ladder starts from.
 */
export function structuredSettings(
	decl: JudgeDecl,
	ctx: CallSettings,
	mode: RequestSettings['mode'],
): RequestSettings {
	return {
		mode,
		jsonSchema:
			mode === 'json_schema'
				? { name: decl.output.name, schema: decl.output.jsonSchema }
				: undefined,
		model: ctx.model,
		temperature: ctx.temperature ?? 0,
		seed: ctx.seed,
		maxTokens: ctx.maxTokens,
		...(weightedFor(decl, ctx) ? { topLogprobs: TOP_LOGPROBS } : {}),
	};
}

/** Whether a call of `decl` scores by probability: asked for, and a rating scale. */
export function weightedFor(decl: Pick<JudgeDecl, 'scale'>, ctx: Pick<CallSettings, 'scoreFrom'>) {
	return ctx.scoreFrom === 'weighted' && weightable(decl.scale);
}

/**
 * The first request of a structured call: the mode the output ladder starts from (a fallback from
 * there is decided by the same endpoint and settings), the node's model, temperature (default 0),
 * seed and max tokens.
 */
function structuredRequest(decl: JudgeDecl, ctx: CallSettings): RequestSettings {
	return structuredSettings(decl, ctx, ctx.source.supportsResponseFormat ? 'json_schema' : 'text');
}

/** A bare call's request, as ./fanout.ts sends it: text, temperature 0, the call's own max tokens. */
export function bareRequest(bare: BareCall, ctx: CallSettings): RequestSettings {
	return {
		mode: 'text',
		model: ctx.model,
		temperature: 0,
		seed: ctx.seed,
		maxTokens: bare.maxTokens,
	};
}

/**
 * The call part of the first key format, for each earlier source key that still names this
 * request: the source key of its day, the model, the node's temperature, seed and max tokens and
 * the mode. Only sources that send exactly those (the credential's) name any.
 */
function earlierCalls(ctx: CallSettings, request: RequestSettings, mode: string): unknown[] {
	const keys = ctx.source.earlierCacheKeys?.(ctx.model) ?? [];
	return keys.map((endpoint) => ({
		endpoint,
		model: ctx.model ?? ctx.source.defaultModel,
		temperature: request.temperature,
		seed: request.seed ?? null,
		maxTokens: request.maxTokens ?? null,
		responseMode: mode,
	}));
}

function keyOf(parts: Record<string, unknown>): string {
	return `verdict:${sha256(canonicalJson(parts))}`;
}

/** The cache keys of one structured judge call: `verdict:<sha256>` of its canonical parts. */
export function verdictKey(
	decl: JudgeDecl,
	prompt: JudgePrompt,
	values: Record<string, unknown>,
	params: Record<string, unknown>,
	ctx: CallSettings,
): VerdictKey {
	const inputs: Record<string, unknown> = {};
	for (const i of decl.inputs) inputs[i.name] = values[i.name];
	const request = structuredRequest(decl, ctx);
	const rest = {
		judge: `${decl.id}@${decl.version}`,
		output: { name: decl.output.name, schema: schemaHash(decl.output.jsonSchema) },
		prompt: byTemplates(promptKeys, prompt, () => sha256(canonicalJson(prompt))),
		params: sha256(canonicalJson(params)),
		inputs: sha256(canonicalJson(inputs)),
		// Absent unless used, so the keys of sampled single calls stay what they were.
		...(weightedFor(decl, ctx) ? { scoreFrom: 'weighted' } : {}),
		...(ctx.sample !== undefined ? { sample: ctx.sample } : {}),
	};
	return {
		key: keyOf({ format: KEY_FORMAT, call: requestIdentity(ctx.source, request), ...rest }),
		earlier: () =>
			earlierCalls(ctx, request, request.mode).map((call) =>
				keyOf({ format: CACHE_FORMAT, call, ...rest }),
			),
	};
}

/** The cache keys of one bare (MiniCheck) call: its whole prompt is hashed. */
export function bareKey(decl: JudgeDecl, bare: BareCall, ctx: CallSettings): VerdictKey {
	const request = bareRequest(bare, ctx);
	const rest = { judge: `${decl.id}@${decl.version}`, prompt: sha256(bare.user) };
	return {
		key: keyOf({ format: KEY_FORMAT, call: requestIdentity(ctx.source, request), ...rest }),
		earlier: () =>
			earlierCalls(ctx, request, 'bare').map((call) =>
				keyOf({ format: CACHE_FORMAT, call, ...rest }),
			),
	};
}

function info(cache: VerdictCache, hit: boolean, extra: Partial<CacheInfo> = {}): CacheInfo {
	return {
		store: cache.store,
		hit,
		hits: hit ? 1 : 0,
		misses: hit ? 0 : 1,
		savedCalls: 0,
		...extra,
	};
}

function scoreFromEntry(
	entry: CacheEntry,
	cache: VerdictCache,
	base: (model: string) => ScoreBase,
	started: number,
): Score {
	const model = entry.model ?? 'unknown';
	const cacheInfo = info(cache, true, { savedCalls: entry.attempts, savedUsage: entry.usage });
	const score = okScore(base(model), entry.value, {
		reason: entry.reason,
		usage: entry.usage,
		model,
		// This run's time (the lookup); the original judging time is in details.cache.
		latencyMs: Date.now() - started,
		attempts: 0,
		details: {
			...(entry.details ?? {}),
			cache: {
				...cacheInfo,
				storedAt: new Date(entry.storedAt).toISOString(),
				originalLatencyMs: entry.latencyMs,
			},
		},
	});
	if (score.status === 'ok') score.cached = true;
	return score;
}

/**
 * One model call behind the cache: the verdict stored under `key` (or, on a miss, under one of its
 * earlier keys), else `call()`, whose ok verdict is stored under `key`. Wraps the call only:
 * reading the row and deciding whether a call is needed happen before. Deterministic answers
 * (`details.fixedResult`) are neither stored nor marked.
 */
export async function cachedCall(
	cache: VerdictCache,
	keys: string | VerdictKey,
	base: (model: string) => ScoreBase,
	call: () => Promise<Score>,
): Promise<Score> {
	const started = Date.now();
	const key = typeof keys === 'string' ? keys : keys.key;
	let found = await cache.lookup(key);
	// A verdict stored under an earlier key format that names the same request is still this
	// call's: read it, and store it under the current key so the next run finds it at once.
	if (found.kind === 'miss' && typeof keys !== 'string') {
		for (const earlier of keys.earlier()) {
			found = await cache.lookup(earlier);
			if (found.kind !== 'miss') break;
		}
		if (found.kind === 'hit') await cache.adopt(found.entry, key);
	}
	if (found.kind === 'hit') return scoreFromEntry(found.entry, cache, base, started);
	const score = await call();
	// A deterministic answer (fixedResult) costs nothing and is not cached.
	const fixed = score.details?.fixedResult === true;
	let skipped = found.kind === 'skipped' ? found.why : undefined;
	// The first problem is the one to report: an unreachable store fails the read before the write.
	if (score.status === 'ok' && !fixed) {
		const unsaved = await cache.save(key, score);
		skipped ??= unsaved ?? undefined;
	}
	if (score.status !== 'not_applicable' && !fixed) {
		score.details = {
			...(score.details ?? {}),
			cache: info(cache, false, skipped ? { skipped } : {}),
		};
	}
	return score;
}

/** Where the disk cache lives by default: `<N8N_USER_FOLDER or home>/.n8n/rag-eval-cache`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
	const explicit = env.RAG_EVAL_CACHE_DIR;
	if (explicit && explicit.trim() !== '') return explicit.trim();
	const user = env.N8N_USER_FOLDER && env.N8N_USER_FOLDER.trim() !== '' ? env.N8N_USER_FOLDER : '';
	return join(user || homedir(), '.n8n', 'rag-eval-cache');
}

/**
 * Sweeps out of the disk store in `dir` the verdicts older than `ttlMs`, reading only the hours
 * that expired (./diskStore.ts), when the folder's last sweep is older than `intervalMs` (an
 * hour). Returns whether it swept. A disk store starts one itself when it is closed, in the
 * background; this is for a schedule of one's own.
 */
export async function pruneDiskCache(
	dir: string,
	ttlMs: number,
	intervalMs = SWEEP_INTERVAL_MS,
	now: () => number = Date.now,
): Promise<boolean> {
	return (await sweepDiskStore(dir, ttlMs, { intervalMs, now })) !== undefined;
}

/**
 * A disk store in `dir`: one file per verdict, integrity-checked on every read, written
 * atomically, safe for concurrent processes. With `ttlMs`, closing it starts a sweep of expired
 * verdicts in the background (at most once an hour per folder; it reads only the hours that
 * expired), so the folder stays bounded and no row waits for it.
 */
export function diskBackend(
	dir: string,
	ttlMs = 0,
	opts: { now?: () => number; sync?: boolean } = {},
): CacheBackend {
	const store = new DiskStore(dir, { ttlMs, now: opts.now, sync: opts.sync });
	return {
		kind: 'disk',
		location: dir,
		get: (key) => store.get(key),
		set: (key, value) => store.set(key, value),
		remove: (key) => store.remove(key),
		close: () => store.close(),
	};
}

/** Redis connection settings (n8n's queue settings or an explicit URL). */
export interface RedisSettings {
	url?: string;
	host?: string;
	port?: number;
	db?: number;
	username?: string;
	password?: string;
	tls?: boolean;
	/** Key prefix; default `n8n-rag-eval:`. */
	prefix?: string;
	/** Connect and command timeout; default 2000 ms. */
	timeoutMs?: number;
}

/**
 * Redis settings from the environment: `RAG_EVAL_CACHE_REDIS_URL` when set, else n8n's queue
 * Redis (`QUEUE_BULL_REDIS_HOST/PORT/DB/USERNAME/PASSWORD/TLS`) when n8n runs in queue mode
 * (`EXECUTIONS_MODE=queue`) or `force` is set; undefined otherwise.
 */
export function redisSettingsFromEnv(
	env: NodeJS.ProcessEnv = process.env,
	force = false,
): RedisSettings | undefined {
	const url = env.RAG_EVAL_CACHE_REDIS_URL;
	if (url && url.trim() !== '') return { url: url.trim() };
	if (env.EXECUTIONS_MODE !== 'queue' && !force) return undefined;
	const int = (v: string | undefined, d: number): number => {
		const n = Number(v);
		return v !== undefined && v.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : d;
	};
	return {
		host: env.QUEUE_BULL_REDIS_HOST || 'localhost',
		port: int(env.QUEUE_BULL_REDIS_PORT, 6379),
		db: int(env.QUEUE_BULL_REDIS_DB, 0),
		username: env.QUEUE_BULL_REDIS_USERNAME || undefined,
		password: env.QUEUE_BULL_REDIS_PASSWORD || undefined,
		tls: env.QUEUE_BULL_REDIS_TLS === 'true',
	};
}

/**
 * A Redis store. It connects once, fails fast (no offline queue, no reconnect loop) and every
 * entry carries the TTL as a Redis expiry, so the shared store never grows without bound.
 */
export function redisBackend(settings: RedisSettings): CacheBackend {
	const timeout = settings.timeoutMs ?? 2000;
	const common = {
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		connectTimeout: timeout,
		commandTimeout: timeout,
		retryStrategy: () => null,
		keyPrefix: settings.prefix ?? 'n8n-rag-eval:',
	};
	const client = settings.url
		? new IORedis(settings.url, common)
		: new IORedis({
				...common,
				host: settings.host,
				port: settings.port,
				db: settings.db,
				username: settings.username,
				password: settings.password,
				tls: settings.tls ? {} : undefined,
			});
	// Without a listener ioredis prints every connection error; the rows report them instead.
	client.on('error', () => undefined);
	let location = `${settings.host ?? 'localhost'}:${settings.port ?? 6379}/${settings.db ?? 0}`;
	if (settings.url) {
		try {
			const u = new URL(settings.url);
			location = `${u.hostname}:${u.port || 6379}${u.pathname && u.pathname !== '/' ? u.pathname : '/0'}`;
		} catch {
			location = 'the configured Redis URL';
		}
	}
	let connecting: Promise<void> | undefined;
	const ready = (): Promise<void> => (connecting ??= client.connect());
	return {
		kind: 'redis',
		location,
		async get(key) {
			await ready();
			return client.get(key);
		},
		async set(key, value, ttlMs) {
			await ready();
			if (ttlMs > 0) await client.set(key, value, 'PX', Math.ceil(ttlMs));
			else await client.set(key, value);
		},
		async remove(key) {
			await ready();
			await client.del(key);
		},
		async close() {
			if (client.status === 'ready') await client.quit();
			else client.disconnect();
		},
	};
}

/** How a node asks for its cache. */
export interface CacheOptions {
	enabled: boolean;
	/** `auto`: Redis in queue mode or with an explicit URL, the disk otherwise. */
	store: 'auto' | 'disk' | 'redis';
	ttlMs: number;
	/** Disk folder; default {@link defaultCacheDir}. */
	dir?: string;
}

/** The verdict cache a node asked for, or undefined when it is switched off. */
export function openVerdictCache(
	opts: CacheOptions,
	env: NodeJS.ProcessEnv = process.env,
): VerdictCache | undefined {
	if (!opts.enabled) return undefined;
	const redis =
		opts.store === 'disk' ? undefined : redisSettingsFromEnv(env, opts.store === 'redis');
	const backend = redis
		? redisBackend(redis)
		: diskBackend(
				opts.dir && opts.dir.trim() !== '' ? opts.dir.trim() : defaultCacheDir(env),
				opts.ttlMs,
			);
	return new VerdictCache(backend, opts.ttlMs);
}
