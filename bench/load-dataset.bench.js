/**
 * Benchmark (not a test): loadDataset on generated JSONL rows of realistic size (request, a ~100-word
 * response, 3-5 retrieved contexts of ~80 words, expected_response; ~3 KB a row). The same-run
 * reference is the bare loader a user could write: decode the bytes, split lines, JSON.parse each.
 *
 * The parent process only generates the file (in the OS temp folder) and prints; every measurement
 * runs in a child process of its own, so the generator's memory never counts, and the two loaders
 * are interleaved (reference, load, reference, load...) so machine noise hits both alike.
 * Peak memory is the child's peak RSS above its RSS with the file's bytes already read. A third
 * child measures the memory floor: a bare streaming loader that keeps every parsed row but checks
 * nothing. The text holds words outside Latin-1 (CJK, Cyrillic), so V8 keeps nearly every string
 * at two bytes a character and the floor alone is above 2x the file; TEXT=latin1 measures the same
 * rows with Latin-1 words of equal UTF-8 length instead (one-byte strings).
 *
 * Build first (`npm run build`); run: `node bench/load-dataset.bench.js` (ROWS=n, PASSES=n).
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { mulberry32 } = require('./env');
const path = require('node:path');

const ROWS = Number(process.env.ROWS || 100000);
const PASSES = Number(process.env.PASSES || 2);
const WARM_ROWS = 2000;

// Deterministic text so runs compare: mulberry32 over a fixed vocabulary.
const rand = mulberry32(12345);
// TEXT=latin1 swaps the three words outside Latin-1 for Latin-1 words of the same UTF-8 length
// (same file size, same draws), so V8 keeps every string one byte a character.
const LATIN1 = process.env.TEXT === 'latin1';
const VOCAB = (
	'the a of to and in is for on with that by as are from this be it at or an data model query ' +
	'retrieval context answer document spark delta lake table cluster job pipeline vector index ' +
	'embedding chunk token latency score metric judge ground truth response request user agent ' +
	(LATIN1 ? 'café naïve résumé crème déjà smörgåsbords' : 'café naïve résumé 数据 検索 очередь')
).split(' ');
function words(n) {
	const out = new Array(n);
	for (let i = 0; i < n; i++) out[i] = VOCAB[Math.floor(rand() * VOCAB.length)];
	return out.join(' ');
}

/** Writes `n` JSONL rows to `file`, in pieces so the generator never holds the whole text. */
function writeJsonl(file, n) {
	const fd = fs.openSync(file, 'w');
	let chunk = [];
	for (let i = 0; i < n; i++) {
		const k = 3 + Math.floor(rand() * 3);
		const ctx = [];
		for (let j = 0; j < k; j++)
			ctx.push({ doc_uri: `docs/${i % 997}/${j}.md`, content: words(80) });
		chunk.push(
			JSON.stringify({
				request_id: `r-${i}`,
				request: words(15) + '?',
				response: words(100),
				retrieved_context: ctx,
				expected_response: words(40),
			}),
		);
		if (chunk.length === 1000 || i === n - 1) {
			fs.writeSync(fd, chunk.join('\n') + '\n');
			chunk = [];
		}
	}
	fs.closeSync(fd);
	return fs.statSync(file).size;
}

/** The child: loads `file` once with `mode` (after a warm-up on `warmFile` if given) and reports. */
function child(mode, file, warmFile) {
	const run = (bytes) => {
		if (mode === 'load') {
			const { loadDataset } = require('../dist/src/record');
			const res = loadDataset(bytes);
			if (res.invalid.length !== 0)
				throw new Error(`unexpected invalid rows: ${res.invalid[0].error}`);
			return res.records.length;
		}
		if (mode === 'stream') {
			// The memory floor: the leanest loader that still keeps every row as a JS value (1 MB
			// blocks decoded at line ends, JSON.parse per line; no validation, records or hash).
			const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
			const rows = [];
			for (let start = 0; start < buf.length; ) {
				let stop = Math.min(buf.length, start + (1 << 20));
				if (stop < buf.length) {
					const nl = buf.indexOf(0x0a, stop);
					stop = nl < 0 ? buf.length : nl + 1;
				}
				const lines = buf.toString('utf8', start, stop).split('\n');
				start = stop;
				for (let i = 0; i < lines.length; i++) if (lines[i] !== '') rows.push(JSON.parse(lines[i]));
			}
			return rows.length;
		}
		// Reference: the bare loader, keeping every parsed row as loadDataset keeps its records.
		const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
		const lines = text.split('\n');
		const rows = [];
		for (let i = 0; i < lines.length; i++) if (lines[i] !== '') rows.push(JSON.parse(lines[i]));
		return rows.length;
	};
	if (warmFile) run(fs.readFileSync(warmFile));
	if (global.gc) global.gc();
	const bytes = fs.readFileSync(file);
	const rssBefore = process.memoryUsage().rss;
	const c0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	const rows = run(bytes);
	const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
	const c = process.cpuUsage(c0);
	const peak = process.resourceUsage().maxRSS * 1024;
	// CPU time (all threads, GC helpers included) as well as wall time: on a shared machine the
	// wall clock mostly measures the neighbours.
	const cpu = (c.user + c.system) / 1e6;
	process.stdout.write(JSON.stringify({ rows, seconds, cpu, rssBefore, peak }));
}

function measure(mode, file, warmFile) {
	const args = ['--expose-gc', __filename, '--child', mode, file];
	if (warmFile) args.push(warmFile);
	const out = execFileSync(process.execPath, args, { maxBuffer: 1 << 20 });
	return JSON.parse(out.toString());
}

function commit() {
	try {
		const cwd = path.join(__dirname, '..');
		const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd }).toString().trim();
		const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench'], { cwd })
			.toString()
			.trim();
		return dirty ? `${head} (with uncommitted changes)` : head;
	} catch {
		return 'unknown';
	}
}

function main() {
	const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'load-dataset-bench-'));
	try {
		const file = path.join(dir, 'rows.jsonl');
		const warmFile = path.join(dir, 'warm.jsonl');
		const bytes = writeJsonl(file, ROWS);
		writeJsonl(warmFile, WARM_ROWS);
		console.log(
			`commit ${commit()}, node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), reference: bare TextDecoder + split + JSON.parse (same node); load average ${os
				.loadavg()
				.map((l) => l.toFixed(2))
				.join(' ')}`,
		);
		console.log(
			`input: ${ROWS} JSONL rows, ${mb(bytes)} (${Math.round(bytes / ROWS)} bytes/row), text ${LATIN1 ? 'Latin-1 only (TEXT=latin1: one-byte strings)' : 'with CJK and Cyrillic words (two-byte strings)'}; each figure from a fresh child process`,
		);
		for (const warm of [false, true]) {
			const best = { load: null, ref: null, stream: null };
			for (let p = 0; p < PASSES; p++) {
				for (const mode of ['ref', 'load', 'stream']) {
					const r = measure(mode === 'ref' ? 'parse' : mode, file, warm ? warmFile : undefined);
					if (r.rows !== ROWS) throw new Error(`${mode}: ${r.rows} rows, expected ${ROWS}`);
					if (!best[mode] || r.seconds < best[mode].seconds) best[mode] = r;
				}
			}
			const label = warm
				? `warm (after a ${WARM_ROWS}-row warm-up load in the same child)`
				: 'cold (first load in the child)';
			const rate = (r) => ROWS / r.seconds;
			const grow = (r) => r.peak - r.rssBefore;
			console.log(`${label}, best of ${PASSES} interleaved passes:`);
			console.log(
				`  loadDataset:          ${rate(best.load).toFixed(0)} rows/s (${best.load.seconds.toFixed(2)} s), peak RSS +${mb(grow(best.load))} = ${(grow(best.load) / bytes).toFixed(2)}x the file`,
			);
			console.log(
				`  reference JSON.parse: ${rate(best.ref).toFixed(0)} rows/s (${best.ref.seconds.toFixed(2)} s), peak RSS +${mb(grow(best.ref))} = ${(grow(best.ref) / bytes).toFixed(2)}x the file`,
			);
			console.log(
				`  memory floor (bare streaming JSON.parse keeping the rows, no checks): peak RSS +${mb(grow(best.stream))} = ${(grow(best.stream) / bytes).toFixed(2)}x the file`,
			);
			console.log(
				`  CPU seconds: loadDataset ${best.load.cpu.toFixed(2)}, reference ${best.ref.cpu.toFixed(2)}`,
			);
			console.log(
				`  ratio loadDataset / JSON.parse: ${(rate(best.load) / rate(best.ref)).toFixed(3)} wall, ${(best.ref.cpu / best.load.cpu).toFixed(3)} CPU (goal >= 0.5); memory ${(grow(best.load) / bytes).toFixed(2)}x the file (goal <= 2)`,
			);
		}
		console.log(
			`load average after: ${os
				.loadavg()
				.map((l) => l.toFixed(2))
				.join(' ')}`,
		);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

if (process.argv[2] === '--child') child(process.argv[3], process.argv[4], process.argv[5]);
else main();
