// The AI Agent example: a real n8n AI Agent with three tools (knowledge-base search, order lookup,
// refund; Code tools) and an OpenAI Chat Model pointed at the local test server answers each
// golden-set question in its own sub-workflow run; Cost & Latency reads each run's stored execution
// data for the agent's tokens, latency and tool calls; Tool Calls compares the calls with the
// expected ones; the Root-Cause Router blames each failing row; one Slack message per run.
//
// The scripted run gives every question a trajectory the local model plays exactly
// (`[[call:<tool> {args}]]`, test/support/openai-server-cli.js): the golden set's own calls, and
// rows that call a wrong tool, a right tool with wrong arguments, a tool that fails (the refund
// stand-in throws) and a loop. Every figure asserted below is worked out by hand from the script.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/n8n-install');
const {
	EXAMPLES,
	blockKitProblems,
	closeAll,
	exampleWorkflow,
	startSlackReceiver,
} = require('./support/standins');

const SCRIPTED_ID = 'ragEvalAgentScript1';
const SUB_ID = 'ragEvalAgentSub001';
const JUDGE_CRED = { id: 'ragEvalJudgeLocal1', name: 'Judge model (local test server)' };
const s = {};

/** The agent judges of the example, by score key. */
const AGENT_JUDGES = [
	'intent_resolution',
	'task_adherence',
	'task_completion',
	'agent_goal_accuracy',
];

const call = (name, args) => `[[call:${name} ${JSON.stringify(args)}]]`;
const kb = (query) => call('Search Knowledge Base', { query });
const lookup = (order_number) => call('Look Up Order', { order_number });
const refund = (order_id, amount) => call('Refund Order', { order_id, amount });

/**
 * The golden set, each question with the script that makes the agent call exactly its expected
 * calls, then five rows that go wrong on purpose. `want`: the hand-worked Tool Calls figures and
 * the cause the router must give (null: none of the agent causes).
 */
function scriptedRows() {
	const golden = fs
		.readFileSync(path.join(EXAMPLES, 'datasets', 'agent-support-golden.jsonl'), 'utf8')
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l));
	const scriptOf = (expected, query) =>
		expected
			.map((c) =>
				c.name === 'Search_Knowledge_Base'
					? kb(query.split(' ').slice(0, 4).join(' '))
					: c.name === 'Look_Up_Order'
						? lookup(c.arguments.order_number)
						: refund(c.arguments.order_id, c.arguments.amount),
			)
			.join(' ');
	const right = (n) => ({ p: 1, r: 1, f1: 1, args: 1, errors: 0, failed: [], cause: null, n });
	const rows = golden.map((g) => ({
		...g,
		query: `${g.query} ${scriptOf(g.expected_tool_calls, g.query)}`,
		want: right(g.expected_tool_calls.length),
	}));
	const order = (n) =>
		`Order ${n}: ${{ 10234: 'shipped, total 25.00 EUR', 10235: 'delivered, total 60.00 EUR', 10236: 'delivered, total 40.00 EUR' }[n]}.`;
	rows.push(
		{
			// Wrong tool: the knowledge base instead of the order lookup. 1 call, 0 matched; no call of
			// an expected tool, so no argument was wrong (arguments 1).
			query: `Where is my order 10236? ${kb('order 10236')}`,
			context: order(10236),
			ground_truth: 'Order 10236 has been delivered.',
			expected_tool_calls: [{ name: 'Look_Up_Order', arguments: { order_number: '10236' } }],
			want: { p: 0, r: 0, f1: 0, args: 1, errors: 0, failed: [], cause: 'tool_calls', n: 1 },
			calls: ['Search_Knowledge_Base'],
		},
		{
			// Right tool, wrong argument (a typo in the order number): the lookup finds nothing but
			// does not fail. 1 call, 0 matched, 1 wrong-argument call -> arguments 0 / 1.
			query: `Where is my order 10235? ${lookup('10253')}`,
			context: order(10235),
			ground_truth: 'Order 10235 has been delivered.',
			expected_tool_calls: [{ name: 'Look_Up_Order', arguments: { order_number: '10235' } }],
			want: { p: 0, r: 0, f1: 0, args: 0, errors: 0, failed: [], cause: 'tool_arguments', n: 1 },
			calls: ['Look_Up_Order'],
		},
		{
			// A tool that fails: the refund stand-in throws for an order not yet delivered. Both calls
			// as expected (F1 1), 1 of 2 failed -> errors 0.5, the refund named at position 1.
			// The refund was not made: Task Completion is scripted to say so.
			query: `Refund my 25 euros for order 10234. ${lookup('10234')} ${refund('ord_7f3a', 25)} [[task_completion=1]]`,
			context: order(10234),
			ground_truth: 'Order 10234 has not been delivered yet, so it cannot be refunded.',
			expected_tool_calls: [
				{ name: 'Look_Up_Order', arguments: { order_number: '10234' } },
				{ name: 'Refund_Order', arguments: { order_id: 'ord_7f3a', amount: 25 } },
			],
			want: {
				p: 1,
				r: 1,
				f1: 1,
				args: 1,
				errors: 0.5,
				failed: [{ position: 1, name: 'Refund_Order', error: /not delivered/ }],
				cause: 'tool_errors',
				n: 2,
			},
			calls: ['Look_Up_Order', 'Refund_Order'],
		},
		{
			// A loop: the same lookup three times. 3 calls, 1 matched: precision 1/3, recall 1,
			// F1 2 * (1/3) / (4/3) = 0.5, two repeats (Fail on Repeated Calls is on).
			// Looping breaks the procedure: Task Adherence is scripted to fail it.
			query: `Where is my order 10235? ${lookup('10235')} ${lookup('10235')} ${lookup('10235')} [[task_adherence=1]]`,
			context: order(10235),
			ground_truth: 'Order 10235 has been delivered.',
			expected_tool_calls: [{ name: 'Look_Up_Order', arguments: { order_number: '10235' } }],
			want: { p: 1 / 3, r: 1, f1: 0.5, args: 1, errors: 0, failed: [], cause: 'tool_calls', n: 3 },
			repeated: 2,
			calls: ['Look_Up_Order', 'Look_Up_Order', 'Look_Up_Order'],
		},
		{
			// Wrong arguments that also make the tool fail (an order number where the order id
			// belongs): blamed on the arguments, the first broken step. 2 calls, 1 matched,
			// 1 wrong-argument call: precision 1/2, recall 1/2, F1 0.5, arguments 1 / 2, errors 1 / 2.
			query: `Please refund order 10236. ${lookup('10236')} ${refund('10236', 40)}`,
			context: order(10236),
			ground_truth: 'Order 10236 has been refunded 40.00 EUR.',
			expected_tool_calls: [
				{ name: 'Look_Up_Order', arguments: { order_number: '10236' } },
				{ name: 'Refund_Order', arguments: { order_id: 'ord_4d8e', amount: 40 } },
			],
			want: {
				p: 0.5,
				r: 0.5,
				f1: 0.5,
				args: 0.5,
				errors: 0.5,
				failed: [{ position: 1, name: 'Refund_Order', error: /no order has the id 10236/ }],
				cause: 'tool_arguments',
				n: 2,
			},
			calls: ['Look_Up_Order', 'Refund_Order'],
		},
	);
	for (const r of rows) {
		r.calls ??= r.expected_tool_calls.map((c) => c.name);
		// The judges rate every answer 5, so only the scripted tool calls make a row fail.
		r.query = `${r.query} [[score=5]]`;
	}
	return rows;
}

const near = (a, b, what) =>
	assert.ok(
		a !== null && b !== null ? Math.abs(a - b) < 1e-12 : a === b,
		`${what}: ${a}, expected ${b}`,
	);

/** Every item the Root-Cause Router sent out, over all its outputs. */
function routed(run) {
	const runs = run.data.resultData.runData['Root-Cause Router'];
	assert.ok(runs, 'the router ran');
	return (runs[runs.length - 1].data?.main ?? []).flat().map((i) => i.json);
}

/** The saved sub-executions, as n8n's public API returns them (data unflattened), by id. */
async function savedExecutions(ctx, ids) {
	const dir = n8n.n8nDir();
	const sqlite3 = require(path.join(dir, 'node_modules', 'sqlite3'));
	const { parse } = require(path.join(dir, 'node_modules', 'flatted'));
	const file = path.join(path.dirname(ctx.serverLog), 'n8n-user', '.n8n', 'database.sqlite');
	const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
	const rows = await new Promise((resolve, reject) =>
		db.all(
			`SELECT e.id, e.workflowId, e.status, e.mode, e.startedAt, e.stoppedAt, d.data, d.workflowData
			 FROM execution_entity e JOIN execution_data d ON d.executionId = e.id
			 WHERE e.id IN (${ids.map(() => '?').join(',')})`,
			ids,
			(err, r) => (db.close(), err ? reject(err) : resolve(r)),
		),
	);
	return new Map(
		rows.map((r) => [
			String(r.id),
			{
				id: String(r.id),
				workflowId: r.workflowId,
				status: r.status,
				mode: r.mode,
				startedAt: new Date(r.startedAt).toISOString(),
				stoppedAt: new Date(r.stoppedAt).toISOString(),
				data: parse(r.data),
				workflowData: JSON.parse(r.workflowData),
			},
		]),
	);
}

/** What every run of the example must show, scripted or not. */
function checkPipeline(run, { out }, judge) {
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
		assert.ok(Array.isArray(m.tool_calls), 'the tool calls of the run are on the row');
	}
	const paired = out(run, 'Pair Answers With Rows', 0);
	assert.equal(paired.length, rows.length);
	paired.forEach((p, i) => {
		assert.equal(p.request, rows[i].request, 'answers stay with their own row');
		assert.equal(p.output, answers[i].output);
		assert.equal(p.total_token_count, measured[i].total_token_count);
		assert.deepEqual(p.tool_calls, measured[i].tool_calls);
	});
	const scored = out(run, 'Agent Goal Accuracy', 0);
	assert.equal(scored.length, rows.length, 'every row leaves Tool Calls and the agent judges');
	for (const item of scored) {
		assert.equal(item.eval.f1_score.status, 'ok');
		for (const key of ['relevance', 'groundedness', ...AGENT_JUDGES]) {
			const sc = item.eval[key];
			if (judge) assert.equal(sc.status, 'ok', `${key}: ${sc.error || sc.reason}`);
			else assert.equal(sc.status, 'not_applicable', key);
		}
		for (const key of ['tool_call_match', 'tool_call_errors'])
			assert.equal(item.eval[key].status, 'ok', `${key}: ${item.eval[key].error}`);
	}
	assert.equal(routed(run).length, rows.length, 'every row leaves the router');
	const [summary] = out(run, 'Eval Aggregate', 0);
	assert.equal(summary.rows, rows.length);
	assert.equal(summary.metrics['agent/total_token_count/average'].measured, rows.length);
	assert.ok(summary.metrics['agent/latency_seconds/p90'].value > 0);
	assert.equal(summary.metrics['agent/ground_truth/tool_call_f1/average'].measured, rows.length);
	assert.equal(summary.metrics['agent/tool_call_error_rate/average'].measured, rows.length);
	for (const judgeKey of ['task_adherence', 'task_completion', 'agent_goal_accuracy']) {
		const m = summary.metrics[`agent/llm_judged/${judgeKey}/rating/percentage`];
		assert.ok(m, `run metric of ${judgeKey}`);
		assert.equal(m.measured, judge ? rows.length : 0, `${judgeKey} measured`);
	}
	assert.equal(
		summary.metrics['agent/llm_judged/intent_resolution/rating/average'].measured,
		judge ? rows.length : 0,
	);
	const [report] = out(run, 'Eval Report', 0);
	const md = report.markdown.split('\n');
	assert.match(md[0], new RegExp(`^# Support agent evaluation — ${rows.length} rows`));
	assert.ok(md.includes('## Metrics'), 'metrics table');
	assert.ok(report.markdown.includes('Coverage '), 'coverage beside the pass rate');
	return { rows, scored, summary, report };
}

async function checkScripted(run, ctx) {
	const script = scriptedRows();
	const { scored, report } = checkPipeline(run, ctx, true);
	assert.equal(scored.length, script.length);
	const byRequest = new Map(scored.map((r) => [r.request, r]));
	const causes = new Map(routed(run).map((r) => [r.request, r.root_cause]));
	const agentCauses = new Set(['tool_calls', 'tool_arguments', 'tool_errors']);
	for (const want of script) {
		const row = byRequest.get(want.query);
		assert.ok(row, `row ${want.query} scored`);
		const label = want.query.replace(/\s*\[\[.*$/, '');
		// The calls the agent made, by the names the agent used, failed ones with their error.
		assert.deepEqual(
			row.tool_calls.map((c) => c.name),
			want.calls,
			`${label}: calls made`,
		);
		const m = row.eval.tool_call_match;
		const w = want.want;
		near(m.details.precision, w.p, `${label}: precision`);
		near(m.details.recall, w.r, `${label}: recall`);
		near(m.details.f1, w.f1, `${label}: F1`);
		near(m.value, w.f1, `${label}: value`);
		assert.equal(m.details.called, want.calls.length, `${label}: calls counted`);
		assert.equal(m.details.order.ok, w.f1 === 1 || want.repeated > 0, `${label}: order`);
		assert.equal(m.details.repeated.length, want.repeated ? 1 : 0, `${label}: repeats`);
		if (want.repeated) assert.equal(m.details.repeated[0].times - 1, want.repeated);
		near(row.eval.tool_call_arguments.value, w.args, `${label}: argument accuracy`);
		near(row.eval.tool_call_errors.value, w.errors, `${label}: error rate`);
		assert.equal(m.details.failed.length, w.failed.length, `${label}: failed calls`);
		w.failed.forEach((f, i) => {
			const got = m.details.failed[i];
			assert.equal(got.name, f.name);
			assert.equal(got.position, f.position);
			assert.match(got.error, f.error);
		});
		// The agent judges: every row rated 5 and passed, but for the two scripted to fail one.
		assert.equal(row.eval.intent_resolution.value, 5, `${label}: intent resolution`);
		for (const key of ['task_adherence', 'task_completion', 'agent_goal_accuracy']) {
			const failHere = want.query.includes(`[[${key}=1]]`);
			assert.equal(row.eval[key].value, !failHere, `${label}: ${key}`);
			assert.equal(row.eval[key].pass, !failHere, `${label}: ${key} pass`);
		}
		const cause = causes.get(want.query);
		if (w.cause) assert.equal(cause, w.cause, `${label}: routed to ${cause}`);
		else assert.ok(!agentCauses.has(cause), `${label}: no agent cause, got ${cause}`);
	}
	// The wrong-argument row names the key that differs, with both values.
	const typo = byRequest.get(script.find((r) => r.query.includes('10253')).query);
	const wrong = typo.eval.tool_call_match.details.wrongArguments;
	assert.equal(wrong.length, 1);
	assert.match(JSON.stringify(wrong[0]), /order_number/);
	assert.match(JSON.stringify(wrong[0]), /10253/);

	// The report lists the failing calls of each failing row: the five scripted to fail are the
	// five worst rows (most failed metrics; the judges pass every row).
	const failingCalls = [
		'call 0 Search_Knowledge_Base',
		'call 0 Look_Up_Order wrong arguments: order_number expected',
		'call 1 Refund_Order failed: Refund refused: order ord_7f3a is shipped, not delivered',
		'repeated 3 times (calls 0, 1, 2)',
		'call 1 Refund_Order failed: Refund refused: no order has the id 10236',
	];
	assert.equal(report.markdown.split('**Failing tool calls:**').length - 1, 5);
	for (const f of failingCalls) assert.ok(report.markdown.includes(f), `report names ${f}`);

	// One Slack message for the run, valid Block Kit, listing the failing calls.
	assert.equal(s.slack.messages.length, 1, 'one Slack message per run');
	const msg = s.slack.messages[0];
	assert.deepEqual(blockKitProblems(msg), []);
	const text = JSON.stringify(msg.blocks);
	assert.equal(text.split('Failing tool calls').length - 1, 5);
	for (const f of failingCalls) assert.ok(text.includes(f), `Slack names ${f}`);

	// What Eval Executions reads from the saved sub-executions is what the agent did: its reader
	// (the package's convertExecution) over each execution as n8n's public API gives it.
	const { convertExecution } = require(path.join(ctx.dist, 'src', 'executions', 'convert.js'));
	const subRuns = run.data.resultData.runData['Ask the Agent'][0].data.main[0];
	const ids = subRuns.map((i) => String(i.metadata?.subExecution?.executionId));
	assert.ok(
		ids.every((id) => id !== 'undefined'),
		'each answer names its sub-execution',
	);
	const saved = await savedExecutions(ctx, ids);
	assert.equal(saved.size, ids.length, 'every sub-execution is saved with its data');
	ids.forEach((id, i) => {
		const conv = convertExecution(saved.get(id), {
			instance: 'http://127.0.0.1',
			workflowId: SUB_ID,
		});
		assert.ok(conv.ok, `execution ${id}: ${conv.invalid?.error}`);
		const read = conv.row.tool_calls ?? [];
		const made = byRequest.get(script[i].query).tool_calls;
		const slim = (c) => ({ name: c.name, arguments: c.arguments, failed: c.error !== undefined });
		assert.deepEqual(read.map(slim), made.map(slim), `execution ${id}: the same calls`);
		assert.deepEqual(
			read.map((c) => c.name),
			script[i].calls,
		);
		// The workflow's tools, as the agent was given them.
		assert.deepEqual((conv.row.tool_definitions ?? []).map((d) => d.name).sort(), [
			'Look_Up_Order',
			'Refund_Order',
			'Search_Knowledge_Base',
		]);
	});
}

module.exports = [
	{
		name: 'example agent-evaluation: the AI Agent with tools plays scripted trajectories; Tool Calls, the router, the report, Slack and Eval Executions agree with the hand-worked figures',
		workflowId: SCRIPTED_ID,
		covers: ['ragEvalAgent000001', SUB_ID],
		check: checkScripted,
	},
	{
		// The agent lives in the sub-workflow, so the parent also runs as a newcomer's copy without a
		// judge credential: the agent still answers and is measured, its (unscripted, so none) tool
		// calls are still scored, and the judges are not applicable.
		name: 'example agent-evaluation without a judge model: still measured and tool calls scored (none made), judges not applicable',
		workflowId: 'ragEvalAgent000001N',
		check: (run, ctx) => {
			const { scored, summary } = checkPipeline(run, ctx, false);
			for (const item of scored) {
				// The local model calls no tool unless scripted: every expected call is missing.
				assert.deepEqual(item.tool_calls, []);
				assert.equal(item.eval.tool_call_match.value, 0);
				assert.equal(item.eval.tool_call_match.pass, false);
			}
			// A failed Tool Calls verdict decides a row even with its judges not applicable: every
			// row fails, the run is complete, and with no baseline yet the gate lets it through.
			assert.equal(summary.overall.fail, summary.rows);
			const [gate] = ctx.out(run, 'Regression Gate', 0);
			assert.equal(gate.baselineFound, false);
		},
	},
];

module.exports.setup = async () => {
	s.slack = await startSlackReceiver();
};

module.exports.teardown = () => closeAll(s, ['slack']);

/** The example as a team switches it on (Slack enabled), its questions scripted for the local model. */
module.exports.workflows = () => {
	const { wf, node } = exampleWorkflow('agent-evaluation.workflow.json', SCRIPTED_ID);
	node('Eval Dataset').parameters.text = scriptedRows()
		.map(({ want, calls, repeated, ...row }) => JSON.stringify(row))
		.join('\n');
	delete node('Post to Slack').disabled;
	node('Post to Slack').parameters.url = s.slack.webhookUrl;
	for (const n of wf.nodes.filter((x) => x.type.startsWith('n8n-nodes-rag-eval.judge')))
		n.credentials = { ragEvalLlmApi: JUDGE_CRED };
	return [wf];
};
