/**
 * Review queue selection: which scored rows people should label. Every failing row, rows where
 * the judges disagree with each other, where one judge's panel of jurors disagrees
 * (`details.panel.disagrees`, src/judges/panel.ts) or a score sits near its threshold, plus a seeded random
 * share of passing rows (so agreement is not measured on failures only), capped per run and never
 * the same row twice.
 *
 * A row's identity is its `request_id` and its content fingerprint (SHA-256 of the request, the
 * response and the retrieved context). A row is already queued when either was queued before (the
 * keys come from the labels table, or from workflow static data): the same question is reviewed
 * once even when tonight's answer differs, and the same content under a new id is not reviewed
 * again. Every row gets a decision: queued with its reasons, or not queued with why.
 */

import { createHash } from 'node:crypto';
import type { Score } from '../core/types';
import { hashString } from '../stats/random';

/** Why a row enters the queue (a row may have several), or why it does not. */
export type QueueReason =
	| 'fail'
	| 'judges_disagree'
	| 'panel_disagrees'
	| 'near_threshold'
	| 'sample';
export type SkipReason =
	| 'already_queued'
	| 'duplicate_in_run'
	| 'cap_reached'
	| 'not_sampled'
	| 'not_scored';

/** A row as the queue reads it: the item's json with Scores under `eval`. */
export type ReviewRow = Record<string, unknown> & {
	request_id?: unknown;
	request?: unknown;
	response?: unknown;
	retrieved_context?: unknown;
	eval?: Record<string, Score | undefined> | null;
};

/** Options of {@link selectForReview}. */
export interface QueueOptions {
	/** At most this many rows queued per run; default 50. */
	maxRows?: number;
	/** Share of passing rows drawn at random, 0-1; default 0.1. */
	passingShare?: number;
	/** Seed of the random draw; the same seed and rows give the same queue. Default 1. */
	seed?: number;
	/** A score within this share of its scale's range from its threshold is near it; default 0.1. */
	nearThreshold?: number;
	/** Request ids queued before. */
	queuedRequestIds?: Iterable<string>;
	/** Content fingerprints queued before. */
	queuedFingerprints?: Iterable<string>;
	/** Judges (keys under `eval`) to consider; default every Score on the row. */
	judges?: readonly string[];
}

/** The decision for one row. */
export interface QueueDecision {
	index: number;
	requestId: string | null;
	fingerprint: string;
	queued: boolean;
	/** Queued: why, most urgent first. Not queued: one skip reason. */
	reasons: (QueueReason | SkipReason)[];
	/** Readable sentence of the decision. */
	note: string;
	/**
	 * Priority used when the cap bites: 0 fail, 1 judges (or a judge's panel) disagree, 2 near
	 * threshold, 3 sample.
	 */
	priority?: number;
}

/** Result of {@link selectForReview}: one decision per input row, in input order. */
export interface QueueSelection {
	decisions: QueueDecision[];
	queued: number;
	counts: Record<QueueReason | SkipReason, number>;
}

/** Canonical JSON: object keys sorted, so the fingerprint ignores key order. */
export function canonicalJson(value: unknown): string {
	if (value === undefined) return 'null';
	if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	const obj = value as Record<string, unknown>;
	return `{${Object.keys(obj)
		.filter((k) => obj[k] !== undefined)
		.sort()
		.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
		.join(',')}}`;
}

/** Content fingerprint of a row: SHA-256 (hex, first 32) of request, response and context. */
export function rowFingerprint(row: ReviewRow): string {
	const text = canonicalJson({
		request: row.request ?? null,
		response: row.response ?? null,
		retrieved_context: row.retrieved_context ?? null,
	});
	return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** The row's request id as text, or null. */
export function requestIdOf(row: ReviewRow): string | null {
	const id = row.request_id;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

function okScores(row: ReviewRow, judges?: readonly string[]): [string, Score][] {
	return Object.entries(row.eval ?? {}).filter(
		(e): e is [string, Score] =>
			!!e[1] && e[1].status === 'ok' && (!judges || judges.includes(e[0])),
	);
}

// Position in [0, 1] on the score's own scale, higher = better, for comparing judges' views.
function normalised(s: Score): number | null {
	if (typeof s.value === 'boolean') return s.value === (s.direction !== 'lower') ? 1 : 0;
	if (typeof s.value !== 'number') return null;
	const span = s.scale.max - s.scale.min;
	if (!(span > 0)) return null;
	const x = (s.value - s.scale.min) / span;
	return s.direction === 'lower' ? 1 - x : x;
}

/** Whether a Score is a panel's verdict whose jurors disagreed. */
function panelDisagrees(s: Score): boolean {
	const panel = s.details?.panel;
	return (
		typeof panel === 'object' &&
		panel !== null &&
		(panel as { disagrees?: unknown }).disagrees === true
	);
}

/** The reasons a scored row deserves a look, most urgent first (empty for a clear pass). */
export function reviewReasons(
	scores: readonly [string, Score][],
	nearThreshold = 0.1,
): QueueReason[] {
	const out: QueueReason[] = [];
	if (scores.some(([, s]) => s.pass === false)) out.push('fail');
	const passes = scores.map(([, s]) => s.pass).filter((p) => typeof p === 'boolean');
	const positions = scores.map(([, s]) => normalised(s)).filter((x): x is number => x !== null);
	const spread = positions.length > 1 ? Math.max(...positions) - Math.min(...positions) : 0;
	// Disagreement: one judge passes what another fails, or their views lie half a scale apart.
	if ((passes.includes(true) && passes.includes(false)) || spread >= 0.5)
		out.push('judges_disagree');
	// A judge's own panel split: its jurors passed and failed the row, or rated it far apart.
	if (scores.some(([, s]) => panelDisagrees(s))) out.push('panel_disagrees');
	const near = scores.some(([, s]) => {
		if (typeof s.value !== 'number' || typeof s.threshold !== 'number') return false;
		const span = s.scale.max - s.scale.min;
		return span > 0 && Math.abs(s.value - s.threshold) <= nearThreshold * span + 1e-12;
	});
	if (near) out.push('near_threshold');
	return out;
}

const PRIORITY: Record<QueueReason, number> = {
	fail: 0,
	judges_disagree: 1,
	panel_disagrees: 1,
	near_threshold: 2,
	sample: 3,
};

// A uniform draw in [0, 1) from the seed and the row's fingerprint: the same row gets the same
// draw whatever its position, so adding rows never reshuffles who is sampled.
function draw(seed: number, fingerprint: string): number {
	const h = hashString(fingerprint, hashString(`review-seed:${seed}`));
	return h / 0x100000000;
}

/** Which rows of a scored run go to people for review (pure; reproducible by seed). */
export function selectForReview(
	rows: readonly ReviewRow[],
	options: QueueOptions = {},
): QueueSelection {
	const maxRows = Math.max(0, Math.floor(options.maxRows ?? 50));
	const share = Math.min(1, Math.max(0, options.passingShare ?? 0.1));
	const seed = options.seed ?? 1;
	const seenIds = new Set(options.queuedRequestIds ?? []);
	const seenPrints = new Set(options.queuedFingerprints ?? []);
	const runIds = new Set<string>();
	const runPrints = new Set<string>();
	const decisions: QueueDecision[] = [];
	const candidates: { d: QueueDecision; draw: number }[] = [];

	rows.forEach((row, index) => {
		const requestId = requestIdOf(row);
		const fingerprint = rowFingerprint(row);
		const d: QueueDecision = {
			index,
			requestId,
			fingerprint,
			queued: false,
			reasons: [],
			note: '',
		};
		decisions.push(d);
		if ((requestId !== null && seenIds.has(requestId)) || seenPrints.has(fingerprint)) {
			d.reasons = ['already_queued'];
			d.note = 'queued for review in an earlier run (same request id or same content)';
			return;
		}
		if ((requestId !== null && runIds.has(requestId)) || runPrints.has(fingerprint)) {
			d.reasons = ['duplicate_in_run'];
			d.note = 'an earlier row of this run has the same request id or content';
			return;
		}
		if (requestId !== null) runIds.add(requestId);
		runPrints.add(fingerprint);
		const scores = okScores(row, options.judges);
		if (!scores.length) {
			d.reasons = ['not_scored'];
			d.note = 'no judge or metric scored this row, so there is no verdict to check';
			return;
		}
		const reasons = reviewReasons(scores, options.nearThreshold ?? 0.1);
		const u = draw(seed, fingerprint);
		if (!reasons.length) {
			if (u >= share) {
				d.reasons = ['not_sampled'];
				d.note = `a clear pass not drawn in the ${Math.round(share * 100)}% random share`;
				return;
			}
			reasons.push('sample');
		}
		d.reasons = reasons;
		d.priority = PRIORITY[reasons[0] as QueueReason];
		candidates.push({ d, draw: u });
	});

	// Most urgent first; within a priority the seeded draw orders rows, not their position.
	candidates.sort((a, b) => a.d.priority! - b.d.priority! || a.draw - b.draw);
	candidates.forEach(({ d }, rank) => {
		if (rank < maxRows) {
			d.queued = true;
			d.note = `queued: ${d.reasons.join(', ').replace(/_/g, ' ')}`;
		} else {
			d.reasons = ['cap_reached', ...d.reasons];
			d.note = `would be queued (${d.reasons.slice(1).join(', ').replace(/_/g, ' ')}) but the cap of ${maxRows} rows per run was reached`;
		}
	});

	const counts = {
		fail: 0,
		judges_disagree: 0,
		panel_disagrees: 0,
		near_threshold: 0,
		sample: 0,
		already_queued: 0,
		duplicate_in_run: 0,
		cap_reached: 0,
		not_sampled: 0,
		not_scored: 0,
	} as Record<QueueReason | SkipReason, number>;
	for (const d of decisions) {
		if (d.queued) for (const r of d.reasons) counts[r]++;
		else counts[d.reasons[0]]++;
	}
	return { decisions, queued: decisions.filter((d) => d.queued).length, counts };
}

/** The keys already queued, read from labels-table rows (or any rows with these columns). */
export function queuedKeys(rows: readonly Record<string, unknown>[]): {
	requestIds: string[];
	fingerprints: string[];
} {
	const requestIds = new Set<string>();
	const fingerprints = new Set<string>();
	for (const r of rows) {
		const id = r.request_id;
		if (typeof id === 'string' ? id !== '' : typeof id === 'number') requestIds.add(String(id));
		if (typeof r.fingerprint === 'string' && r.fingerprint) fingerprints.add(r.fingerprint);
	}
	return { requestIds: [...requestIds], fingerprints: [...fingerprints] };
}

/**
 * What the review needs of a row, to store in the labels Data Table and show later: its id, request,
 * response, retrieved context and Scores (without usage, stats or details, which nobody reviews).
 */
export function storedRow(row: ReviewRow): ReviewRow {
	const evals: Record<string, Score> = {};
	for (const [k, s] of Object.entries(row.eval ?? {})) {
		if (!s) continue;
		const { metric, value, scale, threshold, direction, pass, status, reason, error, signature } =
			s;
		evals[k] = {
			metric,
			value,
			scale,
			threshold,
			direction,
			pass,
			status,
			reason,
			error,
			signature,
		};
		for (const key of Object.keys(evals[k]) as (keyof Score)[])
			if (evals[k][key] === undefined) delete evals[k][key];
	}
	const out: ReviewRow = { request_id: row.request_id ?? null, request: row.request ?? null };
	out.response = row.response ?? null;
	if (row.retrieved_context !== undefined) out.retrieved_context = row.retrieved_context;
	out.eval = evals;
	return out;
}
