import {
	defaultBaseUrl,
	N8nApiClient,
	N8nApiError,
	normaliseBaseUrl,
	readExecutions,
	type ReadOptions,
} from '../../../src/executions';
import { agentExecution, createN8nApiServer, type FakeN8nApi } from '../../support/n8n-api-server';

const KEY = 'n8n_api_0123456789abcdef-secret';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const MIN = 60_000;

/** 600 executions of wf-agent, one a minute up to NOW; every 7th failed. */
function executions(n = 600) {
	return Array.from({ length: n }, (_, i) =>
		agentExecution(i + 1, {
			workflowId: 'wf-agent',
			startedMs: NOW - (n - i) * MIN,
			status: (i + 1) % 7 === 0 ? 'error' : 'success',
		}),
	);
}

let api: FakeN8nApi;
let url: string;
beforeAll(async () => {
	api = createN8nApiServer({
		apiKey: KEY,
		workflows: [{ id: 'wf-agent', name: 'Shop assistant' }],
		executions: executions(),
	});
	url = await api.listen();
});
afterAll(() => api.close());
beforeEach(() => {
	api.stats.paths.length = 0;
	api.stats.listRequests = 0;
	api.faults.failPage = 0;
	api.faults.noData.clear();
	api.faults.prunedOnRead.clear();
});

const base = (o: Partial<ReadOptions> = {}): ReadOptions => ({
	workflowId: 'wf-agent',
	statuses: ['success', 'error'],
	window: 'all',
	hours: 24,
	sampling: { mode: 'all' },
	maxExecutions: 10_000,
	convert: { instance: 'http://n8n.local' },
	now: new Date(NOW),
	...o,
});
const client = (key = KEY): N8nApiClient => new N8nApiClient({ baseUrl: url, apiKey: key });
const ids = (rows: Record<string, unknown>[]): string[] =>
	rows.map((r) => String((r.metadata as Record<string, unknown>).execution_id));

describe('readExecutions against the local n8n API', () => {
	it('pages through everything with the cursor, 250 a page, oldest row first', async () => {
		const r = await readExecutions(client(), base());
		expect(r.stats.pages).toBe(3);
		expect(r.rows.length).toBe(600);
		expect(ids(r.rows).slice(0, 3)).toEqual(['1', '2', '3']);
		expect(r.stats.newest_id).toBe('600');
		expect(r.stats.stopped_at).toBe('end');
		expect(
			api.stats.paths
				.filter((p) => p.startsWith('/api/v1/executions?'))
				.every((p) => p.includes('limit=250') && p.includes('includeData=true')),
		).toBe(true);
		// The key travels in the header only.
		expect(api.stats.paths.join('\n')).not.toContain(KEY);
	});

	it('since a watermark: stops at it, reads only newer executions', async () => {
		const r = await readExecutions(client(), base({ window: 'sinceLastRun', afterId: '590' }));
		expect(ids(r.rows)).toEqual([
			'591',
			'592',
			'593',
			'594',
			'595',
			'596',
			'597',
			'598',
			'599',
			'600',
		]);
		expect(r.stats.stopped_at).toBe('watermark');
		expect(r.stats.pages).toBe(1);
	});

	it('last hours: stops at the window start (and asks the server for it)', async () => {
		const r = await readExecutions(client(), base({ window: 'lastHours', hours: 1 }));
		expect(r.rows.length).toBe(60);
		expect(api.stats.paths[1]).toContain('startedAfter=');
	});

	it('an older n8n that refuses startedAfter: filtered here, same rows', async () => {
		api.faults.noStartedAfter = true;
		try {
			const r = await readExecutions(client(), base({ window: 'lastHours', hours: 1 }));
			expect(r.rows.length).toBe(60);
			expect(r.stats.stopped_at).toBe('window');
		} finally {
			api.faults.noStartedAfter = false;
		}
	});

	it('a first Since Last Run (no watermark) reads the last Hours', async () => {
		const r = await readExecutions(client(), base({ window: 'sinceLastRun', hours: 2 }));
		expect(r.rows.length).toBe(120);
		expect(r.stats.since).toBe(new Date(NOW - 2 * 3_600_000).toISOString());
	});

	it('filters by status: one status on the server, several here', async () => {
		const one = await readExecutions(client(), base({ statuses: ['error'] }));
		expect(one.rows.length).toBe(Math.floor(600 / 7));
		expect(api.stats.paths.some((p) => p.includes('status=error'))).toBe(true);
		const both = await readExecutions(
			client(),
			base({ statuses: ['success'], window: 'sinceLastRun', afterId: '580' }),
		);
		expect(both.rows.every((r) => (r.metadata as { status: string }).status === 'success')).toBe(
			true,
		);
	});

	it('Max Executions stops the read, says so, and the newest id is still the newest read', async () => {
		const r = await readExecutions(
			client(),
			base({ maxExecutions: 300, window: 'sinceLastRun', afterId: '1' }),
		);
		expect(r.rows.length).toBe(300);
		expect(ids(r.rows)[0]).toBe('301');
		expect(r.stats.stopped_at).toBe('max_executions');
		expect(r.stats.newest_id).toBe('600');
		expect(r.notices.join(' ')).toMatch(/Max Executions \(300\)/);
	});

	it('a small rate lists without data, then fetches only the sampled executions', async () => {
		const r = await readExecutions(
			client(),
			base({ sampling: { mode: 'rate', rate: 5, seed: 1 } }),
		);
		expect(r.stats.seen).toBe(600);
		expect(r.stats.sampled).toBe(r.rows.length);
		expect(r.rows.length).toBeGreaterThan(10);
		expect(r.rows.length).toBeLessThan(60);
		const lists = api.stats.paths.filter((p) => p.startsWith('/api/v1/executions?'));
		expect(lists.every((p) => p.includes('includeData=false'))).toBe(true);
		expect(
			api.stats.paths.filter((p) => /\/executions\/\d+\?includeData=true/.test(p)).length,
		).toBe(r.rows.length);
		// The same seed, the same sample; a rate of 50% and more streams the pages with data.
		const again = await readExecutions(
			client(),
			base({ sampling: { mode: 'rate', rate: 5, seed: 1 } }),
		);
		expect(ids(again.rows)).toEqual(ids(r.rows));
	});

	it('fixed and stratified: exact sizes, every status represented', async () => {
		const r = await readExecutions(
			client(),
			base({ sampling: { mode: 'fixed', size: 14, seed: 2, stratify: true } }),
		);
		expect(r.rows.length).toBe(14);
		const st = r.rows.map((x) => (x.metadata as { status: string }).status);
		expect(st.filter((s) => s === 'error').length).toBe(2);
	});

	it('executions without data and pruned ones go to invalid with the reason', async () => {
		api.faults.noData.add('600');
		const a = createN8nApiServer({
			apiKey: KEY,
			workflows: [{ id: 'wf-agent', name: 'x' }],
			executions: executions(20),
			faults: { noData: ['20'], prunedOnRead: ['3', '5'] },
		});
		const u = await a.listen();
		try {
			const c = new N8nApiClient({ baseUrl: u, apiKey: KEY });
			const streamed = await readExecutions(c, base());
			expect(streamed.invalid.map((i) => [i.execution_id, i.reason])).toEqual([
				['20', 'no_saved_data'],
			]);
			expect(streamed.rows.length).toBe(19);
			const fetched = await readExecutions(c, base({ sampling: { mode: 'fixed', size: 20 } }));
			expect(fetched.invalid.map((i) => [i.execution_id, i.reason])).toEqual([
				['3', 'pruned'],
				['5', 'pruned'],
				['20', 'no_saved_data'],
			]);
			expect(fetched.invalid[0].hint).toMatch(/EXECUTIONS_DATA_MAX_AGE/);
			expect(fetched.rows.length + fetched.invalid.length).toBe(20);
		} finally {
			await a.close();
		}
	});

	it('no executions in the window: zero rows and a notice, not an error', async () => {
		const r = await readExecutions(client(), base({ window: 'sinceLastRun', afterId: '600' }));
		expect(r.rows).toEqual([]);
		expect(r.notices[0]).toMatch(/No finished executions of workflow wf-agent/);
		expect(r.notices[0]).toMatch(/EXECUTIONS_DATA_SAVE_ON_SUCCESS=all/);
	});
});

describe('errors name the host and never the key', () => {
	const caught = async (p: Promise<unknown>): Promise<N8nApiError> => {
		try {
			await p;
		} catch (e) {
			expect(e).toBeInstanceOf(N8nApiError);
			expect((e as Error).message).not.toContain(KEY);
			expect((e as Error).message).not.toContain('wrong-key-xyz');
			return e as N8nApiError;
		}
		throw new Error('expected an error');
	};

	it('401: the key was refused', async () => {
		const e = await caught(readExecutions(client('wrong-key-xyz'), base()));
		expect(e.kind).toBe('auth');
		expect(e.message).toMatch(
			/^the n8n API key was refused by 127\.0\.0\.1:\d+\/api\/v1\/workflows\/wf-agent \(HTTP 401\)/,
		);
	});

	it('404: the workflow id is named', async () => {
		const e = await caught(readExecutions(client(), base({ workflowId: 'wf-deleted' })));
		expect(e.kind).toBe('not_found');
		expect(e.message).toMatch(/^workflow "wf-deleted" was not found/);
	});

	it('a server error mid-paging fails the read (nothing half-read is returned)', async () => {
		api.faults.failPage = 2;
		const e = await caught(readExecutions(client(), base()));
		expect(e.kind).toBe('http');
		expect(e.message).toMatch(/HTTP 500/);
	});

	it('network errors name the host', async () => {
		const gone = createN8nApiServer({ apiKey: KEY });
		const port = new URL(await gone.listen()).port;
		await gone.close();
		const dead = new N8nApiClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, apiKey: KEY });
		const e = await caught(readExecutions(dead, base()));
		expect(e.kind).toBe('network');
		expect(e.message).toBe(
			`could not reach the n8n API at 127.0.0.1:${port}/api/v1/workflows/wf-agent: ECONNREFUSED`,
		);
	});
});

describe('base URLs', () => {
	it('adds /api/v1 to an instance URL and defaults to this instance', () => {
		expect(normaliseBaseUrl('https://n8n.example.com/')).toBe('https://n8n.example.com/api/v1');
		expect(normaliseBaseUrl('localhost:5678/api/v1')).toBe('http://localhost:5678/api/v1');
		expect(defaultBaseUrl({})).toBe('http://localhost:5678/api/v1');
		expect(defaultBaseUrl({ WEBHOOK_URL: 'https://hooks.example.com/' })).toBe(
			'https://hooks.example.com/api/v1',
		);
		expect(
			defaultBaseUrl({
				N8N_HOST: 'box',
				N8N_PORT: '8080',
				N8N_PROTOCOL: 'https',
				N8N_PATH: '/n8n/',
			}),
		).toBe('https://box:8080/n8n/api/v1');
	});
});
