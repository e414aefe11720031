import {
	isWordNetLoaded,
	loadWordNet,
	morphy,
	synonymSetOrNull,
	synonymsOf,
	synsets,
} from '../../../src/metrics/wordnet';

describe('WordNet 3.0 reader', () => {
	it('loads lazily, once', () => {
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const fresh =
				require('../../../src/metrics/wordnet') as typeof import('../../../src/metrics/wordnet');
			expect(fresh.isWordNetLoaded()).toBe(false);
		});
		const info = loadWordNet();
		expect(isWordNetLoaded()).toBe(true);
		expect(loadWordNet()).toBe(info);
		// 117,798 nouns + 11,529 verbs + 21,479 adjectives + 4,481 adverbs in WordNet 3.0.
		expect(info.lemmas).toBe(155287);
	});

	describe('morphy (nltk 3.9 _morphy)', () => {
		it.each([
			['geese', 'n', ['goose']],
			['dogs', 'n', ['dog']],
			['churches', 'n', ['church']],
			['ran', 'v', ['run']],
			['running', 'v', ['run']],
			['better', 'a', ['better', 'good', 'well']],
			['quickly', 'r', ['quickly']],
			['dog', 'r', []],
		] as const)('%s (%s) -> %j', (form, pos, expected) => {
			expect(morphy(form, pos)).toEqual(expected);
		});

		it('strips one suffix only (nltk < 3.9 kept stripping and found "abide")', () => {
			expect(morphy('abidings', 'v')).toEqual([]);
			expect(morphy('ablateded', 'v')).toEqual([]);
			expect(morphy('abiding', 'v')).toContain('abide');
		});

		it('uses the exception list instead of the rules when the form is listed', () => {
			// "axes" is listed (-> ax, axis): the rule "es" -> "e" would give "axe" but is not applied.
			expect(morphy('axes', 'n')).toEqual(expect.arrayContaining(['ax', 'axis']));
			expect(morphy('axes', 'n')).not.toContain('axe');
		});
	});

	describe('synonymsOf (the set nltk METEOR builds)', () => {
		it('unions lemma names over every POS, drops names with "_", adds the word', () => {
			const dog = synonymsOf('dog');
			expect([...dog].sort()).toEqual([
				'andiron',
				'blackguard',
				'bounder',
				'cad',
				'chase',
				'click',
				'detent',
				'dog',
				'dog-iron',
				'firedog',
				'frank',
				'frankfurter',
				'frump',
				'heel',
				'hotdog',
				'hound',
				'pawl',
				'tag',
				'tail',
				'track',
				'trail',
				'weenie',
				'wiener',
				'wienerwurst',
			]);
			expect(dog.has('hot_dog')).toBe(false);
		});

		it('keeps the case of lemma names, so proper nouns never equal lowercased tokens', () => {
			// nltk gives Japan, Nihon, Nippon (the country) and japan (lacquerware, to lacquer).
			expect([...synonymsOf('japan')].sort()).toEqual(['Japan', 'Nihon', 'Nippon', 'japan']);
		});

		it('strips adjective markers such as (a) and (p)', () => {
			for (const s of synsets('galore')) for (const n of s.lemmaNames) expect(n).not.toMatch(/\(/);
			expect(synonymsOf('galore').has('galore')).toBe(true);
			expect(synsets('galore').some((s) => s.pos === 'a')).toBe(true);
		});

		it('includes the word itself when WordNet does not know it', () => {
			expect([...synonymsOf('qwzx')]).toEqual(['qwzx']);
			expect([...synonymsOf('')]).toEqual(['']);
		});

		it('is memoised', () => {
			expect(synonymsOf('better')).toBe(synonymsOf('better'));
		});

		it('synonymSetOrNull: null exactly when the set would hold only the word itself', () => {
			expect(synonymSetOrNull('qwzx')).toBeNull();
			expect(synonymSetOrNull('')).toBeNull();
			// A lemma whose only synset names nothing but itself.
			expect(synsets('zebra')).toHaveLength(1);
			expect(synonymSetOrNull('zebra')).toBeNull();
			expect([...synonymsOf('zebra')]).toEqual(['zebra']);
			for (const w of ['dog', 'better', 'japan', 'ran', 'geese', 'galore']) {
				expect([...(synonymSetOrNull(w) ?? [])].sort()).toEqual([...synonymsOf(w)].sort());
				expect(synonymsOf(w).size).toBeGreaterThan(1);
			}
		});
	});
});
