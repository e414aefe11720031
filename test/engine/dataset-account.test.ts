/**
 * Eval Dataset on the real engine says what it did with the file: where every column went and
 * which rows were skipped, as a notice in the output pane (an execution hint on the node's run).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkflow, singleNode } from '../support/engine';

const EXPORTS = join(__dirname, '../fixtures/datasets-exports');

describe('Eval Dataset shows the account of the file it loaded', () => {
	it('a promptfoo CSV with a bare quote: fields, metadata, the skipped row and the leniency', async () => {
		const text =
			'customer_message,reply,__expected,__metadata:team\n' +
			'how do I print "hi"?,print("hi"),equals:print("hi"),dx\n' +
			'second,answer,icontains:answer,dx\n' +
			'two,cells\n';
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalDataset', { source: 'text', text, format: 'auto' }),
		);
		expect(r.nodeError('Node')).toBeUndefined();
		expect(r.output('Node', 0).map((x) => [x.request, x.response, x.expected_response])).toEqual([
			['how do I print "hi"?', 'print("hi")', 'print("hi")'],
			['second', 'answer', undefined],
		]);
		expect(r.output('Node', 1)).toHaveLength(1);
		const hints = r.run.data.resultData.runData.Node[0].hints ?? [];
		expect(hints).toHaveLength(1);
		expect(hints[0]).toMatchObject({ type: 'warning', location: 'outputPane' });
		expect(hints[0].message.split('\n')).toEqual([
			'3 rows read (csv, schema promptfoo, detected): 2 loaded, 1 skipped',
			'fields: reply -> response; customer_message -> request; __expected -> expected_response',
			'metadata: __expected (1 row: promptfoo "icontains" assertion: no canonical field, kept in metadata.assertions); __metadata:team (2 rows)',
			'skipped: row 3: expected 4 cells as in the header, got 2',
			'note: a bare " inside an unquoted CSV cell was read as text, as Python\'s csv module and pandas read it',
		]);
	});

	it('incoming items read as they are: an info notice', async () => {
		const r = await runWorkflow(singleNode('n8n-nodes-rag-eval.evalDataset', { source: 'items' }), {
			startItems: [{ json: { query: 'q', response: 'a' } }],
		});
		const hints = r.run.data.resultData.runData.Node[0].hints ?? [];
		expect(hints.map((h) => [h.type, h.message])).toEqual([
			[
				'info',
				'1 rows read (items, schema azure, detected): 1 loaded, 0 skipped\nfields: query -> request; response -> response',
			],
		]);
	});
	it('a TruLens table picked by its Schema option: the app call, and its feedback kept by name', async () => {
		const text = readFileSync(join(EXPORTS, 'trulens-records-and-feedback.csv'), 'utf8');
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalDataset', { source: 'text', text, schema: 'trulens' }),
		);
		expect(r.nodeError('Node')).toBeUndefined();
		const rows = r.output('Node', 0);
		expect(rows.map((x) => [x.request, x.response, x.latency_seconds])).toEqual([
			['What is TruLens?', 'TruLens is a library for evaluating and tracking LLM apps.', 1.25],
			[
				'Which feedback functions does the RAG triad use?',
				'Context relevance, groundedness and answer relevance.',
				0.8,
			],
		]);
		expect(rows.map((x) => (x.metadata as Record<string, unknown>)['Groundedness'])).toEqual([
			0.8, 1,
		]);
		expect(r.output('Node', 1)).toEqual([]);
		const message = (r.run.data.resultData.runData.Node[0].hints ?? [])[0].message.split('\n');
		expect(message[0]).toBe('2 rows read (csv, schema trulens): 2 loaded, 0 skipped');
		expect(message[2]).toContain(
			'Groundedness (2 rows: TruLens feedback score as TruLens computed it, kept in metadata["Groundedness"])',
		);
	});

	it('a LangSmith CSV download with dotted columns is detected and read as examples', async () => {
		const text = readFileSync(join(EXPORTS, 'langsmith-dataset-export.csv'), 'utf8');
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalDataset', { source: 'text', text }),
		);
		expect(r.nodeError('Node')).toBeUndefined();
		expect(r.output('Node', 0).map((x) => [x.request_id, x.request, x.expected_response])).toEqual([
			[
				'0f2c6b1e-6d1a-4a8e-9f4b-2a6e8e0c1a01',
				'What does LangSmith trace?',
				'Runs of chains, tools and model calls.',
			],
			[
				'0f2c6b1e-6d1a-4a8e-9f4b-2a6e8e0c1a02',
				'How do I add an example to a dataset?',
				'Call create_example with the dataset id.',
			],
		]);
		const hints = r.run.data.resultData.runData.Node[0].hints ?? [];
		expect(hints[0].message.split('\n')[0]).toBe(
			'2 rows read (csv, schema langsmith, detected): 2 loaded, 0 skipped',
		);
	});
});
