// The Databricks-style agent evaluation example on the real n8n CLI: Databricks rows through every
// Databricks judge, document recall, the Root-Cause Router and Eval Aggregate. Rows are never lost,
// judges score where their inputs exist (or say no model is set), document recall equals the
// library's, every row leaves the router once, and run metrics carry Databricks names.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const JUDGES = {
	'Relevance to Query': 'relevance_to_query',
	Groundedness: 'groundedness_verdict',
	Safety: 'safety',
	Correctness: 'correctness',
	'Chunk Relevance': 'chunk_relevance',
	'Context Sufficiency': 'context_sufficiency',
	'Guideline Adherence': 'guideline_adherence',
};

function check(run, { out, dist }, withJudge) {
	const wf = JSON.parse(
		fs.readFileSync(path.join(EXAMPLES, 'databricks-agent-evaluation.workflow.json'), 'utf8'),
	);
	const file = fs
		.readFileSync(path.join(EXAMPLES, 'datasets', 'databricks-agent-sample.jsonl'), 'utf8')
		.trim();
	assert.equal(
		wf.nodes.find((n) => n.name === 'Eval Dataset').parameters.text,
		file,
		'the workflow embeds the bundled dataset as is (rerun examples/generate.js)',
	);
	const n = file.split('\n').length;
	const lib = require(path.join(dist, 'src', 'index.js'));
	assert.equal(out(run, 'Eval Dataset', 0).length, n, 'every bundled row is valid');
	for (const node of [...Object.keys(JUDGES), 'Document Recall'])
		assert.equal(out(run, node, 0).length, n, `${node}: rows in = rows out`);

	const rows = out(run, 'Document Recall', 0);
	const ground = (r) =>
		Boolean(r.expected_response || (r.expected_facts && r.expected_facts.length));
	for (const r of rows) {
		for (const [node, key] of Object.entries(JUDGES)) {
			const s = r.eval[key];
			assert.ok(s, `${r.request_id}: ${node} wrote eval.${key}`);
			if (!withJudge) {
				assert.equal(s.status, 'not_applicable', `${r.request_id} ${key}`);
				assert.match(s.reason, /no judge model configured/);
				continue;
			}
			const needsTruth = key === 'correctness' || key === 'context_sufficiency';
			const textless = (r.retrieved_context || []).some((c) => c.content === undefined);
			const expectNa =
				(needsTruth && !ground(r)) ||
				(textless && (key === 'groundedness_verdict' || key === 'context_sufficiency'));
			assert.equal(
				s.status,
				expectNa ? 'not_applicable' : 'ok',
				`${r.request_id} ${key}: ${s.error || s.reason}`,
			);
			if (s.status === 'ok') assert.equal(typeof s.reason, 'string');
		}
		const recall = r.eval.document_recall;
		const want = lib.documentRecall(
			r.retrieved_context.map((c) => c.doc_uri),
			r.expected_retrieved_context.map((c) => ({ uri: c.doc_uri, grade: 1 })),
		);
		assert.equal(recall.status, 'ok');
		assert.equal(recall.value, want, `${r.request_id}: document recall`);
	}
	if (withJudge) {
		const chunk = rows.find((r) => r.request_id === 'spark-1').eval.chunk_relevance;
		assert.match(chunk.reason, /1 without content not judged/);
		assert.equal(chunk.details.chunks.length, 2);
	}

	const names = lib.routerOutputNames();
	let routed = 0;
	names.forEach((name, k) => {
		for (const item of out(run, 'Root-Cause Router', k)) {
			routed++;
			if (!withJudge) assert.equal(name, 'Incomplete', `${item.request_id}: no judge, no verdict`);
			else assert.equal(item.root_cause ?? (item.overall === 'pass' ? 'Pass' : 'Incomplete'), name);
		}
	});
	assert.equal(routed, n, 'every row leaves the router once');

	const [summary] = out(run, 'Eval Aggregate', 0);
	assert.equal(summary.rows, n);
	assert.equal(
		summary.perMetric.document_recall.runMetric,
		'retrieval/ground_truth/document_recall/average',
	);
	if (withJudge) {
		assert.equal(
			summary.perMetric.chunk_relevance.runMetric,
			'retrieval/llm_judged/chunk_relevance/precision/average',
		);
		assert.equal(summary.perMetric.safety.runMetric, 'response/llm_judged/safety/rating/average');
		assert.equal(
			summary.perMetric.groundedness_verdict.runMetric,
			'response/llm_judged/groundedness/rating/percentage',
		);
	}
}

module.exports = [
	{
		name: 'example databricks-agent-evaluation runs with the judge model',
		workflowId: 'ragEvalDatabricks01',
		check: (run, ctx) => check(run, ctx, Boolean(ctx.judge)),
	},
	{
		name: 'example databricks-agent-evaluation runs without a judge model (judges not_applicable)',
		workflowId: 'ragEvalDatabricks01N',
		check: (run, ctx) => check(run, ctx, false),
	},
];
