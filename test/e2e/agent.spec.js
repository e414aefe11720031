// The AI Agent example: a real n8n AI Agent with an OpenAI Chat Model (pointed at the local test
// server) answers each dataset question in its own sub-workflow run; Cost & Latency reads each run's
// stored execution data for the agent's own tokens and latency; answers are paired back and judged.
'use strict';
const assert = require('node:assert/strict');

function checkAgent(run, { out }, judge) {
	const rows = out(run, 'Eval Dataset', 0);
	const answers = out(run, 'Ask the Agent', 0);
	assert.equal(answers.length, rows.length, 'one agent answer per row');
	for (const a of answers) assert.equal(typeof a.output, 'string');
	const measured = out(run, 'Cost & Latency', 0);
	assert.equal(measured.length, rows.length);
	for (const m of measured) {
		const s = m.eval.cost_latency;
		assert.equal(s.status, 'ok', `cost_latency: ${s.error || s.reason}`);
		// Every row made at least one Chat Model call: real tokens from its own run.
		assert.ok(m.total_token_count > 0, `tokens: ${m.total_token_count}`);
		assert.ok(m.total_input_token_count > 0 && m.total_output_token_count > 0);
		assert.ok(m.latency_seconds > 0 && m.latency_seconds < 60, `latency ${m.latency_seconds}`);
	}
	const paired = out(run, 'Pair Answers With Rows', 0);
	assert.equal(paired.length, rows.length);
	paired.forEach((p, i) => {
		assert.equal(p.request, rows[i].request, 'answers stay with their own row');
		assert.equal(p.output, answers[i].output);
		assert.equal(p.total_token_count, measured[i].total_token_count);
	});
	const judged = out(run, 'Groundedness', 0);
	for (const item of judged) {
		assert.equal(item.eval.f1_score.status, item.expected_response ? 'ok' : 'not_applicable');
		for (const key of ['relevance', 'groundedness']) {
			const s = item.eval[key];
			if (judge) assert.equal(s.status, 'ok', `${key}: ${s.error || s.reason}`);
		}
	}
	const [summary] = out(run, 'Eval Aggregate', 0);
	assert.equal(summary.rows, rows.length);
	const avg = summary.metrics['agent/total_token_count/average'];
	assert.equal(avg.measured, rows.length);
	assert.ok(avg.value > 0);
	assert.ok(summary.metrics['agent/latency_seconds/p90'].value > 0);
	// The agent run's Markdown summary (issue 17.3).
	const [report] = out(run, 'Eval Report', 0);
	const md = report.markdown.split('\n');
	assert.match(md[0], new RegExp(`^# Support agent evaluation — ${rows.length} rows`));
	assert.ok(md.includes('## Metrics'), 'metrics table');
	assert.ok(report.markdown.includes('Coverage '), 'coverage beside the pass rate');
}

module.exports = [
	{
		name: 'example agent-evaluation: the AI Agent answers every row, measured from its own execution',
		workflowId: 'ragEvalAgent000001',
		covers: ['ragEvalAgentSub001'],
		check: (run, ctx) => checkAgent(run, ctx, Boolean(ctx.judge)),
	},
	{
		// The agent lives in the sub-workflow, so the parent also runs as a newcomer's copy without a
		// judge credential: the agent still answers and is measured, the judges are not applicable.
		name: 'example agent-evaluation without a judge model: still measured, judges not applicable',
		workflowId: 'ragEvalAgent000001N',
		check: (run, ctx) => {
			checkAgent(run, ctx, false);
			for (const item of ctx.out(run, 'Groundedness', 0))
				for (const key of ['relevance', 'groundedness'])
					assert.equal(item.eval[key].status, 'not_applicable', key);
		},
	},
];
