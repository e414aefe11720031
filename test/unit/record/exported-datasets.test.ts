/**
 * Files of test/fixtures/datasets-exports: LangSmith dataset exports (its CSV with `inputs.*` /
 * `outputs.*` / `metadata.*` columns, its JSON Lines, the SDK's `list_examples` JSON) and TruLens's
 * records-and-feedback table, written from the tools' own source (SOURCES.md), loaded field by
 * field as a new user would load them, with every column named in the account.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeAccount, EvalRecord, loadDataset } from '../../../src/record';

const DIR = join(__dirname, '../../fixtures/datasets-exports');
const load = (name: string) =>
	loadDataset(readFileSync(join(DIR, name)), { format: 'auto', schema: 'auto' });
const column = (res: ReturnType<typeof load>, name: string) =>
	res.account.columns.find((c) => c.column === name);

describe('LangSmith dataset exports', () => {
	it('the CSV download: dotted columns read as the nested example they spell out', () => {
		const res = load('langsmith-dataset-export.csv');
		expect(res).toMatchObject({ format: 'csv', schema: 'langsmith', invalid: [] });
		const [first, second] = res.records;
		expect(first).toMatchObject({
			request_id: '0f2c6b1e-6d1a-4a8e-9f4b-2a6e8e0c1a01',
			request: 'What does LangSmith trace?',
			retrieved_context: [
				{ content: 'LangSmith records every run of a chain, tool and model call.' },
			],
			expected_response: 'Runs of chains, tools and model calls.',
			metadata: {
				difficulty: 'easy',
				dataset_split: 'base',
				created_at: '2024-06-01T10:00:00.000000',
			},
		});
		expect(first.response).toBeUndefined();
		// An empty cell is absent: the second example has no context.
		expect(second).toMatchObject({
			request_id: '0f2c6b1e-6d1a-4a8e-9f4b-2a6e8e0c1a02',
			request: 'How do I add an example to a dataset?',
			expected_response: 'Call create_example with the dataset id.',
			metadata: { difficulty: 'medium', dataset_split: 'test' },
		});
		expect(second.retrieved_context).toBeUndefined();
		expect(column(res, 'inputs.question')?.to).toEqual(['request']);
		expect(column(res, 'inputs.context')?.to).toEqual(['retrieved_context']);
		expect(column(res, 'outputs.answer')?.to).toEqual(['expected_response']);
		expect(column(res, 'example_id')?.to).toEqual(['request_id']);
		// Unmapped columns are named: the metadata object and the creation time.
		expect(describeAccount(res.account)).toContain(
			'metadata: metadata (2 rows); created_at (2 rows)',
		);
		for (const r of res.records) expect(EvalRecord.safeParse(r).success).toBe(true);
	});

	it('the JSON Lines download: history from inputs.chat_history, splits in metadata', () => {
		const res = load('langsmith-dataset-export.jsonl');
		expect(res).toMatchObject({ format: 'jsonl', schema: 'langsmith', invalid: [] });
		expect(res.records[1]).toMatchObject({
			request_id: '0f2c6b1e-6d1a-4a8e-9f4b-2a6e8e0c1a02',
			request: 'How do I add an example to a dataset?',
			history: [
				{ role: 'user', content: 'hi' },
				{ role: 'assistant', content: 'Hello.' },
			],
			expected_response: 'Call create_example with the dataset id.',
			metadata: { difficulty: 'medium', dataset_split: ['test'] },
		});
		expect(column(res, 'inputs.chat_history')?.to).toEqual(['history']);
		expect(describeAccount(res.account)).toContain('metadata: metadata (2 rows)');
	});

	it("the SDK's list_examples JSON: ids, dataset ids, run links and times kept by name", () => {
		const res = load('langsmith-list-examples.json');
		expect(res).toMatchObject({ format: 'json', schema: 'langsmith', invalid: [] });
		const [paris, hamlet] = res.records;
		expect(paris).toMatchObject({
			request_id: 'b3f6a2c4-1e5d-4c0b-9a8e-7d6f5e4c3b21',
			request: 'What is the capital of France?',
			expected_response: 'Paris',
			metadata: {
				source: 'manual',
				dataset_split: ['base'],
				dataset_id: '6a1d9e0b-3c2f-4f1e-8a77-51b0c2d4e9f0',
				created_at: '2024-06-01T10:00:00.000000+00:00',
			},
		});
		expect(hamlet).toMatchObject({
			request: 'Who wrote Hamlet?',
			retrieved_context: [{ content: 'Hamlet is a tragedy by William Shakespeare.' }],
			expected_response: 'William Shakespeare',
			metadata: { source_run_id: 'c1d2e3f4-0000-4000-8000-000000000001', modified_at: null },
		});
		expect(describeAccount(res.account)).toContain(
			'metadata: metadata (2 rows); dataset_id (2 rows); created_at (2 rows); modified_at (2 rows); source_run_id (2 rows); attachments (2 rows)',
		);
	});
});

describe('TruLens records and feedback', () => {
	it.each(['trulens-records-and-feedback.csv', 'trulens-records-and-feedback.jsonl'])(
		'%s: the app call, its context, latency and tokens; feedback kept in metadata',
		(name) => {
			const res = load(name);
			expect(res.schema).toBe('trulens');
			expect(res.invalid).toEqual([]);
			expect(res.records).toHaveLength(2);
			const [first, second] = res.records;
			expect(first).toMatchObject({
				request_id: 'record_hash_8f1e2d3c4b5a69788796a5b4c3d2e1f0',
				request: 'What is TruLens?',
				// The app's own output is the response, not a reference.
				response: 'TruLens is a library for evaluating and tracking LLM apps.',
				// One chunk per Context Relevance call, in call order.
				retrieved_context: [
					{
						content:
							'TruLens is open-source software for evaluating and tracking LLM applications.',
					},
					{ content: 'TruLens records each call of an app as a record.' },
				],
				latency_seconds: 1.25,
				total_input_token_count: 180,
				total_output_token_count: 32,
				total_token_count: 212,
			});
			expect(first.expected_response).toBeUndefined();
			// TruLens's judge scores, calls and costs stay, as numbers and objects, under their names.
			expect(first.metadata).toMatchObject({
				'Answer Relevance': 0.9,
				'Context Relevance': 1,
				Groundedness: 0.8,
				'Groundedness feedback cost in USD': 0.000055,
				app_name: 'RAG',
				app_version: 'base',
				cost_currency: 'USD',
			});
			expect(second.metadata['Context Relevance']).toBe(0.5);
			// The stored record, a Python literal in the CSV, is an object in both files.
			expect(second.metadata.record_json).toMatchObject({
				record_id: 'record_hash_0a9b8c7d6e5f40312a3b4c5d6e7f8091',
				main_input: 'Which feedback functions does the RAG triad use?',
				meta: null,
				perf: { end_time: '2024-07-01T12:00:02.800000' },
			});
			expect(column(res, 'record_json')?.note).toBe(
				'the app call as TruLens recorded it (calls, cost, perf), kept in metadata.record_json',
			);
			const calls = second.metadata['Groundedness_calls'] as { args: unknown; ret: number }[];
			expect(calls).toHaveLength(1);
			expect(calls[0]).toMatchObject({
				args: {
					source: ['The RAG triad is context relevance, groundedness and answer relevance.'],
					statement: 'Context relevance, groundedness and answer relevance.',
				},
				ret: 1,
			});
			expect(second.metadata['Answer Relevance_calls']).toEqual([
				expect.objectContaining({ ret: 1 }),
			]);
			expect(second.latency_seconds).toBe(0.8);
			// The account says where each feedback column went.
			expect(column(res, 'Answer Relevance')).toMatchObject({
				to: ['metadata'],
				note: 'TruLens feedback score as TruLens computed it, kept in metadata["Answer Relevance"]',
			});
			expect(column(res, 'Context Relevance_calls')?.to).toEqual(['retrieved_context', 'metadata']);
			expect(column(res, 'Groundedness_calls')?.note).toBe(
				'the calls of TruLens feedback "Groundedness" (args, ret, meta), kept in metadata["Groundedness_calls"]',
			);
			expect(column(res, 'cost_json')?.to).toEqual([
				'total_input_token_count',
				'total_output_token_count',
				'metadata',
			]);
			// Every column of the file is in the account.
			const header = readFileSync(join(DIR, 'trulens-records-and-feedback.csv'), 'utf8')
				.split('\n')[0]
				.split(',');
			expect(header).toHaveLength(26);
			expect(res.account.columns.map((c) => c.column).sort()).toEqual([...header].sort());
			for (const r of res.records) expect(EvalRecord.safeParse(r).success).toBe(true);
		},
	);

	it("a TruLens Record on its own (TruLens's own golden file): main_input, main_output, perf, cost", () => {
		const res = load('trulens-customapp-record.json');
		expect(res).toMatchObject({ format: 'json', schema: 'trulens', invalid: [] });
		expect(res.records).toHaveLength(1);
		const [rec] = res.records;
		expect(rec).toMatchObject({
			request_id: 'record_hash_ed06148a6a9e5153a97be3dac551aca4',
			request: 'hello',
			// perf: 13:28:16.700848 to 13:28:17.693140.
			latency_seconds: 0.992292,
			total_input_token_count: 78,
			total_output_token_count: 76,
			total_token_count: 154,
		});
		expect(rec.response).toMatch(/^\nFirst an integer: 2 \. Also, this is my response/);
		expect(rec.metadata).toMatchObject({
			app_id: 'app_hash_f23a545202d08b8ef32f8d992cf79e7e',
			cost: { cost: 0.0802, cost_currency: 'USD' },
			perf: { start_time: '2024-09-25T13:28:16.700848' },
			main_error: null,
			tags: '-',
		});
		expect(rec.metadata.calls).toHaveLength(15);
		expect(column(res, 'calls')?.note).toBe(
			"the app's instrumented calls as TruLens recorded them, kept in metadata.calls",
		);
		expect(column(res, 'perf')?.to).toEqual(['latency_seconds', 'metadata']);
		expect(res.account.columns.map((c) => c.column).sort()).toEqual(
			[
				'app_id',
				'calls',
				'cost',
				'main_error',
				'main_input',
				'main_output',
				'meta',
				'perf',
				'record_id',
				'tags',
				'ts',
			].sort(),
		);
		expect(EvalRecord.safeParse(rec).success).toBe(true);
	});

	it('a groundedness source gives the context when no feedback judged contexts one by one', () => {
		const row = {
			record_id: 'r1',
			input: 'q',
			output: 'a',
			record_json: { main_input: 'q' },
			cost_json: null,
			latency: null,
			total_tokens: null,
			Groundedness: null,
			Groundedness_calls: [
				{ args: { source: 'one passage', statement: 'a' }, ret: null, meta: {} },
			],
		};
		const res = loadDataset([row], { schema: 'trulens' });
		expect(res.invalid).toEqual([]);
		expect(res.records[0]).toMatchObject({
			request_id: 'r1',
			request: 'q',
			response: 'a',
			retrieved_context: [{ content: 'one passage' }],
		});
		// A feedback without a result (pandas's NaN, null in JSON) is not a score of 0.
		expect(res.records[0].metadata.Groundedness ?? null).toBeNull();
	});

	it('a feedback with several results: each <name>:::<key> column kept as a number, named', () => {
		const row = {
			record_id: 'r2',
			input: 'q',
			output: 'a',
			record_json: '{}',
			'Coherence:::first': '0.25',
			'Coherence:::second': '1.0',
			Coherence_calls: "[{'args': {'text': 'a'}, 'ret': 0.25, 'meta': {}}]",
		};
		const res = loadDataset([row], { schema: 'trulens' });
		expect(res.invalid).toEqual([]);
		expect(res.records[0].metadata).toMatchObject({
			'Coherence:::first': 0.25,
			'Coherence:::second': 1,
			Coherence_calls: [{ args: { text: 'a' }, ret: 0.25, meta: {} }],
		});
		expect(column(res as ReturnType<typeof load>, 'Coherence:::second')?.note).toBe(
			'a result of TruLens feedback "Coherence" as TruLens computed it, kept in metadata["Coherence:::second"]',
		);
	});
});
