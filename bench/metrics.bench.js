/**
 * Throughput of the traditional metrics (pairs per second), ours against the Python reference
 * implementations timed in the same run, on the conformance pairs: realistic RAG rows, every
 * non-long row, and the 2,000-3,000-word `long` rows. Prints ratio = ours / reference.
 *
 *   npx tsc -p tsconfig.json && node bench/metrics.bench.js [--quick]
 *
 * The reference is bench/reference/metrics_ref.py under a Python with nltk (Debian
 * python3-nltk; set PYTHON to choose the interpreter). Without nltk it prints ours only.
 * sacreBLEU is not packaged for Debian: install the real package where pip works
 * (`python3 -m pip install --target DIR sacrebleu==2.6.0`) and set SACREBLEU_PATH=DIR; without it
 * the lean port bench/reference/sacrebleu_ref.py is timed and a "reference:" line says so.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist/src/metrics/index.js');
if (!fs.existsSync(DIST)) {
	console.error(`missing ${path.relative(ROOT, DIST)}: run "npx tsc -p tsconfig.json" first`);
	process.exit(1);
}
const M = require(DIST);

const { CONFORMANCE_DIR: CONF, readConformance } = require('./conformance');
const quick = process.argv.includes('--quick');

const rows = readConformance('metric-conformance.jsonl');
const pairsOf = (pred) => rows.filter(pred).map((r) => [r.response, r.ground_truth]);
const SETS = {
	realistic: pairsOf((r) => r.category === 'realistic'),
	non_long: pairsOf((r) => r.category !== 'long'),
	long: pairsOf((r) => r.category === 'long'),
};

const ours = {
	f1_score: (r, g) => M.f1Score(r, g),
	bleu: (r, g) => M.bleuScore(r, g),
	gleu: (r, g) => M.gleuScore(r, g),
	rouge1: (r, g) => M.rougeScore(r, g, 'rouge1'),
	rouge2: (r, g) => M.rougeScore(r, g, 'rouge2'),
	rougeL: (r, g) => M.rougeScore(r, g, 'rougeL'),
	rougeLsum: (r, g) => M.rougeScore(r, g, 'rougeLsum'),
	nltk_tokenize: (r, g) => [M.nltkTokenize(r), M.nltkTokenize(g)],
	sacrebleu: (r, g) => M.sacreBleuSentence(r, g),
};
if (typeof M.meteorScore === 'function') ours.meteor = (r, g) => M.meteorScore(r, g);

/** Best pairs/second over 3 timed runs of at least ~150 ms each, after one warm-up pass. */
function timeOurs(fn, pairs) {
	for (const [r, g] of pairs) fn(r, g);
	let best = 0;
	for (let rep = 0; rep < 3; rep++) {
		let n = 0;
		const t0 = process.hrtime.bigint();
		let dt = 0;
		do {
			for (const [r, g] of pairs) fn(r, g);
			n += pairs.length;
			dt = Number(process.hrtime.bigint() - t0) / 1e9;
		} while (dt < (quick ? 0.05 : 0.15));
		best = Math.max(best, n / dt);
	}
	return best;
}

function runReference() {
	const py =
		process.env.PYTHON || (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
	const probe = spawnSync(py, ['-c', 'import nltk; print(nltk.__version__)'], { encoding: 'utf8' });
	if (probe.status !== 0) {
		console.log(
			`Python reference unavailable (${py} cannot import nltk; apt-get install python3-nltk).`,
		);
		console.log('Printing our figures only.\n');
		return null;
	}
	console.log(
		`reference: ${py}, nltk ${probe.stdout.trim()} (timing only; scores checked by tests)`,
	);
	const args = [
		path.join(__dirname, 'reference/metrics_ref.py'),
		CONF,
		'--repeat',
		quick ? '1' : '3',
	];
	const out = spawnSync(py, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
	if (out.status !== 0) {
		console.log(`reference run failed (exit ${out.status}):\n${out.stderr.slice(-2000)}`);
		return null;
	}
	const ref = {};
	for (const line of out.stdout.split('\n')) {
		if (!line.trim()) continue;
		const rec = JSON.parse(line);
		if (rec.note) console.log(`reference: ${rec.note}`);
		else ref[`${rec.metric}/${rec.set}`] = rec.pairs_per_sec;
	}
	return ref;
}

const ref = runReference();
const fmt = (x) =>
	x === undefined ? '-' : x >= 100 ? Math.round(x).toLocaleString('en') : x.toFixed(1);
console.log(
	`\n${'metric'.padEnd(14)}${'set'.padEnd(11)}${'ours pairs/s'.padStart(14)}${'ref pairs/s'.padStart(13)}${'ours/ref'.padStart(10)}`,
);
const ratios = {};
for (const [name, fn] of Object.entries(ours)) {
	for (const [setName, pairs] of Object.entries(SETS)) {
		const o = timeOurs(fn, pairs);
		const t = ref ? ref[`${name}/${setName}`] : undefined;
		const ratio = t ? o / t : undefined;
		ratios[`${name}/${setName}`] = ratio;
		console.log(
			`${name.padEnd(14)}${setName.padEnd(11)}${fmt(o).padStart(14)}${fmt(t).padStart(13)}${(ratio ? `${ratio.toFixed(1)}x` : '-').padStart(10)}`,
		);
	}
}
if (ref) {
	const short = Object.entries(ratios).filter(([k, v]) => !k.endsWith('/long') && v !== undefined);
	const worst = short.reduce((a, b) => (b[1] < a[1] ? b : a));
	console.log(
		`\ngoal >=10x on short pairs for every metric: worst ${worst[0]} ${worst[1].toFixed(1)}x`,
	);
	const rl = ratios['rougeL/long'];
	console.log(`goal >=100x on ROUGE-L long pairs: ${rl ? `${rl.toFixed(0)}x` : '-'}`);
}
