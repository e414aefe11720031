/**
 * Retrieval metrics on hand-computed cases: duplicates counted once at their first rank, k beyond
 * the list, empty retrieval, chunks without a URI, graded NDCG, and rows without expected documents.
 */
import { evaluateMetric } from '../../../src/core/evaluate';
import {
	documentRecall,
	documentRecallMetric,
	hitRateAtK,
	hitRateAtKMetric,
	mrrMetric,
	ndcgAtK,
	ndcgAtKMetric,
	precisionAtK,
	precisionAtKMetric,
	rankedUris,
	readExpectedDocs,
	recallAtK,
	reciprocalRank,
} from '../../../src/metrics/retrieval';

const E = (...uris: string[]) => uris.map((uri) => ({ uri, grade: 1 }));
// Ranked a, b, c, d once the repeated a is dropped; relevant a, c, e.
const ret = ['a', 'b', 'a', 'c', 'd'];
const exp = E('a', 'c', 'e');

describe('retrieval metric functions', () => {
	it('drop repeated URIs, keeping the first rank; URI-less ranks stay', () => {
		expect(rankedUris(ret)).toEqual(['a', 'b', 'c', 'd']);
		expect(rankedUris([undefined, 'a', undefined, 'a'])).toEqual([undefined, 'a', undefined]);
	});

	it('document recall: expected documents found anywhere', () => {
		expect(documentRecall(ret, exp)).toBe(2 / 3);
		expect(documentRecall([], exp)).toBe(0);
		expect(documentRecall(['a', 'a', 'a'], E('a', 'b'))).toBe(1 / 2);
	});

	it('precision@k divides by k, also beyond the list; duplicates count once', () => {
		expect(precisionAtK(ret, exp, 1)).toBe(1);
		expect(precisionAtK(ret, exp, 3)).toBe(2 / 3); // a, b, c
		expect(precisionAtK(ret, exp, 10)).toBe(2 / 10);
		expect(precisionAtK(['a', 'a', 'a'], E('a'), 3)).toBe(1 / 3);
		expect(precisionAtK([], exp, 5)).toBe(0);
		expect(() => precisionAtK(ret, exp, 0)).toThrow(/positive integer/);
	});

	it('recall@k and hit rate@k', () => {
		expect(recallAtK(ret, exp, 2)).toBe(1 / 3); // a, b
		expect(recallAtK(ret, exp, 10)).toBe(2 / 3);
		expect(hitRateAtK(ret, exp, 1)).toBe(1);
		expect(hitRateAtK(['b', 'd', 'a'], exp, 2)).toBe(0);
		expect(hitRateAtK(['b', 'd', 'a'], exp, 3)).toBe(1);
	});

	it('reciprocal rank of the first relevant document', () => {
		expect(reciprocalRank(ret, exp)).toBe(1);
		expect(reciprocalRank(['x', 'x', 'y', 'c'], exp)).toBe(1 / 3); // x, y, c
		expect(reciprocalRank([undefined, 'a'], exp)).toBe(1 / 2);
		expect(reciprocalRank(['x'], exp)).toBe(0);
	});

	it('NDCG@k, binary: ranks 1 and 3 relevant out of three relevant documents', () => {
		// DCG@3 = 1/log2(2) + 0 + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3) + 1/2.
		expect(ndcgAtK(ret, exp, 3)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3) + 0.5), 12);
		expect(ndcgAtK(['a', 'c', 'e'], exp, 3)).toBe(1);
		expect(ndcgAtK([], exp, 3)).toBe(0);
	});

	it('NDCG@k, graded: the better document ranked second loses', () => {
		const graded = [
			{ uri: 'a', grade: 1 },
			{ uri: 'c', grade: 3 },
		];
		// DCG = 1/1 + 3/log2(3); ideal = 3/1 + 1/log2(3).
		const want = (1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3));
		expect(ndcgAtK(['a', 'c'], graded, 2)).toBeCloseTo(want, 12);
		expect(ndcgAtK(['c', 'a'], graded, 2)).toBe(1);
	});

	it('NDCG@k, exponential gain (Azure): 2^grade - 1, the same as linear on binary labels', () => {
		const graded = [
			{ uri: 'a', grade: 3 },
			{ uri: 'b', grade: 2 },
			{ uri: 'c', grade: 0 },
			{ uri: 'd', grade: 1 },
		];
		// Ranked b, x, a: DCG = 3/1 + 0 + 7/2 = 6.5; ideal 3, 2, 1: 7 + 3/log2(3) + 1/2.
		expect(ndcgAtK(['b', 'x', 'a'], graded, 3, 'exponential')).toBeCloseTo(
			6.5 / (7 + 3 / Math.log2(3) + 0.5),
			12,
		);
		// Linear on the same ranking: (2 + 3/2) / (3 + 2/log2(3) + 1/2).
		expect(ndcgAtK(['b', 'x', 'a'], graded, 3)).toBeCloseTo(3.5 / (3.5 + 2 / Math.log2(3)), 12);
		expect(ndcgAtK(ret, exp, 3, 'exponential')).toBe(ndcgAtK(ret, exp, 3, 'linear'));
		expect(() => ndcgAtK(ret, exp, 3, 'cubic' as never)).toThrow(/gain must be/);
	});

	it('reads expected documents as URIs or objects with grades', () => {
		expect(readExpectedDocs(['u1', { doc_uri: 'u2', grade: 2 }, { content: 'no uri' }])).toEqual([
			{ uri: 'u1', grade: 1 },
			{ uri: 'u2', grade: 2 },
		]);
		expect(() => readExpectedDocs([{ content: 'x' }])).toThrow(/no document has a doc_uri/);
		expect(() => readExpectedDocs([{ doc_uri: 'a', grade: -1 }])).toThrow(/grade/);
	});
});

describe('retrieval metric declarations', () => {
	const row = {
		retrieved: [
			{ doc_uri: 'a', content: 'x' },
			{ doc_uri: 'b' },
			{ doc_uri: 'a' },
			{ doc_uri: 'c' },
		],
		expected: [{ doc_uri: 'a' }, { doc_uri: 'c' }, { doc_uri: 'e' }],
	};

	it('score rows through the shared evaluator with details', () => {
		const s = evaluateMetric(documentRecallMetric, row);
		expect(s).toMatchObject({ metric: 'document_recall', status: 'ok', value: 2 / 3, pass: true });
		expect(s.details).toEqual({ retrieved: 3, expected: 3, found: ['a', 'c'] });
		expect(evaluateMetric(precisionAtKMetric, row, { params: { k: 2 } })).toMatchObject({
			value: 1 / 2,
			details: { k: 2 },
		});
		expect(evaluateMetric(mrrMetric, row).value).toBe(1);
		expect(evaluateMetric(hitRateAtKMetric, row).value).toBe(1);
		// Ranked a, b, c: DCG@3 = 1 + 0 + 1/2.
		expect(evaluateMetric(ndcgAtKMetric, row, { params: { k: 3 } }).value).toBeCloseTo(
			1.5 / (1 + 1 / Math.log2(3) + 0.5),
			12,
		);
	});

	it('no expected documents: not applicable; empty retrieval: 0; no URI at all: an error', () => {
		for (const expected of [undefined, [], '']) {
			const s = evaluateMetric(documentRecallMetric, { retrieved: row.retrieved, expected });
			expect(s).toMatchObject({ status: 'not_applicable', value: null, pass: null });
			expect(s.reason).toMatch(/expected_retrieved_context/);
		}
		expect(evaluateMetric(documentRecallMetric, { retrieved: [], expected: ['a'] })).toMatchObject({
			status: 'ok',
			value: 0,
			pass: false,
		});
		expect(
			evaluateMetric(documentRecallMetric, {
				retrieved: row.retrieved,
				expected: [{ content: 'x' }],
			}),
		).toMatchObject({ status: 'error', error: expect.stringMatching(/no document has a doc_uri/) });
	});
});
