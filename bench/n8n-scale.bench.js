#!/usr/bin/env node
/**
 * Scale in real n8n: a synthetic dataset (the bundled sample's 8 rows repeated, each request made
 * unique) through the nightly pipeline's nodes (F1, ROUGE, Groundedness and Relevance judges
 * against the local OpenAI-compatible test server with 50 ms latency per call, Eval Aggregate) in
 * the real n8n 2.41.1 CLI (`n8n execute`), twice:
 *   one execution  - every row through every node in one workflow execution (the reference);
 *   batched        - the batched example's approach: Loop Over Items + Execute Workflow, each batch
 *                    scored by a sub-workflow returning an Eval Aggregate partial, merged at the end.
 * Prints wall time, peak RSS of the n8n process (sampled every 200 ms from /proc; its task-runner
 * children summed apart) and how much the SQLite database (file + WAL) grew, with ratios against
 * the one-execution reference.
 *
 *   node bench/n8n-scale.bench.js [--rows 10000] [--batch 500] [--latency 50]
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execSync } = require('node:child_process');
const n8n = require('../scripts/n8n-install');
const { startJudgeServer } = require('../test/support/openai-server-cli.js');

const REPO = n8n.REPO;
const arg = (name, dflt) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > -1 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg('rows', 10000);
const BATCH = arg('batch', 500);
const LATENCY = arg('latency', 50);
const DIR = path.join(REPO, 'test-artifacts', 'bench-n8n-scale');
const P = 'n8n-nodes-rag-eval';

const sample = fs
	.readFileSync(path.join(REPO, 'examples', 'datasets', 'rag-support-sample.jsonl'), 'utf8')
	.split('\n')
	.filter((l) => l.trim())
	.map((l) => JSON.parse(l));

// Rows are generated inside n8n by a Code node, so the workflow JSON stays small.
const GENERATE = `const base = ${JSON.stringify(sample)};
return Array.from({ length: ${ROWS} }, (_, i) => {
	const r = base[i % base.length];
	return { json: { ...r, query: r.query + ' (case ' + i + ')' } };
});`;

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
	return [
		node('F1 Score', `${P}.evalF1Score`, [x0, 0]),
		node('ROUGE', `${P}.evalRouge`, [x0 + 200, 0]),
		node('Groundedness', `${P}.judgeGroundedness`, [x0 + 400, 0], { threshold: 3 }, { cred }),
		node('Relevance', `${P}.judgeRelevance`, [x0 + 600, 0], { threshold: 3 }, { cred }),
	];
}

function workflows(cred) {
	const one = wf(
		'benchScaleOne0001',
		'bench: one execution',
		[
			node('Run', 'n8n-nodes-base.manualTrigger', [0, 0]),
			node('Rows', 'n8n-nodes-base.code', [200, 0], { jsCode: GENERATE }, { v: 2 }),
			node('Eval Dataset', `${P}.evalDataset`, [400, 0], { source: 'items', schema: 'auto' }),
			...scoringNodes(cred, 600),
			node('Eval Aggregate', `${P}.evalAggregate`, [1400, 0], { output: 'summary' }),
		],
		chain(
			'Run',
			'Rows',
			'Eval Dataset',
			'F1 Score',
			'ROUGE',
			'Groundedness',
			'Relevance',
			'Eval Aggregate',
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
		chain('Batch In', 'F1 Score', 'ROUGE', 'Groundedness', 'Relevance', 'Partial Aggregate'),
	);
	const batched = wf(
		'benchScaleBatch01',
		'bench: batched',
		[
			node('Run', 'n8n-nodes-base.manualTrigger', [0, 0]),
			node('Rows', 'n8n-nodes-base.code', [200, 0], { jsCode: GENERATE }, { v: 2 }),
			node('Eval Dataset', `${P}.evalDataset`, [400, 0], { source: 'items', schema: 'auto' }),
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
			...chain('Run', 'Rows', 'Eval Dataset', 'Batches'),
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

// Bytes of stored execution data and the newest executions' statuses, read with Node's SQLite
// while no n8n process runs.
function executionData(userFolder) {
	const { DatabaseSync } = require('node:sqlite');
	const db = new DatabaseSync(path.join(userFolder, '.n8n', 'database.sqlite'), { readOnly: true });
	try {
		const bytes = db
			.prepare('SELECT COALESCE(SUM(LENGTH(data)), 0) AS b FROM execution_data')
			.get().b;
		const statuses = db
			.prepare('SELECT status FROM execution_entity ORDER BY id DESC')
			.all()
			.map((r) => r.status);
		return { bytes: Number(bytes), statuses };
	} finally {
		db.close();
	}
}

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
		const timer = setInterval(() => {
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
			resolve({
				status,
				seconds,
				executions: dataAfter.statuses.slice(
					0,
					dataAfter.statuses.length - dataBefore.statuses.length,
				),
				executionDataMb: (dataAfter.bytes - dataBefore.bytes) / 1024 / 1024,
				peakMainMb: peakMain / 1024,
				peakChildrenMb: peakChildren / 1024,
				dbGrowthMb: (dbBytes(userFolder) - before) / 1024 / 1024,
			});
		});
	});
}

async function main() {
	await n8n.ensureN8n();
	n8n.buildIfStale();
	fs.rmSync(DIR, { recursive: true, force: true });
	fs.mkdirSync(DIR, { recursive: true });
	const userFolder = path.join(DIR, 'n8n-user');
	n8n.installPackage(userFolder, n8n.packPackage(path.join(DIR, 'pack')));
	const judge = await startJudgeServer({ latencyMs: LATENCY });
	const env = n8n.n8nEnv(userFolder, {
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
	} catch {
		// not a git checkout
	}
	console.log(
		`n8n-scale: commit ${commit}, Node ${process.version}, ${os.cpus().length} cores, reference n8n 2.41.1 CLI (one execution), cold (fresh n8n user folder, first run of each workflow)`,
	);
	console.log(
		`rows ${ROWS}, batch ${BATCH}, judge latency ${LATENCY} ms, nodes: F1, ROUGE, Groundedness, Relevance, Eval Aggregate`,
	);
	const results = {};
	for (const [label, w] of [
		['one execution', one],
		['batched', batched],
	]) {
		const callsBefore = judge.stats.chat;
		const res = await execute(w.id, env, userFolder, path.join(DIR, `${w.id}.out.txt`));
		res.calls = judge.stats.chat - callsBefore;
		results[label] = res;
		const ok = res.executions.filter((x) => x === 'success').length;
		console.log(
			`${label.padEnd(14)} exit ${res.status}  executions ${res.executions.length} (${ok} success)  judge calls ${res.calls} (expected ${2 * ROWS})  wall ${res.seconds.toFixed(1)} s  peak RSS n8n ${res.peakMainMb.toFixed(0)} MB (+ task runners ${res.peakChildrenMb.toFixed(0)} MB)  execution data +${res.executionDataMb.toFixed(1)} MB  database file +${res.dbGrowthMb.toFixed(1)} MB`,
		);
	}
	const ref = results['one execution'];
	const b = results.batched;
	console.log(
		`batched / one execution: wall ${(b.seconds / ref.seconds).toFixed(2)}x, peak RSS ${(b.peakMainMb / ref.peakMainMb).toFixed(2)}x, execution data ${(b.executionDataMb / ref.executionDataMb).toFixed(2)}x`,
	);
	await judge.close();
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
