import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalRecord, loadDataset, type LoadResult } from '../../../src/record';

const FIX = join(__dirname, '../../fixtures/datasets');
const fixture = (name: string): Buffer => readFileSync(join(FIX, name));

/** Every record a load returns must satisfy the exported zod schema. */
function valid(res: LoadResult): LoadResult {
	for (const r of res.records) expect(EvalRecord.safeParse(r).success).toBe(true);
	return res;
}

describe('Azure query/response (seed 000)', () => {
	const res = valid(loadDataset(fixture('azure-query-response.jsonl')));

	it('detects the schema and maps query/context/response/ground_truth', () => {
		expect(res.schema).toBe('azure');
		expect(res.format).toBe('jsonl');
		const [seed] = res.records;
		expect(seed.request).toBe('Which tent is the most waterproof?');
		expect(seed.response).toBe('The Alpine Explorer Tent is the most waterproof.');
		expect(seed.expected_response).toMatch(/^The Alpine Explorer Tent has the highest rainfly/);
		expect(seed.retrieved_context).toEqual([
			{
				content:
					'From our product list, the Alpine Explorer tent is the most waterproof. The Adventure Dining Table has higher weight.',
			},
		]);
	});

	it('treats context and ground truth as optional and keeps unknown fields in metadata', () => {
		expect(res.records[1].retrieved_context).toBeUndefined();
		expect(res.records[1].expected_response).toBeUndefined();
		expect(res.records[2].metadata).toEqual({ category: 'warranty' });
	});
});

describe('Azure conversation (seed 000)', () => {
	const res = valid(loadDataset(fixture('azure-conversation.jsonl')));

	it('reads the seed row: request, response, citations as retrieved context', () => {
		const [seed] = res.records;
		expect(seed.request).toBe('How can I check the status of my online order?');
		expect(seed.response).toMatch(/^Hi Sarah Lee!/);
		expect(seed.retrieved_context).toHaveLength(1);
		expect(seed.retrieved_context?.[0].doc_uri).toBe('cHJvZHVjdF9pbmZvXzYubWQz');
		expect(seed.retrieved_context?.[0].content).toMatch(
			/^# Information about product item_number: 6/,
		);
	});

	it('uses the last user and last assistant turns, keeps earlier turns with their citations', () => {
		const multi = res.records[1];
		expect(multi.request).toBe('What temperature is it rated to?');
		expect(multi.response).toBe('It is rated to -5C.');
		expect(multi.retrieved_context?.map((c) => c.doc_uri)).toEqual(['doc-cozynights', 'doc-care']);
		// Seed 000's citations are {id, title, content}: the title stays on the chunk.
		expect(multi.retrieved_context?.[0].title).toBe('CozyNights Sleeping Bag');
		// History is what came before the request: the judged reply is not repeated in it.
		expect(multi.history?.map((m) => m.role)).toEqual(['user', 'assistant']);
		expect(multi.history?.[1]).toEqual({
			role: 'assistant',
			content: 'Yes, we sell the CozyNights Sleeping Bag.',
			context: [
				{
					doc_uri: 'doc-cozynights',
					content: 'The CozyNights Sleeping Bag is rated to -5C and weighs 1.2kg.',
					title: 'CozyNights Sleeping Bag',
				},
			],
		});
		const raw = multi.request_raw as {
			messages: { context?: { citations: { title: string }[] } }[];
		};
		expect(raw.messages[1].context?.citations[0].title).toBe('CozyNights Sleeping Bag');
		expect(multi.metadata).toEqual({ conversation_id: 'c-42' });
	});

	it('loads a conversation that ends on the user turn without a response (a golden set)', () => {
		const out = loadDataset(
			[
				{
					messages: [
						{ role: 'assistant', content: 'Hi' },
						{ role: 'user', content: 'Q?' },
					],
				},
				{ messages: [{ role: 'assistant', content: 'Hi' }] },
			],
			{ schema: 'azure' },
		);
		expect(out.records).toHaveLength(1);
		expect(out.records[0].request).toBe('Q?');
		expect(out.records[0].response).toBeUndefined();
		expect(out.records[0].history).toEqual([{ role: 'assistant', content: 'Hi' }]);
		expect(out.records[0].source.present).toEqual({ request: true, response: false });
		expect(out.invalid[0].error).toBe('row 2: messages: has no user turn');
	});
});

describe('Databricks (seed 002)', () => {
	const res = valid(loadDataset(fixture('databricks.json')));
	const [plain, chat, split, arbitrary, full] = res.records;

	it('reads all four request shapes of the seed', () => {
		expect(res.schema).toBe('databricks');
		expect(plain.request).toBe(
			'What is the difference between reduceByKey and groupByKey in Spark?',
		);
		expect(plain.request_raw).toBeUndefined();
		expect(chat.request).toBe('How can you minimize data shuffling in Spark?');
		expect(chat.request_raw).toEqual({
			messages: [{ role: 'user', content: 'How can you minimize data shuffling in Spark?' }],
		});
		expect(split.request).toBe(
			'Explain broadcast variables in Spark. How do they enhance performance?',
		);
		expect(split.history).toHaveLength(2);
		expect(split.history?.[1].role).toBe('assistant');
		const rawArbitrary = JSON.parse(readFileSync(join(FIX, 'databricks.json'), 'utf8'))[3].request;
		expect(arbitrary.request_raw).toEqual(rawArbitrary);
		expect(JSON.parse(arbitrary.request ?? '')).toEqual(rawArbitrary);
	});

	it('reads the choices response format and keeps the original', () => {
		expect(chat.response).toBe('Use reduceByKey and broadcast joins.');
		expect((chat.response_raw as { choices: unknown[] }).choices).toHaveLength(1);
	});

	it('keeps named guidelines, facts, contexts and the given request_id', () => {
		expect(plain.guidelines).toEqual({
			english: ['The response must be in English'],
			clarity: ['The response must be clear, coherent, and concise'],
		});
		expect(full.request_id).toBe('q-5');
		expect(full.expected_facts).toEqual(['open-source', 'machine learning lifecycle']);
		expect(full.guidelines).toEqual(['The response must mention that MLflow is open source']);
		expect(full.retrieved_context?.map((c) => c.doc_uri)).toEqual([
			'docs/mlflow/overview.md',
			'docs/mlflow/tracking.md',
		]);
		expect(full.expected_retrieved_context).toEqual([{ doc_uri: 'docs/mlflow/overview.md' }]);
		expect(full.metadata).toEqual({ team: 'platform' });
	});

	it('reads retrieved chunks with only doc_uri (content is optional in seed 002)', () => {
		const out = valid(
			loadDataset([
				{
					request: 'q',
					response: 'a',
					retrieved_context: [
						{ doc_uri: 'docs/a.md' },
						{ doc_uri: 'docs/b.md', content: 'B text' },
						{ content: 'text only' },
					],
					expected_retrieved_context: [{ doc_uri: 'docs/b.md' }],
				},
			]),
		);
		expect(out.invalid).toEqual([]);
		expect(out.records[0].retrieved_context).toEqual([
			{ doc_uri: 'docs/a.md' },
			{ doc_uri: 'docs/b.md', content: 'B text' },
			{ content: 'text only' },
		]);
		expect(out.records[0].expected_retrieved_context).toEqual([{ doc_uri: 'docs/b.md' }]);
		// The same row as CSV, with the chunk list as a JSON cell.
		const csv = loadDataset(
			'request,response,retrieved_context\nq,a,"[{""doc_uri"": ""docs/a.md""}]"\n',
		);
		expect(csv.records[0].retrieved_context).toEqual([{ doc_uri: 'docs/a.md' }]);
	});

	it('keeps OpenAI tool calls structured, pairing results by call id', () => {
		const out = valid(
			loadDataset(
				[
					{
						messages: [
							{ role: 'user', content: 'Weather in Oslo?' },
							{
								role: 'assistant',
								content: null,
								tool_calls: [
									{
										id: 'c1',
										type: 'function',
										function: { name: 'weather', arguments: '{"city": "Oslo"}' },
									},
								],
							},
							{ role: 'tool', tool_call_id: 'c1', content: '{"temp": -3}' },
							{ role: 'assistant', content: 'It is -3 C in Oslo.' },
						],
						tool_definitions: [{ name: 'weather', parameters: { type: 'object' } }],
					},
					{ query: 'q', response: 'a', tool_definitions: [{ description: 'no name' }] },
				],
				{ schema: 'azure' },
			),
		);
		const [rec] = out.records;
		expect(rec.response).toBe('It is -3 C in Oslo.');
		expect(rec.tool_calls).toEqual([
			{
				id: 'c1',
				name: 'weather',
				arguments: { city: 'Oslo' },
				result: '{"temp": -3}',
				position: 0,
				turn: 0,
			},
		]);
		expect(rec.tool_definitions).toEqual([{ name: 'weather', parameters: { type: 'object' } }]);
		expect(out.invalid[0].error).toBe(
			'row 2: tool_definitions[0].name: expected string, got undefined',
		);
	});

	it('reads a chat-agent {messages} response and an arbitrary dict response', () => {
		const out = valid(
			loadDataset([
				{
					request: 'q',
					response: {
						messages: [
							{ role: 'assistant', content: 'a1' },
							{ role: 'assistant', content: 'a2' },
						],
					},
				},
				{ request: 'q', response: { answer: 'x', score: 1 } },
			]),
		);
		expect(out.records[0].response).toBe('a2');
		expect(JSON.parse(out.records[1].response ?? '')).toEqual({ answer: 'x', score: 1 });
		expect(out.records[1].response_raw).toEqual({ answer: 'x', score: 1 });
	});
});

describe('Databricks with MLflow traces', () => {
	const res = valid(loadDataset(fixture('databricks-trace.jsonl')));
	const [v2, v3] = res.records;

	it('takes the response from the trace when the row has none', () => {
		expect(v2.response).toBe(
			'Delta Lake is an open-source storage layer that brings ACID transactions to data lakes.',
		);
		expect(v3.response).toBe('Unity Catalog governs data and AI assets.');
	});

	it('extracts latency and token counts, summing per-span usage of both attribute styles', () => {
		expect(v2.latency_seconds).toBeCloseTo(1.83, 12);
		expect(v2.total_input_token_count).toBe(812 + 950);
		expect(v2.total_output_token_count).toBe(64 + 120);
		expect(v2.total_token_count).toBe(876 + 1070);
	});

	it('prefers MLflow 3 trace-level usage, and an explicit column over the trace', () => {
		expect(v3.total_token_count).toBe(120);
		expect(v3.total_input_token_count).toBe(100);
		expect(v3.latency_seconds).toBe(3.1);
		// The trace was a JSON string in the file; the record keeps it parsed, whole.
		expect((v3.trace as { info: { trace_id: string } }).info.trace_id).toBe('tr-2');
	});

	it('accepts the four figures as plain columns and rejects bad ones', () => {
		const out = loadDataset([
			{ request: 'q', response: 'a', latency_seconds: '0.25', total_token_count: 12 },
			{ request: 'q', response: 'a', input_token_count: 1.5 },
			{ request: 'q', response: 'a', output_token_count: 'many' },
		]);
		expect(out.records[0].latency_seconds).toBe(0.25);
		expect(out.records[0].total_token_count).toBe(12);
		expect(out.invalid.map((i) => i.error)).toEqual([
			'row 2: input_token_count: expected an integer, got 1.5',
			'row 3: output_token_count: expected number, got string',
		]);
	});

	it('uses the root span duration when the trace info has no execution time', () => {
		const trace = {
			info: {},
			data: {
				spans: [
					{ name: 'root', parent_id: null, start_time: 1_000_000_000, end_time: 3_500_000_000 },
				],
			},
		};
		const out = loadDataset([{ request: 'q', trace }]);
		expect(out.records[0].latency_seconds).toBe(2.5);
		expect(out.records[0].response).toBeUndefined();
	});
});

describe('Spring AI (seed 003)', () => {
	const res = valid(loadDataset(fixture('spring-ai.json')));

	it('unwraps {data: [...]}, maps userText/dataList/responseContent', () => {
		expect(res.schema).toBe('spring-ai');
		expect(res.wrapper).toEqual({ name: 'carina-regression', version: 3 });
		const [docs, strings] = res.records;
		expect(docs.request).toBe('What is the purpose of Carina?');
		expect(docs.retrieved_context).toEqual([
			{
				doc_uri: 'carina-1',
				content: 'Carina is a Java-based test automation framework that unites all testing layers.',
			},
			{ doc_uri: 'carina-2', content: 'It supports mobile, web, REST and database testing.' },
		]);
		expect(strings.retrieved_context).toEqual([
			{ content: 'Carina is distributed under the Apache 2.0 license.' },
		]);
		expect(strings.response).toBe('Yes, it is open source under Apache 2.0.');
	});

	it('keeps the original dataList in metadata when documents carry more than id and text', () => {
		const [docs, strings] = res.records;
		expect((docs.metadata.dataList as { metadata: { page: number } }[])[1].metadata.page).toBe(2);
		expect(strings.metadata).toEqual({});
	});

	it('accepts the older {content} document form', () => {
		const out = loadDataset([
			{ userText: 'q', dataList: [{ content: 'c' }], responseContent: 'a' },
		]);
		expect(out.records[0].retrieved_context).toEqual([{ content: 'c' }]);
	});
});

describe('Ragas', () => {
	const res = valid(loadDataset(fixture('ragas.jsonl')));
	const [withIds, plain, multi] = res.records;

	it('pairs contexts with their ids and maps reference contexts to expected context', () => {
		expect(res.schema).toBe('ragas');
		expect(withIds.retrieved_context).toEqual([
			{
				doc_uri: 'sb-1',
				content:
					'The First AFL-NFL World Championship Game was played on January 15, 1967, at the Los Angeles Memorial Coliseum.',
			},
		]);
		expect(withIds.expected_retrieved_context?.[0].doc_uri).toBe('sb-1');
		expect(withIds.expected_response).toBe('The first Super Bowl was held on January 15, 1967.');
		expect(plain.retrieved_context).toHaveLength(2);
		expect(plain.metadata).toEqual({ rubrics: { score1: 'wrong', score5: 'correct' } });
	});

	it('reads a multi-turn sample (user_input as human/ai messages)', () => {
		expect(multi.request).toBe('Friday at 8pm.');
		expect(multi.response).toBe('Your table for two is booked for Friday at 8pm.');
		expect(multi.history).toEqual([
			{ role: 'user', content: 'I need to book a table for two.' },
			{ role: 'assistant', content: 'For which date and time?' },
		]);
	});

	it('reads the legacy question/answer/contexts/ground_truth names', () => {
		const legacy = valid(loadDataset(fixture('ragas-legacy.json')));
		expect(legacy.schema).toBe('ragas');
		expect(legacy.records[0]).toMatchObject({
			request: 'Where is the Eiffel Tower?',
			response: 'It is in Paris.',
			expected_response: 'The Eiffel Tower is in Paris.',
			retrieved_context: [
				{ content: 'The Eiffel Tower is a wrought-iron lattice tower in Paris, France.' },
			],
		});
	});

	it('rejects ids that do not pair with contexts, and keeps id-only retrieval in metadata', () => {
		const out = loadDataset(
			[
				{
					user_input: 'q',
					response: 'a',
					retrieved_contexts: ['x', 'y'],
					retrieved_context_ids: ['1'],
				},
				{
					user_input: 'q',
					response: 'a',
					retrieved_context_ids: [1, 2],
					reference_context_ids: ['2'],
				},
			],
			{ schema: 'ragas' },
		);
		expect(out.invalid[0].error).toBe(
			'row 1: retrieved_context_ids: has 1 ids for 2 retrieved_contexts',
		);
		expect(out.records[0].retrieved_context).toBeUndefined();
		expect(out.records[0].metadata).toEqual({ retrieved_context_ids: [1, 2] });
		expect(out.records[0].expected_retrieved_context).toEqual([{ doc_uri: '2' }]);
	});
});

describe('DeepEval', () => {
	const res = valid(loadDataset(fixture('deepeval.json')));
	const [single, conv] = res.records;

	it('maps input/actual_output/expected_output/retrieval_context/context', () => {
		expect(res.schema).toBe('deepeval');
		expect(single.request).toBe("What if these shoes don't fit?");
		expect(single.response).toBe('We offer a 30-day full refund at no extra cost.');
		expect(single.expected_response).toBe(
			'You are eligible for a 30 day full refund at no extra cost.',
		);
		expect(single.retrieved_context).toEqual([
			{ content: 'All customers are eligible for a 30 day full refund at no extra cost.' },
		]);
		// Ground-truth context has no document ids: it is kept as text-only expected context.
		expect(single.expected_retrieved_context).toEqual([
			{ content: 'Refunds: 30 days, full amount, no extra cost.' },
		]);
		expect(single.metadata).toEqual({ name: 'refund-1', additional_metadata: { channel: 'chat' } });
	});

	it('reads a conversational test case, taking contexts from the answering turn', () => {
		expect(conv.request).toBe('It is 1234.');
		expect(conv.response).toBe('Order 1234 ships tomorrow.');
		expect(conv.history).toHaveLength(2);
		expect(conv.retrieved_context).toEqual([
			{ content: 'Order 1234: status delayed, ships 2025-01-02.' },
		]);
		expect(conv.metadata).toEqual({ scenario: 'late order' });
	});
});

describe('CSV', () => {
	const res = valid(loadDataset(fixture('databricks.csv')));

	it('handles the BOM, CRLF, quoted commas, doubled quotes and quoted newlines', () => {
		expect(res.format).toBe('csv');
		expect(res.records.map((r) => r.request_id)).toEqual(['csv-1', 'csv-2', 'csv-3']);
		expect(res.records[0].request).toBe('What does "RAG" stand for?');
		expect(res.records[0].response).toBe(
			'Retrieval-augmented generation, a way to ground answers in documents.',
		);
		expect(res.records[1].response).toBe('collect\ncount');
	});

	it('parses JSON cells, numbers, and treats empty cells as absent', () => {
		const [first, second, third] = res.records;
		expect(first.expected_facts).toEqual(['retrieval', 'generation']);
		expect(first.retrieved_context).toEqual([
			{ doc_uri: 'wiki/rag', content: 'RAG: retrieval, then generation.' },
		]);
		expect(first.latency_seconds).toBe(0.8);
		expect(first.expected_response).toBeUndefined();
		expect(second.expected_facts).toBeUndefined();
		expect(third.request).toBe('Hello, who are you?');
		expect(third.history).toEqual([{ role: 'system', content: 'Be brief.' }]);
	});

	it('keeps prose that merely starts with a bracket as text', () => {
		const out = loadDataset('request,response\n[draft] what is x?,{see docs}\n');
		expect(out.records[0].request).toBe('[draft] what is x?');
		expect(out.records[0].response).toBe('{see docs}');
	});

	it('splits list cells on the List Delimiter in any CSV; JSON cells stay JSON', () => {
		const text =
			'request,response,expected_facts,retrieved_context\n' +
			'q1,a1,fact one; fact two,"[{""doc_uri"": ""d1""}]"\n' +
			'q2,a2,"[""a;b""]",doc text\n';
		const out = valid(loadDataset(text, { listDelimiter: ';' }));
		expect(out.records[0].expected_facts).toEqual(['fact one', 'fact two']);
		expect(out.records[0].retrieved_context).toEqual([{ doc_uri: 'd1' }]);
		expect(out.records[1].expected_facts).toEqual(['a;b']);
		expect(out.records[1].retrieved_context).toEqual([{ content: 'doc text' }]);
		// Without the option a Databricks CSV splits nothing, and a list cell of text is an error.
		expect(loadDataset(text).invalid[0].error).toBe(
			'row 1: expected_facts: expected array of strings, got string',
		);
	});

	it('splits DeepEval list cells on | by default; another delimiter can be given', () => {
		const csv = 'input,actual_output,retrieval_context\nq,a,one | two\n';
		expect(loadDataset(csv).records[0].retrieved_context).toEqual([
			{ content: 'one' },
			{ content: 'two' },
		]);
		const semi = 'input,actual_output,retrieval_context\nq,a,one|x;two\n';
		expect(loadDataset(semi, { listDelimiter: ';' }).records[0].retrieved_context).toEqual([
			{ content: 'one|x' },
			{ content: 'two' },
		]);
		// Azure `context` is one document, never a list: it is not split.
		expect(
			loadDataset('query,response,context\nq,a,x;y\n', { listDelimiter: ';' }).records[0]
				.retrieved_context,
		).toEqual([{ content: 'x;y' }]);
	});

	it('reads tab- and semicolon-separated files', () => {
		expect(loadDataset('query\tresponse\nq1\ta1\n').records[0]).toMatchObject({
			request: 'q1',
			response: 'a1',
		});
		expect(loadDataset('query;response\nq1;a1\n').records[0]).toMatchObject({
			request: 'q1',
			response: 'a1',
		});
	});
});

describe('JSON containers and items', () => {
	it('reads a single-object JSON file as one row', () => {
		const out = loadDataset('{"request": "q", "response": "a"}', { format: 'json' });
		expect(out.format).toBe('json');
		expect(out.records).toHaveLength(1);
		expect(out.records[0].source.row).toBe(1);
	});

	it('reads already-parsed rows as format items', () => {
		const out = loadDataset([{ query: 'q', response: 'a' }]);
		expect(out.format).toBe('items');
		expect(out.records[0].source).toMatchObject({ format: 'items', schema: 'azure', row: 1 });
	});

	it('honours an explicit schema over detection', () => {
		const out = loadDataset([{ request: 'q', response: 'a', input: 'x', actual_output: 'y' }], {
			schema: 'databricks',
		});
		expect(out.schema).toBe('databricks');
		expect(out.records[0].metadata).toEqual({ input: 'x', actual_output: 'y' });
	});
});
