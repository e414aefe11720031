/**
 * sacreBLEU 2.6.0's `13a` tokenizer (tokenizers/tokenizer_13a.py + tokenizer_re.py), mteval-v13a:
 * drop `<skipped>`, join `-\n` hyphenation, newlines -> spaces, unescape four entities, then the
 * ASCII punctuation regexes, then `' '.join(line.split())` with Python whitespace.
 *
 * The four regex substitutions run as four hand loops over a reusable UTF-16 buffer, each one
 * the exact left-to-right, non-overlapping scan that `re.sub` / `String.replace` with a global
 * two-character pattern performs (a match consumes both characters, the scan resumes after it):
 *   1. `([{-~[-` -&(-+:-@/])` -> ' $1 '
 *   2. `([^0-9])([.,])`      -> '$1 $2 '
 *   3. `([.,])([^0-9])`      -> ' $1 $2'
 *   4. `([0-9])(-)`          -> '$1 $2 '
 * so the tokens equal the regex version's, without building the intermediate strings.
 */
import type { CharTokenTable } from './ids';
import { isPyWhitespaceCode } from './py';

// Rule 1's class: space to &, ( to +, / , : to @, [ to `, { to ~.
const RULE1 = new Uint8Array(128);
for (let c = 32; c < 127; c++) {
	if (
		(c >= 0x20 && c <= 0x26) ||
		(c >= 0x28 && c <= 0x2b) ||
		c === 0x2f ||
		(c >= 0x3a && c <= 0x40) ||
		(c >= 0x5b && c <= 0x60) ||
		(c >= 0x7b && c <= 0x7e)
	) {
		RULE1[c] = 1;
	}
}

let bufA = new Uint16Array(1024);
let bufB = new Uint16Array(1024);

function room(n: number): void {
	if (bufA.length < n) {
		let cap = bufA.length;
		while (cap < n) cap *= 2;
		bufA = new Uint16Array(cap);
		bufB = new Uint16Array(cap);
	}
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isDotComma = (c: number) => c === 46 || c === 44;

/** The 13a-tokenized line in bufA[0, returned length) (tokens separated by whitespace). */
function run13a(input: string): number {
	let line = input;
	if (line.includes('<skipped>')) line = line.replaceAll('<skipped>', '');
	if (line.includes('\n')) line = line.replaceAll('-\n', '').replaceAll('\n', ' ');
	if (line.includes('&')) {
		line = line
			.replaceAll('&quot;', '"')
			.replaceAll('&amp;', '&')
			.replaceAll('&lt;', '<')
			.replaceAll('&gt;', '>');
	}
	const len = line.length + 2;
	// Rule 1 at most triples the text, rules 2-4 at most double it each.
	room(len * 24 + 16);
	let a = bufA;
	let b = bufB;
	// Rule 1 on ` ${line} `. A space (itself in the class) stays a single space: the padding
	// would only lengthen runs of spaces. Rules 2-4 never match two spaces together (each needs
	// a '.', ',' or '-'), so a match touching a space run touches only its edge space, which a
	// longer run keeps in the same place; split() then drops the run whatever its length.
	let n = 0;
	let seen = 0;
	for (let i = -1; i <= line.length; i++) {
		const c = i < 0 || i === line.length ? 32 : line.charCodeAt(i);
		if (c === 32) a[n++] = 32;
		else if (c < 128 && RULE1[c]) {
			a[n++] = 32;
			a[n++] = c;
			a[n++] = 32;
		} else {
			a[n++] = c;
			if (c === 46 || c === 44) seen |= 1;
			else if (c === 45) seen |= 2;
		}
	}
	// Rules 2 and 3 only fire on a '.' or ',', rule 4 on a '-': skipped when there is none.
	if (seen & 1) {
		// Rule 2: ([^0-9])([.,]) -> '$1 $2 '.
		let m = 0;
		for (let j = 0; j < n; j++) {
			const c = a[j];
			if (j + 1 < n && !isDigit(c) && isDotComma(a[j + 1])) {
				b[m++] = c;
				b[m++] = 32;
				b[m++] = a[j + 1];
				b[m++] = 32;
				j++;
			} else b[m++] = c;
		}
		// Rule 3: ([.,])([^0-9]) -> ' $1 $2'.
		n = 0;
		for (let j = 0; j < m; j++) {
			const c = b[j];
			if (j + 1 < m && isDotComma(c) && !isDigit(b[j + 1])) {
				a[n++] = 32;
				a[n++] = c;
				a[n++] = 32;
				a[n++] = b[j + 1];
				j++;
			} else a[n++] = c;
		}
	}
	if (!(seen & 2)) return n;
	// Rule 4: ([0-9])(-) -> '$1 $2 '.
	let m = 0;
	for (let j = 0; j < n; j++) {
		const c = a[j];
		if (j + 1 < n && isDigit(c) && a[j + 1] === 45) {
			b[m++] = c;
			b[m++] = 32;
			b[m++] = 45;
			b[m++] = 32;
			j++;
		} else b[m++] = c;
	}
	// Leave the result in bufA.
	const t = a;
	a = b;
	b = t;
	bufA = a;
	bufB = b;
	return m;
}

/** Tokens of `Tokenizer13a()(line)` (the reference joins them with single spaces). */
export function tokenize13a(line: string): string[] {
	const n = run13a(line);
	const a = bufA;
	const out: string[] = [];
	let start = -1;
	for (let i = 0; i <= n; i++) {
		if (i === n || isPyWhitespaceCode(a[i])) {
			if (start >= 0) {
				let s = '';
				for (let k = start; k < i; k++) s += String.fromCharCode(a[k]);
				out.push(s);
				start = -1;
			}
		} else if (start < 0) start = i;
	}
	return out;
}

/**
 * The 13a tokens of `line` interned in `table`, as ids into `out` (returned, maybe grown);
 * `count[0]` gets the token count. Same tokens as tokenize13a.
 */
export function tokenize13aIds(
	line: string,
	table: CharTokenTable,
	out: Int32Array,
	count: number[],
): Int32Array {
	const n = run13a(line);
	const a = bufA;
	const buf = table.reserve(n);
	let pos = table.cursor;
	let start = -1;
	let h = 0;
	let k = 0;
	for (let i = 0; i <= n; i++) {
		const c = i === n ? 32 : a[i];
		if (isPyWhitespaceCode(c)) {
			if (start >= 0) {
				if (k === out.length) {
					const g = new Int32Array(out.length * 2);
					g.set(out);
					out = g;
				}
				out[k++] = table.commit(start, pos, h);
				pos = table.cursor;
				start = -1;
			}
		} else {
			if (start < 0) {
				start = pos;
				h = 0x811c9dc5;
			}
			buf[pos++] = c;
			h = Math.imul(h ^ c, 0x01000193);
		}
	}
	count[0] = k;
	return out;
}
