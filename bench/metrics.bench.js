/**
 * Throughput of the traditional metrics (pairs per second), ours against the Python reference
 * implementations timed in the same run (bench/reference/metrics_ref.py: nltk, rouge_score's
 * algorithm, Azure's F1, sacreBLEU, called the way Azure AI Evaluation calls them).
 * Prints ratio = ours / reference per metric and set:
 * - realistic, non_long, long: the conformance pairs (test/fixtures/conformance);
 * - rag_answer: RAG-length pairs, a 50-300-word response against a 50-300-word ground truth drawn
 *   from the same 1-5 kB context (bench/ragtext.js, seeded, words of the conformance pairs);
 * - rag_context: the same responses against their 1-5 kB contexts;
 * - cold: rag_answer-shaped pairs whose words were never seen before in the process (fresh
 *   pseudo-words, a new lexicon per pair, plus common function words), each pair scored once.
 * Warm sets: one untimed pass, then REPEAT timed windows of >= WINDOW s, best kept. Cold: ours
 * scores fresh batches until WINDOW s of scoring have elapsed (generation not timed), after the
 * warm sets (so the code is JIT-compiled, only the vocabulary is new); the reference scores its
 * own fresh pool of COLD_PAIRS pairs once.
 *
 *   npm run build && node bench/metrics.bench.js [--quick] [--only meteor,bleu]
 *   env: WINDOW (s, default 1), REPEAT (3), RAG_PAIRS (100), COLD_PAIRS (100), PYTHON, SACREBLEU_PATH
 *
 * The reference needs a Python with nltk (Debian python3-nltk; PYTHON chooses the interpreter);
 * without it ours alone is printed. sacreBLEU is not packaged for Debian: install the real package
 * where pip works (`python3 -m pip install --target DIR sacrebleu==2.6.0`) and set
 * SACREBLEU_PATH=DIR; otherwise the lean port bench/reference/sacrebleu_ref.py is timed (a
 * "reference:" line says which).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { printHeader, pythonReference, timeWindows } = require('./env');

const quick = process.argv.includes('--quick');
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? new Set(process.argv[onlyArg + 1].split(',')) : null;
const WINDOW = Number(process.env.WINDOW || (quick ? 0.2 : 1));
const REPEAT = Number(process.env.REPEAT || (quick ? 1 : 3));
const RAG_PAIRS = Number(process.env.RAG_PAIRS || (quick ? 30 : 100));
const COLD_PAIRS = Number(process.env.COLD_PAIRS || (quick ? 30 : 100));

const py = pythonReference();
printHeader({
	bench: 'metrics (traditional metrics, pairs/s)',
	reference: py
		? `${py.py} (Python ${py.python}), nltk ${py.nltk}, via bench/reference/metrics_ref.py (timing only; scores checked by the tests)`
		: 'none (Python with nltk unavailable)',
	figures: `warm sets: untimed pass then best of ${REPEAT} windows >= ${WINDOW} s; cold: words new to the process, code warm`,
});

const M = require('../dist/src/metrics');
const { CONFORMANCE_DIR: CONF, readConformance } = require('./conformance');
const { ragRows } = require('./ragtext');

const rows = readConformance('metric-conformance.jsonl');
const pairsOf = (pred) => rows.filter(pred).map((r) => [r.response, r.ground_truth]);
const rag = ragRows(RAG_PAIRS, 16001, 'warm');
const SETS = {
	realistic: pairsOf((r) => r.category === 'realistic'),
	non_long: pairsOf((r) => r.category !== 'long'),
	long: pairsOf((r) => r.category === 'long'),
	rag_answer: rag.map((r) => [r.response, r.groundTruth]),
	rag_context: rag.map((r) => [r.response, r.context]),
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
	meteor: (r, g) => M.meteorScore(r, g),
};
const metricNames = Object.keys(ours).filter((m) => !only || only.has(m));

/** Best pairs/s (wall and CPU) over REPEAT windows of >= WINDOW s, after one untimed pass. */
function timeWarm(fn, pairs) {
	return timeWindows(
		() => {
			for (const [r, g] of pairs) fn(r, g);
		},
		pairs.length,
		{ window: WINDOW, repeat: REPEAT },
	);
}

let coldSeed = 26001;
/** Pairs/second on fresh batches (never seen words) until WINDOW s of scoring have elapsed. */
function timeCold(fn) {
	let n = 0;
	let ns = 0n;
	let us = 0;
	while (Number(ns) / 1e9 < WINDOW) {
		const batch = ragRows(25, coldSeed++, 'cold').map((r) => [r.response, r.groundTruth]);
		const t0 = process.hrtime.bigint();
		const c0 = process.cpuUsage();
		for (const [r, g] of batch) fn(r, g);
		ns += process.hrtime.bigint() - t0;
		const c = process.cpuUsage(c0);
		us += c.user + c.system;
		n += batch.length;
	}
	return { wall: n / (Number(ns) / 1e9), cpu: n / (us / 1e6), pairs: n };
}

function runReference() {
	if (!py) return null;
	// The RAG and cold pairs go to the reference through a temporary file (deleted afterwards).
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-bench-'));
	const file = path.join(dir, 'pairs.jsonl');
	const lines = [];
	for (const set of ['rag_answer', 'rag_context']) {
		for (const [response, ground_truth] of SETS[set]) {
			lines.push(JSON.stringify({ set, response, ground_truth }));
		}
	}
	for (const m of metricNames) {
		for (const r of ragRows(COLD_PAIRS, coldSeed++, 'cold')) {
			lines.push(
				JSON.stringify({ set: `cold:${m}`, response: r.response, ground_truth: r.groundTruth }),
			);
		}
	}
	fs.writeFileSync(file, `${lines.join('\n')}\n`);
	const args = [
		path.join(__dirname, 'reference/metrics_ref.py'),
		CONF,
		'--pairs',
		file,
		'--window',
		String(WINDOW),
		'--repeat',
		String(REPEAT),
		'--only',
		metricNames.join(','),
	];
	const t0 = Date.now();
	const out = spawnSync(py.py, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
	fs.rmSync(dir, { recursive: true, force: true });
	if (out.status !== 0) {
		console.log(`reference run failed (exit ${out.status}):\n${out.stderr.slice(-2000)}`);
		return null;
	}
	const ref = {};
	for (const line of out.stdout.split('\n')) {
		if (!line.trim()) continue;
		const rec = JSON.parse(line);
		if (rec.note) console.log(`reference: ${rec.note}`);
		else if (rec.metric) ref[`${rec.metric}/${rec.set}`] = rec;
	}
	console.log(`reference run took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	return ref;
}

const ref = runReference();
const fmt = (x) =>
	x === undefined ? '-' : x >= 100 ? Math.round(x).toLocaleString('en') : x.toFixed(1);
console.log(
	'\npairs/s by wall clock; ratios by wall clock and by CPU time (the goals use CPU time: it does not' +
		' depend on what else the machine runs)',
);
console.log(
	`${'metric'.padEnd(14)}${'set'.padEnd(12)}${'ours pairs/s'.padStart(14)}${'ref pairs/s'.padStart(13)}${'wall x'.padStart(9)}${'CPU x'.padStart(9)}`,
);
const ratios = {};
const oursRates = {};
const x = (v) => (v ? `${v.toFixed(1)}x` : '-');
const line = (name, setName, o, t, extra = '') => {
	const wall = t ? o.wall / t.pairs_per_sec : undefined;
	const cpu = t ? o.cpu / t.cpu_pairs_per_sec : undefined;
	ratios[`${name}/${setName}`] = cpu;
	oursRates[`${name}/${setName}`] = o;
	console.log(
		`${name.padEnd(14)}${setName.padEnd(12)}${fmt(o.wall).padStart(14)}${fmt(t?.pairs_per_sec).padStart(13)}${x(wall).padStart(9)}${x(cpu).padStart(9)}${extra}`,
	);
};
for (const name of metricNames) {
	const fn = ours[name];
	for (const [setName, pairs] of Object.entries(SETS)) {
		line(name, setName, timeWarm(fn, pairs), ref?.[`${name}/${setName}`]);
	}
	const cold = timeCold(fn);
	const rc = ref?.[`${name}/cold`];
	line(name, 'cold', cold, rc, `  (ours ${cold.pairs} pairs${rc ? `, ref ${rc.pairs}` : ''})`);
}
if (ref) {
	const worstOf = (pred) => {
		const list = Object.entries(ratios).filter(([k, v]) => pred(k) && v !== undefined);
		return list.length ? list.reduce((a, b) => (b[1] < a[1] ? b : a)) : null;
	};
	const show = (w) => (w ? `${w[0]} ${w[1].toFixed(1)}x` : '-');
	console.log(
		`\ngoal >=10x (CPU) on short pairs for every metric: worst ${show(worstOf((k) => /\/(realistic|non_long)$/.test(k)))}`,
	);
	console.log(
		`goal >=10x (CPU) on RAG-length pairs (rag_answer, rag_context): worst ${show(worstOf((k) => /\/rag_/.test(k)))}`,
	);
	console.log(
		`goal >=10x (CPU) on cold vocabulary: worst ${show(worstOf((k) => k.endsWith('/cold')))}`,
	);
	const rl = ratios['rougeL/long'];
	console.log(`goal >=100x (CPU) on ROUGE-L long pairs: ${rl ? `${rl.toFixed(0)}x` : '-'}`);
}

/** Best calls/s (wall and CPU) of an async per-pair function, as timeWindows does. */
async function timeAsync(fn, pairs) {
	for (const [r, g] of pairs) await fn(r, g);
	let wall = 0;
	let cpu = 0;
	for (let rep = 0; rep < REPEAT; rep++) {
		let n = 0;
		let dt = 0;
		const t0 = process.hrtime.bigint();
		const c0 = process.cpuUsage();
		do {
			for (const [r, g] of pairs) await fn(r, g);
			n += pairs.length;
			dt = Number(process.hrtime.bigint() - t0) / 1e9;
		} while (dt < WINDOW);
		const c = process.cpuUsage(c0);
		wall = Math.max(wall, n / dt);
		cpu = Math.max(cpu, n / ((c.user + c.system) / 1e6));
		if (dt > 3 * WINDOW) break;
	}
	return { wall, cpu };
}

// JavaScript peers (bench/peers.js), in this process: speed and whether they give our scores.
(async () => {
	if (process.argv.includes('--no-peers')) return;
	const { loadPeers } = require('./peers');
	const peers = loadPeers();
	if (peers.missing.length > 0) {
		console.log(
			`\nJS peers not installed: ${peers.missing.join(', ')} (\`node bench/peers.js --install\` puts them in ${peers.dir}, outside the repository): skipped`,
		);
	}
	if (peers.found.length === 0) return;
	console.log(
		`\nJS peers, same process, warm (ratios ours/peer; "same score": |peer - ours| <= 1e-9 on the set's pairs)`,
	);
	console.log(
		`${'peer'.padEnd(20)}${'metric'.padEnd(10)}${'set'.padEnd(12)}${'peer pairs/s'.padStart(13)}${'ours'.padStart(10)}${'wall x'.padStart(9)}${'CPU x'.padStart(9)}${'same score'.padStart(13)}`,
	);
	for (const peer of peers.found) {
		for (const [metric, peerFn] of Object.entries(peer.metrics)) {
			if (!metricNames.includes(metric)) continue;
			// A peer that throws on a pair (js-rouge on empty text) scores it NaN here.
			const fn = async (r, g) => {
				try {
					return await peerFn(r, g);
				} catch {
					return NaN;
				}
			};
			for (const setName of ['realistic', 'rag_answer', 'rag_context']) {
				const pairs = SETS[setName];
				let same = 0;
				for (const [r, g] of pairs) {
					const theirs = await fn(r, g);
					const mine = ours[metric](r, g);
					// ROUGE returns precision, recall and F; the peers give the F-measure.
					const value = typeof mine === 'number' ? mine : mine.fmeasure;
					if (Math.abs(theirs - value) <= 1e-9) same++;
				}
				const p = await timeAsync(fn, pairs);
				const o = oursRates[`${metric}/${setName}`];
				console.log(
					`${`${peer.name} ${peer.version}`.padEnd(20)}${metric.padEnd(10)}${setName.padEnd(12)}${fmt(p.wall).padStart(13)}${fmt(o.wall).padStart(10)}` +
						`${x(o.wall / p.wall).padStart(9)}${x(o.cpu / p.cpu).padStart(9)}${`${same}/${pairs.length}`.padStart(13)}`,
				);
			}
		}
	}
	process.exit(0);
})().catch((err) => {
	console.error(err);
	process.exit(1);
});
