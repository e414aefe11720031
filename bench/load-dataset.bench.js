/**
 * Benchmark (not a test): loadDataset on generated JSONL rows of realistic size (request, a ~100-word
 * response, 3-5 retrieved contexts of ~80 words, expected_response). Prints rows/s and peak memory,
 * and as the same-run reference the rows/s of a bare JSON.parse per line over the same text.
 * Build first: `npx tsc -p tsconfig.json`; run: `node bench/load-dataset.bench.js` (ROWS=n to resize).
 */
'use strict';
const { loadDataset } = require('../dist/src/record');

const ROWS = Number(process.env.ROWS || 100000);

// Deterministic text so runs compare: mulberry32 over a fixed vocabulary.
let seed = 12345;
function rand() {
	seed = (seed + 0x6d2b79f5) >>> 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const VOCAB = (
	'the a of to and in is for on with that by as are from this be it at or an data model query ' +
	'retrieval context answer document spark delta lake table cluster job pipeline vector index ' +
	'embedding chunk token latency score metric judge ground truth response request user agent ' +
	'café naïve résumé 数据 検索 очередь'
).split(' ');
function words(n) {
	const out = new Array(n);
	for (let i = 0; i < n; i++) out[i] = VOCAB[Math.floor(rand() * VOCAB.length)];
	return out.join(' ');
}

function makeJsonl(n) {
	const lines = new Array(n);
	for (let i = 0; i < n; i++) {
		const k = 3 + Math.floor(rand() * 3);
		const ctx = [];
		for (let j = 0; j < k; j++)
			ctx.push({ doc_uri: `docs/${i % 997}/${j}.md`, content: words(80) });
		lines[i] = JSON.stringify({
			request_id: `r-${i}`,
			request: words(15) + '?',
			response: words(100),
			retrieved_context: ctx,
			expected_response: words(40),
		});
	}
	return lines.join('\n') + '\n';
}

function mb(bytes) {
	return (bytes / 1024 / 1024).toFixed(0) + ' MB';
}

const text = makeJsonl(ROWS);
// Flatten the joined string now, so neither measurement pays for it.
const bytes = Buffer.byteLength(text);
const warm = makeJsonl(2000);
loadDataset(warm);
for (const l of warm.split('\n')) if (l) JSON.parse(l);
if (global.gc) global.gc();

const rssBefore = process.memoryUsage().rss;
let t0 = process.hrtime.bigint();
const res = loadDataset(text);
const loadSec = Number(process.hrtime.bigint() - t0) / 1e9;
const peakRss = process.resourceUsage().maxRSS * 1024;
const heapAfter = process.memoryUsage().heapUsed;
if (res.records.length !== ROWS || res.invalid.length !== 0)
	throw new Error('unexpected load result');

t0 = process.hrtime.bigint();
let parsed = 0;
const lines = text.split('\n');
for (let i = 0; i < lines.length; i++) {
	if (lines[i] !== '') {
		JSON.parse(lines[i]);
		parsed++;
	}
}
const refSec = Number(process.hrtime.bigint() - t0) / 1e9;

const loadRate = ROWS / loadSec;
const refRate = parsed / refSec;
console.log(`input: ${ROWS} JSONL rows, ${mb(bytes)} (${Math.round(bytes / ROWS)} bytes/row)`);
console.log(`loadDataset:           ${loadRate.toFixed(0)} rows/s (${loadSec.toFixed(2)} s)`);
console.log(`reference JSON.parse:  ${refRate.toFixed(0)} rows/s (${refSec.toFixed(2)} s)`);
console.log(
	`ratio loadDataset / JSON.parse: ${(loadRate / refRate).toFixed(3)} (${(refRate / loadRate).toFixed(1)}x slower)`,
);
console.log(
	`memory: RSS before load ${mb(rssBefore)}, peak RSS ${mb(peakRss)} (+${mb(peakRss - rssBefore)} during load), heap after load ${mb(heapAfter)}`,
);
