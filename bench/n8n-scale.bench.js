#!/usr/bin/env node
/**
 * Scale in real n8n: a synthetic dataset (the bundled sample's 8 rows repeated, each request made
 * unique, in a JSONL file read by Read/Write Files and Eval Dataset) through the nightly pipeline's
 * nodes (F1, ROUGE, Groundedness and Relevance judges
 * against the local OpenAI-compatible test server with 50 ms latency per call, Eval Aggregate) in
 * the real n8n 2.41.1 CLI (`n8n execute`), in passes:
 *   one execution  - every row through every node in one workflow execution (the reference);
 *   batched        - the batched example's approach: Loop Over Items + Execute Workflow, each batch
 *                    scored by a sub-workflow returning an Eval Aggregate partial, merged at the end;
 *   engine         - the one execution's nodes in n8n-core's engine in a new Node process
 *                    (bench/engine.js, no CLI, no database), as cold as n8n's: what a node costs
 *                    per row without the rest of n8n.
 * Every pass starts cold: its own empty verdict cache folder, so each makes every judge call
 * (counted at the server and printed; a pass that made fewer says WARM). The judges run with
 * Concurrency --concurrency rising to Max Concurrency --max-concurrency (adaptive); the latency
 * bound is judges x rows x latency / max concurrency, printed beside each pass's execution time
 * (n8n's startedAt..stoppedAt, without the CLI's start-up) and beside the judge nodes' time.
 * Prints wall time, peak RSS of the n8n process (sampled every 200 ms from /proc; its task-runner
 * children summed apart), the stored execution data and how much the SQLite database grew, per-node
 * ms per row, the peak of judge requests in flight at the server, CPU seconds of the n8n process and of
 * this process (which hosts the judge server and, in the engine pass, the engine), and the load
 * average. With --rounds N the passes run N times, alternating, and a last block prints the
 * median of each figure and the ratios of the medians (one busy moment moves a single run).
 *
 *   node bench/n8n-scale.bench.js [--rows 10000] [--batch 500] [--latency 50] [--concurrency 8]
 *        [--max-concurrency 32] [--passes one,batched,engine] [--cpu-prof DIR]
 *        [--cpu-prof-interval US] [--no-judges] [--rounds 1]
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execSync } = require('node:child_process');
const n8n = require('../scripts/n8n-install');
const { startJudgeServer } = require('../test/support/openai-server-cli.js');

const REPO = n8n.REPO;
const argOf = (name) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > -1 ? process.argv[i + 1] : undefined;
};
const arg = (name, dflt) => (argOf(name) === undefined ? dflt : Number(argOf(name)));
const ROWS = arg('rows', 10000);
const BATCH = arg('batch', 500);
const LATENCY = arg('latency', 50);
const START = arg('concurrency', 8);
const MAX = arg('max-concurrency', 32);
const PASSES = (argOf('passes') ?? 'one,batched,engine').split(',');
const CPU_PROF = argOf('cpu-prof');
const CPU_PROF_INTERVAL = arg('cpu-prof-interval', 1000);
const ROUNDS = Math.max(1, arg('rounds', 1));
// --no-judges: the metric nodes alone, to compare their per-row time with the engine's.
const NO_JUDGES = process.argv.includes('--no-judges');
const JUDGES = NO_JUDGES ? 0 : 2;
const DIR = path.join(REPO, 'test-artifacts', 'bench-n8n-scale');
const P = 'n8n-nodes-rag-eval';
/** Seconds the judges need at the ceiling: every call back to back, Max Concurrency at a time. */
const BOUND_S = (JUDGES * ROWS * LATENCY) / MAX / 1000;

const sample = fs
	.readFileSync(path.join(REPO, 'examples', 'datasets', 'rag-support-sample.jsonl'), 'utf8')
	.split('\n')
	.filter((l) => l.trim())
	.map((l) => JSON.parse(l));

/** The generated rows: the sample's rows repeated, each request made unique. */
const rows = () =>
	Array.from({ length: ROWS }, (_, i) => {
		const r = sample[i % sample.length];
		return { ...r, query: r.query + ' (case ' + i + ')' };
	});
// n8n reads them from a JSONL file (Read/Write Files -> Eval Dataset's Binary File source), as a
// nightly reads its dataset; the workflow JSON stays small.
const DATASET = path.join(DIR, 'data', 'dataset.jsonl');
const readDataset = () =>
	node(
		'Read Dataset',
		'n8n-nodes-base.readWriteFile',
		[200, 0],
		{ operation: 'read', fileSelector: DATASET, options: {} },
		{ v: 1.1 },
	);
const fromFile = { source: 'binary', binaryProperty: 'data', schema: 'auto' };

let nodeSeq = 0;
function node(name, type, pos, parameters = {}, extra = {}) {
	nodeSeq++;
	const hex = nodeSeq.toString(16).padStart(12, '0');
	return {
		id: `00000000-0000-4000-8000-${hex}`,
		name,
		type,
		typeVersion: extra.v ?? 1,
		position: pos,
		parameters,
		...(extra.cred ? { credentials: { ragEvalLlmApi: extra.cred } } : {}),
	};
}
const chain = (...names) => {
	const c = {};
	for (let i = 0; i + 1 < names.length; i++)
		c[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	return c;
};
function wf(id, name, nodes, connections) {
	return { id, name, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

function scoringNodes(cred, x0) {
	const judge = { threshold: 3, options: { concurrency: START, maxConcurrency: MAX } };
	return [
		node('F1 Score', `${P}.evalF1Score`, [x0, 0]),
		node('ROUGE', `${P}.evalRouge`, [x0 + 200, 0]),
		node('Groundedness', `${P}.judgeGroundedness`, [x0 + 400, 0], judge, { cred }),
		node('Relevance', `${P}.judgeRelevance`, [x0 + 600, 0], judge, { cred }),
	].filter((n) => !NO_JUDGES || !['Groundedness', 'Relevance'].includes(n.name));
}
const JUDGE_NODES = NO_JUDGES ? [] : ['Groundedness', 'Relevance'];
/** The node names of a chain, without the judges under --no-judges. */
const scoring = (...names) =>
	names.filter((n) => !NO_JUDGES || !['Groundedness', 'Relevance'].includes(n));
const METRIC_NODES = ['F1 Score', 'ROUGE'];

function workflows(cred) {
	const one = wf(
		'benchScaleOne0001',
		'bench: one execution',
		[
			node('Run', 'n8n-nodes-base.manualTrigger', [0, 0]),
			readDataset(),
			node('Eval Dataset', `${P}.evalDataset`, [400, 0], fromFile),
			...scoringNodes(cred, 600),
			node('Eval Aggregate', `${P}.evalAggregate`, [1400, 0], { output: 'summary' }),
		],
		chain(
			...scoring(
				'Run',
				'Read Dataset',
				'Eval Dataset',
				'F1 Score',
				'ROUGE',
				'Groundedness',
				'Relevance',
				'Eval Aggregate',
			),
		),
	);
	const worker = wf(
		'benchScaleWork001',
		'bench: batch worker',
		[
			node('Batch In', 'n8n-nodes-base.executeWorkflowTrigger', [0, 0], {
				inputSource: 'passthrough',
			}),
			...scoringNodes(cred, 200),
			node('Partial Aggregate', `${P}.evalAggregate`, [1000, 0], { output: 'partial' }),
		],
		chain(
			...scoring('Batch In', 'F1 Score', 'ROUGE', 'Groundedness', 'Relevance', 'Partial Aggregate'),
		),
	);
	const batched = wf(
		'benchScaleBatch01',
		'bench: batched',
		[
			node('Run', 'n8n-nodes-base.manualTrigger', [0, 0]),
			readDataset(),
			node('Eval Dataset', `${P}.evalDataset`, [400, 0], fromFile),
			node(
				'Batches',
				'n8n-nodes-base.splitInBatches',
				[600, 0],
				{ batchSize: BATCH, options: {} },
				{ v: 3 },
			),
			node(
				'Evaluate Batch',
				'n8n-nodes-base.executeWorkflow',
				[800, 120],
				{
					source: 'database',
					workflowId: { __rl: true, mode: 'id', value: worker.id },
					mode: 'once',
					options: { waitForSubWorkflow: true },
				},
				{ v: 1.2 },
			),
			node('Merged Summary', `${P}.evalAggregate`, [1000, -120], { output: 'summary' }),
		],
		{
			...chain('Run', 'Read Dataset', 'Eval Dataset', 'Batches'),
			Batches: {
				main: [
					[{ node: 'Merged Summary', type: 'main', index: 0 }],
					[{ node: 'Evaluate Batch', type: 'main', index: 0 }],
				],
			},
			'Evaluate Batch': { main: [[{ node: 'Batches', type: 'main', index: 0 }]] },
		},
	);
	return { one, worker, batched };
}

function rssKb(pid) {
	try {
		const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) : 0;
	} catch {
		return 0;
	}
}
/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat; 0 when it is gone. */
const TICKS = (() => {
	try {
		return Number(execSync('getconf CLK_TCK').toString().trim()) || 100;
	} catch {
		return 100;
	}
})();
function cpuSeconds(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return (Number(f[11]) + Number(f[12])) / TICKS;
	} catch {
		return 0;
	}
}
function childPids(pid) {
	try {
		return fs
			.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
			.trim()
			.split(/\s+/)
			.filter(Boolean)
			.map(Number);
	} catch {
		return [];
	}
}
function dbBytes(userFolder) {
	let total = 0;
	for (const f of ['database.sqlite', 'database.sqlite-wal']) {
		const p = path.join(userFolder, '.n8n', f);
		if (fs.existsSync(p)) total += fs.statSync(p).size;
	}
	return total;
}

// Bytes of stored execution data and every execution's id, status, mode and times, read with
// Node's SQLite while no n8n process runs.
function executionData(userFolder) {
	const { DatabaseSync } = require('node:sqlite');
	const db = new DatabaseSync(path.join(userFolder, '.n8n', 'database.sqlite'), { readOnly: true });
	try {
		const bytes = db
			.prepare('SELECT COALESCE(SUM(LENGTH(data)), 0) AS b FROM execution_data')
			.get().b;
		const executions = db
			.prepare('SELECT id, status, mode, startedAt, stoppedAt FROM execution_entity ORDER BY id')
			.all()
			.map((r) => ({
				id: r.id,
				status: r.status,
				mode: r.mode,
				seconds: (Date.parse(`${r.stoppedAt}Z`) - Date.parse(`${r.startedAt}Z`)) / 1000,
			}));
		return { bytes: Number(bytes), executions };
	} finally {
		db.close();
	}
}

// Per node of the given executions: n8n's own executionTime, summed over the runs (a batched
// pass runs each scoring node once per batch, in sub-executions).
function nodeTimes(userFolder, ids) {
	const { DatabaseSync } = require('node:sqlite');
	const { parse } = require(path.join(n8n.n8nDir(), 'node_modules', 'flatted'));
	const db = new DatabaseSync(path.join(userFolder, '.n8n', 'database.sqlite'), { readOnly: true });
	const times = {};
	try {
		const read = db.prepare('SELECT data FROM execution_data WHERE executionId = ?');
		for (const id of ids) {
			const row = read.get(id);
			if (!row) continue;
			const runData = parse(row.data).resultData?.runData ?? {};
			for (const [name, runs] of Object.entries(runData))
				times[name] = (times[name] ?? 0) + runs.reduce((a, r) => a + (r.executionTime ?? 0), 0);
		}
	} finally {
		db.close();
	}
	return times;
}

const load = () =>
	os
		.loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');

function execute(id, env, userFolder, outFile) {
	return new Promise((resolve) => {
		const before = dbBytes(userFolder);
		const dataBefore = executionData(userFolder);
		const t0 = process.hrtime.bigint();
		// n8n execute prints the whole run data as JSON; it goes to a file, not into this process.
		const fd = fs.openSync(outFile, 'w');
		const child = spawn('node', [n8n.n8nBin(), 'execute', '--id', id, '--rawOutput'], {
			env,
			stdio: ['ignore', fd, fd],
		});
		let peakMain = 0;
		let peakChildren = 0;
		let cpu = 0;
		const timer = setInterval(() => {
			// The last reading before the process ends (it cannot be read after): at most 200 ms short.
			cpu = Math.max(cpu, cpuSeconds(child.pid));
			peakMain = Math.max(peakMain, rssKb(child.pid));
			peakChildren = Math.max(
				peakChildren,
				childPids(child.pid).reduce((a, p) => a + rssKb(p), 0),
			);
		}, 200);
		child.on('close', (status) => {
			clearInterval(timer);
			fs.closeSync(fd);
			const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
			const dataAfter = executionData(userFolder);
			const known = new Set(dataBefore.executions.map((e) => e.id));
			const executions = dataAfter.executions.filter((e) => !known.has(e.id));
			const top = executions.find((e) => e.mode !== 'integrated') ?? executions[0];
			resolve({
				status,
				seconds,
				executions,
				executionSeconds: top?.seconds ?? NaN,
				nodes: nodeTimes(
					userFolder,
					executions.map((e) => e.id),
				),
				executionDataMb: (dataAfter.bytes - dataBefore.bytes) / 1024 / 1024,
				peakMainMb: peakMain / 1024,
				peakChildrenMb: peakChildren / 1024,
				n8nCpuSeconds: cpu,
				dbGrowthMb: (dbBytes(userFolder) - before) / 1024 / 1024,
			});
		});
	});
}

/**
 * The one execution's nodes in n8n-core's engine, on the same generated rows, in a new Node
 * process of its own (this file with --engine-child), as cold as the n8n CLI's: a pass in this
 * process would run on code that earlier rounds had already compiled and optimised.
 */
function engineRun(judge, cacheDir) {
	return new Promise((resolve, reject) => {
		const args = [__filename, '--engine-child', cacheDir, judge.baseUrl, '--rows', String(ROWS)];
		for (const flag of ['concurrency', 'max-concurrency'])
			if (argOf(flag) !== undefined) args.push(`--${flag}`, argOf(flag));
		if (NO_JUDGES) args.push('--no-judges');
		const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		let cpu = 0;
		const timer = setInterval(() => (cpu = Math.max(cpu, cpuSeconds(child.pid))), 200);
		child.stdout.on('data', (d) => (out += d));
		child.on('error', reject);
		child.on('close', (status) => {
			clearInterval(timer);
			const line = out.trim().split('\n').pop() ?? '';
			try {
				resolve({ ...JSON.parse(line), status, engineCpuSeconds: cpu });
			} catch {
				reject(new Error(`engine pass exited ${status}: ${out.slice(-2000)}`));
			}
		});
	});
}

/** The child side of {@link engineRun}: runs the nodes, prints one JSON line of its times. */
async function engineChild(cacheDir, baseUrl) {
	const { runWorkflow } = require('./engine');
	const items = rows().map((json) => ({ json }));
	const cred = { id: 'benchJudgeLocal01', name: 'Judge model (local test server)' };
	const nodes = [
		node('Run', 'n8n-nodes-base.manualTrigger', [0, 0]),
		node('Eval Dataset', `${P}.evalDataset`, [400, 0], { source: 'items', schema: 'auto' }),
		...scoringNodes(cred, 600),
		node('Eval Aggregate', `${P}.evalAggregate`, [1400, 0], { output: 'summary' }),
	];
	const names = nodes.map((n) => n.name);
	const connections = {};
	for (let i = 0; i + 1 < names.length; i++)
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	process.env.RAG_EVAL_CACHE_DIR = cacheDir;
	const t0 = process.hrtime.bigint();
	const { nodes: times } = await runWorkflow(
		{ nodes, connections },
		{
			startItems: items,
			credentials: {
				ragEvalLlmApi: { provider: 'compatible', apiKey: 'bench-key', baseUrl, model: 'bench' },
			},
		},
	);
	const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
	const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.ms]));
	const cpu = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.cpuMs]));
	process.stdout.write(
		`\n${JSON.stringify({ seconds, executionSeconds: seconds, nodes: ms, cpu })}\n`,
	);
}

const perRow = (ms) => `${(ms / ROWS).toFixed(ms / ROWS < 0.1 ? 3 : 2)} ms/row`;
const s1 = (x) => `${x.toFixed(1)} s`;

/** The nodes a pass reports on: not the trigger, nor the batched layout's loop and sub-trigger. */
const shownNodes = (nodes) =>
	Object.entries(nodes).filter(([n]) => !['Run', 'Batches', 'Batch In'].includes(n));
/** Per-node time of `a` over `b` for the nodes both layouts share. */
const perNodeRatios = (a, b) =>
	[...METRIC_NODES, ...JUDGE_NODES, 'Eval Dataset', 'Eval Aggregate']
		.map((n) => `${n} ${(a[n] / b[n]).toFixed(2)}x`)
		.join(', ');

function printPass(label, res) {
	const judgeMs = JUDGE_NODES.reduce((a, n) => a + (res.nodes[n] ?? 0), 0);
	const ok = res.executions ? res.executions.filter((x) => x.status === 'success').length : 1;
	const cold =
		res.calls >= JUDGES * ROWS
			? 'cold'
			: `WARM: ${res.calls} of ${JUDGES * ROWS} judge calls made, the rest came from a cache`;
	console.log(
		`${label}: ${cold}; judge calls ${res.calls} (expected ${JUDGES * ROWS}), peak in flight at the judge server ${res.peakInFlight}` +
			(res.executions
				? `; executions ${res.executions.length} (${ok} success), exit ${res.status}`
				: ''),
	);
	if (NO_JUDGES)
		console.log(
			`  execution ${s1(res.executionSeconds)} (no judges); wall ${s1(res.seconds)} (with the CLI's start-up)`,
		);
	else
		console.log(
			`  execution ${s1(res.executionSeconds)} vs latency bound ${s1(BOUND_S)} at concurrency ${MAX}: ${(res.executionSeconds / BOUND_S).toFixed(2)}x` +
				`; judge nodes ${s1(judgeMs / 1000)} (${((judgeMs / 1000 / BOUND_S) * 1).toFixed(2)}x the bound)` +
				`; wall ${s1(res.seconds)} (with the CLI's start-up)`,
		);
	if (res.peakMainMb !== undefined)
		console.log(
			`  peak RSS n8n ${res.peakMainMb.toFixed(0)} MB (+ task runners ${res.peakChildrenMb.toFixed(0)} MB), execution data +${res.executionDataMb.toFixed(1)} MB, database file +${res.dbGrowthMb.toFixed(1)} MB`,
		);
	console.log(
		`  per node: ${shownNodes(res.nodes)
			.map(
				([n, ms]) =>
					`${n} ${s1(ms / 1000)} (${perRow(ms)}${res.cpu?.[n] !== undefined ? `, CPU ${perRow(res.cpu[n])}` : ''})`,
			)
			.join(', ')}`,
	);
	console.log(
		`  CPU: ${res.n8nCpuSeconds !== undefined ? `n8n process ${s1(res.n8nCpuSeconds)}` : `engine process ${s1(res.engineCpuSeconds)}`} (to its last reading), this process ${s1(res.selfCpuSeconds)} (the judge server and the bench's own readings)`,
	);
	console.log(`  load average ${res.loadBefore} before, ${res.loadAfter} after`);
}

const median = (xs) => {
	const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	if (s.length === 0) return NaN;
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The medians of each pass's figures over the rounds, and the ratios of the medians. */
function printMedians(all) {
	console.log(`medians over ${ROUNDS} rounds (passes alternating):`);
	const med = {};
	for (const [pass, runs] of Object.entries(all)) {
		const nodes = {};
		for (const n of Object.keys(runs[0].nodes)) nodes[n] = median(runs.map((r) => r.nodes[n]));
		med[pass] = { execution: median(runs.map((r) => r.executionSeconds)), nodes };
		const execs = runs.map((r) => r.executionSeconds.toFixed(1)).join(', ');
		console.log(
			`  ${pass}: execution ${s1(med[pass].execution)}` +
				(NO_JUDGES
					? ''
					: ` (${(med[pass].execution / BOUND_S).toFixed(2)}x the bound ${s1(BOUND_S)})`) +
				` [rounds: ${execs} s]; per node: ${shownNodes(nodes)
					.map(([n, ms]) => `${n} ${perRow(ms)}`)
					.join(', ')}`,
		);
	}
	if (med.one && med.engine)
		console.log(
			`  one execution / engine, per node (medians): ${perNodeRatios(med.one.nodes, med.engine.nodes)}`,
		);
	if (med.one && med.batched)
		console.log(
			`  batched / one execution (medians): execution ${(med.batched.execution / med.one.execution).toFixed(2)}x`,
		);
}

async function main() {
	await n8n.ensureN8n();
	n8n.buildIfStale();
	fs.rmSync(DIR, { recursive: true, force: true });
	fs.mkdirSync(DIR, { recursive: true });
	const userFolder = path.join(DIR, 'n8n-user');
	fs.mkdirSync(path.dirname(DATASET), { recursive: true });
	fs.writeFileSync(
		DATASET,
		`${rows()
			.map((r) => JSON.stringify(r))
			.join('\n')}\n`,
	);
	n8n.installPackage(userFolder, n8n.packPackage(path.join(DIR, 'pack')));
	const judge = await startJudgeServer({ latencyMs: LATENCY });
	const env = n8n.n8nEnv(userFolder, {
		N8N_RESTRICT_FILE_ACCESS_TO: path.dirname(DATASET),
		N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
	});
	const cred = {
		id: 'benchJudgeLocal01',
		name: 'Judge model (local test server)',
		type: 'ragEvalLlmApi',
		data: { provider: 'compatible', apiKey: 'bench-key', baseUrl: judge.baseUrl, model: 'bench' },
	};
	const { one, worker, batched } = workflows({ id: cred.id, name: cred.name });
	const importDir = path.join(DIR, 'import');
	fs.mkdirSync(importDir, { recursive: true });
	fs.writeFileSync(path.join(importDir, 'cred.json'), JSON.stringify([cred]));
	for (const w of [one, worker, batched])
		fs.writeFileSync(path.join(importDir, `${w.id}.json`), JSON.stringify(w));
	const imp = (args) => n8n.runN8n(args, env);
	let r = await imp(['import:credentials', `--input=${path.join(importDir, 'cred.json')}`]);
	if (r.status !== 0) throw new Error(r.stderr);
	fs.rmSync(path.join(importDir, 'cred.json'));
	r = await imp(['import:workflow', '--separate', `--input=${importDir}`]);
	if (r.status !== 0) throw new Error(r.stderr);
	await n8n.publishSubWorkflows([worker], env);

	let commit = 'unknown';
	try {
		commit = execSync('git rev-parse --short HEAD', { cwd: REPO }).toString().trim();
		if (execSync('git status --porcelain --untracked-files=no', { cwd: REPO }).toString().trim())
			commit += '+dirty';
	} catch {
		// not a git checkout
	}
	console.log(
		`n8n-scale: commit ${commit}, Node ${process.version}, ${os.cpus().length} cores, load average ${load()}, reference n8n 2.41.1 CLI (one execution); every pass cold (its own empty verdict cache folder; a fresh n8n user folder per run)`,
	);
	console.log(
		NO_JUDGES
			? `rows ${ROWS}, batch ${BATCH}; nodes: F1, ROUGE, Eval Aggregate (no judges)`
			: `rows ${ROWS}, batch ${BATCH}, judge latency ${LATENCY} ms, judges' Concurrency ${START} rising to Max Concurrency ${MAX}; latency bound ${JUDGES} judges x ${ROWS} rows x ${LATENCY} ms / ${MAX} = ${s1(BOUND_S)}; nodes: F1, ROUGE, Groundedness, Relevance, Eval Aggregate`,
	);
	const all = {};
	for (let round = 1; round <= ROUNDS; round++) {
		if (ROUNDS > 1) console.log(`round ${round} of ${ROUNDS}`);
		const results = {};
		for (const [label, pass, w] of [
			['one execution', 'one', one],
			['batched', 'batched', batched],
			['engine (n8n-core in a process of its own)', 'engine', null],
		]) {
			if (!PASSES.includes(pass)) continue;
			const cacheDir = path.join(DIR, `verdict-cache-${pass}`);
			fs.rmSync(cacheDir, { recursive: true, force: true });
			const callsBefore = judge.stats.chat;
			judge.stats.peakInFlight = 0;
			const loadBefore = load();
			const selfBefore = process.cpuUsage();
			let res;
			if (w) {
				const passEnv = { ...env, RAG_EVAL_CACHE_DIR: cacheDir };
				if (CPU_PROF && pass === 'one') {
					fs.mkdirSync(CPU_PROF, { recursive: true });
					passEnv.NODE_OPTIONS =
						`${env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-interval=${CPU_PROF_INTERVAL} --cpu-prof-dir=${path.resolve(CPU_PROF)}`.trim();
				}
				res = await execute(w.id, passEnv, userFolder, path.join(DIR, `${w.id}.out.txt`));
			} else {
				res = await engineRun(judge, cacheDir);
			}
			const self = process.cpuUsage(selfBefore);
			res.selfCpuSeconds = (self.user + self.system) / 1e6;
			res.calls = judge.stats.chat - callsBefore;
			res.peakInFlight = judge.stats.peakInFlight;
			res.loadBefore = loadBefore;
			res.loadAfter = load();
			results[pass] = res;
			(all[pass] ??= []).push(res);
			printPass(label, res);
		}
		const ref = results.one;
		const b = results.batched;
		if (ref && b)
			console.log(
				`batched / one execution (both cold): wall ${(b.seconds / ref.seconds).toFixed(2)}x, execution ${(b.executionSeconds / ref.executionSeconds).toFixed(2)}x, peak RSS ${(b.peakMainMb / ref.peakMainMb).toFixed(2)}x, execution data ${(b.executionDataMb / ref.executionDataMb).toFixed(2)}x`,
			);
		const e = results.engine;
		if (ref && e)
			console.log(`one execution / engine, per node: ${perNodeRatios(ref.nodes, e.nodes)}`);
	}
	if (ROUNDS > 1) printMedians(all);
	await judge.close();
}

const child = process.argv.indexOf('--engine-child');
(child > -1 ? engineChild(process.argv[child + 1], process.argv[child + 2]) : main()).catch((e) => {
	console.error(e);
	process.exit(1);
});
