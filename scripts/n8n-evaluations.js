// n8n's Evaluations tab through its REST API (the editor's own endpoints, owner session): create
// the Data Table the Evaluation Trigger reads, point the example's trigger at it, start a test
// run and wait for its per-row results. Used by `npm start` (scripts/start.js) and the E2E suite
// (test/e2e/evaluations.suite.js). What a self-hosted n8n 2.41.1 without a licence allows is
// described in examples/README.md ("n8n's Evaluations tab").
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const REPO = path.resolve(__dirname, '..');

/** Workflow id and Data Table name of the "Evaluate in n8n's Evaluations tab" example. */
const EVALUATIONS_EXAMPLE = { workflowId: 'ragEvalEvalTab001', table: 'rag-eval-support-sample' };
/** The "Review and calibrate" example's Data Tables: queued rows and their labels, the golden set. */
const REVIEW_EXAMPLE = {
	workflowId: 'ragEvalReview001',
	labels: 'rag-eval-review-labels',
	golden: 'rag-eval-golden-set',
};

/**
 * The production-monitoring examples: the monitored support agent (an AI Agent behind a webhook),
 * the monitor that judges a sample of its executions through n8n's public API (Eval Executions,
 * credential n8nApi holding a public API key of the owner), and the pushed-traces example whose
 * webhook keeps a sampled share of posted traces in a Data Table for its nightly run.
 */
const MONITOR_EXAMPLE = {
	appWorkflowId: 'ragEvalMonitorApp01',
	workflowId: 'ragEvalMonitor0001',
	tracesWorkflowId: 'ragEvalTraces00001',
	traces: 'rag-eval-pushed-traces',
	credentialName: 'n8n API (rag-eval monitor)',
	credentialType: 'n8nApi',
	apiKeyLabel: 'rag-eval monitor',
	// Reading executions and the workflows they belong to; nothing that changes n8n.
	apiKeyScopes: ['workflow:read', 'workflow:list', 'execution:read', 'execution:list'],
};
/** Columns of the pushed-traces Data Table (all text; `trace` holds the posted JSON). */
const TRACE_TABLE_COLUMNS = [
	'trace_id',
	'trace',
	'format',
	'received_at',
	'status',
	'judged_at',
	'judged_in',
];

/** Rows of the bundled dataset as Data Table rows: the Azure columns as text (null when absent). */
function datasetRows(file = path.join(REPO, 'examples', 'datasets', 'rag-support-sample.jsonl')) {
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter((l) => l.trim())
		.map((l) => {
			const r = JSON.parse(l);
			return {
				query: String(r.query ?? ''),
				context: String(r.context ?? ''),
				response: String(r.response ?? ''),
				// A missing ground truth stays null: an empty string would be scored as a reference.
				ground_truth: r.ground_truth === undefined ? null : String(r.ground_truth),
			};
		});
}

/** Logs in to n8n's REST API as `email` and returns request helpers that keep the session. */
async function restSession(base, email, password) {
	// n8n binds its auth cookie to a browser id the client sends on every request.
	const browserId = crypto.randomUUID();
	let cookie = '';
	const call = async (method, url, body) => {
		const res = await fetch(`${base}/rest${url}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': browserId,
				...(cookie ? { cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = res.headers.get('set-cookie');
		if (setCookie) cookie = setCookie.split(';')[0];
		const text = await res.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = text;
		}
		if (!res.ok) {
			const err = new Error(`${method} /rest${url}: HTTP ${res.status} ${text.slice(0, 500)}`);
			err.status = res.status;
			throw err;
		}
		return json && typeof json === 'object' && 'data' in json ? json.data : json;
	};
	await call('POST', '/login', { emailOrLdapLoginId: email, password });
	return {
		get: (url) => call('GET', url),
		post: (url, body) => call('POST', url, body ?? {}),
		patch: (url, body) => call('PATCH', url, body ?? {}),
		delete: (url) => call('DELETE', url),
	};
}

/** The Data Table `name` in the owner's personal project, created and filled with `rows` once. */
async function ensureDataTable(session, name, rows) {
	const project = await session.get('/projects/personal');
	const base = `/projects/${project.id}/data-tables`;
	const list = await session.get(`${base}?filter=${encodeURIComponent(JSON.stringify({ name }))}`);
	const existing = (list.data ?? list).find?.((t) => t.name === name);
	if (existing) return { id: existing.id, created: false, projectId: project.id };
	const columns = Object.keys(rows[0]).map((c) => ({ name: c, type: 'string' }));
	const table = await session.post(base, { name, columns });
	await session.post(`${base}/${table.id}/insert`, { data: rows, returnType: 'count' });
	return { id: table.id, created: true, projectId: project.id };
}

/**
 * The empty Data Table `name` with text columns `columns` in the owner's personal project, created
 * once; a table of that name missing columns gets them added (a newer package added some).
 */
async function ensureEmptyDataTable(session, name, columns) {
	const project = await session.get('/projects/personal');
	const base = `/projects/${project.id}/data-tables`;
	const list = await session.get(`${base}?filter=${encodeURIComponent(JSON.stringify({ name }))}`);
	const existing = (list.data ?? list).find?.((t) => t.name === name);
	if (!existing) {
		const table = await session.post(base, {
			name,
			columns: columns.map((c) => ({ name: c, type: 'string' })),
		});
		return { id: table.id, created: true, projectId: project.id };
	}
	const cols = await session.get(`${base}/${existing.id}/columns`);
	const have = new Set((cols.data ?? cols).map((c) => c.name));
	for (const c of columns.filter((x) => !have.has(x)))
		await session.post(`${base}/${existing.id}/columns`, { name: c, type: 'string' });
	return { id: existing.id, created: false, projectId: project.id };
}

/** The review example's two Data Tables, with the columns the package declares. */
async function ensureReviewTables(session) {
	const lib = require(path.join(REPO, 'dist', 'src', 'index.js'));
	const labels = await ensureEmptyDataTable(
		session,
		REVIEW_EXAMPLE.labels,
		lib.REVIEW_TABLE_COLUMNS,
	);
	const golden = await ensureEmptyDataTable(
		session,
		REVIEW_EXAMPLE.golden,
		lib.GOLDEN_TABLE_COLUMNS,
	);
	return { labels, golden };
}

/** The pushed-traces example's Data Table, empty, created once. */
async function ensureTracesTable(session) {
	return ensureEmptyDataTable(session, MONITOR_EXAMPLE.traces, TRACE_TABLE_COLUMNS);
}

const listOf = (x) => (Array.isArray(x) ? x : (x?.items ?? x?.data ?? []));

/**
 * A public API key of the logged-in owner (label MONITOR_EXAMPLE.apiKeyLabel, read-only scopes)
 * kept in the n8n credential the monitor example reads (type n8nApi: apiKey + baseUrl), created
 * once: a later call finds both and changes nothing. n8n shows a key only when it is created, so
 * when either half is missing (the key was deleted, or the credential) a new key replaces the old
 * one and the credential is written (created or updated) with it. The key goes from n8n's answer
 * straight into the credential: it is never returned, logged or written anywhere else.
 * Resolves to { credentialId, credentialName, created: 'none' | 'key' | 'both' } (no key).
 */
async function ensureMonitorApiKey(session, { apiBaseUrl, example = MONITOR_EXAMPLE } = {}) {
	const credentials = listOf(await session.get('/credentials'));
	const cred = credentials.find(
		(c) => c.name === example.credentialName && c.type === example.credentialType,
	);
	const keys = listOf(await session.get('/api-keys')).filter(
		(k) => k.label === example.apiKeyLabel,
	);
	if (cred && keys.length === 1)
		return { credentialId: cred.id, credentialName: cred.name, created: 'none' };
	// The raw key of an existing one cannot be read back: replace it.
	for (const k of keys) await session.delete(`/api-keys/${k.id}`);
	const made = await session.post('/api-keys', {
		label: example.apiKeyLabel,
		scopes: example.apiKeyScopes,
		expiresAt: null,
	});
	if (typeof made.rawApiKey !== 'string' || made.rawApiKey === '')
		throw new Error('n8n created the API key but returned no key');
	const data = { apiKey: made.rawApiKey, baseUrl: apiBaseUrl };
	let credentialId;
	if (cred) {
		await session.patch(`/credentials/${cred.id}`, {
			name: cred.name,
			type: example.credentialType,
			data,
		});
		credentialId = cred.id;
	} else {
		const project = await session.get('/projects/personal');
		const createdCred = await session.post('/credentials', {
			name: example.credentialName,
			type: example.credentialType,
			data,
			projectId: project.id,
		});
		credentialId = createdCred.id;
	}
	return {
		credentialId,
		credentialName: example.credentialName,
		created: cred ? 'key' : 'both',
	};
}

/**
 * Points every node of a workflow that takes a credential of `type` at the credential
 * { id, name } (a PATCH of the workflow, as picking it in the editor; a published workflow is
 * published again); false when all did.
 */
async function pointCredential(session, workflowId, type, credential) {
	const wf = await session.get(`/workflows/${workflowId}`);
	let changed = false;
	const nodes = wf.nodes.map((n) => {
		if (!n.credentials || !(type in n.credentials)) return n;
		if (n.credentials[type]?.id === credential.id) return n;
		changed = true;
		return { ...n, credentials: { ...n.credentials, [type]: credential } };
	});
	if (!changed) return false;
	const updated = await session.patch(`/workflows/${workflowId}`, {
		versionId: wf.versionId,
		nodes,
	});
	// n8n 2.x runs a workflow's published version: a published one is published again, as the
	// editor's Publish does, or its triggers would keep the old credential.
	if (wf.active || wf.activeVersionId)
		await session.post(`/workflows/${workflowId}/activate`, { versionId: updated.versionId });
	return true;
}

/** Points every Evaluation Trigger of a workflow at a Data Table id (a PATCH of the workflow). */
async function pointEvaluationTrigger(session, workflowId, tableId) {
	const wf = await session.get(`/workflows/${workflowId}`);
	let changed = false;
	const nodes = wf.nodes.map((n) => {
		if (n.type !== 'n8n-nodes-base.evaluationTrigger') return n;
		if (n.parameters?.dataTableId?.value === tableId) return n;
		changed = true;
		return {
			...n,
			parameters: {
				...n.parameters,
				dataTableId: { __rl: true, mode: 'id', value: tableId },
			},
		};
	});
	if (!changed) return false;
	await session.patch(`/workflows/${workflowId}`, { versionId: wf.versionId, nodes });
	return true;
}

/** Starts a test run (what the Evaluations tab's "Run evaluation" does) and waits for its end. */
async function runEvaluation(session, workflowId, { timeoutMs = 300000 } = {}) {
	const started = await session.post(`/workflows/${workflowId}/test-runs/new`, { concurrency: 1 });
	const testRunId = started.testRunId ?? started.id;
	const deadline = Date.now() + timeoutMs;
	let run;
	for (;;) {
		run = await session.get(`/workflows/${workflowId}/test-runs/${testRunId}`);
		if (['completed', 'error', 'cancelled'].includes(run.status)) break;
		if (Date.now() > deadline) throw new Error(`test run ${testRunId} still ${run.status}`);
		await new Promise((r) => setTimeout(r, 1000));
	}
	const cases = await session.get(`/workflows/${workflowId}/test-runs/${testRunId}/test-cases`);
	return { run, cases: Array.isArray(cases) ? cases : (cases.data ?? cases.testCases ?? []) };
}

module.exports = {
	MONITOR_EXAMPLE,
	TRACE_TABLE_COLUMNS,
	ensureTracesTable,
	ensureMonitorApiKey,
	pointCredential,
	EVALUATIONS_EXAMPLE,
	REVIEW_EXAMPLE,
	ensureEmptyDataTable,
	ensureReviewTables,
	datasetRows,
	restSession,
	ensureDataTable,
	pointEvaluationTrigger,
	runEvaluation,
};
