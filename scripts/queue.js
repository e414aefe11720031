#!/usr/bin/env node
// `npm run test:queue`: n8n in queue mode on this machine. Starts Redis (Debian's redis-server,
// 127.0.0.1 only), n8n main with EXECUTIONS_MODE=queue and two workers sharing one user folder,
// runs the batched queue-mode example (each batch a separate queued execution), and asserts that
// batches ran on both workers and that the merged summary equals a single-process run of the same
// dataset. The worker workflow gets a Coherence judge (local judge server): a second queued run
// makes no judge call, as the two workers share verdicts through Redis (issue 15, verdict cache).
// Ends with `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const n8n = require('./n8n-install');

const REPO = n8n.REPO;
const ART = path.join(REPO, 'test-artifacts', 'queue');
const PARENT = 'ragEvalQueueMain01';
const WORKER_WF = 'ragEvalQueueWork01';
const children = [];
// The example webhooks admit only this token (the Header Auth credential imported below).
const TOKEN = crypto.randomBytes(24).toString('base64url');

function log(m) {
	process.stdout.write(`[queue] ${m}\n`);
}

function startProcess(name, cmd, args, env) {
	const file = path.join(ART, `${name}.log`);
	const fd = fs.openSync(file, 'w');
	const child = spawn(cmd, args, { env, stdio: ['ignore', fd, fd] });
	children.push({ name, child });
	return { child, file };
}

async function stopAll() {
	for (const { child } of children.reverse()) {
		if (child.exitCode === null) child.kill('SIGTERM');
	}
	await Promise.all(
		children.map(
			({ child }) =>
				new Promise((r) => {
					if (child.exitCode !== null) return r();
					const t = setTimeout(() => child.kill('SIGKILL'), 20000);
					child.on('exit', () => {
						clearTimeout(t);
						r();
					});
				}),
		),
	);
	children.length = 0;
}

async function waitReady(url, proc, label) {
	const deadline = Date.now() + 180000;
	for (;;) {
		if (proc.child.exitCode !== null) {
			throw new Error(`${label} exited:\n${fs.readFileSync(proc.file, 'utf8').slice(-3000)}`);
		}
		if (
			await fetch(url).then(
				(r) => r.ok,
				() => false,
			)
		)
			return;
		if (Date.now() > deadline) throw new Error(`${label} not ready at ${url}`);
		await new Promise((r) => setTimeout(r, 1000));
	}
}

function ensureRedis() {
	if (spawnSync('which', ['redis-server']).status === 0) return;
	log('installing redis-server from Debian (apt-get)');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	const r = spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], {
		stdio: 'inherit',
		env,
	});
	if (r.status !== 0) throw new Error('could not install redis-server');
}

// Posts to a webhook, waiting while n8n is still activating it (404) after readiness.
async function callWebhook(base, hookPath, body) {
	for (let attempt = 0; ; attempt++) {
		const res = await fetch(`${base}/webhook/${hookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(180000),
		});
		const text = await res.text();
		if (res.status === 404 && attempt < 40) {
			await new Promise((r) => setTimeout(r, 1000));
			continue;
		}
		if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 1000)}`);
		return JSON.parse(text);
	}
}

// Which workflow each execution belongs to, from n8n's own database.
function executionsByWorkflow(userFolder) {
	const sqlite3 = require(path.join(n8n.n8nDir(), 'node_modules', 'sqlite3'));
	const db = new sqlite3.Database(path.join(userFolder, '.n8n', 'database.sqlite'));
	return new Promise((resolve, reject) => {
		db.all('SELECT id, workflowId, status FROM execution_entity', (err, rows) => {
			db.close();
			if (err) reject(err);
			else resolve(new Map(rows.map((r) => [String(r.id), r])));
		});
	});
}

function workerExecutionIds(file) {
	const ids = new Set();
	for (const m of fs.readFileSync(file, 'utf8').matchAll(/started execution (\d+)/gi))
		ids.add(m[1]);
	return ids;
}

// ---- Judge verdict cache in queue mode (issue 15 item 1) ----

/** Starts the local OpenAI-compatible judge server (test/support/openai-server-cli.js). */
async function startJudgeServer() {
	const { url, child } = await n8n.spawnJudgeServer();
	// Not in `children`: it outlives the single-process phase's stopAll().
	process.on('exit', () => child.kill());
	judgeChild = child;
	return url;
}

/** Chat completions the judge server has answered so far. */
async function judgeCalls(judgeUrl) {
	const res = await fetch(`${judgeUrl.replace(/\/v1$/, '')}/__stats`);
	return (await res.json()).chat;
}

let judgeChild = null;
const JUDGE_CREDENTIAL = { id: 'ragEvalQueueJudge1', name: 'Judge model (local test server)' };

/** The worker workflow with a Coherence judge between the rows and the metrics. */
function withJudge(wf) {
	const copy = JSON.parse(JSON.stringify(wf));
	for (const n of copy.nodes) if (n.position[0] >= 440) n.position = [n.position[0] + 220, 0];
	copy.nodes.push({
		id: 'queue-cache-judge',
		name: 'Coherence',
		type: 'n8n-nodes-rag-eval.judgeCoherence',
		typeVersion: 1,
		position: [440, 0],
		parameters: { threshold: 3, options: {} },
		credentials: { ragEvalLlmApi: JUDGE_CREDENTIAL },
	});
	copy.connections.Rows = { main: [[{ node: 'Coherence', type: 'main', index: 0 }]] };
	copy.connections.Coherence = { main: [[{ node: 'F1 Score', type: 'main', index: 0 }]] };
	return copy;
}

async function main() {
	const t0 = Date.now();
	let passed = 0;
	const failed = [];
	const record = (name, err) => {
		if (err) {
			failed.push(name);
			log(`FAIL ${name}: ${err.stack || err.message || err}`);
		} else {
			passed++;
			log(`ok   ${name}`);
		}
	};
	await n8n.ensureN8n();
	n8n.buildIfStale();
	ensureRedis();
	fs.rmSync(ART, { recursive: true, force: true });
	fs.mkdirSync(ART, { recursive: true });
	const userFolder = path.join(ART, 'n8n-user');
	n8n.installPackage(userFolder, n8n.packPackage(path.join(ART, 'pack')));
	const base = n8n.n8nEnv(userFolder, { N8N_LOG_LEVEL: 'info' });

	const imp = path.join(ART, 'import');
	fs.mkdirSync(imp, { recursive: true });
	for (const f of ['batched-queue-mode.workflow.json', 'batched-queue-mode-worker.workflow.json']) {
		fs.copyFileSync(path.join(REPO, 'examples', f), path.join(imp, f));
	}
	const workerFile = path.join(imp, 'batched-queue-mode-worker.workflow.json');
	fs.writeFileSync(
		workerFile,
		JSON.stringify(withJudge(JSON.parse(fs.readFileSync(workerFile, 'utf8'))), null, '\t'),
	);
	const judgeUrl = await startJudgeServer();
	log(`judge test server at ${judgeUrl}`);
	const judgeCred = {
		...JUDGE_CREDENTIAL,
		type: 'ragEvalLlmApi',
		data: {
			provider: 'compatible',
			apiKey: 'queue-test-key',
			baseUrl: judgeUrl,
			model: 'e2e-judge',
		},
	};
	const credFile = path.join(ART, 'credentials.json');
	fs.writeFileSync(credFile, JSON.stringify([n8n.webhookCredential(TOKEN), judgeCred]), {
		mode: 0o600,
	});
	let r = await n8n.runN8n(['import:credentials', `--input=${credFile}`], base);
	fs.rmSync(credFile, { force: true });
	if (r.status !== 0) throw new Error(`importing the webhook credential failed:\n${r.stderr}`);
	r = await n8n.runN8n(['import:workflow', '--separate', `--input=${imp}`], base);
	if (r.status !== 0) throw new Error(`import failed:\n${r.stderr}`);
	for (const id of [PARENT, WORKER_WF]) {
		r = await n8n.runN8n(['publish:workflow', `--id=${id}`], base);
		if (r.status !== 0) throw new Error(`publish ${id} failed:\n${r.stderr}`);
	}
	const body = { batchSize: 1 };

	// 1. The reference: the same workflow on one regular-mode process.
	let single;
	{
		const port = await n8n.freePort();
		const env = {
			...base,
			N8N_PORT: String(port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		};
		const s = Date.now();
		const main = startProcess('single', 'node', [n8n.n8nBin(), 'start'], env);
		try {
			await waitReady(`http://127.0.0.1:${port}/healthz/readiness`, main, 'single-process n8n');
			single = await callWebhook(`http://127.0.0.1:${port}`, 'rag-eval-batched', body);
			record(
				'single-process run answers with a merged summary of 8 rows',
				single.rows === 8 ? null : new Error(JSON.stringify(single).slice(0, 500)),
			);
		} catch (e) {
			record('single-process run', e);
		} finally {
			await stopAll();
		}
		log(`single-process phase ${((Date.now() - s) / 1000).toFixed(0)} s`);
	}

	// 2. Queue mode: Redis, main, two workers.
	const s = Date.now();
	try {
		const redisPort = await n8n.freePort();
		const redis = startProcess(
			'redis',
			'redis-server',
			['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
			process.env,
		);
		for (let i = 0; i < 50; i++) {
			const ping = spawnSync('redis-cli', ['-p', String(redisPort), 'ping'], { encoding: 'utf8' });
			if (ping.stdout.trim() === 'PONG') break;
			if (redis.child.exitCode !== null) throw new Error('redis-server exited');
			await new Promise((res) => setTimeout(res, 200));
		}
		const queueEnv = {
			...base,
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redisPort),
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
		};
		const port = await n8n.freePort();
		const main = startProcess('main', 'node', [n8n.n8nBin(), 'start'], {
			...queueEnv,
			N8N_PORT: String(port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		});
		await waitReady(`http://127.0.0.1:${port}/healthz/readiness`, main, 'n8n main');
		const workers = [];
		for (const name of ['worker-1', 'worker-2']) {
			const healthPort = await n8n.freePort();
			const w = startProcess(name, 'node', [n8n.n8nBin(), 'worker', '--concurrency=2'], {
				...queueEnv,
				// Each worker its own disk cache folder: shared hits can only come through Redis.
				RAG_EVAL_CACHE_DIR: path.join(ART, `${name}-disk-cache`),
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
			});
			workers.push({ name, ...w });
			await waitReady(`http://127.0.0.1:${healthPort}/healthz/readiness`, w, name);
		}
		log('redis, main and two workers are up');
		const callsBefore = await judgeCalls(judgeUrl);
		const merged = await callWebhook(`http://127.0.0.1:${port}`, 'rag-eval-batched', body);
		const callsCold = (await judgeCalls(judgeUrl)) - callsBefore;
		await new Promise((res) => setTimeout(res, 1500));
		const execs = await executionsByWorkflow(userFolder);
		const perWorker = workers.map((w) => {
			const ids = [...workerExecutionIds(w.file)];
			return {
				name: w.name,
				batches: ids.filter((id) => execs.get(id)?.workflowId === WORKER_WF).length,
				all: ids.length,
			};
		});
		log(
			`executions per worker: ${perWorker.map((w) => `${w.name} ${w.all} (batches ${w.batches})`).join(', ')}`,
		);
		record(
			'queue mode: batch executions ran on both workers',
			(() => {
				try {
					for (const w of perWorker) assert.ok(w.batches >= 1, `${w.name} ran no batch`);
					assert.equal(
						perWorker.reduce((a, w) => a + w.batches, 0),
						8,
						'8 batches of 1 row',
					);
					return null;
				} catch (e) {
					return e;
				}
			})(),
		);
		record(
			'queue mode: merged summary equals the single-process run',
			(() => {
				try {
					assert.ok(single, 'single-process reference available');
					assert.deepEqual(merged, single);
					return null;
				} catch (e) {
					return e;
				}
			})(),
		);
		// 3. The same run again: every verdict is in Redis, whichever worker judged it.
		const seen = new Map(workers.map((w) => [w.name, workerExecutionIds(w.file)]));
		const warm = await callWebhook(`http://127.0.0.1:${port}`, 'rag-eval-batched', body);
		const callsWarm = (await judgeCalls(judgeUrl)) - callsBefore - callsCold;
		await new Promise((res) => setTimeout(res, 1500));
		const execs2 = await executionsByWorkflow(userFolder);
		const warmPerWorker = workers.map((w) => {
			const ids = [...workerExecutionIds(w.file)].filter((id) => !seen.get(w.name).has(id));
			return ids.filter((id) => execs2.get(id)?.workflowId === WORKER_WF).length;
		});
		const redisKeys = spawnSync(
			'redis-cli',
			['-p', String(redisPort), '--scan', '--pattern', 'n8n-rag-eval:verdict:*'],
			{ encoding: 'utf8' },
		)
			.stdout.split('\n')
			.filter((l) => l.trim() !== '');
		log(
			`judge calls: cold ${callsCold}, warm ${callsWarm}; warm batches per worker ${warmPerWorker.join(', ')}; verdicts in Redis ${redisKeys.length}`,
		);
		record(
			'queue mode: a second run makes no judge call; both workers answer from the shared Redis cache',
			(() => {
				try {
					assert.equal(callsCold, 8, 'the cold run judges each of the 8 rows once');
					assert.equal(callsWarm, 0, 'the warm run makes no judge call');
					assert.equal(redisKeys.length, 8, '8 verdicts stored in Redis');
					for (const n of warmPerWorker) assert.ok(n >= 1, 'each worker ran a warm batch');
					assert.equal(merged.cost.calls, 8);
					assert.equal(warm.cost.calls, 0);
					assert.equal(warm.cost.totalTokens, 0);
					assert.equal(warm.cost.saved.calls, 8);
					assert.equal(warm.cost.saved.totalTokens, merged.cost.totalTokens);
					assert.deepEqual(warm.perMetric, merged.perMetric);
					return null;
				} catch (e) {
					return e;
				}
			})(),
		);
	} catch (e) {
		record('queue mode run', e);
	} finally {
		await stopAll();
	}
	log(
		`queue phase ${((Date.now() - s) / 1000).toFixed(0)} s; total ${((Date.now() - t0) / 1000).toFixed(0)} s`,
	);
	judgeChild?.kill();
	process.stdout.write(`${passed} passed, ${failed.length} failed\n`);
	process.exitCode = failed.length ? 1 : 0;
}

main().catch(async (e) => {
	process.stderr.write(`[queue] ${e.stack || e}\n`);
	await stopAll();
	process.stdout.write('0 passed, 1 failed\n');
	process.exit(1);
});
