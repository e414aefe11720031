/**
 * Load and soak of the judge runtime (issue 10): ROWS x 3 judges (groundedness, relevance,
 * coherence) against a local OpenAI-compatible server in its own process, LATENCY_MS per call,
 * at CONCURRENCY, with FAULT_RATE of calls answered by a random fault (429 + Retry-After, 500,
 * TCP reset, HTTP body cut mid-JSON, reply content cut mid-JSON; equally likely).
 *
 * Each judge runs as a judge node does: its own Governor with the node's defaults, every row
 * started at once. Checked and printed: rows in = rows out per judge, every fault recovered or
 * named (no row without a score or a named error, no bare "fetch failed"), HTTP calls counted on
 * the Scores = calls the server saw, peak memory, and wall time against the latency bound
 * (ideal = rows x judges x latency / concurrency) and against a reference measured in the same
 * run: the same number of calls made with the bare openai SDK from a worker pool, no faults.
 * Then the endpoint goes down for good (500 to everything) after DOWN_AT of the first judge's
 * rows: time until every remaining row of every judge has its named error, and calls made while
 * down.
 *
 *   npm run build && node bench/soak.bench.js     (ROWS=1000 for a quick run)
 */
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const { mulberry32 } = require('./env');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const ROWS = Number(process.env.ROWS || 10000);
const LATENCY_MS = Number(process.env.LATENCY_MS || 20);
const CONCURRENCY = Number(process.env.CONCURRENCY || 16);
const FAULT_RATE = Number(process.env.FAULT_RATE || 0.05);
const RETRY_AFTER_S = process.env.RETRY_AFTER || '0.2';
const DOWN_AT = Number(process.env.DOWN_AT || 0.3);
const SEED = Number(process.env.SEED || 10);
const FAULT_KINDS = ['rate429', 'server500', 'reset', 'truncatedBody', 'truncatedContent'];

// ---------------------------------------------------------------- server (child process)


function serve() {
	const { fill, scoreFor } = require('../test/support/openai-server-cli.js');
	const random = mulberry32(SEED);
	const stats = { chat: 0, ok: 0, down: 0 };
	for (const k of FAULT_KINDS) stats[k] = 0;
	let mode = 'faults';
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const send = (status, body, headers) => {
				res.writeHead(status, { 'content-type': 'application/json', ...(headers || {}) });
				res.end(typeof body === 'string' ? body : JSON.stringify(body));
			};
			const url = new URL(req.url || '/', 'http://127.0.0.1');
			if (url.pathname === '/__stats') return send(200, stats);
			if (url.pathname === '/__mode') {
				mode = url.searchParams.get('mode') || mode;
				return send(200, { mode });
			}
			if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions'))
				return send(404, { error: { message: 'unknown endpoint', type: 'invalid_request_error' } });
			const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
			stats.chat++;
			const error = (status, message, type, headers) =>
				send(status, { error: { message, type, param: null, code: null } }, headers);
			if (mode === 'down') {
				stats.down++;
				return error(500, 'The server had an error while processing your request.', 'server_error');
			}
			let fault;
			if (random() < FAULT_RATE) fault = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)];
			if (fault) stats[fault]++;
			else stats.ok++;
			if (fault === 'rate429')
				return error(429, 'Rate limit reached for requests', 'requests', {
					'retry-after': RETRY_AFTER_S,
				});
			if (fault === 'server500')
				return error(500, 'The server had an error while processing your request.', 'server_error');
			if (fault === 'reset') return res.socket.resetAndDestroy();
			const messages = Array.isArray(body.messages) ? body.messages : [];
			const rf = body.response_format;
			const schema = rf && rf.type === 'json_schema' ? rf.json_schema.schema : null;
			let content = JSON.stringify(fill(schema, scoreFor(messages)));
			if (fault === 'truncatedContent') content = content.slice(0, Math.floor(content.length / 2));
			const promptTokens = Math.ceil(messages.map((m) => String(m.content)).join('\n').length / 4);
			const completionTokens = Math.ceil(content.length / 4);
			const reply = JSON.stringify({
				id: `chatcmpl-soak-${stats.chat}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: body.model || 'judge-model',
				choices: [
					{
						index: 0,
						message: { role: 'assistant', content, refusal: null },
						logprobs: null,
						finish_reason: 'stop',
					},
				],
				usage: {
					prompt_tokens: promptTokens,
					completion_tokens: completionTokens,
					total_tokens: promptTokens + completionTokens,
				},
			});
			setTimeout(() => {
				if (fault === 'truncatedBody')
					return send(200, reply.slice(0, Math.floor(reply.length / 2)));
				send(200, reply);
			}, LATENCY_MS);
		});
	});
	server.keepAliveTimeout = 5000;
	server.listen(0, '127.0.0.1', () => {
		process.stdout.write(`OPENAI_BASE_URL=http://127.0.0.1:${server.address().port}/v1\n`);
	});
	process.on('SIGTERM', () => process.exit(0));
}

// ---------------------------------------------------------------- client

function startServer(env = {}) {
	const child = spawn(process.execPath, [__filename, '--serve'], {
		stdio: ['ignore', 'pipe', 'inherit'],
		env: { ...process.env, ...env },
	});
	return new Promise((resolve, reject) => {
		child.once('error', reject);
		child.stdout.once('data', (d) => {
			const baseUrl = /OPENAI_BASE_URL=(\S+)/.exec(d.toString())[1];
			const root = baseUrl.replace(/\/v1$/, '');
			resolve({
				baseUrl,
				stats: async () => (await fetch(`${root}/__stats`)).json(),
				setMode: async (mode) => (await fetch(`${root}/__mode?mode=${mode}`)).json(),
				close: () => child.kill('SIGTERM'),
			});
		});
	});
}

function describeRun() {
	let commit = 'unknown';
	try {
		commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname })
			.toString()
			.trim();
	} catch {
		// not a git checkout
	}
	const sdk = JSON.parse(
		fs.readFileSync(path.join(__dirname, '../node_modules/openai/package.json'), 'utf8'),
	).version;
	return `commit ${commit}, Node ${process.version}, ${os.cpus().length} cores, reference openai SDK ${sdk}`;
}

function memorySampler() {
	let peakRss = 0;
	let peakHeap = 0;
	const sample = () => {
		const m = process.memoryUsage();
		peakRss = Math.max(peakRss, m.rss);
		peakHeap = Math.max(peakHeap, m.heapUsed);
	};
	sample();
	const t = setInterval(sample, 50);
	return {
		stop: () => {
			clearInterval(t);
			sample();
			return { rss: peakRss / 2 ** 20, heap: peakHeap / 2 ** 20 };
		},
	};
}

(async () => {
	if (process.argv.includes('--serve')) return serve();
	const { Governor } = require('../dist/src/judges/governor');
	const { createOpenAIModelSource } = require('../dist/src/judges/model');
	const { runJudge } = require('../dist/src/judges/run');
	const { groundedness } = require('../dist/src/judges/specs/groundedness');
	const { relevance } = require('../dist/src/judges/specs/relevance');
	const { coherence } = require('../dist/src/judges/specs/quality');
	const OpenAI = require('openai').default;
	const JUDGES = [groundedness, relevance, coherence];

	const rows = Array.from({ length: ROWS }, (_, i) => ({
		request_id: `r${i}`,
		request: `What is the refund window for order ${i}?`,
		response: `Order ${i} can be refunded within 30 days of delivery.`,
		retrieved_context: [
			{ doc_uri: 'kb/refunds.md', content: 'Refunds are accepted within 30 days of delivery.' },
			{ doc_uri: 'kb/shipping.md', content: 'Standard shipping takes 3-5 business days.' },
		],
	}));
	const ideal = (ROWS * JUDGES.length * LATENCY_MS) / CONCURRENCY / 1000;

	/** One judge node: its own governor, every row started at once, as executeJudge does. */
	async function judgeNode(decl, baseUrl, onRowDone, governorOptions = {}) {
		const source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl,
			model: 'judge-model',
			apiKey: 'sk-soak-bench-not-a-real-key',
		});
		const governor = new Governor({ concurrency: CONCURRENCY, ...governorOptions });
		let done = 0;
		const scores = await Promise.all(
			rows.map((row) =>
				runJudge(decl, row, { source, governor }).then((s) => {
					onRowDone?.(++done, s);
					return s;
				}),
			),
		);
		return { scores, calls: governor.calls(source.key) };
	}

	/** Rows in = rows out, every row scored or carrying a named error; returns the tallies. */
	function check(label, scores) {
		if (scores.length !== ROWS) throw new Error(`${label}: ${scores.length} rows out of ${ROWS}`);
		const out = { ok: 0, error: 0, kinds: {}, examples: [] };
		for (const s of scores) {
			if (s.status === 'ok') {
				if (typeof s.value !== 'number' || !Number.isFinite(s.value))
					throw new Error(`${label}: an ok score without a finite value`);
				out.ok++;
				continue;
			}
			if (s.status !== 'error' || typeof s.error !== 'string' || s.error.trim() === '')
				throw new Error(`${label}: a row left without a score or a named error`);
			if (/fetch failed$|Connection error\.$/.test(s.error))
				throw new Error(`${label}: an unnamed connection error: ${s.error}`);
			out.error++;
			const kind = String(s.details?.errorKind ?? 'reply');
			out.kinds[kind] = (out.kinds[kind] || 0) + 1;
			if (out.examples.length < 3) out.examples.push(s.error.slice(0, 160));
		}
		return out;
	}

	async function sdkReference(baseUrl, calls) {
		const client = new OpenAI({ apiKey: 'not-needed', baseURL: baseUrl, maxRetries: 0 });
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
	}

	console.log(
		`soak bench: ${ROWS} rows x ${JUDGES.length} judges, ${LATENCY_MS} ms/call, concurrency ${CONCURRENCY}, ` +
			`${(FAULT_RATE * 100).toFixed(1)}% faults (${FAULT_KINDS.join(', ')}; Retry-After ${RETRY_AFTER_S} s); ${describeRun()}`,
	);
	console.log(
		`latency bound (ideal) = ${ROWS} x ${JUDGES.length} x ${LATENCY_MS} ms / ${CONCURRENCY} = ${ideal.toFixed(2)} s`,
	);

	// Reference: the bare SDK, no faults, same number of calls (warm: after a warm-up pass).
	let refWall;
	{
		const ref = await startServer({ FAULT_RATE: '0' });
		try {
			await sdkReference(ref.baseUrl, 200);
			refWall = await sdkReference(ref.baseUrl, ROWS * JUDGES.length);
		} finally {
			ref.close();
		}
		console.log(
			`reference (bare openai SDK, worker pool, no faults, warm): ${refWall.toFixed(2)} s, efficiency ${(ideal / refWall).toFixed(3)}`,
		);
	}

	// Phase 1: random faults.
	{
		const server = await startServer();
		try {
			// warm-up (JIT, connection pool), not measured: a few rows through one judge
			const warm = rows.slice(0, 50);
			const src = createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			});
			await Promise.all(
				warm.map((r) => runJudge(groundedness, r, { source: src, governor: new Governor() })),
			);
			const before = await server.stats();
			const mem = memorySampler();
			const t0 = process.hrtime.bigint();
			let calls = 0;
			const tallies = [];
			for (const decl of JUDGES) {
				const { scores, calls: c } = await judgeNode(decl, server.baseUrl);
				calls += c;
				tallies.push([decl.id, check(decl.id, scores), scores]);
			}
			const wall = Number(process.hrtime.bigint() - t0) / 1e9;
			const peak = mem.stop();
			const after = await server.stats();
			const seen = after.chat - before.chat;
			const faults = FAULT_KINDS.map((k) => `${k} ${after[k] - before[k]}`).join(', ');
			const injected = FAULT_KINDS.reduce((a, k) => a + after[k] - before[k], 0);
			let ok = 0;
			let errors = 0;
			let attempts = 0;
			for (const [id, t, scores] of tallies) {
				ok += t.ok;
				errors += t.error;
				attempts += scores.reduce((a, s) => a + (s.attempts || 0), 0);
				console.log(
					`  ${id}: rows in ${ROWS}, rows out ${t.ok + t.error} (ok ${t.ok}, named errors ${t.error}${t.error ? ` ${JSON.stringify(t.kinds)}` : ''})`,
				);
				for (const e of t.examples) console.log(`    e.g. ${e}`);
			}
			console.log(
				`faults: ${wall.toFixed(2)} s, efficiency ${(ideal / wall).toFixed(3)} vs latency bound, vs reference ${(refWall / wall).toFixed(3)}; ` +
					`rows out ${ok + errors}/${ROWS * JUDGES.length} (ok ${ok}, named errors ${errors}); ` +
					`server calls ${seen}, faults injected ${injected} (${faults}); every fault recovered or named: ${ok + errors === ROWS * JUDGES.length ? 'yes' : 'NO'}; ` +
					`calls counted on Scores ${attempts} (governor ${calls}) = server ${seen}: ${attempts === seen ? 'yes' : 'NO'}; ` +
					`peak RSS ${peak.rss.toFixed(0)} MiB, peak heap ${peak.heap.toFixed(0)} MiB`,
			);
		} finally {
			server.close();
		}
	}

	// Phase 2: the endpoint goes down for good after DOWN_AT of the first judge's rows; once with
	// the node's default breaker (10 s cool-down, then probes), once without the probe.
	for (const [label, options] of [
		['default breaker (5 failures, 10 s cool-down, probes)', {}],
		['breaker without probe (cool-down 0)', { breakerCooldownMs: 0 }],
	]) {
		const server = await startServer();
		try {
			const downAfter = Math.floor(ROWS * DOWN_AT);
			let downAt = 0;
			let downCalls;
			const t0 = Date.now();
			const perJudge = [];
			for (const [j, decl] of JUDGES.entries()) {
				const start = Date.now();
				const onRow = (n) => {
					if (j === 0 && n === downAfter && !downAt) {
						downAt = Date.now();
						downCalls = server.setMode('down').then(() => server.stats());
					}
				};
				const { scores } = await judgeNode(decl, server.baseUrl, onRow, options);
				const t = check(decl.id, scores);
				const unavailable = scores.filter((s) =>
					/judge model unavailable: /.test(s.error || ''),
				).length;
				perJudge.push(
					`${decl.id}: ${((Date.now() - start) / 1000).toFixed(2)} s, ok ${t.ok}, named errors ${t.error} (unavailable ${unavailable})`,
				);
			}
			const end = Date.now();
			const stats = await server.stats();
			const atDown = await downCalls;
			const remaining = ROWS - downAfter + ROWS * (JUDGES.length - 1);
			console.log(
				`down for good, ${label}: after ${downAfter} rows of the first judge (${((downAt - t0) / 1000).toFixed(2)} s in), ` +
					`every remaining row (${remaining}) had its named error ${((end - downAt) / 1000).toFixed(2)} s later; ` +
					`calls while down ${stats.down} (${(stats.down / JUDGES.length).toFixed(1)} per judge node; at 5 attempts per row without a breaker: ${remaining * 5}); ` +
					`calls before down ${atDown.chat - atDown.down}`,
			);
			for (const line of perJudge) console.log(`  ${line}`);
		} finally {
			server.close();
		}
	}
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
