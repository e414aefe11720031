/**
 * sacreBLEU 2.6.0's `13a` tokenizer (tokenizers/tokenizer_13a.py + tokenizer_re.py), mteval-v13a:
 * drop `<skipped>`, join `-\n` hyphenation, newlines -> spaces, unescape four entities, then the
 * ASCII punctuation regexes, then `' '.join(line.split())` with Python whitespace.
 *
 * The four regex substitutions are hand scans over reusable UTF-16 buffers, each following the
 * exact left-to-right, non-overlapping scan that `re.sub` / `String.replace` with a global
 * two-character pattern performs (a match consumes both characters, the scan resumes after it):
 *   1. `([{-~[-` -&(-+:-@/])` -> ' $1 '
 *   2. `([^0-9])([.,])`      -> '$1 $2 '
 *   3. `([.,])([^0-9])`      -> ' $1 $2'
 *   4. `([0-9])(-)`          -> '$1 $2 '
 * Rules 1-2 share one scan, rules 3-4 run inside the final split (see each for why that is the
 * same), so the tokens equal the regex version's without building the intermediate strings.
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

function room(n: number): void {
	if (bufA.length < n) {
		let cap = bufA.length;
		while (cap < n) cap *= 2;
		bufA = new Uint16Array(cap);
	}
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isDotComma = (c: number) => c === 46 || c === 44;

/** Rules 1-2 of the 13a tokenizer on `line` into bufA[0, returned length). */
function run13a(input: string): number {
	// The preparation (<skipped>, entities, newlines) changes nothing unless '<', '&' or "\n"
	// occurs.
	for (let i = 0; i < input.length; i++) {
		const c = input.charCodeAt(i);
		if (c === 60 || c === 38 || c === 10) return scan12(prepare(input));
	}
	return scan12(input);
}

/** sacreBLEU's replacements before the regexes. */
function prepare(input: string): string {
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
	return line;
}

/** Rules 1-2 on ` ${line} ` into bufA. */
function scan12(line: string): number {
	const len = line.length + 2;
	// Rules 1-2 at most triple the text.
	room(len * 3 + 16);
	const a = bufA;
	// Rules 1 and 2 in one scan of ` ${line} `. Rule 1's output stream is each unit, padded with
	// spaces when in its class. A space (itself in the class) stays a single space there: the
	// padding would only lengthen runs of spaces, and rules 2-4 never match two spaces together
	// (each needs a '.', ',' or '-'), so a match touching a run touches only its edge space, which
	// a longer run keeps in the same place; split() drops the run whatever its length.
	// Rule 2 on that stream: a '.' or ',' (never in rule 1's class, so never padded) matches with
	// the stream unit before it when that one is not a digit and was not itself taken as the
	// '.'/',' of the previous match; the replacement keeps that unit and emits ' x '.
	let n = 0;
	let prev = 32;
	let prevTaken = false;
	for (let i = -1; i <= line.length; i++) {
		const c = i < 0 || i === line.length ? 32 : line.charCodeAt(i);
		if (c === 32) {
			a[n++] = 32;
			prev = 32;
			prevTaken = false;
		} else if (c < 128 && RULE1[c]) {
			a[n++] = 32;
			a[n++] = c;
			a[n++] = 32;
			prev = 32;
			prevTaken = false;
		} else if (c === 46 || c === 44) {
			if (!isDigit(prev) && !prevTaken) {
				a[n++] = 32;
				a[n++] = c;
				a[n++] = 32;
				prevTaken = true;
			} else {
				a[n++] = c;
				prevTaken = false;
			}
			prev = c;
		} else {
			a[n++] = c;
			prev = c;
			prevTaken = false;
		}
	}
	return n;
}

/**
 * Rules 3 and 4 and `str.split()` over the rules 1-2 stream bufA[0, n), in one scan:
 * - rule 3 (`([.,])([^0-9])` -> ' $1 $2'): a '.' or ',' followed by a non-digit, unless it was
 *   itself consumed as the second unit of the previous rule-3 match, is spaced off on both sides
 *   (it becomes a token alone) and consumes the next unit, which that stream then sees after a
 *   space;
 * - rule 4 (`([0-9])(-)` -> '$1 $2 ') on the rule-3 stream: a '-' right after a digit is spaced
 *   off on both sides (the match consumes the digit and the '-', neither of which can belong to
 *   another match);
 * - Python whitespace separates tokens.
 * Calls `onUnit(c)` per token unit and `onEnd()` after each token.
 */
function forEachToken13a(n: number, onUnit: (c: number) => void, onEnd: () => void): void {
	const a = bufA;
	let open = false;
	let prev = 32;
	let consumed = false;
	for (let i = 0; i <= n; i++) {
		const c = i === n ? 32 : a[i];
		if (!consumed && i + 1 < n && isDotComma(c) && !isDigit(a[i + 1])) {
			if (open) onEnd();
			onUnit(c);
			onEnd();
			open = false;
			consumed = true;
			prev = 32;
			continue;
		}
		consumed = false;
		if (c === 45 && isDigit(prev)) {
			if (open) onEnd();
			onUnit(45);
			onEnd();
			open = false;
		} else if (isPyWhitespaceCode(c)) {
			if (open) onEnd();
			open = false;
		} else {
			onUnit(c);
			open = true;
		}
		prev = c;
	}
}

/** Tokens of `Tokenizer13a()(line)` (the reference joins them with single spaces). */
export function tokenize13a(line: string): string[] {
	const out: string[] = [];
	let tok = '';
	forEachToken13a(
		run13a(line),
		(c) => {
			tok += String.fromCharCode(c);
		},
		() => {
			out.push(tok);
			tok = '';
		},
	);
	return out;
}

/**
 * The 13a tokens of `line` interned in `table`, as ids into `out` (returned, maybe grown);
 * `count[0]` gets the token count. Same tokens as tokenize13a (the same scan, inlined).
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
	let prev = 32;
	let consumed = false;
	// The scan of forEachToken13a (rules 3, 4 and the split), with the token units interned.
	for (let i = 0; i <= n; i++) {
		const c = i === n ? 32 : a[i];
		let alone = false;
		if (!consumed && i + 1 < n && isDotComma(c) && !isDigit(a[i + 1])) {
			alone = true;
			consumed = true;
			prev = 32;
		} else {
			consumed = false;
			alone = c === 45 && isDigit(prev);
			prev = c;
		}
		if (alone || isPyWhitespaceCode(c)) {
			if (start >= 0) {
				if (k === out.length) out = grow(out);
				out[k++] = table.commit(start, pos, h);
				pos = table.cursor;
				start = -1;
			}
			if (!alone) continue;
			// A unit spaced off on both sides by rule 3 or 4 is a token of its own.
			buf[pos] = c;
			if (k === out.length) out = grow(out);
			out[k++] = table.commit(pos, pos + 1, Math.imul(0x811c9dc5 ^ c, 0x01000193));
			pos = table.cursor;
			continue;
		}
		if (start < 0) {
			start = pos;
			h = 0x811c9dc5;
		}
		buf[pos++] = c;
		h = Math.imul(h ^ c, 0x01000193);
	}
	count[0] = k;
	return out;
}

function grow(a: Int32Array): Int32Array {
	const g = new Int32Array(a.length * 2);
	g.set(a);
	return g;
}
