/**
 * Promote reviewed rows to the golden set: a label with a corrected answer or expected facts
 * becomes a golden row in the Databricks evaluation-set shape (`request`, `expected_response` or
 * `expected_facts`, `expected_retrieved_context`), deduplicated against the team's dataset and
 * within the labels (one golden row per request; the latest review wins).
 *
 * Databricks refuses `expected_facts` together with `expected_response`: a corrected answer wins
 * and the facts are reported as dropped. `expected_retrieved_context` is the chunks the reviewer
 * saw, only when they said those were the right ones.
 */

import { chunksOf } from './form';
import { jsonColumn } from './labels';
import { canonicalJson } from './select';

/** A golden row (Databricks evaluation-set fields, plus where it came from). */
export interface GoldenRow {
	request_id: string;
	request: unknown;
	expected_response?: string;
	expected_facts?: string[];
	expected_retrieved_context?: { doc_uri: string; content: string }[];
	source: 'human_review';
	reviewer: string;
	reviewed_at: string;
}

/** Why a label did not become a golden row. */
export interface GoldenSkip {
	request_id: string;
	reason: 'no_correction' | 'already_in_dataset' | 'superseded' | 'no_request';
	note: string;
}

/** Result of {@link promoteToGolden}. */
export interface GoldenPromotion {
	rows: GoldenRow[];
	skipped: GoldenSkip[];
	/** Request ids whose expected facts were dropped because a corrected answer was given. */
	factsDropped: string[];
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v).trim());

/** The dedup key of a dataset row: its request id, else its request's canonical JSON. */
export function goldenKey(row: Record<string, unknown>): string[] {
	const keys: string[] = [];
	const id = text(row.request_id);
	if (id) keys.push(`id:${id}`);
	const req = jsonColumnLoose(row.request);
	if (req !== undefined && req !== null && req !== '') keys.push(`req:${canonicalJson(req)}`);
	return keys;
}

// A request column may hold JSON text (a Data Table) or the value itself.
function jsonColumnLoose(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	const t = v.trim();
	if (t.startsWith('{') || t.startsWith('[') || t.startsWith('"')) return jsonColumn(t, v);
	return v;
}

/** Golden rows from label rows, deduplicated against `existing` dataset rows. */
export function promoteToGolden(
	labels: readonly Record<string, unknown>[],
	existing: readonly Record<string, unknown>[] = [],
): GoldenPromotion {
	const taken = new Set(existing.flatMap(goldenKey));
	const skipped: GoldenSkip[] = [];
	const factsDropped: string[] = [];
	// Latest review per request first, so an older correction of the same request is superseded.
	const ordered = labels
		.map((l, i) => ({ l, i }))
		.sort((a, b) => text(b.l.reviewed_at).localeCompare(text(a.l.reviewed_at)) || b.i - a.i);
	const picked: { i: number; row: GoldenRow }[] = [];
	for (const { l, i } of ordered) {
		const id = text(l.request_id);
		const corrected = text(l.corrected_answer);
		const facts = jsonColumn<unknown>(l.expected_facts, []);
		const factList = Array.isArray(facts) ? facts.map(text).filter(Boolean) : [];
		if (!corrected && !factList.length) {
			skipped.push({
				request_id: id,
				reason: 'no_correction',
				note: 'the reviewer gave no corrected answer and no expected facts',
			});
			continue;
		}
		const request = jsonColumnLoose(l.request);
		if (request === undefined || request === null || request === '') {
			skipped.push({ request_id: id, reason: 'no_request', note: 'the label carries no request' });
			continue;
		}
		const keys = goldenKey({ request_id: id, request });
		if (keys.some((k) => taken.has(k))) {
			const inRun = picked.some((p) =>
				goldenKey(p.row as unknown as Record<string, unknown>).some((k) => keys.includes(k)),
			);
			skipped.push({
				request_id: id,
				reason: inRun ? 'superseded' : 'already_in_dataset',
				note: inRun
					? 'a later review of the same request was promoted'
					: 'the dataset already has this request',
			});
			continue;
		}
		for (const k of keys) taken.add(k);
		const row: GoldenRow = {
			request_id: id,
			request,
			source: 'human_review',
			reviewer: text(l.reviewer),
			reviewed_at: text(l.reviewed_at),
		};
		if (corrected) {
			row.expected_response = corrected;
			if (factList.length) factsDropped.push(id);
		} else row.expected_facts = factList;
		if (text(l.context_correct) === 'yes') {
			const chunks = chunksOf(jsonColumnLoose(l.retrieved_context));
			if (chunks.length)
				row.expected_retrieved_context = chunks.map((c) => ({
					doc_uri: c.source,
					content: c.text,
				}));
		}
		picked.push({ i, row });
	}
	// Golden rows in label order, so appending is stable run after run.
	picked.sort((a, b) => a.i - b.i);
	return { rows: picked.map((p) => p.row), skipped, factsDropped };
}

/** Golden rows as JSONL (one JSON object a line), for a download. */
export function goldenJsonl(rows: readonly GoldenRow[]): string {
	return rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
}

/** A golden row with object fields as JSON text, for a Data Table's text columns. */
export function goldenColumns(row: GoldenRow): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(row)) {
		if (v === undefined) continue;
		out[k] = typeof v === 'string' ? v : JSON.stringify(v);
	}
	return out;
}
