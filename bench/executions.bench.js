/**
 * Benchmark (not a test): Eval Executions reading and converting 10,000 AI Agent executions from
 * the local stand-in for n8n's public API (test/support/n8n-api-server-cli.js, a process of its
 * own, pages of 250 with their data), against the bare transfer measured in the same run: the
 * same pages fetched and `JSON.parse`d, nothing else. Each side runs in a child process of its own
 * (so peak RSS is its own), rounds alternating; prints medians of wall and CPU time, the ratio,
 * peak RSS and what the rows weigh. Build first: `npm run build`; run:
 * `node bench/executions.bench.js` (EXECUTIONS=n, ROUNDS=n; `--quick`: 1,000 executions, one round).
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { printHeader, ROOT } = require('./env');

const QUICK = process.argv.includes('--quick');
const EXECUTIONS = Number(process.env.EXECUTIONS || (QUICK ? 1000 : 10000));
const ROUNDS = Number(process.env.ROUNDS || (QUICK ? 1 : 3));
const KEY = 'bench-n8n-api-key';
const WORKFLOW = 'wf-agent';

/** One side's pass, in this (child) process: prints one JSON line of figures. */
async function side(which, url) {
	const startRss = process.memoryUsage().rss;
	const t0 = process.hrtime.bigint();
	const c0 = process.cpuUsage();
	let executions = 0;
	let bytes = 0;
	let rowsBytes = 0;
	let pages = 0;
	if (which === 'reference') {
		let cursor;
		for (;;) {
			const q = new URLSearchParams({ workflowId: WORKFLOW, includeData: 'true', limit: '250' });
			if (cursor) q.set('cursor', cursor);
			const res = await fetch(`${url}/executions?${q}`, { headers: { 'X-N8N-API-KEY': KEY } });
			const text = await res.text();
			bytes += Buffer.byteLength(text);
			const page = JSON.parse(text);
			pages++;
			executions += page.data.length;
			if (!page.nextCursor) break;
			cursor = page.nextCursor;
		}
	} else {
		const { N8nApiClient, readExecutions } = require(path.join(ROOT, 'dist/src/executions'));
		const client = new N8nApiClient({ baseUrl: url, apiKey: KEY });
		const r = await readExecutions(client, {
			workflowId: WORKFLOW,
			statuses: ['success', 'error'],
			window: 'all',
			hours: 24,
			sampling: { mode: 'all' },
			maxExecutions: EXECUTIONS,
			convert: { instance: url.replace(/\/api\/v1$/, ''), traceDetail: 'slim' },
		});
		if (r.rows.length + r.invalid.length !== EXECUTIONS) throw new Error(`expected ${EXECUTIONS} rows, got ${r.rows.length} + ${r.invalid.length}`);
		if (!(r.rows[0].total_token_count > 0) || typeof r.rows[0].response !== 'string') throw new Error('rows without figures');
		executions = r.stats.seen;
		bytes = r.stats.bytes;
		pages = r.stats.pages;
		rowsBytes = r.rows.reduce((a, row) => a + Buffer.byteLength(JSON.stringify(row)), 0);
	}
	const wall = Number(process.hrtime.bigint() - t0) / 1e9;
	const c = process.cpuUsage(c0);
	const peakRss = process.resourceUsage().maxRSS * 1024;
	console.log(JSON.stringify({ which, wall, cpu: (c.user + c.system) / 1e6, executions, bytes, pages, rowsBytes, startRss, peakRss }));
}

function runSide(which, url) {
	const r = spawnSync(process.execPath, [__filename, '--side', which, url], { encoding: 'utf8', maxBuffer: 1 << 24 });
	if (r.status !== 0) throw new Error(`${which} pass failed: ${r.stderr}`);
	return JSON.parse(r.stdout.trim().split('\n').pop());
}

function startServer() {
	const cli = path.join(ROOT, 'test', 'support', 'n8n-api-server-cli.js');
	const child = spawn(process.execPath, [cli, '--executions', String(EXECUTIONS), '--workflow', WORKFLOW, '--key', KEY, '--error-every', '20'], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return new Promise((resolve, reject) => {
		child.once('error', reject);
		child.stdout.once('data', (d) => resolve({ url: /N8N_API_URL=(\S+)/.exec(d.toString())[1], close: () => child.kill('SIGTERM') }));
	});
}

const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;

async function main() {
	printHeader({
		bench: `executions: Eval Executions reading ${EXECUTIONS} AI Agent executions (pages of 250 with data) from a local n8n API stand-in`,
		reference: `the bare transfer: the same pages fetched and JSON.parse'd (Node ${process.version} fetch), nothing else`,
		figures: `cold processes: each side in a new child process per round (${ROUNDS} rounds, alternating), after one untimed read that warms the server's page texts; medians`,
	});
	const server = await startServer();
	try {
		runSide('reference', server.url);
		const ref = [];
		const ours = [];
		for (let i = 0; i < ROUNDS; i++) {
			ref.push(runSide('reference', server.url));
			ours.push(runSide('ours', server.url));
		}
		const m = (xs, k) => median(xs.map((x) => x[k]));
		const o = { wall: m(ours, 'wall'), cpu: m(ours, 'cpu'), peak: m(ours, 'peakRss'), start: m(ours, 'startRss') };
		const r = { wall: m(ref, 'wall'), cpu: m(ref, 'cpu'), peak: m(ref, 'peakRss'), start: m(ref, 'startRss') };
		const bytes = ours[0].bytes;
		console.log(`\n${ours[0].executions} executions in ${ours[0].pages} pages, ${mb(bytes)} of JSON (${Math.round(bytes / ours[0].executions)} bytes an execution)`);
		console.log(`reference (fetch + JSON.parse): ${r.wall.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s CPU, ${(ours[0].executions / r.wall).toFixed(0)} executions/s; peak RSS ${mb(r.peak)} (start ${mb(r.start)})`);
		console.log(`ours (read + convert):          ${o.wall.toFixed(2)} s wall, ${o.cpu.toFixed(2)} s CPU, ${(ours[0].executions / o.wall).toFixed(0)} executions/s; peak RSS ${mb(o.peak)} (start ${mb(o.start)})`);
		console.log(`ratio ours / reference: ${(o.wall / r.wall).toFixed(2)}x wall, ${(o.cpu / r.cpu).toFixed(2)}x CPU, peak RSS ${(o.peak / r.peak).toFixed(2)}x`);
		console.log(`rows kept: ${mb(ours[0].rowsBytes)} of row JSON (${Math.round(ours[0].rowsBytes / ours[0].executions)} bytes a row, slim traces), ${((100 * ours[0].rowsBytes) / bytes).toFixed(1)}% of the transfer`);
		console.log(`per round (wall s, ours/reference): ${ours.map((x, i) => `${x.wall.toFixed(2)}/${ref[i].wall.toFixed(2)}`).join(', ')}`);
	} finally {
		server.close();
	}
}

if (process.argv[2] === '--side') {
	side(process.argv[3], process.argv[4]).catch((e) => {
		console.error(e);
		process.exit(1);
	});
} else {
	main().catch((e) => {
		console.error(e);
		process.exit(1);
	});
}
