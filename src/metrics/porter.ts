/**
 * Porter stemmer, nltk 3.9.2 `nltk.stem.porter.PorterStemmer` in its default NLTK_EXTENSIONS mode.
 * Reference: M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980, pp. 130-137,
 * with the nltk departures: the irregular-forms pool (`dying` -> `die`, `news` -> `news`...),
 * `ies`/`ied` on 4-letter words, y -> i only after a consonant that is not the first letter,
 * `alli` re-entering step 2, `fulli` -> `ful`, `logi` -> `log` with the measure taken on the stem
 * plus `l`, and the two-letter vowel-consonant cvc case. Words of at most 2 code points are only
 * lowercased. npm Porter stemmers implement Martin Porter's own variant, which differs on ~1,200
 * words, hence this port. Python indexes strings by code point, so astral characters are folded
 * to single BMP placeholders for the duration of the algorithm.
 */

const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map([
	['sky', 'sky'],
	['skies', 'sky'],
	['dying', 'die'],
	['lying', 'lie'],
	['tying', 'tie'],
	['news', 'news'],
	['innings', 'inning'],
	['inning', 'inning'],
	['outings', 'outing'],
	['outing', 'outing'],
	['cannings', 'canning'],
	['canning', 'canning'],
	['howe', 'howe'],
	['proceed', 'proceed'],
	['exceed', 'exceed'],
	['succeed', 'succeed'],
]);

type Condition = ((stem: string) => boolean) | null;
type Rule = readonly [suffix: string, replacement: string, condition: Condition];

function isVowelLetter(c: string): boolean {
	return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u';
}

/** nltk's definition: `y` is a consonant at the start or after a vowel, a vowel after a consonant. */
function isConsonant(word: string, i: number): boolean {
	// Iterative form of the recursive definition: walk back over the run of `y`s.
	let k = i;
	while (k > 0 && word[k] === 'y') k--;
	let cons: boolean;
	if (word[k] === 'y') cons = true;
	else cons = !isVowelLetter(word[k]);
	// Each `y` after position k flips relative to its predecessor.
	for (let p = k + 1; p <= i; p++) cons = !cons;
	return cons;
}

/** Number of `vc` transitions in the consonant/vowel pattern (Porter's m). */
function measure(stem: string): number {
	let m = 0;
	let prevVowel = false;
	for (let i = 0; i < stem.length; i++) {
		const cons = isConsonant(stem, i);
		if (cons && prevVowel) m++;
		prevVowel = !cons;
	}
	return m;
}

function hasPositiveMeasure(stem: string): boolean {
	return measure(stem) > 0;
}

function measureGt1(stem: string): boolean {
	return measure(stem) > 1;
}

function containsVowel(stem: string): boolean {
	for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
	return false;
}

function endsDoubleConsonant(word: string): boolean {
	const n = word.length;
	return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

function endsCvc(word: string): boolean {
	const n = word.length;
	if (n >= 3) {
		const last = word[n - 1];
		if (
			isConsonant(word, n - 3) &&
			!isConsonant(word, n - 2) &&
			isConsonant(word, n - 1) &&
			last !== 'w' &&
			last !== 'x' &&
			last !== 'y'
		)
			return true;
	}
	// NLTK extension: a two-letter word of the form vowel-consonant also counts.
	return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

/**
 * First rule whose suffix matches decides: its condition failing stops the search (Porter's
 * longest-match semantics). `*d` means "ends with a double consonant".
 */
function applyRuleList(word: string, rules: readonly Rule[]): string {
	for (let i = 0; i < rules.length; i++) {
		const [suffix, replacement, condition] = rules[i];
		if (suffix === '*d' && endsDoubleConsonant(word)) {
			const stem = word.slice(0, -2);
			return condition === null || condition(stem) ? stem + replacement : word;
		}
		if (word.endsWith(suffix)) {
			const stem = suffix === '' ? word : word.slice(0, -suffix.length);
			return condition === null || condition(stem) ? stem + replacement : word;
		}
	}
	return word;
}

const STEP1A_RULES: readonly Rule[] = [
	['sses', 'ss', null],
	['ies', 'i', null],
	['ss', 'ss', null],
	['s', '', null],
];

function step1a(word: string): string {
	if (word.endsWith('ies') && word.length === 4) return word.slice(0, -3) + 'ie';
	return applyRuleList(word, STEP1A_RULES);
}

function step1b(word: string): string {
	if (word.endsWith('ied')) {
		return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
	}
	if (word.endsWith('eed')) {
		const stem = word.slice(0, -3);
		return measure(stem) > 0 ? stem + 'ee' : word;
	}
	let intermediate: string | null = null;
	if (word.endsWith('ed')) {
		const candidate = word.slice(0, -2);
		if (containsVowel(candidate)) intermediate = candidate;
	}
	if (intermediate === null && word.endsWith('ing')) {
		const candidate = word.slice(0, -3);
		if (containsVowel(candidate)) intermediate = candidate;
	}
	if (intermediate === null) return word;
	// nltk's rule list after -ed/-ing, in order: at -> ate, bl -> ble, iz -> ize, a double
	// consonant other than l/s/z loses one letter, else m = 1 and *o adds e.
	const w = intermediate;
	if (w.endsWith('at')) return w + 'e';
	if (w.endsWith('bl')) return w + 'e';
	if (w.endsWith('iz')) return w + 'e';
	if (endsDoubleConsonant(w)) {
		const lastChar = w[w.length - 1];
		return lastChar !== 'l' && lastChar !== 's' && lastChar !== 'z' ? w.slice(0, -1) : w;
	}
	return measure(w) === 1 && endsCvc(w) ? w + 'e' : w;
}

const STEP1C_RULES: readonly Rule[] = [
	['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)],
];

function step1c(word: string): string {
	return applyRuleList(word, STEP1C_RULES);
}

const STEP2_RULES: readonly Rule[] = [
	['ational', 'ate', hasPositiveMeasure],
	['tional', 'tion', hasPositiveMeasure],
	['enci', 'ence', hasPositiveMeasure],
	['anci', 'ance', hasPositiveMeasure],
	['izer', 'ize', hasPositiveMeasure],
	['bli', 'ble', hasPositiveMeasure],
	['alli', 'al', hasPositiveMeasure],
	['entli', 'ent', hasPositiveMeasure],
	['eli', 'e', hasPositiveMeasure],
	['ousli', 'ous', hasPositiveMeasure],
	['ization', 'ize', hasPositiveMeasure],
	['ation', 'ate', hasPositiveMeasure],
	['ator', 'ate', hasPositiveMeasure],
	['alism', 'al', hasPositiveMeasure],
	['iveness', 'ive', hasPositiveMeasure],
	['fulness', 'ful', hasPositiveMeasure],
	['ousness', 'ous', hasPositiveMeasure],
	['aliti', 'al', hasPositiveMeasure],
	['iviti', 'ive', hasPositiveMeasure],
	['biliti', 'ble', hasPositiveMeasure],
	['fulli', 'ful', hasPositiveMeasure],
	// The `l` of `logi` stays with the stem for the measure, so `geo`/`theo` stems qualify.
	['logi', 'log', (stem) => hasPositiveMeasure(stem + 'l')],
];

function step2(word: string): string {
	// NLTK applies ALLI -> AL before the list and feeds the result through step 2 again.
	if (word.endsWith('alli') && hasPositiveMeasure(word.slice(0, -4))) {
		return step2(word.slice(0, -4) + 'al');
	}
	return applyRuleList(word, STEP2_RULES);
}

const STEP3_RULES: readonly Rule[] = [
	['icate', 'ic', hasPositiveMeasure],
	['ative', '', hasPositiveMeasure],
	['alize', 'al', hasPositiveMeasure],
	['iciti', 'ic', hasPositiveMeasure],
	['ical', 'ic', hasPositiveMeasure],
	['ful', '', hasPositiveMeasure],
	['ness', '', hasPositiveMeasure],
];

const STEP4_RULES: readonly Rule[] = [
	['al', '', measureGt1],
	['ance', '', measureGt1],
	['ence', '', measureGt1],
	['er', '', measureGt1],
	['ic', '', measureGt1],
	['able', '', measureGt1],
	['ible', '', measureGt1],
	['ant', '', measureGt1],
	['ement', '', measureGt1],
	['ment', '', measureGt1],
	['ent', '', measureGt1],
	['ion', '', (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t'))],
	['ou', '', measureGt1],
	['ism', '', measureGt1],
	['ate', '', measureGt1],
	['iti', '', measureGt1],
	['ous', '', measureGt1],
	['ive', '', measureGt1],
	['ize', '', measureGt1],
];

function step5a(word: string): string {
	if (word.endsWith('e')) {
		const stem = word.slice(0, -1);
		const m = measure(stem);
		if (m > 1) return stem;
		if (m === 1 && !endsCvc(stem)) return stem;
	}
	return word;
}

function step5b(word: string): string {
	if (word.endsWith('ll') && measure(word.slice(0, -1)) > 1) return word.slice(0, -1);
	return word;
}

function runSteps(stem: string): string {
	let s = step1a(stem);
	s = step1b(s);
	s = step1c(s);
	s = step2(s);
	s = applyRuleList(s, STEP3_RULES);
	s = applyRuleList(s, STEP4_RULES);
	s = step5a(s);
	return step5b(s);
}

const ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;

/** Length in code points, as Python's `len` counts. */
function codePointLength(s: string): number {
	let n = 0;
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
			const d = s.charCodeAt(i + 1);
			if (d >= 0xdc00 && d <= 0xdfff) i++;
		}
		n++;
	}
	return n;
}

/**
 * Runs the steps with every astral code point replaced by a private-use BMP character absent from
 * the word, so indices and equality behave as on Python code points; then maps them back.
 */
function runStepsOnCodePoints(stem: string): string {
	const toPlaceholder = new Map<string, string>();
	const fromPlaceholder = new Map<string, string>();
	let next = 0xe000;
	let folded = '';
	for (const ch of stem) {
		if (ch.length === 1) {
			folded += ch;
			continue;
		}
		let p = toPlaceholder.get(ch);
		if (p === undefined) {
			while (stem.includes(String.fromCharCode(next))) next++;
			p = String.fromCharCode(next++);
			toPlaceholder.set(ch, p);
			fromPlaceholder.set(p, ch);
		}
		folded += p;
	}
	let out = '';
	for (const ch of runSteps(folded)) out += fromPlaceholder.get(ch) ?? ch;
	return out;
}

/**
 * Stems one word exactly as nltk 3.9.2 `PorterStemmer().stem(word)` (NLTK_EXTENSIONS mode,
 * `to_lowercase=True`). Lowercasing uses JS `toLowerCase`, which equals Python `str.lower` on the
 * conformance corpus.
 */
export function porterStem(word: string): string {
	if (typeof word !== 'string') throw new TypeError('porterStem: word must be a string');
	const stem = word.toLowerCase();
	// nltk looks the pool up with the original word: `Dying` is not an irregular form.
	const irregular = IRREGULAR_FORMS.get(word);
	if (irregular !== undefined) return irregular;
	if (codePointLength(word) <= 2) return stem;
	return ASTRAL.test(stem) ? runStepsOnCodePoints(stem) : runSteps(stem);
}
