/**
 * The disk store's expiry, in a temporary folder with an injected clock: a sweep deletes the
 * verdicts past the TTL and keeps the fresh ones, reads only the hours that expired (never a fresh
 * entry), keeps an entry stored again since, runs at most once an hour and never two at once, and
 * starts by itself, unawaited, when a cache is closed. A broken folder never fails a row. Verdicts
 * of the earlier cacache layout are still read (and moved) until one TTL after the first sweep saw
 * them, then deleted.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cacache from 'cacache';
import {
	diskBackend,
	diskSweepsDone,
	sweepDiskStore,
	VerdictCache,
	type CacheInfo,
} from '../../../src/judges/cache';
import { DiskStore } from '../../../src/judges/diskStore';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import { runJudges } from '../../../src/judges/run';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 1, 10, 30);

function listFiles(dir: string): string[] {
	if (!fs.existsSync(dir)) return [];
	const out: string[] = [];
	for (const name of fs.readdirSync(dir)) {
		const p = join(dir, name);
		if (fs.statSync(p).isDirectory()) out.push(...listFiles(p));
		else out.push(p);
	}
	return out;
}

const entryFiles = (dir: string) => listFiles(join(dir, 'verdicts-v2'));
const hourLists = (dir: string) => listFiles(join(dir, 'expiry-v2'));

describe('disk store expiry', () => {
	let dir: string;
	let clock: number;
	const now = () => clock;
	beforeEach(() => {
		dir = fs.mkdtempSync(join(tmpdir(), 'verdict-sweep-'));
		clock = T0;
	});
	afterEach(async () => {
		await diskSweepsDone();
		jest.restoreAllMocks();
	});

	async function store(keys: string[], at: number): Promise<void> {
		clock = at;
		const b = diskBackend(dir, 0, { now });
		for (const k of keys) await b.set(k, `{"v":"${k}"}`, 0);
		await b.close();
	}

	it('deletes what expired, keeps what is fresh, and reads only the expired hours', async () => {
		const old = Array.from({ length: 30 }, (_, i) => `verdict:old-${i}`);
		const fresh = Array.from({ length: 20 }, (_, i) => `verdict:fresh-${i}`);
		await store(old, T0);
		await store(fresh, T0 + 3 * DAY);
		expect(entryFiles(dir)).toHaveLength(50);
		expect(hourLists(dir)).toHaveLength(2);

		const reads: string[] = [];
		// The module object itself (the namespace import's properties cannot be redefined).
		const nodeFs = jest.requireActual<typeof fs>('node:fs');
		const readFile = nodeFs.readFile;
		jest.spyOn(nodeFs, 'readFile').mockImplementation(((...args: unknown[]) => {
			reads.push(String(args[0]));
			return (readFile as (...a: unknown[]) => void)(...args);
		}) as typeof fs.readFile);
		const result = await sweepDiskStore(dir, 2 * DAY, { now: () => T0 + 3 * DAY + HOUR });
		expect(result).toEqual({ hours: 1, removed: 30, kept: 0, legacyRemoved: false });
		// Thirty expired entries and one hour list read; no fresh entry, no fresh hour.
		expect(reads.filter((p) => p.includes('verdicts-v2'))).toHaveLength(30);
		expect(reads.filter((p) => p.includes('expiry-v2'))).toHaveLength(1);

		expect(entryFiles(dir)).toHaveLength(20);
		expect(hourLists(dir)).toHaveLength(1);
		clock = T0 + 3 * DAY + HOUR;
		const b = diskBackend(dir, 0, { now });
		for (const k of fresh) expect(await b.get(k)).toBe(`{"v":"${k}"}`);
		for (const k of old) expect(await b.get(k)).toBeNull();
	});

	it('an hour is swept only once its last entry is past the TTL; an entry stored again is kept', async () => {
		await store(['verdict:a', 'verdict:b'], T0);
		// Within the hour's last minute plus the TTL: not yet.
		expect(await sweepDiskStore(dir, DAY, { now: () => T0 + DAY + 20 * 60_000 })).toEqual({
			hours: 0,
			removed: 0,
			kept: 0,
			legacyRemoved: false,
		});
		expect(entryFiles(dir)).toHaveLength(2);
		// b is judged again two days later: its entry is fresh although its first hour expired.
		await store(['verdict:b'], T0 + 2 * DAY);
		const result = await sweepDiskStore(dir, DAY, {
			now: () => T0 + 2 * DAY + 10 * 60_000,
			intervalMs: 0,
		});
		expect(result).toMatchObject({ hours: 1, removed: 1, kept: 1 });
		const b = diskBackend(dir, 0, { now });
		expect(await b.get('verdict:a')).toBeNull();
		expect(await b.get('verdict:b')).toBe('{"v":"verdict:b"}');
	});

	it('sweeps at most once an hour per folder, and never while another process holds the lock', async () => {
		await store(['verdict:a'], T0);
		const at = T0 + 2 * DAY;
		expect(await sweepDiskStore(dir, DAY, { now: () => at })).toMatchObject({ removed: 1 });
		await store(['verdict:c'], T0);
		expect(await sweepDiskStore(dir, DAY, { now: () => at + 30 * 60_000 })).toBeUndefined();
		// A live lock (fresh mtime) stops a sweep; a stale one is taken over.
		fs.writeFileSync(join(dir, 'sweep-v2.lock'), '');
		expect(await sweepDiskStore(dir, DAY, { now: () => Date.now(), intervalMs: 0 })).toBe(
			undefined,
		);
		const old = new Date(Date.now() - 11 * 60_000);
		fs.utimesSync(join(dir, 'sweep-v2.lock'), old, old);
		expect(await sweepDiskStore(dir, DAY, { now: () => Date.now(), intervalMs: 0 })).toMatchObject({
			removed: 1,
		});
		expect(fs.existsSync(join(dir, 'sweep-v2.lock'))).toBe(false);
	});

	it('closing a cache starts the sweep without waiting for it; TTL 0 never sweeps', async () => {
		await store(['verdict:a', 'verdict:b'], T0);
		clock = T0 + 3 * DAY;
		const cache = new VerdictCache(diskBackend(dir, DAY, { now }), DAY, now);
		await cache.close();
		await diskSweepsDone();
		expect(entryFiles(dir)).toHaveLength(0);
		expect(hourLists(dir)).toHaveLength(0);

		await store(['verdict:c'], T0);
		clock = T0 + 30 * DAY;
		await new VerdictCache(diskBackend(dir, 0, { now }), 0, now).close();
		await diskSweepsDone();
		expect(entryFiles(dir)).toHaveLength(1);
	});

	it('junk in the folder never throws: unreadable lists are skipped, damaged entries in expired hours go', async () => {
		await store(['verdict:a'], T0);
		const [entry] = entryFiles(dir);
		fs.writeFileSync(entry, 'not a header');
		fs.writeFileSync(join(dir, 'expiry-v2', 'not-an-hour'), 'x');
		fs.mkdirSync(join(dir, 'expiry-v2', '12'));
		fs.appendFileSync(hourLists(dir).find((f) => /\d{6}$/.test(f)) as string, 'junk\n../x\n');
		const result = await sweepDiskStore(dir, DAY, { now: () => T0 + 2 * DAY });
		expect(result).toMatchObject({ removed: 1 });
		expect(entryFiles(dir)).toHaveLength(0);
	});
});

describe('synchronous and asynchronous file operations', () => {
	afterEach(() => jest.restoreAllMocks());

	it('store and read the same entries either way', async () => {
		const dir = fs.mkdtempSync(join(tmpdir(), 'verdict-io-'));
		const sync = diskBackend(dir, 0, { sync: true });
		const async = diskBackend(dir, 0, { sync: false });
		await sync.set('verdict:s', 'from sync', 0);
		await async.set('verdict:a', 'from async', 0);
		expect(await async.get('verdict:s')).toBe('from sync');
		expect(await sync.get('verdict:a')).toBe('from async');
		expect(await sync.get('verdict:none')).toBeNull();
		expect(await async.get('verdict:none')).toBeNull();
		await sync.close();
		await async.close();
		// Both names are in the hour's list.
		expect(fs.readFileSync(hourLists(dir)[0], 'utf8').trim().split('\n')).toHaveLength(2);
	});

	it('one slow synchronous operation turns the store asynchronous for good', async () => {
		const dir = fs.mkdtempSync(join(tmpdir(), 'verdict-slow-'));
		const store = new DiskStore(dir);
		await store.set('verdict:a', 'x');
		expect(store.sync).toBe(true);
		let t = 0;
		// A disk that takes 50 ms a call, as the clock around the call sees it.
		jest.spyOn(performance, 'now').mockImplementation(() => (t += 50));
		expect(await store.get('verdict:a')).toBe('x');
		expect(store.sync).toBe(false);
		jest.restoreAllMocks();
		await store.set('verdict:b', 'y');
		expect(await store.get('verdict:b')).toBe('y');
		expect(store.sync).toBe(false);
		await store.close();
	});
});

describe('a broken disk store never fails a row', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(() => ({ json: { reason: 'Stated.', score: 4 } }));
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
		await diskSweepsDone();
	});

	it('hour lists that cannot be written: every row judged, the rows say the cache was not written', async () => {
		const dir = fs.mkdtempSync(join(tmpdir(), 'verdict-broken-'));
		fs.writeFileSync(join(dir, 'expiry-v2'), 'a file where the folder should be');
		const cache = new VerdictCache(diskBackend(dir, DAY), DAY);
		const source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
		const rows = [1, 2, 3].map((i) => ({
			request: `Q${i}?`,
			response: `A${i}.`,
			retrieved_context: [{ content: `A${i}.` }],
		}));
		const scores = await runJudges(groundedness, rows, {
			source,
			governor: new Governor({ maxRetries: 0 }),
			cache,
		});
		await cache.close();
		for (const s of scores) {
			expect(s).toMatchObject({ status: 'ok', value: 4, attempts: 1 });
			expect((s.details?.cache as CacheInfo).skipped).toMatch(/disk cache not writable/);
		}
		expect(server.chatRequests()).toHaveLength(3);
	});
});

describe('the earlier cacache layout', () => {
	afterEach(() => diskSweepsDone());

	it('is read (and moved) on a miss until one TTL after the first sweep saw it, then deleted', async () => {
		const dir = fs.mkdtempSync(join(tmpdir(), 'verdict-legacy-'));
		const key = 'verdict:legacy';
		const entry = {
			format: 'rag-eval-verdict/1',
			key,
			value: 4,
			reason: 'from the old layout',
			attempts: 1,
			storedAt: T0,
		};
		await cacache.put(dir, key, JSON.stringify(entry));
		await cacache.put(dir, 'verdict:unused', JSON.stringify({ ...entry, key: 'verdict:unused' }));
		let clock = T0 + HOUR;
		const now = () => clock;
		const cache = new VerdictCache(diskBackend(dir, 7 * DAY, { now }), 7 * DAY, now);
		const found = await cache.lookup(key);
		expect(found).toMatchObject({
			kind: 'hit',
			entry: { value: 4, reason: 'from the old layout' },
		});
		expect(entryFiles(dir)).toHaveLength(1);
		await cache.close();
		await diskSweepsDone();
		expect(fs.existsSync(join(dir, 'index-v5'))).toBe(true);
		// Seven days after the first sweep saw it, every old verdict is past the TTL.
		clock = T0 + HOUR + 7 * DAY;
		expect(await sweepDiskStore(dir, 7 * DAY, { now })).toMatchObject({ legacyRemoved: true });
		for (const d of ['index-v5', 'content-v2']) expect(fs.existsSync(join(dir, d))).toBe(false);
		// The moved verdict lives on in the new layout until its own hour expires.
		expect(entryFiles(dir)).toHaveLength(1);
	});
});
