import {
	bleuScore,
	f1Score,
	gleuScore,
	lcsLength,
	ROUGE_TYPES,
	rougeScore,
	sacreBleuSentence,
} from '../../../src/metrics';
import { loadRows } from '../../support/conformance';

type Pair = [string, string];
const scorers: [string, (r: string, g: string) => number][] = [
	['f1', f1Score],
	['bleu', bleuScore],
	['gleu', gleuScore],
	['sacrebleu', (r, g) => sacreBleuSentence(r, g).score],
	...ROUGE_TYPES.map((t): [string, (r: string, g: string) => number] => [
		t,
		(r, g) => rougeScore(r, g, t).fmeasure,
	]),
];

describe('degenerate inputs', () => {
	const pairs: Pair[] = [
		['', ''],
		['', 'something'],
		['something', ''],
		['   \t\n', ' '],
		['word', 'word'],
		['word', 'other'],
		['!!!', '...'],
		['the a an', 'the'],
		['日本語のテキスト', '日本語のテキスト'],
		['\u00a0\u2028\u3000', 'x'],
	];

	it.each(scorers)('%s never returns NaN or Infinity and stays in range', (_name, fn) => {
		for (const [r, g] of pairs) {
			const v = fn(r, g);
			expect(Number.isFinite(v)).toBe(true);
			expect(v).toBeGreaterThanOrEqual(0);
			// sacreBLEU's exp(mean log) can land an ulp above 100, as the reference does.
			expect(v).toBeLessThanOrEqual(_name === 'sacrebleu' ? 100 + 1e-9 : 1);
		}
	});

	it('gives the reference values on empty strings', () => {
		expect(f1Score('', '')).toBe(0);
		expect(bleuScore('', '')).toBe(0);
		expect(gleuScore('', '')).toBe(0);
		expect(rougeScore('', '', 'rougeL')).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
		expect(sacreBleuSentence('', '').score).toBe(0);
		expect(sacreBleuSentence('', '').bp).toBe(1);
	});

	it('scores a one-word exact match as the references do', () => {
		expect(f1Score('Paris', 'paris')).toBe(1);
		// nltk: p1 = 1 and the other orders stay 0 (hyp_len 1 gets no method4 smoothing).
		expect(bleuScore('Paris', 'Paris')).toBe(1);
		expect(gleuScore('Paris', 'Paris')).toBe(1);
		expect(rougeScore('Paris', 'Paris', 'rouge2')).toEqual({
			precision: 0,
			recall: 0,
			fmeasure: 0,
		});
	});

	it('keeps the Unicode-aware article rule of F1', () => {
		// Python's \b treats é as a word character, so "éa" keeps its "a".
		expect(f1Score('éa the b', 'éa b')).toBe(1);
	});

	it('ROUGE ignores non-ASCII letters as separators', () => {
		expect(rougeScore('ｆｕｌｌ width', 'width', 'rouge1').recall).toBe(1);
		expect(rougeScore('naïve', 'na ve', 'rouge1').fmeasure).toBe(1);
	});

	it.each([
		['a number', 42],
		['null', null],
		['an array', ['a']],
		['undefined', undefined],
	])('rejects %s with a TypeError naming the argument', (_kind, bad) => {
		const b = bad as unknown as string;
		expect(() => f1Score(b, 'x')).toThrow(/response must be a string/);
		expect(() => bleuScore('x', b)).toThrow(/groundTruth must be a string/);
		expect(() => gleuScore(b, 'x')).toThrow(TypeError);
		expect(() => rougeScore('x', b, 'rouge1')).toThrow(/groundTruth/);
		expect(() => sacreBleuSentence(b, 'x')).toThrow(/response/);
	});

	it('rejects an unknown ROUGE type', () => {
		expect(() => rougeScore('a', 'a', 'rouge9' as 'rouge1')).toThrow(TypeError);
	});
});

describe('long texts', () => {
	const long = loadRows().filter((r) => r.category === 'long');

	it('has the long conformance pairs', () => {
		expect(long.length).toBeGreaterThan(0);
	});

	it('bit-parallel LCS equals the textbook DP on random sequences across word boundaries', () => {
		let seed = 7;
		const rand = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed % n;
		};
		for (const [m, n] of [
			[1, 1],
			[31, 40],
			[32, 32],
			[33, 70],
			[64, 5],
			[97, 130],
		]) {
			const a = Array.from({ length: m }, () => rand(6));
			const b = Array.from({ length: n }, () => rand(6));
			const t = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
			for (let i = 1; i <= m; i++)
				for (let j = 1; j <= n; j++)
					t[i][j] =
						a[i - 1] === b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
			expect(lcsLength(a, b)).toBe(t[m][n]);
		}
	});

	it('scores a 2,000-word text against itself as a perfect match', () => {
		const text = long[0].ground_truth;
		expect(rougeScore(text, text, 'rougeL').fmeasure).toBe(1);
		expect(rougeScore(text, text, 'rougeLsum').fmeasure).toBe(1);
		expect(bleuScore(text, text)).toBe(1);
		expect(sacreBleuSentence(text, text).score).toBeCloseTo(100, 9);
	});
});
