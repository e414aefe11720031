#!/usr/bin/env node
// `npm run test:e2e`: the real n8n 2.41.1 CLI loads our packed package from `~/.n8n/nodes` (the
// folder Settings -> Community Nodes installs into), imports every example workflow and the E2E
// workflows under test/e2e/workflows, executes them with `n8n execute`, and the specs in
// test/e2e/*.spec.js assert on the node outputs. Judge nodes talk to the local OpenAI-compatible
// test server through an imported credential. Ends with `N passed, N failed`; exit 1 on any failure.
//
//   node scripts/e2e.js [--only=<text> | --only <text>] [--browser] [--queue] [--registry]
//
// --only (or E2E_ONLY) runs just the specs whose name contains the text (case-insensitive; several
// texts separated by commas); the
// check that every example has a spec is then skipped. A spec module may export `setup(ctx)` /
// `teardown()` (local stand-in services), `workflows()` (extra workflows to import, e.g. an
// example pointed at the stand-ins) and `credentials()`; a spec with `executions: [...]` runs its
// workflow once per entry, in order, each entry's `before()` then `check(run, ctx)`.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const n8n = require('./n8n-install');

const REPO = n8n.REPO;
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'e2e');
const PAYLOAD_SIZE_MAX_MIB = 2;

function log(msg) {
	process.stdout.write(`[e2e] ${msg}\n`);
}

/** The local judge test server, or null when this checkout has no test server CLI. */
function startJudgeServer() {
	const cli = path.join(REPO, 'test', 'support', 'openai-server-cli.js');
	return fs.existsSync(cli) ? n8n.spawnJudgeServer() : Promise.resolve(null);
}

/** Parses the run data JSON that `n8n execute --rawOutput` prints after its log lines. */
function parseRun(stdout) {
	return readRun(stdout).run;
}

/**
 * The run data `n8n execute --rawOutput` prints, and why it could not be read. The block is
 * pretty-printed, so its closing brace is the first unindented `}` after its opening `{`; lines
 * that n8n's own processes print while the run is under way or shutting down (task runner
 * notices, a multi-line error object at exit) may land before, after or inside it, so a block
 * that does not parse is read again without the unindented lines that cannot belong to it.
 */
function readRun(stdout) {
	const lines = stdout.split('\n');
	const start = lines.findIndex((l) => l === '{');
	if (start < 0) return { run: null, problem: 'no line "{" opens a run block in stdout' };
	const end = lines.indexOf('}', start + 1);
	if (end < 0)
		return { run: null, problem: `the run block opened at line ${start + 1} never closes` };
	const block = lines.slice(start, end + 1);
	try {
		return { run: JSON.parse(block.join('\n')) };
	} catch (e) {
		const stray = block.filter((l, i) => i > 0 && i < block.length - 1 && !/^\s/.test(l));
		const kept = block.filter((l, i) => i === 0 || i === block.length - 1 || /^\s/.test(l));
		try {
			return { run: JSON.parse(kept.join('\n')), stray };
		} catch {
			return {
				run: null,
				problem: `lines ${start + 1}-${end + 1} do not parse (${e.message}); unindented lines inside: ${JSON.stringify(stray.slice(0, 5))}`,
			};
		}
	}
}

/** Output items of a node: `out(run, 'Node', outputIndex)` -> json objects. */
function out(run, nodeName, output = 0) {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run`);
	const main = runs[runs.length - 1].data?.main ?? [];
	return (main[output] ?? []).map((i) => i.json);
}

function loadWorkflows() {
	const files = [];
	const exDir = path.join(REPO, 'examples');
	for (const f of fs.existsSync(exDir) ? fs.readdirSync(exDir) : []) {
		if (f.endsWith('.workflow.json')) files.push(path.join(exDir, f));
	}
	const e2eDir = path.join(REPO, 'test', 'e2e', 'workflows');
	for (const f of fs.existsSync(e2eDir) ? fs.readdirSync(e2eDir) : []) {
		if (f.endsWith('.json')) files.push(path.join(e2eDir, f));
	}
	// E2E-only workflows take the bundled sample dataset from the file, so they compare like with like.
	const sample = fs
		.readFileSync(path.join(exDir, 'datasets', 'rag-support-sample.jsonl'), 'utf8')
		.trim();
	return files.map((file) => {
		const wf = JSON.parse(fs.readFileSync(file, 'utf8'));
		for (const node of wf.nodes)
			if (node.parameters.text === '__DATASET__') node.parameters.text = sample;
		return { file, wf };
	});
}

/** Credential JSON that `n8n import:credentials` encrypts on import. */
function judgeCredential(baseUrl) {
	return {
		id: 'ragEvalJudgeLocal1',
		name: 'Judge model (local test server)',
		type: 'ragEvalLlmApi',
		data: { provider: 'compatible', apiKey: 'e2e-test-key', baseUrl, model: 'e2e-judge' },
	};
}

async function main() {
	const t0 = Date.now();
	const timings = [];
	const step = async (label, fn) => {
		const s = Date.now();
		const r = await fn();
		timings.push(`${label} ${((Date.now() - s) / 1000).toFixed(1)} s`);
		return r;
	};
	await step('n8n install', () => n8n.ensureN8n());
	await step('build', () => n8n.buildIfStale());
	fs.rmSync(ARTIFACTS, { recursive: true, force: true });
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	const userFolder = path.join(ARTIFACTS, 'n8n-user');
	const pkg = await step('pack + install into ~/.n8n/nodes', () => {
		const tgz = n8n.packPackage(path.join(ARTIFACTS, 'pack'));
		return n8n.installPackage(userFolder, tgz);
	});
	log(`package declares ${pkg.nodes.length} nodes`);

	const judge = await startJudgeServer().catch((e) => {
		log(`judge test server failed to start: ${e.message}`);
		return null;
	});
	if (judge) {
		log(`judge test server at ${judge.url}`);
		process.on('exit', () => judge.child.kill());
	} else
		log(
			'no judge test server (test/support/openai-server-cli.js): judge specs run without a model',
		);

	const env = n8n.n8nEnv(userFolder, {
		N8N_LOG_LEVEL: 'info',
		N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		// A running n8n copies published workflows into its publication store from an outbox it
		// polls; the one-shot CLI never does, so sub-workflows are read from the workflow itself.
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
	});
	const importDir = path.join(ARTIFACTS, 'import');
	fs.mkdirSync(importDir, { recursive: true });
	const cred = judge ? judgeCredential(judge.url) : null;
	// The example webhooks admit only callers with this run's token (n8n Header Auth credential).
	const webhookToken = crypto.randomBytes(24).toString('base64url');
	const chatCred = judge ? n8n.openAiCredential('e2e-test-key', judge.url, 'e2e-agent') : null;
	const workflows = loadWorkflows();
	const wanted = onlyFilter() ?? [];
	const matches = (spec) =>
		!wanted.length || wanted.some((w) => spec.name.toLowerCase().includes(w));
	const modules = fs
		.readdirSync(path.join(REPO, 'test', 'e2e'))
		.filter((f) => f.endsWith('.spec.js'))
		.map((f) => require(path.join(REPO, 'test', 'e2e', f)))
		.filter((mod) => mod.some(matches));
	const extraCredentials = [];
	for (const mod of modules) {
		if (typeof mod.setup === 'function') {
			await step('spec setup', () => mod.setup({ judge: judge ? judge.url : null }));
			process.on('exit', () => mod.teardown?.());
		}
		for (const wf of mod.workflows?.() ?? [])
			workflows.push({ file: path.join(REPO, 'test', 'e2e', `${wf.id}.derived.json`), wf });
		extraCredentials.push(...(mod.credentials?.() ?? []));
	}
	const imported = workflows.length;
	for (const { file, wf } of workflows.slice()) {
		// Workflows a spec derived for its stand-ins keep the credentials the spec chose.
		const derived = file.endsWith('.derived.json');
		const w = cred && !derived ? n8n.withCredential(wf, cred, chatCred) : wf;
		fs.writeFileSync(path.join(importDir, path.basename(file)), JSON.stringify(w, null, 2));
		// Each example also runs as a newcomer without OPENAI_API_KEY gets it: no judge credential.
		// Webhook examples are left out: a copy could not be published beside the original, as
		// both would claim the same webhook path. So is the Evaluations-tab example.
		const hasJudge =
			// Judge Agreement compares labels: it calls no judge model.
			wf.nodes.some(
				(n) =>
					n.type.startsWith('n8n-nodes-rag-eval.judge') &&
					n.type !== 'n8n-nodes-rag-eval.judgeAgreement',
			) &&
			!wf.nodes.some((n) => n.type.startsWith('@n8n/n8n-nodes-langchain.lmChat')) &&
			!wf.nodes.some((n) => n.type === 'n8n-nodes-base.webhook') &&
			// Eval Executions reads a running n8n's public API: its suite (monitor.suite.js) runs it.
			!wf.nodes.some((n) => n.type === 'n8n-nodes-rag-eval.evalExecutions') &&
			// An Evaluation Trigger runs only under n8n's test runner (its own suite), not `n8n execute`;
			// a Form Trigger only in a running n8n (the review example's own suite).
			!wf.nodes.some(
				(n) =>
					n.type === 'n8n-nodes-base.evaluationTrigger' || n.type === 'n8n-nodes-base.formTrigger',
			);
		if (hasJudge && file.includes(`${path.sep}examples${path.sep}`)) {
			const bare = { ...wf, id: `${wf.id}N`, name: `${wf.name} (no judge model)` };
			fs.writeFileSync(
				path.join(importDir, `bare-${path.basename(file)}`),
				JSON.stringify(bare, null, 2),
			);
			workflows.push({ file: `${file}#bare`, wf: bare });
		}
	}
	const failures = [];
	let passed = 0;
	const record = (name, err) => {
		if (err) {
			failures.push(name);
			log(`FAIL ${name}: ${err.message || err}`);
		} else {
			passed++;
			log(`ok   ${name}`);
		}
	};

	{
		const credFile = path.join(ARTIFACTS, 'credentials.json');
		// The webhook token credential always; the judge and chat credentials with a judge server;
		// and whatever stand-in credentials the specs bring.
		const creds = [n8n.webhookCredential(webhookToken), ...extraCredentials];
		if (cred) {
			const { model, ...chat } = chatCred;
			void model;
			creds.push(cred, chat);
		}
		fs.writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
		const r = await step('import credentials', () =>
			n8n.runN8n(['import:credentials', `--input=${credFile}`], env),
		);
		fs.rmSync(credFile, { force: true });
		record(
			`import ${cred ? 'judge and webhook credentials' : 'webhook credential'}`,
			r.status === 0 ? null : new Error(r.stderr.slice(-2000)),
		);
	}
	const imp = await step('import workflows', () =>
		n8n.runN8n(['import:workflow', '--separate', `--input=${importDir}`], env),
	);
	record(
		`import ${workflows.length} workflows (${imported} files)`,
		imp.status === 0 && !/error/i.test(imp.stderr)
			? null
			: new Error(`${imp.stdout}\n${imp.stderr}`.slice(-3000)),
	);

	try {
		const ids = await step('publish sub-workflows', () =>
			n8n.publishSubWorkflows(
				workflows.map((w) => w.wf),
				env,
			),
		);
		record(`publish ${ids.length} sub-workflows`, null);
	} catch (e) {
		record('publish sub-workflows', e);
	}

	const specs = modules.flatMap((mod) => mod);
	const selected = specs.filter(matches);
	const only = wanted.length ? wanted : null;
	if (only) log(`--only ${only.join(',')}: ${selected.length} of ${specs.length} specs`);
	const ctx = {
		out,
		judge: judge ? judge.url : null,
		dist: path.join(REPO, 'dist'),
		pkg,
		webhookToken,
		payloadSizeMaxMiB: PAYLOAD_SIZE_MAX_MIB,
		serverLog: path.join(ARTIFACTS, 'n8n-server.log'),
		// Chat completions the local judge server has answered so far (its request log).
		judgeCalls: judge
			? async () => (await fetch(new URL('/__stats', judge.url)).then((r) => r.json())).chat
			: null,
		// Judge verdicts are cached on disk in the user folder (issue 15): every execution starts
		// cold, so its judge-call counts are its own. The cache is tested by the queue suite.
		coldJudgeCache: () =>
			fs.rmSync(path.join(userFolder, '.n8n', 'rag-eval-cache'), { recursive: true, force: true }),
	};
	const byId = new Map(workflows.map(({ wf }) => [wf.id, wf]));
	const covered = new Set();
	for (const spec of selected.filter((s) => !s.webhook && !s.suite)) {
		if (!byId.has(spec.workflowId)) {
			record(
				spec.name,
				new Error(`workflow ${spec.workflowId} not found among imported workflows`),
			);
			continue;
		}
		covered.add(spec.workflowId);
		for (const id of spec.covers || []) covered.add(id);
		// One execution per entry, in order (e.g. two nights of the same workflow).
		const executions = spec.executions || [{ check: spec.check }];
		for (let k = 0; k < executions.length; k++) {
			const ex = executions[k];
			const name =
				executions.length > 1 ? `${spec.name} [${ex.name || `run ${k + 1}`}]` : spec.name;
			try {
				await ex.before?.(ctx);
			} catch (e) {
				record(name, e);
				continue;
			}
			ctx.coldJudgeCache();
			const r = await n8n.runN8n(['execute', '--id', spec.workflowId, '--rawOutput'], env, {
				timeoutMs: 240000,
				stdoutFile: path.join(ARTIFACTS, `${spec.workflowId}.stdout.tmp`),
			});
			timings.push(`execute ${spec.workflowId} ${r.seconds.toFixed(1)} s`);
			fs.writeFileSync(
				path.join(ARTIFACTS, `${spec.workflowId}${k ? `.${k + 1}` : ''}.out.txt`),
				`${r.stdout}\n--- stderr\n${r.stderr}`,
			);
			const { run, problem, stray } = readRun(r.stdout);
			if (stray?.length) log(`${name}: ignored ${stray.length} stray line(s) inside the run block`);
			try {
				if (!run)
					throw new Error(
						`no run data (exit ${r.status}): ${problem}\n${r.stdout.slice(0, 1500)}\n...\n${(r.stdout + r.stderr).slice(-1500)}`,
					);
				const err = run.data.resultData.error;
				if (err)
					throw new Error(
						`execution failed in node ${err.node?.name ?? '?'}: ${err.message} ${err.description ?? ''}`,
					);
				await ex.check(run, ctx);
				record(name, null);
			} catch (e) {
				record(name, e);
			}
		}
	}
	const hooks = selected.filter((s) => s.webhook);
	if (hooks.length) {
		await step('webhook phase', () => runWebhookSpecs(hooks, env, byId, covered, record, ctx));
	}
	// Specs that need a running n8n of their own (`suite`: a script printing `N passed, N failed`).
	for (const spec of selected.filter((s) => s.suite)) {
		covered.add(spec.workflowId);
		for (const id of spec.covers || []) covered.add(id);
		const s = Date.now();
		const r = await runChild(spec.suite);
		timings.push(`${path.basename(spec.suite)} ${((Date.now() - s) / 1000).toFixed(0)} s`);
		const m = r.stdout.match(/^(\d+) passed, (\d+) failed$/m);
		if (!m) record(spec.name, new Error(`no summary line (exit ${r.status})`));
		else if (Number(m[2]) > 0) record(spec.name, new Error(`${m[2]} of its checks failed`));
		else record(spec.name, null);
	}
	// The judge key may not sit in clear in n8n's database (credentials, saved executions), its
	// log or any node's items. The webhook token is checked in the log and the items only: n8n
	// 2.41 saves a webhook's request headers, Authorization included, with each saved execution
	// (README, Security).
	record(
		"the judge key is in clear in neither n8n's database, its log nor any node's items",
		secretsInClear(userFolder, [{ name: 'judge key', value: cred && cred.data.apiKey, db: true }]),
	);
	record(
		"the webhook token is in clear in neither n8n's log nor any node's items",
		secretsInClear(userFolder, [{ name: 'webhook token', value: webhookToken, db: false }]),
	);
	// Every example must be exercised: an example nobody runs is an example that may not run.
	for (const { file, wf } of only ? [] : workflows) {
		if (file.includes(`${path.sep}examples${path.sep}`) && !covered.has(wf.id)) {
			record(`example ${path.basename(file)} has an E2E spec`, new Error('no spec executes it'));
		}
	}
	if (judge) judge.child.kill();
	for (const mod of modules) await mod.teardown?.();
	// Optional suites in their own processes, counted in the one closing line:
	// --browser (or E2E_BROWSER=1), --queue (or E2E_QUEUE=1) and --registry (or E2E_REGISTRY=1:
	// installed from a local npm registry through Settings -> Community Nodes, test/registry).
	const extra = [
		['browser', path.join(REPO, 'test', 'browser', 'editor.browser.js'), 'E2E_BROWSER'],
		['queue', path.join(REPO, 'scripts', 'queue.js'), 'E2E_QUEUE'],
		['registry', path.join(REPO, 'test', 'registry', 'community-nodes.js'), 'E2E_REGISTRY'],
	];
	for (const [name, script, envVar] of extra) {
		if (!process.argv.includes(`--${name}`) && process.env[envVar] !== '1') continue;
		const s = Date.now();
		const r = await runChild(script);
		timings.push(`${name} suite ${((Date.now() - s) / 1000).toFixed(0)} s`);
		const m = r.stdout.match(/^(\d+) passed, (\d+) failed$/m);
		if (!m) {
			record(`${name} suite`, new Error(`no summary line (exit ${r.status})`));
			continue;
		}
		passed += Number(m[1]);
		for (let i = 0; i < Number(m[2]); i++) failures.push(`${name} #${i + 1}`);
		if (r.status !== 0 && Number(m[2]) === 0)
			record(`${name} suite exit`, new Error(`exit ${r.status}`));
	}
	log(`timings: ${timings.join('; ')}; total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	process.stdout.write(`${passed} passed, ${failures.length} failed\n`);
	process.exitCode = failures.length ? 1 : 0;
}

/** Lower-cased texts of `--only a,b` (or `--only=a,b`) or E2E_ONLY, or null to run every spec. */
function onlyFilter() {
	const i = process.argv.indexOf('--only');
	const eq = process.argv.find((a) => a.startsWith('--only='));
	const raw = eq ? eq.slice('--only='.length) : i >= 0 ? process.argv[i + 1] : process.env.E2E_ONLY;
	if (!raw) return null;
	return raw
		.split(',')
		.map((t) => t.trim().toLowerCase())
		.filter(Boolean);
}

/**
 * Error naming the files that contain a secret in clear, or null: n8n's database (credentials,
 * saved executions), its logs, and the run data `n8n execute` printed (every node's items).
 */
function secretsInClear(userFolder, secrets) {
	const files = [path.join(ARTIFACTS, 'n8n-server.log')];
	for (const f of fs.readdirSync(ARTIFACTS)) {
		if (f.endsWith('.out.txt')) files.push(path.join(ARTIFACTS, f));
	}
	const dir = path.join(userFolder, '.n8n');
	for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
		if (f.startsWith('database.sqlite') || f.endsWith('.log')) files.push(path.join(dir, f));
	}
	const found = [];
	for (const file of files.filter((f) => fs.existsSync(f))) {
		const bytes = fs.readFileSync(file);
		const isDb = path.basename(file).startsWith('database.sqlite');
		for (const { name, value, db } of secrets) {
			if (value && (db || !isDb) && bytes.includes(value))
				found.push(`${name} in ${path.basename(file)}`);
		}
	}
	if (!files.some((f) => path.basename(f) === 'database.sqlite' && fs.existsSync(f)))
		return new Error('no n8n database to scan');
	return found.length ? new Error(found.join('; ')) : null;
}

// Runs a suite script with this Node, echoing its output and keeping it for the summary line.
function runChild(script) {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [script], {
			cwd: REPO,
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let stdout = '';
		child.stdout.on('data', (d) => {
			stdout += d;
			process.stdout.write(String(d).replace(/^(\d+ passed, \d+ failed)$/gm, '(suite) $1'));
		});
		child.on('close', (status) => resolve({ status, stdout }));
	});
}

/**
 * Webhook-triggered examples cannot start from `n8n execute`, so they are published and called
 * over HTTP on a running `n8n start`, the way a CI job calls them.
 */
async function runWebhookSpecs(hooks, env, byId, covered, record, ctx) {
	const published = new Set();
	for (const spec of hooks) {
		if (!byId.has(spec.workflowId)) {
			record(spec.name, new Error(`workflow ${spec.workflowId} not found`));
			continue;
		}
		for (const id of [spec.workflowId, ...(spec.covers || [])]) {
			if (published.has(id)) continue;
			published.add(id);
			const r = await n8n.runN8n(['publish:workflow', `--id=${id}`], env);
			if (r.status !== 0)
				record(`publish ${id}`, new Error(`${r.stdout}\n${r.stderr}`.slice(-2000)));
		}
	}
	const port = Number(process.env.E2E_N8N_PORT || (await n8n.freePort()));
	const serverEnv = {
		...env,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		// info: a failed start says why in n8n-server.log, and the secret scan reads more of n8n.
		N8N_LOG_LEVEL: 'info',
		// n8n's request body limit, lowered from its 16 MiB default so a spec can cross it cheaply.
		N8N_PAYLOAD_SIZE_MAX: String(PAYLOAD_SIZE_MAX_MIB),
	};
	const logFile = fs.openSync(path.join(ARTIFACTS, 'n8n-server.log'), 'w');
	const server = spawn('node', [n8n.n8nBin(), 'start'], {
		env: serverEnv,
		stdio: ['ignore', logFile, logFile],
	});
	try {
		const base = `http://127.0.0.1:${port}`;
		const deadline = Date.now() + 180000;
		for (;;) {
			if (server.exitCode !== null) throw new Error(`n8n start exited with ${server.exitCode}`);
			const ok = await fetch(`${base}/healthz/readiness`).then(
				(x) => x.ok,
				() => false,
			);
			if (ok) break;
			if (Date.now() > deadline) throw new Error('n8n start did not become ready');
			await new Promise((res) => setTimeout(res, 1000));
		}
		for (const spec of hooks) {
			covered.add(spec.workflowId);
			for (const id of spec.covers || []) covered.add(id);
			try {
				// Readiness comes before n8n has finished activating published workflows, so a 404
				// for our webhook means "not yet" for a little while.
				// Callers send the token unless the spec says which headers to send (none, a wrong one).
				const auth = spec.webhook.headers
					? spec.webhook.headers(ctx)
					: { authorization: `Bearer ${ctx.webhookToken}` };
				ctx.coldJudgeCache();
				const callsBefore = ctx.judgeCalls ? await ctx.judgeCalls() : null;
				let res;
				for (let attempt = 0; ; attempt++) {
					res = await fetch(`${base}/webhook/${spec.webhook.path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json', ...auth },
						body: JSON.stringify(spec.webhook.body()),
						signal: AbortSignal.timeout(120000),
					});
					if (res.status !== 404 || attempt >= 30) break;
					await res.text();
					await new Promise((r) => setTimeout(r, 1000));
				}
				const text = await res.text();
				let body = null;
				try {
					body = JSON.parse(text);
				} catch {
					if (!spec.webhook.textBody)
						throw new Error(`HTTP ${res.status}, not JSON: ${text.slice(0, 500)}`);
				}
				// An execution may go on after it answered; give it a moment before counting calls.
				let judgeCalls = null;
				if (callsBefore !== null) {
					await new Promise((r) => setTimeout(r, 1500));
					judgeCalls = (await ctx.judgeCalls()) - callsBefore;
				}
				await spec.check({ status: res.status, body, text, judgeCalls }, ctx);
				record(spec.name, null);
			} catch (e) {
				record(spec.name, e);
			}
		}
	} catch (e) {
		for (const spec of hooks) record(spec.name, e);
	} finally {
		server.kill('SIGTERM');
		await new Promise((res) => (server.exitCode !== null ? res() : server.on('exit', res)));
		fs.closeSync(logFile);
	}
}

module.exports = { parseRun, out };

if (require.main === module) {
	main().catch((e) => {
		process.stderr.write(`[e2e] ${e.stack || e}\n`);
		process.stdout.write('0 passed, 1 failed\n');
		process.exit(1);
	});
}
