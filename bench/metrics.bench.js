/**
 * Throughput of the traditional metrics (pairs per second), ours against the Python reference
 * implementations timed in the same run (bench/reference/metrics_ref.py: nltk, rouge_score's
 * algorithm, Azure's F1, sacreBLEU, called the way Azure AI Evaluation calls them).
 * Sets: realistic, non_long, long (the conformance pairs, test/fixtures/conformance); rag_answer
 * (a 50-300-word response against a 50-300-word ground truth drawn from the same 1-5 kB context,
 * bench/ragtext.js, seeded); rag_context (the same responses against their contexts); cold
 * (rag_answer-shaped pairs whose words are new to the process that scores them, each pair scored
 * once, code already warm).
 * Interleaved: the reference runs as a server process (metrics_ref.py --serve) that waits while we
 * time. For each (metric, set) both sides do one untimed warm-up, then ROUNDS rounds; in each round
 * ours and the reference each time one window of >= WINDOW s of their own CPU time (whole passes
 * over the set; cold: fresh pairs until the window is full), the side going first alternating by
 * round. Printed: the median rate of each side, the ratio of medians (CPU time; wall clock too)
 * and the min-max of the per-round CPU ratios, so the noise shows. A reference window longer than
 * max(3x WINDOW, 5 s) (ROUGE-L on the long pairs: one pass ~8 s) gets one round only. The long set
 * is timed for ROUGE-L only (its goal) unless --long-all or --sets names it.
 *
 *   npm run build && node bench/metrics.bench.js [--quick] [--only meteor,bleu] [--sets cold,long]
 *     [--long-all] [--no-peers]
 *   env: WINDOW (CPU s, default 1), ROUNDS (3), RAG_PAIRS (100), PYTHON, SACREBLEU_PATH
 *   --quick: WINDOW 0.2, ROUNDS 2, RAG_PAIRS 30 (a smoke run; its ratios are noisy)
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
const readline = require('readline');
const { spawn } = require('child_process');
const { printHeader, pythonReference } = require('./env');

const argValue = (flag) => {
	const i = process.argv.indexOf(flag);
	return i > 0 ? process.argv[i + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const only = argValue('--only') ? new Set(argValue('--only').split(',')) : null;
const onlySets = argValue('--sets') ? new Set(argValue('--sets').split(',')) : null;
const WINDOW = Number(process.env.WINDOW || (quick ? 0.2 : 1));
const ROUNDS = Number(process.env.ROUNDS || (quick ? 2 : 3));
const RAG_PAIRS = Number(process.env.RAG_PAIRS || (quick ? 30 : 100));
// The 4 long conformance pairs only carry the ROUGE-L goal; timing them for every metric adds a
// minute (--long-all, or --sets long, does).
const LONG_ALL = process.argv.includes('--long-all');
// A reference window this long (one pass of ROUGE-L over the long pairs takes ~8 s) ends the rounds.
const LONG_PASS = Math.max(3 * WINDOW, 5);
const started = Date.now();

const py = pythonReference();
printHeader({
	bench: 'metrics (traditional metrics, pairs/s)',
	reference: py
		? `${py.py} (Python ${py.python}), nltk ${py.nltk}, via bench/reference/metrics_ref.py --serve (timing only; scores checked by the tests)`
		: 'none (Python with nltk unavailable)',
	figures:
		`warm sets: one untimed pass, then ${ROUNDS} rounds alternating ours and the reference, each a window of >= ${WINDOW} s CPU; ` +
		'cold: pairs whose words are new to the scoring process (fresh every round), code warm',
});

const M = require('../dist/src/metrics');
const { CONFORMANCE_DIR: CONF, readConformance } = require('./conformance');
const { ragRows, warmVocabulary } = require('./ragtext');

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
const setNames = [...Object.keys(SETS), 'cold'].filter((s) => !onlySets || onlySets.has(s));

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

/**
 * Cold pairs. Generating rag_answer-shaped pairs with bench/ragtext.js runs at ~1,500 pairs/s,
 * far too slow to feed 1 s windows of our fastest metrics (~25,000 cold pairs/s) round after round,
 * so cold pairs are re-worded copies of a pool of cold ragtext pairs: every pseudo-word stem of a
 * template pair is replaced by a new pseudo-word, the same stem by the same word within a pair,
 * keeping its suffix, the function words, numbers, punctuation and capitals. Shape, lengths and
 * overlap stay those of the template; no content word of a new pair was ever made before in this
 * process, so none was scored before, by us or by the reference (which gets its own new pairs).
 * The new stems are a counter written as 4 consonant-vowel syllables (8 letters, as ragtext's
 * later words; 5 after 24 million), permuted, skipping any word of the conformance pairs.
 */
const FUNCTION = new Set(
	'the of and to a in is that for it as was with be by on not are this or from at which but have has an they their were can will its also more may'.split(
		' ',
	),
);
for (const w of [...FUNCTION]) for (const s of ['s', 'ed', 'ing', 'es', 'er']) FUNCTION.add(w + s);
const SYLLABLES = 'bdfgklmnprstvz'.split('').flatMap((c) => 'aeiou'.split('').map((v) => c + v));
const warmWords = new Set(warmVocabulary().map((w) => w.toLowerCase()));
let stemCounter = 0;
/** A pseudo-word stem never returned before in this process: 4 syllables, then 5 once used up. */
function freshStem() {
	for (;;) {
		const c = stemCounter++;
		const four = SYLLABLES.length ** 4;
		const [len, space, offset] = c < four ? [4, four, 0] : [5, SYLLABLES.length ** 5, four];
		if (c - offset >= space) throw new Error('cold stems exhausted');
		// The counter, permuted (multiplier coprime to 70), least significant syllable last.
		let n = ((c - offset) * 7919 + 12345) % space;
		let w = '';
		for (let i = 0; i < len; i++) {
			w = SYLLABLES[n % 70] + w;
			n = Math.floor(n / 70);
		}
		if (!warmWords.has(w)) return w;
	}
}
/** A template text as literal parts and stem references (~id: capitalised), stems numbered per pair. */
function compile(text, ids) {
	const lits = [];
	const refs = [];
	let last = 0;
	for (const m of text.matchAll(/[A-Za-z]+/g)) {
		const lower = m[0].toLowerCase();
		if (FUNCTION.has(lower)) continue;
		// ragtext's pseudo-words in the template pool are 3 syllables (6 letters) + a suffix.
		const stem = lower.slice(0, 6);
		if (!ids.has(stem)) ids.set(stem, ids.size);
		lits.push(text.slice(last, m.index));
		refs.push(m[0] === lower ? ids.get(stem) : ~ids.get(stem));
		last = m.index + 6;
	}
	lits.push(text.slice(last));
	return { lits, refs };
}
const templates = ragRows(quick ? 50 : 200, 26001, 'cold').map((r) => {
	const ids = new Map();
	const parts = [compile(r.response, ids), compile(r.groundTruth, ids)];
	return { parts, stems: ids.size };
});
let templateIndex = 0;
/** `n` cold pairs, none sharing a content word with any pair made before in this process. */
function coldPairs(n) {
	const out = [];
	for (let i = 0; i < n; i++) {
		const t = templates[templateIndex++ % templates.length];
		const stems = Array.from({ length: t.stems }, freshStem);
		// Built as an array and joined: a flat string, as JSON.parse gives the reference (a string
		// grown with += is a rope that our first read would have to flatten, inside the timing).
		const render = ({ lits, refs }) => {
			const parts = [lits[0]];
			for (let k = 0; k < refs.length; k++) {
				const id = refs[k];
				parts.push(
					id >= 0 ? stems[id] : stems[~id].charAt(0).toUpperCase() + stems[~id].slice(1),
					lits[k + 1],
				);
			}
			return parts.join('');
		};
		out.push([render(t.parts[0]), render(t.parts[1])]);
	}
	return out;
}

const cpuNow = () => {
	const c = process.cpuUsage();
	return (c.user + c.system) / 1e6;
};
const wallNow = () => Number(process.hrtime.bigint()) / 1e9;

/** One window of ours on a warm set: whole passes until >= WINDOW s of this process's CPU time. */
function oursWarmWindow(fn, pairs) {
	let n = 0;
	const t0 = wallNow();
	const c0 = cpuNow();
	let cpu = 0;
	do {
		for (const [r, g] of pairs) fn(r, g);
		n += pairs.length;
		cpu = cpuNow() - c0;
	} while (cpu < WINDOW);
	return { pairs: n, wall: wallNow() - t0, cpu };
}

/** One cold window of ours: fresh batches (made untimed) until WINDOW s of scoring CPU time. */
function oursColdWindow(fn) {
	let n = 0;
	let wall = 0;
	let cpu = 0;
	while (cpu < WINDOW) {
		const batch = coldPairs(200);
		const t0 = wallNow();
		const c0 = cpuNow();
		for (const [r, g] of batch) fn(r, g);
		cpu += cpuNow() - c0;
		wall += wallNow() - t0;
		n += batch.length;
	}
	return { pairs: n, wall, cpu };
}

/** The reference server: `ask(cmd)` sends one command and resolves with its one-line answer. */
async function startReference() {
	if (!py) return null;
	// The RAG pairs go to the reference through a temporary file, deleted once it has read them.
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-bench-'));
	const file = path.join(dir, 'pairs.jsonl');
	const lines = [];
	for (const set of ['rag_answer', 'rag_context']) {
		for (const [response, ground_truth] of SETS[set]) {
			lines.push(JSON.stringify({ set, response, ground_truth }));
		}
	}
	fs.writeFileSync(file, `${lines.join('\n')}\n`);
	const args = [
		path.join(__dirname, 'reference/metrics_ref.py'),
		CONF,
		'--serve',
		'--pairs',
		file,
		'--only',
		metricNames.join(','),
	];
	// No __pycache__ written into bench/reference by the run.
	const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
	const child = spawn(py.py, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
	let stderr = '';
	child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
	const waiting = [];
	const queue = [];
	let closed = false;
	const fail = () => new Error(`reference process ended (exit ${child.exitCode}):\n${stderr}`);
	readline.createInterface({ input: child.stdout }).on('line', (line) => {
		const rec = JSON.parse(line);
		const w = waiting.shift();
		if (w) w.resolve(rec);
		else queue.push(rec);
	});
	child.on('close', () => {
		closed = true;
		for (const w of waiting.splice(0)) w.reject(fail());
	});
	const next = () =>
		queue.length
			? Promise.resolve(queue.shift())
			: closed
				? Promise.reject(fail())
				: new Promise((resolve, reject) => waiting.push({ resolve, reject }));
	let has;
	try {
		for (;;) {
			const rec = await next();
			if (rec.note) console.log(`reference: ${rec.note}`);
			if (rec.ready) {
				has = new Set(rec.ready);
				break;
			}
		}
	} catch (err) {
		console.log(`reference unavailable: ${err.message.slice(-2000)}`);
		return null;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
	const ask = async (cmd) => {
		child.stdin.write(`${JSON.stringify(cmd)}\n`);
		const rec = await next();
		if (rec.error) throw new Error(`reference: ${rec.error}`);
		return rec;
	};
	// `has`: the metrics the reference can time (METEOR needs the WordNet package).
	return { ask, has, stop: () => child.stdin.end() };
}

/** One cold window of the reference: fresh pairs in chunks sized from its last rate. */
async function refColdWindow(ref, metric, rateGuess) {
	let n = 0;
	let wall = 0;
	let cpu = 0;
	let rate = rateGuess;
	while (cpu < WINDOW) {
		const want = Math.max(20, Math.ceil((WINDOW - cpu) * rate * 1.3));
		const rec = await ref.ask({ op: 'cold', metric, window: WINDOW - cpu, pairs: coldPairs(want) });
		n += rec.pairs;
		wall += rec.wall;
		cpu += rec.cpu;
		rate = n / cpu;
	}
	return { pairs: n, wall, cpu };
}

const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Times one (metric, set) in alternating rounds; returns per-side medians and per-round ratios. */
async function measure(ref, name, setName, refColdRate) {
	const fn = ours[name];
	const cold = setName === 'cold';
	const pairs = SETS[setName];
	if (cold) for (const [r, g] of coldPairs(20)) fn(r, g);
	else for (const [r, g] of pairs) fn(r, g);
	const o = [];
	const t = [];
	let rounds = ROUNDS;
	for (let round = 0; round < rounds; round++) {
		const refTurn = async () => {
			if (!ref || !ref.has.has(name)) return;
			const rec = cold
				? await refColdWindow(ref, name, refColdRate)
				: await ref.ask({
						op: 'warm',
						metric: name,
						set: setName,
						window: WINDOW,
						warmup: round === 0,
					});
			t.push(rec);
			// One pass far longer than the window (ROUGE-L on the long pairs): one round is enough.
			if (rec.cpu > LONG_PASS) rounds = round + 1;
		};
		const oursTurn = () => o.push(cold ? oursColdWindow(fn) : oursWarmWindow(fn, pairs));
		if (round % 2 === 0) {
			oursTurn();
			await refTurn();
		} else {
			await refTurn();
			oursTurn();
		}
	}
	const rate = (w, k) => w.pairs / w[k];
	const res = {
		rounds: o.length,
		oursPairs: o.reduce((a, w) => a + w.pairs, 0),
		ours: {
			wall: median(o.map((w) => rate(w, 'wall'))),
			cpu: median(o.map((w) => rate(w, 'cpu'))),
		},
	};
	if (t.length) {
		res.refPairs = t.reduce((a, w) => a + w.pairs, 0);
		res.ref = {
			wall: median(t.map((w) => rate(w, 'wall'))),
			cpu: median(t.map((w) => rate(w, 'cpu'))),
		};
		const roundRatios = t.map((w, i) => rate(o[i], 'cpu') / rate(w, 'cpu'));
		res.cpuX = res.ours.cpu / res.ref.cpu;
		res.wallX = res.ours.wall / res.ref.wall;
		res.min = Math.min(...roundRatios);
		res.max = Math.max(...roundRatios);
	}
	return res;
}

const fmt = (x) =>
	x === undefined ? '-' : x >= 100 ? Math.round(x).toLocaleString('en') : x.toFixed(1);
const x = (v) => (v ? `${v >= 100 ? v.toFixed(0) : v.toFixed(1)}x` : '-');
const results = {};
const oursRates = {};

async function main() {
	const ref = await startReference();
	console.log(
		'\npairs/s: median over rounds of each side, by CPU time (the goals use CPU time: it does not' +
			' depend on what else the machine runs); CPU x = ratio of the medians, range = lowest and' +
			' highest per-round CPU ratio; wall x = ratio of the wall-clock medians',
	);
	console.log(
		`${'metric'.padEnd(14)}${'set'.padEnd(12)}${'ours pairs/s'.padStart(14)}${'ref pairs/s'.padStart(13)}${'CPU x'.padStart(9)}${'range'.padStart(17)}${'wall x'.padStart(9)}  rounds, pairs scored (ours/ref)`,
	);
	for (const name of metricNames) {
		for (const setName of setNames) {
			if (setName !== 'cold' && !SETS[setName].length) continue;
			if (setName === 'long' && !LONG_ALL && !onlySets && name !== 'rougeL') continue;
			// The reference's cold rate is first guessed from its rag_answer rate (same shape).
			const guess = results[`${name}/rag_answer`]?.ref?.cpu ?? 200;
			const r = await measure(ref, name, setName, guess);
			results[`${name}/${setName}`] = r;
			oursRates[`${name}/${setName}`] = r.ours;
			const range = r.ref ? `${x(r.min)}-${x(r.max)}` : '-';
			console.log(
				`${name.padEnd(14)}${setName.padEnd(12)}${fmt(r.ours.cpu).padStart(14)}${fmt(r.ref?.cpu).padStart(13)}${x(r.cpuX).padStart(9)}${range.padStart(17)}${x(r.wallX).padStart(9)}  ${r.rounds}, ${r.oursPairs}/${r.refPairs ?? '-'}`,
			);
		}
	}
	if (ref) {
		ref.stop();
		const goal = (label, target, pred) => {
			const list = Object.entries(results).filter(([k, v]) => pred(k) && v.cpuX !== undefined);
			if (!list.length) return;
			const below = list.filter(([, v]) => v.cpuX < target);
			const worst = list.reduce((a, b) => (b[1].cpuX < a[1].cpuX ? b : a));
			console.log(
				`goal >=${target}x (CPU, median) ${label}: ${below.length ? 'NOT MET' : 'met'}; worst ${worst[0]} ${x(worst[1].cpuX)}` +
					(below.length
						? `; below: ${below.map(([k, v]) => `${k} ${x(v.cpuX)} (${x(v.min)}-${x(v.max)})`).join(', ')}`
						: ''),
			);
		};
		console.log('');
		goal('on short pairs (realistic, non_long)', 10, (k) => /\/(realistic|non_long)$/.test(k));
		goal('on RAG-length pairs (rag_answer, rag_context)', 10, (k) => /\/rag_/.test(k));
		goal('on cold vocabulary', 10, (k) => k.endsWith('/cold'));
		goal('on ROUGE-L long pairs', 100, (k) => k === 'rougeL/long');
	}
	console.log(`\nmetric table took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** Median calls/s (wall and CPU) of an async per-pair function over ROUNDS windows of >= WINDOW s. */
async function timeAsync(fn, pairs) {
	for (const [r, g] of pairs) await fn(r, g);
	const walls = [];
	const cpus = [];
	for (let rep = 0; rep < ROUNDS; rep++) {
		let n = 0;
		const t0 = wallNow();
		const c0 = cpuNow();
		let cpu = 0;
		do {
			for (const [r, g] of pairs) await fn(r, g);
			n += pairs.length;
			cpu = cpuNow() - c0;
		} while (cpu < WINDOW);
		walls.push(n / (wallNow() - t0));
		cpus.push(n / cpu);
	}
	return { wall: median(walls), cpu: median(cpus) };
}

// Then the JavaScript peers (bench/peers.js), in this process: speed and whether they give our
// scores (ours: the medians of the table above).
main()
	.then(async () => {
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
					const o = oursRates[`${metric}/${setName}`];
					if (!o) continue; // set left out with --sets
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
					console.log(
						`${`${peer.name} ${peer.version}`.padEnd(20)}${metric.padEnd(10)}${setName.padEnd(12)}${fmt(p.wall).padStart(13)}${fmt(o.wall).padStart(10)}` +
							`${x(o.wall / p.wall).padStart(9)}${x(o.cpu / p.cpu).padStart(9)}${`${same}/${pairs.length}`.padStart(13)}`,
					);
				}
			}
		}
	})
	.then(() => process.exit(0))
	.catch((err) => {
		console.error(err);
		process.exit(1);
	});
