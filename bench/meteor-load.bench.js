/**
 * Benchmark (not a test): METEOR's first call, which loads WordNet 3.0, then steady-state pairs/s
 * on the public conformance pairs. The same-run reference is a literal transliteration of nltk's
 * alignment (list splicing, a stem per word per call, the synonym set rebuilt from synsets() per
 * hypothesis word), sharing our tokenizer, stemmer and WordNet reader, checked for equal scores.
 * Build first: `npx tsc -p tsconfig.json`; run: `node bench/meteor-load.bench.js`.
 */
'use strict';

const mb = (bytes) => (bytes / 1048576).toFixed(1);
const before = process.memoryUsage();
const t0 = performance.now();
const meteor = require('../dist/src/metrics/meteor');
const wordnet = require('../dist/src/metrics/wordnet');
const { nltkTokenize } = require('../dist/src/metrics/tokenize');
const { porterStem } = require('../dist/src/metrics/porter');
const tRequire = performance.now();

// A pair with unmatched words on both sides, so the synonym stage (and the WordNet load) runs.
const first = meteor.meteorScore(
	'The dog barked at the mailman.',
	'A hound barked at the postman.',
);
const tFirst = performance.now();
const after = process.memoryUsage();
const info = wordnet.loadWordNet();
console.log('METEOR first call (includes WordNet 3.0 load)');
console.log(`  require modules         ${(tRequire - t0).toFixed(1)} ms`);
console.log(`  first meteorScore       ${(tFirst - tRequire).toFixed(1)} ms (score ${first})`);
console.log(
	`  of which WordNet load   ${info.loadMs.toFixed(1)} ms from ${info.source} (${info.lemmas} lemmas)`,
);
console.log(
	`  memory delta            rss +${mb(after.rss - before.rss)} MB, heapUsed +${mb(after.heapUsed - before.heapUsed)} MB, ` +
		`external +${mb(after.external - before.external)} MB; peak rss ${mb(process.resourceUsage().maxRSS * 1024)} MB`,
);

// --- nltk's algorithm written out literally, as the same-run reference ---------------------------
function nltkLiteral(hypTokens, refTokens, alpha = 0.9, beta = 3, gamma = 0.5) {
	let hyp = hypTokens.map((w, i) => [i, w.toLowerCase()]);
	let ref = refTokens.map((w, i) => [i, w.toLowerCase()]);
	const hypLen = hyp.length;
	const refLen = ref.length;
	const matchEnums = (h, r, same) => {
		const out = [];
		for (let i = h.length - 1; i >= 0; i--) {
			for (let j = r.length - 1; j >= 0; j--) {
				if (same(h[i][1], r[j][1])) {
					out.push([h[i][0], r[j][0]]);
					h.splice(i, 1);
					r.splice(j, 1);
					break;
				}
			}
		}
		return out;
	};
	const exact = matchEnums(hyp, ref, (a, b) => a === b);
	hyp = hyp.map(([i, w]) => [i, porterStem(w)]);
	ref = ref.map(([i, w]) => [i, porterStem(w)]);
	const stems = matchEnums(hyp, ref, (a, b) => a === b);
	const syns = [];
	for (let i = hyp.length - 1; i >= 0; i--) {
		const set = new Set([hyp[i][1]]);
		for (const s of wordnet.synsets(hyp[i][1]))
			for (const n of s.lemmaNames) if (!n.includes('_')) set.add(n);
		for (let j = ref.length - 1; j >= 0; j--) {
			if (set.has(ref[j][1])) {
				syns.push([hyp[i][0], ref[j][0]]);
				hyp.splice(i, 1);
				ref.splice(j, 1);
				break;
			}
		}
	}
	const matches = [...exact, ...stems, ...syns].sort((a, b) => a[0] - b[0]);
	const m = matches.length;
	if (m === 0 || hypLen === 0 || refLen === 0) return 0;
	const p = m / hypLen;
	const r = m / refLen;
	const fmean = (p * r) / (alpha * p + (1 - alpha) * r);
	let chunks = 1;
	for (let i = 0; i < m - 1; i++) {
		if (!(matches[i + 1][0] === matches[i][0] + 1 && matches[i + 1][1] === matches[i][1] + 1))
			chunks++;
	}
	return (1 - gamma * Math.pow(chunks / m, beta)) * fmean;
}

const rows = require('./conformance').readConformance('metric-conformance.jsonl');
const subsets = {
	realistic: rows.filter((r) => r.category === 'realistic'),
	'non-long': rows.filter((r) => r.category !== 'long'),
	long: rows.filter((r) => r.category === 'long'),
};

function best(fn, loops) {
	let bestMs = Infinity;
	for (let k = 0; k < 3; k++) {
		const t = performance.now();
		for (let l = 0; l < loops; l++) fn();
		bestMs = Math.min(bestMs, performance.now() - t);
	}
	return bestMs;
}

console.log('\nSteady state (best of 3), pairs per second, tokenization included');
console.log('subset      pairs  meteorScore  nltk-literal  ratio');
for (const [name, set] of Object.entries(subsets)) {
	const loops = name === 'realistic' ? 50 : name === 'long' ? 1 : 2;
	let mismatches = 0;
	for (const r of set) {
		const a = meteor.meteorScore(r.response, r.ground_truth);
		const b = nltkLiteral(nltkTokenize(r.response), nltkTokenize(r.ground_truth));
		if (a !== b || a !== r.expected.meteor_score) mismatches++;
	}
	const ours = best(() => {
		for (const r of set) meteor.meteorScore(r.response, r.ground_truth);
	}, loops);
	const ref = best(() => {
		for (const r of set) nltkLiteral(nltkTokenize(r.response), nltkTokenize(r.ground_truth));
	}, loops);
	const n = set.length * loops;
	const oursRate = (n / ours) * 1000;
	const refRate = (n / ref) * 1000;
	console.log(
		`${name.padEnd(10)} ${String(set.length).padStart(6)} ${oursRate.toFixed(0).padStart(12)} ${refRate
			.toFixed(0)
			.padStart(
				13,
			)}  ${(oursRate / refRate).toFixed(2)}x${mismatches ? `  (${mismatches} score mismatches!)` : ''}`,
	);
}
