/**
 * The trace readers added for real exports (origins in test/fixtures/traces/SOURCES.md): Langfuse
 * `{trace, observations}`, DeepEval traces, OpenTelemetry JS spans (the Vercel AI SDK's telemetry:
 * `[seconds, nanos]` times, `_spanContext` ids, several traces in one list), n8n executions whose
 * sub-node runs are linked only through the workflow's connections; and rows whose trace is a bare
 * span list or cannot be read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalRecord, loadDataset, parseTrace } from '../../../src/record';

const FIX = join(__dirname, '../../fixtures/traces');
const load = (name: string): Record<string, unknown> =>
	JSON.parse(readFileSync(join(FIX, name), 'utf8')) as Record<string, unknown>;

describe('parseTrace: Langfuse exports', () => {
	it('a Vercel AI SDK run: the model call counted once, the tool call, the double-encoded input', () => {
		const t = parseTrace(load('langfuse-vercel-aisdk.json'));
		expect(t.format).toBe('langfuse');
		expect(t.spans).toBe(3);
		expect(t.latency_seconds).toBe(3.045);
		// The parent generation repeats no usage of its own child: only the model call counts.
		expect(t.llm_calls).toEqual([
			{
				name: 'ai.generateText.doGenerate',
				model: 'gpt-5',
				input_tokens: 62,
				output_tokens: 85,
				total_tokens: 147,
			},
		]);
		expect([t.total_input_token_count, t.total_output_token_count, t.total_token_count]).toEqual([
			62, 85, 147,
		]);
		expect(t.request).toEqual({ prompt: 'What is the weather like today in San Francisco?' });
		expect(t.tool_calls).toEqual([
			{
				name: 'getWeather',
				arguments: { location: 'San Francisco' },
				result: { location: 'San Francisco', temperature: 64 },
				position: 0,
				turn: 1,
			},
		]);
	});

	it('an AutoGen run: request and response from the trace, the generation usage', () => {
		const t = parseTrace(load('langfuse-autogen.json'));
		expect(t).toMatchObject({
			format: 'langfuse',
			request: "Say 'Hello World!'",
			response: 'Hello World!',
			latency_seconds: 0.645,
			total_token_count: 44,
		});
		expect(t.llm_calls[0].model).toBe('gpt-4o');
	});

	it('fills a row: the prompt is the request; an output of tool calls is not taken as the answer', () => {
		const out = loadDataset([{ trace: load('langfuse-vercel-aisdk.json') }]);
		expect(out.invalid).toEqual([]);
		const [r] = out.records;
		expect(r.request).toBe('What is the weather like today in San Francisco?');
		expect(r.response).toBeUndefined();
		expect(r.tool_calls?.[0].name).toBe('getWeather');
		expect(r.metadata.trace_notes).toEqual([
			"response: the trace's output is not text or messages; left out",
		]);
		expect(EvalRecord.safeParse(r).success).toBe(true);
	});
});

describe('parseTrace: DeepEval traces', () => {
	it('reads agent, LLM and retriever spans and the trace input and output', () => {
		const t = parseTrace(load('deepeval-agent-workflow.json'));
		expect(t).toMatchObject({
			format: 'deepeval',
			spans: 3,
			latency_seconds: 0,
			request: { query: 'search query' },
			response: 'Generated from: Retrieved docs for: search query',
			retrieved_context: [{ content: 'Retrieved docs for: search query' }],
		});
		expect(t.notes).toEqual(['1 LLM span(s) report no token usage: token counts are unknown']);
	});

	it('reads snake_case twins and refuses a trace that ends before it starts', () => {
		const t = parseTrace({
			llm_spans: [
				{
					uuid: 'l1',
					start_time: '2026-01-01T00:00:00.000Z',
					end_time: '2026-01-01T00:00:01.000Z',
					model: 'gpt-4o',
					input_token_count: 10,
					output_token_count: 2,
				},
			],
			start_time: '2026-01-01T00:00:00.000Z',
			end_time: '2026-01-01T00:00:02.000Z',
			input: 'q',
			output: 'a',
		});
		expect([t.total_token_count, t.latency_seconds, t.response]).toEqual([12, 2, 'a']);
		expect(() =>
			parseTrace({
				llmSpans: [],
				startTime: '2026-01-01T00:00:02Z',
				endTime: '2026-01-01T00:00:01Z',
			}),
		).toThrow(/ends 1 s before it starts/);
	});
});

describe('parseTrace: OpenTelemetry JS spans (Vercel AI SDK)', () => {
	const spans = load('otel-js-vercel-ai.json') as unknown as Record<string, unknown>[];

	it('reads [seconds, nanos] times and _spanContext ids; one trace of several, with a note', () => {
		const t = parseTrace(spans);
		expect(t.format).toBe('otel-js');
		expect(t.spans).toBe(3);
		expect(t.latency_seconds).toBeCloseTo(3.045, 6);
		// ai.streamText repeats its model call's usage: counted once.
		expect(t.llm_calls).toEqual([
			{
				name: 'ai.streamText.doStream',
				model: 'mock-model-id',
				input_tokens: 3,
				output_tokens: 10,
				total_tokens: 13,
			},
		]);
		expect(t.request).toEqual({ messages: [{ role: 'user', content: 'test-input' }] });
		expect(t.tool_calls).toEqual([
			{
				name: 'tool1',
				id: 'call-1',
				arguments: { value: 'value' },
				result: 'value-result',
				position: 0,
				turn: 0,
			},
		]);
		expect(t.notes).toEqual([
			'the spans belong to 2 traces; read the first (4bf92f3577b34da6a3ce929d0e0e4736, 3 of 5 spans); give each trace its own row to read the others',
		]);
	});

	it('the second trace on its own: SDK 1.x parentSpanId, the response text', () => {
		const t = parseTrace(spans.slice(3));
		expect(t.notes).toEqual([]);
		expect(t).toMatchObject({
			latency_seconds: 1.5,
			total_token_count: 13,
			request: { messages: [{ role: 'user', content: 'prompt' }] },
			response: 'Hello, world!',
		});
		expect(t.llm_calls[0].model).toBe('test-response-model-id');
	});

	it('a row whose trace is a bare span list loads, filled from the first trace', () => {
		const out = loadDataset([{ request_id: 'r1', trace: spans.slice(3) }]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0]).toMatchObject({
			request: 'prompt',
			response: 'Hello, world!',
			latency_seconds: 1.5,
			total_input_token_count: 3,
			total_output_token_count: 10,
		});
	});

	it('the console exporter shape: id, parentId, timestamp and duration in microseconds', () => {
		const t = parseTrace([
			{ traceId: 't', id: 'a', name: 'root', timestamp: 1_700_000_000_000_000, duration: 250_000 },
			{
				traceId: 't',
				parentId: 'a',
				id: 'b',
				name: 'chat',
				timestamp: 1_700_000_000_010_000,
				duration: 100_000,
				attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 5 },
			},
		]);
		// Microseconds since the epoch as nanoseconds pass 2^53: exact to the microsecond.
		expect(t.latency_seconds).toBeCloseTo(0.25, 6);
		expect(t.total_input_token_count).toBe(5);
	});
});

describe('parseTrace: n8n executions linked through the workflow connections', () => {
	const exec = load('n8n-agent-connections.json');

	it('finds the agent answer, its tools and the retriever behind the vector-store tool', () => {
		const t = parseTrace(exec);
		expect(t.format).toBe('n8n');
		expect(t.request).toBe('Is order 4417 shipped yet?');
		expect(t.response).toBe('Order 4417 shipped on 28 November via DHL, tracking JD0146.');
		expect(t.total_token_count).toBe(508 + 560);
		expect(t.tool_calls).toEqual([
			// Named as the agent calls them (n8n's tool name of the node, or the tool's own `name`);
			// a text input that is not JSON is kept as raw text.
			{
				name: 'Get_Order',
				arguments: { order_id: '4417' },
				result: { status: 'shipped', carrier: 'DHL' },
				position: 0,
				turn: 0,
			},
			{
				name: 'product_docs',
				arguments_raw: 'shipping policy for order delays',
				result: 'Orders ship within 2 business days; DHL tracking is sent by email.',
				position: 1,
				turn: 0,
			},
		]);
		expect(t.retrieved_context).toEqual([
			{ content: 'Orders ship within 2 business days.', doc_uri: 'kb/shipping.md' },
			{ content: 'DHL tracking is sent by email once an order ships.', doc_uri: 'kb/tracking.md' },
		]);
	});

	it('without the connections the answer cannot be placed (the sub-nodes say nothing)', () => {
		const { workflowData: _, ...bare } = exec;
		expect(parseTrace(bare).response).toBeUndefined();
	});
});

describe('a row whose trace cannot be read keeps its other fields', () => {
	it('an unknown format, text that is not JSON, a number: the reason is in metadata.trace_error', () => {
		const out = loadDataset([
			{ request: 'q1', response: 'a1', trace: { spansss: [] } },
			{ request: 'q2', trace: '<xml/>' },
			{ request: 'q3', trace: 42 },
		]);
		expect(out.invalid).toEqual([]);
		expect(out.records.map((r) => [r.request, r.metadata.trace_error])).toEqual([
			['q1', expect.stringMatching(/^unrecognised trace format \(keys: spansss\)/)],
			['q2', expect.stringMatching(/^not valid JSON/)],
			['q3', 'expected a trace object or a list of spans, got number'],
		]);
		expect(out.records[1].trace).toBe('<xml/>');
		expect(out.account.notes).toContain(
			'3 row(s) carry a trace that could not be read: they keep their other fields, the reason is in metadata.trace_error',
		);
	});
});
