import { createHash } from 'node:crypto';
import { detectSchema, loadDataset, normaliseRow, stableStringify } from '../../../src/record';

const rows = [
	{
		request: 'What is RAG?',
		response: 'Retrieval-augmented generation.',
		expected_facts: ['retrieval'],
	},
	{ request: 'What is BLEU?', response: 'An n-gram precision metric.', tags: { owner: 'qa' } },
];

describe('fingerprint and request ids', () => {
	it('rows given as values: the same content gives the same fingerprint whatever the key order', () => {
		const given = loadDataset(rows);
		const reordered = loadDataset(rows.map((r) => Object.fromEntries(Object.entries(r).reverse())));
		expect(given.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
		expect(reordered.fingerprint).toBe(given.fingerprint);
		expect(given.records.every((r) => r.source.fingerprint === given.fingerprint)).toBe(true);
	});

	it('rows given as values: any change of content, or of an invalid row, changes the fingerprint', () => {
		const base = loadDataset(rows).fingerprint;
		expect(loadDataset([rows[0], { ...rows[1], response: 'changed' }]).fingerprint).not.toBe(base);
		const withBad = loadDataset([...rows, { request: 1 }]).fingerprint;
		const withOtherBad = loadDataset([...rows, { request: 2 }]).fingerprint;
		expect(withBad).not.toBe(base);
		expect(withOtherBad).not.toBe(withBad);
	});

	it('file content: SHA-256 of how it was read, then of its bytes as given (BOM aside)', () => {
		const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
		const loaded = loadDataset(Buffer.from(text, 'utf8'));
		// Computed here from its definition, not by the loader's code path.
		const how =
			'o1:s4:reado2:s6:formats5:jsonls6:schemas' +
			loaded.schema.length +
			':' +
			loaded.schema +
			'\n';
		const expected =
			'sha256:' +
			createHash('sha256')
				.update(Buffer.from(how, 'utf16le'))
				.update(Buffer.from(text, 'utf8'))
				.digest('hex');
		expect(loaded.schema).toBe('databricks');
		expect(loaded.fingerprint).toBe(expected);
		expect(loaded.records.every((r) => r.source.fingerprint === expected)).toBe(true);
		// Text and its bytes agree; a byte-order mark does not count.
		expect(loadDataset(text).fingerprint).toBe(expected);
		expect(loadDataset('\ufeff' + text).fingerprint).toBe(expected);
		expect(loadDataset(Buffer.from('\ufeff' + text, 'utf8')).fingerprint).toBe(expected);
	});

	it('file content: any byte, or how it is read, changes the fingerprint; so does re-saving it', () => {
		const text = rows.map((r) => JSON.stringify(r)).join('\n');
		const base = loadDataset(text).fingerprint;
		expect(loadDataset(text.replace('RAG', 'RAg')).fingerprint).not.toBe(base);
		expect(loadDataset(text + '\n').fingerprint).not.toBe(base);
		expect(loadDataset(text, { schema: 'azure' }).fingerprint).not.toBe(base);
		expect(loadDataset(text, { mapping: { tags: 'metadata.tags' } }).fingerprint).not.toBe(base);
		// The same rows saved as one JSON array are other bytes: another fingerprint (the records
		// are equal).
		const asJson = loadDataset(JSON.stringify(rows));
		expect(asJson.fingerprint).not.toBe(base);
		expect(asJson.records.map((r) => r.request_id)).toEqual(
			loadDataset(text).records.map((r) => r.request_id),
		);
		// An invalid row is part of the bytes too.
		const bad = loadDataset(text + '\n{"request": 1}');
		expect(bad.invalid).toHaveLength(1);
		expect(bad.fingerprint).not.toBe(loadDataset(text + '\n{"request": 2}').fingerprint);
	});

	it('request_id is kept when given, else a stable hash of the row content', () => {
		const a = loadDataset(rows).records;
		const b = loadDataset([rows[1], rows[0]]).records;
		expect(a[0].request_id).toMatch(/^[0-9a-f]{16}$/);
		expect(a[0].request_id).toBe(b[1].request_id);
		expect(a[0].request_id).not.toBe(a[1].request_id);
		expect(loadDataset([{ ...rows[0], request_id: 17 }]).records[0].request_id).toBe('17');
	});

	it('normaliseRow agrees with loadDataset on a one-row dataset', () => {
		const one = normaliseRow(rows[1]);
		expect(one.ok).toBe(true);
		if (!one.ok) return;
		const loaded = loadDataset([rows[1]]);
		expect(one.record).toEqual(loaded.records[0]);
		expect(one.record.source.fingerprint).toBe(loaded.fingerprint);
	});

	it('normaliseRow returns the issue list for a bad row', () => {
		expect(normaliseRow({ userText: 3, responseContent: 'a' }, 'spring-ai')).toEqual({
			ok: false,
			issues: [{ path: 'userText', message: 'expected string, got number' }],
		});
	});

	it('stableStringify sorts keys at every depth and drops undefined members', () => {
		expect(stableStringify({ b: [{ d: 1, c: undefined, a: 'x' }], a: null })).toBe(
			'{"a":null,"b":[{"a":"x","d":1}]}',
		);
	});
});

describe('field mapping', () => {
	it('maps user columns onto canonical fields, and detects the schema after mapping', () => {
		const out = loadDataset(
			[{ question: 'q', answer_text: 'a', docs: [{ doc_uri: 'u', content: 'c' }], owner: 'me' }],
			{ mapping: { question: 'request', answer_text: 'response', docs: 'retrieved_context' } },
		);
		expect(out.schema).toBe('databricks');
		expect(out.records[0]).toMatchObject({
			request: 'q',
			response: 'a',
			retrieved_context: [{ doc_uri: 'u', content: 'c' }],
			metadata: { owner: 'me' },
		});
	});

	it('maps onto a source schema name too, and errors name the user column', () => {
		const out = loadDataset('prompt,output\nq,a\n', {
			mapping: { prompt: 'userText', output: 'responseContent' },
		});
		expect(out.schema).toBe('spring-ai');
		expect(out.records[0]).toMatchObject({ request: 'q', response: 'a' });
		const bad = loadDataset([{ prompt: 'q', ctx: 'not a list' }], {
			schema: 'deepeval',
			mapping: { prompt: 'input', ctx: 'retrieval_context' },
		});
		expect(bad.invalid[0].issues).toEqual([
			{ path: 'ctx', message: 'expected array of strings, got string' },
		]);
	});

	it('refuses a mapping whose target the row already has, instead of overwriting it', () => {
		const out = loadDataset([{ q: 'mapped', request: 'original', response: 'a' }], {
			mapping: { q: 'request' },
		});
		expect(out.invalid[0].error).toBe(
			'row 1: q: mapped to request, but the row also has a request field',
		);
		expect(out.invalid[0].raw).toEqual({ q: 'mapped', request: 'original', response: 'a' });
	});
});

describe('detectSchema', () => {
	it.each([
		[[{ query: 'q', response: 'a', context: 'c', ground_truth: 'g' }], 'azure'],
		[[{ messages: [] }], 'azure'],
		[[{ request: 'q', response: 'a' }], 'databricks'],
		[[{ userText: 'q', dataList: [], responseContent: 'a' }], 'spring-ai'],
		[[{ user_input: 'q', response: 'a', retrieved_contexts: [] }], 'ragas'],
		[[{ question: 'q', answer: 'a', contexts: [], ground_truth: 'g' }], 'ragas'],
		[[{ input: 'q', actual_output: 'a', context: [] }], 'deepeval'],
		[[{ something: 'else' }], 'databricks'],
	])('%j -> %s', (sample, schema) => {
		expect(detectSchema(sample)).toBe(schema);
	});
});

describe('metadata column and record passthrough', () => {
	it('merges a metadata object and refuses collisions', () => {
		const out = loadDataset([
			{ request: 'q', response: 'a', metadata: { a: 1 }, b: 2 },
			{ request: 'q', response: 'a', metadata: { b: 1 }, b: 2 },
		]);
		expect(out.records[0].metadata).toEqual({ a: 1, b: 2 });
		expect(out.invalid[0].error).toBe('row 2: metadata.b: also given as a top-level field b');
	});

	it('a lossy context conversion keeps the original list in metadata', () => {
		const ctx = [{ doc_uri: 'u', content: 'c', score: 0.9 }];
		const out = loadDataset([{ request: 'q', response: 'a', retrieved_context: ctx }]);
		expect(out.records[0].retrieved_context).toEqual([{ doc_uri: 'u', content: 'c' }]);
		expect(out.records[0].metadata).toEqual({ retrieved_context: ctx });
	});
});
