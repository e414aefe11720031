/**
 * Token-overlap F1, as Azure AI Evaluation's `F1ScoreEvaluator` computes it
 * (azure-ai-evaluation `_evaluators/_f1_score/_f1_score.py`, SQuAD-style normalisation).
 * Exact behaviour: `lower()`, drop ASCII `string.punctuation`, replace `\b(a|an|the)\b` with a
 * space using Python's Unicode-aware word boundary, `str.split()`; common = multiset
 * intersection size; 0.0 when nothing is shared, else 2PR/(P+R) with Python's evaluation order.
 */
import type { InputDecl, MetricDecl } from '../core/types';
import { CharTokenTable, lowerUnitTable, Scratch } from './tokenize/ids';
import { isPyWhitespaceCode, pySplit } from './tokenize/py';
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

// Per ASCII unit: the unit it becomes in a token (A-Z lowercased), or WS (Python whitespace),
// PUNCT (string.punctuation, dropped) or CTRL (a control unit: kept, but it makes the token
// "complex" for the article rule). Every kept ASCII unit is > 0, so the scan's hot path is one
// table load and one sign test.
const WS = -1;
const PUNCT = -2;
const CTRL = -3;
const ASCII_MAP = new Int16Array(128);
for (let c = 0; c < 128; c++) {
	if ((c >= 9 && c <= 13) || (c >= 28 && c <= 32)) ASCII_MAP[c] = WS;
	else if ('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.includes(String.fromCharCode(c)))
		ASCII_MAP[c] = PUNCT;
	else if (c < 32 || c === 127) ASCII_MAP[c] = CTRL;
	else if (c >= 65 && c <= 90) ASCII_MAP[c] = c + 32;
	else ASCII_MAP[c] = c;
}
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

const table = new CharTokenTable();
const refLeft = new Scratch();
let predIds: Int32Array = new Int32Array(256);
let refIds: Int32Array = new Int32Array(256);

/**
 * Token ids of f1Tokens(text) into `out` (returned, maybe grown); `count[0]` gets the length.
 * One pass over the lowercased text (JS `toLowerCase`, as f1Tokens; only run when the text is
 * not ASCII): Python whitespace ends a token, ASCII punctuation is dropped, anything else is kept.
 * `\b(a|an|the)\b` is then applied per token, which equals applying it to the whole text since
 * a token's edges are whitespace (non-word) there: a token of printable ASCII only can match just
 * as a whole ("a", "an", "the" are dropped); a token holding other units (a possible inner word
 * boundary) and an "a" or "t" goes through the regex and str.split() like f1Tokens.
 */
function f1Ids(text: string, out: Int32Array, count: number[], probe: boolean): Int32Array {
	// Lowercased unit by unit (lowerUnitTable); a unit without a context-free one-unit lowercase
	// restarts the scan on text.toLowerCase().
	return (
		f1Scan(text, out, count, true, probe) ??
		(f1Scan(text.toLowerCase(), out, count, false, probe) as Int32Array)
	);
}

/**
 * `probe`: intern nothing; a token gets its id if the other text (interned first) has it, else
 * -1 (it cannot be shared, so its identity does not matter).
 */
function f1Scan(
	src: string,
	out: Int32Array,
	count: number[],
	perUnit: boolean,
	probe: boolean,
): Int32Array | null {
	const low = perUnit ? lowerUnitTable() : null;
	let n = 0;
	let complex = false;
	const len = src.length;
	let buf = table.reserve(len);
	// The open token is buf[start, pos): empty when pos === start. h is its FNV-1a hash so far.
	let pos = table.cursor;
	let start = pos;
	let h = FNV_OFFSET;
	for (let i = 0; i <= len; i++) {
		let c = i < len ? src.charCodeAt(i) : 32;
		let m: number;
		if (c < 128) {
			m = ASCII_MAP[c];
			if (m > 0) {
				// The hot path: a printable ASCII unit of a word.
				buf[pos++] = m;
				h = Math.imul(h ^ m, FNV_PRIME);
				continue;
			}
			if (m === PUNCT) continue;
		} else {
			if (low) {
				c = low[c];
				if (c === 0) return null;
			}
			m = c < 128 ? ASCII_MAP[c] : isPyWhitespaceCode(c) ? WS : c;
			if (m === PUNCT) continue;
			if (m > 0) {
				// A non-ASCII unit is kept whole; it may be a word character for the article rule.
				if (m >= 128) complex = true;
				buf[pos++] = m;
				h = Math.imul(h ^ m, FNV_PRIME);
				continue;
			}
		}
		if (m === CTRL) {
			complex = true;
			buf[pos++] = c;
			h = Math.imul(h ^ c, FNV_PRIME);
			continue;
		}
		// Whitespace ends the open token, if any.
		if (pos === start) continue;
		const tl = pos - start;
		if (!complex) {
			if (
				tl <= 3 &&
				((tl === 1 && buf[start] === 97) ||
					(tl === 2 && buf[start] === 97 && buf[start + 1] === 110) ||
					(tl === 3 && buf[start] === 116 && buf[start + 1] === 104 && buf[start + 2] === 101))
			) {
				pos = start;
				h = FNV_OFFSET;
				continue;
			}
			if (n === out.length) out = grow(out);
			out[n++] = probe ? table.lookup(start, pos, h) : table.commit(start, pos, h);
		} else if (!articleCandidate(buf, start, pos)) {
			if (n === out.length) out = grow(out);
			out[n++] = probe ? table.lookup(start, pos, h) : table.commit(start, pos, h);
		} else {
			let tok = '';
			for (let j = start; j < pos; j++) tok += String.fromCharCode(buf[j]);
			if (!probe) table.commit(start, start, FNV_OFFSET);
			for (const piece of pySplit(tok.replace(ARTICLES_RE, ' '))) {
				if (n === out.length) out = grow(out);
				out[n++] = probe ? table.lookupString(piece) : table.intern(piece);
			}
			// intern may have replaced the buffer: take it again with room for the rest.
			buf = table.reserve(len - i);
		}
		pos = table.cursor;
		start = pos;
		h = FNV_OFFSET;
		complex = false;
	}
	count[0] = n;
	return out;
}

/**
 * Whether `\b(a|an|the)\b` could match inside the token buf[start, end): it needs "a", "an" or
 * "the" whose neighbours inside the token are not ASCII letters or digits (the only other word
 * characters there are non-ASCII, which the regex then judges). False means no match at all.
 */
function articleCandidate(buf: Uint16Array, start: number, end: number): boolean {
	const wordAscii = (c: number) => c >= 32 && c < 127;
	for (let p = start; p < end; p++) {
		const c = buf[p];
		if (c !== 97 && c !== 116) continue;
		if (p > start && wordAscii(buf[p - 1])) continue;
		let e = -1;
		if (c === 97) {
			if (p + 1 === end || !wordAscii(buf[p + 1])) e = p + 1;
			else if (buf[p + 1] === 110 && (p + 2 === end || !wordAscii(buf[p + 2]))) e = p + 2;
		} else if (buf[p + 1] === 104 && buf[p + 2] === 101 && p + 3 <= end) {
			if (p + 3 === end || !wordAscii(buf[p + 3])) e = p + 3;
		}
		if (e >= 0) return true;
	}
	return false;
}

function grow(a: Int32Array): Int32Array {
	const b = new Int32Array(a.length * 2);
	b.set(a);
	return b;
}

const lens = [0];

/** Azure's `f1_score` for one pair, in [0, 1]. */
export function f1Score(response: string, groundTruth: string): number {
	const resp = requireText(response, 'response');
	const gt = requireText(groundTruth, 'groundTruth');
	table.reset();
	// The shorter text is interned, the longer only probed: a token of one that the other lacks
	// is never shared (id -1), so a long context's own words cost no table entries.
	const predFirst = resp.length <= gt.length;
	let predLen: number;
	let refLen: number;
	if (predFirst) {
		predIds = f1Ids(resp, predIds, lens, false);
		predLen = lens[0];
		refIds = f1Ids(gt, refIds, lens, true);
		refLen = lens[0];
	} else {
		refIds = f1Ids(gt, refIds, lens, false);
		refLen = lens[0];
		predIds = f1Ids(resp, predIds, lens, true);
		predLen = lens[0];
	}
	// common = sum((Counter(pred) & Counter(ref)).values()): each prediction token takes one
	// remaining reference occurrence.
	const left = refLeft.zeroed(table.size);
	for (let i = 0; i < refLen; i++) {
		const id = refIds[i];
		if (id >= 0) left[id]++;
	}
	let common = 0;
	for (let i = 0; i < predLen; i++) {
		const id = predIds[i];
		if (id >= 0 && left[id] > 0) {
			left[id]--;
			common++;
		}
	}
	if (common === 0) return 0;
	const precision = (1.0 * common) / predLen;
	const recall = (1.0 * common) / refLen;
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
	anchorNames: ['F1ScoreEvaluator', 'SQuAD F1'],
	inputs: responseGroundTruthInputs,
	params: [],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	signatureParts: 'nrefs:1|tok:squad-split|version:azure-ai-evaluation',
	compute(inputs) {
		return { value: f1Score(inputs.response as string, inputs.groundTruth as string) };
	},
};
