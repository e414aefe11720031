/**
 * The hand-written scans that replaced regex chains (13a, NIST, the NLTK word tokenizer's
 * final-period / comma / quote gates, F1 and ROUGE tokens straight to ids) against the literal
 * regex versions they replaced, kept here as oracles, on seeded random strings built from the
 * characters each rule reacts to.
 */
import { f1Score, nistInternationalTokenize, rougeScore, tokenize13a } from '../../../src/metrics';
import { f1Tokens } from '../../../src/metrics/f1';
import nist from '../../../src/metrics/data/nist-perluniprops.json';
import { nltkWordTokenizeSentence } from '../../../src/metrics/tokenize';
import { PY_S, pySplit } from '../../../src/metrics/tokenize/py';

function rng(seed: number): () => number {
	let s = seed;
	return () => {
		s = (s * 1103515245 + 12345) & 0x7fffffff;
		return s / 0x7fffffff;
	};
}

function strings(
	alphabet: readonly string[],
	count: number,
	maxLen: number,
	seed: number,
): string[] {
	const rnd = rng(seed);
	const out: string[] = [];
	for (let k = 0; k < count; k++) {
		let s = '';
		const n = Math.floor(rnd() * (maxLen + 1));
		for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
		out.push(s);
	}
	return out;
}

function mismatches<T>(inputs: string[], got: (s: string) => T, want: (s: string) => T): string[] {
	const bad: string[] = [];
	for (const s of inputs) {
		const a = JSON.stringify(got(s));
		const b = JSON.stringify(want(s));
		if (a !== b) bad.push(`${JSON.stringify(s)}: ${a} != ${b}`);
		if (bad.length >= 5) break;
	}
	return bad;
}

// --- oracles: the regex versions the scans replaced --------------------------------------

function regex13a(line: string): string[] {
	let t = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
	if (t.includes('&')) {
		t = t
			.replaceAll('&quot;', '"')
			.replaceAll('&amp;', '&')
			.replaceAll('&lt;', '<')
			.replaceAll('&gt;', '>');
	}
	t = ` ${t} `;
	for (const [re, sub] of [
		[/([{-~[-` -&(-+:-@/])/g, ' $1 '],
		[/([^0-9])([.,])/g, '$1 $2 '],
		[/([.,])([^0-9])/g, ' $1 $2'],
		[/([0-9])(-)/g, '$1 $2 '],
	] as [RegExp, string][]) {
		t = t.replace(re, sub);
	}
	return pySplit(t);
}

function cls(flat: number[]): string {
	const hex = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
	let body = '';
	for (let i = 0; i < flat.length; i += 2) {
		body += flat[i] === flat[i + 1] ? hex(flat[i]) : `${hex(flat[i])}-${hex(flat[i + 1])}`;
	}
	return `[${body}]`;
}
const N = cls(nist.number);
const P = cls(nist.punctuation);
const S = cls(nist.symbol);

function regexNist(text: string): string[] {
	let t = text.replaceAll('<skipped>', '').replaceAll('\u2028', ' ');
	if (t.includes('&')) {
		t = t
			.replaceAll('&lt;', '<')
			.replaceAll('&gt;', '>')
			.replaceAll('&apos;', "'")
			.replaceAll('&quot;', '"')
			.replaceAll('&#124;', '|')
			.replaceAll('&#91;', '[')
			.replaceAll('&#93;', ']')
			.replaceAll('&amp;', '&');
	}
	t = t.replace(/([\x00-\x7f]+)/g, ' $1 ');
	t = t.replace(new RegExp(`(${N})(${P})`, 'g'), '$1 $2 ');
	t = t.replace(new RegExp(`(${P})(${N})`, 'g'), ' $1 $2');
	t = t.replace(new RegExp(`(${S})`, 'g'), ' $1 ');
	return pySplit(t);
}

const END = '(?=\\n?$)';
const WORD_RULES: [RegExp, string][] = [
	[/([«“‘„]|[`]+)/g, ' $1 '],
	[/^"/, '``'],
	[/(``)/g, ' $1 '],
	[/([ ([{<])("|'{2})/g, '$1 `` '],
	[/(')(?!re|ve|ll|m|t|s|d|n)(\w)\b/gi, '$1 $2'],
	[new RegExp(`([^.])(\\.)([\\])}>"'»”’ ]*)${PY_S}*${END}`), '$1 $2 $3 '],
	[/([:,])([^\d])/g, ' $1 $2'],
	[new RegExp(`([:,])${END}`), ' $1 '],
	[/\.{2,}/g, ' $& '],
	[/[;@#$%&]/g, ' $& '],
	[new RegExp(`([^.])(\\.)([\\])}>"']*)${PY_S}*${END}`), '$1 $2$3 '],
	[/[?!]/g, ' $& '],
	[/([^'])' /g, "$1 ' "],
	[/[*]/g, ' $& '],
	[/[\][(){}<>]/g, ' $& '],
	[/--/g, ' -- '],
];
const WORD_ENDING: [RegExp, string][] = [
	[/([»”’])/g, ' $1 '],
	[/''/g, " '' "],
	[/"/g, " '' "],
	[new RegExp(`${PY_S}+`, 'g'), ' '],
	[/([^' ])('[sS]|'[mM]|'[dD]|') /g, '$1 $2 '],
	[/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /g, '$1 $2 '],
];
const WORD_CONTRACTIONS: RegExp[] = [
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

function regexWords(sentence: string): string[] {
	let t = sentence;
	for (const [re, sub] of WORD_RULES) t = t.replace(re, sub);
	t = ` ${t} `;
	for (const [re, sub] of WORD_ENDING) t = t.replace(re, sub);
	for (const re of WORD_CONTRACTIONS) t = t.replace(re, ' $1 $2 ');
	return pySplit(t);
}

function literalF1(response: string, groundTruth: string): number {
	const pred = f1Tokens(response);
	const ref = f1Tokens(groundTruth);
	const counts = new Map<string, number>();
	for (const t of ref) counts.set(t, (counts.get(t) ?? 0) + 1);
	let common = 0;
	for (const t of pred) {
		const c = counts.get(t) ?? 0;
		if (c > 0) {
			counts.set(t, c - 1);
			common++;
		}
	}
	if (common === 0) return 0;
	const p = (1.0 * common) / pred.length;
	const r = (1.0 * common) / ref.length;
	return (2.0 * p * r) / (p + r);
}

function literalRouge1(response: string, groundTruth: string): number[] {
	const tok = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
	const p = tok(response);
	const t = tok(groundTruth);
	const counts = new Map<string, number>();
	for (const x of p) counts.set(x, (counts.get(x) ?? 0) + 1);
	let overlap = 0;
	for (const x of t) {
		const c = counts.get(x) ?? 0;
		if (c > 0) {
			counts.set(x, c - 1);
			overlap++;
		}
	}
	const pr = overlap / Math.max(p.length, 1);
	const rc = overlap / Math.max(t.length, 1);
	return [pr, rc, pr + rc > 0 ? (2 * pr * rc) / (pr + rc) : 0];
}

// --- the checks ----------------------------------------------------------------------------

describe('hand scans equal the regex versions they replaced', () => {
	it('sacreBLEU 13a', () => {
		const inputs = [
			...strings(['0', '1', '.', ',', '-', ' ', 'a', '\n', '&', ';', '"', "'", 'é'], 20000, 14, 1),
			...strings(
				['<skipped>', '&amp;', '&quot;', '&lt;', '&gt;', '-\n', '\n', '5', '.', '-'],
				5000,
				8,
				2,
			),
			...strings(['0', '.', ',', '-', 'x', ' ', '!', '/', '{', '~', '`', '_', '\t'], 5000, 30, 3),
		];
		expect(mismatches(inputs, tokenize13a, regex13a)).toEqual([]);
	});

	it('NIST international tokenizer, every BMP unit and random strings', () => {
		const units: string[] = [];
		for (let c = 0; c < 0x10000; c += 1) {
			const ch = String.fromCharCode(c);
			units.push(`a${ch}1${ch}é${ch}${ch}`);
		}
		const inputs = [
			...units,
			...strings(
				[
					'a',
					'1',
					'.',
					',',
					'é',
					'\u0661',
					'\u060c',
					'\u3002',
					'\u00a5',
					'\u2028',
					' ',
					'&amp;',
					'<skipped>',
					'\u00b2',
					'\uff0c',
					'-',
					'$',
				],
				20000,
				12,
				4,
			),
		];
		expect(mismatches(inputs, nistInternationalTokenize, regexNist)).toEqual([]);
	});

	it('NLTK word tokenizer on one sentence', () => {
		const inputs = [
			...strings(['a', '.', '..', ' ', ')', ']', '"', "'", '\n', '\t', '»', ','], 20000, 10, 5),
			...strings(
				['ab', '.', ',', ':', ';', "'", '"', '`', '(', ')', '?', '!', '*', '-', '\n', ' '],
				20000,
				12,
				6,
			),
			...strings(
				[
					'cannot',
					"d'ye",
					'gimme',
					'GONNA',
					"more'n",
					'wanna',
					"'tis",
					"'Twas",
					"can't",
					"it's",
					'x',
					' ',
					'"',
					'\n',
				],
				20000,
				6,
				7,
			),
			...strings(
				["'s", "'ll", "n't", "N'T", "'RE", "''", '``', ' ', 'a', 'n', '\t', '.'],
				20000,
				8,
				8,
			),
		];
		expect(mismatches(inputs, nltkWordTokenizeSentence, regexWords)).toEqual([]);
	});

	it('F1 tokens to ids (articles, case, punctuation, non-ASCII, control units)', () => {
		const alphabet = [
			'a',
			'an',
			'the',
			'The',
			'A',
			'T',
			'x',
			'1',
			' ',
			'.',
			"'",
			'\x01',
			'\x7f',
			'é',
			'—',
			'İ',
			'K',
			'Σ',
			'ß',
			'\u00a0',
			'\u0301',
			'\ud83d\ude00',
			// NUL and US (kept / Python whitespace), tab, KELVIN SIGN (lowercases to ASCII "k").
			'\x00',
			'\x1f',
			'\t',
			'\u212a',
		];
		const a = strings(alphabet, 20000, 8, 9);
		const b = strings(alphabet, 20000, 8, 10);
		const bad: string[] = [];
		for (let i = 0; i < a.length && bad.length < 5; i++) {
			const got = f1Score(a[i], b[i]);
			const want = literalF1(a[i], b[i]);
			if (!Object.is(got, want)) bad.push(`${JSON.stringify([a[i], b[i]])}: ${got} != ${want}`);
		}
		expect(bad).toEqual([]);
	});

	it('ROUGE tokens to ids (lowercasing per unit, non-ASCII separators)', () => {
		const alphabet = [
			'A',
			'b',
			'Z',
			'9',
			' ',
			'-',
			'é',
			'İ',
			'K',
			'Σ',
			'ς',
			'\n',
			'ß',
			'Ǆ',
			'\ud801\udc00',
		];
		const a = strings(alphabet, 20000, 10, 11);
		const b = strings(alphabet, 20000, 10, 12);
		const bad: string[] = [];
		for (let i = 0; i < a.length && bad.length < 5; i++) {
			const s = rougeScore(a[i], b[i], 'rouge1');
			const got = [s.precision, s.recall, s.fmeasure];
			const want = literalRouge1(a[i], b[i]);
			if (JSON.stringify(got) !== JSON.stringify(want))
				bad.push(JSON.stringify([a[i], b[i], got, want]));
		}
		expect(bad).toEqual([]);
	});
});
