/**
 * The one field-mapping model: a Column Mapping onto a canonical field overrides that field for
 * every schema, reaches inside nested objects with dotted paths and reads message lists; detection
 * is not flipped by it; the schema's own column for a mapped field stays in metadata; and the
 * account says where every column went.
 */
import { describeAccount, loadDataset, normaliseRow } from '../../../src/record';

describe('a mapping onto a canonical field works for every schema', () => {
	it('Azure: a reference under another name, and the schema column it replaces kept in metadata', () => {
		const out = loadDataset(
			[
				{ query: 'q1', response: 'a1', ground_truth: 'old', reviewed_truth: 'new' },
				{ query: 'q2', response: 'a2', reviewed_truth: 'only' },
			],
			{ mapping: { reviewed_truth: 'expected_response' } },
		);
		expect(out.schema).toBe('azure');
		expect(out.records.map((r) => [r.request, r.expected_response])).toEqual([
			['q1', 'new'],
			['q2', 'only'],
		]);
		expect(out.records[0].metadata).toEqual({ ground_truth: 'old' });
		expect(out.account.columns.find((c) => c.column === 'ground_truth')).toEqual({
			column: 'ground_truth',
			to: ['metadata'],
			rows: 1,
		});
		expect(out.account.mapping).toEqual({ reviewed_truth: 'expected_response' });
	});

	it('Ragas and DeepEval: contexts under other names', () => {
		const ragas = loadDataset(
			[{ user_input: 'q', response: 'a', reference: 'r', chunks: ['c1', 'c2'] }],
			{ mapping: { chunks: 'retrieved_context' } },
		);
		expect(ragas.schema).toBe('ragas');
		expect(ragas.records[0].retrieved_context).toEqual([{ content: 'c1' }, { content: 'c2' }]);
		const deep = loadDataset(
			[{ input: 'q', actual_output: 'a', docs: [{ id: 'd1', text: 'x' }] }],
			{ mapping: { docs: 'retrieved_context' } },
		);
		expect(deep.schema).toBe('deepeval');
		expect(deep.records[0].retrieved_context).toEqual([{ doc_uri: 'd1', content: 'x' }]);
	});

	it('a mapping cannot flip detection: the columns left unmapped are still read', () => {
		// Before, input/actual_output -> request/response made this "Databricks", and
		// expected_output and retrieval_context went to metadata.
		const out = loadDataset(
			[{ input: 'q', actual_output: 'a', expected_output: 'e', retrieval_context: ['c'] }],
			{ mapping: { input: 'request', actual_output: 'response' } },
		);
		expect(out.schema).toBe('deepeval');
		expect(out.records[0]).toMatchObject({
			request: 'q',
			response: 'a',
			expected_response: 'e',
			retrieved_context: [{ content: 'c' }],
			metadata: {},
		});
	});

	it('dotted paths reach inside nested objects; the rest of the object stays in metadata', () => {
		const out = loadDataset(
			[
				{
					payload: { question: 'How tall is Everest?', locale: 'en' },
					gold: { answer: '8849 m', source: 'survey' },
				},
			],
			{ mapping: { 'payload.question': 'request', 'gold.answer': 'expected_response' } },
		);
		expect(out.invalid).toEqual([]);
		expect(out.records[0]).toMatchObject({
			request: 'How tall is Everest?',
			expected_response: '8849 m',
			metadata: { payload: { locale: 'en' }, gold: { source: 'survey' } },
		});
		expect(out.account.columns.map((c) => [c.column, c.to])).toEqual([
			['payload.question', ['request']],
			['gold.answer', ['expected_response']],
			['payload.locale', ['metadata']],
			['gold.source', ['metadata']],
		]);
	});

	it('MLflow expectations under a custom key, by mapping', () => {
		const out = loadDataset(
			[{ inputs: { question: 'q' }, expectations: { answer_v2: 'the answer' } }],
			{ mapping: { 'expectations.answer_v2': 'expected_response' } },
		);
		expect(out.schema).toBe('mlflow');
		expect(out.records[0].expected_response).toBe('the answer');
		expect(out.records[0].metadata).toEqual({});
	});

	it('a message list mapped onto request: the last user message, earlier turns as history', () => {
		const out = loadDataset(
			[
				{
					dialog: [
						{ role: 'system', content: 'Be brief.' },
						{ role: 'user', content: 'Hi' },
						{ role: 'assistant', content: 'Hello!' },
						{ role: 'user', content: 'Capital of Peru?' },
					],
					gold: 'Lima',
				},
			],
			{ mapping: { dialog: 'request', gold: 'expected_response' } },
		);
		const [r] = out.records;
		expect(r.request).toBe('Capital of Peru?');
		expect(r.history?.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
		expect(r.expected_response).toBe('Lima');
		expect(out.account.columns.find((c) => c.column === 'dialog')?.to).toEqual(['request']);
	});

	it('errors name the user column, nested ones with their path', () => {
		const out = loadDataset([{ payload: { question: 5 } }], {
			mapping: { 'payload.question': 'request' },
		});
		expect(out.invalid[0].error).toBe(
			'row 1: payload.question: expected string or object, got number',
		);
	});

	it('normaliseRow takes the same mapping', () => {
		const res = normaliseRow({ q: 'x', gold: 'y' }, 'auto', {
			q: 'request',
			gold: 'expected_response',
		});
		expect(res.ok && [res.record.request, res.record.expected_response]).toEqual(['x', 'y']);
	});
});

describe('columns nobody read are proposed by their common names, never at the cost of a row', () => {
	it('Azure truth and gt, DeepEval expected, grading notes, reference tool calls', () => {
		const out = loadDataset([
			{ query: 'q1', response: 'a1', truth: 't1' },
			{ query: 'q2', response: 'a2', gt: 't2' },
		]);
		expect(out.records.map((r) => r.expected_response)).toEqual(['t1', 't2']);
		const deep = loadDataset([{ input: 'q', actual_output: 'a', expected: 'e' }]);
		expect(deep.records[0].expected_response).toBe('e');
		const notes = loadDataset([{ request: 'q', grading_notes: 'Must cite the policy.' }]);
		expect(notes.records[0].guidelines).toEqual(['Must cite the policy.']);
	});

	it('a value that does not fit stays in metadata, with the reason in the account', () => {
		const out = loadDataset([
			{ request: 'q', response: 'a', expected: { nested: [1, 2] }, grading_notes: 5, id: 'x-1' },
		]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0].expected_response).toBe('{"nested":[1,2]}');
		// `id` names the example only in nested records (Phoenix, LangSmith, MLflow); in flat rows it
		// stays in metadata, so content-hash request ids and the baselines keyed on them hold.
		expect(out.records[0].request_id).toMatch(/^[0-9a-f]{16}$/);
		expect(out.records[0].metadata).toEqual({ grading_notes: 5, id: 'x-1' });
		expect(out.account.columns.find((c) => c.column === 'grading_notes')).toEqual({
			column: 'grading_notes',
			to: ['metadata'],
			rows: 1,
			note: 'not read as guidelines: the value does not fit',
		});
	});
});

describe('the account', () => {
	it('counts rows, names skipped rows with their reason, and reads as lines', () => {
		const out = loadDataset(
			'{"query": "q1", "response": "a1", "team": "x"}\n{"query": 3}\n{"query": "q3", "response": "a3"}\n',
		);
		expect(out.account).toMatchObject({
			format: 'jsonl',
			schema: 'azure',
			detected: true,
			rows: 3,
			loaded: 2,
			skipped: [{ row: 2, reason: 'row 2: query: expected string, got number' }],
		});
		expect(describeAccount(out.account, 'qa.jsonl')).toEqual([
			'qa.jsonl: 3 rows read (jsonl, schema azure, detected): 2 loaded, 1 skipped',
			'fields: query -> request; response -> response',
			'metadata: team (1 row)',
			'skipped: row 2: query: expected string, got number',
		]);
	});

	it('an explicit schema is not "detected", and a lossy list feeds its field and metadata', () => {
		const ctx = [{ doc_uri: 'u', content: 'c', score: 0.9 }];
		const out = loadDataset([{ request: 'q', retrieved_context: ctx }], { schema: 'databricks' });
		expect(out.account.detected).toBe(false);
		expect(out.account.columns).toEqual([
			{ column: 'request', to: ['request'], rows: 1 },
			{
				column: 'retrieved_context',
				to: ['retrieved_context', 'metadata'],
				rows: 1,
				note: 'also kept whole: its items carry more than an id and a text',
			},
		]);
	});
});
