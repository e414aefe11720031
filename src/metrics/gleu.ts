/**
 * Google-BLEU as Azure AI Evaluation's `GleuScoreEvaluator` computes it: nltk 3.9.2
 * `sentence_gleu([nltk_tokenize(ground_truth)], nltk_tokenize(response))` (Wu et al. 2016),
 * min_len 1, max_len 4. Exact behaviour: all 1-4-grams pooled (`everygrams`, a shorter text just
 * has fewer orders), score = overlap / max(hyp n-grams, ref n-grams), 0.0 when both are empty.
 */
import type { MetricDecl } from '../core/types';
import { responseGroundTruthInputs } from './f1';
import { nltkTokenizeIds } from './tokenize';
import { matchTokenizedNgrams, matchTokenNgrams } from './tokenize/ids';
import { requireText } from './tokenize/util';

/** GLEU of already tokenized texts (one reference). */
export function gleuFromTokens(hyp: readonly string[], ref: readonly string[]): number {
	const matches = [0, 0, 0, 0];
	matchTokenNgrams(hyp, ref, 4, matches);
	return gleuFromCounts(hyp.length, ref.length, matches);
}

/** GLEU from the token counts and the clipped matches of orders 1-4. */
function gleuFromCounts(hypLen: number, refLen: number, matches: number[]): number {
	// everygrams pools orders 1-4: counts and clipped matches simply add up over the orders.
	let hypCount = 0;
	let refCount = 0;
	let overlap = 0;
	for (let n = 1; n <= 4; n++) {
		hypCount += Math.max(hypLen - n + 1, 0);
		refCount += Math.max(refLen - n + 1, 0);
		overlap += matches[n - 1];
	}
	const nAll = Math.max(hypCount, refCount);
	if (nAll === 0) return 0;
	return overlap / nAll;
}

/** Azure's `gleu_score` for one pair, in [0, 1]. */
export function gleuScore(response: string, groundTruth: string): number {
	const hyp = requireText(response, 'response');
	const ref = requireText(groundTruth, 'groundTruth');
	// Same tokens as nltkTokenize, interned straight to ids; then as gleuFromTokens.
	const matches = [0, 0, 0, 0];
	const lengths = [0, 0];
	matchTokenizedNgrams(hyp, ref, nltkTokenizeIds, 4, matches, lengths);
	return gleuFromCounts(lengths[0], lengths[1], matches);
}

/** Declaration of `gleu` (Azure GleuScoreEvaluator parity). */
export const gleuMetric: MetricDecl = {
	id: 'gleu',
	version: '1.0.0',
	displayName: 'GLEU',
	description: 'Google-BLEU (min of n-gram precision and recall) as Azure computes it',
	reference:
		'Wu et al. 2016; Azure AI Evaluation GleuScoreEvaluator = nltk 3.9.2 sentence_gleu, 1-4-grams, nltk_tokenize',
	anchorNames: ['GleuScoreEvaluator', 'sentence_gleu', 'Google BLEU'],
	inputs: responseGroundTruthInputs,
	params: [],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	signatureParts: 'nrefs:1|tok:nltk-azure|ngrams:1-4|version:nltk-3.9.2',
	compute(inputs) {
		return { value: gleuScore(inputs.response as string, inputs.groundTruth as string) };
	},
};
