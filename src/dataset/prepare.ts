/**
 * Dataset preparation for the Eval Dataset node, as a library: loads one or more sources,
 * then de-duplicates, samples (seeded) and limits valid rows. Every input row ends up either
 * in `rows` or in `invalid`, with the index of the input item it came from. Each row leaving on
 * `rows` keeps its bookkeeping in one field, last: `source` (format, schema, row, fingerprint, what
 * the file carried) with the run manifest inside it (`source.run_manifest`, see src/manifest).
 */
import { createHash } from 'node:crypto';
import { newRunId, withRunManifest, type RunManifest } from '../manifest';
import {
	DatasetError,
	describeAccount,
	loadDataset,
	type DatasetAccount,
	type SchemaName,
} from '../record';
import { sha256 } from '../record/hash';
import { createRng } from '../stats/random';

/** One dataset source: already-parsed rows (one per input item) or file content of one item. */
export type DatasetSource =
	| { rows: unknown[]; itemIndex: null }
	| { content: string | Uint8Array; itemIndex: number; fileName?: string };

/** Preparation options (format/schema/mapping as in `loadDataset`). */
export interface PrepareOptions {
	format?: 'auto' | 'json' | 'jsonl' | 'csv';
	schema?: 'auto' | SchemaName;
	mapping?: Record<string, string>;
	/** CSV list cells that are not JSON are split on this (unset: `|` for DeepEval CSVs). */
	listDelimiter?: string;
	limit?: number;
	sampleSize?: number;
	sampleSeed?: number;
	dedupe?: 'none' | 'request_id' | 'content';
	/** Run id written to the rows' manifests; a new random one by default. */
	runId?: string;
}

/** A prepared row: item JSON plus the input item it is paired with. */
export interface PreparedRow {
	json: Record<string, unknown>;
	itemIndex: number;
}

/** What loading one source did with it (see `DatasetAccount`), and the same as lines to show. */
export interface SourceAccount {
	/** The input item the source came from (null: incoming items, one row each). */
	itemIndex: number | null;
	fileName?: string;
	account: DatasetAccount;
	lines: string[];
}

/** Result of preparation; `fatal` is set only when a source cannot be read at all. */
export interface Prepared {
	rows: PreparedRow[];
	invalid: PreparedRow[];
	excluded: number;
	/** One per source: which column went to which field, to metadata, which rows were skipped. */
	accounts: SourceAccount[];
	fatal?: { message: string; itemIndex?: number; remedy: string };
}

/** What to do about a dataset that cannot be read, by cause. */
const REMEDY: Record<DatasetError['code'], string> = {
	empty: 'Add rows to the dataset (a CSV needs a header row and at least one row under it).',
	encoding: 'Save the file as UTF-8 (in Excel: Save As -> CSV UTF-8) and load it again.',
	syntax:
		'Fix the file so it is one JSON document, JSON Lines (one object per line) or CSV with a header row; the message says where it breaks.',
};

function contentKey(rec: Record<string, unknown>): string {
	const pick = {
		request: rec.request,
		history: rec.history,
		response: rec.response,
		expected_response: rec.expected_response,
		expected_facts: rec.expected_facts,
		retrieved_context: rec.retrieved_context,
		guidelines: rec.guidelines,
	};
	return createHash('sha256').update(JSON.stringify(pick)).digest('hex');
}

/** Load, validate, de-duplicate, sample and limit; nothing is silently dropped. */
export function prepareDataset(sources: DatasetSource[], options: PrepareOptions = {}): Prepared {
	const rows: PreparedRow[] = [];
	const invalid: PreparedRow[] = [];
	const fingerprints: string[] = [];
	const accounts: SourceAccount[] = [];
	for (const src of sources) {
		let loaded: ReturnType<typeof loadDataset>;
		try {
			loaded =
				'rows' in src
					? loadDataset(src.rows, { schema: options.schema, mapping: options.mapping })
					: loadDataset(src.content, {
							format: options.format,
							schema: options.schema,
							mapping: options.mapping,
							listDelimiter: options.listDelimiter,
						});
		} catch (e) {
			// Only an unreadable dataset is fatal; anything else is a bug and must not pass for one.
			if (!(e instanceof DatasetError)) throw e;
			const message = e.message;
			return {
				rows: [],
				invalid: [],
				excluded: 0,
				accounts,
				fatal: {
					message: 'fileName' in src && src.fileName ? `${src.fileName}: ${message}` : message,
					itemIndex: src.itemIndex ?? 0,
					remedy: REMEDY[e.code],
				},
			};
		}
		fingerprints.push(loaded.fingerprint);
		const fileName = 'fileName' in src ? src.fileName : undefined;
		accounts.push({
			itemIndex: src.itemIndex,
			...(fileName ? { fileName } : {}),
			account: loaded.account,
			lines: describeAccount(loaded.account, fileName),
		});
		const itemOf = (row: number): number =>
			src.itemIndex === null ? Math.max(0, row - 1) : src.itemIndex;
		for (const rec of loaded.records) {
			// The row's fields, its row number, then its bookkeeping last (out of the way in n8n's
			// views); the fingerprint is source.fingerprint, the run's is in source.run_manifest.
			const { source, ...fields } = rec as unknown as Record<string, unknown> & {
				source: { row: number };
			};
			rows.push({
				json: { ...fields, row: source.row, source: { ...source } },
				itemIndex: itemOf(source.row),
			});
		}
		for (const bad of loaded.invalid) {
			invalid.push({
				json: {
					row: bad.row,
					path: bad.path,
					message: bad.message,
					error: bad.error,
					...(bad.request_id === undefined ? {} : { request_id: bad.request_id }),
					raw: (bad as { raw?: unknown }).raw ?? null,
					dataset_fingerprint: loaded.fingerprint,
				},
				itemIndex: itemOf(bad.row),
			});
		}
	}

	let kept = rows;
	if (options.dedupe && options.dedupe !== 'none') {
		const seen = new Map<string, number>();
		kept = [];
		for (const r of rows) {
			const key = options.dedupe === 'request_id' ? String(r.json.request_id) : contentKey(r.json);
			const first = seen.get(key);
			if (first !== undefined) {
				invalid.push({
					json: {
						row: r.json.row,
						path: options.dedupe === 'request_id' ? 'request_id' : '',
						message: `duplicate of row ${first} (de-duplicated by ${options.dedupe})`,
						error: `row ${String(r.json.row)}: duplicate of row ${first}`,
						raw: r.json,
						dataset_fingerprint: (r.json.source as { fingerprint?: unknown }).fingerprint,
					},
					itemIndex: r.itemIndex,
				});
			} else {
				seen.set(key, r.json.row as number);
				kept.push(r);
			}
		}
	}
	const before = kept.length;
	if (options.sampleSize && options.sampleSize > 0 && options.sampleSize < kept.length) {
		const rand = createRng(options.sampleSeed ?? 42);
		const idx = kept.map((_, i) => i);
		for (let i = 0; i < options.sampleSize; i++) {
			const j = i + Math.floor(rand() * (idx.length - i));
			[idx[i], idx[j]] = [idx[j], idx[i]];
		}
		const chosen = idx.slice(0, options.sampleSize).sort((a, b) => a - b);
		kept = chosen.map((i) => kept[i]);
	}
	if (options.limit && options.limit > 0 && kept.length > options.limit)
		kept = kept.slice(0, options.limit);
	return {
		rows: stampManifests(kept, fingerprints, options.runId),
		invalid,
		excluded: before - kept.length,
		accounts,
	};
}

/**
 * Writes each emitted row's run manifest: stamped last, so `total_rows` counts exactly the rows
 * that leave (after de-duplication, sampling and limit) and positions run 1..total in output order.
 */
function stampManifests(
	rows: PreparedRow[],
	fingerprints: readonly string[],
	runId: string | undefined,
): PreparedRow[] {
	const base = {
		run_id: runId ?? newRunId(),
		total_rows: rows.length,
		dataset_fingerprint:
			fingerprints.length === 1 ? fingerprints[0] : 'sha256:' + sha256(fingerprints.join('\n')),
	};
	return rows.map((r, i) => {
		const manifest: RunManifest = { ...base, position: i + 1 };
		return { ...r, json: withRunManifest(r.json, manifest) };
	});
}
