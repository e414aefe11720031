/**
 * nltk 3.9.2 `NISTTokenizer().international_tokenize(text)` (nltk/tokenize/nist.py), a port of
 * mteval-v14's international tokenization: drop `<skipped>`, U+2028 -> space, XML-unescape
 * (saxutils plus Moses' `&apos; &quot; &#124; &#91; &#93;`), pad every ASCII run with spaces,
 * split punctuation from perluniprops "Number" characters on either side, pad symbols, then
 * `str.split()`. The classes are nltk_data's perluniprops sets, embedded exactly: "Number" is not
 * \p{N} (it holds ASCII letters, not 0-9) and no class reaches past U+FFFD.
 */
import nist from '../data/nist-perluniprops.json';
import { isPyWhitespaceCode } from './py';

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

// Per-unit membership of the three classes (bit 1 Number, 2 Punctuation, 4 Symbol). Every class
// is BMP-only and holds no surrogate, so per-UTF-16-unit tests equal Python's per code point.
const NUMBER_BIT = 1;
const PUNCT_BIT = 2;
const SYMBOL_BIT = 4;
const CLASS = new Uint8Array(65536);
for (const [flat, bit] of [
	[nist.number, NUMBER_BIT],
	[nist.punctuation, PUNCT_BIT],
	[nist.symbol, SYMBOL_BIT],
] as const) {
	for (let i = 0; i < flat.length; i += 2) {
		for (let c = flat[i]; c <= flat[i + 1]; c++) CLASS[c] |= bit;
	}
}

let bufA = new Uint16Array(1024);
let bufB = new Uint16Array(1024);

/**
 * `NISTTokenizer().international_tokenize(text)` with the defaults (no lowercasing). The four
 * regex substitutions run as exact hand scans over reusable buffers: ASCII runs padded with
 * spaces, then the left-to-right non-overlapping two-unit matches of `(Number)(Punct)` ->
 * '$1 $2 ' and `(Punct)(Number)` -> ' $1 $2', then every Symbol unit padded; then str.split().
 */
export function nistInternationalTokenize(text: string): string[] {
	// The replacements below change nothing unless '<', '&' or U+2028 occurs: one scan decides.
	let t = text;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === 60 || c === 38 || c === 0x2028) {
			t = xmlUnescape(text.replaceAll('<skipped>', '').replaceAll('\u2028', ' '));
			break;
		}
	}
	const len = t.length;
	const cap = len * 16 + 16;
	if (bufA.length < cap) {
		bufA = new Uint16Array(cap);
		bufB = new Uint16Array(cap);
	}
	const a = bufA;
	const b = bufB;
	// ([\x00-\x7f]+) -> ' $1 '
	let n = 0;
	for (let i = 0; i < len; ) {
		const c = t.charCodeAt(i);
		if (c < 128) {
			a[n++] = 32;
			while (i < len && t.charCodeAt(i) < 128) a[n++] = t.charCodeAt(i++);
			a[n++] = 32;
		} else {
			a[n++] = c;
			i++;
		}
	}
	// (Number)(Punct) -> '$1 $2 '
	let m = 0;
	for (let j = 0; j < n; j++) {
		const c = a[j];
		if (j + 1 < n && CLASS[c] & NUMBER_BIT && CLASS[a[j + 1]] & PUNCT_BIT) {
			b[m++] = c;
			b[m++] = 32;
			b[m++] = a[j + 1];
			b[m++] = 32;
			j++;
		} else b[m++] = c;
	}
	// (Punct)(Number) -> ' $1 $2'
	n = 0;
	for (let j = 0; j < m; j++) {
		const c = b[j];
		if (j + 1 < m && CLASS[c] & PUNCT_BIT && CLASS[b[j + 1]] & NUMBER_BIT) {
			a[n++] = 32;
			a[n++] = c;
			a[n++] = 32;
			a[n++] = b[j + 1];
			j++;
		} else a[n++] = c;
	}
	// (Symbol) -> ' $1 ', then str.split()
	const out: string[] = [];
	let tok = '';
	for (let j = 0; j <= n; j++) {
		const c = j < n ? a[j] : 32;
		if (j < n && CLASS[c] & SYMBOL_BIT) {
			if (tok) out.push(tok);
			out.push(String.fromCharCode(c));
			tok = '';
		} else if (isPyWhitespaceCode(c)) {
			if (tok) out.push(tok);
			tok = '';
		} else tok += String.fromCharCode(c);
	}
	return out;
}
