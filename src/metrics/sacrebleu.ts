/**
 * sacreBLEU 2.6.0 BLEU (Post 2018, "A Call for Clarity in Reporting BLEU Scores"), a second BLEU
 * flavour beside Azure's nltk one. Sentence level equals `sacrebleu.sentence_bleu(hyp, [ref])`:
 * `rstrip()`, tokenizer 13a, case kept, smoothing `exp`, effective order. Corpus level equals
 * `BLEU().corpus_score(hyps, [refs])` (no effective order) over summed statistics.
 * Exact behaviour (`BLEU.compute_bleu`): score 0 (BP still reported) when no n-gram matches; a zero
 * order gets 100/(2^k·total) (k counts the zero orders so far); orders with total 0 end the loop
 * and, with effective order, shrink the mean; log(0) is -9999999999.
 */
import type { MetricDecl } from '../core/types';
import { statArray, statNumber } from './corpus';
import { responseGroundTruthInputs } from './f1';
import { pyExp, pyLog } from './tokenize/pymath';
import { pyRstrip } from './tokenize/py';
import { tokenize13aIds } from './tokenize/sacrebleu13a';
import { CharTokenTable, NgramMatcher } from './tokenize/ids';
import { requireText } from './tokenize/util';

const MAX_ORDER = 4;

const table = new CharTokenTable();
const matcher = new NgramMatcher();
let hypIds: Int32Array = new Int32Array(256);
let refIds: Int32Array = new Int32Array(256);
const lens = [0];

/** Mergeable sufficient statistics of sacreBLEU (one pair, or summed over a corpus). */
export interface SacreBleuStats {
	/** Matched n-grams per order 1..4. */
	counts: number[];
	/** Hypothesis n-grams per order 1..4. */
	totals: number[];
	sysLen: number;
	refLen: number;
}

/** A sacreBLEU score with its statistics, on the 0-100 scale (sacreBLEU's `BLEUScore`). */
export interface SacreBleuResult extends SacreBleuStats {
	score: number;
	precisions: number[];
	bp: number;
}

/** sacreBLEU statistics of one pair (13a tokens after `rstrip()`, one reference). */
export function sacreBleuStats(response: string, groundTruth: string): SacreBleuStats {
	const hypText = pyRstrip(requireText(response, 'response'));
	const refText = pyRstrip(requireText(groundTruth, 'groundTruth'));
	table.reset();
	hypIds = tokenize13aIds(hypText, table, hypIds, lens);
	const hl = lens[0];
	refIds = tokenize13aIds(refText, table, refIds, lens);
	const rl = lens[0];
	const counts = [0, 0, 0, 0];
	matcher.match(hypIds, hl, refIds, rl, table.size, MAX_ORDER, counts);
	const totals: number[] = [];
	for (let n = 1; n <= MAX_ORDER; n++) totals.push(Math.max(hl - n + 1, 0));
	return { counts, totals, sysLen: hl, refLen: rl };
}

function myLog(x: number): number {
	return x === 0 ? -9999999999 : pyLog(x);
}

/** sacreBLEU `BLEU.compute_bleu` with smooth_method 'exp'. */
export function sacreBleuFromStats(
	stats: SacreBleuStats,
	effectiveOrder: boolean,
): SacreBleuResult {
	const counts = stats.counts.slice();
	const totals = stats.totals.slice();
	const { sysLen, refLen } = stats;
	// BP comes first: the no-match early return still reports it.
	const bp = sysLen < refLen ? (sysLen > 0 ? pyExp(1 - refLen / sysLen) : 0) : 1;
	const precisions = [0, 0, 0, 0];
	if (!counts.some((c) => c !== 0)) {
		return { score: 0, counts, totals, precisions, bp, sysLen, refLen };
	}
	let smooth = 1;
	let effOrder = MAX_ORDER;
	for (let n = 1; n <= MAX_ORDER; n++) {
		if (totals[n - 1] === 0) break;
		if (effectiveOrder) effOrder = n;
		if (counts[n - 1] === 0) {
			smooth *= 2;
			precisions[n - 1] = 100 / (smooth * totals[n - 1]);
		} else {
			precisions[n - 1] = (100 * counts[n - 1]) / totals[n - 1];
		}
	}
	let logSum = 0;
	for (let i = 0; i < effOrder; i++) logSum += myLog(precisions[i]);
	const score = bp * pyExp(logSum / effOrder);
	return { score, counts, totals, precisions, bp, sysLen, refLen };
}

/** `sacrebleu.sentence_bleu(response, [groundTruth])`: 0-100 with its statistics. */
export function sacreBleuSentence(response: string, groundTruth: string): SacreBleuResult {
	return sacreBleuFromStats(sacreBleuStats(response, groundTruth), true);
}

/** `BLEU().corpus_score(responses, [groundTruths])`: statistics summed, then scored. */
export function sacreBleuCorpus(
	responses: readonly string[],
	groundTruths: readonly string[],
): SacreBleuResult {
	if (responses.length !== groundTruths.length) {
		throw new RangeError('responses and groundTruths must have the same length');
	}
	const sum: SacreBleuStats = { counts: [0, 0, 0, 0], totals: [0, 0, 0, 0], sysLen: 0, refLen: 0 };
	for (let i = 0; i < responses.length; i++) {
		const s = sacreBleuStats(responses[i], groundTruths[i]);
		for (let n = 0; n < MAX_ORDER; n++) {
			sum.counts[n] += s.counts[n];
			sum.totals[n] += s.totals[n];
		}
		sum.sysLen += s.sysLen;
		sum.refLen += s.refLen;
	}
	return sacreBleuFromStats(sum, false);
}

/**
 * Declaration of `sacrebleu` (0-100). Default threshold 50: the 0-100 counterpart of Azure's 0.5
 * on its 0-1 BLEU, so the two flavours gate alike.
 */
export const sacreBleuMetric: MetricDecl = {
	id: 'sacrebleu',
	version: '1.0.0',
	displayName: 'sacreBLEU',
	description: 'Sentence BLEU (0-100) with sacreBLEU defaults: 13a tokens, exp smoothing',
	reference:
		'Post 2018; sacreBLEU 2.6.0 sentence_bleu (tokenize 13a, smooth exp, effective order) and BLEU().corpus_score for aggregates',
	anchorNames: ['sentence_bleu', 'corpus_bleu', 'BLEU 13a'],
	inputs: responseGroundTruthInputs,
	params: [],
	scale: { kind: 'count', min: 0, max: 100 },
	threshold: { default: 50, direction: 'higher' },
	signatureParts: 'nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0',
	compute(inputs) {
		const r = sacreBleuSentence(inputs.response as string, inputs.groundTruth as string);
		return {
			value: r.score,
			details: { precisions: r.precisions, bp: r.bp },
			stats: { counts: r.counts, totals: r.totals, sysLen: r.sysLen, refLen: r.refLen },
		};
	},
	corpus: (s) =>
		sacreBleuFromStats(
			{
				counts: statArray(s, 'counts'),
				totals: statArray(s, 'totals'),
				sysLen: statNumber(s, 'sysLen'),
				refLen: statNumber(s, 'refLen'),
			},
			false,
		).score,
};
