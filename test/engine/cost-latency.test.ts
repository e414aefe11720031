/**
 * Traces on the real engine: Eval Dataset (rows with MLflow 2/3, OTLP GenAI, OpenInference and n8n
 * execution traces) -> Cost & Latency (budgets, Pass / Fail / Not Scored) -> Merge -> Eval
 * Aggregate. Asserts the per-row counts, latency and cost, the split, and the agent run metrics.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject, IRunExecutionData } from 'n8n-workflow';
import { runWorkflow, workflowNode, type WorkflowJson } from '../support/engine';

const trace = (name: string): IDataObject =>
	JSON.parse(readFileSync(join(__dirname, '../fixtures/traces', name), 'utf8')) as IDataObject;

// Expected figures, worked out by hand from the fixtures (see test/unit/record/trace.test.ts).
const ROWS: { id: string; row: IDataObject; tokens: number; latency: number; usd?: number }[] = [
	// MLflow 2: spans name no model, priced with the node's Model (gpt-4o-mini: 0.15 / 0.6).
	{
		id: 'mlflow2',
		row: { request: 'How do I enable CDF?', trace: trace('mlflow2-rag.json') },
		tokens: 830,
		latency: 2.14,
		usd: (760 * 0.15 + 70 * 0.6) / 1e6,
	},
	// MLflow 3: gpt-4o-mini-2024-07-18 priced as gpt-4o-mini; 3.25 s is over the 3 s budget.
	{
		id: 'mlflow3',
		row: { trace: trace('mlflow3-agent.json') },
		tokens: 1333,
		latency: 3.25,
		usd: (1215 * 0.15 + 118 * 0.6) / 1e6,
	},
	// OTLP GenAI: gpt-4.1-mini-2025-04-14 priced as gpt-4.1-mini (0.4 / 1.6).
	{
		id: 'otlp',
		row: { request: 'Weather in Paris?', trace: trace('otlp-genai.json') },
		tokens: 1105,
		latency: 2.6,
		usd: (1046 * 0.4 + 59 * 1.6) / 1e6,
	},
	// OpenInference: gpt-4o (2.5 / 10) costs 0.00103 USD, over the 0.001 budget.
	{
		id: 'openinference',
		row: { trace: trace('openinference.json') },
		tokens: 370,
		latency: 1.8,
		usd: (356 * 2.5 + 14 * 10) / 1e6,
	},
	// n8n AI Agent execution: over the latency budget.
	{
		id: 'n8n-agent',
		row: { trace: trace('n8n-agent-execution.json') },
		tokens: 1068,
		latency: 3.412,
		usd: (1027 * 0.15 + 41 * 0.6) / 1e6,
	},
	// n8n Q&A chain on a local model the price table does not know: cost unknown -> Not Scored.
	{ id: 'n8n-chain', row: { trace: trace('n8n-qa-chain.json') }, tokens: 110, latency: 2.405 },
	// No trace: the row's own figures (old token spelling), over the token and cost budgets.
	{
		id: 'given',
		row: {
			request: 'q',
			response: 'a',
			latency_seconds: 0.5,
			input_token_count: 3000,
			output_token_count: 1000,
		},
		tokens: 4000,
		latency: 0.5,
		usd: (3000 * 0.15 + 1000 * 0.6) / 1e6,
	},
];

const node = workflowNode;

const workflow: WorkflowJson = {
	nodes: [
		node('Start', 'n8n-nodes-base.manualTrigger'),
		node('Eval Dataset', 'n8n-nodes-rag-eval.evalDataset', { source: 'items' }),
		node('Cost & Latency', 'n8n-nodes-rag-eval.evalCostLatency', {
			model: 'gpt-4o-mini',
			maxTokens: 1500,
			maxLatencySeconds: 3,
			maxCostUsd: 0.001,
			splitOutputs: true,
		}),
		node('All Rows', 'n8n-nodes-base.merge', { mode: 'append', numberInputs: 3 }, 3),
		node('Eval Aggregate', 'n8n-nodes-rag-eval.evalAggregate', {
			output: 'summary',
			options: { bootstrapResamples: 0 },
		}),
	],
	connections: {
		Start: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
		'Eval Dataset': { main: [[{ node: 'Cost & Latency', type: 'main', index: 0 }]] },
		'Cost & Latency': {
			main: [0, 1, 2].map((index) => [{ node: 'All Rows', type: 'main' as const, index }]),
		},
		'All Rows': { main: [[{ node: 'Eval Aggregate', type: 'main', index: 0 }]] },
	},
};

/** numpy's default (linear) percentile. */
function percentile(values: number[], q: number): number {
	const s = [...values].sort((a, b) => a - b);
	const pos = q * (s.length - 1);
	const lo = Math.floor(pos);
	return s[lo] + (pos - lo) * ((s[Math.min(lo + 1, s.length - 1)] ?? s[lo]) - s[lo]);
}

describe('Cost & Latency on the real engine', () => {
	let run: Awaited<ReturnType<typeof runWorkflow>>;
	beforeAll(async () => {
		run = await runWorkflow(workflow, {
			startItems: ROWS.map((r) => ({ json: { request_id: r.id, ...r.row } })),
		});
	});

	it('splits rows into Pass, Fail and Not Scored by the budgets', () => {
		for (const n of ['Eval Dataset', 'Cost & Latency', 'All Rows', 'Eval Aggregate'])
			expect(run.nodeError(n)).toBeUndefined();
		const ids = (i: number) => run.output('Cost & Latency', i).map((j) => j.request_id);
		expect(ids(0)).toEqual(['mlflow2', 'otlp']);
		expect(ids(1)).toEqual(['mlflow3', 'openinference', 'n8n-agent', 'given']);
		expect(ids(2)).toEqual(['n8n-chain']);
		const unknown = run.output('Cost & Latency', 2)[0].eval as Record<string, IDataObject>;
		expect(unknown.cost_latency.status).toBe('error');
		expect(unknown.cost_latency.error).toBe(
			'row 6 (request_id "n8n-chain"): max cost is set but the cost is unknown (no price for model "llama3.2:3b" (add it to the price table))',
		);
		const reasons = run
			.output('Cost & Latency', 1)
			.map((j) => (j.eval as Record<string, IDataObject>).cost_latency.reason);
		expect(reasons).toEqual([
			'over budget: latency 3.25 > 3',
			'over budget: cost 0.00103 > 0.001',
			'over budget: latency 3.412 > 3',
			'over budget: tokens 4000 > 1500, cost 0.00105 > 0.001',
		]);
	});

	it('writes token counts, latency and cost on every row under the seed names', () => {
		const all = run.output('All Rows');
		expect(all).toHaveLength(ROWS.length);
		for (const r of ROWS) {
			const j = all.find((x) => x.request_id === r.id)!;
			expect(j.total_token_count).toBe(r.tokens);
			expect(j.latency_seconds).toBeCloseTo(r.latency, 9);
			if (r.usd === undefined) expect(j.cost_usd).toBeUndefined();
			else expect(j.cost_usd).toBeCloseTo(r.usd, 15);
		}
		const given = all.find((x) => x.request_id === 'given')!;
		expect([given.total_input_token_count, given.total_output_token_count]).toEqual([3000, 1000]);
		// The dataset filled the response from the n8n agent's own output.
		const agent = all.find((x) => x.request_id === 'n8n-agent')!;
		expect(agent.response).toBe('Order 4417 shipped on 28 November via DHL, tracking JD0146.');
		expect(agent.request).toBe('Is order 4417 shipped yet?');
	});

	it('Eval Aggregate reports the agent run metrics and keeps app cost apart from judge cost', () => {
		const [s] = run.output('Eval Aggregate') as [
			{
				rows: number;
				metrics: Record<string, { value?: number; measured: number; notApplicable: number }>;
				appCost: { usd: number; rowsPriced: number; rowsUnpriced: number; totalTokens: number };
				cost: { calls: number; totalTokens: number };
				perMetric: Record<string, { passRate: { count: number; of: number } }>;
			},
		];
		expect(s.rows).toBe(ROWS.length);
		const tokens = ROWS.map((r) => r.tokens);
		const latency = ROWS.map((r) => r.latency);
		expect(s.metrics['agent/total_token_count/average'].value).toBeCloseTo(
			tokens.reduce((a, b) => a + b, 0) / ROWS.length,
			9,
		);
		expect(s.metrics['agent/total_token_count/average'].measured).toBe(ROWS.length);
		expect(s.metrics['agent/latency_seconds/p90'].value).toBeCloseTo(percentile(latency, 0.9), 9);
		expect(s.metrics['agent/latency_seconds/average'].value).toBeCloseTo(
			latency.reduce((a, b) => a + b, 0) / ROWS.length,
			9,
		);
		expect(s.metrics['agent/input_token_count/average'].measured).toBe(ROWS.length);
		const priced = ROWS.filter((r) => r.usd !== undefined);
		expect(s.appCost.rowsPriced).toBe(priced.length);
		expect(s.appCost.rowsUnpriced).toBe(1);
		expect(s.appCost.usd).toBeCloseTo(
			priced.reduce((a, r) => a + (r.usd ?? 0), 0),
			15,
		);
		expect(s.appCost.totalTokens).toBe(tokens.reduce((a, b) => a + b, 0));
		expect(s.metrics['agent/cost_usd/average'].measured).toBe(priced.length);
		// No judge ran: the evaluation cost nothing, whatever the app cost.
		expect(s.cost.calls).toBe(0);
		expect(s.cost.totalTokens).toBe(0);
		// The budget score aggregates like any metric: 2 of 6 scored rows within budget.
		expect(s.perMetric.cost_latency.passRate).toMatchObject({ count: 2, of: 6 });
	});
});

describe('Cost & Latency reads a sub-workflow run as the trace', () => {
	it('rows from Execute Workflow (each item) are measured from their sub-execution', async () => {
		const exec = trace('n8n-agent-execution.json') as { data: IRunExecutionData };
		const wf: WorkflowJson = {
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger'),
				node('Cost & Latency', 'n8n-nodes-rag-eval.evalCostLatency', { maxTokens: 2000 }),
			],
			connections: { Start: { main: [[{ node: 'Cost & Latency', type: 'main', index: 0 }]] } },
		};
		const sub = (executionId: string) => ({ subExecution: { executionId, workflowId: 'agent' } });
		const r = await runWorkflow(wf, {
			startItems: [
				{ json: { output: 'Order 4417 shipped.' }, metadata: sub('1842') },
				{ json: { output: 'lost' }, metadata: sub('404') },
			],
			executions: { '1842': exec.data },
		});
		const [ok, gone] = r.output('Cost & Latency');
		expect(ok.total_token_count).toBe(1068);
		expect(ok.total_input_token_count).toBe(1027);
		expect(ok.cost_usd).toBeCloseTo((1027 * 0.15 + 41 * 0.6) / 1e6, 15);
		// No startedAt/stoppedAt in the stored run data: first node start to last node end.
		expect(ok.latency_seconds).toBeCloseTo(3.397, 9);
		expect((ok.eval as Record<string, IDataObject>).cost_latency).toMatchObject({
			status: 'ok',
			pass: true,
		});
		expect((gone.eval as Record<string, IDataObject>).cost_latency.error).toBe(
			'row 2: execution 404 of the sub-workflow has no stored data (let n8n save its successful executions)',
		);
	});

	it("writes the sub-execution's tool runs as the row's tool_calls, a failed run with its error", async () => {
		const tool = (
			start: number,
			query: Record<string, unknown>,
			out: { response: string } | { error: string },
		) => ({
			startTime: start,
			executionTime: 5,
			executionStatus: 'error' in out ? 'error' : 'success',
			source: [],
			inputOverride: { ai_tool: [[{ json: { query } }]] },
			...('error' in out
				? { error: { message: out.error, name: 'NodeOperationError' } }
				: { data: { ai_tool: [[{ json: { response: out.response } }]] } }),
		});
		const runData = {
			'Look Up Order': [
				tool(1000, { order_number: '10234' }, { response: '{"order_id":"ord_7f3a"}' }),
			],
			'Refund Order': [
				tool(1100, { order_id: 'ord_7f3a', amount: 25 }, { error: 'Refund refused: shipped' }),
			],
		};
		const wf: WorkflowJson = {
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger'),
				node('Cost & Latency', 'n8n-nodes-rag-eval.evalCostLatency', {}),
			],
			connections: { Start: { main: [[{ node: 'Cost & Latency', type: 'main', index: 0 }]] } },
		};
		const sub = (executionId: string) => ({ subExecution: { executionId, workflowId: 'agent' } });
		const given = [{ name: 'Given', arguments: {} }];
		const r = await runWorkflow(wf, {
			startItems: [
				{ json: { output: 'Refused.' }, metadata: sub('7') },
				// A row that brings its own calls keeps them.
				{ json: { output: 'x', tool_calls: given }, metadata: sub('7') },
			],
			executions: { '7': { resultData: { runData } } as unknown as IRunExecutionData },
		});
		const [row, own] = r.output('Cost & Latency');
		expect(row.tool_calls).toEqual([
			{
				name: 'Look_Up_Order',
				arguments: { order_number: '10234' },
				result: { order_id: 'ord_7f3a' },
				position: 0,
			},
			{
				name: 'Refund_Order',
				arguments: { order_id: 'ord_7f3a', amount: 25 },
				error: 'Refund refused: shipped',
				position: 1,
			},
		]);
		expect(own.tool_calls).toEqual(given);
	});
});
