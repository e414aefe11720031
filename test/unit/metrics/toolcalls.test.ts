/**
 * Tool Calls per mode, with figures worked out by hand in the comments; bad input gives a row
 * error or a note, never a throw out of the evaluator.
 */
import { evaluateMetricScores, withDefaults } from '../../../src/core/evaluate';
import { compareToolCalls, toolCallsMetric } from '../../../src/metrics/toolcalls';
import type { ToolCall } from '../../../src/record/schema';
import { readToolCalls } from '../../../src/record/toolcalls';

const P = (over: Record<string, unknown> = {}) => withDefaults(toolCallsMetric, over);
const lookup = (id = 'A1', extra: Record<string, unknown> = {}): ToolCall => ({
	name: 'lookup_order',
	arguments: { order_id: id, ...extra },
});
const refund = (amount = 20): ToolCall => ({
	name: 'refund_order',
	arguments: { order_id: 'A1', amount },
});
const search: ToolCall = { name: 'search_kb', arguments: { q: 'refund policy' } };
const EXPECTED = [lookup(), refund()];

function run(actual: ToolCall[], params: Record<string, unknown> = {}, expected = EXPECTED) {
	const r = compareToolCalls(actual, expected, P(params));
	const d = r.details as Record<string, any>;
	return { r, d };
}

describe('Tool Calls: precision, recall, F1 and the order modes', () => {
	it('the expected calls exactly: every figure 1 and every order mode met', () => {
		for (const order of ['in_order', 'exact', 'any_order', 'subset', 'superset']) {
			const { r, d } = run([lookup(), refund()], { order });
			expect([d.precision, d.recall, d.f1, r.value]).toEqual([1, 1, 1, 1]);
			expect(d.order).toEqual({ mode: order, ok: true });
			expect(r.failedChecks).toEqual([]);
		}
	});

	it('an extra call first: P = 2/3, R = 1, F1 = 2(2/3)/(5/3) = 0.8; in order and superset hold', () => {
		const actual = [search, lookup(), refund()];
		const { r, d } = run(actual);
		expect(d.precision).toBeCloseTo(2 / 3, 12);
		expect(d.recall).toBe(1);
		expect(r.value).toBeCloseTo(0.8, 12);
		expect(d.extra).toEqual([
			{ position: 0, name: 'search_kb', arguments: { q: 'refund policy' } },
		]);
		expect(d.missing).toEqual([]);
		const ok = (order: string) => run(actual, { order }).d.order.ok;
		expect([ok('in_order'), ok('superset'), ok('ignore')]).toEqual([true, true, true]);
		expect([ok('exact'), ok('any_order'), ok('subset')]).toEqual([false, false, false]);
		expect(toolCallsMetric.passes!(r, P(), 0.8)).toBe(true);
		expect(toolCallsMetric.passes!(r, P(), 1)).toBe(false);
	});

	it('the right calls swapped: F1 1, but only any order, subset and superset hold', () => {
		const actual = [refund(), lookup()];
		const ok = (order: string) => run(actual, { order }).d.order.ok;
		expect(run(actual).r.value).toBe(1);
		expect([ok('in_order'), ok('exact')]).toEqual([false, false]);
		expect([ok('any_order'), ok('subset'), ok('superset')]).toEqual([true, true, true]);
		const { r } = run(actual);
		expect(r.failedChecks).toEqual(['order']);
		expect(toolCallsMetric.passes!(r, P(), 1)).toBe(false);
		expect(r.reason).toMatch(/Order \(in_order\) not met/);
	});

	it('only the first call (subset): P = 1, R = 1/2, F1 = 2/3; refund is missing', () => {
		const { r, d } = run([lookup()], { order: 'subset' });
		expect([d.precision, d.recall]).toEqual([1, 0.5]);
		expect(r.value).toBeCloseTo(2 / 3, 12);
		expect(d.order.ok).toBe(true);
		expect(run([lookup()], { order: 'superset' }).d.order.ok).toBe(false);
		expect(d.missing).toEqual([
			{ position: 1, name: 'refund_order', arguments: { order_id: 'A1', amount: 20 } },
		]);
		expect(r.reason).toMatch(/Missing: refund_order/);
	});

	it('nothing expected and nothing called: 1; nothing expected but a call: 0', () => {
		expect(run([], {}, []).r.value).toBe(1);
		const { r, d } = run([search], {}, []);
		expect([d.precision, d.recall, r.value]).toEqual([0, 0, 0]);
		expect(run([], {}, EXPECTED).r.value).toBe(0);
	});
});

describe('Tool Calls: arguments', () => {
	it('a wrong order id: 1 of 2 matched (F1 1/2), the call named with the key, values and why', () => {
		const { r, d } = run([lookup('A2'), refund()]);
		expect([d.precision, d.recall, r.value]).toEqual([0.5, 0.5, 0.5]);
		expect(d.wrongArguments).toEqual([
			{
				position: 0,
				expectedPosition: 0,
				name: 'lookup_order',
				differences: [{ key: 'order_id', why: 'different', expected: 'A1', actual: 'A2' }],
			},
		]);
		expect(d.missing).toEqual([]);
		expect(d.extra).toEqual([]);
		// Of the two calls of an expected tool, one had the right arguments.
		expect(r.companions?.tool_call_arguments.value).toBe(0.5);
		expect(r.reason).toMatch(/lookup_order \(call 0\): order_id "A1" expected, got "A2"/);
	});

	it('an extra key fails Exact, passes Expected Keys Only, and passes Exact when ignored by glob', () => {
		const actual = [lookup('A1', { verbose: true, trace_id: 'x' }), refund()];
		const exact = run(actual).d;
		expect(exact.matched).toBe(1);
		expect(exact.wrongArguments[0].differences.map((x: any) => [x.key, x.why])).toEqual([
			['verbose', 'unexpected'],
			['trace_id', 'unexpected'],
		]);
		expect(run(actual, { argumentMatch: 'expected_keys' }).d.matched).toBe(2);
		expect(run(actual, { ignoreKeys: 'verbose, trace_*' }).d.matched).toBe(2);
		expect(run(actual, { ignoreKeys: 'verbose' }).d.matched).toBe(1);
	});

	it('a missing key fails even Expected Keys Only', () => {
		const actual: ToolCall[] = [{ name: 'lookup_order', arguments: {} }, refund()];
		const d = run(actual, { argumentMatch: 'expected_keys' }).d;
		expect(d.wrongArguments[0].differences).toEqual([
			{ key: 'order_id', why: 'missing', expected: 'A1' },
		]);
	});

	it('numbers within the tolerance, text without case, nested keys by dotted path', () => {
		expect(run([lookup(), refund(20.004)]).d.matched).toBe(1);
		expect(run([lookup(), refund(20.004)], { numberTolerance: 0.01 }).d.matched).toBe(2);
		expect(run([lookup('a1'), refund()]).d.matched).toBe(1);
		expect(run([lookup('a1'), refund()], { caseInsensitive: true }).d.matched).toBe(2);
		const nested: ToolCall[] = [{ name: 'f', arguments: { filter: { date: '2024', by: 'me' } } }];
		const want: ToolCall[] = [{ name: 'f', arguments: { filter: { date: '2024' } } }];
		const d = compareToolCalls(nested, want, P()).details as any;
		expect(d.wrongArguments[0].differences).toEqual([
			{ key: 'filter.by', why: 'unexpected', actual: 'me' },
		]);
		expect(
			(compareToolCalls(nested, want, P({ ignoreKeys: 'filter.by' })).details as any).matched,
		).toBe(1);
	});

	it('Names Only ignores arguments; an expected call without arguments accepts any', () => {
		expect(run([lookup('A2'), refund(5)], { argumentMatch: 'names_only' }).r.value).toBe(1);
		const noArgs: ToolCall[] = [{ name: 'lookup_order' }];
		expect(compareToolCalls([lookup('Z9')], noArgs, P()).value).toBe(1);
	});

	it('matches one to one at best, not greedily: {any} and {x: 1} against {x: 1} and {y: 2}', () => {
		// Greedy in order would give the argument-free expectation the {x: 1} call and leave {x: 1}
		// unmatched; the maximum matching pairs {any} with {y: 2}.
		const expected: ToolCall[] = [{ name: 'a' }, { name: 'a', arguments: { x: 1 } }];
		const actual: ToolCall[] = [
			{ name: 'a', arguments: { x: 1 } },
			{ name: 'a', arguments: { y: 2 } },
		];
		const r = compareToolCalls(actual, expected, P({ order: 'any_order' }));
		expect((r.details as any).matched).toBe(2);
		expect(r.value).toBe(1);
		expect((r.details as any).order.ok).toBe(true);
	});

	it("names compare by n8n's tool-name rule: an expected 'Order Lookup' is the call Order_Lookup", () => {
		const r = compareToolCalls([{ name: 'Order_Lookup' }], [{ name: 'Order Lookup' }], P());
		expect(r.value).toBe(1);
	});
});

describe('Tool Calls: repeats, failures and steps', () => {
	it('a loop: the same lookup three times, two beyond the expected one, fails the row', () => {
		const { r, d } = run([lookup(), lookup(), lookup(), refund()]);
		// matched 2 of 4 calls: P = 1/2, R = 1, F1 = 2/3.
		expect(r.value).toBeCloseTo(2 / 3, 12);
		expect(d.repeated).toEqual([
			{ name: 'lookup_order', times: 3, positions: [0, 1, 2], arguments: { order_id: 'A1' } },
		]);
		expect(r.failedChecks).toContain('repeats');
		expect(
			run([lookup(), lookup(), lookup(), refund()], { failOnRepeats: false }).r.failedChecks,
		).toEqual([]);
		// Repeats the expected calls ask for are not a loop.
		const twice = compareToolCalls([lookup(), lookup()], [lookup(), lookup()], P());
		expect((twice.details as any).repeated).toEqual([]);
		expect(twice.value).toBe(1);
	});

	it('a failed call still counts as made; the error companion is failed / made = 1/2', () => {
		const failed: ToolCall = { ...lookup(), error: 'ETIMEDOUT: order service did not answer' };
		const { r, d } = run([failed, refund()]);
		expect(r.value).toBe(1);
		expect(d.failed).toEqual([
			{ position: 0, name: 'lookup_order', error: 'ETIMEDOUT: order service did not answer' },
		]);
		expect(r.companions?.tool_call_errors.value).toBe(0.5);
		expect(r.companions?.tool_call_errors.reason).toMatch(/lookup_order \(call 0\): ETIMEDOUT/);
	});

	it('the step count within Min Steps and Max Steps (0: no bound)', () => {
		expect(run([lookup(), refund()], { minSteps: 3 }).r.failedChecks).toEqual(['steps']);
		expect(run([lookup(), refund()], { maxSteps: 1 }).r.failedChecks).toEqual(['steps']);
		expect(run([lookup(), refund()], { minSteps: 2, maxSteps: 2 }).r.failedChecks).toEqual([]);
		expect(() => run([], { maxSteps: -1 })).toThrow(/Max Steps must be a whole number/);
	});
});

describe('Tool Calls as a metric: three Scores, row errors and notes', () => {
	const score = (values: Record<string, unknown>, params: Record<string, unknown> = {}) =>
		evaluateMetricScores(toolCallsMetric, values, { params });

	it('writes tool_call_match, tool_call_arguments and tool_call_errors with their own thresholds', () => {
		const s = score({ toolCalls: [lookup('A2'), refund()], expectedToolCalls: EXPECTED });
		expect(Object.keys(s)).toEqual(['tool_call_match', 'tool_call_arguments', 'tool_call_errors']);
		expect(s.tool_call_match).toMatchObject({
			status: 'ok',
			value: 0.5,
			pass: false,
			threshold: 1,
		});
		expect(s.tool_call_arguments).toMatchObject({ value: 0.5, pass: false, threshold: 1 });
		expect(s.tool_call_errors).toMatchObject({
			value: 0,
			pass: true,
			threshold: 0,
			direction: 'lower',
		});
		expect(s.tool_call_errors.signature).toMatch(/^metric:tool_call_errors@1\|/);
	});

	it('without expected calls only the failed calls are scored', () => {
		const s = score({ toolCalls: [{ name: 'x', error: 'boom' }] });
		expect(s.tool_call_match.status).toBe('not_applicable');
		expect(s.tool_call_match.reason).toMatch(/missing expected_tool_calls/);
		expect(s.tool_call_arguments.status).toBe('not_applicable');
		expect(s.tool_call_errors).toMatchObject({ status: 'ok', value: 1, pass: false });
	});

	it('the value can be any anchor figure, which is also always in details.parity', () => {
		const values = { toolCalls: [refund(), lookup()], expectedToolCalls: EXPECTED };
		// Strict order: names [refund, lookup] differ from [lookup, refund], Ragas gives 0.
		expect(score(values, { score: 'ragas_tool_call_accuracy' }).tool_call_match.value).toBe(0);
		expect(score(values, { score: 'ragas_tool_call_f1' }).tool_call_match.value).toBe(1);
		expect(score(values, { score: 'n8n_tools_used' }).tool_call_match.value).toBe(1);
		const parity = score(values).tool_call_match.details?.parity as Record<string, number>;
		expect(parity).toMatchObject({
			ragas_tool_call_accuracy: 0,
			ragas_tool_call_accuracy_any_order: 1,
			deepeval_tool_correctness: 1,
			n8n_tools_used: 1,
		});
		// n8n Tools Used stops without an expected tool: the row is not applicable, not 0.
		const none = score(
			{ toolCalls: [lookup()], expectedToolCalls: [] },
			{ score: 'n8n_tools_used' },
		);
		expect(none.tool_call_match.status).toBe('not_applicable');
	});

	it('arguments that are not JSON are kept as text and named; no crash', () => {
		const s = score({
			toolCalls: [{ name: 'lookup_order', arguments: 'order A1 please' }, refund()],
			expectedToolCalls: EXPECTED,
		});
		const d = s.tool_call_match.details as any;
		expect(d.wrongArguments[0].differences).toEqual([
			{
				key: '(arguments)',
				why: 'not_json',
				expected: { order_id: 'A1' },
				actual: 'order A1 please',
			},
		]);
		expect(d.notes).toContain('1 call(s) gave arguments that are not JSON; compared as text');
	});

	it('calls without ids match by tool and arguments, with a note when only some have ids', () => {
		const s = score({
			toolCalls: [{ id: 'c1', ...lookup() }, refund()],
			expectedToolCalls: EXPECTED,
		});
		expect(s.tool_call_match.value).toBe(1);
		expect((s.tool_call_match.details as any).notes).toEqual([
			'1 of 2 calls carry no id; calls are matched by tool and arguments',
		]);
	});

	it('an expected tool the agent never had is named, beside the missing call', () => {
		const s = score({
			toolCalls: [lookup()],
			expectedToolCalls: EXPECTED,
			toolDefinitions: [{ type: 'function', function: { name: 'lookup_order', parameters: {} } }],
		});
		const d = s.tool_call_match.details as any;
		expect(d.missing[0]).toMatchObject({
			name: 'refund_order',
			note: 'not among the tools the agent had',
		});
		expect(d.notes).toEqual([
			'expected call 1 names refund_order, a tool the agent did not have (tool_definitions)',
		]);
	});

	it('a tool result of megabytes is read and never copied into the details', () => {
		const big = 'x'.repeat(3_000_000);
		const s = score({
			toolCalls: [{ ...lookup(), result: big, error: big }, refund()],
			expectedToolCalls: EXPECTED,
		});
		expect(s.tool_call_match.value).toBe(1);
		expect(JSON.stringify(s).length).toBeLessThan(20_000);
		expect((s.tool_call_errors.details as any).failed[0].error).toMatch(/\(3000000 characters\)$/);
	});

	it('a trajectory of 1,000 calls against 10 expected ones', () => {
		const expected: ToolCall[] = Array.from({ length: 10 }, (_, i) => ({
			name: `tool_${i}`,
			arguments: { step: i },
		}));
		// Every 100th call is an expected one, in order; the rest are 990 distinct other calls.
		const actual: ToolCall[] = Array.from({ length: 1000 }, (_, i) =>
			i % 100 === 0
				? { name: `tool_${i / 100}`, arguments: { step: i / 100 } }
				: { name: `noise_${i % 7}`, arguments: { i } },
		);
		const s = score({ toolCalls: actual, expectedToolCalls: expected });
		const d = s.tool_call_match.details as any;
		expect([d.matched, d.called, d.extra.length]).toEqual([10, 1000, 990]);
		// P = 10/1000, R = 1, F1 = 2(0.01)/(1.01).
		expect(s.tool_call_match.value).toBeCloseTo(0.02 / 1.01, 12);
		expect(d.order.ok).toBe(true);
	});

	it('unreadable calls are the row error naming the field and the call', () => {
		const a = score({ toolCalls: 'not json at all', expectedToolCalls: EXPECTED });
		expect(a.tool_call_match).toMatchObject({ status: 'error', pass: null, value: null });
		expect(a.tool_call_match.error).toBe(
			'tool_calls: expected a list of tool calls, got text that is not JSON',
		);
		const b = score({ toolCalls: [], expectedToolCalls: [{ arguments: {} }] });
		expect(b.tool_call_match.error).toBe(
			"expected_tool_calls[0].name: expected the tool's name, got undefined",
		);
		expect(b.tool_call_errors.status).toBe('error');
		const c = score({ toolCalls: [], expectedToolCalls: EXPECTED }, { order: 'sideways' });
		expect(c.tool_call_match.error).toMatch(/^Order must be one of/);
	});
});

describe('readToolCalls: every shape the sources write', () => {
	it('reads intermediate steps, OpenAI messages, Azure parts, DeepEval and JSON text alike', () => {
		const want = [{ name: 'lookup_order', arguments: { order_id: 'A1' } }];
		const steps = readToolCalls(
			[
				{
					action: { tool: 'lookup_order', toolInput: { order_id: 'A1' }, toolCallId: 't1' },
					observation: '{"status":"shipped"}',
				},
			],
			'x',
		);
		expect(steps).toEqual([{ id: 't1', ...want[0], result: '{"status":"shipped"}', position: 0 }]);
		const openai = readToolCalls(
			[
				{ role: 'user', content: 'where is A1?' },
				{
					role: 'assistant',
					content: null,
					tool_calls: [
						{
							id: 'c1',
							type: 'function',
							function: { name: 'lookup_order', arguments: '{"order_id":"A1"}' },
						},
					],
				},
				{ role: 'tool', tool_call_id: 'c1', content: 'shipped' },
			],
			'x',
		);
		expect(openai).toEqual([{ id: 'c1', ...want[0], result: 'shipped', position: 0, turn: 0 }]);
		const azure = readToolCalls(
			[
				{
					role: 'assistant',
					content: [
						{
							type: 'tool_call',
							tool_call_id: 'c9',
							name: 'lookup_order',
							arguments: { order_id: 'A1' },
						},
					],
				},
				{
					role: 'tool',
					tool_call_id: 'c9',
					content: [{ type: 'tool_result', tool_result: { status: 'shipped' } }],
				},
			],
			'x',
		);
		expect(azure).toEqual([
			{ id: 'c9', ...want[0], result: { status: 'shipped' }, position: 0, turn: 0 },
		]);
		const deepeval = readToolCalls(
			[{ name: 'lookup_order', input_parameters: { order_id: 'A1' }, output: 'ok' }],
			'x',
		);
		expect(deepeval).toEqual([{ ...want[0], result: 'ok', position: 0 }]);
		expect(readToolCalls(JSON.stringify({ intermediateSteps: [] }), 'x')).toEqual([]);
		expect(readToolCalls('  ', 'x')).toEqual([]);
	});
});
