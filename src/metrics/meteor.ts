/**
 * METEOR as Azure AI Evaluation's `MeteorScoreEvaluator` computes it: nltk 3.9.2
 * `nltk.translate.meteor_score.meteor_score([nltk_tokenize(ground_truth)],
 * nltk_tokenize(response), alpha=0.9, beta=3.0, gamma=0.5)` with nltk's defaults
 * `preprocess=str.lower`, `PorterStemmer()` (NLTK_EXTENSIONS) and WordNet 3.0.
 * Reference: S. Banerjee and A. Lavie, "METEOR: An Automatic Metric for MT Evaluation with
 * Improved Correlation with Human Judgments", ACL workshop 2005; nltk's single-reference variant.
 * Exact behaviour: three alignment stages (exact words, Porter stems, WordNet synonyms of the
 * hypothesis stem compared with the reference stem), each scanning the hypothesis from its end
 * and taking the last unmatched equal reference word; matches sorted by hypothesis position;
 * a chunk ends wherever the next match is not (h+1, r+1); fmean = P*R / (alpha*P + (1-alpha)*R)
 * with (1-alpha) in doubles; score = (1 - gamma*(chunks/matches)^beta) * fmean; 0.0 when there
 * is no match or either side is empty.
 */
import { responseGroundTruthInputs } from './f1';
import type { MetricDecl, ParamDecl } from '../core/types';
import { porterStem } from './porter';
import { nltkTokenize } from './tokenize';
import { synonymSetOrNull } from './wordnet';

/** METEOR's weights: alpha balances precision and recall, beta and gamma shape the penalty. */
export interface MeteorOptions {
	alpha?: number;
	beta?: number;
	gamma?: number;
}

/** The numbers behind one METEOR score. */
export interface MeteorDetails {
	score: number;
	matches: number;
	chunks: number;
	hypothesisLength: number;
	referenceLength: number;
}

/** nltk's defaults, which Azure passes explicitly. */
export const METEOR_DEFAULTS = { alpha: 0.9, beta: 3, gamma: 0.5 } as const;

/** A word with its position in the original token list (nltk's "enum" pairs). */
interface Indexed {
	index: number;
	word: string;
}

type Match = readonly [hyp: number, ref: number];

/**
 * Exact-equality stage in O(n + m): nltk pairs each hypothesis word, from the end, with the last
 * remaining equal reference word, which is the top of a per-word stack of reference positions.
 */
function alignEqual(hyp: Indexed[], ref: Indexed[], out: Match[]): [Indexed[], Indexed[]] {
	const positions = new Map<string, number[]>();
	for (let j = 0; j < ref.length; j++) {
		const list = positions.get(ref[j].word);
		if (list === undefined) positions.set(ref[j].word, [j]);
		else list.push(j);
	}
	const refTaken = new Uint8Array(ref.length);
	const hypLeft: Indexed[] = [];
	for (let i = hyp.length - 1; i >= 0; i--) {
		const j = positions.get(hyp[i].word)?.pop();
		if (j === undefined) {
			hypLeft.push(hyp[i]);
		} else {
			out.push([hyp[i].index, ref[j].index]);
			refTaken[j] = 1;
		}
	}
	return [hypLeft.reverse(), ref.filter((_, j) => refTaken[j] === 0)];
}

/**
 * Synonym stage: for each hypothesis word from the end, the last remaining reference word in its
 * WordNet synonym set is paired with it.
 */
function alignSynonyms(hyp: Indexed[], ref: Indexed[], out: Match[]): void {
	const refTaken = new Uint8Array(ref.length);
	for (let i = hyp.length - 1; i >= 0; i--) {
		const synonyms = synonymSetOrNull(hyp[i].word);
		// Only the word itself: no remaining reference word equals it (else the stem stage would
		// have paired them), so nothing can match.
		if (synonyms === null) continue;
		for (let j = ref.length - 1; j >= 0; j--) {
			if (refTaken[j] === 0 && synonyms.has(ref[j].word)) {
				out.push([hyp[i].index, ref[j].index]);
				refTaken[j] = 1;
				break;
			}
		}
	}
}

const stemCache = new Map<string, string>();

function cachedStem(word: string): string {
	let s = stemCache.get(word);
	if (s === undefined) {
		s = porterStem(word);
		if (stemCache.size >= 200_000) stemCache.clear();
		stemCache.set(word, s);
	}
	return s;
}

/** Matches of the three stages, sorted by hypothesis position. */
function align(hypTokens: readonly string[], refTokens: readonly string[]): Match[] {
	const hyp: Indexed[] = hypTokens.map((word, index) => ({ index, word: word.toLowerCase() }));
	const ref: Indexed[] = refTokens.map((word, index) => ({ index, word: word.toLowerCase() }));
	const matches: Match[] = [];
	let [hypLeft, refLeft] = alignEqual(hyp, ref, matches);
	if (hypLeft.length > 0 && refLeft.length > 0) {
		// nltk hands the stemmed leftovers to the synonym stage, so WordNet sees stems.
		for (const e of hypLeft) e.word = cachedStem(e.word);
		for (const e of refLeft) e.word = cachedStem(e.word);
		[hypLeft, refLeft] = alignEqual(hypLeft, refLeft, matches);
	}
	if (hypLeft.length > 0 && refLeft.length > 0) {
		// Skipping the stage when a side is exhausted also keeps WordNet unloaded for such pairs.
		alignSynonyms(hypLeft, refLeft, matches);
	}
	// Hypothesis indices are unique, so any sort order on them equals Python's stable sort.
	return matches.sort((a, b) => a[0] - b[0]);
}

function countChunks(matches: readonly Match[]): number {
	let chunks = 1;
	for (let i = 0; i < matches.length - 1; i++) {
		if (!(matches[i + 1][0] === matches[i][0] + 1 && matches[i + 1][1] === matches[i][1] + 1)) {
			chunks++;
		}
	}
	return chunks;
}

function checkWeights(opts: MeteorOptions): { alpha: number; beta: number; gamma: number } {
	const alpha = opts.alpha ?? METEOR_DEFAULTS.alpha;
	const beta = opts.beta ?? METEOR_DEFAULTS.beta;
	const gamma = opts.gamma ?? METEOR_DEFAULTS.gamma;
	// Outside these ranges the formula can divide by zero or leave [0, 1]; nltk would not stop it.
	if (!(Number.isFinite(alpha) && alpha >= 0 && alpha <= 1)) {
		throw new RangeError(`alpha must be a number in [0, 1], got ${String(alpha)}`);
	}
	if (!(Number.isFinite(beta) && beta >= 0)) {
		throw new RangeError(`beta must be a finite number >= 0, got ${String(beta)}`);
	}
	if (!(Number.isFinite(gamma) && gamma >= 0 && gamma <= 1)) {
		throw new RangeError(`gamma must be a number in [0, 1], got ${String(gamma)}`);
	}
	return { alpha, beta, gamma };
}

function checkTokens(tokens: unknown, name: string): readonly string[] {
	if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === 'string')) {
		throw new TypeError(`${name} must be an array of strings`);
	}
	return tokens as readonly string[];
}

/** METEOR of already tokenized texts, with the numbers behind it. */
export function meteorDetailsFromTokens(
	hypTokens: readonly string[],
	refTokens: readonly string[],
	opts: MeteorOptions = {},
): MeteorDetails {
	const hyp = checkTokens(hypTokens, 'hypTokens');
	const ref = checkTokens(refTokens, 'refTokens');
	const { alpha, beta, gamma } = checkWeights(opts);
	const base = { hypothesisLength: hyp.length, referenceLength: ref.length };
	if (hyp.length === 0 || ref.length === 0) return { score: 0, matches: 0, chunks: 0, ...base };
	const matches = align(hyp, ref);
	const m = matches.length;
	if (m === 0) return { score: 0, matches: 0, chunks: 0, ...base };
	const precision = m / hyp.length;
	const recall = m / ref.length;
	// Same operation order as nltk so the double result is bit-identical.
	const fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall);
	const chunks = countChunks(matches);
	const penalty = gamma * Math.pow(chunks / m, beta);
	return { score: (1 - penalty) * fmean, matches: m, chunks, ...base };
}

/** nltk `single_meteor_score(reference, hypothesis)` on token lists (hypothesis first here). */
export function meteorFromTokens(
	hypTokens: readonly string[],
	refTokens: readonly string[],
	opts: MeteorOptions = {},
): number {
	return meteorDetailsFromTokens(hypTokens, refTokens, opts).score;
}

function requireString(value: unknown, name: string): string {
	if (typeof value === 'string') return value;
	const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
	throw new TypeError(`${name} must be a string, got ${kind}`);
}

/** Azure's `meteor_score` for one pair: both texts through Azure's `nltk_tokenize` first. */
export function meteorScore(
	response: string,
	groundTruth: string,
	opts: MeteorOptions = {},
): number {
	const hyp = nltkTokenize(requireString(response, 'response'));
	const ref = nltkTokenize(requireString(groundTruth, 'groundTruth'));
	return meteorFromTokens(hyp, ref, opts);
}

function numberParam(params: Record<string, unknown>, name: keyof MeteorOptions): number {
	const v = params[name] ?? METEOR_DEFAULTS[name];
	if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${typeof v}`);
	return v;
}

const weightParams: ParamDecl[] = [
	{
		name: 'alpha',
		displayName: 'Alpha',
		type: 'number',
		default: METEOR_DEFAULTS.alpha,
		description: 'Weight of precision against recall in the harmonic mean (0-1)',
	},
	{
		name: 'beta',
		displayName: 'Beta',
		type: 'number',
		default: METEOR_DEFAULTS.beta,
		description: 'Exponent of the fragmentation penalty',
	},
	{
		name: 'gamma',
		displayName: 'Gamma',
		type: 'number',
		default: METEOR_DEFAULTS.gamma,
		description: 'Maximum fragmentation penalty (0-1)',
	},
];

/** Declaration of `meteor` (Azure MeteorScoreEvaluator parity). */
export const meteorMetric: MetricDecl = {
	id: 'meteor',
	version: '1',
	displayName: 'METEOR Score',
	description:
		'Word alignment of response and ground truth by exact words, stems and WordNet synonyms, with a word-order penalty',
	reference:
		'Azure AI Evaluation MeteorScoreEvaluator: nltk 3.9.2 meteor_score over nltk_tokenize tokens, str.lower, Porter NLTK_EXTENSIONS stems, WordNet 3.0 synonyms with Morphy',
	anchorNames: ['MeteorScoreEvaluator', 'meteor_score'],
	inputs: responseGroundTruthInputs,
	params: weightParams,
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	// The weights are appended from `params` by the core's signature, so they are not repeated.
	signatureParts: 'tok:nltk-azure|stem:porter-nltk_ext|wn:3.0',
	compute(inputs, params) {
		const opts: MeteorOptions = {
			alpha: numberParam(params, 'alpha'),
			beta: numberParam(params, 'beta'),
			gamma: numberParam(params, 'gamma'),
		};
		const hyp = nltkTokenize(requireString(inputs.response, 'response'));
		const ref = nltkTokenize(requireString(inputs.groundTruth, 'groundTruth'));
		const d = meteorDetailsFromTokens(hyp, ref, opts);
		return {
			value: d.score,
			details: {
				matches: d.matches,
				chunks: d.chunks,
				hypothesisLength: d.hypothesisLength,
				referenceLength: d.referenceLength,
			},
		};
	},
};
