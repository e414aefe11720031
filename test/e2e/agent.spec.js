// The AI Agent example: a real n8n AI Agent with an OpenAI Chat Model (pointed at the local test
// server) answers each dataset question; answers are paired back with their rows and judged.
'use strict';
const assert = require('node:assert/strict');

module.exports = [
	{
		name: 'example agent-evaluation: the AI Agent answers every row and its answers are scored',
		workflowId: 'ragEvalAgent000001',
		check(run, { out, judge }) {
			const rows = out(run, 'Eval Dataset', 0);
			const answers = out(run, 'Support Agent', 0);
			assert.equal(answers.length, rows.length, 'one agent answer per row');
			for (const a of answers) assert.equal(typeof a.output, 'string');
			const paired = out(run, 'Pair Answers With Rows', 0);
			assert.equal(paired.length, rows.length);
			paired.forEach((p, i) => {
				assert.equal(p.request, rows[i].request, 'answers stay with their own row');
				assert.equal(p.output, answers[i].output);
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
			// The agent run's Markdown summary (issue 17.3).
			const [report] = out(run, 'Eval Report', 0);
			const md = report.markdown.split('\n');
			assert.match(md[0], new RegExp(`^# Support agent evaluation — ${rows.length} rows`));
			assert.ok(md.includes('## Metrics'), 'metrics table');
			assert.ok(report.markdown.includes('Coverage '), 'coverage beside the pass rate');
		},
	},
];
