/**
 * nltk 3.9.2 `NISTTokenizer().international_tokenize(text)` (nltk/tokenize/nist.py), a port of
 * mteval-v14's international tokenization: drop `<skipped>`, U+2028 -> space, XML-unescape
 * (saxutils plus Moses' `&apos; &quot; &#124; &#91; &#93;`), pad every ASCII run with spaces,
 * split punctuation from perluniprops "Number" characters on either side, pad symbols, then
 * `str.split()`. The classes are nltk_data's perluniprops sets, embedded exactly: "Number" is not
 * \p{N} (it holds ASCII letters, not 0-9) and no class reaches past U+FFFD.
 */
import nist from '../data/nist-perluniprops.json';
import { pySplit } from './py';

function hex4(c: number): string {
	return `\\u${c.toString(16).padStart(4, '0')}`;
}

/** A character class body from flat [start, end, ...] BMP ranges (used without the `u` flag). */
function classFromRanges(flat: number[]): string {
	let body = '';
	for (let i = 0; i < flat.length; i += 2) {
		body += flat[i] === flat[i + 1] ? hex4(flat[i]) : `${hex4(flat[i])}-${hex4(flat[i + 1])}`;
	}
	return `[${body}]`;
}

const NUMBER = classFromRanges(nist.number);
const PUNCT = classFromRanges(nist.punctuation);
const SYMBOL = classFromRanges(nist.symbol);

// Every class is BMP-only and holds no surrogate, so UTF-16 matching equals Python's code points.
const NONASCII_RE = /([\x00-\x7f]+)/g;
const PUNCT_1_RE = new RegExp(`(${NUMBER})(${PUNCT})`, 'g');
const PUNCT_2_RE = new RegExp(`(${PUNCT})(${NUMBER})`, 'g');
const SYMBOLS_RE = new RegExp(`(${SYMBOL})`, 'g');

/** nltk's `xml_unescape`: xml.sax.saxutils.unescape with Moses' extra entities, `&amp;` last. */
export function xmlUnescape(text: string): string {
	if (!text.includes('&')) return text;
	return text
		.replaceAll('&lt;', '<')
		.replaceAll('&gt;', '>')
		.replaceAll('&apos;', "'")
		.replaceAll('&quot;', '"')
		.replaceAll('&#124;', '|')
		.replaceAll('&#91;', '[')
		.replaceAll('&#93;', ']')
		.replaceAll('&amp;', '&');
}

/** `NISTTokenizer().international_tokenize(text)` with the defaults (no lowercasing). */
export function nistInternationalTokenize(text: string): string[] {
	let t = text.replaceAll('<skipped>', '').replaceAll('\u2028', ' ');
	t = xmlUnescape(t);
	t = t.replace(NONASCII_RE, ' $1 ');
	t = t.replace(PUNCT_1_RE, '$1 $2 ');
	t = t.replace(PUNCT_2_RE, ' $1 $2');
	t = t.replace(SYMBOLS_RE, ' $1 ');
	return pySplit(t);
}
