import {
	bleuCorpus,
	bleuStats,
	corpusFinalizers,
	sacreBleuCorpus,
	sacreBleuFromStats,
	sacreBleuStats,
	sumStats,
	type Stats,
} from '../../../src/metrics';
import { bleuMetric } from '../../../src/metrics/bleu';
import { sacreBleuMetric } from '../../../src/metrics/sacrebleu';
import { loadRows } from '../../support/conformance';

const rows = loadRows();
const responses = rows.map((r) => r.response);
const truths = rows.map((r) => r.ground_truth);

/** Sums the stats of rows [from, to) as a node batch would. */
function batchStats(stats: (r: (typeof rows)[number]) => Stats, from: number, to: number): Stats {
	let acc: Stats = {};
	for (let i = from; i < to; i++) acc = sumStats(acc, stats(rows[i]));
	return acc;
}

describe('sumStats', () => {
	it('adds numbers and per-order arrays element-wise, a missing key counting 0', () => {
		expect(sumStats({ a: 1, b: [1, 2] }, { a: 2, b: [3, 4], c: 5 })).toEqual({
			a: 3,
			b: [4, 6],
			c: 5,
		});
	});

	it('rejects a key that is an array on one side only', () => {
		expect(() => sumStats({ a: [1] }, { a: 1 })).toThrow(TypeError);
	});
});

describe('corpus sacreBLEU (BLEU().corpus_score semantics)', () => {
	const fromExpected = rows.reduce<Stats>(
		(acc, r) =>
			sumStats(acc, {
				counts: r.expected.sacrebleu_sentence.counts,
				totals: r.expected.sacrebleu_sentence.totals,
				sysLen: r.expected.sacrebleu_sentence.sys_len,
				refLen: r.expected.sacrebleu_sentence.ref_len,
			}),
		{},
	);

	it("finalizing the reference's own per-sentence statistics equals our corpus score from raw texts", () => {
		const ours = sacreBleuCorpus(responses, truths);
		expect(corpusFinalizers.sacrebleu(fromExpected)).toBe(ours.score);
		expect([ours.sysLen, ours.refLen]).toEqual([fromExpected.sysLen, fromExpected.refLen]);
		expect(ours.counts).toEqual(fromExpected.counts);
	});

	it('uses sacreBLEU corpus formula: BP x geometric mean of the four summed precisions', () => {
		const s = sacreBleuCorpus(responses, truths);
		const logMean =
			s.counts.map((c, i) => Math.log((100 * c) / s.totals[i])).reduce((a, b) => a + b, 0) / 4;
		const bp = s.sysLen < s.refLen ? Math.exp(1 - s.refLen / s.sysLen) : 1;
		expect(s.score).toBeCloseTo(bp * Math.exp(logMean), 10);
		// Never the mean of sentence scores.
		const meanSentence =
			rows.reduce((a, r) => a + r.expected.sacrebleu_sentence.score, 0) / rows.length;
		expect(Math.abs(s.score - meanSentence)).toBeGreaterThan(1);
	});

	it('a run split into batches merges to exactly the single-pass result', () => {
		const stats = (r: (typeof rows)[number]) =>
			sacreBleuMetric.compute({ response: r.response, groundTruth: r.ground_truth }, {}).stats!;
		const whole = batchStats(stats, 0, rows.length);
		const merged = sumStats(
			sumStats(batchStats(stats, 0, 317), batchStats(stats, 317, 700)),
			batchStats(stats, 700, rows.length),
		);
		expect(merged).toEqual(whole);
		expect(corpusFinalizers.sacrebleu(merged)).toBe(sacreBleuCorpus(responses, truths).score);
	});

	it('a corpus without any match scores 0 and a zero order is smoothed (exp)', () => {
		expect(sacreBleuFromStats(sacreBleuStats('a b', 'c d'), false).score).toBe(0);
		const s = sacreBleuFromStats(
			{ counts: [2, 0, 0, 0], totals: [2, 1, 0, 0], sysLen: 2, refLen: 2 },
			true,
		);
		expect(s.precisions).toEqual([100, 50, 0, 0]);
		expect(s.score).toBeCloseTo(Math.sqrt(100 * 50), 10);
	});
});

describe('corpus BLEU (nltk corpus_bleu, method4)', () => {
	it('finalizing summed per-row stats equals nltk corpus_bleu over the raw texts', () => {
		const stats = (r: (typeof rows)[number]) =>
			bleuMetric.compute({ response: r.response, groundTruth: r.ground_truth }, {}).stats!;
		const merged = sumStats(batchStats(stats, 0, 500), batchStats(stats, 500, rows.length));
		const corpus = bleuCorpus(responses, truths);
		expect(corpusFinalizers.bleu(merged)).toBe(corpus);
		expect(corpus).toBeGreaterThan(0);
		expect(corpus).toBeLessThan(1);
	});

	it('sums nltk denominators as max(1, count) per sentence', () => {
		const s = bleuStats('word', 'word');
		expect(s.totals).toEqual([1, 1, 1, 1]);
		expect(s.matches).toEqual([1, 0, 0, 0]);
	});

	it('returns 0 when no unigram matches anywhere in the corpus', () => {
		expect(bleuCorpus(['alpha beta'], ['gamma delta'])).toBe(0);
	});

	it('rejects stats of the wrong shape', () => {
		expect(() =>
			corpusFinalizers.bleu({ matches: [1], totals: [1], hypLen: 1, refLen: 1 }),
		).toThrow(TypeError);
	});
});
