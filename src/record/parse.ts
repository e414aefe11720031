/**
 * Turns file content into numbered raw rows: JSON (array, wrapped array or single row), JSON Lines
 * (row = line number) and CSV (RFC 4180 via csv-parse; row = data row, header excluded). A row that
 * cannot be read becomes an error row; only an unreadable file as a whole throws `DatasetError`.
 */
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

/** Rows read from one input, plus what a wrapper object held besides its row array. */
export interface RawDataset {
	format: DatasetFormat;
	rows: RawRow[];
	/** CSV cells are text, so adapters parse JSON held in structured cells. */
	fromCsv: boolean;
	wrapper?: Row;
}

/** Keys under which JSON exports commonly wrap their row array. */
const WRAPPER_KEYS = [
	'data',
	'rows',
	'records',
	'items',
	'examples',
	'samples',
	'test_cases',
	'goldens',
];

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

function jsonRows(value: unknown): { rows: RawRow[]; wrapper?: Row } {
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
	const key = WRAPPER_KEYS.find((k) => Array.isArray(value[k]));
	if (key === undefined) return { rows: [{ row: 1, value }] };
	if ((value[key] as unknown[]).length === 0) {
		throw new DatasetError('empty', `the JSON file's "${key}" array has no rows`);
	}
	const { [key]: list, ...wrapper } = value;
	const rows = (list as unknown[]).map((v, i) => ({ row: i + 1, value: v }));
	return Object.keys(wrapper).length > 0 ? { rows, wrapper } : { rows };
}

function jsonlRows(text: string): RawRow[] {
	const rows: RawRow[] = [];
	const lines = text.split('\n');
	for (let i = 0; i < lines.length; i++) {
		let line = lines[i];
		if (line.endsWith('\r')) line = line.slice(0, -1);
		if (line.trim() === '') continue;
		try {
			rows.push({ row: i + 1, value: JSON.parse(line) as unknown });
		} catch (e) {
			rows.push({ row: i + 1, value: line, error: `not valid JSON (${(e as Error).message})` });
		}
	}
	return rows;
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

function csvRows(text: string): RawRow[] {
	let cells: string[][];
	try {
		cells = parseCsv(text, {
			bom: true,
			delimiter: delimiterOf(text),
			relax_column_count: true,
			skip_empty_lines: true,
		}) as string[][];
	} catch (e) {
		throw new DatasetError('syntax', `CSV could not be read: ${(e as Error).message}`);
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
		for (let j = 0; j < header.length; j++) if (line[j] !== '') obj[header[j]] = line[j];
		rows.push({ row: i, value: obj });
	}
	return rows;
}

/** Guesses the format from the content: JSON if it parses whole, JSON Lines if the first line does. */
function sniff(text: string): { format: 'json' | 'jsonl' | 'csv'; parsed?: unknown } {
	// Indexes instead of trimStart() or a whole-text parse attempt: the text may be hundreds of MB.
	const start = text.search(/\S/);
	if (text[start] !== '[' && text[start] !== '{') return { format: 'csv' };
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
				return { format: 'jsonl' };
			} catch {
				const next = nl < 0 ? -1 : text.slice(nl + 1).search(/\S/);
				from = next < 0 ? -1 : nl + 1 + next;
			}
		}
	}
	try {
		return { format: 'json', parsed: JSON.parse(text) as unknown };
	} catch (e) {
		throw new DatasetError('syntax', `the file is not valid JSON (${(e as Error).message})`);
	}
}

/** Reads file content or already-parsed rows into numbered raw rows. */
export function readRows(
	input: string | Uint8Array | unknown[],
	format: 'auto' | 'json' | 'jsonl' | 'csv' = 'auto',
): RawDataset {
	if (Array.isArray(input)) {
		return {
			format: 'items',
			fromCsv: false,
			rows: input.map((v, i) => ({ row: i + 1, value: v })),
		};
	}
	const text = decodeText(input);
	if (text.trim() === '') throw new DatasetError('empty', 'the dataset is empty');
	let fmt = format;
	let parsed: unknown;
	if (fmt === 'auto') ({ format: fmt, parsed } = sniff(text));
	if (fmt === 'csv') return { format: 'csv', fromCsv: true, rows: csvRows(text) };
	if (fmt === 'jsonl') return { format: 'jsonl', fromCsv: false, rows: jsonlRows(text) };
	if (parsed === undefined) {
		try {
			parsed = JSON.parse(text) as unknown;
		} catch (e) {
			throw new DatasetError('syntax', `the file is not valid JSON (${(e as Error).message})`);
		}
	}
	return { format: 'json', fromCsv: false, ...jsonRows(parsed) };
}
