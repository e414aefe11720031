/**
 * Tool Calls on the real engine: rows built to go wrong one way each (right calls, wrong
 * arguments, a failed call, a missing tool, a loop, no expected calls, an AI Agent's inline output
 * with intermediate steps, and an n8n execution read by Eval Executions' converter) -> Tool Calls
 * -> Root-Cause Router and Eval Aggregate. Every row leaves, the router names the agent cause at
 * the slots the declarations give, and the run metrics carry their Databricks-style names.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { convertExecution } from '../../src/executions/convert';
import { routerOutputNames } from '../../src/rootcause';
import { runWorkflow, type WorkflowJson } from '../support/engine';

const lookup = (id = 'A1') => ({ name: 'lookup_order', arguments: { order_id: id } });
const refund = { name: 'refund_order', arguments: { order_id: 'A1', amount: 20 } };
const expected = [lookup(), refund];

const agentExecution = JSON.parse(
	readFileSync(path.join(__dirname, '../fixtures/n8n-executions/agent-tools.json'), 'utf8'),
);
const converted = convertExecution(agentExecution, {
	instance: 'http://localhost:5678',
	workflowId: 'wf',
});
if (!converted.ok) throw new Error('fixture execution did not convert');

const rows: IDataObject[] = [
	{ request_id: 'right', tool_calls: [lookup(), refund], expected_tool_calls: expected },
	{ request_id: 'wrong_args', tool_calls: [lookup('A2'), refund], expected_tool_calls: expected },
	{
		request_id: 'failed',
		tool_calls: [{ ...lookup(), error: 'order service: 503' }, refund],
		expected_tool_calls: expected,
	},
	{ request_id: 'missing', tool_calls: [lookup()], expected_tool_calls: expected },
	{
		request_id: 'loop',
		tool_calls: [lookup(), lookup(), lookup(), lookup()],
		expected_tool_calls: [lookup()],
	},
	{ request_id: 'no_expected', tool_calls: [lookup()] },
	// An AI Agent's own output (Return Intermediate Steps on), kept beside the golden row.
	{
		request_id: 'inline_agent',
		output: 'Refunded.',
		intermediateSteps: [
			{ action: { tool: 'lookup_order', toolInput: { order_id: 'A1' } }, observation: '{}' },
			{
				action: { tool: 'refund_order', toolInput: { order_id: 'A1', amount: 20 } },
				observation: 'ok',
			},
		],
		expected_tool_calls: expected,
	},
	// An execution of an n8n AI Agent with an HTTP tool and a vector-store tool, as Eval
	// Executions reads it, against a golden set that names the nodes as the user sees them.
	{
		...(converted.row as IDataObject),
		request_id: 'n8n_execution',
		expected_tool_calls: [
			{ name: 'Get Order', arguments: { order_id: '4204' } },
			{ name: 'product_docs' },
		],
	},
];

function node(name: string, type: string, parameters: INodeParameters = {}) {
	return {
		id: name,
		name,
		type: `n8n-nodes-rag-eval.${type}`,
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters,
	};
}

function workflow(): WorkflowJson {
	return {
		nodes: [
			{
				id: 'Start',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			node('Tool Calls', 'evalToolCallMatch', {
				// The inline agent row gives its calls as intermediate steps.
				toolCalls: '={{ $json.tool_calls ?? $json.intermediateSteps }}',
			}),
			node('Root-Cause Router', 'rootCauseRouter'),
			node('Eval Aggregate', 'evalAggregate', { output: 'summary' }),
		],
		connections: {
			Start: { main: [[{ node: 'Tool Calls', type: 'main', index: 0 }]] },
			'Tool Calls': {
				main: [
					[
						{ node: 'Root-Cause Router', type: 'main', index: 0 },
						{ node: 'Eval Aggregate', type: 'main', index: 0 },
					],
				],
			},
		},
	};
}

describe('Tool Calls -> Root-Cause Router and Eval Aggregate on the real engine', () => {
	it('scores every row, names the agent cause and the run metrics', async () => {
		const r = await runWorkflow(workflow(), { startItems: rows.map((json) => ({ json })) });
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();

		const scored = r.output('Tool Calls');
		expect(scored.map((x) => x.request_id)).toEqual(rows.map((x) => x.request_id));
		const value = (id: string, key = 'tool_call_match') =>
			(scored.find((x) => x.request_id === id)!.eval as Record<string, { value: number | null }>)[
				key
			].value;
		expect(value('right')).toBe(1);
		expect(value('wrong_args')).toBe(0.5);
		expect(value('wrong_args', 'tool_call_arguments')).toBe(0.5);
		expect(value('failed')).toBe(1);
		expect(value('failed', 'tool_call_errors')).toBe(0.5);
		// 1 of 1 expected, 1 of 2 made: P 1/2, R 1, F1 2/3.
		expect(value('missing')).toBeCloseTo(2 / 3, 12);
		// 1 of 4 calls expected: P 1/4, R 1, F1 0.4.
		expect(value('loop')).toBeCloseTo(0.4, 12);
		expect(value('no_expected')).toBeNull();
		expect(value('inline_agent')).toBe(1);
		// The converted execution: Get_Order with {order_id: 4204} and product_docs, both expected.
		expect(value('n8n_execution')).toBe(1);
		const exec = scored.find((x) => x.request_id === 'n8n_execution')!;
		expect((exec.tool_definitions as { name: string }[]).map((d) => d.name)).toEqual([
			'Get_Order',
			'product_docs',
		]);
		// Score Up Front columns for all three Scores.
		expect(scored[0]).toMatchObject({
			tool_call_match: 1,
			tool_call_arguments: 1,
			tool_call_errors: 0,
		});

		const names = routerOutputNames();
		const reached: Record<string, string[]> = {};
		names.forEach((n, k) => {
			const ids = r.output('Root-Cause Router', k).map((x) => String(x.request_id));
			if (ids.length > 0) reached[n] = ids;
		});
		// The row without expected calls passes on its one applicable Score (no call failed).
		expect(reached).toEqual({
			Pass: ['right', 'no_expected', 'inline_agent', 'n8n_execution'],
			tool_arguments: ['wrong_args'],
			tool_errors: ['failed'],
			tool_calls: ['missing', 'loop'],
		});
		// The Tool Calls slots keep their fixed outputs, side by side; later slots come after them.
		const at = names.indexOf('tool_calls');
		expect(names.slice(at, at + 3)).toEqual(['tool_calls', 'tool_arguments', 'tool_errors']);
		expect(names.slice(at + 3, at + 4)).toEqual(['tool_call_accuracy']);
		const [wrong] = r.output('Root-Cause Router', names.indexOf('tool_arguments'));
		expect(wrong.root_cause).toBe('tool_arguments');
		expect(wrong.suggested_fix).toMatch(/right tool with wrong arguments/);

		const [summary] = r.output('Eval Aggregate');
		const per = summary.perMetric as Record<string, { runMetric?: string; direction?: string }>;
		expect(per.tool_call_match.runMetric).toBe('agent/ground_truth/tool_call_f1/average');
		expect(per.tool_call_arguments.runMetric).toBe(
			'agent/ground_truth/tool_call_arguments/average',
		);
		expect(per.tool_call_errors.runMetric).toBe('agent/tool_call_error_rate/average');
		expect(JSON.stringify(summary)).not.toMatch(/NaN/);
	});
});
