/**
 * sacreBLEU 2.6.0's `13a` tokenizer (tokenizers/tokenizer_13a.py + tokenizer_re.py), mteval-v13a:
 * drop `<skipped>`, join `-\n` hyphenation, newlines -> spaces, unescape four entities, then the
 * ASCII punctuation regexes, then `' '.join(line.split())` with Python whitespace.
 */
import { pySplit } from './py';

const RULES: [RegExp, string][] = [
	[/([{-~[-` -&(-+:-@/])/g, ' $1 '],
	[/([^0-9])([.,])/g, '$1 $2 '],
	[/([.,])([^0-9])/g, ' $1 $2'],
	[/([0-9])(-)/g, '$1 $2 '],
];

/** Tokens of `Tokenizer13a()(line)` (the reference joins them with single spaces). */
export function tokenize13a(line: string): string[] {
	let t = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
	if (t.includes('&')) {
		t = t
			.replaceAll('&quot;', '"')
			.replaceAll('&amp;', '&')
			.replaceAll('&lt;', '<')
			.replaceAll('&gt;', '>');
	}
	t = ` ${t} `;
	for (const [re, sub] of RULES) t = t.replace(re, sub);
	return pySplit(t);
}
