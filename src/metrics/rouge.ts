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
import { CharTokenTable, lowerUnitTable, NgramMatcher, Scratch } from './tokenize/ids';
import { requireText } from './tokenize/util';

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

const table = new CharTokenTable();
const matcher = new NgramMatcher();
const scratchA = new Scratch();
const scratchB = new Scratch();
const scratchC = new Scratch();
let tIds: Int32Array = new Int32Array(256);
let pIds: Int32Array = new Int32Array(256);
let tSents: Int32Array = new Int32Array(64);
let pSents: Int32Array = new Int32Array(64);
const lens = [0, 0];
// The (maybe grown) sentence-end array of the last rougeIds call that recorded sentences.
let lastSents: Int32Array = tSents;
const matchOut = [0, 0, 0, 0, 0];

function grow(a: Int32Array): Int32Array {
	const b = new Int32Array(a.length * 2);
	b.set(a);
	return b;
}

/**
 * rouge_score's tokenizer (see tokenize/rouge.ts) straight to ids in one pass: the text is
 * lowercased with JS `toLowerCase` only when it is not ASCII (ASCII A-Z are mapped on the fly,
 * the same result), and every maximal [a-z0-9] run is a token. With `sents`, also records for
 * each non-empty "\n"-separated line (rougeLsum's sentences) the token count at its end.
 * Returns the ids; lens[0] = token count, lens[1] = sentence count.
 */
function rougeIds(text: string, out: Int32Array, sents: Int32Array | null): Int32Array {
	// Lowercased unit by unit (lowerUnitTable); a unit without a context-free one-unit lowercase
	// restarts the scan on text.toLowerCase().
	return (
		rougeScan(text, out, sents, true) ??
		(rougeScan(text.toLowerCase(), out, sents, false) as Int32Array)
	);
}

// Per ASCII unit: the lowercase unit when it is [A-Za-z0-9], else 0 (a separator).
const ALNUM = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ALNUM[c] = c;
for (let c = 97; c <= 122; c++) {
	ALNUM[c] = c;
	ALNUM[c - 32] = c;
}

function rougeScan(
	src: string,
	out: Int32Array,
	sents: Int32Array | null,
	perUnit: boolean,
): Int32Array | null {
	const low = perUnit ? lowerUnitTable() : null;
	const len = src.length;
	const buf = table.reserve(len);
	let pos = table.cursor;
	let start = -1;
	let h = 0;
	let n = 0;
	let ns = 0;
	let lineChars = 0;
	for (let i = 0; i <= len; i++) {
		let c = 10;
		let t = 0;
		if (i < len) {
			c = src.charCodeAt(i);
			if (c < 128) t = ALNUM[c];
			else {
				if (low) {
					c = low[c];
					if (c === 0) return null;
				}
				if (c < 128) t = ALNUM[c];
			}
		}
		if (t !== 0) {
			if (start < 0) {
				start = pos;
				h = 0x811c9dc5;
			}
			buf[pos++] = t;
			h = Math.imul(h ^ t, 0x01000193);
			lineChars++;
			continue;
		}
		if (start >= 0) {
			if (n === out.length) out = grow(out);
			out[n++] = table.commit(start, pos, h);
			pos = table.cursor;
			start = -1;
		}
		if (sents) {
			if (c === 10) {
				if (lineChars > 0) {
					if (ns === sents.length) sents = grow(sents);
					sents[ns++] = n;
				}
				lineChars = 0;
			} else lineChars++;
		}
	}
	lens[0] = n;
	lens[1] = ns;
	if (sents) lastSents = sents;
	return out;
}

/**
 * LCS length of two id sequences by Hyyrö's bit-parallel algorithm (as lcsLength), with the
 * per-token match masks in a reusable flat array indexed by id instead of a Map.
 */
function lcsLengthIds(a: Int32Array, m: number, b: Int32Array, bn: number, vocab: number): number {
	if (m === 0 || bn === 0) return 0;
	const words = (m + 31) >>> 5;
	const masks = scratchA.zeroed(vocab * words);
	for (let i = 0; i < m; i++) masks[a[i] * words + (i >>> 5)] |= 1 << (i & 31);
	const tail = m & 31;
	const tailMask = tail === 0 ? 0xffffffff : ((1 << tail) >>> 0) - 1;
	if (words === 1) {
		let v = tailMask >>> 0;
		for (let j = 0; j < bn; j++) {
			const mk = masks[b[j]] >>> 0;
			if (mk === 0) continue;
			const u = (v & mk) >>> 0;
			v = ((((v + u) >>> 0) | (v & ~u)) & tailMask) >>> 0;
		}
		let x = v;
		x -= (x >>> 1) & 0x55555555;
		x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
		return m - ((((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24);
	}
	const v = new Uint32Array(words).fill(0xffffffff);
	v[words - 1] = tailMask;
	for (let j = 0; j < bn; j++) {
		const base = b[j] * words;
		let any = 0;
		for (let w = 0; w < words; w++) any |= masks[base + w];
		if (any === 0) continue;
		let carry = 0;
		for (let w = 0; w < words; w++) {
			const vw = v[w];
			const u = vw & (masks[base + w] >>> 0);
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

/**
 * rouge_score's `_lcs_table` + `_backtrack_norec` on ref[rs, re) and can[cs, ce): marks in
 * `mark` (indexed from rs) the reference positions of the LCS it backtracks.
 */
function markLcs(
	ref: Int32Array,
	rs: number,
	re: number,
	can: Int32Array,
	cs: number,
	ce: number,
	mark: Int32Array,
): void {
	const rows = re - rs;
	const cols = ce - cs;
	if (rows === 0 || cols === 0) return;
	const width = cols + 1;
	const t = scratchC.zeroed((rows + 1) * width);
	for (let i = 1; i <= rows; i++) {
		const ri = ref[rs + i - 1];
		const row = i * width;
		const up = row - width;
		for (let j = 1; j <= cols; j++) {
			if (ri === can[cs + j - 1]) t[row + j] = t[up + j - 1] + 1;
			else {
				const a = t[up + j];
				const b = t[row + j - 1];
				t[row + j] = a > b ? a : b;
			}
		}
	}
	let i = rows;
	let j = cols;
	while (i > 0 && j > 0) {
		if (ref[rs + i - 1] === can[cs + j - 1]) {
			mark[i - 1] = 1;
			i--;
			j--;
		} else if (t[i * width + j - 1] > t[(i - 1) * width + j]) j--;
		else i--;
	}
}

/**
 * rouge_score's `_summary_level_lcs`: for each reference sentence the union of its LCS
 * positions with every candidate sentence, taken in increasing order and clipped by the
 * remaining token counts of both texts.
 */
function summaryLevelLcs(
	ref: Int32Array,
	refEnds: Int32Array,
	nRef: number,
	can: Int32Array,
	canEnds: Int32Array,
	nCan: number,
	vocab: number,
): RougeScore {
	if (nRef === 0 || nCan === 0) return score(0, 0);
	const m = refEnds[nRef - 1];
	const n = canEnds[nCan - 1];
	if (n === 0 || m === 0) return score(0, 0);
	const counts = scratchB.zeroed(vocab * 2);
	for (let i = 0; i < m; i++) counts[ref[i] * 2]++;
	for (let i = 0; i < n; i++) counts[can[i] * 2 + 1]++;
	let hits = 0;
	let rs = 0;
	const mark = new Int32Array(m);
	for (let r = 0; r < nRef; r++) {
		const re = refEnds[r];
		const rl = re - rs;
		if (rl > 0) {
			mark.fill(0, 0, rl);
			let cs = 0;
			for (let c = 0; c < nCan; c++) {
				const ce = canEnds[c];
				markLcs(ref, rs, re, can, cs, ce, mark);
				cs = ce;
			}
			for (let k = 0; k < rl; k++) {
				if (!mark[k]) continue;
				const tok = ref[rs + k];
				if (counts[tok * 2 + 1] > 0 && counts[tok * 2] > 0) {
					hits++;
					counts[tok * 2 + 1]--;
					counts[tok * 2]--;
				}
			}
		}
		rs = re;
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
	table.reset();
	if (type === 'rougeLsum') {
		tIds = rougeIds(target, tIds, tSents);
		tSents = lastSents;
		const tn = lens[1];
		pIds = rougeIds(prediction, pIds, pSents);
		pSents = lastSents;
		const pn = lens[1];
		return summaryLevelLcs(tIds, tSents, tn, pIds, pSents, pn, table.size);
	}
	tIds = rougeIds(target, tIds, null);
	const tl = lens[0];
	pIds = rougeIds(prediction, pIds, null);
	const pl = lens[0];
	if (type === 'rougeL') {
		if (tl === 0 || pl === 0) return score(0, 0);
		const lcs = lcsLengthIds(tIds, tl, pIds, pl, table.size);
		return score(lcs / pl, lcs / tl);
	}
	const n = Number(type.slice(5));
	// Clipped overlap of target n-grams with prediction n-grams (min counts, symmetric).
	matcher.match(tIds, tl, pIds, pl, table.size, n, matchOut);
	const overlap = matchOut[n - 1];
	const tCount = Math.max(tl - n + 1, 0);
	const pCount = Math.max(pl - n + 1, 0);
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
	anchorNames: ['RougeScoreEvaluator', 'rouge_score', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum'],
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
