/**
 * Traces of tools the loader had not met (issue 39): LangSmith runs (the JS SDK's own run
 * payloads, a real file; run trees and run lists), a graph agent's final state whose answer is
 * its last AI message, and bare OpenTelemetry GenAI span attributes (the current
 * `gen_ai.input.messages` and OpenLLMetry's indexed `gen_ai.prompt.N.*`). Origins of the real
 * files are in test/fixtures/traces/SOURCES.md; the other traces here are written for the test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset, parseTrace } from '../../../src/record';

const FIX = join(__dirname, '../../fixtures/traces');
const load = (name: string): unknown =>
	JSON.parse(readFileSync(join(FIX, name), 'utf8')) as unknown;

describe('LangSmith runs', () => {
	it("the JS SDK's post/patch payloads: one LLM run completed by its patch, usage and model", () => {
		const t = parseTrace(load('langsmith-js-wrap-openai-run-payloads.json'));
		expect(t.format).toBe('langsmith');
		expect(t.spans).toBe(1);
		// start 1728803137170 ms, end 1728803138285 ms (epoch nanoseconds keep about 7 digits here).
		expect(t.latency_seconds).toBeCloseTo(1.115, 6);
		expect(t.llm_calls).toEqual([
			{
				name: 'ChatOpenAI',
				model: 'gpt-4o-mini-2024-07-18',
				input_tokens: 9,
				output_tokens: 9,
				total_tokens: 18,
			},
		]);
		expect(t).toMatchObject({
			total_input_token_count: 9,
			total_output_token_count: 9,
			total_token_count: 18,
		});
	});

	it("as a row's trace: the request is the user message, the response the completion text", () => {
		const out = loadDataset([{ trace: load('langsmith-js-wrap-openai-run-payloads.json') }]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0]).toMatchObject({
			request: 'howdy',
			response: 'Howdy! How can I assist you today?',
			total_token_count: 18,
		});
	});

	const tree = {
		id: 'root',
		name: 'LangGraph',
		run_type: 'chain',
		start_time: '2025-05-01T10:00:00.000Z',
		end_time: '2025-05-01T10:00:04.000Z',
		inputs: { messages: [{ type: 'human', content: 'Where is my order A-1?' }] },
		// The graph's final state: the answer is one field among many.
		outputs: {
			messages: [
				{ type: 'human', content: 'Where is my order A-1?' },
				{
					lc: 1,
					type: 'constructor',
					id: ['langchain', 'schema', 'messages', 'AIMessage'],
					kwargs: { content: '', tool_calls: [{ name: 'lookup', args: { id: 'A-1' } }] },
				},
				{ type: 'tool', content: 'shipped' },
				{
					lc: 1,
					type: 'constructor',
					id: ['langchain', 'schema', 'messages', 'AIMessage'],
					kwargs: { content: 'Order A-1 has shipped.' },
				},
			],
			order_status: 'shipped',
			step_count: 3,
		},
		child_runs: [
			{
				id: 'llm1',
				name: 'ChatOpenAI',
				run_type: 'llm',
				start_time: '2025-05-01T10:00:00.500Z',
				end_time: '2025-05-01T10:00:01.500Z',
				inputs: {},
				outputs: { llm_output: { token_usage: { prompt_tokens: 40, completion_tokens: 10 } } },
				extra: { invocation_params: { model: 'gpt-4o' } },
			},
			{
				id: 'tool1',
				name: 'lookup',
				run_type: 'tool',
				start_time: '2025-05-01T10:00:02.000Z',
				end_time: '2025-05-01T10:00:02.200Z',
				inputs: { input: '{"id": "A-1"}' },
				outputs: { output: 'shipped' },
			},
			{
				id: 'llm2',
				name: 'ChatOpenAI',
				run_type: 'llm',
				start_time: '2025-05-01T10:00:03.000Z',
				end_time: '2025-05-01T10:00:03.800Z',
				inputs: {},
				outputs: {},
				prompt_tokens: 55,
				completion_tokens: 8,
				total_tokens: 63,
			},
		],
	};

	it('a run tree: LLM runs summed, the tool run as a call, the root end to end', () => {
		const t = parseTrace(tree);
		expect(t.format).toBe('langsmith');
		expect(t.spans).toBe(4);
		expect(t.latency_seconds).toBe(4);
		expect(t.llm_calls.map((c) => [c.model, c.total_tokens])).toEqual([
			['gpt-4o', 50],
			[undefined, 63],
		]);
		expect(t.total_token_count).toBe(113);
		expect(t.tool_calls).toMatchObject([{ name: 'lookup', result: { output: 'shipped' } }]);
	});

	it("a graph agent's final state: the response is its last AI message, not the state", () => {
		const out = loadDataset([{ trace: tree }]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0].request).toBe('Where is my order A-1?');
		expect(out.records[0].response).toBe('Order A-1 has shipped.');
	});

	it('a list of runs linked by parent_run_id reads the same as the tree', () => {
		const { child_runs, ...root } = tree;
		const list = [root, ...child_runs.map((c) => ({ ...c, parent_run_id: 'root' }))];
		const t = parseTrace(list);
		expect(t.format).toBe('langsmith');
		expect(t.total_token_count).toBe(113);
		expect(t.latency_seconds).toBe(4);
	});
});

describe('a graph agent in Langfuse', () => {
	it("LangGraph (Python): the response is the state's last AI message, not the state", () => {
		const trace = load('langfuse-langgraph-python.json');
		const t = parseTrace(trace);
		expect(t.format).toBe('langfuse');
		expect(t.total_token_count).toBe(234); // 75 + 159
		const out = loadDataset([{ trace }]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0].request).toBe("Search the web for 'example' and summarize.");
		expect(out.records[0].response).toBe(
			'The search for "example" primarily leads to the website [example.com](https://example.com), which is often used as a placeholder or demonstration site in various contexts. It serves as a generic example for illustrating how a website might look or function.',
		);
		// The whole final state stays beside the answer.
		expect(out.records[0].response_raw).toMatchObject({ messages: expect.any(Array) });
	});
});

describe('bare OpenTelemetry GenAI span attributes', () => {
	it('OpenLLMetry indexed messages, usage and model, with no operation name', () => {
		const attrs = {
			'gen_ai.system': 'openai',
			'gen_ai.request.model': 'gpt-4o-mini',
			'gen_ai.usage.prompt_tokens': 12,
			'gen_ai.usage.completion_tokens': 17,
			'gen_ai.prompt.0.role': 'system',
			'gen_ai.prompt.0.content': 'Be brief.',
			'gen_ai.prompt.1.role': 'user',
			'gen_ai.prompt.1.content': 'Write a one-line joke',
			'gen_ai.completion.0.role': 'assistant',
			'gen_ai.completion.0.content': 'I told my wife to embrace her mistakes. She hugged me.',
		};
		const t = parseTrace(attrs);
		expect(t.format).toBe('spans');
		expect(t.llm_calls).toEqual([
			{
				name: 'gen_ai',
				model: 'gpt-4o-mini',
				input_tokens: 12,
				output_tokens: 17,
				total_tokens: 29,
			},
		]);
		const out = loadDataset([{ trace: attrs }]);
		expect(out.records[0]).toMatchObject({
			request: 'Write a one-line joke',
			history: [{ role: 'system', content: 'Be brief.' }],
			response: 'I told my wife to embrace her mistakes. She hugged me.',
			total_token_count: 29,
		});
	});

	it('the current conventions: gen_ai.input.messages and output.messages as JSON text', () => {
		const attrs = {
			'gen_ai.operation.name': 'chat',
			'gen_ai.usage.input_tokens': 5,
			'gen_ai.usage.output_tokens': 3,
			'gen_ai.input.messages': JSON.stringify([
				{ role: 'user', parts: [{ type: 'text', content: 'Capital of France?' }] },
			]),
			'gen_ai.output.messages': JSON.stringify([
				{ role: 'assistant', parts: [{ type: 'text', content: 'Paris.' }] },
			]),
		};
		const out = loadDataset([{ trace: attrs }]);
		expect(out.records[0]).toMatchObject({
			request: 'Capital of France?',
			response: 'Paris.',
			total_token_count: 8,
		});
	});

	it('one span object with attributes (no envelope) reads as a one-span trace', () => {
		const t = parseTrace({
			name: 'chat gpt-4o',
			attributes: {
				'gen_ai.operation.name': 'chat',
				'gen_ai.usage.input_tokens': 2,
				'gen_ai.usage.output_tokens': 1,
			},
		});
		expect(t.llm_calls.map((c) => c.total_tokens)).toEqual([3]);
	});

	it('an object that is none of these is still refused, naming what it expected', () => {
		expect(() => parseTrace({ foo: 1 })).toThrow(
			/LangSmith run .* OpenTelemetry GenAI span attributes/,
		);
	});
});
