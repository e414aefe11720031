/**
 * The account of one loaded file: which source column went to which canonical field, which went
 * to metadata (and why, when an adapter looked at it and left it), which rows were skipped and why,
 * and what the reader had to be lenient about. Nothing the loader does to a file is silent.
 */
import type { DatasetFormat, ReadNotes } from './parse';
import type { Draft, Trail } from './adapters';

/** One source column (or dotted path into a nested object) and where its values went. */
export interface ColumnAccount {
	/** The column as the file names it (`query`, `inputs.question`, `__metadata:category`). */
	column: string;
	/** Canonical fields it fed in at least one loaded row; `metadata` when it was kept there. */
	to: string[];
	/** Loaded rows in which the column held a value. */
	rows: number;
	/** Of those, the rows in which it went to metadata, when not all of them did. */
	metadataRows?: number;
	/** Why it went to metadata although an adapter read it (`ideal lists 3 accepted answers...`). */
	note?: string;
	/**
	 * Why the loader read it as it did: which of two fields a column whose name could mean either
	 * fed (`output`: an answer or a reference; a Column Mapping decides it instead), how a list was
	 * put in rank order, or which of several values it took.
	 */
	chosen?: string;
}

/** A row that did not load, and why (the Invalid output carries the raw row). */
export interface SkippedRow {
	row: number;
	reason: string;
}

/** What `loadDataset` did with one file. */
export interface DatasetAccount {
	format: DatasetFormat;
	schema: string;
	/** True when the schema was detected, false when the caller named it. */
	detected: boolean;
	/** The Column Mapping as given (`{your column: field}`), when there was one. */
	mapping?: Record<string, string>;
	/** Rows read from the file (loaded + skipped). */
	rows: number;
	loaded: number;
	skipped: SkippedRow[];
	columns: ColumnAccount[];
	/** What the reader or the trace reader had to be lenient about, one sentence each. */
	notes: string[];
	/**
	 * Request ids that more than one loaded row carries, with their rows (file row numbers): the
	 * rows all load, but whatever pairs rows by `request_id` downstream (baselines, review labels,
	 * attack pairs) cannot tell them apart. Rows without an id that are identical (one content id)
	 * are listed too, with `generated: true`.
	 */
	duplicateIds?: { request_id: string; rows: number[]; generated?: true }[];
}

/** How many duplicated ids the account's note names before it only counts them. */
const DUPLICATES_NAMED = 5;

interface ColumnStat {
	rows: number;
	meta: number;
	to: Set<string>;
	note?: string;
	chosen?: string;
}

/** Fields shown in the account: the originals kept beside a field are not fields of their own. */
const HIDDEN = new Set(['request_raw', 'response_raw']);

/** Collects the account row by row while a file loads; cheap enough for 100,000 rows. */
export class AccountBuilder {
	private readonly cols = new Map<string, ColumnStat>();
	private readonly skipped: SkippedRow[] = [];
	private loaded = 0;
	private traceErrors = 0;
	private traceNotes = 0;
	/** request_id -> the file rows carrying it (first row only until a second one comes). */
	private readonly ids = new Map<string, number | number[]>();
	private readonly generatedIds = new Set<string>();

	private stat(col: string): ColumnStat {
		let st = this.cols.get(col);
		if (st === undefined) {
			st = { rows: 0, meta: 0, to: new Set() };
			this.cols.set(col, st);
		}
		return st;
	}

	// The columns of the previous row in the order they were read, with their stats: rows of a
	// file mostly repeat it, so most lookups are an index, not a map probe.
	private lastCols: string[] = [];
	private lastStats: ColumnStat[] = [];

	/** A loaded row: what each of its columns fed. */
	add(t: Trail, d: Draft): void {
		this.loaded++;
		const draft = d as Record<string, unknown>;
		const keys = t.fedKeys;
		for (let i = 0; i < keys.length; i++) {
			const col = keys[i];
			const fields = t.fedFields[i];
			let st: ColumnStat;
			if (this.lastCols[i] === col) st = this.lastStats[i];
			else {
				st = this.stat(col);
				this.lastCols[i] = col;
				this.lastStats[i] = st;
			}
			st.rows++;
			for (let j = 0; j < fields.length; j++) {
				const f = fields[j];
				if (!HIDDEN.has(f) && draft[f] !== undefined) st.to.add(f);
				if (f === 'metadata') st.meta++;
			}
		}
		for (let j = 0; j < t.metadata.length; j++) {
			const col = t.metadata[j];
			const st = this.stat(col);
			if (!keys.includes(col)) st.rows++;
			st.meta++;
			st.to.add('metadata');
		}
		if (t.why.size > 0) for (const [col, why] of t.why) this.stat(col).note ??= why;
		if (t.chosen.size > 0) for (const [col, why] of t.chosen) this.stat(col).chosen ??= why;
		const meta = d.metadata;
		if (meta !== undefined) {
			if (meta.trace_error !== undefined) this.traceErrors++;
			if (meta.trace_notes !== undefined) this.traceNotes++;
		}
	}

	/** The id a loaded row leaves with; `generated` when the loader made it from the content. */
	id(requestId: string, row: number, generated: boolean): void {
		const seen = this.ids.get(requestId);
		if (seen === undefined) this.ids.set(requestId, row);
		else if (typeof seen === 'number') this.ids.set(requestId, [seen, row]);
		else seen.push(row);
		if (generated) this.generatedIds.add(requestId);
	}

	/** A row that did not load. */
	skip(row: number, reason: string): void {
		this.skipped.push({ row, reason });
	}

	finish(
		base: Pick<DatasetAccount, 'format' | 'schema' | 'detected' | 'mapping'>,
		read: ReadNotes,
	): DatasetAccount {
		const columns: ColumnAccount[] = [];
		for (const [column, st] of this.cols) {
			const c: ColumnAccount = { column, to: [...st.to], rows: st.rows };
			if (st.meta > 0 && st.meta < st.rows) c.metadataRows = st.meta;
			if (st.note !== undefined) c.note = st.note;
			if (st.chosen !== undefined) c.chosen = st.chosen;
			columns.push(c);
		}
		const notes = [...read.text];
		if (read.relaxedQuotes) {
			notes.push(
				'a bare " inside an unquoted CSV cell was read as text, as Python\'s csv module and pandas read it',
			);
		}
		if (read.multiLine > 0) {
			notes.push(
				`${read.multiLine} JSON Lines record(s) span several lines (raw newlines inside strings): each read as one record`,
			);
		}
		if (read.rawControl > 0) {
			notes.push(
				`${read.rawControl} JSON Lines record(s) hold raw tabs or control characters in strings: read as text`,
			);
		}
		if (this.traceErrors > 0) {
			notes.push(
				`${this.traceErrors} row(s) carry a trace that could not be read: they keep their other fields, the reason is in metadata.trace_error`,
			);
		}
		if (this.traceNotes > 0) notes.push(`${this.traceNotes} row(s) carry metadata.trace_notes`);
		const duplicateIds: NonNullable<DatasetAccount['duplicateIds']> = [];
		for (const [request_id, rows] of this.ids)
			if (typeof rows !== 'number')
				duplicateIds.push({
					request_id,
					rows,
					...(this.generatedIds.has(request_id) ? { generated: true as const } : {}),
				});
		if (duplicateIds.length > 0) {
			const named = duplicateIds
				.slice(0, DUPLICATES_NAMED)
				.map((d) =>
					d.generated
						? `rows ${d.rows.join(', ')} are identical and have no request_id`
						: `request_id ${JSON.stringify(d.request_id)} on rows ${d.rows.join(', ')}`,
				);
			const more = duplicateIds.length - named.length;
			notes.push(
				`${duplicateIds.length} request id(s) repeat: ${named.join('; ')}${more > 0 ? `; and ${more} more (account.duplicateIds)` : ''}. The rows all load; give each its own request_id so baselines, review labels and attack pairs can tell them apart`,
			);
		}
		const out: DatasetAccount = {
			...base,
			rows: this.loaded + this.skipped.length,
			loaded: this.loaded,
			skipped: this.skipped,
			columns,
			notes,
		};
		if (out.mapping === undefined) delete out.mapping;
		if (duplicateIds.length > 0) out.duplicateIds = duplicateIds;
		return out;
	}
}

/** How many skipped rows `describeAccount` names before it only counts them. */
const SKIPPED_SHOWN = 5;

/**
 * The account as lines a person reads (the Eval Dataset node's notice and log):
 *
 *     8 rows read (csv, schema promptfoo, detected): 8 loaded, 0 skipped
 *     fields: customer_message -> request; reply -> response; context -> retrieved_context
 *     metadata: language (8 rows); __description (8 rows)
 */
export function describeAccount(a: DatasetAccount, file?: string): string[] {
	const lines: string[] = [];
	const origin = `${a.format}, schema ${a.schema}${a.detected ? ', detected' : ''}`;
	lines.push(
		`${file ? `${file}: ` : ''}${a.rows} rows read (${origin}): ${a.loaded} loaded, ${a.skipped.length} skipped`,
	);
	const fed = a.columns.filter((c) => c.to.some((t) => t !== 'metadata'));
	if (fed.length > 0) {
		const parts = fed.map(
			(c) => `${c.column} -> ${c.to.filter((t) => t !== 'metadata').join(', ')}`,
		);
		lines.push(`fields: ${parts.join('; ')}`);
	}
	const chosen = a.columns.filter((c) => c.chosen !== undefined);
	if (chosen.length > 0) {
		const parts = chosen.map(
			(c) => `${c.column} -> ${c.to.filter((t) => t !== 'metadata').join(', ')} (${c.chosen})`,
		);
		lines.push(`chosen: ${parts.join('; ')}`);
	}
	const meta = a.columns.filter((c) => c.to.includes('metadata'));
	if (meta.length > 0) {
		const parts = meta.map((c) => {
			const n = c.metadataRows ?? c.rows;
			return `${c.column} (${n} row${n === 1 ? '' : 's'}${c.note ? `: ${c.note}` : ''})`;
		});
		lines.push(`metadata: ${parts.join('; ')}`);
	}
	const empty = a.columns.filter((c) => c.to.length === 0);
	if (empty.length > 0) lines.push(`empty: ${empty.map((c) => c.column).join(', ')}`);
	if (a.skipped.length > 0) {
		const shown = a.skipped.slice(0, SKIPPED_SHOWN).map((s) => s.reason);
		const more = a.skipped.length - shown.length;
		lines.push(
			`skipped: ${shown.join('; ')}${more > 0 ? `; and ${more} more (see the Invalid output)` : ''}`,
		);
	}
	for (const n of a.notes) lines.push(`note: ${n}`);
	return lines;
}
