'use strict';
/*
 * Deterministic RAG-length text for the benches, from a seeded generator (src/stats/random) and
 * words available offline:
 * - warm vocabulary: the words of the conformance pairs (test/fixtures/conformance), drawn with
 *   their frequency there;
 * - cold vocabulary: pseudo-words made from consonant-vowel syllables by a counter, so none was
 *   ever produced before in the process nor is a word of the conformance pairs. Each cold pair has
 *   its own lexicon (shared by its context, answer and ground truth, as a real document's terms are)
 *   plus a closed list of function words (the, of, and...) that every English text repeats.
 * A context is 1-5 kB of sentences in 1-4 paragraphs; an answer is 50-300 words, mostly spans
 * copied from the context with some words changed, inflected or dropped, and some new sentences.
 */
const { createRng } = require('../dist/src/stats/random');
const { readConformance } = require('./conformance');

const FUNCTION_WORDS = (
	'the the the of of and and to to a a in in is is that for it as was with be by on not ' +
	'are this or from at which but have has an they their were can will its also more may'
).split(' ');
const CONSONANTS = 'bdfgklmnprstvz'.split('');
const VOWELS = 'aeiou'.split('');
const SYLLABLES = CONSONANTS.flatMap((c) => VOWELS.map((v) => c + v));
const SUFFIXES = ['', '', '', 's', 'ed', 'ing', 'er', 'ly', 'ness', 'ment'];
const INFLECT = ['s', 'ed', 'ing', 'es', 'er'];

let vocabulary = null;
let vocabularySet = null;

/** Word tokens of the conformance pairs (with repeats, so sampling follows their frequency). */
function warmVocabulary() {
	if (vocabulary) return vocabulary;
	vocabulary = [];
	for (const r of readConformance('metric-conformance.jsonl')) {
		for (const raw of `${r.response} ${r.ground_truth}`.split(/\s+/)) {
			const w = raw.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
			if (/^[A-Za-z]+(?:[-'][A-Za-z]+)*$/.test(w) || /^[0-9]+(?:\.[0-9]+)?$/.test(w)) {
				vocabulary.push(w.length > 1 && w !== w.toUpperCase() ? w.toLowerCase() : w);
			}
		}
	}
	vocabularySet = new Set(vocabulary.map((w) => w.toLowerCase()));
	return vocabulary;
}

let pseudoCounter = 0;

/** A pseudo-word never returned before in this process and absent from the warm vocabulary. */
function freshWord() {
	warmVocabulary();
	const k = SYLLABLES.length;
	for (;;) {
		// The counter, permuted (multiplier coprime to k^len), written as 3 (then 4) syllables.
		const c = pseudoCounter++;
		const [len, offset] = c < k ** 3 ? [3, 0] : [4, k ** 3];
		let n = ((c - offset) * 7919 + 12345) % k ** len;
		let w = '';
		for (let i = 0; i < len; i++) {
			w = SYLLABLES[n % k] + w;
			n = Math.floor(n / k);
		}
		// Bases end in a vowel and suffixes in a consonant or "y", so base+suffix never meets a base.
		if (!vocabularySet.has(w)) return w;
	}
}

/** A text generator over one vocabulary source (`warm`: conformance words; `cold`: fresh). */
function createTextGenerator(seed, mode) {
	const rng = createRng(seed);
	const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
	const pick = (list) => list[Math.floor(rng() * list.length)];
	const vocab = warmVocabulary();

	function lexicon() {
		if (mode === 'warm') return null;
		// A document's own terms: 150-400 fresh words, drawn later with a skewed (Zipf-like) rank.
		return Array.from({ length: int(150, 400) }, () => freshWord() + pick(SUFFIXES));
	}
	function word(lex) {
		if (mode === 'warm') return pick(vocab);
		if (rng() < 0.4) return pick(FUNCTION_WORDS);
		return lex[Math.floor(lex.length * rng() * rng())];
	}
	function sentence(lex) {
		const n = int(6, 24);
		const words = [];
		for (let i = 0; i < n; i++) {
			let w = rng() < 0.03 ? String(int(2, 2030)) : word(lex);
			if (i === 0) w = w.charAt(0).toUpperCase() + w.slice(1);
			if (i < n - 1 && rng() < 0.08) w += ',';
			words.push(w);
		}
		const end = rng();
		return words.join(' ') + (end < 0.9 ? '.' : end < 0.95 ? '?' : '!');
	}
	/** 1-5 kB of sentences in 1-4 paragraphs; also returns the sentences. */
	function context(lex) {
		const target = int(1024, 5120);
		const sentences = [];
		let size = 0;
		while (size < target) {
			const s = sentence(lex);
			if (size >= 1024 && size + s.length + 1 > target) break;
			sentences.push(s);
			size += s.length + 1;
		}
		const paragraphs = [];
		const per = Math.ceil(sentences.length / int(1, 4));
		for (let i = 0; i < sentences.length; i += per) {
			paragraphs.push(sentences.slice(i, i + per).join(' '));
		}
		return { text: paragraphs.join('\n\n'), sentences };
	}
	/** 50-300 words: spans of the context (edited) and new sentences. */
	function answer(lex, sentences) {
		const target = int(50, 300);
		const out = [];
		while (out.length < target) {
			if (rng() < 0.7) {
				for (const w of pick(sentences).split(' ')) {
					const r = rng();
					if (r < 0.05) continue; // dropped
					if (r < 0.15)
						out.push(word(lex)); // replaced
					else if (r < 0.22 && /^[a-z]+$/.test(w))
						out.push(w + pick(INFLECT)); // inflected
					else out.push(w);
				}
			} else {
				out.push(...sentence(lex).split(' '));
			}
		}
		const words = out.slice(0, target);
		const last = words[words.length - 1];
		if (!/[.?!]$/.test(last)) words[words.length - 1] = `${last.replace(/,$/, '')}.`;
		return words.join(' ');
	}
	/** One RAG row: its context, a response and a ground-truth answer drawn from that context. */
	function row() {
		const lex = lexicon();
		const ctx = context(lex);
		return {
			context: ctx.text,
			response: answer(lex, ctx.sentences),
			groundTruth: answer(lex, ctx.sentences),
		};
	}
	return { row };
}

/** `n` RAG rows (`mode`: 'warm' or 'cold'); the same seed and mode give the same text. */
function ragRows(n, seed, mode = 'warm') {
	const g = createTextGenerator(seed, mode);
	return Array.from({ length: n }, () => g.row());
}

module.exports = { ragRows, freshWord, warmVocabulary };
