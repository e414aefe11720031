/**
 * Punkt sentence splitter (Kiss & Strunk 2006, "Unsupervised Multilingual Sentence Boundary
 * Detection") with nltk 3.9.2's pre-trained english parameters (punkt_tab/english).
 * Matches `nltk.tokenize.sent_tokenize(text)` = `PunktTokenizer('english').tokenize(text)`:
 * the post-ReDoS-fix candidate scan (one match per `.?!`, overlapping word contexts dropped),
 * first pass (abbreviations, ellipses), second pass (collocation, orthographic, frequent
 * sentence starter and initial/ordinal heuristics) and boundary realignment of closing quotes.
 * Inference only: training is out of scope. Faithful for ASCII text (nltk_tokenize only sends
 * ASCII text here); `\w`, `isupper` etc. are taken on ASCII.
 */
import punktData from '../data/punkt-english.json';
import { PY_NS, PY_S, pyRstrip, pyStrip } from './py';

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

interface PunktParams {
	abbrevTypes: Set<string>;
	collocations: Set<string>;
	sentStarters: Set<string>;
	orthoContext: Map<string, number>;
}

let params: PunktParams | undefined;

function loadParams(): PunktParams {
	if (params) return params;
	const orthoContext = new Map<string, number>();
	for (const [flag, words] of Object.entries(punktData.orthoContext as Record<string, string>)) {
		const value = Number(flag);
		for (const w of words.split(' ')) orthoContext.set(w, value);
	}
	params = {
		abbrevTypes: new Set(punktData.abbrevTypes),
		// Types never contain a tab (they are whitespace-free tokens), so a tab-joined key is safe.
		collocations: new Set(punktData.collocations.map((c) => `${c[0]}\t${c[1]}`)),
		sentStarters: new Set(punktData.sentStarters),
		orthoContext,
	};
	return params;
}

// PunktLanguageVars, english defaults.
const NON_WORD = `(?:[)";}\\]*:@'({\\[!?])`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${PY_S}){2,}\\.)`;
const WORD_START = '[^("`{\\[:;&#*@)}\\]\\-,]';
const WORD_RE = new RegExp(
	`${MULTI_CHAR}|(?=${WORD_START})${PY_NS}+?(?=${PY_S}|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|${PY_S}|${NON_WORD}|${MULTI_CHAR}))|${PY_NS}`,
	'g',
);
// Groups: 1 = after_tok, 2 = next_tok (captures inside a lookahead are kept in JS as in Python).
const PERIOD_CONTEXT_RE = new RegExp(`[.?!](?=(${NON_WORD}|${PY_S}+(${PY_NS}+)))`, 'g');
// Python's MULTILINE `$` also matches before any "\n".
const BOUNDARY_REALIGN_RE = new RegExp(`^["')\\]}]+?(?:${PY_S}+|(?=--)|(?=\\n)|$)`);
const RE_NUMERIC = /^-?[.,]?\d[\d,.-]*\.?(?=\n?$)/;
const RE_INITIAL = /^[A-Za-z_]\.(?=\n?$)/;
const RE_ELLIPSIS = /^\.\.+(?=\n?$)/;

interface Token {
	tok: string;
	type: string;
	periodFinal: boolean;
	sentbreak: boolean;
	abbr: boolean;
	ellipsis: boolean;
}

function makeToken(tok: string): Token {
	const lower = tok.toLowerCase();
	return {
		tok,
		type: RE_NUMERIC.test(lower) ? lower.replace(RE_NUMERIC, '##number##') : lower,
		periodFinal: tok.endsWith('.'),
		sentbreak: false,
		abbr: false,
		ellipsis: false,
	};
}

function typeNoPeriod(t: Token): string {
	return t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type;
}

function typeNoSentPeriod(t: Token): string {
	return t.sentbreak ? typeNoPeriod(t) : t.type;
}

function firstUpper(t: Token): boolean {
	const c = t.tok.charCodeAt(0);
	return c >= 65 && c <= 90;
}

function firstLower(t: Token): boolean {
	const c = t.tok.charCodeAt(0);
	return c >= 97 && c <= 122;
}

/** Punkt's own word splitter (splits punctuation other than periods off words). */
export function punktWordTokenize(line: string): string[] {
	return line.match(WORD_RE) ?? [];
}

function tokenizeWords(text: string): Token[] {
	const out: Token[] = [];
	for (const line of text.split('\n')) {
		if (pyStrip(line) === '') continue;
		for (const tok of punktWordTokenize(line)) out.push(makeToken(tok));
	}
	return out;
}

function firstPass(t: Token, p: PunktParams): void {
	const tok = t.tok;
	if (tok === '.' || tok === '?' || tok === '!') {
		t.sentbreak = true;
	} else if (RE_ELLIPSIS.test(tok)) {
		t.ellipsis = true;
	} else if (t.periodFinal && !tok.endsWith('..')) {
		const stem = tok.slice(0, -1).toLowerCase();
		const dashParts = stem.split('-');
		if (p.abbrevTypes.has(stem) || p.abbrevTypes.has(dashParts[dashParts.length - 1])) {
			t.abbr = true;
		} else {
			t.sentbreak = true;
		}
	}
}

type Ortho = true | false | 'unknown';

function orthoHeuristic(t: Token, p: PunktParams): Ortho {
	const tok = t.tok;
	if (tok.length === 1 && ';:,.!?'.includes(tok)) return false;
	const ctx = p.orthoContext.get(typeNoSentPeriod(t)) ?? 0;
	if (firstUpper(t) && ctx & ORTHO_LC && !(ctx & ORTHO_MID_UC)) return true;
	if (firstLower(t) && (ctx & ORTHO_UC || !(ctx & ORTHO_BEG_LC))) return false;
	return 'unknown';
}

function secondPass(t1: Token, t2: Token, p: PunktParams): void {
	if (!t1.periodFinal) return;
	const typ = typeNoPeriod(t1);
	const nextTyp = typeNoSentPeriod(t2);
	const isInitial = RE_INITIAL.test(t1.tok);

	if (p.collocations.has(`${typ}\t${nextTyp}`)) {
		t1.sentbreak = false;
		t1.abbr = true;
		return;
	}
	if ((t1.abbr || t1.ellipsis) && !isInitial) {
		if (orthoHeuristic(t2, p) === true) {
			t1.sentbreak = true;
			return;
		}
		if (firstUpper(t2) && p.sentStarters.has(nextTyp)) {
			t1.sentbreak = true;
			return;
		}
	}
	if (isInitial || typ === '##number##') {
		const starter = orthoHeuristic(t2, p);
		if (starter === false) {
			t1.sentbreak = false;
			t1.abbr = true;
			return;
		}
		if (
			starter === 'unknown' &&
			isInitial &&
			firstUpper(t2) &&
			!((p.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)
		) {
			t1.sentbreak = false;
			t1.abbr = true;
		}
	}
}

/** Whether a sentence break falls on any token of `context` but its last (nltk semantics). */
function textContainsSentbreak(context: string, p: PunktParams): boolean {
	const tokens = tokenizeWords(context);
	for (const t of tokens) firstPass(t, p);
	// The second pass reads only first-pass annotations of the following token, so doing it
	// eagerly in order equals nltk's lazy generator chain.
	for (let i = 0; i + 1 < tokens.length; i++) {
		secondPass(tokens[i], tokens[i + 1], p);
		if (tokens[i].sentbreak) return true;
	}
	return false;
}

/**
 * nltk's search for the word before a candidate: the last `string.whitespace` character of
 * text[from, to), as an offset from `from`, or 0 when there is none.
 */
function lastAsciiWhitespaceOffset(text: string, from: number, to: number): number {
	for (let i = to - 1; i >= from; i--) {
		const c = text.charCodeAt(i);
		if (c === 32 || (c >= 9 && c <= 13)) return i - from;
	}
	return 0;
}

interface Candidate {
	index: number;
	afterTok: string;
	nextTok: string | undefined;
}

function sliceSentences(text: string, p: PunktParams): [number, number][] {
	const slices: [number, number][] = [];
	let lastBreak = 0;
	// nltk's _match_potential_end_contexts: each candidate's context is emitted once the next
	// candidate shows it does not overlap (or at the end), then tested in that order.
	const check = (m: Candidate, context: string) => {
		if (textContainsSentbreak(context, p)) {
			const end = m.index + 1;
			slices.push([lastBreak, end]);
			lastBreak = m.nextTok ? end + m.afterTok.length - m.nextTok.length : end;
		}
	};
	let prevStart = 0;
	let prevStop = 0;
	let prev: Candidate | undefined;
	PERIOD_CONTEXT_RE.lastIndex = 0;
	for (let r = PERIOD_CONTEXT_RE.exec(text); r; r = PERIOD_CONTEXT_RE.exec(text)) {
		const match: Candidate = { index: r.index, afterTok: r[1], nextTok: r[2] };
		const ws = lastAsciiWhitespaceOffset(text, prevStop, match.index);
		// nltk treats a whitespace at offset 0 like "none found": kept on purpose.
		const wordStart = ws ? ws + prevStop + 1 : prevStart;
		if (prev && prevStop <= wordStart) {
			check(prev, text.slice(prevStart, prevStop) + text[prev.index] + prev.afterTok);
		}
		prev = match;
		prevStart = wordStart;
		prevStop = match.index;
	}
	if (prev) check(prev, text.slice(prevStart, prevStop) + text[prev.index] + prev.afterTok);
	slices.push([lastBreak, pyRstrip(text).length]);
	return slices;
}

function realignBoundaries(text: string, slices: [number, number][]): [number, number][] {
	const out: [number, number][] = [];
	let realign = 0;
	for (let i = 0; i < slices.length; i++) {
		const start = slices[i][0] + realign;
		const stop = slices[i][1];
		if (i + 1 === slices.length) {
			if (stop > start) out.push([start, stop]);
			continue;
		}
		const [s2Start, s2Stop] = slices[i + 1];
		const m = BOUNDARY_REALIGN_RE.exec(text.slice(s2Start, Math.max(s2Start, s2Stop)));
		if (m) {
			out.push([start, s2Start + pyRstrip(m[0]).length]);
			realign = m[0].length;
		} else {
			realign = 0;
			if (stop > start) out.push([start, stop]);
		}
	}
	return out;
}

/** `nltk.sent_tokenize(text)` with the english Punkt parameters (nltk 3.9.2). */
export function sentTokenize(text: string): string[] {
	const p = loadParams();
	return realignBoundaries(text, sliceSentences(text, p)).map(([s, e]) => text.slice(s, e));
}
