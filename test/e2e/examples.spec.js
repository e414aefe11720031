// The example workflows, executed by the real n8n CLI exactly as imported from examples/: every
// node of ours loads and runs, rows are never lost between nodes, deterministic scores equal the
// library's, judge scores come from the credential's model (or say clearly that none is set).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
// The router's fixed outputs, from the declarations (the E2E runs after the build).
const ROUTER_OUTPUTS = require('../../dist/src/rootcause').routerOutputNames();

function datasetRows(name) {
	return fs
		.readFileSync(path.join(EXAMPLES, 'datasets', name), 'utf8')
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l));
}

function checkNightly(run, { out, dist }, withJudge) {
	const wf = JSON.parse(
		fs.readFileSync(path.join(EXAMPLES, 'nightly-rag-evaluation.workflow.json'), 'utf8'),
	);
	const embedded = wf.nodes.find((n) => n.name === 'Eval Dataset').parameters.text;
	assert.equal(
		embedded,
		fs.readFileSync(path.join(EXAMPLES, 'datasets', 'rag-support-sample.jsonl'), 'utf8').trim(),
		'the workflow embeds the bundled dataset as is (rerun examples/generate.js)',
	);
	const source = datasetRows('rag-support-sample.jsonl');
	const rows = out(run, 'Eval Dataset', 0);
	assert.equal(rows.length, source.length, 'every bundled row is valid');
	assert.equal(out(run, 'Eval Dataset', 1).length, 0);
	// Disabled until the user points it at their app, the HTTP node passes the rows through.
	assert.equal(out(run, 'Ask Your RAG App', 0).length, source.length);

	const { f1Score } = require(path.join(dist, 'src', 'index.js'));
	const f1 = out(run, 'F1 Score', 0);
	assert.equal(f1.length, source.length, 'rows in = rows out');
	for (const item of f1) {
		const s = item.eval.f1_score;
		if (item.expected_response) {
			assert.equal(s.status, 'ok');
			assert.ok(Math.abs(s.value - f1Score(item.response, item.expected_response)) < 1e-12);
		} else {
			assert.equal(s.status, 'not_applicable');
		}
	}
	assert.ok(
		f1.some((i) => i.eval.f1_score.value === 1),
		'the verbatim answer scores F1 = 1',
	);

	const judged = out(run, 'Relevance', 0);
	assert.equal(judged.length, source.length);
	for (const item of judged) {
		const rouge = Object.keys(item.eval).find((k) => k.startsWith('rouge'));
		assert.ok(rouge, 'ROUGE wrote its score');
		// Semantic Similarity embeds through the judge credential (the test server's vectors).
		const sim = item.eval.semantic_similarity;
		assert.ok(sim, 'eval.semantic_similarity present');
		if (!item.expected_response) assert.equal(sim.status, 'not_applicable');
		else if (withJudge) {
			assert.equal(sim.status, 'ok', sim.error || sim.reason);
			assert.ok(sim.value >= -1 && sim.value <= 1, 'a cosine');
			assert.equal(sim.model, 'text-embedding-3-small');
		} else {
			assert.equal(sim.status, 'not_applicable');
			assert.match(String(sim.reason), /no embedding model configured/);
		}
		for (const key of ['groundedness', 'relevance']) {
			const s = item.eval[key];
			assert.ok(s, `eval.${key} present`);
			if (withJudge) {
				assert.equal(s.status, 'ok', `${key}: ${s.error || s.reason}`);
				assert.ok(
					Number.isInteger(s.value) && s.value >= 1 && s.value <= 5,
					`${key} on the 1-5 scale`,
				);
				assert.equal(s.pass, s.value >= 3);
				assert.ok(s.usage && s.usage.promptTokens > 0, 'token usage recorded');
			} else {
				assert.equal(s.status, 'not_applicable');
				assert.match(String(s.reason), /no judge model configured/);
				assert.equal(s.value, null);
			}
		}
		// Groundedness is a two-model panel on the judge credential: both jurors answered, the
		// value is the mean of their ratings, the signature names both models.
		const g = item.eval.groundedness;
		if (withJudge) {
			const panel = g.details.panel;
			assert.deepEqual(
				panel.jurors.map((j) => [j.model, j.status]),
				[
					['gpt-4o-mini', 'ok'],
					['gpt-4.1-mini', 'ok'],
				],
			);
			assert.equal(panel.answered, 2);
			assert.equal(g.value, (panel.jurors[0].value + panel.jurors[1].value) / 2);
			assert.match(g.signature, /model:panel\[gpt-4\.1-mini\+gpt-4o-mini\]/);
		}
	}

	// The run-level branch: one summary over every row, gated against the previous night's.
	const [summary] = out(run, 'Eval Aggregate', 0);
	assert.equal(summary.rows, source.length);
	assert.equal(summary.perMetric.f1_score.measured, source.filter((r) => r.ground_truth).length);
	const gated = [0, 1, 2].flatMap((k) => out(run, 'Regression Gate', k));
	assert.equal(gated.length, 1, 'the gate emits one verdict');
	assert.equal(gated[0].baselineFound, false, 'a first run has no baseline');
	const [report] = out(run, 'Eval Report', 0);
	assert.ok(report.slack && Array.isArray(report.slack.blocks), 'one Slack message built');
	assert.ok(report.tickets && Array.isArray(report.tickets.causes), 'per-cause tickets built');
	if (withJudge) {
		// Every row judged: complete, and with nothing to compare against nothing regressed.
		assert.equal(summary.status, 'complete');
		assert.equal(out(run, 'Regression Gate', 0).length, 1);
		assert.equal(out(run, 'Save as Baseline', 0).length, 1);
		assert.equal(report.verdict, 'OK');
	} else {
		// No judge model: no row has a verdict, so the run is incomplete and never green.
		assert.equal(summary.status, 'incomplete');
		assert.equal(summary.overall.incomplete, source.length);
		assert.equal(out(run, 'Regression Gate', 2).length, 1, 'the gate leaves on Incomplete');
		assert.equal(run.data.resultData.runData['Save as Baseline'], undefined);
		assert.equal(report.verdict, 'INCOMPLETE');
		assert.match(report.slack.text, /INCOMPLETE \(8 of 8 rows not judged\)/);
	}
	// The optional per-row branch: every row leaves the router on exactly one output.
	let routed = 0;
	ROUTER_OUTPUTS.forEach((name, k) => {
		for (const item of out(run, 'Root-Cause Router', k)) {
			routed++;
			if (k === 0) assert.equal(item.overall, 'pass');
			else if (name === 'Incomplete') assert.equal(item.overall, 'incomplete');
			else {
				assert.equal(item.overall, 'fail');
				assert.ok(item.suggested_fix, 'a failing row carries a suggested fix');
				// Every shipped judge has its own output; Custom Judge is for the user's own judges.
				assert.notEqual(name, 'Custom Judge');
				assert.equal(item.root_cause, name);
			}
		}
	});
	assert.equal(routed, source.length, 'the router sends every row to exactly one output');
	if (!withJudge) {
		assert.equal(
			out(run, 'Root-Cause Router', 0).length,
			0,
			'no row passes when the judges could not run',
		);
	} else {
		assert.equal(
			out(run, 'Root-Cause Router', ROUTER_OUTPUTS.indexOf('Incomplete')).length,
			0,
			'all judges ran',
		);
	}
	// As shipped the Slack and GitHub nodes are disabled: the plan still has one item per cause.
	const failing = summary.rootCauses.filter((c) => c.cause !== 'pass');
	const planned = out(run, 'Plan Tickets', 0);
	assert.deepEqual(
		planned.map((p) => [p.action, p.cause]),
		failing.map((c) => ['open', c.cause]),
		'one ticket per root cause, not per row',
	);
}

module.exports = [
	{
		name: 'example nightly-rag-evaluation runs with the judge model',
		workflowId: 'ragEvalNightly001',
		check: (run, ctx) => checkNightly(run, ctx, Boolean(ctx.judge)),
	},
	{
		name: 'example nightly-rag-evaluation runs without a judge model (judges not_applicable)',
		workflowId: 'ragEvalNightly001N',
		check: (run, ctx) => checkNightly(run, ctx, false),
	},
];
