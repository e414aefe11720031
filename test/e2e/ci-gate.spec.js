// The CI gate example, published on a running n8n and called over HTTP as a CI job would: the
// answer says pass/fail with the failing rows and means that match the library's own metrics.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const ROWS = [
	{
		query: 'What is the refund window?',
		response: 'Refunds are possible within 30 days.',
		ground_truth: 'Refunds are possible within 30 days.',
	},
	{
		query: 'Do you ship abroad?',
		response: 'We were founded in 2012 in Berlin.',
		ground_truth: 'Yes, we ship to all EU countries.',
	},
	{
		query: 'Support hours?',
		response: 'Support is open from 8:00 to 18:00 on weekdays.',
		ground_truth: 'Weekdays from 8:00 to 18:00.',
	},
];

function expected(dist, rows) {
	const { f1Score, bleuScore } = require(path.join(dist, 'src', 'index.js'));
	const f1 = rows.map((r) => f1Score(r.response, r.ground_truth));
	const bleu = rows.map((r) => bleuScore(r.response, r.ground_truth));
	const failed = rows.map((_, i) => f1[i] < 0.5 || bleu[i] < 0.2);
	const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
	return { f1: mean(f1), bleu: mean(bleu), failed: failed.filter(Boolean).length };
}

module.exports = [
	{
		name: 'example ci-gate answers a failing dataset with fail and the failing rows',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: ROWS }) },
		check({ status, body }, { dist }) {
			assert.equal(status, 200);
			const want = expected(dist, ROWS);
			assert.equal(body.rows, ROWS.length);
			assert.ok(want.failed > 0, 'the fixture has a failing row');
			assert.equal(body.pass, false);
			assert.equal(body.failed.length, want.failed);
			assert.ok(Math.abs(body.f1_mean - want.f1) < 1e-12, `f1_mean ${body.f1_mean} vs ${want.f1}`);
			assert.ok(
				Math.abs(body.bleu_mean - want.bleu) < 1e-12,
				`bleu_mean ${body.bleu_mean} vs ${want.bleu}`,
			);
		},
	},
	{
		name: 'example ci-gate answers a passing dataset with pass',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: [ROWS[0], ROWS[0]] }) },
		check({ status, body }) {
			assert.equal(status, 200);
			assert.equal(body.pass, true);
			assert.equal(body.rows, 2);
			assert.deepEqual(body.failed, []);
			assert.equal(body.f1_mean, 1);
		},
	},
];
