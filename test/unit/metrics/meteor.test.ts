import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceDir } from '../../support/conformance';
import { evaluateMetric } from '../../../src/core/evaluate';
import {
	meteorDetailsFromTokens,
	meteorFromTokens,
	meteorMetric,
	meteorScore,
} from '../../../src/metrics/meteor';

interface Row {
	id: string;
	category: string;
	response: string;
	ground_truth: string;
	expected: { meteor_score: number };
}
interface TokenRow {
	id: string;
	tokens: { nltk: { response: string[]; ground_truth: string[] } };
}

const dir = conformanceDir();
const readJsonl = <T>(file: string): T[] =>
	readFileSync(join(dir, file), 'utf8')
		.split('\n')
		.filter((l) => l.trim() !== '')
		.map((l) => JSON.parse(l) as T);
const rows = readJsonl<Row>('metric-conformance.jsonl');
const tokens = new Map(
	readJsonl<TokenRow>('metric-conformance-tokens.jsonl').map((r) => [r.id, r.tokens.nltk]),
);

describe('METEOR conformance (nltk 3.9.2 via Azure)', () => {
	it('has the public rows', () => {
		expect(rows.length).toBe(1006);
	});

	it('reproduces expected.meteor_score bit for bit on every row, from the raw texts', () => {
		const wrong = rows
			.map((r) => ({
				id: r.id,
				got: meteorScore(r.response, r.ground_truth),
				want: r.expected.meteor_score,
			}))
			.filter((x) => x.got !== x.want);
		expect(wrong).toEqual([]);
	});

	it('reproduces every row from the tokens the reference saw', () => {
		const wrong = rows.filter((r) => {
			const t = tokens.get(r.id);
			if (t === undefined) throw new Error(`no tokens for ${r.id}`);
			return meteorFromTokens(t.response, t.ground_truth) !== r.expected.meteor_score;
		});
		expect(wrong.map((r) => r.id)).toEqual([]);
	});

	it.each(['edge/meteor-porter-nltk-extensions', 'edge/meteor-wordnet-3.0-vs-3.1'])(
		'matches the %s category',
		(category) => {
			const subset = rows.filter((r) => r.category === category);
			expect(subset.length).toBeGreaterThanOrEqual(4);
			for (const r of subset) {
				expect({ id: r.id, score: meteorScore(r.response, r.ground_truth) }).toEqual({
					id: r.id,
					score: r.expected.meteor_score,
				});
			}
		},
	);

	it('matches syn-0421, where nltk 3.9 Morphy strips only the last suffix', () => {
		const r = rows.find((x) => x.id === 'syn-0421');
		expect(r).toBeDefined();
		if (r) expect(meteorScore(r.response, r.ground_truth)).toBe(r.expected.meteor_score);
	});
});

describe('METEOR behaviour', () => {
	it('aligns exact, then stems, then WordNet synonyms of the hypothesis stem', () => {
		// "dog" and "hound" share a synset: all three words align in one chunk (nltk: 0.98148...).
		const d = meteorDetailsFromTokens(['the', 'dog', 'barked'], ['the', 'hound', 'barked']);
		expect(d).toMatchObject({ matches: 3, chunks: 1 });
		expect(d.score).toBe(0.9814814814814815);
		const none = meteorDetailsFromTokens(['the', 'big', 'cats'], ['a', 'blue', 'dog']);
		expect(none).toMatchObject({ matches: 0, score: 0 });
	});

	it('compares synonyms with the reference stem, as nltk does', () => {
		// "cats" ~ "cat" by stem; "big" and "large" are WordNet synonyms, but the reference word
		// has become the stem "larg" by then, which is no lemma name: nltk aligns 2 words, not 3.
		const d = meteorDetailsFromTokens(['the', 'big', 'cats'], ['the', 'large', 'cat']);
		expect(d).toMatchObject({ matches: 2, chunks: 2 });
		expect(d.score).toBe(0.3333333333333333);
	});

	it('is case-insensitive like str.lower preprocessing', () => {
		expect(meteorFromTokens(['Tokyo', 'IS', 'big'], ['tokyo', 'is', 'BIG'])).toBe(
			meteorFromTokens(['tokyo', 'is', 'big'], ['tokyo', 'is', 'big']),
		);
	});

	it('penalises word order through chunks', () => {
		const ordered = meteorDetailsFromTokens(['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd']);
		const reversed = meteorDetailsFromTokens(['d', 'c', 'b', 'a'], ['a', 'b', 'c', 'd']);
		expect(ordered.chunks).toBe(1);
		expect(reversed.chunks).toBe(4);
		expect(reversed.score).toBeLessThan(ordered.score);
	});

	it('pairs repeated words with the last unmatched reference occurrence', () => {
		// hyp x(0) x(1), ref x(0) y(1) x(2): hyp 1 takes ref 2, hyp 0 takes ref 0 -> 2 chunks.
		expect(meteorDetailsFromTokens(['x', 'x'], ['x', 'y', 'x'])).toMatchObject({
			matches: 2,
			chunks: 2,
		});
	});

	it('computes (1 - alpha) in doubles, giving the last bit nltk gives', () => {
		// P = 1/3, R = 1: with (1 - 0.9) = 0.09999999999999998 nltk gets 0.4166666666666667;
		// a literal 0.1 would give 0.41666666666666663.
		expect(meteorFromTokens(['x', 'q', 'z'], ['x'])).toBe(0.4166666666666667);
	});

	it('gives 0.0 for empty inputs and never NaN', () => {
		expect(meteorScore('', '')).toBe(0);
		expect(meteorScore('hello', '')).toBe(0);
		expect(meteorScore('   \n\t', 'hello')).toBe(0);
		expect(meteorFromTokens([], [])).toBe(0);
		for (const [a, b] of [
			['...', '!!!'],
			['😀', '😀'],
			['a', 'a a a a a'],
		]) {
			expect(Number.isNaN(meteorScore(a, b))).toBe(false);
		}
	});

	it('throws TypeErrors naming the bad argument', () => {
		expect(() => meteorScore(42 as unknown as string, 'x')).toThrow(/response/);
		expect(() => meteorScore('x', null as unknown as string)).toThrow(/groundTruth/);
		expect(() => meteorScore('x', null as unknown as string)).toThrow(TypeError);
		expect(() => meteorFromTokens('a b' as unknown as string[], ['a'])).toThrow(/hypTokens/);
	});

	it('validates the weights', () => {
		expect(() => meteorFromTokens(['a'], ['a'], { alpha: 1.5 })).toThrow(RangeError);
		expect(() => meteorFromTokens(['a'], ['a'], { beta: Number.NaN })).toThrow(RangeError);
		expect(() => meteorFromTokens(['a'], ['a'], { gamma: -1 })).toThrow(RangeError);
	});
});

describe('meteorMetric declaration', () => {
	it('declares Azure defaults', () => {
		expect(meteorMetric.id).toBe('meteor');
		expect(meteorMetric.version).toBe('1');
		expect(meteorMetric.inputs.map((i) => [i.name, i.field, i.kind, i.required])).toEqual([
			['response', 'response', 'text', true],
			['groundTruth', 'expected_response', 'text', true],
		]);
		expect(meteorMetric.params.map((p) => [p.name, p.type, p.default])).toEqual([
			['alpha', 'number', 0.9],
			['beta', 'number', 3],
			['gamma', 'number', 0.5],
		]);
		expect(meteorMetric.scale).toEqual({ kind: 'unit', min: 0, max: 1 });
		expect(meteorMetric.threshold).toEqual({ default: 0.5, direction: 'higher' });
		expect(meteorMetric.signatureParts).toBe('tok:nltk-azure|stem:porter-nltk_ext|wn:3.0');
	});

	it('computes with its params', () => {
		const r = rows[0];
		const defaults = meteorMetric.compute(
			{ response: r.response, groundTruth: r.ground_truth },
			{ alpha: 0.9, beta: 3, gamma: 0.5 },
		);
		expect(defaults.value).toBe(r.expected.meteor_score);
		expect(defaults.details).toMatchObject({
			matches: expect.any(Number),
			chunks: expect.any(Number),
		});
		const noPenalty = meteorMetric.compute(
			{ response: r.response, groundTruth: r.ground_truth },
			{ alpha: 0.9, beta: 3, gamma: 0 },
		);
		expect(noPenalty.value).toBeGreaterThan(defaults.value);
		expect(() =>
			meteorMetric.compute({ response: 'a', groundTruth: 'a' }, { alpha: '0.9' }),
		).toThrow(TypeError);
	});

	it('produces a Score through the core with the weights in the signature', () => {
		const score = evaluateMetric(meteorMetric, {
			response: 'The cat sat.',
			groundTruth: 'The cat sat.',
		});
		expect(score.status).toBe('ok');
		expect(score.pass).toBe(true);
		expect(score.signature).toContain('stem:porter-nltk_ext');
		expect(score.signature).toContain('alpha:0.9');
	});
});
