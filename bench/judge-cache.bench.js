/**
 * What the judge verdict cache saves on a nightly re-run: ROWS rows (RAG-sized text from
 * bench/ragtext.js) x 3 judges (groundedness, relevance, coherence) through the public
 * `runJudges`, against the local judge server (test/support/openai-server-cli.js, own process,
 * LATENCY ms per call). Reference, measured in the same run: the cache switched off. Then the
 * cache on an empty folder (cold: every call made and stored) and again on the same folder
 * (warm: every verdict from the cache); with Debian's redis-server on PATH, the same on Redis.
 * Calls are counted by the server (`/__stats`), tokens by Eval Aggregate's cost (spent and saved).
 *
 *   npm run build && node bench/judge-cache.bench.js        (ROWS=1000 LATENCY=50 CONCURRENCY=16)
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const { spawn, spawnSync } = require('node:child_process');
const { printHeader, startJudgeServer } = require('./env');
const { aggregate } = require('../dist/src/aggregate');
const { diskBackend, redisBackend, VerdictCache } = require('../dist/src/judges/cache');
const { Governor } = require('../dist/src/judges/governor');
const { createOpenAIModelSource } = require('../dist/src/judges/model');
const { runJudges } = require('../dist/src/judges/run');
const { groundedness } = require('../dist/src/judges/specs/groundedness');
const { relevance } = require('../dist/src/judges/specs/relevance');
const { coherence } = require('../dist/src/judges/specs/quality');
const { ragRows } = require('./ragtext');

const ROWS = Number(process.env.ROWS || 1000);
const LATENCY = Number(process.env.LATENCY || 50);
const CONCURRENCY = Number(process.env.CONCURRENCY || 16);
const JUDGES = [groundedness, relevance, coherence];

printHeader({
	bench: `judge-cache (${ROWS} rows x ${JUDGES.length} judges, server latency ${LATENCY} ms, concurrency ${CONCURRENCY})`,
	reference: 'the same run with the cache off, same process, same server',
	figures:
		'cold = empty cache (every call made and stored); warm = second run on the same cache; one run each',
});

async function chatCalls(baseUrl) {
	const res = await fetch(`${baseUrl.replace(/\/v1$/, '')}/__stats`);
	return (await res.json()).chat;
}

function freePort() {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
		s.on('error', reject);
	});
}

async function startRedis() {
	if (spawnSync('which', ['redis-server']).status !== 0) return null;
	const port = await freePort();
	const child = spawn(
		'redis-server',
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{ stdio: 'ignore' },
	);
	for (let i = 0; i < 50; i++) {
		const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
		if ((ping.stdout || '').trim() === 'PONG') {
			const version = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout;
			return { port, child, version: (/v=(\S+)/.exec(version) || [])[1] || '?' };
		}
		await new Promise((r) => setTimeout(r, 100));
	}
	child.kill();
	return null;
}

(async () => {
	const rows = ragRows(ROWS, 4242, 'warm').map((r, i) => ({
		request_id: `r${i}`,
		request: `${r.groundTruth.split('.')[0]}?`,
		response: r.response,
		retrieved_context: [{ doc_uri: `kb/${i}.md`, content: r.context }],
	}));
	const bytes = rows.reduce((a, r) => a + Buffer.byteLength(r.retrieved_context[0].content), 0);
	console.log(`rows: ${ROWS}, mean context ${(bytes / ROWS / 1024).toFixed(1)} kB`);
	const server = await startJudgeServer(['--latency', String(LATENCY)]);
	const redis = await startRedis();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'judge-cache-bench-'));
	const source = createOpenAIModelSource({
		provider: 'compatible',
		baseUrl: server.baseUrl,
		model: 'judge-model',
	});

	/** One pass: every judge over every row; calls from the server, tokens from the aggregate. */
	async function pass(cache) {
		const before = await chatCalls(server.baseUrl);
		const items = rows.map((r) => ({ request_id: r.request_id, eval: {} }));
		const t0 = process.hrtime.bigint();
		for (const decl of JUDGES) {
			const governor = new Governor({ concurrency: CONCURRENCY });
			const scores = await runJudges(decl, rows, { source, governor, cache });
			scores.forEach((s, i) => {
				if (s.status !== 'ok') throw new Error(`row ${i} ${decl.id}: ${s.error || s.reason}`);
				items[i].eval[decl.id] = s;
			});
		}
		const wall = Number(process.hrtime.bigint() - t0) / 1e9;
		const calls = (await chatCalls(server.baseUrl)) - before;
		const cost = aggregate(items).cost;
		const hits = items.reduce(
			(a, it) => a + Object.values(it.eval).filter((s) => s.cached === true).length,
			0,
		);
		return { wall, calls, tokens: cost.totalTokens, saved: cost.saved, hits };
	}

	const results = [];
	try {
		results.push(['cache off (reference)', await pass(undefined)]);
		const disk = new VerdictCache(diskBackend(dir), 0);
		results.push(['disk, cold', await pass(disk)]);
		results.push(['disk, warm', await pass(disk)]);
		if (redis) {
			const r = new VerdictCache(redisBackend({ host: '127.0.0.1', port: redis.port }), 0);
			results.push([`redis ${redis.version}, cold`, await pass(r)]);
			results.push([`redis ${redis.version}, warm`, await pass(r)]);
			await r.close();
		} else console.log('redis-server not on PATH: Redis rows skipped');
	} finally {
		server.child.kill();
		redis?.child.kill();
		fs.rmSync(dir, { recursive: true, force: true });
	}
	const ref = results[0][1];
	console.log(
		`\n${'run'.padEnd(26)}${'calls'.padStart(7)}${'hits'.padStart(7)}${'tokens spent'.padStart(14)}` +
			`${'calls saved'.padStart(13)}${'tokens saved'.padStart(14)}${'wall s'.padStart(9)}${'x ref'.padStart(8)}`,
	);
	for (const [name, r] of results) {
		console.log(
			`${name.padEnd(26)}${String(r.calls).padStart(7)}${String(r.hits).padStart(7)}` +
				`${String(r.tokens).padStart(14)}${String(r.saved ? r.saved.calls : 0).padStart(13)}` +
				`${String(r.saved ? r.saved.totalTokens : 0).padStart(14)}${r.wall.toFixed(2).padStart(9)}` +
				`${(r.wall / ref.wall).toFixed(3).padStart(8)}`,
		);
	}
	const cold = results[1][1];
	const warm = results[2][1];
	console.log(
		`\ndisk warm/cold wall ratio ${(warm.wall / cold.wall).toFixed(3)}; cold/off ${(cold.wall / ref.wall).toFixed(3)}`,
	);
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
