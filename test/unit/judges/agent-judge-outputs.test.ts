/**
 * The agent judges' own parsing: the verdict schemas with their rubric rules (Tool Call Accuracy's
 * levels against missing and excess calls, Task Adherence's verdict against its dimensions), the
 * details and reasons built from a verdict, and the tool-call and tool-definition input kinds of
 * the row reader with their rendering for the judge.
 */
import { readRow } from '../../../src/core/inputs';
import { parseReply } from '../../../src/judges/parse';
import { renderValue, TOOL_TEXT_SHOWN } from '../../../src/judges/prompt';
import {
	failedDimensions,
	taskAdherence,
	toolCallAccuracy,
	toolCallAccuracyDetails,
	toolCallAccuracyOutput,
	toolCallAccuracyReason,
	type TaskAdherenceVerdict,
	type ToolCallAccuracyVerdict,
} from '../../../src/judges/specs/azureAgent';
import { agentGoalAccuracy } from '../../../src/judges/specs/goalAccuracy';
import { readToolDefinitions } from '../../../src/record/toolcalls';

const tca = (over: Partial<ToolCallAccuracyVerdict>) =>
	JSON.stringify({
		reason: 'Let us think step by step.',
		calls_made: 2,
		correct_calls: 2,
		per_tool: [{ tool_name: 'a', calls_required: 1, correct_calls: 1, errors: 0, result: 'pass' }],
		excess_calls: [],
		missing_calls: [],
		score: 5,
		...over,
	});

const keys = (d: { output: { jsonSchema: Record<string, unknown> } }) =>
	Object.keys(d.output.jsonSchema.properties as object);

describe('Tool Call Accuracy verdicts', () => {
	const parse = (text: string) =>
		parseReply(text, toolCallAccuracyOutput.schema, keys(toolCallAccuracy));

	it('accepts a consistent verdict and names excess, missing and failed tools', () => {
		const p = parse(
			tca({
				score: 2,
				correct_calls: 1,
				per_tool: [
					{ tool_name: 'a', calls_required: 1, correct_calls: 1, errors: 0, result: 'pass' },
					{ tool_name: 'b', calls_required: 2, correct_calls: 0, errors: 1, result: 'fail' },
				],
				excess_calls: [{ tool_name: 'a', count: 2 }],
				missing_calls: [{ tool_name: 'b', count: 2 }],
			}),
		);
		if (!p.ok) throw new Error(p.error);
		expect(toolCallAccuracyReason(p.value)).toBe(
			'Let us think step by step. Missing calls: b (2). Excess calls: a (2). Failed tools: b.',
		);
		expect(toolCallAccuracyDetails(p.value)).toEqual({
			callsMade: 2,
			correctCalls: 1,
			perTool: [
				{ tool: 'a', callsRequired: 1, correctCalls: 1, errors: 0, result: 'pass' },
				{ tool: 'b', callsRequired: 2, correctCalls: 0, errors: 1, result: 'fail' },
			],
			excess: { total: 2, calls: [{ tool: 'a', count: 2 }] },
			missing: { total: 2, calls: [{ tool: 'b', count: 2 }] },
		});
	});

	it('keeps a clean verdict reason as the model wrote it', () => {
		const p = parse(tca({}));
		if (!p.ok) throw new Error(p.error);
		expect(toolCallAccuracyReason(p.value)).toBe('Let us think step by step.');
		expect(toolCallAccuracy.toValue(p.value)).toBe(5);
	});

	it.each([
		[
			'missing calls at level 3',
			{ score: 3, missing_calls: [{ tool_name: 'b', count: 1 }] },
			/missing tool calls make the level 2 at most/,
		],
		[
			'excess calls at level 4',
			{ score: 4, excess_calls: [{ tool_name: 'a', count: 1 }] },
			/excess tool calls make the level 3 at most/,
		],
		['a level of 0', { score: 0 }, /score/],
		['a negative count', { calls_made: -1 }, /calls_made/],
		['an excess count of 0', { excess_calls: [{ tool_name: 'a', count: 0 }] }, /excess_calls/],
	])('refuses %s', (_name, over, message) => {
		const p = parse(tca(over as Partial<ToolCallAccuracyVerdict>));
		expect(p.ok).toBe(false);
		if (!p.ok) expect(p.error).toMatch(message);
	});

	it('is not applicable when a call names a tool the definitions lack, by n8n tool names', () => {
		const na = toolCallAccuracy.notApplicable!;
		const defs = [{ name: 'Order Lookup' }];
		expect(na({ toolCalls: [{ name: 'Order_Lookup' }], toolDefinitions: defs })).toBeNull();
		expect(
			na({ toolCalls: [{ name: 'Order_Lookup' }, { name: 'x' }], toolDefinitions: defs }),
		).toBe(
			'tool_calls[1] calls "x", which tool_definitions does not define (defined: Order Lookup): give the definitions of every tool the agent called',
		);
	});
});

describe('Task Adherence verdicts', () => {
	const parse = (v: Partial<TaskAdherenceVerdict>) =>
		parseReply(
			JSON.stringify({
				reason: 'r',
				goal: 'pass',
				rules: 'pass',
				procedure: 'pass',
				verdict: 'yes',
				...v,
			}),
			taskAdherence.output.schema,
			keys(taskAdherence),
		);

	it('names the failed dimensions in details and reason', () => {
		const p = parse({ goal: 'fail', procedure: 'fail', verdict: 'no' });
		if (!p.ok) throw new Error(p.error);
		expect(failedDimensions(p.value)).toEqual(['goal', 'procedure']);
		expect(taskAdherence.toValue(p.value)).toBe(false);
		expect(taskAdherence.toReason(p.value)).toBe('r Failed: goal adherence, procedural adherence.');
		expect(taskAdherence.toDetails!(p.value)).toEqual({
			failedDimensions: ['goal', 'procedure'],
			dimensions: { goal: 'fail', rules: 'pass', procedure: 'fail' },
		});
	});

	it('refuses a verdict that contradicts its dimensions', () => {
		for (const bad of [{ rules: 'fail' as const }, { verdict: 'no' as const }]) {
			const p = parse(bad);
			expect(p.ok).toBe(false);
			if (!p.ok) expect(p.error).toMatch(/"yes" exactly when goal, rules and procedure all pass/);
		}
	});
});

describe('agent inputs of the row reader', () => {
	it('reads tool calls from any source shape and definitions from OpenAI, MCP and canonical shapes', () => {
		const r = readRow(toolCallAccuracy.inputs, {
			request: 'q',
			tool_calls: JSON.stringify([
				{ type: 'function', function: { name: 'a', arguments: '{"x":1}' }, id: 'c1' },
			]),
			tool_definitions: {
				tools: [
					{ type: 'function', function: { name: 'a', description: 'A', parameters: {} } },
					{ name: 'b', inputSchema: { type: 'object' } },
				],
			},
		});
		if (!r.ok) throw new Error(JSON.stringify(r));
		expect(r.values.toolCalls).toMatchObject([{ name: 'a', arguments: { x: 1 }, position: 0 }]);
		expect(r.values.toolDefinitions).toEqual([
			{ type: 'function', name: 'a', description: 'A', parameters: {} },
			{ name: 'b', inputSchema: { type: 'object' }, parameters: { type: 'object' } },
		]);
	});

	it('makes an unreadable call the row error naming the call', () => {
		const r = readRow(toolCallAccuracy.inputs, {
			request: 'q',
			tool_calls: [{ name: 'a' }, { arguments: {} }],
			tool_definitions: [{ name: 'a' }],
		});
		expect(r.ok).toBe(false);
		if (!r.ok && 'error' in r) expect(r.error.field).toMatch(/^tool_calls\[1\]/);
		const d = readRow(toolCallAccuracy.inputs, {
			request: 'q',
			tool_calls: [{ name: 'a' }],
			tool_definitions: 'not json',
		});
		expect(!d.ok && 'error' in d && d.error.message).toBe(
			'tool_definitions: expected a list of tool definitions, got text that is not JSON',
		);
		expect(() => readToolDefinitions(42, 'tool_definitions')).toThrow(/got number/);
	});

	it('counts an agent output without steps as no calls', () => {
		const r = readRow(toolCallAccuracy.inputs, {
			request: 'q',
			tool_calls: { output: 'done', intermediateSteps: [] },
			tool_definitions: [{ name: 'a' }],
		});
		expect(r).toMatchObject({ ok: false, missing: ['tool_calls'] });
	});

	it('renders calls with their step, arguments and result or error, cutting long texts', () => {
		const long = 'x'.repeat(TOOL_TEXT_SHOWN + 10);
		const text = renderValue('toolCalls', [
			{ name: 'a', arguments: { q: 1 }, result: long, turn: 0 },
			{ name: 'b', arguments_raw: 'q=1', error: 'timeout' },
			{ name: 'c' },
		]);
		expect(text).toBe(
			[
				`[call 1] (agent step 1) a\narguments: {"q":1}\nresult: ${'x'.repeat(TOOL_TEXT_SHOWN)}... (cut: ${TOOL_TEXT_SHOWN + 10} characters in all)`,
				'[call 2] b\narguments: q=1 (not JSON)\nerror: timeout',
				'[call 3] c\narguments: (none)\nresult: (not recorded)',
			].join('\n\n'),
		);
		expect(renderValue('toolDefinitions', [{ name: 'a', parameters: { type: 'object' } }])).toBe(
			'[tool 1] a: (no description)\nparameters: {"type":"object"}',
		);
	});
});

describe('Agent Goal Accuracy with reference', () => {
	it('takes the expected outcome, else the expected response, else is not applicable', () => {
		const na = agentGoalAccuracy.notApplicable!;
		expect(na({ expectedOutcome: 'booked' })).toBeNull();
		expect(na({ expectedResponse: 'booked' })).toBeNull();
		expect(na({})).toMatch(/^missing expected_outcome and expected_response/);
	});
});
