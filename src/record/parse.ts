/**
 * Turns file content into numbered raw rows: JSON (array, wrapped array or single row), JSON Lines
 * (row = line number) and CSV (RFC 4180 via csv-parse; row = data row, header excluded). A row that
 * cannot be read becomes an error row; only an unreadable file as a whole throws `DatasetError`.
 */
import { isUtf8 } from 'node:buffer';
import { parse as parseCsv } from 'csv-parse/sync';
import { isObject, typeName, type Row } from './values';

/** Physical formats `loadDataset` reads; `items` means rows handed over already parsed. */
export type DatasetFormat = 'json' | 'jsonl' | 'csv' | 'items';

/** Why a whole dataset could not be read. */
export type DatasetErrorCode = 'empty' | 'encoding' | 'syntax';

/** A dataset that cannot be read at all (empty, not UTF-8, broken JSON or CSV structure). */
export class DatasetError extends Error {
	constructor(
		readonly code: DatasetErrorCode,
		message: string,
	) {
		super(message);
		this.name = 'DatasetError';
	}
}

/** One input row before schema mapping; `error` is set when the row itself could not be read. */
export interface RawRow {
	row: number;
	value: unknown;
	error?: string;
}

/**
 * Rows read from one input, plus what a wrapper object held besides its row array. `rows` may be
 * read once only: JSON Lines from bytes are parsed as they are iterated, so each raw row can die
 * young once its record is built.
 */
export interface RawDataset {
	format: DatasetFormat;
	rows: Iterable<RawRow>;
	/** CSV cells are text, so adapters parse JSON held in structured cells. */
	fromCsv: boolean;
	wrapper?: Row;
	/**
	 * What the reader had to be lenient about, for the dataset's account. Filled while `rows` is
	 * iterated (JSON Lines from bytes are read lazily): read it after the last row.
	 */
	notes: ReadNotes;
}

/** Counts of the lenient readings a file needed; each becomes one line of the account. */
export interface ReadNotes {
	/** JSON Lines records written over several physical lines (raw newlines in strings). */
	multiLine: number;
	/** Lines or records whose strings held raw control characters (tabs, newlines). */
	rawControl: number;
	/** CSV cells with a bare `"` inside an unquoted value, read as text as Python's csv does. */
	relaxedQuotes: boolean;
	/** Free-text notes (a JSON array in a JSON Lines file, DeepEval test-run arrays joined). */
	text: string[];
}

const newNotes = (): ReadNotes => ({ multiLine: 0, rawControl: 0, relaxedQuotes: false, text: [] });

/** Keys under which JSON exports commonly wrap their row array. */
const WRAPPER_KEYS = [
	'data',
	'rows',
	'records',
	'items',
	'examples',
	'samples',
	'test_cases',
	'testCases',
	'goldens',
];

/** A DeepEval test run keeps single-turn and conversational cases in two arrays: both are rows. */
const DEEPEVAL_RUN = ['testCases', 'conversationalTestCases'] as const;

/** Byte offset and line of the first invalid UTF-8 sequence, for a message users can act on. */
function locateBadUtf8(bytes: Uint8Array): string {
	const loose = new TextDecoder('utf-8').decode(bytes);
	const enc = new TextEncoder();
	let from = 0;
	for (;;) {
		const i = loose.indexOf('\uFFFD', from);
		if (i < 0) return '';
		const offset = enc.encode(loose.slice(0, i)).length;
		// A genuine U+FFFD in the file is encoded EF BF BD; anything else is the decoder's marker.
		if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) {
			const line = loose.slice(0, i).split('\n').length;
			return ` at byte ${offset} (line ${line})`;
		}
		from = i + 1;
	}
}

/** Decodes bytes as strict UTF-8 (BOM removed); invalid bytes are one clear error. */
export function decodeText(input: string | Uint8Array): string {
	if (typeof input === 'string') return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
	if ((input[0] === 0xff && input[1] === 0xfe) || (input[0] === 0xfe && input[1] === 0xff)) {
		throw new DatasetError(
			'encoding',
			'the file is UTF-16 encoded; save it as UTF-8 and load it again',
		);
	}
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(input);
	} catch {
		throw new DatasetError(
			'encoding',
			`the file is not valid UTF-8${locateBadUtf8(input)}; save it as UTF-8 and load it again`,
		);
	}
}

function jsonRows(value: unknown, notes: ReadNotes): { rows: RawRow[]; wrapper?: Row } {
	if (Array.isArray(value) && value.length === 0) {
		throw new DatasetError('empty', 'the JSON file is an empty array: no rows');
	}
	if (Array.isArray(value)) return { rows: value.map((v, i) => ({ row: i + 1, value: v })) };
	if (!isObject(value)) {
		throw new DatasetError(
			'syntax',
			`expected a JSON array of rows or an object, got ${typeName(value)}`,
		);
	}
	const run = DEEPEVAL_RUN.filter((k) => Array.isArray(value[k]));
	if (run.length === 2 && (value.conversationalTestCases as unknown[]).length > 0) {
		const { testCases, conversationalTestCases, ...wrapper } = value;
		const list = [...(testCases as unknown[]), ...(conversationalTestCases as unknown[])];
		notes.text.push(
			`DeepEval test run: ${(testCases as unknown[]).length} testCases and ${(conversationalTestCases as unknown[]).length} conversationalTestCases read as rows, in that order`,
		);
		return { rows: list.map((v, i) => ({ row: i + 1, value: v })), wrapper };
	}
	const key = WRAPPER_KEYS.find((k) => Array.isArray(value[k])) ?? run[0];
	if (key === undefined) return { rows: [{ row: 1, value }] };
	if ((value[key] as unknown[]).length === 0) {
		throw new DatasetError('empty', `the JSON file's "${key}" array has no rows`);
	}
	const { [key]: list, ...wrapper } = value;
	const rows = (list as unknown[]).map((v, i) => ({ row: i + 1, value: v }));
	return Object.keys(wrapper).length > 0 ? { rows, wrapper } : { rows };
}

/**
 * JSON text with raw control characters inside its strings (a newline or tab typed into a value,
 * as some writers leave them) made valid: those characters are escaped, nothing else changes.
 */
export function escapeRawControls(text: string): string {
	let out = '';
	let from = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 0x5c) i++;
			else if (c === 0x22) inString = false;
			else if (c < 0x20) {
				out +=
					text.slice(from, i) +
					(c === 0x0a
						? '\\n'
						: c === 0x0d
							? '\\r'
							: c === 0x09
								? '\\t'
								: `\\u${c.toString(16).padStart(4, '0')}`);
				from = i + 1;
			}
		} else if (c === 0x22) inString = true;
	}
	return from === 0 ? text : out + text.slice(from);
}

/** Most physical lines one JSON Lines record may span before its lines are given up as broken. */
const MAX_RECORD_LINES = 10000;

/**
 * Assembles JSON Lines rows. A line that parses is a row (the fast path). A line that does not
 * starts a record that may continue on the next lines (pandas and promptflow leave raw newlines
 * in strings); it ends when the lines so far parse once their raw newlines are escaped. If a later
 * line parses on its own first, the gathered lines were broken after all: each becomes an invalid
 * row with its own parse error, as it would have been alone.
 */
class JsonlAssembler {
	private lines: string[] = [];
	private first = 0;
	private lineNos: number[] = [];
	// Bracket depth and string state of the lines gathered so far, kept line by line so a parse
	// is tried only when the brackets close (linear in the record, however many lines it spans).
	private depth = 0;
	private inString = false;
	private escaped = false;

	constructor(private readonly notes: ReadNotes) {}

	/** Rows completed by this line (none, one, or broken lines flushed before a good row). */
	push(line: string, lineNo: number): RawRow | RawRow[] | undefined {
		if (this.lines.length === 0) {
			if (line.charCodeAt(0) !== 0x7b && line.trim() === '') return undefined;
			try {
				return { row: lineNo, value: JSON.parse(line) as unknown };
			} catch {
				// The slow path, for lines that do not parse as they are: raw tabs in strings?
				const fixed = escapeRawControls(line);
				const own = fixed === line ? undefined : parseLine(fixed);
				if (own !== undefined) {
					this.notes.rawControl++;
					return { row: lineNo, value: own.value };
				}
				const t = line.trimStart();
				if (t[0] !== '{' && t[0] !== '[') return jsonlError(line, lineNo);
				this.lines = [line];
				this.lineNos = [lineNo];
				this.first = lineNo;
				this.depth = 0;
				this.inString = false;
				this.escaped = false;
				this.scan(line);
				return this.depth < 0 ? this.flush() : undefined;
			}
		}
		const t = line.trimStart();
		if (t[0] === '{' && !this.inString) {
			const own = parseLine(line);
			if (own !== undefined) {
				if (own.escaped) this.notes.rawControl++;
				return [...this.flush(), { row: lineNo, value: own.value }];
			}
			// not a record on its own: part of the one being gathered
		}
		this.lines.push(line);
		this.lineNos.push(lineNo);
		this.scan('\n' + line);
		if (this.depth < 0) return this.flush();
		if (this.depth > 0 || this.inString) {
			return this.lines.length >= MAX_RECORD_LINES ? this.flush() : undefined;
		}
		try {
			const value = JSON.parse(escapeRawControls(this.lines.join('\n'))) as unknown;
			this.notes.multiLine++;
			const row = { row: this.first, value };
			this.lines = [];
			this.lineNos = [];
			return row;
		} catch {
			return this.flush();
		}
	}

	/** Follows brackets and strings over `text`, appended to what was gathered. */
	private scan(text: string): void {
		for (let i = 0; i < text.length; i++) {
			const c = text.charCodeAt(i);
			if (this.inString) {
				if (this.escaped) this.escaped = false;
				else if (c === 0x5c) this.escaped = true;
				else if (c === 0x22) this.inString = false;
			} else if (c === 0x22) this.inString = true;
			else if (c === 0x7b || c === 0x5b) this.depth++;
			else if (c === 0x7d || c === 0x5d) this.depth--;
		}
	}

	/** The lines still gathered, each as the invalid row it is on its own. */
	flush(): RawRow[] {
		const out: RawRow[] = [];
		for (let i = 0; i < this.lines.length; i++) {
			const row = jsonlRow(this.lines[i], this.lineNos[i]);
			if (row) out.push(row);
		}
		this.lines = [];
		this.lineNos = [];
		return out;
	}
}

/** A line parsed on its own, as is or with raw control characters in its strings escaped. */
function parseLine(line: string): { value: unknown; escaped: boolean } | undefined {
	try {
		return { value: JSON.parse(line) as unknown, escaped: false };
	} catch {
		const fixed = escapeRawControls(line);
		if (fixed === line) return undefined;
		try {
			return { value: JSON.parse(fixed) as unknown, escaped: true };
		} catch {
			return undefined;
		}
	}
}

function jsonlError(line: string, lineNo: number): RawRow {
	try {
		JSON.parse(line);
		return { row: lineNo, value: line, error: 'not valid JSON' };
	} catch (e) {
		return { row: lineNo, value: line, error: `not valid JSON (${(e as Error).message})` };
	}
}

function jsonlRows(text: string, notes: ReadNotes): RawRow[] {
	const rows: RawRow[] = [];
	const lines = text.split('\n');
	const asm = new JsonlAssembler(notes);
	for (let i = 0; i < lines.length; i++) {
		let line = lines[i];
		if (line.endsWith('\r')) line = line.slice(0, -1);
		const row = asm.push(line, i + 1);
		if (row === undefined) continue;
		if (Array.isArray(row)) rows.push(...row);
		else rows.push(row);
	}
	rows.push(...asm.flush());
	return rows;
}

/**
 * JSON Lines straight from the file's bytes (already checked to be UTF-8): each line is decoded
 * and parsed on its own, so the whole file never exists as one string (for most text that string
 * takes two bytes a character, twice the file).
 */
function* jsonlRowsFromBytes(bytes: Uint8Array, from: number, notes: ReadNotes): Generator<RawRow> {
	const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const asm = new JsonlAssembler(notes);
	let lineNo = 0;
	let start = from;
	while (start < buf.length) {
		// Decode about 1 MB at a time, cut at a line end: one decoder call for many lines, and
		// never more than a block (or one long line) held as text.
		let stop = Math.min(buf.length, start + BLOCK);
		if (stop < buf.length) {
			const nl = buf.indexOf(0x0a, stop);
			stop = nl < 0 ? buf.length : nl + 1;
		}
		const block = buf.toString('utf8', start, stop);
		start = stop;
		let at = 0;
		while (at < block.length) {
			const nl = block.indexOf('\n', at);
			const lineEnd = nl < 0 ? block.length : nl;
			const end = lineEnd > at && block.charCodeAt(lineEnd - 1) === 0x0d ? lineEnd - 1 : lineEnd;
			lineNo++;
			const row = asm.push(block.slice(at, end), lineNo);
			if (row !== undefined) {
				if (Array.isArray(row)) yield* row;
				else yield row;
			}
			at = lineEnd + 1;
		}
	}
	yield* asm.flush();
}

/** Bytes decoded per step when reading JSON Lines from bytes. */
const BLOCK = 1 << 20;

/** One JSON Lines row: none for a blank line, an error row for a line that does not parse. */
function jsonlRow(line: string, lineNo: number): RawRow | undefined {
	if (line.charCodeAt(0) !== 0x7b && line.trim() === '') return undefined;
	try {
		return { row: lineNo, value: JSON.parse(line) as unknown };
	} catch (e) {
		return { row: lineNo, value: line, error: `not valid JSON (${(e as Error).message})` };
	}
}

/** Comma unless the header line clearly uses tabs or semicolons (TSV, European Excel exports). */
function delimiterOf(text: string): string {
	const nl = text.indexOf('\n');
	const header = nl < 0 ? text : text.slice(0, nl);
	if (header.includes(',')) return ',';
	if (header.includes('\t')) return '\t';
	if (header.includes(';')) return ';';
	return ',';
}

function csvRows(text: string, notes: ReadNotes): RawRow[] {
	let cells: string[][];
	const options = {
		bom: true,
		delimiter: delimiterOf(text),
		relax_column_count: true,
		skip_empty_lines: true,
	};
	try {
		cells = parseCsv(text, options) as string[][];
	} catch (e) {
		// A bare quote inside an unquoted cell (`how do I print "hi"?`): Python's csv module and
		// pandas keep it as text, so the file is read that way too, and the account says so.
		const code = (e as { code?: string }).code;
		if (code !== 'INVALID_OPENING_QUOTE' && code !== 'CSV_INVALID_CLOSING_QUOTE') {
			throw new DatasetError('syntax', `CSV could not be read: ${(e as Error).message}`);
		}
		try {
			cells = parseCsv(text, { ...options, relax_quotes: true }) as string[][];
			notes.relaxedQuotes = true;
		} catch (e2) {
			throw new DatasetError('syntax', `CSV could not be read: ${(e2 as Error).message}`);
		}
	}
	if (cells.length === 0) throw new DatasetError('empty', 'the CSV file has no header row');
	const header = cells[0].map((h, i) => (h.trim() === '' ? `column_${i + 1}` : h.trim()));
	const seen = new Set<string>();
	for (const h of header) {
		// Two columns of the same name would silently overwrite each other.
		if (seen.has(h)) throw new DatasetError('syntax', `the CSV header names column "${h}" twice`);
		seen.add(h);
	}
	if (cells.length === 1) {
		throw new DatasetError('empty', 'the CSV file has a header row but no rows');
	}
	const nest = nestedColumns(header);
	const rows: RawRow[] = [];
	for (let i = 1; i < cells.length; i++) {
		const line = cells[i];
		if (line.length !== header.length) {
			rows.push({
				row: i,
				value: line,
				error: `expected ${header.length} cells as in the header, got ${line.length}`,
			});
			continue;
		}
		const obj: Row = {};
		// An empty cell is how CSV says "absent" (e.g. expected_response blank where facts are given).
		for (let j = 0; j < header.length; j++) {
			if (line[j] === '') continue;
			const at = nest[j];
			if (at === undefined) obj[header[j]] = line[j];
			else {
				const holder = (obj[at[0]] ??= {}) as Row;
				holder[at[1]] = line[j];
			}
		}
		rows.push({ row: i, value: obj });
	}
	return rows;
}

/** The objects a flattened export spells out column by column (LangSmith's dataset CSV). */
const NESTED_PREFIXES: ReadonlySet<string> = new Set(['inputs', 'outputs', 'metadata']);

/**
 * Per column, the object and member it spells out: `inputs.question` is `{inputs: {question}}`,
 * as a LangSmith dataset downloads as CSV, so the nested-record readers see the shape of its JSON
 * export. Only under `inputs`, `outputs` and `metadata`, and only when the header has no column of
 * that bare name (which would then be both a cell and an object).
 */
function nestedColumns(header: readonly string[]): ([string, string] | undefined)[] {
	const names = new Set(header);
	return header.map((h) => {
		const dot = h.indexOf('.');
		if (dot <= 0 || dot === h.length - 1) return undefined;
		const prefix = h.slice(0, dot);
		if (!NESTED_PREFIXES.has(prefix) || names.has(prefix)) return undefined;
		return [prefix, h.slice(dot + 1)];
	});
}

/**
 * Guesses the format from the first two non-blank lines (all `text` needs to hold): JSON Lines if
 * either parses as a whole object, CSV if the content does not start like JSON, else JSON.
 */
function sniff(text: string): 'json' | 'jsonl' | 'csv' {
	// Indexes instead of trimStart() or a whole-text parse attempt: the text may be hundreds of MB.
	const start = text.search(/\S/);
	if (text[start] !== '[' && text[start] !== '{') return 'csv';
	if (text[start] === '{') {
		// One object per line shows in the first two non-blank lines (either may be the broken one).
		let from = start;
		for (let seen = 0; seen < 2 && from >= 0 && from < text.length; seen++) {
			const nl = text.indexOf('\n', from);
			const end = nl < 0 ? text.length : nl;
			// A single line holding one object is a one-row JSON file.
			if (seen === 0 && (nl < 0 || text.slice(nl).search(/\S/) < 0)) break;
			try {
				JSON.parse(text.slice(from, end));
				return 'jsonl';
			} catch {
				const next = nl < 0 ? -1 : text.slice(nl + 1).search(/\S/);
				from = next < 0 ? -1 : nl + 1 + next;
			}
		}
	}
	return 'json';
}

const isBlankByte = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Byte offset where the text of `bytes` starts (after a UTF-8 BOM), or -1 if there is no text. */
function firstText(bytes: Uint8Array): number {
	const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
	for (let i = bom; i < bytes.length; i++) if (!isBlankByte(bytes[i])) return bom;
	return -1;
}

/** The start of the bytes up to the end of their second non-blank line: enough to sniff. */
function head(bytes: Uint8Array, from: number): string {
	const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	let at = from;
	for (let seen = 0; seen < 2 && at < buf.length; seen++) {
		while (at < buf.length && isBlankByte(buf[at])) at++;
		const nl = buf.indexOf(0x0a, at);
		at = nl < 0 ? buf.length : nl + 1;
	}
	return buf.toString('utf8', from, at);
}

/** Reads file content or already-parsed rows into numbered raw rows. */
export function readRows(
	input: string | Uint8Array | unknown[],
	format: 'auto' | 'json' | 'jsonl' | 'csv' = 'auto',
): RawDataset {
	const notes = newNotes();
	if (Array.isArray(input)) {
		return {
			format: 'items',
			fromCsv: false,
			rows: input.map((v, i) => ({ row: i + 1, value: v })),
			notes,
		};
	}
	// Bytes that are UTF-8 are read without ever holding the whole file as one string when they
	// turn out to be JSON Lines; anything else is decoded whole (with a located encoding error).
	const bytes = typeof input !== 'string' && isUtf8(input) ? input : undefined;
	const from = bytes ? firstText(bytes) : 0;
	let text = bytes ? undefined : decodeText(input);
	if (bytes ? from < 0 : (text as string).trim() === '') {
		throw new DatasetError('empty', 'the dataset is empty');
	}
	let fmt = format;
	if (fmt === 'auto') fmt = sniff(bytes ? head(bytes, from) : (text as string));
	if (fmt === 'jsonl' && firstChar(bytes, from, text) === '[') {
		// A JSON array saved as .jsonl (or JSON Lines chosen for a JSON file): read as JSON.
		text ??= decodeText(input);
		try {
			const parsed = JSON.parse(text) as unknown;
			notes.text.push('the JSON Lines file holds one JSON array: read as JSON');
			return { format: 'json', fromCsv: false, ...jsonRows(parsed, notes), notes };
		} catch {
			// not one JSON array after all: read line by line
		}
	}
	if (fmt === 'jsonl') {
		const rows = bytes ? jsonlRowsFromBytes(bytes, from, notes) : jsonlRows(text as string, notes);
		return { format: 'jsonl', fromCsv: false, rows, notes };
	}
	text ??= decodeText(input);
	if (fmt === 'csv') return { format: 'csv', fromCsv: true, rows: csvRows(text, notes), notes };
	let parsed: unknown;
	try {
		parsed = JSON.parse(text) as unknown;
	} catch (e) {
		// Records spanning lines look like neither JSON nor JSON Lines to the two-line sniff; read
		// line by line if that gives any record, else the file is broken JSON.
		if (format === 'auto' && text.trimStart()[0] === '{') {
			const rows = jsonlRows(text, notes);
			if (rows.some((r) => r.error === undefined)) {
				return { format: 'jsonl', fromCsv: false, rows, notes };
			}
		}
		throw new DatasetError('syntax', `the file is not valid JSON (${(e as Error).message})`);
	}
	return { format: 'json', fromCsv: false, ...jsonRows(parsed, notes), notes };
}

/** The first non-blank character of the content. */
function firstChar(bytes: Uint8Array | undefined, from: number, text: string | undefined): string {
	if (bytes) {
		for (let i = from; i < bytes.length; i++)
			if (!isBlankByte(bytes[i])) return String.fromCharCode(bytes[i]);
		return '';
	}
	const t = text as string;
	return t[t.search(/\S/)] ?? '';
}
