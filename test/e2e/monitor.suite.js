#!/usr/bin/env node
// E2E suite for production monitoring (issue 29) on a real `n8n start` (2.41.1): the launcher's
// public API key and n8n API credential (created once, the key never in n8n's log), the support
// agent's knowledge base loaded, the agent (AI Agent, Chat Model and embeddings on the local
// OpenAI-compatible test server, a vector-store tool and a Code tool) executed 50 times through its
// webhook (some with an order lookup, some failing in the output guard), the monitor run through
// the examples' own nodes: the sample is the configured seeded 10%, every sampled execution has its
// request, answer, retrieved context and tokens, one Slack message a run links the failing
// executions; 20 more executions and a second run judge only the new ones (none twice). Then the
// pushed-traces example: OTLP GenAI, OpenInference and Langfuse traces posted to its webhook (a
// wrong token refused), the seeded share kept in the Data Table, the nightly run judging each kept
// trace once and marking it. Run by scripts/e2e.js (test/e2e/monitor.spec.js); prints
// `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/n8n-install');
const ev = require('../../scripts/n8n-evaluations');
const { startSlackReceiver, blockKitProblems } = require('./support/standins');
const { suiteChecks, prepareN8n, importAndPublish, startN8n } = require('./support/running-n8n');

const REPO = n8n.REPO;
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'e2e-monitor');
const OWNER = { email: 'owner@rag-eval.local', password: 'E2e-monitor-1' };
const M = ev.MONITOR_EXAMPLE;
const MONITOR_HOOK = 'rag-eval-e2e-monitor';
const NIGHTLY_HOOK = 'rag-eval-e2e-traces-nightly';
const FIRST_BATCH = 50;
const SECOND_BATCH = 20;

const { log, check, finish, run } = suiteChecks('monitor');

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
const example = (name) =>
	JSON.parse(fs.readFileSync(path.join(REPO, 'examples', `${name}.workflow.json`), 'utf8'));
const node = (wf, name) => {
	const n = wf.nodes.find((x) => x.name === name);
	assert.ok(n, `${wf.id} has node ${name}`);
	return n;
};

/**
 * A copy of a scheduled example for the suite: its Schedule Trigger replaced by a webhook (a
 * schedule could fire mid-test), started at `path` and answering when the run ends, and its
 * Slack node enabled and pointed at the stand-in.
 */
function triggeredByWebhook(wf, { schedule, first, hookPath, slackUrl }) {
	const copy = JSON.parse(JSON.stringify(wf));
	copy.nodes = copy.nodes.filter((n) => n.name !== schedule);
	delete copy.connections[schedule];
	copy.nodes.push({
		id: crypto.randomUUID(),
		name: 'E2E Run',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, -200],
		webhookId: crypto.randomUUID(),
		// Answers when the run ends, with no body: a run with nothing to do has no last item.
		parameters: {
			httpMethod: 'POST',
			path: hookPath,
			responseMode: 'lastNode',
			responseData: 'noData',
			options: {},
		},
	});
	copy.connections['E2E Run'] = { main: [[{ node: first, type: 'main', index: 0 }]] };
	const slack = node(copy, 'Post to Slack');
	delete slack.disabled;
	slack.parameters.url = slackUrl;
	return copy;
}

// ---- the posted traces: real-shaped OTLP GenAI, OpenInference and Langfuse exports ----------

const fixture = (f) =>
	JSON.parse(fs.readFileSync(path.join(REPO, 'test', 'fixtures', 'traces', f), 'utf8'));
const hex = (n, i, salt) =>
	crypto.createHash('sha256').update(`${salt}:${i}`).digest('hex').slice(0, n);

/** The fixture's trace under a new trace id, its question numbered so every trace differs. */
function otlpTrace(file, i, salt) {
	const t = fixture(file);
	const traceId = hex(32, i, `${salt}:${file}`);
	for (const rs of t.resourceSpans)
		for (const ss of rs.scopeSpans)
			for (const s of ss.spans) {
				s.traceId = traceId;
				for (const a of s.attributes ?? [])
					if (a.key === 'input.value' && typeof a.value?.stringValue === 'string')
						a.value.stringValue = `${a.value.stringValue} (case ${salt}-${i})`;
			}
	return { traceId, trace: t };
}

function langfuseTrace(i, salt) {
	const t = fixture('langfuse-autogen.json');
	const id = hex(32, i, `${salt}:langfuse`);
	t.trace.id = id;
	for (const o of t.observations) o.traceId = id;
	return { traceId: id, trace: t };
}

/** The example's sampling rule, recomputed here: FNV-1a of `<seed>:<trace id>` under the share. */
function tracesKept(ids, wf) {
	const code = node(wf, 'Sample Traces').parameters.jsCode;
	const percent = Number(/const SAMPLE_PERCENT = (\d+(?:\.\d+)?);/.exec(code)[1]);
	const seed = /const SEED = (\d+);/.exec(code)[1];
	const fnv1a = (text) => {
		let h = 0x811c9dc5;
		for (const ch of Buffer.from(text, 'utf8')) h = Math.imul(h ^ ch, 0x01000193) >>> 0;
		return h;
	};
	return ids.filter((id) => fnv1a(`${seed}:${id}`) / 2 ** 32 < percent / 100);
}

async function main() {
	const { env, base, userFolder } = await prepareN8n(ARTIFACTS, OWNER);
	env.N8N_LOG_LEVEL = 'info';
	// What the monitored workflow needs kept (docs/monitoring-production.md); n8n's default.
	env.EXECUTIONS_DATA_SAVE_ON_SUCCESS = 'all';
	const sampling = require(path.join(REPO, 'dist', 'src', 'executions', 'sample.js'));
	const judge = await n8n.spawnJudgeServer();
	const slack = await startSlackReceiver();

	// Credentials: the example webhooks' token, the judge model and the agent's OpenAI credential,
	// both on the local test server.
	const token = crypto.randomBytes(24).toString('base64url');
	const judgeCred = {
		id: 'ragEvalJudgeLocal1',
		name: 'Judge model (local test server)',
		type: 'ragEvalLlmApi',
		data: {
			provider: 'compatible',
			apiKey: 'e2e-test-key',
			baseUrl: judge.url,
			model: 'e2e-judge',
		},
	};
	const chat = n8n.openAiCredential('e2e-test-key', judge.url, 'e2e-agent');
	{
		const { model, ...chatCred } = chat;
		void model;
		const file = path.join(ARTIFACTS, 'credentials.json');
		fs.writeFileSync(file, JSON.stringify([n8n.webhookCredential(token), judgeCred, chatCred]));
		const r = await n8n.runN8n(['import:credentials', `--input=${file}`], env);
		fs.rmSync(file, { force: true });
		if (r.status !== 0) throw new Error(`import:credentials failed: ${r.stderr}`);
	}
	const withCreds = (wf) => n8n.withCredential(wf, judgeCred, chat);
	const app = withCreds(example('monitor-production-agent-app'));
	const kb = withCreds(example('monitor-production-agent-kb'));
	const monitor = withCreds(
		triggeredByWebhook(example('monitor-production-agent'), {
			schedule: 'Every Hour',
			first: 'Eval Executions',
			hookPath: MONITOR_HOOK,
			slackUrl: slack.webhookUrl,
		}),
	);
	const tracesWf = withCreds(
		triggeredByWebhook(example('monitor-pushed-traces'), {
			schedule: 'Every Night',
			first: 'New Traces',
			hookPath: NIGHTLY_HOOK,
			slackUrl: slack.webhookUrl,
		}),
	);
	const wfs = [app, kb, monitor, tracesWf];
	await importAndPublish(env, ARTIFACTS, wfs);
	const server = await startN8n(env, base, ARTIFACTS);
	try {
		const session = await ev.restSession(base, OWNER.email, OWNER.password);
		const hook = async (p, body, headers = { authorization: `Bearer ${token}` }) => {
			for (let attempt = 0; ; attempt++) {
				const res = await fetch(`${base}/webhook/${p}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...headers },
					body: JSON.stringify(body ?? {}),
					signal: AbortSignal.timeout(300000),
				});
				const text = await res.text();
				// Readiness comes before n8n has activated every published workflow.
				if (res.status === 404 && attempt < 30) {
					await sleep(1000);
					continue;
				}
				let json = null;
				try {
					json = JSON.parse(text);
				} catch {
					// not JSON
				}
				return { status: res.status, text, json };
			}
		};
		const { parse } = require(path.join(n8n.n8nDir(), 'node_modules', 'flatted'));
		// Every execution of a workflow, newest first (the REST list pages 100 at a time).
		const executions = async (workflowId) => {
			const all = [];
			for (let lastId; ; ) {
				const page = await session.get(
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}&limit=100${lastId ? `&lastId=${lastId}` : ''}`,
				);
				const list = page.results ?? page.data ?? page;
				all.push(...list);
				if (list.length < 100) return all;
				lastId = list[list.length - 1].id;
			}
		};
		const runData = async (id) => {
			const e = await session.get(`/executions/${id}`);
			const data = typeof e.data === 'string' ? parse(e.data) : e.data;
			return { e, runData: data.resultData.runData, error: data.resultData.error };
		};
		const out = (rd, name, output = 0) =>
			(rd[name]?.[0]?.data?.main?.[output] ?? []).map((i) => i.json);
		/** Waits for `n` finished executions of a workflow; resolves to them, oldest first. */
		const finished = async (workflowId, n) => {
			for (let tries = 0; tries < 240; tries++) {
				const list = (await executions(workflowId)).filter(
					(x) => x.status !== 'running' && x.status !== 'new',
				);
				if (list.length >= n) return list.sort((a, b) => Number(a.id) - Number(b.id));
				await sleep(500);
			}
			throw new Error(`fewer than ${n} finished executions of ${workflowId}`);
		};

		/** The monitor's API key as n8n stores it (table user_api_keys). */
		const storedApiKey = () =>
			new Promise((resolve, reject) => {
				const sqlite3 = require(path.join(n8n.n8nDir(), 'node_modules', 'sqlite3'));
				const db = new sqlite3.Database(
					path.join(userFolder, '.n8n', 'database.sqlite'),
					sqlite3.OPEN_READONLY,
				);
				db.all('SELECT apiKey FROM user_api_keys WHERE label = ?', [M.apiKeyLabel], (err, rows) => {
					db.close();
					if (err) return reject(err);
					if (rows.length !== 1) return reject(new Error(`${rows.length} stored monitor keys`));
					resolve(rows[0].apiKey);
				});
			});
		let key;
		await check(
			'the launcher creates the public API key and the n8n API credential once, and the monitor uses it',
			async () => {
				key = await ev.ensureMonitorApiKey(session, { apiBaseUrl: `${base}/api/v1` });
				assert.equal(key.created, 'both');
				assert.equal(
					await ev.pointCredential(session, M.workflowId, M.credentialType, {
						id: key.credentialId,
						name: key.credentialName,
					}),
					true,
				);
				const again = await ev.ensureMonitorApiKey(session, { apiBaseUrl: `${base}/api/v1` });
				assert.equal(again.created, 'none', 'a second start changes nothing');
				assert.equal(again.credentialId, key.credentialId);
				const keys = (await session.get('/api-keys')).items.filter(
					(k) => k.label === M.apiKeyLabel,
				);
				assert.equal(keys.length, 1, 'one key');
				assert.deepEqual([...keys[0].scopes].sort(), [...M.apiKeyScopes].sort());
				// The key works against the public API (read from n8n's database: the REST API never
				// shows a stored key, and the launcher never returns it).
				const secret = await storedApiKey();
				const res = await fetch(`${base}/api/v1/workflows/${M.appWorkflowId}`, {
					headers: { 'X-N8N-API-KEY': secret },
				});
				assert.equal(res.status, 200, await res.text());
				// A key deleted by hand is replaced on the next start.
				await session.delete(`/api-keys/${keys[0].id}`);
				const replaced = await ev.ensureMonitorApiKey(session, { apiBaseUrl: `${base}/api/v1` });
				assert.equal(replaced.created, 'key');
				assert.equal(replaced.credentialId, key.credentialId);
				const secret2 = await storedApiKey();
				assert.notEqual(secret2, secret);
				const res2 = await fetch(`${base}/api/v1/workflows/${M.appWorkflowId}`, {
					headers: { 'X-N8N-API-KEY': secret2 },
				});
				assert.equal(res2.status, 200);
				key.secret = secret2;
			},
		);

		await check('the knowledge base loads into the Simple Vector Store', async () => {
			const res = await hook('rag-eval-support-kb', {});
			assert.equal(res.status, 200, res.text.slice(0, 500));
		});

		// The questions: the sample's, each searched in the knowledge base; every third looks up an
		// order; every seventh carries a card number, which the output guard refuses (a failed
		// execution, answered and measured all the same).
		const questions = fs
			.readFileSync(path.join(REPO, 'examples', 'datasets', 'rag-support-sample.jsonl'), 'utf8')
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l).query);
		const asked = new Map();
		const ask = async (k) => {
			let q = `${questions[k % questions.length]} (customer ${k})`;
			if (k % 3 === 1) q = `Where is my order ${10000 + k}? ${q}`;
			if (k % 7 === 3) q = `My card number is 4111 1111 1111 1111. ${q}`;
			const res = await hook('rag-eval-support-agent', {
				question: `${q} [[tool:Knowledge Base]]${k % 3 === 1 ? ' [[tool:Look Up Order]]' : ''}`,
				session_id: `s-${k}`,
			});
			asked.set(`s-${k}`, { q, status: res.status, body: res.json ?? res.text });
			return res;
		};
		let firstIds = [];
		await check(
			`the support agent answers ${FIRST_BATCH} questions through its webhook, some failing`,
			async () => {
				for (let k = 0; k < FIRST_BATCH; k++) await ask(k);
				const list = await finished(M.appWorkflowId, FIRST_BATCH);
				firstIds = list.map((x) => String(x.id));
				const statuses = list.map((x) => x.status);
				const failedRuns = statuses.filter((s) => s === 'error').length;
				assert.equal(
					failedRuns,
					[...Array(FIRST_BATCH).keys()].filter((k) => k % 7 === 3).length,
					statuses.join(','),
				);
				assert.equal(statuses.filter((s) => s === 'success').length, FIRST_BATCH - failedRuns);
				const ok = [...asked.values()].filter((a) => a.status === 200);
				assert.ok(ok.every((a) => typeof a.body.answer === 'string' && a.body.answer.length > 0));
			},
		);

		const judgedIds = [];
		const slackBefore = () => slack.messages.length;
		const runMonitor = async (label, candidates) => {
			const before = slackBefore();
			const seen = new Set((await executions(M.workflowId)).map((x) => String(x.id)));
			const res = await hook(MONITOR_HOOK, {}, {});
			assert.equal(res.status, 200, `${label}: ${res.text.slice(0, 800)}`);
			let mine;
			for (let tries = 0; tries < 60 && !mine; tries++) {
				mine = (await executions(M.workflowId)).find(
					(x) => !seen.has(String(x.id)) && x.status === 'success',
				);
				if (!mine) await sleep(500);
			}
			assert.ok(mine, `${label}: the monitor execution succeeded`);
			const { runData: rd } = await runData(mine.id);
			fs.writeFileSync(path.join(ARTIFACTS, `monitor-${label}.json`), JSON.stringify(rd, null, 1));
			const rows = out(rd, 'Eval Executions', 0);
			const invalid = out(rd, 'Eval Executions', 1);
			// The configured sample: Rate 10% of each status (Stratify by Status), at least one of
			// every status, seed 1, among the new executions.
			const p = node(monitor, 'Eval Executions').parameters;
			assert.equal(p.sampling, 'rate');
			assert.equal(p.stratifyByStatus, true);
			const all = await executions(M.appWorkflowId);
			const statusOf = new Map(all.map((x) => [String(x.id), x.status]));
			const byStatus = new Map();
			for (const id of candidates)
				byStatus.set(statusOf.get(id), (byStatus.get(statusOf.get(id)) ?? 0) + 1);
			const size = [...byStatus.values()].reduce(
				(n, count) => n + Math.max(1, Math.round((p.sampleRate / 100) * count)),
				0,
			);
			const expected = [
				...sampling.chooseSample(
					candidates.map((id) => ({ id, status: statusOf.get(id) })),
					{ mode: 'rate', rate: p.sampleRate, seed: p.seed, stratify: true },
				),
			];
			const got = [...rows, ...invalid].map((x) =>
				String(x.metadata?.execution_id ?? x.execution_id ?? ''),
			);
			assert.equal(got.length, size, `${label}: ${size} of ${candidates.length} executions`);
			assert.deepEqual([...got].sort(), [...expected].sort(), `${label}: the seeded sample`);
			for (const [status, count] of byStatus)
				assert.equal(
					rows.filter((x) => x.metadata.status === status).length,
					Math.max(1, Math.round((p.sampleRate / 100) * count)),
					`${label}: ${status}`,
				);
			assert.ok(rows.length > 0, `${label}: something sampled`);
			assert.equal(invalid.length, 0, `${label}: invalid ${JSON.stringify(invalid).slice(0, 500)}`);
			const byId = new Map(rows.map((x) => [String(x.metadata.execution_id), x]));
			for (const [id, row] of byId) {
				const e = (await executions(M.appWorkflowId)).find((x) => String(x.id) === id);
				assert.equal(row.metadata.source, 'n8n-execution');
				assert.equal(row.metadata.status, e.status);
				assert.match(
					row.metadata.execution_url,
					new RegExp(`/workflow/${M.appWorkflowId}/executions/${id}$`),
				);
				assert.equal(typeof row.request, 'string');
				const sent = [...asked.values()].find((a) => row.request.startsWith(a.q));
				assert.ok(sent, `execution ${id}: its request is a question we sent (${row.request})`);
				assert.ok(
					typeof row.response === 'string' && row.response.length > 0,
					`execution ${id}: answer`,
				);
				assert.ok(
					Array.isArray(row.retrieved_context) && row.retrieved_context.length > 0,
					`execution ${id}: context`,
				);
				assert.ok(
					row.retrieved_context.every((c) => typeof c.content === 'string' && c.content.length > 0),
				);
				assert.ok(
					row.total_token_count > 0 && row.total_input_token_count > 0,
					`execution ${id}: tokens`,
				);
				if (sent.q.startsWith('Where is my order'))
					assert.ok(
						(row.tool_calls ?? []).some((t) => t.name === 'Look_Up_Order'),
						`execution ${id}: the order lookup`,
					);
				// The tools the agent had, read from the execution's own copy of the workflow.
				const defs = Object.fromEntries((row.tool_definitions ?? []).map((d) => [d.name, d]));
				assert.deepEqual(
					Object.keys(defs).sort(),
					['Knowledge_Base', 'Look_Up_Order'],
					`execution ${id}: tool definitions ${JSON.stringify(row.tool_definitions)}`,
				);
				assert.match(defs.Look_Up_Order.description ?? '', /Looks up an order by its number/);
				assert.equal(defs.Knowledge_Base.node, 'Knowledge Base');
			}
			// Every sampled execution was judged and measured.
			const judged = out(rd, 'Cost & Latency', 0);
			assert.equal(judged.length, rows.length);
			for (const j of judged) {
				for (const k of [
					'groundedness',
					'relevance_to_query',
					'safety',
					'intent_resolution',
					'task_adherence',
					'cost_latency',
				])
					assert.equal(j.eval[k]?.status, 'ok', `${k}: ${JSON.stringify(j.eval[k]).slice(0, 300)}`);
				// Tool Call Accuracy judges the calls against the definitions; without calls it is skipped.
				const tca = j.eval.tool_call_accuracy;
				const calls = j.tool_calls ?? [];
				if (calls.length > 0) {
					assert.equal(
						tca?.status,
						'ok',
						`tool_call_accuracy: ${JSON.stringify(tca).slice(0, 300)}`,
					);
					assert.ok(tca.value >= 1 && tca.value <= 5, `tool_call_accuracy ${tca.value} on 1-5`);
				} else
					assert.equal(
						tca?.status,
						'not_applicable',
						`no calls: ${JSON.stringify(tca).slice(0, 300)}`,
					);
			}
			assert.ok(
				judged.some((j) => j.eval.tool_call_accuracy?.status === 'ok'),
				`${label}: Tool Call Accuracy judged some sampled execution's calls`,
			);
			// One Slack message for the run, valid Block Kit, linking every failing execution.
			await sleep(500);
			assert.equal(slackBefore() - before, 1, `${label}: one Slack message`);
			const msg = slack.messages[slack.messages.length - 1];
			assert.deepEqual(blockKitProblems(msg), []);
			const [linked] = out(rd, 'Link Failing Executions', 0);
			const body = JSON.stringify(msg);
			for (const id of linked.failing_executions) {
				const row = byId.get(String(id));
				assert.ok(
					body.includes(`<${row.metadata.execution_url}|execution ${id}>`),
					`link to ${id}`,
				);
			}
			// Linked: exactly the sampled executions that failed in n8n or failed / errored a check.
			const failingNow = judged
				.filter(
					(x) =>
						x.metadata.status === 'error' ||
						Object.values(x.eval).some(
							(s) => s.status === 'error' || (s.status === 'ok' && s.pass === false),
						),
				)
				.map((x) => String(x.metadata.execution_id));
			assert.deepEqual(linked.failing_executions.map(String).sort(), failingNow.sort());
			const failingGuard = rows.filter((x) => x.metadata.status === 'error');
			assert.ok(failingGuard.length > 0, `${label}: a failed execution is in the sample`);
			for (const x of failingGuard) assert.match(x.metadata.error ?? '', /Output guard/);
			for (const x of failingGuard)
				assert.ok(linked.failing_executions.map(String).includes(String(x.metadata.execution_id)));
			judgedIds.push(...byId.keys());
			return {
				rows,
				gate: out(rd, 'Regression Gate', 0).concat(
					out(rd, 'Regression Gate', 1),
					out(rd, 'Regression Gate', 2),
				),
			};
		};

		await check(
			'run 1 of the monitor: the seeded sample, every sampled execution filled and judged, one Slack message',
			async () => {
				await runMonitor('run1', firstIds);
			},
		);

		let secondIds = [];
		await check(
			`run 2 after ${SECOND_BATCH} more executions: only new executions judged, none twice`,
			async () => {
				for (let k = FIRST_BATCH; k < FIRST_BATCH + SECOND_BATCH; k++) await ask(k);
				const list = await finished(M.appWorkflowId, FIRST_BATCH + SECOND_BATCH);
				secondIds = list.map((x) => String(x.id)).filter((id) => !firstIds.includes(id));
				assert.equal(secondIds.length, SECOND_BATCH);
				const before = judgedIds.length;
				const { gate } = await runMonitor('run2', secondIds);
				const now = judgedIds.slice(before);
				assert.ok(
					now.every((id) => secondIds.includes(id)),
					'only new executions',
				);
				assert.equal(
					new Set(judgedIds).size,
					judgedIds.length,
					'0 executions judged twice over two runs',
				);
				// The second run is gated against the first (the median of the one run kept so far).
				assert.equal(gate.length, 1);
				assert.equal(gate[0].baselineFound, true, JSON.stringify(gate[0]).slice(0, 400));
				assert.equal(slack.messages.length, 2, 'one Slack message per run');
			},
		);

		// ---- pushed traces ----------------------------------------------------------------------
		const tracesTable = await ev.ensureTracesTable(session);
		const tableRows = async () => {
			const page = await session.get(
				`/projects/${tracesTable.projectId}/data-tables/${tracesTable.id}/rows?take=1000&skip=0`,
			);
			return page.data ?? page;
		};
		const posted = [];
		const postTraces = async (salt) => {
			// 10 OTLP GenAI traces in one export (as an OTel exporter batches them), 10 OpenInference
			// traces one by one, 10 Langfuse exports in two posts.
			const genai = Array.from({ length: 10 }, (_, i) => otlpTrace('otlp-genai.json', i, salt));
			const batch = { resourceSpans: genai.flatMap((g) => g.trace.resourceSpans) };
			let res = await hook('rag-eval-traces', batch);
			assert.equal(res.status, 202, res.text);
			assert.equal(res.json.received, 10);
			for (let i = 0; i < 10; i++) {
				const oi = otlpTrace('openinference.json', i, salt);
				res = await hook('rag-eval-traces', { trace: oi.trace });
				assert.equal(res.status, 202, res.text);
				posted.push({ ...oi, format: 'openinference' });
			}
			const lf = Array.from({ length: 10 }, (_, i) => langfuseTrace(i, salt));
			for (const part of [lf.slice(0, 5), lf.slice(5)]) {
				res = await hook('rag-eval-traces', { traces: part.map((x) => x.trace) });
				assert.equal(res.status, 202, res.text);
			}
			posted.push(
				...genai.map((g) => ({ ...g, format: 'genai' })),
				...lf.map((x) => ({ ...x, format: 'langfuse' })),
			);
		};
		await check(
			'pushed traces: a wrong or missing token is refused and stores nothing',
			async () => {
				const one = otlpTrace('otlp-genai.json', 99, 'refused');
				const wrong = await hook('rag-eval-traces', one.trace, {
					authorization: 'Bearer not-the-token',
				});
				assert.equal(wrong.status, 403, wrong.text);
				const none = await hook('rag-eval-traces', one.trace, {});
				assert.ok([401, 403].includes(none.status), String(none.status));
				assert.equal((await tableRows()).length, 0);
			},
		);
		await check(
			'pushed traces: the seeded share of OTLP GenAI, OpenInference and Langfuse traces is kept',
			async () => {
				await postTraces('night1');
				await sleep(1500);
				const rows = await tableRows();
				const expected = tracesKept(
					posted.map((p) => p.traceId),
					tracesWf,
				);
				assert.deepEqual(rows.map((x) => x.trace_id).sort(), [...expected].sort());
				assert.ok(
					rows.length > 0 && rows.length < posted.length,
					`${rows.length} of ${posted.length}`,
				);
				assert.ok(rows.every((x) => x.status === 'new' && JSON.parse(x.trace)));
			},
		);
		const judgedTraces = [];
		const runNightly = async (label) => {
			const before = slack.messages.length;
			const seen = new Set((await executions(M.tracesWorkflowId)).map((x) => String(x.id)));
			const res = await hook(NIGHTLY_HOOK, {}, {});
			assert.equal(res.status, 200, `${label}: ${res.text.slice(0, 800)}`);
			let mine;
			for (let tries = 0; tries < 60 && !mine; tries++) {
				mine = (await executions(M.tracesWorkflowId)).find(
					(x) => !seen.has(String(x.id)) && x.status === 'success' && x.mode === 'webhook',
				);
				if (!mine) await sleep(500);
			}
			assert.ok(mine, `${label}: the nightly execution`);
			const { runData: rd } = await runData(mine.id);
			fs.writeFileSync(path.join(ARTIFACTS, `traces-${label}.json`), JSON.stringify(rd, null, 1));
			await sleep(500);
			return { rd, id: String(mine.id), slack: slack.messages.length - before };
		};
		await check(
			'pushed traces: the nightly run judges every kept trace once, fills its fields and marks it',
			async () => {
				const kept = (await tableRows()).map((x) => x.trace_id);
				const { rd, id, slack: messages } = await runNightly('night1');
				const rows = out(rd, 'Cost & Latency', 0);
				assert.deepEqual(rows.map((x) => x.request_id).sort(), [...kept].sort());
				assert.equal(out(rd, 'Eval Dataset', 1).length, 0, 'no invalid trace');
				for (const x of rows) {
					const p = posted.find((q) => q.traceId === x.request_id);
					assert.ok(x.request && x.response, `${p.format} ${x.request_id}: request and answer`);
					assert.ok(x.total_token_count > 0, `${p.format}: tokens`);
					if (p.format === 'openinference') assert.ok(x.retrieved_context?.length > 0, 'context');
					for (const k of ['groundedness', 'relevance_to_query', 'safety'])
						assert.ok(
							['ok', 'not_applicable'].includes(x.eval[k]?.status),
							`${k}: ${x.eval[k]?.status}`,
						);
				}
				judgedTraces.push(...rows.map((x) => x.request_id));
				assert.equal(messages, 1, 'one Slack message');
				const after = await tableRows();
				assert.ok(
					after.every((x) => x.status === 'judged' && String(x.judged_in) === id && x.judged_at),
					JSON.stringify(after.map((x) => [x.status, x.judged_in])),
				);
			},
		);
		await check(
			'pushed traces: a night without new traces judges nothing; new traces are judged once',
			async () => {
				const { rd, slack: messages } = await runNightly('night2-empty');
				assert.equal(out(rd, 'Cost & Latency', 0).length, 0);
				assert.equal(messages, 0, 'no message for an empty night');
				// A retry of traces already stored (and judged) stores nothing.
				const stored = await tableRows();
				const again = posted
					.filter((p) => stored.some((x) => x.trace_id === p.traceId))
					.slice(0, 3);
				assert.ok(again.length > 0);
				for (const p of again) {
					const res = await hook('rag-eval-traces', { trace: p.trace });
					assert.equal(res.status, 202, res.text);
				}
				await sleep(1500);
				assert.equal((await tableRows()).length, stored.length, 'a retried trace is stored once');
				await postTraces('night3');
				await sleep(1500);
				const fresh = (await tableRows()).filter((x) => x.status === 'new').map((x) => x.trace_id);
				assert.ok(fresh.length > 0);
				const { rd: rd3 } = await runNightly('night3');
				const rows = out(rd3, 'Cost & Latency', 0).map((x) => x.request_id);
				assert.deepEqual([...rows].sort(), [...fresh].sort());
				judgedTraces.push(...rows);
				assert.equal(new Set(judgedTraces).size, judgedTraces.length, 'no trace judged twice');
				assert.ok((await tableRows()).every((x) => x.status === 'judged'));
			},
		);

		await check(
			"the public API key is in clear in neither n8n's log nor any saved execution",
			async () => {
				assert.ok(key?.secret, 'the key was read back');
				const logText = fs.readFileSync(path.join(ARTIFACTS, 'n8n-server.log'), 'utf8');
				assert.ok(!logText.includes(key.secret), 'not in the server log');
				for (const x of await executions(M.workflowId)) {
					const e = await session.get(`/executions/${x.id}`);
					assert.ok(!JSON.stringify(e).includes(key.secret), `not in monitor execution ${x.id}`);
				}
			},
		);
	} finally {
		fs.writeFileSync(
			path.join(ARTIFACTS, 'slack-messages.json'),
			JSON.stringify(slack.messages, null, 1),
		);
		server.kill('SIGTERM');
		judge.child.kill();
		await slack.close();
	}
	finish();
}

run(main);
