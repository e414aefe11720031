import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalRecord, loadDataset, parseTrace, TraceError } from '../../../src/record';

const FIX = join(__dirname, '../../fixtures/traces');
const load = (name: string): unknown =>
	JSON.parse(readFileSync(join(FIX, name), 'utf8')) as unknown;

describe('parseTrace: MLflow 2', () => {
	const t = parseTrace(load('mlflow2-rag.json'));

	it('recognises the format and reads latency from info.execution_time_ms', () => {
		expect(t.format).toBe('mlflow2');
		expect(t.spans).toBe(6);
		expect(t.latency_seconds).toBe(2.14);
	});

	it('sums usage over LLM spans, nested ones included, in both attribute styles', () => {
		expect(t.total_input_token_count).toBe(120 + 640);
		expect(t.total_output_token_count).toBe(18 + 52);
		expect(t.total_token_count).toBe(138 + 692);
		expect(t.llm_calls.map((c) => c.name)).toEqual(['ChatOpenAI', 'generate']);
		expect(t.notes).toEqual([]);
	});

	it('takes the retrieved context from the last retriever span in time, with doc_uri', () => {
		expect(t.retrieved_context).toEqual([
			{
				doc_uri: 'https://docs.example.com/delta/cdf',
				content: 'To enable change data feed, set delta.enableChangeDataFeed = true.',
			},
			{
				doc_uri: 'https://docs.example.com/delta/cdf#how',
				content: 'Change data feed records row-level changes between versions.',
			},
		]);
	});

	it('reads request and response from data.request / data.response', () => {
		expect(t.request).toEqual({
			messages: [{ role: 'user', content: 'How do I enable Change Data Feed on a Delta table?' }],
		});
		expect(t.response).toMatchObject({ choices: [{ message: { role: 'assistant' } }] });
	});

	it('orders retrievers by time, not by their position in the span list', () => {
		const trace = load('mlflow2-rag.json') as { data: { spans: unknown[] } };
		trace.data.spans.reverse();
		expect(parseTrace(trace).retrieved_context?.[0].doc_uri).toBe(
			'https://docs.example.com/delta/cdf',
		);
	});
});

describe('parseTrace: MLflow 3', () => {
	const t = parseTrace(load('mlflow3-agent.json'));

	it('reads execution_duration, OTel-shaped span dicts and the span model', () => {
		expect(t.format).toBe('mlflow3');
		expect(t.latency_seconds).toBe(3.25);
		expect(t.total_input_token_count).toBe(310 + 905);
		expect(t.total_output_token_count).toBe(41 + 77);
		expect(t.total_token_count).toBe(351 + 982);
		expect(t.llm_calls.map((c) => c.model)).toEqual([
			'gpt-4o-mini-2024-07-18',
			'gpt-4o-mini-2024-07-18',
		]);
	});

	it('takes request, response and context from the root span and the retriever', () => {
		expect(t.request).toEqual({ question: 'Which regions does the premium plan cover?' });
		expect(t.response).toBe('The premium plan covers the EU and North America.');
		expect(t.retrieved_context).toEqual([
			{ doc_uri: 'kb://plans/premium', content: 'Premium covers EU and North America.' },
		]);
	});

	it('prefers the trace-level usage MLflow records in trace_metadata', () => {
		const trace = load('mlflow3-agent.json') as {
			info: { trace_metadata: Record<string, string> };
		};
		trace.info.trace_metadata['mlflow.trace.tokenUsage'] = JSON.stringify({
			input_tokens: 1,
			output_tokens: 2,
			total_tokens: 3,
		});
		const u = parseTrace(trace);
		expect([u.total_input_token_count, u.total_output_token_count, u.total_token_count]).toEqual([
			1, 2, 3,
		]);
	});
});

describe('parseTrace: OTLP JSON with the GenAI conventions', () => {
	const t = parseTrace(load('otlp-genai.json'));

	it('reads string nanosecond times and key/value attributes', () => {
		expect(t.format).toBe('otlp');
		expect(t.latency_seconds).toBeCloseTo(2.6, 6);
	});

	it('counts the chat spans once, not the agent span that repeats their total', () => {
		expect(t.total_input_token_count).toBe(412 + 634);
		expect(t.total_output_token_count).toBe(25 + 34);
		expect(t.total_token_count).toBe(412 + 634 + 25 + 34);
		expect(t.llm_calls.map((c) => c.model)).toEqual([
			'gpt-4.1-mini-2025-04-14',
			'gpt-4.1-mini-2025-04-14',
		]);
	});

	it('turns gen_ai.input/output.messages into chat messages', () => {
		expect(t.request).toEqual({
			messages: [
				{ role: 'system', content: 'You are a travel assistant.' },
				{ role: 'user', content: "What's the weather in Paris tomorrow?" },
			],
		});
		expect(t.response).toEqual({
			messages: [{ role: 'assistant', content: 'Tomorrow in Paris: 18°C and light rain.' }],
		});
	});
});

describe('parseTrace: OpenInference', () => {
	const t = parseTrace(load('openinference.json'));

	it('reads llm.token_count.* and the model name', () => {
		expect(t.total_input_token_count).toBe(356);
		expect(t.total_output_token_count).toBe(14);
		expect(t.total_token_count).toBe(370);
		expect(t.llm_calls).toEqual([
			{ name: 'llm', model: 'gpt-4o', input_tokens: 356, output_tokens: 14, total_tokens: 370 },
		]);
	});

	it('reads flattened retrieval.documents with their ids as doc_uri', () => {
		expect(t.retrieved_context).toEqual([
			{ doc_uri: 'policy.md#refunds', content: 'Refunds are accepted within 30 days of purchase.' },
			{ doc_uri: 'faq.md#returns', content: 'Returned items must be unused.' },
		]);
		expect(t.request).toBe('What is the refund window?');
		expect(t.response).toBe('You can request a refund within 30 days of purchase.');
	});

	it('reads a Phoenix-style span list with nested attributes and ISO times', () => {
		const spans = [
			{
				name: 'chain',
				context: { trace_id: 't', span_id: 'r' },
				parent_id: null,
				span_kind: 'CHAIN',
				start_time: '2024-05-01T10:00:00.000+00:00',
				end_time: '2024-05-01T10:00:01.500+00:00',
				attributes: { input: { value: 'hi' }, output: { value: 'hello' } },
			},
			{
				name: 'llm',
				context: { trace_id: 't', span_id: 'l' },
				parent_id: 'r',
				span_kind: 'LLM',
				start_time: '2024-05-01T10:00:00.100+00:00',
				end_time: '2024-05-01T10:00:01.400+00:00',
				attributes: { llm: { model_name: 'gpt-4o', token_count: { prompt: 9, completion: 3 } } },
			},
		];
		const p = parseTrace(spans);
		expect(p.format).toBe('spans');
		expect(p.latency_seconds).toBeCloseTo(1.5, 9);
		expect([p.total_input_token_count, p.total_output_token_count, p.total_token_count]).toEqual([
			9, 3, 12,
		]);
		expect(p.request).toBe('hi');
		expect(p.response).toBe('hello');
	});
});

describe('parseTrace: n8n execution data', () => {
	it('reads an AI Agent run: tokenUsage of each Chat Model call, chatInput, the agent output', () => {
		const t = parseTrace(load('n8n-agent-execution.json'));
		expect(t.format).toBe('n8n');
		expect(t.total_input_token_count).toBe(486 + 541);
		expect(t.total_output_token_count).toBe(22 + 19);
		expect(t.total_token_count).toBe(508 + 560);
		expect(t.llm_calls.map((c) => [c.name, c.model, c.estimated])).toEqual([
			['OpenAI Chat Model', 'gpt-4o-mini', undefined],
			['OpenAI Chat Model', 'gpt-4o-mini', undefined],
		]);
		// startedAt -> stoppedAt of the execution.
		expect(t.latency_seconds).toBeCloseTo(3.412, 9);
		expect(t.request).toBe('Is order 4417 shipped yet?');
		expect(t.response).toBe('Order 4417 shipped on 28 November via DHL, tracking JD0146.');
		expect(t.retrieved_context).toBeUndefined();
	});

	it('reads a Q&A chain: the estimate is flagged, the retriever gives the context', () => {
		const t = parseTrace(load('n8n-qa-chain.json'));
		expect(t.total_token_count).toBe(110);
		expect(t.llm_calls[0]).toMatchObject({ model: 'llama3.2:3b', estimated: true });
		expect(t.notes).toEqual([
			"1 LLM call(s) carry n8n's token estimate, not provider-reported usage",
		]);
		expect(t.request).toBe('When is phone support open?');
		expect(t.response).toBe('Phone support is open 8:00-18:00 CET on weekdays.');
		// No startedAt/stoppedAt: first node start to last node end.
		expect(t.latency_seconds).toBeCloseTo(2.405, 9);
		expect(t.retrieved_context).toEqual([
			{
				doc_uri: 'handbook/support.md',
				content: 'Our support line is open 8:00-18:00 CET on weekdays.',
			},
			{ doc_uri: 'handbook/support.md', content: 'Weekend support is email only.' },
		]);
	});

	it('rejects negative execution times and the stored (flatted) form with a clear error', () => {
		const exec = load('n8n-agent-execution.json') as {
			data: { resultData: { runData: Record<string, { executionTime: number }[]> } };
			startedAt: string;
			stoppedAt: string;
		};
		const skewed = structuredClone(exec);
		skewed.data.resultData.runData['AI Agent'][0].executionTime = -5;
		expect(() => parseTrace(skewed)).toThrow(
			/runData\["AI Agent"\]\[0\]: executionTime is negative/,
		);
		const backwards = structuredClone(exec);
		backwards.stoppedAt = '2024-11-30T09:46:39.000Z';
		expect(() => parseTrace(backwards)).toThrow(/stoppedAt is 1 s before startedAt/);
		expect(() => parseTrace([{ resultData: '1' }, { runData: '2' }])).toThrow(/flatted/);
	});
});

describe('parseTrace: extraction rules and bad traces', () => {
	const span = (
		id: string,
		parent: string | null,
		start: number,
		end: number,
		attributes: Record<string, unknown> = {},
	): Record<string, unknown> => ({
		name: id,
		context: { span_id: id },
		parent_id: parent,
		start_time: start,
		end_time: end,
		attributes,
	});
	const usage = (i: number, o: number): Record<string, string> => ({
		'mlflow.spanType': '"CHAT_MODEL"',
		'mlflow.chat.tokenUsage': JSON.stringify({ input_tokens: i, output_tokens: o }),
	});

	it('a trace without LLM spans has token counts of 0 and says so', () => {
		const t = parseTrace({ info: {}, data: { spans: [span('root', null, 0, 1e9)] } });
		expect([t.total_input_token_count, t.total_output_token_count, t.total_token_count]).toEqual([
			0, 0, 0,
		]);
		expect(t.notes).toEqual(['no LLM spans in the trace: token counts are 0']);
		expect(t.latency_seconds).toBe(1);
	});

	it('LLM spans without usage: counted ones are summed and the rest is named', () => {
		const t = parseTrace({
			info: {},
			data: {
				spans: [
					span('root', null, 0, 3e9),
					span('a', 'root', 1, 2, usage(10, 5)),
					span('b', 'root', 3, 4, { 'mlflow.spanType': '"LLM"' }),
				],
			},
		});
		expect(t.total_token_count).toBe(15);
		expect(t.notes).toEqual(['1 LLM span(s) report no token usage and are not counted']);
		const none = parseTrace({
			info: {},
			data: { spans: [span('b', null, 3, 4, { 'mlflow.spanType': '"LLM"' })] },
		});
		expect(none.total_token_count).toBeUndefined();
		expect(none.notes).toEqual(['1 LLM span(s) report no token usage: token counts are unknown']);
	});

	it('clock skew (a span ending before it starts) is an error naming the span', () => {
		const trace = {
			info: {},
			data: { spans: [span('root', null, 0, 3e9), span('late', 'root', 2e9, 1.5e9)] },
		};
		expect(() => parseTrace(trace)).toThrow(TraceError);
		expect(() => parseTrace(trace)).toThrow(
			'span "late" ends 0.500000 s before it starts (clock skew?); latency cannot be trusted',
		);
		expect(() => parseTrace({ info: { execution_time_ms: -20 }, data: { spans: [] } })).toThrow(
			/execution time is negative/,
		);
	});

	it('malformed traces give readable errors', () => {
		expect(() => parseTrace('{not json')).toThrow(/^not valid JSON/);
		expect(() => parseTrace(42)).toThrow('expected a trace object, got number');
		expect(() => parseTrace({ hello: 1 })).toThrow(/unrecognised trace format \(keys: hello\)/);
		expect(() => parseTrace({ info: {}, data: { spans: 'x' } })).toThrow(
			'data.spans: expected array, got string',
		);
		expect(() => parseTrace({ info: {}, data: { spans: [1] } })).toThrow(
			'data.spans[0]: expected object, got number',
		);
		expect(() => parseTrace({ resourceSpans: [{ scopeSpans: [{ spans: {} }] }] })).toThrow(
			'resourceSpans[0].scopeSpans[0].spans: expected array, got object',
		);
	});

	it('accepts the trace as JSON text', () => {
		const text = readFileSync(join(FIX, 'otlp-genai.json'), 'utf8');
		expect(parseTrace(text).total_token_count).toBe(1105);
	});

	it('100,000 spans in one flat trace and in one 100,000-deep chain never crash', () => {
		const n = 100_000;
		const flat: Record<string, unknown>[] = [span('root', null, 0, 10e9)];
		const deep: Record<string, unknown>[] = [span('s0', null, 0, 10e9)];
		for (let i = 1; i < n; i++) {
			flat.push(span(`s${i}`, 'root', i, i + 1, i % 2 === 0 ? usage(2, 1) : {}));
			// Each span nests in the previous one; only the innermost reports usage.
			deep.push(span(`s${i}`, `s${i - 1}`, i, 10e9 - i, i === n - 1 ? usage(7, 3) : {}));
		}
		const a = parseTrace({ info: {}, data: { spans: flat } });
		expect(a.spans).toBe(n);
		// Even i in 1..99,999 carry usage: 49,999 calls of 3 tokens.
		expect(a.total_token_count).toBe(49_999 * 3);
		const b = parseTrace({ info: {}, data: { spans: deep } });
		expect(b.total_token_count).toBe(10);
		expect(b.latency_seconds).toBe(10);
	});

	it('deeply nested user data in attributes (100,000 levels) is read without recursion', () => {
		let nested: Record<string, unknown> = {};
		const top = nested;
		for (let i = 0; i < 100_000; i++) {
			const next: Record<string, unknown> = {};
			nested.x = next;
			nested = next;
		}
		const deepText = '['.repeat(100_000) + ']'.repeat(100_000);
		const t = parseTrace({
			info: {},
			data: {
				spans: [
					span('root', null, 0, 1e9, { 'mlflow.spanOutputs': top, other: deepText }),
					span('r', 'root', 1, 2, {
						'mlflow.spanType': '"RETRIEVER"',
						'mlflow.spanOutputs': deepText,
					}),
				],
			},
		});
		expect(t.latency_seconds).toBe(1);
		expect(t.response).toBe(top);
		// A retriever output that is no document list gives no context rather than a crash.
		expect(t.retrieved_context).toEqual([]);
	});

	it('a cyclic parent chain (a broken export) does not loop forever', () => {
		const t = parseTrace({
			info: { execution_time_ms: 5 },
			data: { spans: [span('a', 'b', 0, 1, usage(1, 1)), span('b', 'a', 0, 1, usage(2, 2))] },
		});
		expect(t.latency_seconds).toBe(0.005);
		expect(t.spans).toBe(2);
	});
});

describe('loadDataset fills the record from the trace', () => {
	const trace = load('mlflow2-rag.json');

	it('fills missing response, context and figures; the record stays valid', () => {
		const out = loadDataset([{ request: 'How do I enable CDF?', trace }]);
		expect(out.invalid).toEqual([]);
		const [r] = out.records;
		expect(EvalRecord.safeParse(r).success).toBe(true);
		expect(r.response).toMatch(/^Set the table property delta.enableChangeDataFeed/);
		expect(r.retrieved_context?.map((c) => c.doc_uri)).toEqual([
			'https://docs.example.com/delta/cdf',
			'https://docs.example.com/delta/cdf#how',
		]);
		expect([r.total_input_token_count, r.total_output_token_count, r.total_token_count]).toEqual([
			760, 70, 830,
		]);
		expect(r.latency_seconds).toBe(2.14);
	});

	it('takes the request from the trace when the row has none', () => {
		const [r] = loadDataset([{ trace }]).records;
		expect(r.request).toBe('How do I enable Change Data Feed on a Delta table?');
	});

	it('never overwrites given fields and notes where the trace disagrees', () => {
		const out = loadDataset([
			{
				request: 'How do I enable CDF?',
				response: 'Use ALTER TABLE.',
				retrieved_context: [{ doc_uri: 'mine', content: 'x' }],
				latency_seconds: 9,
				total_input_token_count: 760,
				metadata: { team: 'lakehouse' },
			},
		]);
		expect(out.records[0].metadata).toEqual({ team: 'lakehouse' });
		const row = {
			request: 'How do I enable CDF?',
			response: 'Use ALTER TABLE.',
			retrieved_context: [{ doc_uri: 'mine', content: 'x' }],
			latency_seconds: 9,
			total_input_token_count: 760,
			metadata: { team: 'lakehouse' },
			trace,
		};
		const [r] = loadDataset([row]).records;
		expect(r.response).toBe('Use ALTER TABLE.');
		expect(r.retrieved_context).toEqual([{ doc_uri: 'mine', content: 'x' }]);
		expect(r.latency_seconds).toBe(9);
		expect(r.total_output_token_count).toBe(70);
		expect(r.metadata).toEqual({
			team: 'lakehouse',
			trace_notes: [
				"latency_seconds: the row gives 9, the trace 2.14; kept the row's",
				"response: differs from the trace's final output; kept the row's",
				"request: differs from the trace's input; kept the row's",
				"retrieved_context: differs from the trace's last retriever span; kept the row's",
			],
		});
		// The user's own metadata object is not modified.
		expect(row.metadata).toEqual({ team: 'lakehouse' });
	});

	it('accepts both spellings of the token counts', () => {
		const out = loadDataset([
			{ request: 'q', response: 'a', input_token_count: 3, output_token_count: 4 },
			{ request: 'q', response: 'a', total_input_token_count: 5, total_output_token_count: 6 },
		]);
		expect(out.records.map((r) => [r.total_input_token_count, r.total_output_token_count])).toEqual(
			[
				[3, 4],
				[5, 6],
			],
		);
	});

	it('a malformed or skewed trace keeps its row, with the reason in metadata.trace_error', () => {
		const skewed = {
			info: {},
			data: {
				spans: [{ name: 'root', parent_id: null, start_time: 5, end_time: 1 }],
			},
		};
		const out = loadDataset([
			{ request: 'q', response: 'a', trace: { nope: true } },
			{ request: 'q', response: 'a', trace: skewed },
			{ request: 'q', response: 'a' },
		]);
		expect(out.invalid).toEqual([]);
		expect(out.records).toHaveLength(3);
		expect(out.records.map((r) => r.metadata.trace_error)).toEqual([
			expect.stringMatching(/^unrecognised trace format/),
			expect.stringMatching(/^span "root" ends .* before it starts \(clock skew\?\)/),
			undefined,
		]);
		expect(out.records[0]).toMatchObject({ request: 'q', response: 'a', trace: { nope: true } });
		expect(out.records[1].latency_seconds).toBeUndefined();
		expect(out.account.notes).toContain(
			'2 row(s) carry a trace that could not be read: they keep their other fields, the reason is in metadata.trace_error',
		);
	});

	it('a trace without LLM spans gives zero counts and the note on the row', () => {
		const [r] = loadDataset([
			{
				request: 'q',
				response: 'a',
				trace: { info: { execution_time_ms: 10 }, data: { spans: [] } },
			},
		]).records;
		expect(r.total_token_count).toBe(0);
		expect(r.metadata.trace_notes).toEqual(['no LLM spans in the trace: token counts are 0']);
	});
});
