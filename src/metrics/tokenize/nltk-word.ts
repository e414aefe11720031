/**
 * nltk 3.9.2 `NLTKWordTokenizer` (nltk/tokenize/destructive.py), the word tokenizer behind
 * `nltk.word_tokenize`: Penn-Treebank-style regex passes (starting quotes, punctuation, brackets,
 * double dashes, ending quotes and clitics, MacIntyre contractions), then `str.split()`.
 * Includes 3.9's `\s+ -> " "` ending-quote rule, so clitics before a tab or newline split.
 * Faithful for ASCII input, which is all nltk_tokenize gives it.
 */
import { PY_S, pySplit } from './py';
import { sentTokenize } from './punkt';

type Rule = [RegExp, string];

// Python's non-MULTILINE `$`: end of text, or just before a final "\n".
const END = '(?=\\n?$)';

const STARTING_QUOTES: Rule[] = [
	[/([«“‘„]|[`]+)/g, ' $1 '],
	[/^"/, '``'],
	[/(``)/g, ' $1 '],
	[/([ ([{<])("|'{2})/g, '$1 `` '],
	[/(')(?!re|ve|ll|m|t|s|d|n)(\w)\b/gi, '$1 $2'],
];

const PUNCTUATION: Rule[] = [
	[new RegExp(`([^.])(\\.)([\\])}>"'»”’ ]*)${PY_S}*${END}`), '$1 $2 $3 '],
	[/([:,])([^\d])/g, ' $1 $2'],
	[new RegExp(`([:,])${END}`), ' $1 '],
	[/\.{2,}/g, ' $& '],
	[/[;@#$%&]/g, ' $& '],
	[new RegExp(`([^.])(\\.)([\\])}>"']*)${PY_S}*${END}`), '$1 $2$3 '],
	[/[?!]/g, ' $& '],
	[/([^'])' /g, "$1 ' "],
	[/[*]/g, ' $& '],
];

// The character each PUNCTUATION rule (and the bracket rule, last) needs in order to fire, as a
// bit of `needs`. The rules before them only insert spaces and backquotes, so a character absent
// from the sentence stays absent and the rule can be skipped without changing the text.
const DOT = 1;
const COLON_COMMA = 2;
const SEMI_ETC = 4;
const QUESTION_BANG = 8;
const APOS = 16;
const STAR = 32;
const BRACKET = 64;
const BACKTICK = 128;
const DQUOTE = 256;
const OTHER_WS = 512;
const NON_ASCII = 1024;
// ".." and "--" in the sentence: the rules before the ellipsis and double-dash ones only insert
// spaces and turn quotes into backquotes, which can split such a pair but never form one.
const DOT_DOT = 2048;
const DASH_DASH = 4096;
// Quote rules: STARTING_QUOTES and ENDING_QUOTES in order. The ending whitespace rule (\s+ -> ' ')
// only matters for whitespace other than ' ': the clitic rules after it need one space after
// the clitic and consume it, and a longer run of spaces changes none of their matches.
const STARTING_NEEDS = [BACKTICK | NON_ASCII, DQUOTE, BACKTICK | DQUOTE, DQUOTE | APOS, APOS];
const ENDING_NEEDS = [NON_ASCII, APOS, DQUOTE, OTHER_WS | NON_ASCII, APOS, APOS];
const PUNCTUATION_NEEDS = [
	DOT,
	COLON_COMMA,
	COLON_COMMA,
	DOT,
	SEMI_ETC,
	DOT,
	QUESTION_BANG,
	APOS,
	STAR,
];
const CHAR_BITS = new Uint16Array(128);
for (const [chars, bit] of [
	['.', DOT],
	[':,', COLON_COMMA],
	[';@#$%&', SEMI_ETC],
	['?!', QUESTION_BANG],
	["'", APOS],
	['*', STAR],
	['[](){}<>', BRACKET],
	['`', BACKTICK],
	['"', DQUOTE],
	['\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f', OTHER_WS],
] as const) {
	for (const ch of chars) CHAR_BITS[ch.charCodeAt(0)] = bit;
}

/** Union of the CHAR_BITS of the characters of `text`. */
function presentBits(text: string): number {
	let bits = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		bits |= c < 128 ? CHAR_BITS[c] : NON_ASCII;
		if ((c === 46 || c === 45) && text.charCodeAt(i + 1) === c)
			bits |= c === 46 ? DOT_DOT : DASH_DASH;
	}
	return bits;
}

const PARENS_BRACKETS: Rule = [/[\][(){}<>]/g, ' $& '];
const DOUBLE_DASHES: Rule = [/--/g, ' -- '];

const ENDING_QUOTES: Rule[] = [
	[/([»”’])/g, ' $1 '],
	[/''/g, " '' "],
	[/"/g, " '' "],
	[new RegExp(`${PY_S}+`, 'g'), ' '],
	[/([^' ])('[sS]|'[mM]|'[dD]|') /g, '$1 $2 '],
	[/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /g, '$1 $2 '],
];

const CONTRACTIONS: RegExp[] = [
	/\b(can)(not)\b/gi,
	/\b(d)('ye)\b/gi,
	/\b(gim)(me)\b/gi,
	/\b(gon)(na)\b/gi,
	/\b(got)(ta)\b/gi,
	/\b(lem)(me)\b/gi,
	/\b(more)('n)\b/gi,
	new RegExp(`\\b(wan)(na)(?=${PY_S})`, 'gi'),
	/ ('t)(is)\b/gi,
	/ ('t)(was)\b/gi,
];

// Pre-checks: a group of rules is skipped when none of the characters it needs occurs, which
// cannot change the result (each rule only fires on its own characters).
const ANY_QUOTE = /["'`«“‘„»”’]/;
const ANY_CONTRACTION = /cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna|'t(?:is|was)/i;

/**
 * `text.replace(/([:,])([^\d])/g, ' $1 $2')` as a scan: left to right, a ':' or ',' followed by a
 * unit other than 0-9 (JS `\d` without the u flag) becomes ' c x', and both units are consumed.
 */
function splitColonComma(text: string): string {
	let out = '';
	let last = 0;
	const n = text.length;
	for (let i = 0; i + 1 < n; i++) {
		const c = text.charCodeAt(i);
		if (c !== 58 && c !== 44) continue;
		const d = text.charCodeAt(i + 1);
		if (d >= 48 && d <= 57) continue;
		out += `${text.slice(last, i)} ${text[i]} ${text[i + 1]}`;
		last = i + 2;
		i++;
	}
	return last === 0 ? text : out + text.slice(last);
}

/**
 * `text.replace(/([:,])(?=\n?$)/, ' $1 ')`: the only possible match is a ':' or ',' that ends
 * the text or precedes its final "\n" (a unit before those is followed by another unit).
 */
function splitFinalColonComma(text: string): string {
	const n = text.length;
	let p = n - 1;
	if (p >= 0 && text.charCodeAt(p) === 10) p--;
	if (p < 0) return text;
	const c = text.charCodeAt(p);
	if (c !== 58 && c !== 44) {
		// A final "\n" preceded by neither: the "\n" itself is no ':' or ',' either.
		return text;
	}
	return `${text.slice(0, p)} ${text[p]} ${text.slice(p + 1)}`;
}

// PUNCTUATION[0] and [5] (the sentence-final period) as sticky regexes. Everything after their
// '.' must be closing brackets/quotes or whitespace up to the end, none of which is a '.', so the
// only position where they can match is just before the last '.' of the text: trying them there
// alone finds the same (single, non-global) match as the scan from the start.
const FINAL_PERIOD_1 = new RegExp(PUNCTUATION[0][0].source, 'y');
const FINAL_PERIOD_2 = new RegExp(PUNCTUATION[5][0].source, 'y');

/** `text.replace(PUNCTUATION[0 or 5])`, with '$1 $2 $3 ' (first) or '$1 $2$3 '. */
function finalPeriod(text: string, re: RegExp, first: boolean): string {
	const q = text.lastIndexOf('.');
	if (q < 1) return text;
	re.lastIndex = q - 1;
	const m = re.exec(text);
	if (!m) return text;
	const sub = first ? `${m[1]} ${m[2]} ${m[3]} ` : `${m[1]} ${m[2]}${m[3]} `;
	return text.slice(0, q - 1) + sub + text.slice(q - 1 + m[0].length);
}

/** `NLTKWordTokenizer().tokenize(sentence)` (no parenthesis conversion). */
export function nltkWordTokenizeSentence(sentence: string): string[] {
	return pySplit(nltkWordTokenizeSentenceText(sentence));
}

/** The text NLTKWordTokenizer has rewritten `sentence` into, before its final `str.split()`. */
export function nltkWordTokenizeSentenceText(sentence: string): string {
	let text = sentence;
	const quotes = ANY_QUOTE.test(text);
	// Rules before the punctuation ones only add spaces and backquotes (and drop '"'), so the
	// characters found here bound what each later rule can see.
	const bits = presentBits(text);
	if (quotes) {
		for (let i = 0; i < STARTING_QUOTES.length; i++) {
			if (bits & STARTING_NEEDS[i])
				text = text.replace(STARTING_QUOTES[i][0], STARTING_QUOTES[i][1]);
		}
	}
	for (let i = 0; i < PUNCTUATION.length; i++) {
		if (!(bits & PUNCTUATION_NEEDS[i])) continue;
		if (i === 0) text = finalPeriod(text, FINAL_PERIOD_1, true);
		else if (i === 5) text = finalPeriod(text, FINAL_PERIOD_2, false);
		else if (i === 1) text = splitColonComma(text);
		else if (i === 2) text = splitFinalColonComma(text);
		else if (i === 3) {
			if (bits & DOT_DOT) text = text.replace(PUNCTUATION[3][0], PUNCTUATION[3][1]);
		} else if (i !== 7 || text.includes("' ")) {
			text = text.replace(PUNCTUATION[i][0], PUNCTUATION[i][1]);
		}
	}
	if (bits & BRACKET) text = text.replace(PARENS_BRACKETS[0], PARENS_BRACKETS[1]);
	if (bits & DASH_DASH) text = text.replace(DOUBLE_DASHES[0], DOUBLE_DASHES[1]);
	// The padding below only matters to the quote and contraction rules (split() drops it), and
	// ANY_CONTRACTION has no anchors or spaces, so it answers the same on the unpadded text.
	if (!quotes && !ANY_CONTRACTION.test(text)) return text;
	text = ` ${text} `;
	if (quotes) {
		for (let i = 0; i < ENDING_QUOTES.length; i++) {
			if (bits & ENDING_NEEDS[i]) text = text.replace(ENDING_QUOTES[i][0], ENDING_QUOTES[i][1]);
		}
	} else {
		// Without quotes only the whitespace rule of ENDING_QUOTES can fire; pySplit below
		// makes it a no-op for the tokens.
	}
	if (ANY_CONTRACTION.test(text)) for (const re of CONTRACTIONS) text = text.replace(re, ' $1 $2 ');
	return text;
}

/** `nltk.word_tokenize(text)`: Punkt english sentences, then the NLTK word tokenizer on each. */
export function wordTokenize(text: string): string[] {
	const sentences = sentTokenize(text);
	if (sentences.length === 1) return nltkWordTokenizeSentence(sentences[0]);
	const out: string[] = [];
	for (let i = 0; i < sentences.length; i++) {
		const toks = nltkWordTokenizeSentence(sentences[i]);
		for (let k = 0; k < toks.length; k++) out.push(toks[k]);
	}
	return out;
}
