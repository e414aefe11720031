/**
 * Judge runtime throughput: ROWS x 3 judges (groundedness, relevance, coherence) against the
 * local judge server with LATENCY_MS per call, all sharing one Governor at CONCURRENCY.
 * Prints wall time, efficiency against the ideal rows x judges x latency / concurrency (goal
 * >= 0.9), and the ratio against a reference measured in the same run: the same calls made with
 * the bare openai SDK from a plain worker pool (no governor, prompts or parsing).
 * Then the same run with 10% of calls answered 429 + Retry-After: 0.2: rows lost and efficiency.
 *
 *   npx tsc -p tsconfig.json && node bench/judges.bench.js   (ROWS=200 for a quick run)
 */
'use strict';
const OpenAI = require('openai').default;
const path = require('node:path');
const { Governor } = require('../dist/src/judges/governor');
const { createOpenAIModelSource } = require('../dist/src/judges/model');
const { runJudges } = require('../dist/src/judges/run');
const { groundedness } = require('../dist/src/judges/specs/groundedness');
const { relevance } = require('../dist/src/judges/specs/relevance');
const { coherence } = require('../dist/src/judges/specs/quality');
const { printHeader, startJudgeServer } = require('./env');

const ROWS = Number(process.env.ROWS || 1000);
const LATENCY_MS = Number(process.env.LATENCY_MS || 100);
const CONCURRENCY = Number(process.env.CONCURRENCY || 16);
const JUDGES = [groundedness, relevance, coherence];

const rows = Array.from({ length: ROWS }, (_, i) => ({
	request: `What is the refund window for order ${i}?`,
	response: `Order ${i} can be refunded within 30 days of delivery.`,
	retrieved_context: [
		{
			doc_uri: 'kb/refunds.md',
			content: 'Refunds are accepted within 30 days of delivery for all orders.',
		},
		{ doc_uri: 'kb/shipping.md', content: 'Standard shipping takes 3-5 business days.' },
	],
}));
const ideal = (ROWS * JUDGES.length * LATENCY_MS) / CONCURRENCY / 1000;

/** The judge server with the bench's latency and a share of 429 replies (Retry-After 0.2 s). */
const startServer = (rate429) =>
	startJudgeServer([
		'--latency',
		String(LATENCY_MS),
		'--rate429',
		String(rate429),
		'--retry-after',
		'0.2',
	]);

async function runtimePass(rate429) {
	const server = await startServer(rate429);
	try {
		const source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
		const governor = new Governor({ concurrency: CONCURRENCY });
		const t0 = process.hrtime.bigint();
		const results = await Promise.all(JUDGES.map((d) => runJudges(d, rows, { source, governor })));
		const wall = Number(process.hrtime.bigint() - t0) / 1e9;
		const scores = results.flat();
		const ok = scores.filter((s) => s.status === 'ok').length;
		const attempts = scores.reduce((a, s) => a + (s.attempts || 0), 0);
		return { wall, ok, total: scores.length, attempts, stats: await server.stats() };
	} finally {
		await server.close();
	}
}

async function sdkReference(nRows) {
	const server = await startServer(0);
	try {
		const client = new OpenAI({ apiKey: 'not-needed', baseURL: server.baseUrl, maxRetries: 0 });
		const calls = nRows * JUDGES.length;
		let next = 0;
		const t0 = process.hrtime.bigint();
		await Promise.all(
			Array.from({ length: CONCURRENCY }, async () => {
				while (next < calls) {
					next++;
					await client.chat.completions.create({
						model: 'judge-model',
						messages: [
							{ role: 'user', content: 'Rate this. Reply {"reason": "...", "score": 1-5}' },
						],
						temperature: 0,
					});
				}
			}),
		);
		return Number(process.hrtime.bigint() - t0) / 1e9;
	} finally {
		await server.close();
	}
}

(async () => {
	const sdkDir = path.dirname(require.resolve('openai'));
	printHeader({
		bench: 'judges (judge runtime throughput with a shared governor)',
		reference: `bare openai SDK ${require(path.join(sdkDir, 'package.json')).version} from a plain worker pool, same process (node ${process.version})`,
		figures: 'warm: one untimed reference pass of 50 rows first; each figure is one run',
	});
	console.log(
		`judges bench: ${ROWS} rows x ${JUDGES.length} judges, ${LATENCY_MS} ms/call, concurrency ${CONCURRENCY}; ideal ${ideal.toFixed(2)} s`,
	);
	await sdkReference(Math.min(ROWS, 50)); // warm-up: JIT and connection pools, not measured
	const ref = await sdkReference(ROWS);
	console.log(
		`reference (bare openai SDK, worker pool): ${ref.toFixed(2)} s, efficiency ${(ideal / ref).toFixed(3)}`,
	);
	const clean = await runtimePass(0);
	console.log(
		`runtime, no faults: ${clean.wall.toFixed(2)} s, ${(clean.total / clean.wall).toFixed(1)} scores/s, ` +
			`efficiency ${(ideal / clean.wall).toFixed(3)} (goal >= 0.9), vs reference ${(ref / clean.wall).toFixed(3)}, ` +
			`ok ${clean.ok}/${clean.total}, calls ${clean.stats.chat}`,
	);
	const faulty = await runtimePass(0.1);
	console.log(
		`runtime, 10% 429 (Retry-After 0.2 s): ${faulty.wall.toFixed(2)} s, efficiency ${(ideal / faulty.wall).toFixed(3)}, ` +
			`vs reference ${(ref / faulty.wall).toFixed(3)}, ok ${faulty.ok}/${faulty.total}, rows lost ${faulty.total - faulty.ok}, ` +
			`calls ${faulty.stats.chat} (429s ${faulty.stats.rateLimited}), attempts ${faulty.attempts}`,
	);
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
