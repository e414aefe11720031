/**
 * BLEU as Azure AI Evaluation's `BleuScoreEvaluator` computes it: nltk 3.9.2
 * `sentence_bleu([nltk_tokenize(ground_truth)], nltk_tokenize(response),
 * smoothing_function=SmoothingFunction().method4)` with weights (0.25,)*4 (Papineni et al. 2002;
 * method4 from Chen & Cherry 2014). Exact behaviour: clipped counts over unnormalised
 * fractions (denominator max(1, count)); 0 when no unigram matches; method4 replaces each zero
 * numerator order by 1/(2^k * 5/ln(hyp_len)) / denominator (k = 1, 2...) only when hyp_len > 1;
 * orders still at 0 are skipped in the log sum, which uses `math.fsum`; BP is 1 when c > r, 0 when
 * c = 0, else exp(1 - r/c), with r the closest reference length (ties to the shorter).
 */
import type { MetricDecl } from '../core/types';
import { statArray, statNumber } from './corpus';
import { responseGroundTruthInputs } from './f1';
import { nltkTokenizeIds } from './tokenize';
import { pyExp, pyLog } from './tokenize/pymath';
import { matchTokenizedNgrams, matchTokenNgrams } from './tokenize/ids';
import { fsum, requireText } from './tokenize/util';

const MAX_ORDER = 4;
const WEIGHTS = [0.25, 0.25, 0.25, 0.25];
// SmoothingFunction's default k.
const METHOD4_K = 5;

/** Mergeable sufficient statistics of nltk BLEU for one pair or (summed) a corpus. */
export interface BleuStats {
	/** Clipped n-gram matches per order 1..4. */
	matches: number[];
	/** Per-order denominators as nltk sums them: max(1, hypothesis n-gram count) per sentence. */
	totals: number[];
	hypLen: number;
	/** Closest reference length to the hypothesis length (ties go to the shorter). */
	refLen: number;
}

/** Statistics of one pair from already tokenized texts (one reference). */
export function bleuStatsFromTokens(hyp: readonly string[], ref: readonly string[]): BleuStats {
	const matches = [0, 0, 0, 0];
	matchTokenNgrams(hyp, ref, MAX_ORDER, matches);
	const totals: number[] = [];
	for (let n = 1; n <= MAX_ORDER; n++) totals.push(Math.max(1, hyp.length - n + 1));
	return { matches, totals, hypLen: hyp.length, refLen: ref.length };
}

/** nltk BLEU statistics for one pair, tokenized as Azure does. */
export function bleuStats(response: string, groundTruth: string): BleuStats {
	const hyp = requireText(response, 'response');
	const ref = requireText(groundTruth, 'groundTruth');
	// Same tokens as nltkTokenize, interned straight to ids (see bleuStatsFromTokens).
	const matches = [0, 0, 0, 0];
	const lengths = [0, 0];
	matchTokenizedNgrams(hyp, ref, nltkTokenizeIds, MAX_ORDER, matches, lengths);
	const totals: number[] = [];
	for (let n = 1; n <= MAX_ORDER; n++) totals.push(Math.max(1, lengths[0] - n + 1));
	return { matches, totals, hypLen: lengths[0], refLen: lengths[1] };
}

function brevityPenalty(refLen: number, hypLen: number): number {
	if (hypLen > refLen) return 1;
	if (hypLen === 0) return 0;
	return pyExp(1 - refLen / hypLen);
}

/** nltk `corpus_bleu` with method4 smoothing over (summed) statistics. */
export function bleuFromStats(stats: BleuStats): number {
	if (stats.matches[0] === 0) return 0;
	const bp = brevityPenalty(stats.refLen, stats.hypLen);
	const p: number[] = [];
	let incvnt = 1;
	// math.log(hyp_len) is the same for every order: computed once, at most.
	let logHypLen = NaN;
	for (let i = 0; i < MAX_ORDER; i++) {
		if (stats.matches[i] === 0 && stats.hypLen > 1) {
			if (Number.isNaN(logHypLen)) logHypLen = pyLog(stats.hypLen);
			const numerator = 1 / ((2 ** incvnt * METHOD4_K) / logHypLen);
			p.push(numerator / stats.totals[i]);
			incvnt++;
		} else {
			p.push(stats.matches[i] / stats.totals[i]);
		}
	}
	const logs: number[] = [];
	for (let i = 0; i < MAX_ORDER; i++) if (p[i] > 0) logs.push(WEIGHTS[i] * pyLog(p[i]));
	return bp * pyExp(fsum(logs));
}

/** Azure's `bleu_score` for one pair, in [0, 1]. */
export function bleuScore(response: string, groundTruth: string): number {
	return bleuFromStats(bleuStats(response, groundTruth));
}

/** nltk `corpus_bleu` (method4) over pairs, one reference each: statistics summed, then scored. */
export function bleuCorpus(responses: readonly string[], groundTruths: readonly string[]): number {
	if (responses.length !== groundTruths.length) {
		throw new RangeError('responses and groundTruths must have the same length');
	}
	const sum: BleuStats = { matches: [0, 0, 0, 0], totals: [0, 0, 0, 0], hypLen: 0, refLen: 0 };
	for (let i = 0; i < responses.length; i++) {
		const s = bleuStats(responses[i], groundTruths[i]);
		for (let n = 0; n < MAX_ORDER; n++) {
			sum.matches[n] += s.matches[n];
			sum.totals[n] += s.totals[n];
		}
		sum.hypLen += s.hypLen;
		sum.refLen += s.refLen;
	}
	return bleuFromStats(sum);
}

/** Declaration of `bleu` (Azure BleuScoreEvaluator parity); stats feed corpus BLEU. */
export const bleuMetric: MetricDecl = {
	id: 'bleu',
	version: '1.0.0',
	displayName: 'BLEU',
	description: 'Sentence BLEU of the response against the ground truth, as Azure computes it',
	reference:
		'Papineni et al. 2002; Azure AI Evaluation BleuScoreEvaluator = nltk 3.9.2 sentence_bleu, weights 0.25x4, SmoothingFunction().method4, nltk_tokenize',
	anchorNames: ['BleuScoreEvaluator', 'sentence_bleu'],
	inputs: responseGroundTruthInputs,
	params: [],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	signatureParts: 'nrefs:1|tok:nltk-azure|smooth:method4|weights:0.25x4|version:nltk-3.9.2',
	compute(inputs) {
		const s = bleuStats(inputs.response as string, inputs.groundTruth as string);
		return {
			value: bleuFromStats(s),
			stats: { matches: s.matches, totals: s.totals, hypLen: s.hypLen, refLen: s.refLen },
		};
	},
	corpus: (s) =>
		bleuFromStats({
			matches: statArray(s, 'matches'),
			totals: statArray(s, 'totals'),
			hypLen: statNumber(s, 'hypLen'),
			refLen: statNumber(s, 'refLen'),
		}),
};
