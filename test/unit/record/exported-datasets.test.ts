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
			'metadata: metadata (2 rows); dataset_id (2 rows); created_at (2 rows); modified_at (2 rows); runs (2 rows); source_run_id (2 rows); attachments (2 rows)',
		);
	});
});
