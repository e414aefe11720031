/**
 * Token-overlap F1, as Azure AI Evaluation's `F1ScoreEvaluator` computes it
 * (azure-ai-evaluation `_evaluators/_f1_score/_f1_score.py`, SQuAD-style normalisation).
 * Exact behaviour: `lower()`, drop ASCII `string.punctuation`, replace `\b(a|an|the)\b` with a
 * space using Python's Unicode-aware word boundary, `str.split()`; common = multiset
 * intersection size; 0.0 when nothing is shared, else 2PR/(P+R) with Python's evaluation order.
 */
import type { InputDecl, MetricDecl } from '../core/types';
import { pySplit } from './tokenize/py';
import { requireText } from './tokenize/util';

const PUNCTUATION_RE = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// Python's \w on str is isalnum() or "_"; \p{L}/\p{N} is the JS equivalent (combining marks are
// not \w in Python either), so the lookarounds reproduce its \b around the articles.
const ARTICLES_RE = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/** The two text inputs every reference-based traditional metric takes. */
export const responseGroundTruthInputs: InputDecl[] = [
	{
		name: 'response',
		displayName: 'Response',
		field: 'response',
		kind: 'text',
		required: true,
		description: 'The text produced by the application under test',
	},
	{
		name: 'groundTruth',
		displayName: 'Ground Truth',
		field: 'expected_response',
		kind: 'text',
		required: true,
		description: 'The reference answer the response is compared with',
	},
];

/** Azure's F1 normalisation followed by `str.split()`. */
export function f1Tokens(text: string): string[] {
	const lowered = text.toLowerCase().replace(PUNCTUATION_RE, '');
	return pySplit(lowered.replace(ARTICLES_RE, ' '));
}

function counts(tokens: string[]): Map<string, number> {
	const m = new Map<string, number>();
	for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
	return m;
}

/** Azure's `f1_score` for one pair, in [0, 1]. */
export function f1Score(response: string, groundTruth: string): number {
	const pred = f1Tokens(requireText(response, 'response'));
	const ref = f1Tokens(requireText(groundTruth, 'groundTruth'));
	const refCounts = counts(ref);
	let common = 0;
	for (const [tok, c] of counts(pred)) common += Math.min(c, refCounts.get(tok) ?? 0);
	if (common === 0) return 0;
	const precision = (1.0 * common) / pred.length;
	const recall = (1.0 * common) / ref.length;
	return (2.0 * precision * recall) / (precision + recall);
}

/** Declaration of `f1_score` (Azure F1ScoreEvaluator parity). */
export const f1ScoreMetric: MetricDecl = {
	id: 'f1_score',
	version: '1.0.0',
	displayName: 'F1 Score',
	description: 'Shared-word F1 between the response and the ground truth, as Azure computes it',
	reference:
		'Azure AI Evaluation F1ScoreEvaluator: SQuAD normalisation (lowercase, strip ASCII punctuation and articles), whitespace tokens, multiset overlap',
	inputs: responseGroundTruthInputs,
	params: [],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	signatureParts: 'nrefs:1|tok:squad-split|version:azure-ai-evaluation',
	compute(inputs) {
		return { value: f1Score(inputs.response as string, inputs.groundTruth as string) };
	},
};
