// The batched example: batches run as sub-workflow executions that return mergeable partials, and
// the merged summary must equal the summary of one pass over the same rows (E2E single-pass
// workflow), field for field. Sentence-level averages would differ; sufficient statistics do not.
'use strict';
const assert = require('node:assert/strict');

const runs = {};

function summaryOf(run, out, node) {
	const items = out(run, node, 0);
	assert.equal(items.length, 1, `${node} emits one summary item`);
	return items[0];
}

function compareWhenBoth(out) {
	if (!runs.batched || !runs.single) return;
	const merged = summaryOf(runs.batched, out, 'Merged Summary');
	const single = summaryOf(runs.single, out, 'Summary');
	assert.deepEqual(merged, single, 'merged batch partials equal the one-pass summary');
}

module.exports = [
	{
		name: 'example batched-queue-mode (single process): webhook batches merge to the one-pass summary',
		workflowId: 'ragEvalQueueMain01',
		covers: ['ragEvalQueueWork01'],
		webhook: { path: 'rag-eval-batched', body: () => ({ batchSize: 3 }) },
		check({ status, body }, { out }) {
			assert.equal(status, 200);
			assert.ok(runs.single, 'the single-pass spec ran first');
			assert.equal(body.rows, 8);
			assert.deepEqual(body, summaryOf(runs.single, out, 'Summary'));
		},
	},
	{
		name: 'E2E single pass over the sample dataset produces a summary',
		workflowId: 'e2eSinglePass00001',
		check(run, { out }) {
			runs.single = run;
			const s = summaryOf(run, out, 'Summary');
			assert.ok(JSON.stringify(s).includes('f1_score'), 'summary covers F1');
			compareWhenBoth(out);
		},
	},
	{
		name: 'example batched-evaluation: sub-workflow partials merge to the one-pass summary',
		workflowId: 'ragEvalBatched0001',
		covers: ['ragEvalBatchWork01'],
		check(run, { out, dist }) {
			runs.batched = run;
			// Corpus BLEU from merged n-gram statistics must be the library's corpus BLEU over all
			// scored rows, which an average of per-batch BLEU would not be.
			const { bleuCorpus } = require(require('node:path').join(dist, 'src', 'index.js'));
			const rows = out(run, 'Eval Dataset', 0).filter((r) => r.expected_response);
			const merged = summaryOf(run, out, 'Merged Summary');
			assert.equal(merged.rows, 8);
			assert.equal(merged.perMetric.bleu.measured, rows.length);
			const want = bleuCorpus(
				rows.map((r) => r.response),
				rows.map((r) => r.expected_response),
			);
			assert.ok(
				Math.abs(merged.perMetric.bleu.corpus.value - want) < 1e-12,
				`${merged.perMetric.bleu.corpus.value} vs ${want}`,
			);
			const batches = run.data.resultData.runData['Evaluate Batch'];
			assert.equal(batches.length, 3, '8 rows in batches of 3 run the sub-workflow 3 times');
			for (const b of batches)
				assert.equal(b.data.main[0].length, 1, 'each batch returns one partial');
			assert.ok(runs.single, 'the single-pass spec ran first');
			compareWhenBoth(out);
		},
	},
];
