/**
 * Benchmark (not a test): parseTrace on 10,000 generated traces of 50 spans each, as JSON text (the
 * way a dataset column holds them), in two formats: MLflow 2 (JSON-encoded attribute values, one
 * agent root, chains, retrievers and chat-model spans with token usage) and OTLP JSON with GenAI
 * attributes. Prints traces/s and peak memory, and as the same-run reference a bare JSON.parse of
 * the same texts. Build first: `npm run build`; run: `node --expose-gc bench/trace.bench.js`
 * (TRACES=n, SPANS=n to resize).
 */
'use strict';
const { execSync } = require('node:child_process');
const os = require('node:os');
const { mulberry32 } = require('./env');
const { parseTrace } = require('../dist/src/record');

const TRACES = Number(process.env.TRACES || 10000);
const SPANS = Number(process.env.SPANS || 50);
const WARM = 500;

const rand = mulberry32(20240611);
const VOCAB = 'the a of to and in data model query retrieval context answer document table vector index chunk token latency'.split(' ');
const words = (n) => Array.from({ length: n }, () => VOCAB[Math.floor(rand() * VOCAB.length)]).join(' ');
const J = JSON.stringify;
const T0 = 1717000000000000000;

/** Span i's kind: every 5th a chat model, every 7th a retriever, the rest chains and tools. */
const kindOf = (i) => (i === 0 ? 'AGENT' : i % 5 === 0 ? 'CHAT_MODEL' : i % 7 === 0 ? 'RETRIEVER' : 'CHAIN');

function mlflow2(n) {
	const spans = [];
	for (let i = 0; i < SPANS; i++) {
		const kind = kindOf(i);
		const attrs = { 'mlflow.traceRequestId': J(`tr-${n}`), 'mlflow.spanType': J(kind) };
		if (kind === 'CHAT_MODEL')
			attrs['mlflow.chat.tokenUsage'] = J({ input_tokens: 100 + i, output_tokens: 20 + (i % 9), total_tokens: 120 + i + (i % 9) });
		if (kind === 'RETRIEVER')
			attrs['mlflow.spanOutputs'] = J([0, 1, 2].map((d) => ({ page_content: words(40), metadata: { doc_uri: `doc/${n}/${i}/${d}` } })));
		if (i === 0) {
			attrs['mlflow.spanInputs'] = J({ messages: [{ role: 'user', content: words(12) }] });
			attrs['mlflow.spanOutputs'] = J(words(60));
		}
		// Parents: a shallow tree, some chains nested three deep.
		const parent = i === 0 ? null : `s${i % 3 === 0 ? Math.max(0, i - 3) : 0}`;
		spans.push({
			name: `span-${i}`,
			context: { span_id: `s${i}`, trace_id: `t${n}` },
			parent_id: parent,
			start_time: T0 + i * 1e6,
			end_time: T0 + (i + 1) * 1e6 + (i === 0 ? SPANS * 1e6 : 0),
			status_code: 'OK',
			status_message: '',
			attributes: attrs,
			events: [],
		});
	}
	return J({ info: { request_id: `tr-${n}`, execution_time_ms: 1000 + (n % 500), status: 'OK' }, data: { spans } });
}

function otlp(n) {
	const kv = (key, v) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });
	const spans = [];
	for (let i = 0; i < SPANS; i++) {
		const kind = kindOf(i);
		const attrs = [];
		if (kind === 'CHAT_MODEL')
			attrs.push(kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o-mini'), kv('gen_ai.usage.input_tokens', 100 + i), kv('gen_ai.usage.output_tokens', 20 + (i % 9)));
		else attrs.push(kv('gen_ai.operation.name', i === 0 ? 'invoke_agent' : 'execute_tool'), kv('gen_ai.tool.name', words(2)));
		if (i === 0)
			attrs.push(kv('gen_ai.input.messages', J([{ role: 'user', parts: [{ type: 'text', content: words(12) }] }])), kv('gen_ai.output.messages', J([{ role: 'assistant', parts: [{ type: 'text', content: words(60) }] }])));
		spans.push({
			traceId: `${n}`.padStart(32, '0'),
			spanId: `${i}`.padStart(16, '0'),
			parentSpanId: i === 0 ? '' : '0'.repeat(16),
			name: `span-${i}`,
			kind: 3,
			startTimeUnixNano: String(T0 + i * 1e6),
			endTimeUnixNano: String(T0 + (i + 1) * 1e6 + (i === 0 ? SPANS * 1e6 : 0)),
			attributes: attrs,
			status: { code: 1 },
		});
	}
	return J({ resourceSpans: [{ resource: { attributes: [kv('service.name', 'bench')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] });
}

const mb = (b) => (b / 1024 / 1024).toFixed(0) + ' MB';
let commit = 'unknown';
try {
	commit = execSync('git rev-parse --short HEAD', { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
} catch {
	// Not a git checkout.
}
console.log(`commit ${commit}, Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'})`);
console.log(`reference: JSON.parse of the same texts (V8 ${process.versions.v8}); warm: ${WARM}-trace warm-up of each function first`);

for (const [format, make] of [['MLflow 2', mlflow2], ['OTLP GenAI', otlp]]) {
	const texts = Array.from({ length: TRACES }, (_, n) => make(n));
	const bytes = texts.reduce((a, t) => a + t.length, 0);
	// Warm-up (JIT) on other traces, then measure.
	const warm = Array.from({ length: WARM }, (_, n) => make(TRACES + n));
	for (const t of warm) parseTrace(t);
	for (const t of warm) JSON.parse(t);
	if (global.gc) global.gc();

	const rssBefore = process.memoryUsage().rss;
	let t0 = process.hrtime.bigint();
	let tokens = 0;
	for (const t of texts) tokens += parseTrace(t).total_token_count;
	const sec = Number(process.hrtime.bigint() - t0) / 1e9;
	const peak = process.resourceUsage().maxRSS * 1024;
	if (!(tokens > 0)) throw new Error('no tokens counted');

	t0 = process.hrtime.bigint();
	let n = 0;
	for (const t of texts) n += JSON.parse(t) ? 1 : 0;
	const refSec = Number(process.hrtime.bigint() - t0) / 1e9;

	const rate = TRACES / sec;
	const refRate = n / refSec;
	console.log(`\n${format}: ${TRACES} traces x ${SPANS} spans, ${mb(bytes)} of JSON text (${Math.round(bytes / TRACES)} bytes/trace)`);
	console.log(`parseTrace:           ${rate.toFixed(0)} traces/s (${sec.toFixed(2)} s, ${((rate * SPANS) / 1e6).toFixed(2)} M spans/s)`);
	console.log(`reference JSON.parse: ${refRate.toFixed(0)} traces/s (${refSec.toFixed(2)} s)`);
	console.log(`ratio parseTrace / JSON.parse: ${(rate / refRate).toFixed(3)} (${(refRate / rate).toFixed(1)}x slower)`);
	console.log(`memory: RSS before ${mb(rssBefore)}, process peak RSS ${mb(peak)} (+${mb(Math.max(0, peak - rssBefore))} over the texts held in memory)`);
	if (global.gc) global.gc();
}
