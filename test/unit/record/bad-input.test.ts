import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetError, describeAccount, loadDataset } from '../../../src/record';

const FIX = join(__dirname, '../../fixtures/datasets');
const fixture = (name: string): Buffer => readFileSync(join(FIX, name));

function thrown(fn: () => unknown): DatasetError {
	try {
		fn();
	} catch (e) {
		expect(e).toBeInstanceOf(DatasetError);
		return e as DatasetError;
	}
	throw new Error('expected a DatasetError');
}

describe('bad rows: each row ends up in records or invalid, named by row and field', () => {
	const res = loadDataset(fixture('databricks-bad.jsonl'));
	const byRow = new Map(res.invalid.map((i) => [i.row, i]));

	it('accounts for every non-blank line exactly once, numbered by file line', () => {
		const rows = [...res.records.map((r) => r.source.row), ...res.invalid.map((i) => i.row)].sort();
		expect(rows).toEqual([1, 2, 3, 5, 6, 7]);
		expect(res.records.map((r) => r.source.row)).toEqual([1, 6]);
	});

	it('a malformed JSONL line is one invalid row carrying the raw line; the rest continue', () => {
		const bad = byRow.get(2);
		expect(bad?.path).toBe('');
		expect(bad?.message).toMatch(/^not valid JSON/);
		expect(bad?.raw).toBe('{"request": "broken", "response": ');
	});

	it('a wrong type inside a context list names the element and both types', () => {
		expect(byRow.get(3)?.error).toBe(
			'row 3: retrieved_context[2].doc_uri: expected string, got number',
		);
		expect(byRow.get(3)?.path).toBe('retrieved_context[2].doc_uri');
		expect(byRow.get(3)?.raw).toMatchObject({ request: 'Who?' });
	});

	it('both expected_facts and expected_response is an error for that row', () => {
		expect(byRow.get(5)?.path).toBe('expected_facts');
		expect(byRow.get(5)?.message).toMatch(/expected_response/);
	});

	it('a row with a request and no response loads (a golden row); one with neither is an error', () => {
		const golden = res.records.find((r) => r.source.row === 6);
		expect(golden?.request).toBe('No answer?');
		expect(golden?.response).toBeUndefined();
		expect(golden?.source.present).toEqual({ request: true, response: false });
		const out = loadDataset([{ expected_response: 'x' }, { request: 'q', expected_response: 'x' }]);
		expect(out.invalid.map((i) => i.error)).toEqual([
			'row 1: request: required in Databricks Agent Evaluation rows (seed 002): the question, as text or chat messages',
		]);
		expect(out.records.map((r) => r.request)).toEqual(['q']);
		const azure = loadDataset([{ ground_truth: 'x', context: 'c' }], { schema: 'azure' });
		expect(azure.invalid[0].error).toBe('row 1: query: required (give query or response, or both)');
	});

	it('reports every problem of a row, not only the first', () => {
		expect(byRow.get(7)?.issues).toEqual([
			{ path: 'request', message: 'expected string or object, got number' },
			{ path: 'response', message: 'expected string or object, got array' },
		]);
	});
});

describe('more wrong types', () => {
	it('names list elements and map entries', () => {
		const out = loadDataset([
			{ request: 'q', response: 'a', expected_facts: ['ok', 3] },
			{ request: 'q', response: 'a', guidelines: { tone: ['polite'], lang: 'English' } },
			{ request: 'q', response: 'a', expected_retrieved_context: [{ content: 'no uri' }] },
			{ request: 'q', response: 'a', retrieved_context: [{ doc_uri: 'd' }, {}] },
			{ request: { messages: [{ role: 'user', content: 5 }] }, response: 'a' },
			'not an object',
			{ request: 'q', response: 'a', trace: '{broken' },
		]);
		expect(out.invalid.map((i) => i.error)).toEqual([
			'row 1: expected_facts[1]: expected string, got number',
			'row 2: guidelines.lang: expected array of strings, got string',
			'row 3: expected_retrieved_context[0].doc_uri: required',
			'row 4: retrieved_context[1]: needs doc_uri or content',
			'row 5: request.messages[0].content: expected string or content parts, got number',
			'row 6: expected an object, got string',
		]);
		expect(out.invalid[5].raw).toBe('not an object');
		// A trace that cannot be read no longer costs the row: it keeps its fields and the reason.
		expect(out.records).toHaveLength(1);
		expect(out.records[0]).toMatchObject({ source: { row: 7 }, request: 'q', response: 'a' });
		expect(out.records[0].metadata.trace_error).toMatch(/^not valid JSON/);
	});

	it('a retrieved chunk with only a doc_uri is valid (seed 002: content is optional)', () => {
		const out = loadDataset([
			{ request: 'q', response: 'a', retrieved_context: [{ doc_uri: 'd' }, { content: 'text' }] },
		]);
		expect(out.invalid).toEqual([]);
		expect(out.records[0].retrieved_context).toEqual([{ doc_uri: 'd' }, { content: 'text' }]);
	});

	it('a CSV JSON cell that does not parse is named, with the raw row kept', () => {
		const out = loadDataset('request,response,retrieved_context\nq,a,"[{""doc_uri"": ""x"""\n');
		expect(out.invalid).toHaveLength(1);
		expect(out.invalid[0].path).toBe('retrieved_context');
		expect(out.invalid[0].message).toMatch(/^cell is not valid JSON/);
		expect(out.invalid[0].raw).toEqual({
			request: 'q',
			response: 'a',
			retrieved_context: '[{"doc_uri": "x"',
		});
	});

	it('a CSV row with the wrong number of cells is invalid, not truncated', () => {
		const out = loadDataset('request,response\nq1,a1\nq2,a2,extra\nq3,a3\n');
		expect(out.records.map((r) => r.source.row)).toEqual([1, 3]);
		expect(out.invalid[0]).toMatchObject({ row: 2, raw: ['q2', 'a2', 'extra'] });
		expect(out.invalid[0].message).toBe('expected 2 cells as in the header, got 3');
	});
});

describe('unreadable files are one clear error', () => {
	it('an empty file', () => {
		const e = thrown(() => loadDataset(fixture('empty.jsonl')));
		expect(e.code).toBe('empty');
		expect(thrown(() => loadDataset('  \n\n')).code).toBe('empty');
	});

	it('non-UTF-8 bytes, located by byte and line', () => {
		const e = thrown(() => loadDataset(fixture('azure-cp1252.csv')));
		expect(e.code).toBe('encoding');
		expect(e.message).toBe(
			'the file is not valid UTF-8 at byte 29 (line 2); save it as UTF-8 and load it again',
		);
	});

	it('UTF-16 files', () => {
		const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('query\n', 'utf16le')]);
		expect(thrown(() => loadDataset(bytes)).message).toMatch(/UTF-16/);
	});

	it('a broken JSON document (not JSON Lines)', () => {
		const e = thrown(() => loadDataset('[\n {"request": "q",\n'));
		expect(e.code).toBe('syntax');
		expect(e.message).toMatch(/^the file is not valid JSON/);
	});

	it('a CSV header with a duplicated column, which would overwrite data', () => {
		expect(thrown(() => loadDataset('request,response,request\nq,a,b\n')).message).toBe(
			'the CSV header names column "request" twice',
		);
	});

	it('an unterminated CSV quote', () => {
		expect(thrown(() => loadDataset('request,response\n"q,a\n')).code).toBe('syntax');
	});
});

describe('format detection', () => {
	it('a JSONL file whose first line is broken is still read line by line', () => {
		const out = loadDataset('{"request": \n{"request": "q", "response": "a"}\n');
		expect(out.format).toBe('jsonl');
		expect(out.invalid.map((i) => i.row)).toEqual([1]);
		expect(out.records.map((r) => r.source.row)).toEqual([2]);
	});

	it('a pretty-printed single object is JSON, not JSON Lines', () => {
		const out = loadDataset('{\n  "request": "q",\n  "response": "a"\n}\n');
		expect(out.format).toBe('json');
		expect(out.records).toHaveLength(1);
	});
});

describe('dataset rules of the seeds (issue 41)', () => {
	it('seed 002: a Databricks row needs its request; an Azure NLP row (response + ground truth) does not', () => {
		const dbx = loadDataset(
			[
				{ request_id: 'a', response: 'Paris', expected_response: 'Paris' },
				{ request_id: 'b', request: 'Capital of France?', response: 'Paris' },
				{ request_id: 'c', request: { messages: [{ role: 'user', content: 'Hi?' }] } },
			],
			{ schema: 'databricks' },
		);
		expect(dbx.invalid.map((i) => i.error)).toEqual([
			'row 1: request: required in Databricks Agent Evaluation rows (seed 002): the question, as text or chat messages (request_id "a")',
		]);
		expect(dbx.records.map((r) => r.request_id)).toEqual(['b', 'c']);
		// Detected, not named: the canonical names are the Databricks schema, so the rule holds too.
		expect(loadDataset([{ response: 'Paris', expected_response: 'Paris' }]).invalid).toHaveLength(
			1,
		);
		// Azure's traditional metrics need only the response and the ground truth (seed 000).
		const azure = loadDataset([{ response: 'Paris', ground_truth: 'Paris' }]);
		expect(azure.schema).toBe('azure');
		expect(azure.invalid).toEqual([]);
		expect(azure.records[0]).toMatchObject({ response: 'Paris', expected_response: 'Paris' });
		expect(azure.records[0].request).toBeUndefined();
	});

	it('names repeated request ids in the account, and identical rows without one; every row still loads', () => {
		const out = loadDataset(
			[
				{ request_id: 'q1', request: 'A?' },
				{ request_id: 'q2', request: 'B?' },
				{ request_id: 'q1', request: 'C?' },
				{ request: 'Same?' },
				{ request: 'Same?' },
				{ request_id: 'q1', request: 'D?' },
			],
			{ schema: 'databricks' },
		);
		expect(out.records).toHaveLength(6);
		expect(out.account.duplicateIds).toEqual([
			{ request_id: 'q1', rows: [1, 3, 6] },
			{ request_id: out.records[3].request_id, rows: [4, 5], generated: true },
		]);
		const note = out.account.notes.find((n) => n.includes('repeat'));
		expect(note).toBe(
			'2 request id(s) repeat: request_id "q1" on rows 1, 3, 6; rows 4, 5 are identical and have no request_id. The rows all load; give each its own request_id so baselines, review labels and attack pairs can tell them apart',
		);
		expect(describeAccount(out.account).some((l) => l === `note: ${note}`)).toBe(true);
		expect(loadDataset([{ request_id: 'x', request: 'A?' }]).account.duplicateIds).toBeUndefined();
	});
});
