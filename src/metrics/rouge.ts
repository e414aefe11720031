/**
 * ROUGE as Azure AI Evaluation's `RougeScoreEvaluator` computes it: Google's `rouge_score`
 * (vendored by Azure) `RougeScorer([type]).score(ground_truth, response)` without stemming
 * (Lin 2004). Exact behaviour: rouge_score tokens (lowercase [a-z0-9] runs); ROUGE-N precision
 * = overlap / max(pred n-grams, 1), recall likewise on the target; ROUGE-L from the LCS, (0,0,0)
 * when either side has no tokens; ROUGE-Lsum splits on "\n" only, unions each reference
 * sentence's LCS positions (rouge_score's backtracking tie order) and clips hits by token counts;
 * F = 2PR/(P+R), or 0.0 when P+R is 0.
 */
import type { MetricDecl, MetricResult } from '../core/types';
import { responseGroundTruthInputs } from './f1';
import { rougeTokenize } from './tokenize/rouge';
import { clippedOverlap, countIds, Interner, NgramSpace, requireText } from './tokenize/util';

/** The ROUGE variants rouge_score offers (Azure exposes all but rougeLsum). */
export type RougeType =
	| 'rouge1'
	| 'rouge2'
	| 'rouge3'
	| 'rouge4'
	| 'rouge5'
	| 'rougeL'
	| 'rougeLsum';

/** The ROUGE variants, in the order the node lists them. */
export const ROUGE_TYPES: readonly RougeType[] = [
	'rouge1',
	'rouge2',
	'rouge3',
	'rouge4',
	'rouge5',
	'rougeL',
	'rougeLsum',
];

/** Precision, recall and F-measure of one ROUGE variant on one pair. */
export interface RougeScore {
	precision: number;
	recall: number;
	fmeasure: number;
}

function fmeasure(precision: number, recall: number): number {
	return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0.0;
}

function score(precision: number, recall: number): RougeScore {
	return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/**
 * LCS length by Hyyrö's bit-parallel algorithm: O(|a|·|b|/32), identical to the DP table's
 * last cell, which is all ROUGE-L needs (the reference's pure-Python table is O(|a|·|b|)).
 */
export function lcsLength(a: readonly number[], b: readonly number[]): number {
	const m = a.length;
	if (m === 0 || b.length === 0) return 0;
	const words = (m + 31) >>> 5;
	const masks = new Map<number, Uint32Array>();
	for (let i = 0; i < m; i++) {
		let mask = masks.get(a[i]);
		if (!mask) {
			mask = new Uint32Array(words);
			masks.set(a[i], mask);
		}
		mask[i >>> 5] |= 1 << (i & 31);
	}
	const v = new Uint32Array(words).fill(0xffffffff);
	const tail = m & 31;
	const tailMask = tail === 0 ? 0xffffffff : ((1 << tail) >>> 0) - 1;
	v[words - 1] = tailMask;
	for (let j = 0; j < b.length; j++) {
		const mask = masks.get(b[j]);
		if (!mask) continue;
		let carry = 0;
		for (let w = 0; w < words; w++) {
			const vw = v[w];
			const u = vw & mask[w];
			const sum = vw + (u >>> 0) + carry;
			carry = sum > 0xffffffff ? 1 : 0;
			v[w] = ((sum >>> 0) | (vw & ~u)) >>> 0;
		}
		v[words - 1] &= tailMask;
	}
	let ones = 0;
	for (let w = 0; w < words; w++) {
		let x = v[w];
		x -= (x >>> 1) & 0x55555555;
		x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
		ones += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
	}
	return m - ones;
}

/** rouge_score's `_lcs_table` + `_backtrack_norec`: reference indices of one LCS. */
function lcsIndices(ref: readonly number[], can: readonly number[]): number[] {
	const rows = ref.length;
	const cols = can.length;
	const width = cols + 1;
	const t = new Int32Array((rows + 1) * width);
	for (let i = 1; i <= rows; i++) {
		const ri = ref[i - 1];
		const row = i * width;
		const up = row - width;
		for (let j = 1; j <= cols; j++) {
			if (ri === can[j - 1]) t[row + j] = t[up + j - 1] + 1;
			else {
				const a = t[up + j];
				const b = t[row + j - 1];
				t[row + j] = a > b ? a : b;
			}
		}
	}
	const out: number[] = [];
	let i = rows;
	let j = cols;
	while (i > 0 && j > 0) {
		if (ref[i - 1] === can[j - 1]) {
			out.push(i - 1);
			i--;
			j--;
		} else if (t[i * width + j - 1] > t[(i - 1) * width + j]) j--;
		else i--;
	}
	return out.reverse();
}

function summaryLevelLcs(refSents: number[][], canSents: number[][]): RougeScore {
	if (refSents.length === 0 || canSents.length === 0) return score(0, 0);
	let m = 0;
	let n = 0;
	for (const s of refSents) m += s.length;
	for (const s of canSents) n += s.length;
	if (n === 0 || m === 0) return score(0, 0);
	const cntR = new Map<number, number>();
	const cntC = new Map<number, number>();
	for (const s of refSents) for (const t of s) cntR.set(t, (cntR.get(t) ?? 0) + 1);
	for (const s of canSents) for (const t of s) cntC.set(t, (cntC.get(t) ?? 0) + 1);
	let hits = 0;
	for (const r of refSents) {
		const union = new Set<number>();
		for (const c of canSents) for (const idx of lcsIndices(r, c)) union.add(idx);
		const sorted = [...union].sort((x, y) => x - y);
		for (const idx of sorted) {
			const tok = r[idx];
			const c = cntC.get(tok) ?? 0;
			const rr = cntR.get(tok) ?? 0;
			if (c > 0 && rr > 0) {
				hits++;
				cntC.set(tok, c - 1);
				cntR.set(tok, rr - 1);
			}
		}
	}
	return score(hits / n, hits / m);
}

/** ROUGE of `type` for one pair: Azure's rouge_precision / rouge_recall / rouge_f1_score. */
export function rougeScore(response: string, groundTruth: string, type: RougeType): RougeScore {
	const prediction = requireText(response, 'response');
	const target = requireText(groundTruth, 'groundTruth');
	if (!ROUGE_TYPES.includes(type)) {
		throw new TypeError(`type must be one of ${ROUGE_TYPES.join(', ')}, got ${String(type)}`);
	}
	const interner = new Interner();
	if (type === 'rougeLsum') {
		const sents = (text: string) =>
			text
				.split('\n')
				.filter((s) => s.length > 0)
				.map((s) => interner.intern(rougeTokenize(s)));
		return summaryLevelLcs(sents(target), sents(prediction));
	}
	const t = interner.intern(rougeTokenize(target));
	const p = interner.intern(rougeTokenize(prediction));
	if (type === 'rougeL') {
		if (t.length === 0 || p.length === 0) return score(0, 0);
		const lcs = lcsLength(t, p);
		return score(lcs / p.length, lcs / t.length);
	}
	const n = Number(type.slice(5));
	const space = new NgramSpace(interner.size);
	const tIds = space.levels(t, n)[n - 1];
	const pIds = space.levels(p, n)[n - 1];
	const size = space.size(n);
	const overlap = clippedOverlap(tIds, countIds(tIds, size), countIds(pIds, size));
	const tCount = tIds.length;
	const pCount = pIds.length;
	return score(overlap / Math.max(pCount, 1), overlap / Math.max(tCount, 1));
}

function rougeTypeParam(params: Record<string, unknown>): RougeType {
	const t = params.rougeType ?? 'rougeL';
	if (typeof t !== 'string' || !ROUGE_TYPES.includes(t as RougeType)) {
		throw new TypeError(`rougeType must be one of ${ROUGE_TYPES.join(', ')}`);
	}
	return t as RougeType;
}

function numberParam(params: Record<string, unknown>, name: string, fallback: number): number {
	const v = params[name] ?? fallback;
	if (typeof v !== 'number' || !Number.isFinite(v)) {
		throw new TypeError(`${name} must be a finite number`);
	}
	return v;
}

/** Declaration of `rouge` (Azure RougeScoreEvaluator parity); the score key is the type. */
export const rougeMetric: MetricDecl = {
	id: 'rouge',
	version: '1.0.0',
	displayName: 'ROUGE',
	description:
		'ROUGE-N / ROUGE-L overlap of the response with the ground truth, as Azure computes it',
	reference:
		'Lin 2004; Azure AI Evaluation RougeScoreEvaluator = Google rouge_score RougeScorer([type], use_stemmer=False).score(ground_truth, response)',
	inputs: responseGroundTruthInputs,
	params: [
		{
			name: 'rougeType',
			displayName: 'ROUGE Type',
			type: 'options',
			default: 'rougeL',
			options: ROUGE_TYPES.map((t) => ({ name: t, value: t })),
			description: 'n-gram order (rouge1-rouge5) or longest common subsequence (rougeL, rougeLsum)',
		},
		{
			name: 'precisionThreshold',
			displayName: 'Precision Threshold',
			type: 'number',
			default: 0.5,
			description: 'Precision must be at least this for the row to pass',
		},
		{
			name: 'recallThreshold',
			displayName: 'Recall Threshold',
			type: 'number',
			default: 0.5,
			description: 'Recall must be at least this for the row to pass',
		},
	],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	signatureParts: 'nrefs:1|tok:rouge-score|stem:no|split:newline|version:rouge-score-0.1.2',
	compute(inputs, params): MetricResult {
		const s = rougeScore(
			inputs.response as string,
			inputs.groundTruth as string,
			rougeTypeParam(params),
		);
		return {
			value: s.fmeasure,
			details: { precision: s.precision, recall: s.recall, fmeasure: s.fmeasure },
		};
	},
	scoreKey(params) {
		return rougeTypeParam(params);
	},
	passes(result, params, threshold) {
		const d = result.details as RougeScore | undefined;
		if (!d) return false;
		return (
			d.precision >= numberParam(params, 'precisionThreshold', 0.5) &&
			d.recall >= numberParam(params, 'recallThreshold', 0.5) &&
			d.fmeasure >= threshold
		);
	},
};
