/**
 * Hostile dataset shapes (issue 10): a row nested 100,000 levels deep goes to Invalid with a clear
 * message and every other row loads, whatever the container (JSON, JSON Lines, items, a JSON text
 * inside a field, a CSV cell); nothing in loading recurses over user data.
 */
import { DatasetError, loadDataset, normaliseRow, stableStringify } from '../../../src/record';
import { prepareDataset } from '../../../src/dataset/prepare';

const DEEP = 100_000;
const TOO_DEEP = 'nested deeper than 1000 levels';

/** JSON text of `{"a": {"a": ... 1 ...}}`, `levels` objects deep, built without recursion. */
const deepObjectText = (levels: number): string =>
	'{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const deepArrayText = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

/** Depth of a value, iteratively (the row itself is level 1). */
function depthOf(v: unknown): number {
	let max = 0;
	const stack: [unknown, number][] = [[v, 1]];
	while (stack.length > 0) {
		const [x, d] = stack.pop() as [unknown, number];
		if (x === null || typeof x !== 'object') continue;
		max = Math.max(max, d);
		for (const c of Object.values(x)) stack.push([c, d + 1]);
	}
	return max;
}

const ok = (n: number): string => JSON.stringify({ request: `q${n}`, response: `a${n}` });
const deepRowText = `{"request": "q2", "response": "a2", "metadata": ${deepObjectText(DEEP)}}`;

function expectDeepRowInvalid(res: ReturnType<typeof loadDataset>, path = 'metadata'): void {
	expect(res.records.map((r) => r.request)).toEqual(['q1', 'q3']);
	expect(res.invalid).toHaveLength(1);
	const bad = res.invalid[0];
	expect(bad.row).toBe(2);
	expect(bad.path).toBe(path);
	expect(bad.message).toBe(TOO_DEEP);
	expect(bad.error).toBe(`row 2: ${path}: ${TOO_DEEP}`);
	expect(res.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
	// What leaves is safe to serialise: the raw row is cut at the limit with a marker.
	expect(depthOf(bad.raw)).toBeLessThanOrEqual(1000);
	expect(JSON.stringify(bad.raw)).toContain(`[${TOO_DEEP}: cut here]`);
	expect(() => JSON.stringify(res)).not.toThrow();
}

describe('a row nested 100,000 levels deep', () => {
	it('in JSON Lines: that row is invalid, the others load', () => {
		expectDeepRowInvalid(loadDataset([ok(1), deepRowText, ok(3)].join('\n')));
	});

	it('in a JSON array', () => {
		expectDeepRowInvalid(loadDataset(`[${ok(1)}, ${deepRowText}, ${ok(3)}]`));
	});

	it('as items, including deep arrays', () => {
		const deepItem = JSON.parse(deepRowText) as Record<string, unknown>;
		expectDeepRowInvalid(loadDataset([JSON.parse(ok(1)), deepItem, JSON.parse(ok(3))]));
		const arrays = {
			request: 'q2',
			response: 'a2',
			guidelines: JSON.parse(deepArrayText(DEEP)) as unknown,
		};
		expectDeepRowInvalid(loadDataset([JSON.parse(ok(1)), arrays, JSON.parse(ok(3))]), 'guidelines');
		const one = normaliseRow(deepItem);
		expect(one).toEqual({ ok: false, issues: [{ path: 'metadata', message: TOO_DEEP }] });
	});

	it('as JSON text inside a field (an MLflow trace string) or a CSV cell', () => {
		const trace = JSON.stringify({ request: 'q2', trace: deepObjectText(DEEP) });
		const res = loadDataset([ok(1), trace, ok(3)].join('\n'));
		expect(res.records.map((r) => r.request)).toEqual(['q1', 'q3']);
		expect(res.invalid[0].error).toBe(`row 2: trace: ${TOO_DEEP}`);
		const csv = loadDataset(
			`request,response,expected_facts\nq1,a1,"[""x""]"\nq2,a2,${deepArrayText(DEEP)}\n`,
		);
		expect(csv.records.map((r) => r.request)).toEqual(['q1']);
		expect(csv.invalid[0].error).toBe(`row 2: expected_facts: ${TOO_DEEP}`);
	});

	it('the limit is 1000 levels: a row exactly 1000 deep loads, 1001 does not', () => {
		// The row is level 1 and metadata level 2, so k nested objects make a row k + 1 deep.
		const row = (k: number): string =>
			`{"request": "q", "response": "a", "metadata": ${deepObjectText(k)}}`;
		const res = loadDataset([row(999), row(1000)].join('\n'));
		expect(res.records.map((r) => r.source.row)).toEqual([1]);
		expect(res.invalid.map((i) => i.error)).toEqual([`row 2: metadata: ${TOO_DEEP}`]);
	});

	it('stableStringify is iterative: any depth, keys sorted, undefined left out', () => {
		const text = deepObjectText(DEEP);
		expect(stableStringify(JSON.parse(text))).toBe(text);
		expect(stableStringify({ b: [undefined, () => 1], a: { d: new Date(0), c: undefined } })).toBe(
			'{"a":{"d":"1970-01-01T00:00:00.000Z"},"b":[null,null]}',
		);
	});
});

describe('dataset error texts', () => {
	it('name the row by request_id as well as position, under a mapped column too', () => {
		const out = loadDataset([
			{ request_id: 'q7', request: 3, response: 'a' },
			{ request_id: 8, response: [1] },
			{ request: 3 },
		]);
		expect(out.invalid.map((i) => i.error)).toEqual([
			'row 1: request: expected string or object, got number (request_id "q7")',
			'row 2: response: expected string or object, got array; request: required in Databricks Agent Evaluation rows (seed 002): the question, as text or chat messages (request_id "8")',
			'row 3: request: expected string or object, got number',
		]);
		expect(out.invalid.map((i) => i.request_id)).toEqual(['q7', '8', undefined]);
		const mapped = loadDataset([{ id: 'case-1', question: 5 }], {
			mapping: { id: 'request_id', question: 'request' },
		});
		expect(mapped.invalid[0].error).toBe(
			'row 1: question: expected string or object, got number (request_id "case-1")',
		);
	});

	it('the Eval Dataset preparation passes the same text and the request_id on', () => {
		const prepared = prepareDataset([
			{ content: '{"request_id": "r-1", "request": 1}\n', itemIndex: 0 },
		]);
		expect(prepared.invalid[0].json).toMatchObject({
			row: 1,
			request_id: 'r-1',
			error: 'row 1: request: expected string or object, got number (request_id "r-1")',
		});
	});

	it('a header-only CSV, or an empty JSON array, says there are no rows', () => {
		const err = (input: string): DatasetError => {
			try {
				loadDataset(input);
			} catch (e) {
				return e as DatasetError;
			}
			throw new Error('expected a DatasetError');
		};
		expect(err('request,response\n')).toMatchObject({
			code: 'empty',
			message: 'the CSV file has a header row but no rows',
		});
		expect(err('request,response\r\n\r\n').code).toBe('empty');
		expect(err('[]').message).toBe('the JSON file is an empty array: no rows');
		expect(err('{"data": []}').message).toBe('the JSON file\'s "data" array has no rows');
		const prepared = prepareDataset([{ content: 'query,response\n', itemIndex: 0 }]);
		expect(prepared.fatal).toMatchObject({
			message: 'the CSV file has a header row but no rows',
			remedy: expect.stringMatching(/^Add rows to the dataset/),
		});
	});
});

describe('JSON Lines read from bytes', () => {
	it('gives the same rows as the decoded text: BOM, CRLF, blank lines, a 1 MB block edge', () => {
		const lines: string[] = [];
		for (let i = 0; i < 3000; i++) {
			// ~600 bytes a line, non-ASCII text, a blank line every 500 and one broken line.
			if (i % 500 === 499) lines.push('');
			else if (i === 1234) lines.push('{"request": "broken",');
			else
				lines.push(
					JSON.stringify({
						request_id: `r${i}`,
						request: `q${i} 数据 ${'é'.repeat(280)}`,
						response: 'a',
					}),
				);
		}
		const text = '\ufeff' + lines.join('\r\n') + '\r\n';
		const fromBytes = loadDataset(Buffer.from(text, 'utf8'));
		const fromText = loadDataset(text);
		expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
		expect(fromBytes.format).toBe('jsonl');
		expect(fromBytes.records).toHaveLength(3000 - 6 - 1);
		expect(fromBytes.records).toEqual(fromText.records);
		expect(fromBytes.invalid.map((i) => i.row)).toEqual([1235]);
		expect(fromBytes.fingerprint).toBe(fromText.fingerprint);
		const last = fromBytes.records[fromBytes.records.length - 1];
		expect(last).toMatchObject({ request_id: 'r2998', source: { row: 2999 } });
	});

	it('bytes that are not UTF-8 are still one located error', () => {
		const bytes = Buffer.concat([
			Buffer.from('{"request": "q", "response": "a"}\n{"request": "'),
			Buffer.from([0xe9]),
			Buffer.from('"}\n'),
		]);
		expect(() => loadDataset(bytes)).toThrow(
			'the file is not valid UTF-8 at byte 47 (line 2); save it as UTF-8 and load it again',
		);
	});
});
