/**
 * The field model (src/record/fields.ts): a file from a tool no adapter knows loads by its column
 * names alone, in any letter case and in snake, camel or kebab form; names of one field keep their
 * precedence; contexts come as lists, chunk objects or JSON text of an object holding the list; and
 * a column that could be either of two fields is read as one of them with the reason in the account,
 * which a Column Mapping overrides.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeAccount, loadDataset } from '../../../src/record';
import { fieldByName, nameKey } from '../../../src/record/fields';

const fixture = (name: string) =>
	readFileSync(join(__dirname, '../../fixtures/datasets', name), 'utf8');

describe('names match in any case and separator', () => {
	it('one key for snake, camel, kebab, spaced and upper-case spellings', () => {
		const keys = ['ground_truth', 'groundTruth', 'Ground-Truth', 'GROUND TRUTH'].map(nameKey);
		expect(new Set(keys)).toEqual(new Set(['groundtruth']));
		expect(fieldByName('Retrieved-Contexts')).toEqual({ field: 'retrieved_context', rank: 3 });
		expect(fieldByName('modelAnswer')?.field).toBe('response');
		expect(fieldByName('colour')).toBeUndefined();
	});
});

describe("a made-up tool's file with common names loads with no mapping", () => {
	const out = loadDataset(fixture('made-up-tool.csv'));

	it('every row loads, field by field', () => {
		expect(out.invalid).toEqual([]);
		expect(out.schema).toBe('databricks');
		const [a, b] = out.records;
		expect(a).toMatchObject({
			request_id: 's-1',
			request: 'How long is the warranty?',
			response: 'Two years from delivery.',
			expected_response: 'The warranty lasts two years.',
			// JSON text of an object that holds the list under one key.
			retrieved_context: [
				{ content: 'Warranty: 24 months from delivery.' },
				{ content: 'Returns: 30 days.' },
			],
			// `sources` could be either context field; the row gives the retrieved one already.
			expected_retrieved_context: [{ doc_uri: 'warranty.md', grade: 2 }],
			metadata: { category: 'policy' },
		});
		expect(b.expected_retrieved_context).toEqual([{ doc_uri: 'returns.md' }]);
		expect(b.retrieved_context).toEqual([{ content: 'Returns: 30 days, unused items.' }]);
	});

	it('the account names every column, and why the ambiguous one went where it did', () => {
		expect(out.account.columns.map((c) => [c.column, c.to])).toEqual([
			['Sample ID', ['request_id']],
			['User Question', ['request']],
			['modelAnswer', ['response']],
			['Expected-Answer', ['expected_response']],
			['RetrievedContexts', ['retrieved_context']],
			['sources', ['expected_retrieved_context']],
			['category', ['metadata']],
		]);
		const sources = out.account.columns.find((c) => c.column === 'sources');
		expect(sources?.chosen).toBe(
			'could be retrieved_context or expected_retrieved_context; RetrievedContexts gives retrieved_context, so read as expected_retrieved_context; a Column Mapping decides otherwise',
		);
		expect(describeAccount(out.account)).toContain(
			`chosen: sources -> expected_retrieved_context (${sources?.chosen})`,
		);
	});

	it('a Column Mapping decides the ambiguous column instead', () => {
		const mapped = loadDataset(fixture('made-up-tool.csv'), {
			mapping: { sources: 'retrieved_context', RetrievedContexts: 'metadata' },
		});
		expect(mapped.invalid).toEqual([]);
		expect(mapped.records[0].retrieved_context).toEqual([{ doc_uri: 'warranty.md', grade: 2 }]);
		// Its documents carry relevance labels and no column names expected ones: the labelled
		// documents are the expected ones, and the account says so instead of an ambiguity.
		expect(mapped.records[0].expected_retrieved_context).toEqual([
			{ doc_uri: 'warranty.md', grade: 2 },
		]);
		expect(mapped.records[1].expected_retrieved_context).toBeUndefined();
		expect(mapped.account.columns.find((c) => c.column === 'sources')).toEqual({
			column: 'sources',
			to: ['retrieved_context', 'expected_retrieved_context'],
			rows: 2,
			chosen:
				'its documents carry relevance labels and the row names no expected documents: the labelled ones are the expected documents, so recall counts only those',
		});
	});
});

describe('an answer-or-reference column', () => {
	it('is the answer when the row has a reference, and the reference when it has an answer', () => {
		const out = loadDataset([
			{ Query: 'q1', output: 'it is 4', Reference: '4' },
			{ Query: 'q2', output: '5', modelResponse: 'it is 5' },
		]);
		expect(out.records.map((r) => [r.request, r.response, r.expected_response])).toEqual([
			['q1', 'it is 4', '4'],
			['q2', 'it is 5', '5'],
		]);
		const col = out.account.columns.find((c) => c.column === 'output');
		expect(col?.to).toEqual(['response', 'expected_response']);
		expect(col?.chosen).toBe(
			'could be response or expected_response; Reference gives expected_response, so read as response; a Column Mapping decides otherwise',
		);
	});

	it('with neither, it is the reference: a missing answer shows, a reference scored as one would not', () => {
		const out = loadDataset([{ prompt: 'q', target: 'a' }]);
		expect(out.records[0]).toMatchObject({ request: 'q', expected_response: 'a' });
		expect(out.records[0].response).toBeUndefined();
		expect(out.account.columns.find((c) => c.column === 'target')?.chosen).toMatch(
			/no other column gives either, so read as expected_response/,
		);
	});
});

describe('precedence among names of one field', () => {
	it('the earlier name feeds the field, the later stays in metadata with the reason', () => {
		const out = loadDataset([{ Query: 'searched text', question: 'asked text', answer: 'a' }]);
		const [r] = out.records;
		expect(r.request).toBe('asked text');
		expect(r.metadata).toEqual({ Query: 'searched text' });
		expect(out.account.columns.find((c) => c.column === 'Query')).toEqual({
			column: 'Query',
			to: ['metadata'],
			rows: 1,
			note: 'not read as request: question gave it',
		});
	});
});

describe('retrieval-only rows', () => {
	it('documents with binary labels and no question load; the labelled ones are the expected', () => {
		const out = loadDataset([
			{
				query_id: 'q7',
				retrievedDocs: [
					{ docId: 'd2', relevant: false },
					{ docId: 'd9', relevant: true },
				],
			},
		]);
		expect(out.invalid).toEqual([]);
		const [r] = out.records;
		expect(r.request_id).toBe('q7');
		expect(r.request).toBeUndefined();
		expect(r.retrieved_context).toEqual([
			{ doc_uri: 'd2', grade: 0 },
			{ doc_uri: 'd9', grade: 1 },
		]);
		expect(r.expected_retrieved_context).toEqual([
			{ doc_uri: 'd2', grade: 0 },
			{ doc_uri: 'd9', grade: 1 },
		]);
		expect(r.source.present).toEqual({ request: false, response: false });
	});

	it("documents that carry the retriever's score are put in rank order by it, and the account says so", () => {
		const out = loadDataset([
			{
				retrieved_documents: [
					{ document_id: 'low', relevance_score: 1.5 },
					{ document_id: 'high', relevance_score: 9 },
					{ document_id: 'mid', relevance_score: 4 },
				],
				retrieval_ground_truth: [{ document_id: 'mid', query_relevance_label: 3 }],
			},
		]);
		expect(out.records[0].retrieved_context?.map((c) => c.doc_uri)).toEqual(['high', 'mid', 'low']);
		expect(out.records[0].expected_retrieved_context).toEqual([{ doc_uri: 'mid', grade: 3 }]);
		expect(out.account.columns.find((c) => c.column === 'retrieved_documents')?.chosen).toBe(
			'ranked by relevance_score, highest first (the list was in another order)',
		);
	});

	it('another score key is kept on the chunk but never reorders the list (it may be a distance)', () => {
		const out = loadDataset([
			{
				question: 'q',
				retrieved_documents: [
					{ id: 'near', text: 'a', score: 0.1 },
					{ id: 'far', text: 'b', score: 0.9 },
				],
			},
		]);
		expect(out.records[0].retrieved_context).toEqual([
			{ doc_uri: 'near', content: 'a', score: 0.1 },
			{ doc_uri: 'far', content: 'b', score: 0.9 },
		]);
		expect(
			out.account.columns.find((c) => c.column === 'retrieved_documents')?.chosen,
		).toBeUndefined();
	});

	it('text-only contexts without a question or answer are still an error', () => {
		const out = loadDataset([{ contexts: ['some text'] }]);
		expect(out.records).toEqual([]);
		expect(out.invalid[0].error).toMatch(/^row 1: user_input: required/);
	});

	it('a relevance label that is not a number >= 0 or true/false names the row and field', () => {
		const out = loadDataset([
			{ retrieval_ground_truth: [{ document_id: 'a', query_relevance_label: 'high' }] },
		]);
		expect(out.invalid[0].issues[1]).toEqual({
			path: 'retrieval_ground_truth[0].query_relevance_label',
			message:
				'not read as expected_retrieved_context: expected a relevance label (a number >= 0 or true/false), got "high"',
		});
	});
});

describe('promptfoo CSV header aliases', () => {
	it('__providerOutput is the output to grade; __metric and __config columns stay in metadata, named', () => {
		const csv = [
			'question,__expected,__providerOutput,__metric,__config:__expected:threshold',
			'What is 2+2?,equals:4,4,arithmetic,0.9',
		].join('\n');
		const out = loadDataset(csv);
		expect(out.schema).toBe('promptfoo');
		expect(out.records[0]).toMatchObject({
			request: 'What is 2+2?',
			response: '4',
			expected_response: '4',
			metadata: { __metric: 'arithmetic', '__config:__expected:threshold': '0.9' },
		});
		expect(out.account.columns.map((c) => [c.column, c.to])).toEqual([
			['question', ['request']],
			['__providerOutput', ['response']],
			['__expected', ['expected_response']],
			['__metric', ['metadata']],
			['__config:__expected:threshold', ['metadata']],
		]);
	});
});

describe('Amazon Bedrock rows beyond the sample files', () => {
	it('earlier turns are the history; a passage location is its doc_uri', () => {
		const turn = (q: string, a: string) => ({
			prompt: { content: [{ text: q }] },
			output: { text: a },
		});
		const out = loadDataset([
			{
				conversationTurns: [
					turn('Hi', 'Hello, how can I help?'),
					{
						prompt: { content: [{ text: 'Opening hours?' }] },
						referenceResponses: [
							{ content: [{ text: '9 to 5' }] },
							{ content: [{ text: '9-17' }] },
						],
						output: {
							text: 'We open at 9 and close at 5.',
							retrievedPassages: {
								retrievalResults: [
									{
										content: { text: 'Open 9:00-17:00.' },
										location: { type: 'S3', s3Location: { uri: 's3://kb/hours.md' } },
									},
								],
							},
						},
					},
				],
			},
		]);
		expect(out.schema).toBe('bedrock');
		expect(out.invalid).toEqual([]);
		expect(out.records[0]).toMatchObject({
			request: 'Opening hours?',
			history: [
				{ role: 'user', content: 'Hi' },
				{ role: 'assistant', content: 'Hello, how can I help?' },
			],
			response: 'We open at 9 and close at 5.',
			expected_response: '9 to 5',
			retrieved_context: [{ doc_uri: 's3://kb/hours.md', content: 'Open 9:00-17:00.' }],
		});
		expect(out.account.columns[0].chosen).toBe(
			'the last turn lists 2 reference responses; expected_response is the first, all are in request_raw',
		);
	});

	it('several modelResponses are an error that names the mapping to choose one', () => {
		const row = {
			prompt: 'q',
			modelResponses: [
				{ response: 'a', modelIdentifier: 'm1' },
				{ response: 'b', modelIdentifier: 'm2' },
			],
		};
		const out = loadDataset([row]);
		expect(out.invalid[0].error).toBe(
			'row 1: modelResponses: holds 2 responses; map the one to score (modelResponses.0.response: response)',
		);
		const mapped = loadDataset([row], { mapping: { 'modelResponses.1.response': 'response' } });
		expect(mapped.invalid).toEqual([]);
		expect(mapped.records[0].response).toBe('b');
	});
});

describe('contexts as JSON text of an object holding the list, in the schemas too', () => {
	it('Ragas and DeepEval read the list inside', () => {
		const ragas = loadDataset(
			'user_input,response,retrieved_contexts,reference\nq,a,"{""contexts"": [""c1"", ""c2""]}",r\n',
		);
		expect(ragas.schema).toBe('ragas');
		expect(ragas.records[0].retrieved_context).toEqual([{ content: 'c1' }, { content: 'c2' }]);
		const deep = loadDataset([
			{ input: 'q', actual_output: 'a', retrieval_context: '{"documents": ["d1"]}' },
		]);
		expect(deep.schema).toBe('deepeval');
		expect(deep.records[0].retrieved_context).toEqual([{ content: 'd1' }]);
	});

	it('an object with more than the list is not unwrapped: the row says what is wrong', () => {
		const out = loadDataset([{ user_input: 'q', retrieved_contexts: { contexts: ['c'], k: 3 } }]);
		expect(out.invalid[0].error).toBe(
			'row 1: retrieved_contexts: expected array of strings, got object',
		);
	});
});
