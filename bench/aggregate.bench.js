'use strict';
/*
 * Eval Aggregate throughput: 100,000 scored rows with 10 metrics each (4 yes/no judges, chunk
 * precision, F1, BLEU with corpus statistics, a 1-5 judge, a safety severity, latency) through
 * aggregatePartial, mergePartials (10 batches) and finalizeAggregate. The reference, measured in
 * the same run over the same values, is a naive single pass that only sums and averages each
 * metric: the ratio shows what exact merging, percentiles, intervals and root cause cost on top.
 * Memory is what a partial keeps alive: heap used after global.gc() with the partial held, minus
 * heap used after global.gc() before it was built (node --expose-gc; re-executes itself if needed).
 * Build first: npm run build; run: node --expose-gc bench/aggregate.bench.js (ROWS=... to resize)
 */
const { printHeader, reexecWithGc } = require('./env');
if (reexecWithGc()) return;
const { aggregatePartial, mergePartials, finalizeAggregate } = require('../dist/src/aggregate');
const { createRng } = require('../dist/src/stats/random');

const ROWS = Number(process.env.ROWS || 100000);
const BINARY = { kind: 'binary', min: 0, max: 1 };
const UNIT = { kind: 'unit', min: 0, max: 1 };
const LIKERT = { kind: 'likert', min: 1, max: 5 };
const SEVERITY = { kind: 'severity', min: 0, max: 7 };

function makeRows(n) {
	const r = createRng(2024);
	const judge = (metric, v) => ({
		metric,
		value: v,
		scale: BINARY,
		pass: v,
		status: 'ok',
		reason: 'x',
		signature: metric,
		model: 'gpt-4o-mini',
		usage: { promptTokens: 400, completionTokens: 60, totalTokens: 460 },
	});
	const unit = (metric, v) => ({
		metric,
		value: v,
		scale: UNIT,
		threshold: 0.5,
		pass: v >= 0.5,
		status: 'ok',
		signature: metric,
	});
	const rows = [];
	for (let i = 0; i < n; i++) {
		const m = Math.floor(r() * 5);
		rows.push({
			request_id: `req-${i}`,
			expected_response: i % 2 === 0 ? 'gt' : undefined,
			latency_seconds: 0.2 + r() * 3,
			total_token_count: 300 + Math.floor(r() * 3000),
			eval: {
				context_sufficiency: judge('context_sufficiency', r() < 0.9),
				groundedness_verdict: judge('groundedness_verdict', r() < 0.85),
				correctness: judge('correctness', r() < 0.8),
				safety: judge('safety', r() < 0.99),
				chunk_relevance: unit('chunk_relevance', Math.floor(r() * 6) / 5),
				f1_score: unit('f1_score', r()),
				bleu: {
					...unit('bleu', r()),
					stats: { matches: [m + 3, m + 2, m + 1, m], totals: [9, 8, 7, 6], hypLen: 9, refLen: 10 },
				},
				coherence: {
					metric: 'coherence',
					value: 1 + Math.floor(r() * 5),
					scale: LIKERT,
					threshold: 3,
					pass: r() < 0.8,
					status: 'ok',
					signature: 'c',
				},
				violence: {
					metric: 'violence',
					value: Math.floor(r() * 8),
					scale: SEVERITY,
					threshold: 3,
					pass: r() < 0.9,
					status: 'ok',
					details: { category: 'violence' },
					signature: 'v',
				},
			},
		});
	}
	return rows;
}

function naiveMeans(rows) {
	const sums = {};
	const counts = {};
	for (const row of rows) {
		for (const key in row.eval) {
			const s = row.eval[key];
			if (s.status !== 'ok') continue;
			sums[key] = (sums[key] || 0) + (typeof s.value === 'boolean' ? (s.value ? 1 : 0) : s.value);
			counts[key] = (counts[key] || 0) + 1;
		}
		sums.latency = (sums.latency || 0) + row.latency_seconds;
		counts.latency = (counts.latency || 0) + 1;
	}
	const out = {};
	for (const k in sums) out[k] = sums[k] / counts[k];
	return out;
}

function time(fn, repeat = 1) {
	let best = Infinity;
	let result;
	for (let i = 0; i < repeat; i++) {
		const t0 = process.hrtime.bigint();
		result = fn();
		best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
	}
	return { ms: best, result };
}

const mb = (b) => (b / 1048576).toFixed(1);
printHeader({
	bench: 'aggregate (Eval Aggregate library functions)',
	reference: `naive single-pass means in plain JavaScript, same process (node ${process.version})`,
	figures:
		'warm: best of 5 (naive) / 3 (partial, merge, finalize) runs in one process; memory after global.gc()',
});
const rows = makeRows(ROWS);

/** Heap used once garbage collection has run to completion (two passes for weak/finalised). */
function heapAfterGc() {
	global.gc();
	global.gc();
	return process.memoryUsage().heapUsed;
}

const naive = time(() => naiveMeans(rows), 5);
const partial = time(() => aggregatePartial(rows), 3);
// Retained by one partial: build a fresh one between two full collections, keep it referenced.
partial.result = null;
const heap0 = heapAfterGc();
partial.result = aggregatePartial(rows);
const retained = heapAfterGc() - heap0;
const batches = 10;
const size = Math.ceil(ROWS / batches);
const parts = [];
for (let b = 0; b < batches; b++)
	parts.push(aggregatePartial(rows.slice(b * size, (b + 1) * size)));
const merged = time(() => mergePartials(...parts), 3);
const finNoBoot = time(() => finalizeAggregate(partial.result, { bootstrapResamples: 0 }), 3);
const finBoot = time(() => finalizeAggregate(partial.result));
const finMerged = finalizeAggregate(merged.result);
const json = JSON.stringify(partial.result);

const same = JSON.stringify(finMerged) === JSON.stringify(finBoot.result);
const s = finBoot.result;
console.log(`rows=${ROWS} metrics/row=10 (9 eval keys + latency)`);
console.log(
	`reference naive single-pass means: ${naive.ms.toFixed(1)} ms (${(ROWS / naive.ms).toFixed(0)} rows/ms)`,
);
console.log(
	`aggregatePartial:                 ${partial.ms.toFixed(1)} ms (${(ROWS / partial.ms).toFixed(0)} rows/ms)  ratio vs naive ${(partial.ms / naive.ms).toFixed(1)}x`,
);
console.log(`mergePartials (10 batches):       ${merged.ms.toFixed(1)} ms`);
console.log(`finalizeAggregate, no bootstrap:  ${finNoBoot.ms.toFixed(1)} ms`);
console.log(
	`finalizeAggregate, default bootstrap (${s.perMetric.f1_score.mean.ci.resamples} resamples at this size): ${finBoot.ms.toFixed(1)} ms`,
);
console.log(
	`end to end (partial + finalize with bootstrap) vs naive: ${((partial.ms + finBoot.ms) / naive.ms).toFixed(1)}x; without bootstrap: ${((partial.ms + finNoBoot.ms) / naive.ms).toFixed(1)}x`,
);
const retainedMerged = (() => {
	const h0 = heapAfterGc();
	const held = { merged: mergePartials(...parts) };
	const kept = heapAfterGc() - h0;
	return held.merged ? kept : 0;
})();
console.log(
	`partial JSON size: ${mb(json.length)} MB; retained after gc by one partial: ${mb(retained)} MB, ` +
		`by the merged partial of 10 batches: ${mb(retainedMerged)} MB; rss ${mb(process.memoryUsage().rss)} MB`,
);
console.log(`merged == single pass (bit-identical JSON): ${same}`);
const naiveF1 = naive.result.f1_score;
console.log(
	`check: f1 mean ${s.perMetric.f1_score.mean.value} vs naive ${naiveF1} (diff ${Math.abs(s.perMetric.f1_score.mean.value - naiveF1).toExponential(2)}); corpus BLEU ${s.perMetric.bleu.corpus.value.toFixed(6)}`,
);
