/**
 * What our judge runtime costs per call on top of the model call itself, at RAG size: a row with
 * a 10 kB retrieved context (bench/ragtext.js) judged by groundedness, relevance and coherence
 * through the public `runJudge` (prompt rendering, response-format request, governor, reply
 * parsing and validation, score building), as a fraction of a 100 ms model call.
 * - HTTP: runJudge against the local judge server (test/support/openai-server-cli.js, own process,
 *   0 ms latency) vs the reference, a bare `openai` SDK call sending the very same request
 *   (messages and response_format recorded from runJudge) without rendering or parsing anything.
 *   Calls are sequential; overhead = ours - reference, per call, by wall clock and by CPU time.
 * - In process: runJudge with a ModelSource that returns the recorded reply at once (no I/O):
 *   the CPU our code spends per call, with nothing else in the measurement.
 * Warm: an untimed warm-up, then best of REPEAT windows >= WINDOW s.
 *
 *   npm run build && node bench/judge-overhead.bench.js
 */
'use strict';
const path = require('node:path');
const OpenAI = require('openai').default;
const { printHeader, startJudgeServer, timeWindows } = require('./env');
const { Governor } = require('../dist/src/judges/governor');
const { createOpenAIModelSource } = require('../dist/src/judges/model');
const { runJudge } = require('../dist/src/judges/run');
const { groundedness } = require('../dist/src/judges/specs/groundedness');
const { relevance } = require('../dist/src/judges/specs/relevance');
const { coherence } = require('../dist/src/judges/specs/quality');
const { ragRows } = require('./ragtext');

const WINDOW = Number(process.env.WINDOW || 1);
const REPEAT = Number(process.env.REPEAT || 3);
const CONTEXT_BYTES = Number(process.env.CONTEXT_BYTES || 10240);
const CALL_MS = 100;

/** The installed openai SDK's version (its package.json is not exported). */
function openaiVersion() {
	const fs = require('node:fs');
	let dir = path.dirname(require.resolve('openai'));
	while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
	return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

printHeader({
	bench: 'judge-overhead (runJudge per call at 10 kB contexts)',
	reference: `bare openai SDK ${openaiVersion()} call with the same request, same process (node ${process.version})`,
	figures: `warm: untimed warm-up, then best of ${REPEAT} windows >= ${WINDOW} s; calls sequential`,
});

/** One RAG row whose retrieved context is CONTEXT_BYTES of text in 1-5 kB chunks. */
function makeRow() {
	const chunks = [];
	let size = 0;
	let seed = 31001;
	let first = null;
	while (size < CONTEXT_BYTES) {
		const r = ragRows(1, seed++, 'warm')[0];
		first ??= r;
		const content = r.context.slice(0, CONTEXT_BYTES - size);
		chunks.push({ doc_uri: `kb/doc-${chunks.length + 1}.md`, content });
		size += Buffer.byteLength(content);
	}
	return {
		request: `${first.groundTruth.split('.')[0]}?`,
		response: first.response,
		retrieved_context: chunks,
	};
}

/** Best calls/s (wall and CPU) of `call` made one after another, in windows of >= WINDOW s. */
async function timeCalls(call) {
	for (let i = 0; i < 20; i++) await call();
	let wall = 0;
	let cpu = 0;
	for (let rep = 0; rep < REPEAT; rep++) {
		let n = 0;
		let dt = 0;
		const t0 = process.hrtime.bigint();
		const c0 = process.cpuUsage();
		do {
			await call();
			n++;
			dt = Number(process.hrtime.bigint() - t0) / 1e9;
		} while (dt < WINDOW);
		const c = process.cpuUsage(c0);
		wall = Math.max(wall, n / dt);
		cpu = Math.max(cpu, n / ((c.user + c.system) / 1e6));
	}
	// Per call, in ms.
	return { wall: 1000 / wall, cpu: 1000 / cpu };
}

(async () => {
	const row = makeRow();
	const ctxBytes = row.retrieved_context.reduce((a, c) => a + Buffer.byteLength(c.content), 0);
	console.log(
		`row: context ${ctxBytes} bytes in ${row.retrieved_context.length} chunks, response ${row.response.split(' ').length} words`,
	);
	const server = await startJudgeServer(['--latency', '0']);
	try {
		const http = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
		const client = new OpenAI({ apiKey: 'not-needed', baseURL: server.baseUrl, maxRetries: 0 });
		console.log(
			`\n${'judge'.padEnd(14)}${'prompt'.padStart(7)}${'ours ms'.padStart(9)}${'ref ms'.padStart(8)}` +
				`${'over wall ms'.padStart(14)}${'over CPU ms'.padStart(13)}${'of 100ms'.padStart(10)}` +
				`${'in-proc CPU'.padStart(13)}${'of 100ms'.padStart(10)}`,
		);
		for (const decl of [groundedness, relevance, coherence]) {
			// Record what runJudge sends and receives, through a source that passes calls on.
			let lastReq = null;
			let lastRes = null;
			const recording = {
				key: http.key,
				defaultModel: http.defaultModel,
				supportsResponseFormat: http.supportsResponseFormat,
				async chat(req) {
					lastReq = req;
					lastRes = await http.chat(req);
					return lastRes;
				},
			};
			const governor = new Governor({ concurrency: 1 });
			const first = await runJudge(decl, row, { source: recording, governor });
			if (first.status !== 'ok') throw new Error(`${decl.id}: ${first.error ?? first.status}`);
			const promptBytes = lastReq.messages.reduce((a, m) => a + Buffer.byteLength(m.content), 0);
			const ours = await timeCalls(() => runJudge(decl, row, { source: http, governor }));

			const params = { model: 'judge-model', messages: lastReq.messages, temperature: 0 };
			if (lastReq.mode === 'json_schema') {
				params.response_format = {
					type: 'json_schema',
					json_schema: { ...lastReq.jsonSchema, strict: true },
				};
			} else if (lastReq.mode === 'json_object') {
				params.response_format = { type: 'json_object' };
			}
			const ref = await timeCalls(() => client.chat.completions.create(params));

			const canned = {
				key: 'canned',
				defaultModel: 'judge-model',
				supportsResponseFormat: true,
				chat: async () => lastRes,
			};
			const inProc = await timeCalls(() => runJudge(decl, row, { source: canned, governor }));
			const wallOver = ours.wall - ref.wall;
			const cpuOver = ours.cpu - ref.cpu;
			const pct = (ms) => `${((100 * ms) / CALL_MS).toFixed(2)}%`;
			console.log(
				`${decl.id.padEnd(14)}${`${(promptBytes / 1024).toFixed(1)}k`.padStart(7)}${ours.wall.toFixed(2).padStart(9)}${ref.wall.toFixed(2).padStart(8)}` +
					`${wallOver.toFixed(2).padStart(14)}${cpuOver.toFixed(3).padStart(13)}${pct(cpuOver).padStart(10)}` +
					`${`${(inProc.cpu * 1000).toFixed(0)} us`.padStart(13)}${pct(inProc.cpu).padStart(10)}`,
			);
		}
		console.log(
			`\nours/ref ms: wall clock per sequential call (0 ms server latency); over = ours - ref per call, by wall clock` +
				` and by client CPU time; in-proc CPU = runJudge with an instant canned reply (rendering, governor, parsing,` +
				` validation); "of 100ms" = that CPU as a share of a ${CALL_MS} ms model call`,
		);
	} finally {
		server.child.kill('SIGTERM');
	}
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
