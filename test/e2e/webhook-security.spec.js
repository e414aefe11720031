// The example webhooks on a running n8n, called the way a stranger or a careless CI job would:
// without the token or with a wrong one n8n refuses the call before any execution starts (the
// local judge server records no call); an admitted call with too many rows, an unreadable body
// or invalid rows gets a 4xx JSON answer from the workflow, and nothing is judged.
'use strict';
const assert = require('node:assert/strict');

const MAX_ROWS = 100; // CI_MAX_ROWS in examples/generate.js

const row = (i) => ({
	query: `Question ${i}? [[score=4]]`,
	response: `The answer to question ${i} is in the support handbook.`,
	ground_truth: `The answer to question ${i} is in the support handbook.`,
});

/** No judge call was made (checked against the judge server's log when one runs). */
function noJudgeCall(judgeCalls, ctx) {
	if (ctx.judge) assert.equal(judgeCalls, 0, 'the judge server received no call');
}

function refused(status, text) {
	// n8n's Header Auth answers 403 to a missing header and to a wrong value alike.
	assert.equal(status, 403, `HTTP ${status}: ${String(text).slice(0, 300)}`);
	assert.doesNotMatch(String(text), /"pass"|f1_mean/, 'no evaluation answer');
}

module.exports = [
	{
		name: 'security: ci-gate without the token is refused and calls no judge',
		workflowId: 'ragEvalCiGate0001',
		webhook: {
			path: 'rag-eval-ci',
			headers: () => ({}),
			textBody: true,
			body: () => ({ rows: [row(1), row(2)] }),
		},
		check({ status, text, judgeCalls }, ctx) {
			refused(status, text);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'security: ci-gate with a wrong token is refused and calls no judge',
		workflowId: 'ragEvalCiGate0001',
		webhook: {
			path: 'rag-eval-ci',
			headers: (ctx) => ({ authorization: `Bearer ${ctx.webhookToken}x` }),
			textBody: true,
			body: () => ({ rows: [row(1), row(2)] }),
		},
		check({ status, text, judgeCalls }, ctx) {
			refused(status, text);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'security: ci-gate with the token runs and judges every row',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: [row(1), row(2)] }) },
		check({ status, body, judgeCalls }, ctx) {
			assert.equal(status, 200, JSON.stringify(body));
			assert.equal(body.rows, 2);
			assert.equal(body.pass, true);
			if (ctx.judge) {
				assert.equal(body.similarity_mean, 4);
				assert.equal(judgeCalls, 2, 'one judge call per row');
			}
		},
	},
	{
		name: `security: ci-gate refuses more than Max Rows (${MAX_ROWS}) with 413 and judges nothing`,
		workflowId: 'ragEvalCiGate0001',
		webhook: {
			path: 'rag-eval-ci',
			body: () => ({ rows: Array.from({ length: MAX_ROWS + 1 }, (_, i) => row(i + 1)) }),
		},
		check({ status, body, judgeCalls }, ctx) {
			assert.equal(status, 413, JSON.stringify(body));
			assert.equal(
				body.message,
				`The dataset has ${MAX_ROWS + 1} rows, more than Max Rows (${MAX_ROWS}); nothing was evaluated`,
			);
			assert.equal(body.max_rows, MAX_ROWS);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'security: ci-gate answers a post that is not a dataset with 400 and judges nothing',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: 'What is the refund window?' }) },
		check({ status, body, judgeCalls }, ctx) {
			assert.equal(status, 400, JSON.stringify(body));
			assert.match(body.message, /^The posted dataset cannot be read: .*nothing was evaluated$/);
			assert.match(body.expected, /"rows"/);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'security: ci-gate answers an empty post with 400',
		workflowId: 'ragEvalCiGate0001',
		webhook: { path: 'rag-eval-ci', body: () => ({ rows: [] }) },
		check({ status, body, judgeCalls }, ctx) {
			assert.equal(status, 400, JSON.stringify(body));
			assert.match(body.message, /cannot be read: the dataset is empty/);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'security: ci-gate answers invalid rows with 400 naming them, and judges no row',
		workflowId: 'ragEvalCiGate0001',
		webhook: {
			path: 'rag-eval-ci',
			// A question that is a number is no dataset row (a row without a response loads: golden
			// sets are answered after Eval Dataset, so that case is the next spec's).
			body: () => ({ rows: [row(1), { query: 42, response: 'An answer' }, row(3)] }),
		},
		check({ status, body, judgeCalls }, ctx) {
			assert.equal(status, 400, JSON.stringify(body));
			assert.equal(body.message, '1 posted row(s) are invalid; nothing was evaluated');
			assert.equal(body.invalid.length, 1);
			assert.equal(body.invalid[0].row, 2);
			assert.match(body.invalid[0].error, /^row 2: query: expected string, got number/);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'ci-gate: a posted row without a response is never reported as passing',
		workflowId: 'ragEvalCiGate0001',
		webhook: {
			path: 'rag-eval-ci',
			body: () => ({
				rows: [row(1), { query: 'Question 2?', ground_truth: 'The handbook says so.' }],
			}),
		},
		check({ status, body, judgeCalls }, ctx) {
			assert.equal(status, 200, JSON.stringify(body));
			// The row loads (golden rows are answered later) but nothing scores it: not green.
			assert.equal(body.pass, false);
			assert.equal(body.rows, 2);
			assert.equal(body.failed.length, 1);
			assert.equal(body.judged, 1);
			if (ctx.judge) assert.equal(judgeCalls, 1, 'only the row with a response is judged');
		},
	},
	{
		name: "security: ci-gate body over n8n's N8N_PAYLOAD_SIZE_MAX is refused by n8n before the workflow runs",
		workflowId: 'ragEvalCiGate0001',
		webhook: {
			path: 'rag-eval-ci',
			textBody: true,
			// One row whose answer alone is half a MiB over the limit the E2E server runs with.
			body: () => ({
				rows: [{ ...row(1), response: 'x'.repeat((2 + 0.5) * 1024 * 1024) }],
			}),
		},
		check({ status, text, judgeCalls }, ctx) {
			assert.equal(ctx.payloadSizeMaxMiB, 2, 'the spec sizes its body for a 2 MiB limit');
			// n8n 2.41 reads the body inside its webhook handler, so the parser's 413 reaches the
			// caller as a 500 "There was a problem executing the workflow"; the workflow never runs.
			process.stdout.write(`[e2e]      over-limit body answered HTTP ${status}\n`);
			assert.ok([413, 500].includes(status), `HTTP ${status}: ${String(text).slice(0, 300)}`);
			assert.doesNotMatch(String(text), /"pass"|f1_mean/, 'no evaluation answer');
			assert.match(
				require('node:fs').readFileSync(ctx.serverLog, 'utf8'),
				/request entity too large/,
				"n8n's log names the body limit",
			);
			noJudgeCall(judgeCalls, ctx);
		},
	},
	{
		name: 'security: batched-queue-mode Start Run without the token is refused',
		workflowId: 'ragEvalQueueMain01',
		covers: ['ragEvalQueueWork01'],
		webhook: { path: 'rag-eval-batched', headers: () => ({}), textBody: true, body: () => ({}) },
		check({ status, text }) {
			refused(status, text);
		},
	},
	{
		name: 'security: batched-queue-mode batch worker with a wrong token is refused',
		workflowId: 'ragEvalQueueWork01',
		webhook: {
			path: 'rag-eval-batch',
			headers: () => ({ authorization: 'Bearer guessed-token' }),
			textBody: true,
			body: () => ({ rows: [row(1)] }),
		},
		check({ status, text }) {
			refused(status, text);
		},
	},
];
