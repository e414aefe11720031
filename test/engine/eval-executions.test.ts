/**
 * Eval Executions on the real engine against the local stand-in for n8n's public API:
 * Manual Trigger -> Eval Executions -> Cost & Latency -> Eval Aggregate. Production runs (mode
 * trigger) keep the watermark in the workflow's static data, carried from run to run as n8n does.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { ILoadOptionsFunctions } from 'n8n-workflow';
import { EvalExecutions } from '../../nodes/EvalExecutions/EvalExecutions.node';
import { runWorkflow, workflowNode, type WorkflowJson } from '../support/engine';
import { agentExecution, createN8nApiServer, type FakeN8nApi } from '../support/n8n-api-server';

const KEY = 'n8n_api_engine-test-secret-7f3a9c';
const NOW = Date.now();
const MIN = 60_000;

const node = workflowNode;

function workflow(params: INodeParameters = {}, withMetrics = true): WorkflowJson {
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger'),
		node('Eval Executions', 'n8n-nodes-rag-eval.evalExecutions', {
			workflowId: { __rl: true, mode: 'id', value: 'wf-agent' },
			sampling: 'all',
			...params,
		}),
	];
	nodes[1].credentials = { n8nApi: { id: 'cred-n8n', name: 'n8n account' } };
	const connections: WorkflowJson['connections'] = {
		Start: { main: [[{ node: 'Eval Executions', type: 'main', index: 0 }]] },
	};
	if (withMetrics) {
		nodes.push(
			node('Cost & Latency', 'n8n-nodes-rag-eval.evalCostLatency', { maxTokens: 5000 }),
			node('Eval Aggregate', 'n8n-nodes-rag-eval.evalAggregate', {
				output: 'summary',
				options: { bootstrapResamples: 0 },
			}),
		);
		connections['Eval Executions'] = {
			main: [[{ node: 'Cost & Latency', type: 'main', index: 0 }]],
		};
		connections['Cost & Latency'] = {
			main: [[{ node: 'Eval Aggregate', type: 'main', index: 0 }]],
		};
	}
	return { nodes, connections };
}

const creds = (baseUrl: string, apiKey = KEY) => ({ credentials: { n8nApi: { apiKey, baseUrl } } });

let api: FakeN8nApi;
let url: string;
let next = 1;
/** Adds `n` executions of the monitored workflow, one a minute, the newest a minute ago. */
function produce(
	n: number,
	status: 'success' | 'error' | ((id: number) => 'success' | 'error') = 'success',
): string[] {
	const out: string[] = [];
	for (let k = 0; k < n; k++) {
		const id = next++;
		const st = typeof status === 'function' ? status(id) : status;
		api.add(
			agentExecution(id, {
				workflowId: 'wf-agent',
				startedMs: NOW - 10 * MIN + id * 1000,
				status: st,
			}),
		);
		out.push(String(id));
	}
	return out;
}
/** What n8n would record for the monitoring workflow's own execution. */
function recordMonitorRun(executionId: string, status: 'success' | 'error'): void {
	api.add({
		id: executionId,
		status,
		workflowId: 'monitor',
		startedAt: new Date().toISOString(),
	} as never);
}

beforeAll(async () => {
	api = createN8nApiServer({
		apiKey: KEY,
		workflows: [{ id: 'wf-agent', name: 'Shop assistant' }],
	});
	url = await api.listen();
});
afterAll(() => api.close());

const execIds = (rows: IDataObject[]): string[] =>
	rows.map((r) => String((r.metadata as IDataObject).execution_id));

describe('Eval Executions: rows the metrics read unchanged', () => {
	it('converts executions into rows that Cost & Latency and Eval Aggregate take as they are', async () => {
		const ids = produce(12, (id) => (id % 4 === 0 ? 'error' : 'success'));
		const run = await runWorkflow(workflow({ window: 'all' }), creds(url));
		for (const n of ['Eval Executions', 'Cost & Latency', 'Eval Aggregate'])
			expect(run.nodeError(n)).toBeUndefined();
		const rows = run.output('Eval Executions');
		expect(execIds(rows)).toEqual(ids);
		const first = rows[0];
		expect(first.request_id).toBe('n8n-exec-1');
		expect(typeof first.request).toBe('string');
		expect(first.metadata).toMatchObject({
			source: 'n8n-execution',
			execution_id: '1',
			workflow_id: 'wf-agent',
			status: 'success',
			execution_url: `${url.replace('/api/v1', '')}/workflow/wf-agent/executions/1`,
		});
		expect((first.source as IDataObject).run_manifest).toMatchObject({
			total_rows: 12,
			position: 1,
			executions: { seen: 12, sampled: 12, converted: 12, invalid: 0 },
		});
		// Cost & Latency reads the rows' figures and slim traces: tokens and a price by model.
		const scored = run.output('Cost & Latency');
		expect(scored).toHaveLength(12);
		expect(scored.every((r) => typeof r.cost_usd === 'number' && (r.cost_usd as number) > 0)).toBe(
			true,
		);
		expect(scored[0].total_token_count).toBe(first.total_token_count);
		const [summary] = run.output('Eval Aggregate') as [
			{ rows: number; manifest: IDataObject; appCost: { rowsPriced: number } },
		];
		expect(summary.rows).toBe(12);
		expect(summary.manifest).toMatchObject({ expected: 12, received: 12, complete: true });
		expect(summary.appCost.rowsPriced).toBe(12);
		// The key is nowhere in the items.
		expect(JSON.stringify(run.run.data.resultData.runData)).not.toContain(KEY);
	});
});

describe('Eval Executions: the watermark in production runs', () => {
	const staticData: IDataObject = {};
	const wf = workflow({ window: 'sinceLastRun', hours: 1 }, false);

	it('a second run evaluates only the new executions; a failed run keeps the old watermark', async () => {
		const opts = { ...creds(url), staticData, mode: 'trigger' as const };
		const before = next - 1;
		// Run 1: everything of the last hour (first run, no watermark yet).
		const r1 = await runWorkflow(wf, opts);
		expect(r1.nodeError('Eval Executions')).toBeUndefined();
		expect(r1.output('Eval Executions')).toHaveLength(before);
		const marks = () =>
			(staticData['node:Eval Executions'] as IDataObject).watermarks as Record<string, IDataObject>;
		expect(marks()['wf-agent'].pending).toMatchObject({
			lastId: String(before),
			executionId: r1.executionId,
		});
		recordMonitorRun(r1.executionId, 'success');

		// Run 2: three new executions; run 1 succeeded, so only those three.
		const fresh = produce(3);
		const r2 = await runWorkflow(wf, opts);
		expect(execIds(r2.output('Eval Executions'))).toEqual(fresh);
		expect(marks()['wf-agent'].lastId).toBe(String(before));
		// Run 2 failed later on (say a judge broke): its watermark is dropped at the next start.
		recordMonitorRun(r2.executionId, 'error');

		const more = produce(2);
		const r3 = await runWorkflow(wf, opts);
		expect(execIds(r3.output('Eval Executions'))).toEqual([...fresh, ...more]);
		expect(marks()['wf-agent'].lastId).toBe(String(before));
		recordMonitorRun(r3.executionId, 'success');

		// Run 4: nothing new: zero rows and a notice, no error.
		const r4 = await runWorkflow(wf, opts);
		expect(r4.nodeError('Eval Executions')).toBeUndefined();
		expect(r4.output('Eval Executions')).toEqual([]);
		expect(marks()['wf-agent'].lastId).toBe(more[1]);
	});

	it('a manual (editor) run reads since the watermark but does not move it', async () => {
		const fresh = produce(2);
		const saved = JSON.stringify(staticData);
		const r = await runWorkflow(wf, { ...creds(url), staticData });
		expect(execIds(r.output('Eval Executions'))).toEqual(fresh);
		expect(JSON.stringify(staticData)).toBe(saved);
	});
});

describe('Eval Executions: errors and the Invalid output', () => {
	it('a wrong key fails the node with a clear message that never shows the key', async () => {
		const wrong = 'n8n_api_WRONG-key-0000';
		const run = await runWorkflow(workflow({}, false), creds(url, wrong));
		const err = run.nodeError('Eval Executions');
		expect(err).toMatch(
			/^the n8n API key was refused by 127\.0\.0\.1:\d+\/api\/v1\/workflows\/wf-agent \(HTTP 401\)/,
		);
		const all = JSON.stringify(run.run.data);
		expect(all).not.toContain(wrong);
		expect(all).not.toContain(KEY);
	});

	it('a base URL that is not a URL fails with a clear message', async () => {
		const run = await runWorkflow(workflow({}, false), creds('not a url'));
		expect(run.nodeError('Eval Executions')).toBe('the n8n API base URL "not a url" is not a URL');
	});

	it('a deleted workflow fails with its id', async () => {
		const run = await runWorkflow(
			workflow({ workflowId: { __rl: true, mode: 'id', value: 'wf-gone' } }, false),
			creds(url),
		);
		expect(run.nodeError('Eval Executions')).toMatch(/^workflow "wf-gone" was not found/);
	});

	it('executions that cannot be converted leave on Invalid, each saying why', async () => {
		const a = createN8nApiServer({
			apiKey: KEY,
			workflows: [{ id: 'wf-agent', name: 'Shop assistant' }],
			executions: [1, 2, 3, 4].map((id) =>
				agentExecution(id, { workflowId: 'wf-agent', startedMs: NOW - id * MIN }),
			),
			faults: { noData: ['2'], tooLarge: ['3'], prunedOnRead: ['4'] },
		});
		const u = await a.listen();
		try {
			const run = await runWorkflow(
				workflow({ window: 'all', sampling: 'fixed', sampleSize: 10 }, false),
				creds(u),
			);
			expect(run.nodeError('Eval Executions')).toBeUndefined();
			expect(execIds(run.output('Eval Executions', 0))).toEqual(['1']);
			const invalid = run.output('Eval Executions', 1);
			expect(invalid.map((i) => [i.execution_id, i.reason])).toEqual([
				['2', 'no_saved_data'],
				['3', 'too_large'],
				['4', 'pruned'],
			]);
			expect(invalid[0].hint).toMatch(/EXECUTIONS_DATA_SAVE_ON_SUCCESS=all/);
			expect(invalid[0].error).toBe('execution 2: n8n kept no execution data for it');
			const byName = await runWorkflow(
				workflow({ window: 'all', appNode: 'Chatbot' }, false),
				creds(u),
			);
			// Read page by page (no fetching one by one, so 4 is not pruned here): every one leaves once.
			expect(byName.output('Eval Executions', 0)).toEqual([]);
			expect(byName.output('Eval Executions', 1).map((i) => [i.execution_id, i.reason])).toEqual([
				['1', 'app_node_not_found'],
				['2', 'no_saved_data'],
				['3', 'too_large'],
				['4', 'app_node_not_found'],
			]);
		} finally {
			await a.close();
		}
	});
});

describe('Eval Executions: the workflow picker', () => {
	it('lists the workflows the key can read, filtered by name', async () => {
		api.addWorkflow({ id: 'wf-other', name: 'Invoice bot' });
		const ctx = {
			getCredentials: async () => ({ apiKey: KEY, baseUrl: url }),
		} as unknown as ILoadOptionsFunctions;
		const search = new EvalExecutions().methods.listSearch.searchWorkflows;
		const all = await search.call(ctx);
		expect(all.results).toEqual([
			{ name: 'Shop assistant', value: 'wf-agent' },
			{ name: 'Invoice bot', value: 'wf-other' },
		]);
		expect((await search.call(ctx, 'invoice')).results).toEqual([
			{ name: 'Invoice bot', value: 'wf-other' },
		]);
	});
});
