/**
 * Readers as forgiving as the tools that wrote the files: bare quotes in CSV cells, Python-literal
 * lists in cells, JSON Lines records spanning lines, a JSON array in a JSON Lines file, JSON text
 * inside JSON, null where a list is optional, camelCase twins, tool calls with `args`. Each
 * leniency the file needed is named in the account.
 */
import { DatasetError, loadDataset } from '../../../src/record';
import { parsePythonLiteral } from '../../../src/record/pylit';

describe('CSV', () => {
	it('a bare quote inside an unquoted cell is text, as in Python csv and pandas', () => {
		const out = loadDataset('question,answer\nhow do I print "hi" in python?,print("hi")\nok,1\n');
		expect(out.records.map((r) => [r.request, r.response])).toEqual([
			['how do I print "hi" in python?', 'print("hi")'],
			['ok', '1'],
		]);
		expect(out.account.notes).toEqual([
			'a bare " inside an unquoted CSV cell was read as text, as Python\'s csv module and pandas read it',
		]);
		// A quote that opens a cell and never closes still breaks the file, with the reason.
		expect(() => loadDataset('request,response\n"q,a\n')).toThrow(DatasetError);
	});

	it('Python-literal lists as pandas writes them: ids become doc_uri, texts contexts', () => {
		const out = loadDataset(
			'user_input,retrieved_contexts,reference_contexts,reference_context_ids,reference_tool_calls\n' +
				`q,"['first text', ""it's second""]","['a', 'b']","['a.html', 'b.html']","[{'name': 'search', 'args': {'q': 'x', 'n': 2, 'exact': True}}]"\n`,
		);
		expect(out.invalid).toEqual([]);
		const [r] = out.records;
		expect(r.retrieved_context).toEqual([{ content: 'first text' }, { content: "it's second" }]);
		expect(r.expected_retrieved_context).toEqual([
			{ doc_uri: 'a.html', content: 'a' },
			{ doc_uri: 'b.html', content: 'b' },
		]);
		expect(r.expected_tool_calls).toEqual([
			{ name: 'search', arguments: { q: 'x', n: 2, exact: true }, position: 0 },
		]);
		const idsOnly = loadDataset(
			`request,expected_retrieved_context\nq,"[{'doc_uri': 'a.html'}, {'doc_uri': 'b.html'}]"\n`,
		);
		expect(idsOnly.records[0].expected_retrieved_context).toEqual([
			{ doc_uri: 'a.html' },
			{ doc_uri: 'b.html' },
		]);
	});

	it('parsePythonLiteral reads literals only', () => {
		expect(
			parsePythonLiteral("['a', \"b\", 3, -1.5e3, None, (1, 2), {'k': [True, False]}]"),
		).toEqual(['a', 'b', 3, -1500, null, [1, 2], { k: [true, false] }]);
		expect(parsePythonLiteral("['\\xe9t\\u00e9', 'tab\\there']")).toEqual(['été', 'tab\there']);
		for (const bad of [
			"['a', b]",
			"[open('x')]",
			"'just text'",
			"['unclosed'",
			'[1, 2] extra',
			"{'a' 1}",
		]) {
			expect(parsePythonLiteral(bad)).toBeUndefined();
		}
	});
});

describe('JSON Lines', () => {
	it('records written over several lines (raw newlines in strings) are one record each', () => {
		const text =
			'{"question": "Line one\nline two", "answer": "A"}\n' +
			'{"question": "q2", "answer": "B"}\n' +
			'{"question": "Para one\n\nPara three",\n "answer": "C"}\n';
		const out = loadDataset(text);
		expect(out.format).toBe('jsonl');
		expect(out.invalid).toEqual([]);
		expect(out.records.map((r) => [r.source.row, r.request, r.response])).toEqual([
			[1, 'Line one\nline two', 'A'],
			[3, 'q2', 'B'],
			[4, 'Para one\n\nPara three', 'C'],
		]);
		expect(out.account.notes).toEqual([
			'2 JSON Lines record(s) span several lines (raw newlines inside strings): each read as one record',
		]);
		// The same from bytes (the streaming reader).
		const bytes = loadDataset(Buffer.from(text, 'utf8'));
		expect(bytes.records.map((r) => r.request)).toEqual(out.records.map((r) => r.request));
	});

	it('a broken line is still one invalid row; raw tabs in a line are text', () => {
		const out = loadDataset(
			'{"request": "q1", "response": \n{"request": "q\tt", "response": "a"}\n{"request": "q3"}\n',
		);
		expect(out.invalid.map((i) => [i.row, i.message.slice(0, 14)])).toEqual([
			[1, 'not valid JSON'],
		]);
		expect(out.records.map((r) => r.request)).toEqual(['q\tt', 'q3']);
		expect(out.account.notes).toContain(
			'1 JSON Lines record(s) hold raw tabs or control characters in strings: read as text',
		);
	});

	it('a JSON array in a .jsonl file (JSON Lines chosen) reads as JSON', () => {
		const out = loadDataset('[\n  {"query": "q1", "response": "a1"},\n  {"query": "q2"}\n]\n', {
			format: 'jsonl',
		});
		expect(out.format).toBe('json');
		expect(out.records.map((r) => r.request)).toEqual(['q1', 'q2']);
		expect(out.account.notes).toEqual(['the JSON Lines file holds one JSON array: read as JSON']);
	});
});

describe('JSON', () => {
	it('JSON text inside JSON (lists saved as text), null where a list is optional', () => {
		const out = loadDataset([
			{
				user_input: 'q',
				response: 'a',
				retrieved_contexts: '["c1", "c2"]',
				reference_contexts: null,
			},
			{ input: 'q', actual_output: 'a', retrieval_context: null, context: null },
		]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0].retrieved_context).toEqual([{ content: 'c1' }, { content: 'c2' }]);
		// Prose that merely starts with a bracket stays prose outside CSV.
		const prose = loadDataset([{ query: 'q', context: '[doc1] The X4 costs $250.' }]);
		expect(prose.records[0].retrieved_context).toEqual([{ content: '[doc1] The X4 costs $250.' }]);
	});

	it('camelCase twins of DeepEval names', () => {
		const out = loadDataset([
			{
				input: 'q',
				actualOutput: 'a',
				expectedOutput: 'e',
				retrievalContext: ['r'],
				toolsCalled: [{ name: 'search', inputParameters: { q: 'x' }, output: 'ok' }],
				expectedTools: [{ name: 'search' }],
			},
		]);
		expect(out.schema).toBe('deepeval');
		expect(out.records[0]).toMatchObject({
			response: 'a',
			expected_response: 'e',
			retrieved_context: [{ content: 'r' }],
			tool_calls: [{ name: 'search', arguments: { q: 'x' }, result: 'ok' }],
			expected_tool_calls: [{ name: 'search' }],
			metadata: {},
		});
	});

	it('Ragas multi-turn samples keep the AI tool calls with their args', () => {
		// The MultiTurnSample of the Ragas tool-call accuracy docs.
		const out = loadDataset([
			{
				user_input: [
					{ content: "What's the weather like in New York right now?", type: 'human' },
					{
						content: "The current temperature in New York is 75°F and it's partly cloudy.",
						type: 'ai',
						tool_calls: [{ name: 'weather_check', args: { location: 'New York' } }],
					},
					{ content: 'Can you translate that to Celsius?', type: 'human' },
					{
						content: 'Let me convert that to Celsius for you.',
						type: 'ai',
						tool_calls: [{ name: 'temperature_conversion', args: { temperature_fahrenheit: 75 } }],
					},
					{ content: '75°F is approximately 23.9°C.', type: 'tool' },
					{ content: '75°F is approximately 23.9°C.', type: 'ai' },
				],
				reference_tool_calls: [
					{ name: 'weather_check', args: { location: 'New York' } },
					{ name: 'temperature_conversion', args: { temperature_fahrenheit: 75 } },
				],
			},
		]);
		expect(out.invalid).toEqual([]);
		const [r] = out.records;
		expect(r.request).toBe('Can you translate that to Celsius?');
		expect(r.response).toBe('75°F is approximately 23.9°C.');
		expect(r.history?.[1].tool_calls).toEqual([
			{ name: 'weather_check', arguments: { location: 'New York' } },
		]);
		expect(r.tool_calls).toEqual([
			{
				name: 'temperature_conversion',
				arguments: { temperature_fahrenheit: 75 },
				position: 0,
				turn: 0,
			},
		]);
		expect(r.expected_tool_calls?.map((c) => c.arguments)).toEqual([
			{ location: 'New York' },
			{ temperature_fahrenheit: 75 },
		]);
	});
});
