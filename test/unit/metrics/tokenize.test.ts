import {
	isAscii,
	nistInternationalTokenize,
	nltkTokenize,
	pySplit,
	rougeTokenize,
	sentTokenize,
	tokenize13a,
	wordTokenize,
} from '../../../src/metrics';
import { f1Tokens } from '../../../src/metrics/f1';
import { pyRstrip, pyStrip } from '../../../src/metrics/tokenize';
import { pyExp, pyLog } from '../../../src/metrics/tokenize/pymath';
import { fsum } from '../../../src/metrics/tokenize/util';
import { loadRows, loadTokenRows } from '../../support/conformance';

describe('tokens each reference saw (metric-conformance-tokens.jsonl)', () => {
	const rows = new Map(loadRows().map((r) => [r.id, r]));
	const tokenRows = loadTokenRows();
	const tokenizers: [string, (t: string) => string[]][] = [
		['nltk', nltkTokenize],
		['f1', f1Tokens],
		['rouge', rougeTokenize],
		['sacrebleu_13a', (t) => tokenize13a(pyRstrip(t))],
	];

	it('covers every row', () => {
		expect(tokenRows.length).toBe(rows.size);
	});

	it.each(tokenizers)('%s tokens are identical on both sides of every row', (key, fn) => {
		const diffs: string[] = [];
		for (const t of tokenRows) {
			const row = rows.get(t.id);
			if (!row || !t.tokens[key]) throw new Error(`missing ${key} tokens for ${t.id}`);
			for (const side of ['response', 'ground_truth'] as const) {
				const got = fn(row[side]);
				if (JSON.stringify(got) !== JSON.stringify(t.tokens[key][side])) {
					diffs.push(`${t.id} ${side}: ${JSON.stringify(got)}`);
				}
			}
		}
		expect(diffs).toEqual([]);
	});
});

describe('Python string semantics', () => {
	it('splits on Python whitespace, including \\x1c-\\x1f and NEL but not BOM', () => {
		expect(pySplit('a\x1cb\x1dc\x1ed\x1fe\x85f\ufeffg')).toEqual([
			'a',
			'b',
			'c',
			'd',
			'e',
			'f\ufeffg',
		]);
		expect(pySplit('  \t\n ')).toEqual([]);
		expect(pySplit('')).toEqual([]);
		expect(pyStrip('\u3000 x \u2029')).toBe('x');
	});

	it('isascii is true for the empty string only when every unit is < 128', () => {
		expect(isAscii('')).toBe(true);
		expect(isAscii('plain text')).toBe(true);
		expect(isAscii('caf\u00e9')).toBe(false);
	});

	it('fsum rounds the exact sum once', () => {
		expect(fsum([0.1, 0.2, 0.3])).toBe(0.6);
		expect(0.1 + 0.2 + 0.3).not.toBe(0.6);
		expect(fsum([1e100, 1, -1e100])).toBe(1);
		expect(fsum([])).toBe(0);
	});
});

describe('nltk word_tokenize (Punkt english + NLTKWordTokenizer)', () => {
	it('splits sentences and keeps abbreviation periods', () => {
		expect(sentTokenize('Mr. Smith went to Washington. He arrived at 5 p.m. today.')).toEqual([
			'Mr. Smith went to Washington.',
			'He arrived at 5 p.m. today.',
		]);
		expect(sentTokenize('')).toEqual([]);
	});

	it('splits a period off only at a sentence end', () => {
		expect(wordTokenize('Use it, i.e. carefully. Then stop.')).toEqual([
			'Use',
			'it',
			',',
			'i.e',
			'.',
			'carefully',
			'.',
			'Then',
			'stop',
			'.',
		]);
		expect(wordTokenize('Good muffins cost $3.88 in New York.')).toEqual([
			'Good',
			'muffins',
			'cost',
			'$',
			'3.88',
			'in',
			'New',
			'York',
			'.',
		]);
	});

	it('splits clitics and contractions, also before tabs and newlines (nltk 3.9)', () => {
		expect(wordTokenize("They'll say it can't be\tdon't")).toEqual([
			'They',
			"'ll",
			'say',
			'it',
			'ca',
			"n't",
			'be',
			'do',
			"n't",
		]);
		expect(wordTokenize('"Quoted," she said.')).toEqual([
			'``',
			'Quoted',
			',',
			"''",
			'she',
			'said',
			'.',
		]);
		expect(wordTokenize('I cannot go')).toEqual(['I', 'can', 'not', 'go']);
	});
});

describe('NIST international tokenizer (non-ASCII text)', () => {
	it('splits punctuation after perluniprops "Number" letters but keeps numbers whole', () => {
		expect(nistInternationalTokenize('é hello-world')).toEqual(['é', 'hello', '-', 'world']);
		expect(nistInternationalTokenize('é 1,000.50% ok')).toEqual(['é', '1,000.50%', 'ok']);
		expect(nistInternationalTokenize('é a.b, c')).toEqual(['é', 'a', '.', 'b', ',', 'c']);
	});

	it('pads every ASCII run, so accented words fall apart as in mteval', () => {
		expect(nistInternationalTokenize('héllo-wörld')).toEqual([
			'h',
			'é',
			'llo',
			'-',
			'w',
			'ö',
			'rld',
		]);
	});

	it('never splits astral symbols (no class reaches past U+FFFD)', () => {
		expect(nistInternationalTokenize('é 🎉👍 !')).toEqual(['é', '🎉👍', '!']);
	});

	it('unescapes XML entities and drops <skipped>', () => {
		expect(nistInternationalTokenize('é &amp; è<skipped>')).toEqual(['é', '&', 'è']);
	});

	it('is what nltkTokenize uses for non-ASCII text only', () => {
		expect(nltkTokenize('naïve test.')).toEqual(nistInternationalTokenize('naïve test.'));
		expect(nltkTokenize('naive test.')).toEqual(wordTokenize('naive test.'));
	});
});

describe('correctly rounded exp/log (CPython uses glibc, V8 uses fdlibm)', () => {
	it('agrees with the exact value where Math.exp is an ulp off', () => {
		// CPython's values; V8's Math.exp/Math.log give 0.7118990173476325 and 0.39702623946229976.
		expect(pyExp(-0.3398192071968573)).toBe(0.7118990173476326);
		expect(pyExp(0.32515337423312884)).toBe(1.3842429368992677);
		expect(pyLog(1.4873949579831933)).toBe(0.3970262394622998);
		expect(pyLog(0.07317073170731707)).toBe(-2.6149597780361984);
		expect(pyExp(0)).toBe(1);
		expect(pyLog(1)).toBe(0);
		for (let x = -20; x < 5; x += 0.37) {
			expect(Math.abs(pyExp(x) - Math.exp(x)) / Math.exp(x)).toBeLessThan(3e-16);
		}
		for (let x = 0.001; x < 1000; x *= 1.7) {
			expect(Math.abs(pyLog(x) - Math.log(x))).toBeLessThanOrEqual(Math.abs(Math.log(x)) * 3e-16);
		}
	});
});
