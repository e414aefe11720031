import { porterStem } from '../../../src/metrics/porter';

// Stems printed by nltk's PorterStemmer() (NLTK_EXTENSIONS) next to MARTIN_EXTENSIONS, which is
// what the npm Porter stemmers implement: the pairs the port must get on the NLTK side.
const NLTK_VS_MARTIN: [word: string, nltk: string, martin: string][] = [
	['abbey', 'abbey', 'abbei'],
	['dying', 'die', 'dy'],
	['lying', 'lie', 'ly'],
	['tying', 'tie', 'ty'],
	['news', 'news', 'new'],
	['hopefully', 'hope', 'hopefulli'],
	['beautifully', 'beauti', 'beautifulli'],
	['skies', 'sky', 'ski'],
	['innings', 'inning', 'in'],
	['howe', 'howe', 'how'],
	['proceed', 'proceed', 'proce'],
	['ties', 'tie', 'ti'],
	['died', 'die', 'di'],
	['geology', 'geolog', 'geologi'],
	['theology', 'theolog', 'theologi'],
	['enjoy', 'enjoy', 'enjoi'],
];

describe('porterStem (nltk NLTK_EXTENSIONS)', () => {
	it.each(NLTK_VS_MARTIN)('%s -> %s (Martin mode would give %s)', (word, nltk, martin) => {
		expect(porterStem(word)).toBe(nltk);
		expect(porterStem(word)).not.toBe(martin);
	});

	it.each([
		['caresses', 'caress'],
		['ponies', 'poni'],
		['cats', 'cat'],
		['feed', 'feed'],
		['agreed', 'agre'],
		['motoring', 'motor'],
		['conflated', 'conflat'],
		['hopping', 'hop'],
		['falling', 'fall'],
		['filing', 'file'],
		['happy', 'happi'],
		['relational', 'relat'],
		['conditional', 'condit'],
		['generalli', 'gener'],
		['archaeology', 'archaeolog'],
		['spied', 'spi'],
		['exceeding', 'exceed'],
		['oed', 'o'],
		['ion', 'ion'],
	])('paper and nltk examples: %s -> %s', (word, stem) => {
		expect(porterStem(word)).toBe(stem);
	});

	it('lowercases, but looks the irregular pool up with the original word as nltk does', () => {
		expect(porterStem('DYING')).toBe('dy');
		expect(porterStem('Dying')).toBe('dy');
		expect(porterStem('dying')).toBe('die');
	});

	it('leaves words of at most two code points alone apart from lowercasing', () => {
		expect(porterStem('is')).toBe('is');
		expect(porterStem('AS')).toBe('as');
		// One astral code point plus a letter is two code points in Python, three UTF-16 units.
		expect(porterStem('a\u{1F600}')).toBe('a\u{1F600}');
	});

	it('indexes by code point around astral characters, as Python does', () => {
		// nltk: 'a😀ing' -> 'a😀e' (vowel + one consonant counts as cvc); UTF-16 indexing would
		// see two consonants and return 'a😀'.
		expect(porterStem('a\u{1F600}ing')).toBe('a\u{1F600}e');
		expect(porterStem('İstanbul')).toBe('i\u0307stanbul');
	});

	it('rejects non-strings', () => {
		expect(() => porterStem(3 as unknown as string)).toThrow(TypeError);
	});
});
