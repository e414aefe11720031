/**
 * Chunk Relevance, one call per chunk (Databricks, the reference) vs one batched call per row:
 * ROWS x CHUNKS against the local judge server (test/support/openai-server-cli.js in its own
 * process, LATENCY_MS per call), one Governor at CONCURRENCY. Prints calls, prompt/completion
 * tokens and wall time of each mode and the batched/per-chunk ratios, measured in the same run,
 * after a warm-up pass of each mode (JIT, connection pool) that is not measured.
 *
 *   npm run build && node bench/chunk-relevance.bench.js   (ROWS=100 for a quick run)
 */
'use strict';
const { execSync } = require('node:child_process');
const os = require('node:os');
const { Governor } = require('../dist/src/judges/governor');
const { createOpenAIModelSource } = require('../dist/src/judges/model');
const { runJudges } = require('../dist/src/judges/run');
const { chunkRelevance } = require('../dist/src/judges/specs/chunkRelevance');
const { startJudgeServer } = require('./env');

const ROWS = Number(process.env.ROWS || 500);
const CHUNKS = Number(process.env.CHUNKS || 5);
const LATENCY_MS = Number(process.env.LATENCY_MS || 20);
const CONCURRENCY = Number(process.env.CONCURRENCY || 16);

const rows = (n) =>
	Array.from({ length: n }, (_, i) => ({
		request: `What is the refund window for order ${i}?`,
		retrieved_context: Array.from({ length: CHUNKS }, (_, c) => ({
			doc_uri: `kb/doc-${c}.md`,
			content:
				c === 0
					? `Refunds for order ${i} are accepted within 30 days of delivery, for any reason.`
					: `Section ${c}: shipping, warranty and store hours for region ${c}, unrelated to refunds of order ${i}.`,
		})),
	}));

async function pass(server, mode, n) {
	const source = createOpenAIModelSource({
		provider: 'compatible',
		baseUrl: server.baseUrl,
		model: 'judge-model',
	});
	const governor = new Governor({ concurrency: CONCURRENCY });
	const before = (await server.stats()).chat;
	const t0 = process.hrtime.bigint();
	const scores = await runJudges(chunkRelevance, rows(n), {
		source,
		governor,
		params: { chunkMode: mode },
	});
	const wall = Number(process.hrtime.bigint() - t0) / 1e9;
	const calls = (await server.stats()).chat - before;
	const sum = (k) => scores.reduce((a, s) => a + ((s.usage && s.usage[k]) || 0), 0);
	return {
		wall,
		calls,
		ok: scores.filter((s) => s.status === 'ok').length,
		prompt: sum('promptTokens'),
		completion: sum('completionTokens'),
		total: sum('totalTokens'),
	};
}

const line = (name, r) =>
	`${name.padEnd(10)} calls ${String(r.calls).padStart(5)}  tokens ${String(r.total).padStart(8)} (prompt ${r.prompt}, completion ${r.completion})  wall ${r.wall.toFixed(2)} s  ok ${r.ok}/${ROWS}`;

(async () => {
	let commit = 'unknown';
	try {
		commit = execSync('git rev-parse --short HEAD', { cwd: __dirname }).toString().trim();
	} catch {
		// not a git checkout
	}
	console.log(
		`chunk-relevance bench: ${ROWS} rows x ${CHUNKS} chunks, ${LATENCY_MS} ms/call, concurrency ${CONCURRENCY}; ` +
			`commit ${commit}, node ${process.version}, ${os.cpus().length} cores; reference: per-chunk mode (Databricks), same run; warm (one unmeasured pass of each mode first)`,
	);
	const server = await startJudgeServer(['--latency', String(LATENCY_MS)]);
	try {
		await pass(server, 'per_chunk', Math.min(ROWS, 20));
		await pass(server, 'batched', Math.min(ROWS, 20));
		const per = await pass(server, 'per_chunk', ROWS);
		const bat = await pass(server, 'batched', ROWS);
		console.log(line('per-chunk', per));
		console.log(line('batched', bat));
		console.log(
			`batched / per-chunk: calls ${(bat.calls / per.calls).toFixed(3)}, tokens ${(bat.total / per.total).toFixed(3)}, ` +
				`prompt tokens ${(bat.prompt / per.prompt).toFixed(3)}, wall ${(bat.wall / per.wall).toFixed(3)}`,
		);
	} finally {
		server.close();
	}
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
