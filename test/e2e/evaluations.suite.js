#!/usr/bin/env node
// E2E suite for the "Evaluate in n8n's Evaluations tab" example, as far as a self-hosted n8n
// 2.41.1 without a licence goes (see examples/README.md): a real `n8n start` with an owner, the
// Data Table created from the bundled dataset through the REST API, the example's Evaluation
// Trigger pointed at it, a test run started as the Evaluations tab starts one, and its per-row
// test cases read back: every row the judges and metrics could score carries our flat numbers as
// n8n metrics. The public API lists test runs but refuses to start one without a licence quota.
// Run by scripts/e2e.js (registered in test/e2e/evaluations.spec.js); prints `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/n8n-install');
const ev = require('../../scripts/n8n-evaluations');
const { startJudgeServer } = require('../support/openai-server-cli.js');
const { prepareN8n, startN8n, suiteChecks } = require('./support/running-n8n');

const REPO = n8n.REPO;
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'e2e-evaluations');
const OWNER = { email: 'owner@rag-eval.local', password: 'E2e-evaluations-1' };
const METRICS = ['f1_score', 'rougeL', 'groundedness', 'relevance'];

const { check, finish, run } = suiteChecks('evaluations');

async function main() {
	const { env, base } = await prepareN8n(ARTIFACTS, OWNER, { webhooks: false });
	const judge = await startJudgeServer({});
	const cred = {
		id: 'ragEvalJudgeLocal1',
		name: 'Judge model (local test server)',
		type: 'ragEvalLlmApi',
		data: { provider: 'compatible', apiKey: 'e2e-test-key', baseUrl: judge.baseUrl, model: 'e2e' },
	};
	const wf = JSON.parse(
		fs.readFileSync(path.join(REPO, 'examples', 'evaluations-tab.workflow.json'), 'utf8'),
	);
	const importDir = path.join(ARTIFACTS, 'import');
	fs.mkdirSync(importDir, { recursive: true });
	fs.writeFileSync(path.join(importDir, 'cred.json'), JSON.stringify([cred]));
	fs.writeFileSync(
		path.join(importDir, 'wf.json'),
		JSON.stringify(n8n.withCredential(wf, cred, null)),
	);
	let r = await n8n.runN8n(
		['import:credentials', `--input=${path.join(importDir, 'cred.json')}`],
		env,
	);
	if (r.status !== 0) throw new Error(`import:credentials failed: ${r.stderr}`);
	r = await n8n.runN8n(['import:workflow', `--input=${path.join(importDir, 'wf.json')}`], env);
	if (r.status !== 0) throw new Error(`import:workflow failed: ${r.stderr}`);

	let server;
	try {
		server = await startN8n(env, base, ARTIFACTS);
		const session = await ev.restSession(base, OWNER.email, OWNER.password);
		const rows = ev.datasetRows();
		let table;
		await check('the launcher creates the Data Table from the bundled dataset', async () => {
			table = await ev.ensureDataTable(session, ev.EVALUATIONS_EXAMPLE.table, rows);
			assert.equal(table.created, true);
			const again = await ev.ensureDataTable(session, ev.EVALUATIONS_EXAMPLE.table, rows);
			assert.equal(again.id, table.id, 'a second start reuses the table');
			const stored = await session.get(
				`/projects/${table.projectId}/data-tables/${table.id}/rows?take=100`,
			);
			assert.equal((stored.data ?? stored).length, rows.length);
		});
		await check('the example Evaluation Trigger is pointed at the table', async () => {
			assert.equal(
				await ev.pointEvaluationTrigger(session, ev.EVALUATIONS_EXAMPLE.workflowId, table.id),
				true,
			);
			const saved = await session.get(`/workflows/${ev.EVALUATIONS_EXAMPLE.workflowId}`);
			const trigger = saved.nodes.find((n) => n.type === 'n8n-nodes-base.evaluationTrigger');
			assert.equal(trigger.parameters.dataTableId.value, table.id);
		});
		let result;
		await check('a test run (the Evaluations tab\'s "Run evaluation") completes', async () => {
			result = await ev.runEvaluation(session, ev.EVALUATIONS_EXAMPLE.workflowId);
			fs.writeFileSync(path.join(ARTIFACTS, 'test-run.json'), JSON.stringify(result, null, 2));
			assert.equal(result.run.status, 'completed', JSON.stringify(result.run));
			assert.equal(result.cases.length, rows.length, 'one test case per Data Table row');
		});
		await check('every scored row reports our flat numbers as n8n metrics', async () => {
			const withTruth = rows.filter((x) => x.ground_truth).length;
			const ok = result.cases.filter((c) => c.status === 'success');
			assert.equal(ok.length, withTruth, JSON.stringify(result.cases.map((c) => c.status)));
			for (const c of ok) {
				for (const m of METRICS) {
					assert.equal(typeof c.metrics[m], 'number', `${m} in ${JSON.stringify(c.metrics)}`);
					assert.ok(Number.isFinite(c.metrics[m]));
				}
				assert.ok(c.metrics.f1_score >= 0 && c.metrics.f1_score <= 1);
				assert.ok(c.metrics.groundedness >= 1 && c.metrics.groundedness <= 5);
			}
			// The row without ground truth has no F1/ROUGE number: n8n's Set Metrics refuses it
			// and the test case errors, rather than a fake 0 entering the averages.
			const bad = result.cases.filter((c) => c.status !== 'success');
			assert.equal(bad.length, rows.length - withTruth);
			const avg = result.run.metrics;
			for (const m of METRICS) assert.equal(typeof avg[m], 'number', `run average of ${m}`);
		});
		await check('public API without a licence: runs can be listed, not started (403)', async () => {
			const key = await session.post('/api-keys', {
				label: 'e2e-evaluations',
				scopes: ['testRun:list', 'testRun:create'],
				expiresAt: null,
			});
			const url = `${base}/api/v1/workflows/${ev.EVALUATIONS_EXAMPLE.workflowId}/test-runs`;
			const headers = { 'X-N8N-API-KEY': key.rawApiKey, 'content-type': 'application/json' };
			const list = await fetch(url, { headers });
			const listed = await list.text();
			assert.equal(list.status, 200, listed);
			assert.ok(listed.includes(result.run.id), 'the run started over REST is listed');
			const create = await fetch(url, { method: 'POST', headers, body: '{}' });
			const body = await create.text();
			assert.equal(create.status, 403, body);
			assert.match(body, /not available on your plan/);
		});
	} finally {
		server?.kill('SIGTERM');
		await judge.close();
	}
	finish();
}

run(main);
