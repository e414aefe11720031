// The CI gate example, published on a running n8n and called over HTTP as a CI job would (with the
// webhook token): the answer says pass/fail with the failing rows and means that match the
// library's own metrics and the judge's ratings. The local judge server rates a row by the
// `[[score=N]]` marker in its question.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const ROWS = [
	{
		query: 'What is the refund window? [[score=5]]',
		response: 'Refunds are possible within 30 days.',
		ground_truth: 'Refunds are possible within 30 days.',
	},
	{
		query: 'Do you ship abroad? [[score=1]]',
		response: 'We were founded in 2012 in Berlin.',
		ground_truth: 'Yes, we ship to all EU countries.',
	},
	{
		query: 'Support hours? [[score=4]]',
		response: 'Support is open from 8:00 to 18:00 on weekdays.',
		ground_truth: 'Weekdays from 8:00 to 18:00.',
	},
];

function expected(dist, rows, withJudge) {
	const { f1Score, bleuScore } = require(path.join(dist, 'src', 'index.js'));
	const f1 = rows.map((r) => f1Score(r.response, r.ground_truth));
	const bleu = rows.map((r) => bleuScore(r.response, r.ground_truth));
	const similarity = rows.map((r) => Number(/\[\[score=(\d)\]\]/.exec(r.query)[1]));
	const failed = rows.map(
		(_, i) => f1[i] < 0.5 || bleu[i] < 0.2 || (withJudge && similarity[i] < 3),
	);
	const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
	return {
		f1: mean(f1),
		bleu: mean(bleu),
		similarity: withJudge ? mean(similarity) : null,
		failed: failed.filter(Boolean).length,
	};
}

module.exports = [
	{
		name: 'example ci-gate answers a failing dataset with fail and the failing rows',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: ROWS }) },
		check({ status, body, judgeCalls }, { dist, judge }) {
			assert.equal(status, 200, JSON.stringify(body));
			const want = expected(dist, ROWS, Boolean(judge));
			assert.equal(body.rows, ROWS.length);
			assert.ok(want.failed > 0, 'the fixture has a failing row');
			assert.equal(body.pass, false);
			assert.equal(body.failed.length, want.failed);
			// The JUnit XML for the CI job rides in the answer: one testcase per row, failures named.
			assert.match(String(body.junit), /<testsuites[\s>]/);
			assert.equal((body.junit.match(/<testcase /g) || []).length >= ROWS.length, true);
			assert.ok(body.junit.includes('<failure'), 'failing rows are JUnit failures');
			assert.ok(Math.abs(body.f1_mean - want.f1) < 1e-12, `f1_mean ${body.f1_mean} vs ${want.f1}`);
			assert.ok(
				Math.abs(body.bleu_mean - want.bleu) < 1e-12,
				`bleu_mean ${body.bleu_mean} vs ${want.bleu}`,
			);
			assert.equal(body.similarity_mean, want.similarity);
			if (judge) {
				// The positive control of the refusal specs: an admitted call does reach the judge.
				assert.equal(body.judged, ROWS.length);
				assert.equal(judgeCalls, ROWS.length, 'one similarity call per row');
			}
		},
	},
	{
		name: 'example ci-gate answers a passing dataset with pass',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: [ROWS[0], ROWS[0]] }) },
		check({ status, body }) {
			assert.equal(status, 200, JSON.stringify(body));
			assert.equal(body.pass, true);
			assert.equal(body.rows, 2);
			assert.deepEqual(body.failed, []);
			assert.equal(body.f1_mean, 1);
		},
	},
];
