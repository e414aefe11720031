/**
 * Each parity mode against its anchor's formula on shared vectors, to 1e-12. The vectors are
 * written out here with where they come from; the expected numbers are worked by hand from the
 * anchors' published formulas (src/metrics/toolcallsParity.ts, docs/agents.md).
 */
import {
	deepevalToolCorrectness,
	n8nToolsUsed,
	pyFloat,
	pyRound4,
	pyStr,
	ragasToolCallAccuracy,
	ragasToolCallF1,
} from '../../../src/metrics/toolcallsParity';
import type { ToolCall } from '../../../src/record/schema';

const c = (name: string, args?: Record<string, unknown>, result?: unknown): ToolCall => ({
	name,
	...(args ? { arguments: args } : {}),
	...(result !== undefined ? { result } : {}),
});
const close = (a: number | undefined, b: number) =>
	expect(Math.abs((a ?? NaN) - b)).toBeLessThan(1e-12);

// Ragas docs, "Tool call Accuracy" (docs/concepts/metrics/available_metrics/agents.md): the
// weather sample and its reference tool calls.
const weather = c('weather_check', { location: 'New York' });
const convert = c('temperature_conversion', { temperature_fahrenheit: 75 });

describe('Ragas ToolCallAccuracy (strict_order=True by default)', () => {
	it.each<[string, ToolCall[], ToolCall[], boolean, number]>([
		['the docs sample: same calls, same order', [weather, convert], [weather, convert], true, 1],
		// Names [convert, weather] != [weather, convert]: the sequence flag is 0.
		['swapped, strict', [convert, weather], [weather, convert], true, 0],
		// Not strict: both sorted by (name, key, str(value)...), then paired: 1.
		['swapped, flexible', [convert, weather], [weather, convert], false, 1],
		// Pair score: 1 of 2 reference keys equal as str(): 0.5; / 1 reference call.
		['one of two arguments', [c('f', { a: 1, b: 3 })], [c('f', { a: 1, b: 2 })], true, 0.5],
		// str(75) == '75' == str('75'): Ragas compares arguments as text.
		['75 and "75" are equal text', [c('t', { x: '75' })], [c('t', { x: 75 })], true, 1],
		// str(True) == 'True', never equal to 'true'.
		['True is not "true"', [c('t', { x: 'true' })], [c('t', { x: true })], true, 0],
		['length mismatch: names differ', [weather], [weather, convert], true, 0],
		['both empty', [], [], true, 1],
		['no prediction', [], [weather], true, 0],
		['no reference', [weather], [], true, 0],
		// Empty reference arguments and empty predicted arguments: 1; reference empty only: 0.
		['no arguments on either side', [c('f', {})], [c('f', {})], true, 1],
		['arguments only predicted', [c('f', { a: 1 })], [c('f', {})], true, 0],
	])('%s', (_n, pred, ref, strict, want) => {
		close(ragasToolCallAccuracy(pred, ref, strict), want);
	});
});

describe('Ragas ToolCallF1 (sets of name and argument items, rounded to 4 places)', () => {
	it.each<[string, ToolCall[], ToolCall[], number]>([
		['the docs sample', [weather, convert], [weather, convert], 1],
		// tp 1 (weather), fp 1, fn 1: P = R = 1/2, F1 = 0.5.
		[
			'one right, one wrong argument',
			[weather, c('temperature_conversion', { temperature_fahrenheit: 76 })],
			[weather, convert],
			0.5,
		],
		// Sets: a repeated call counts once. tp 1, fp 0, fn 1: P 1, R 1/2, F1 2/3 -> 0.6667.
		['a repeat counts once', [weather, weather], [weather, convert], 0.6667],
		// tp 2, fp 1, fn 1: P 2/3, R 2/3 -> 0.6667; tp 2, fp 1, fn 0 -> P 2/3 R 1 -> 0.8.
		['one extra', [weather, convert, c('x')], [weather, convert], 0.8],
		// tp 2 of ref 3 with fp 2: P = 1/2, R = 2/3, F1 = 4/7 = 0.571428... -> 0.5714.
		['rounded: 4/7', [weather, convert, c('x'), c('y')], [weather, convert, c('z')], 0.5714],
		// True == 1 in Python, so {x: True} and {x: 1} are one set item.
		['True equals 1 as a set item', [c('t', { x: true })], [c('t', { x: 1 })], 1],
		['both empty: 0 (no true positive)', [], [], 0],
	])('%s', (_n, pred, ref, want) => {
		close(ragasToolCallF1(pred, ref), want);
	});

	it("rounds as Python's round(x, 4): ties to even on the double", () => {
		// 1/32 and 3/32 are the only kind of double exactly half-way at 4 places.
		expect([pyRound4(0.03125), pyRound4(0.09375), pyRound4(4 / 7), pyRound4(2 / 3)]).toEqual([
			0.0312, 0.0938, 0.5714, 0.6667,
		]);
	});

	it("writes values as Python's str() does", () => {
		expect([pyStr(75), pyStr(0.5), pyStr(true), pyStr(null), pyStr('a')]).toEqual([
			'75',
			'0.5',
			'True',
			'None',
			'a',
		]);
		expect(pyStr({ a: [1, 'b'], c: false })).toBe("{'a': [1, 'b'], 'c': False}");
		expect([pyFloat(1e-5), pyFloat(1.5e16), pyFloat(123.456), pyFloat(0.0001)]).toEqual([
			'1e-05',
			'1.5e+16',
			'123.456',
			'0.0001',
		]);
	});
});

// DeepEval docs, "Tool Correctness" (docs/metrics-tool-correctness.mdx): tools_called
// [WebSearch, ToolQuery] against expected_tools [WebSearch] and the reverse.
const web = c('WebSearch');
const query = c('ToolQuery');
const noOpts = { inputParameters: false, ordering: false, exactMatch: false };
const withParams = { inputParameters: true, ordering: false, exactMatch: false };
const ordered = { inputParameters: true, ordering: true, exactMatch: false };

describe('DeepEval ToolCorrectness (without available_tools)', () => {
	it.each<[string, ToolCall[], ToolCall[], typeof noOpts, number]>([
		['docs: every expected tool called', [web, query], [web], noOpts, 1],
		['docs: one of two expected tools', [web], [web, query], noOpts, 0.5],
		// Input parameters: keys {a, b}, a equal: 1/2 for the one expected call.
		['half the parameters', [c('f', { a: 1, b: 3 })], [c('f', { a: 1, b: 2 })], withParams, 0.5],
		// Keys {a, b, c} in the union, a equal, b nested {x equal of {x, y}}: 1/3 + (1/2)/3 = 1/2.
		[
			'nested parameters',
			[c('f', { a: 1, b: { x: 1, y: 2 }, c: 0 })],
			[c('f', { a: 1, b: { x: 1, y: 3 } })],
			withParams,
			0.5,
		],
		// Identical called tools are one in DeepEval's matched set: the second expected A finds
		// none left. 1/2.
		['identical calls match once', [c('A', {}), c('A', {})], [c('A', {}), c('A', {})], noOpts, 0.5],
		// Different outputs make the called tools distinct again: 1.
		[
			'outputs tell repeats apart',
			[c('A', {}, 'r1'), c('A', {}, 'r2')],
			[c('A', {}), c('A', {})],
			noOpts,
			1,
		],
		// Weighted LCS of [A, B, C] in [A, C, B]: 2 of 3.
		[
			'ordering: LCS 2 of 3',
			[c('A', {}), c('C', {}), c('B', {})],
			[c('A', {}), c('B', {}), c('C', {})],
			ordered,
			2 / 3,
		],
		// LCS weighted by the parameter overlap: A exact (1) + B half (0.5) = 1.5 of 2.
		[
			'ordering, weighted',
			[c('A', { k: 1 }), c('B', { k: 1, j: 2 })],
			[c('A', { k: 1 }), c('B', { k: 1, j: 3 })],
			ordered,
			0.75,
		],
		['both empty', [], [], noOpts, 1],
		['nothing expected, something called', [web], [], noOpts, 0],
	])('%s', (_n, called, expected, o, want) => {
		close(deepevalToolCorrectness(called, expected, o), want);
	});
});

// n8n Evaluation node, metric Tools Used (nodes-base Evaluation/utils/metricHandlers.ts).
describe('n8n Tools Used', () => {
	it.each<[string, string[], string[], number | undefined]>([
		// "Order Lookup" is the tool Order_Lookup, compared without case.
		['node names and tool names', ['Order_Lookup'], ['Order Lookup', 'Refund'], 0.5],
		[
			'every expected tool used',
			['order_lookup', 'refund', 'search'],
			['Order Lookup', 'Refund'],
			1,
		],
		// Order, arguments and repeats are ignored; duplicates in the expected list count each.
		['duplicates in the expected list', ['a'], ['a', 'a', 'b'], 2 / 3],
		['no expected tool: n8n stops', ['a'], [], undefined],
	])('%s', (_n, used, expected, want) => {
		const r = n8nToolsUsed(
			used.map((n) => c(n)),
			expected.map((n) => c(n)),
		);
		if (want === undefined) expect(r).toBeUndefined();
		else close(r, want);
	});
});
