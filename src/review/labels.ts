/**
 * Review labels: one flat row per reviewed row (what an n8n Data Table stores: text, numbers,
 * dates), with who reviewed it and when, the judges' verdicts and versions (signatures) they saw,
 * their own verdicts, and the corrections that can grow the golden set. Then Judge Agreement on the
 * labels, per judge and per judge version, with the fitness rule of `src/agreement`.
 */

import { judgeAgreement, type AgreementResult, type AgreementRow } from '../agreement';
import type { Score } from '../core/types';
import { askableJudges, UNSURE, verdictField } from './form';
import { rowFingerprint, requestIdOf, type ReviewRow } from './select';

/**
 * Columns of the review Data Table (`npm start` creates it): one row per queued row, written by
 * the Review Queue (`status` queued, `row` the row to show) and completed by the review
 * (`status` reviewed and the label columns). All text: a Data Table date column would reformat
 * the ISO times.
 */
export const REVIEW_TABLE_COLUMNS = [
	'request_id',
	'fingerprint',
	'status',
	'queued_at',
	'queue_reasons',
	'row',
	'reviewer',
	'reviewer_id',
	'reviewed_at',
	'judges',
	'labels',
	'context_correct',
	'corrected_answer',
	'expected_facts',
	'request',
	'response',
	'retrieved_context',
] as const;

/** Columns of the golden-set Data Table promoted rows are appended to. */
export const GOLDEN_TABLE_COLUMNS = [
	'request_id',
	'request',
	'expected_response',
	'expected_facts',
	'expected_retrieved_context',
	'source',
	'reviewer',
	'reviewed_at',
] as const;

/** One stored label row; object-valued columns are JSON text. */
export type LabelRow = {
	request_id: string;
	fingerprint: string;
	/** The signed-in n8n user's email; a typed name only with {@link LabelOptions.acceptTypedReviewer}. */
	reviewer: string;
	/** The signed-in n8n user's id; "" when the name was typed (no n8n login vouches for it). */
	reviewer_id: string;
	/** ISO 8601. */
	reviewed_at: string;
	/** JSON of { judge: the judge's Score as the reviewer saw it (value, pass, scale, signature...) }. */
	judges: string;
	/** JSON of { judge: "yes" | "no" | 1-5 }: the reviewer's verdicts (unsure ones left out). */
	labels: string;
	/** "yes", "no" or "" (not answered). */
	context_correct: string;
	corrected_answer: string;
	/** JSON array of strings, or "". */
	expected_facts: string;
	/** JSON of the row's request, response and retrieved context. */
	request: string;
	response: string;
	retrieved_context: string;
};

/** Thrown when a submission cannot become a label; the message says which field. */
export class LabelError extends Error {}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v).trim());

// The Form node returns a radio answer as text; an array when a field allowed several.
const answer = (v: unknown): string => text(Array.isArray(v) ? v[0] : v).toLowerCase();

/** Who submitted a review form, as n8n's Form Trigger / Form node vouch for it. */
export interface Reviewer {
	/** The n8n user's id; "" for a typed name. */
	id: string;
	/** The n8n user's email, or the typed name. */
	name: string;
}

/**
 * The signed-in n8n user a submission carries: n8n's Form Trigger (version 2.6+, Authentication
 * n8n User Auth, option Include User in Output on, the default) and every Form page after it add
 * `user` = { id, email, firstName, lastName } to the submitted item, after the form's own fields,
 * so a form field of that name cannot stand in for it. Only an object with a non-empty id and
 * email counts: text typed into a field is never a user.
 */
export function authenticatedReviewer(submission: Record<string, unknown>): Reviewer | undefined {
	const u = submission.user;
	if (!u || typeof u !== 'object' || Array.isArray(u)) return undefined;
	const { id, email } = u as { id?: unknown; email?: unknown };
	if (typeof id !== 'string' || typeof email !== 'string' || !id.trim() || !email.trim())
		return undefined;
	return { id: id.trim(), name: email.trim() };
}

/** Options of {@link labelFromSubmission}. */
export interface LabelOptions {
	/**
	 * Accept a submission without a signed-in n8n user, taking the reviewer from its typed
	 * `reviewer` field (recorded with an empty `reviewer_id`). For forms behind Basic Auth, where
	 * n8n knows no user; off by default, as anyone who can post the form can type any name.
	 */
	acceptTypedReviewer?: boolean;
}

/**
 * The reviewer of a submission: the signed-in n8n user (a typed `reviewer` field is ignored
 * then); without one, the typed name when `acceptTypedReviewer`, else a {@link LabelError}.
 */
export function reviewerOf(
	submission: Record<string, unknown>,
	options: LabelOptions = {},
): Reviewer {
	const user = authenticatedReviewer(submission);
	if (user) return user;
	if (!options.acceptTypedReviewer) {
		throw new LabelError(
			'user: the submission carries no signed-in n8n user, so no one vouches for the reviewer. ' +
				"Set the Form Trigger's Authentication to n8n User Auth (version 2.6 or later, Include User in Output on); " +
				'behind Basic Auth, turn on Accept Typed Reviewer Name',
		);
	}
	const typed = text(submission.reviewer);
	if (!typed)
		throw new LabelError(
			'reviewer: no signed-in n8n user and no typed name (Accept Typed Reviewer Name reads the form field "reviewer")',
		);
	return { id: '', name: typed };
}

/** The label row of a reviewed row from the Form submission (fields of {@link reviewForm}). */
export function labelFromSubmission(
	row: ReviewRow,
	submission: Record<string, unknown>,
	now: Date = new Date(),
	options: LabelOptions = {},
): LabelRow {
	const fingerprint = rowFingerprint(row);
	const submitted = text(submission.fingerprint);
	if (submitted && submitted !== fingerprint) {
		throw new LabelError(
			`the submitted form is for row ${submitted}, not this row (${fingerprint}): was another row's page answered?`,
		);
	}
	const reviewer = reviewerOf(submission, options);
	const judges: Record<string, Partial<Score>> = {};
	const labels: Record<string, string | number> = {};
	for (const { key, score, scale } of askableJudges(row)) {
		judges[key] = {
			metric: score.metric,
			value: score.value,
			pass: score.pass,
			scale: score.scale,
			threshold: score.threshold,
			direction: score.direction,
			status: score.status,
			reason: score.reason,
			signature: score.signature,
		};
		const a = answer(submission[verdictField(key)]);
		if (!a || a === UNSURE) continue;
		if (scale === 'binary') {
			if (a !== 'yes' && a !== 'no')
				throw new LabelError(`${verdictField(key)}: expected yes, no or unsure, got "${a}"`);
			labels[key] = a;
		} else {
			const n = Number(a);
			if (!Number.isInteger(n) || n < 1 || n > 5)
				throw new LabelError(`${verdictField(key)}: expected 1-5 or unsure, got "${a}"`);
			labels[key] = n;
		}
	}
	const facts = text(submission.expected_facts)
		.split(/\r?\n/)
		.map((f) => f.replace(/^[-*•]\s*/, '').trim())
		.filter(Boolean);
	const ctx = answer(submission.context_correct);
	return {
		request_id: requestIdOf(row) ?? '',
		fingerprint,
		reviewer: reviewer.name,
		reviewer_id: reviewer.id,
		reviewed_at: now.toISOString(),
		judges: JSON.stringify(judges),
		labels: JSON.stringify(labels),
		context_correct: ctx === 'yes' || ctx === 'no' ? ctx : '',
		corrected_answer: text(submission.corrected_answer),
		expected_facts: facts.length ? JSON.stringify(facts) : '',
		request: JSON.stringify(row.request ?? null),
		response: JSON.stringify(row.response ?? null),
		retrieved_context: JSON.stringify(row.retrieved_context ?? null),
	};
}

/** Parse a JSON column, tolerating one a Data Table or a spreadsheet hands back as an object. */
export function jsonColumn<T>(v: unknown, fallback: T): T {
	if (v === undefined || v === null || v === '') return fallback;
	if (typeof v !== 'string') return v as T;
	try {
		return JSON.parse(v) as T;
	} catch {
		return fallback;
	}
}

/** Agreement of one judge, on all its versions together or on one version. */
export interface JudgeVersionAgreement {
	judge: string;
	/** The judge signature (its version), or null for all of several versions together. */
	signature: string | null;
	reviewers: number;
	result: AgreementResult;
}

/** Result of {@link reviewAgreement}. */
export interface ReviewAgreement {
	kind: 'reviewAgreement';
	labels: number;
	/** Per judge: all versions first, then each version seen, newest label first. */
	judges: JudgeVersionAgreement[];
	/** Judges (per version) whose agreement is below the fitness rule (verdict not_fit). */
	unfit: { judge: string; signature: string | null; kappa: number | null; message: string }[];
}

/** Options of {@link reviewAgreement}: the fitness rule of `judgeAgreement`. */
export interface ReviewAgreementOptions {
	minKappa?: number;
	minRows?: number;
	level?: number;
	/** Only these judges; default all judges labelled. */
	judges?: readonly string[];
}

/**
 * Judge Agreement on stored labels, per judge (all versions) and per judge version: kappa with
 * its interval, accuracy, FPR/FNR and the fitness verdict. A later label of the same row and
 * reviewer replaces an earlier one.
 */
export function reviewAgreement(
	labelRows: readonly Record<string, unknown>[],
	options: ReviewAgreementOptions = {},
): ReviewAgreement {
	// Latest label per (row, reviewer).
	const latest = new Map<string, Record<string, unknown>>();
	for (const l of labelRows) {
		const key = `${text(l.fingerprint) || text(l.request_id)}\u0000${text(l.reviewer)}`;
		const prev = latest.get(key);
		if (!prev || text(prev.reviewed_at) <= text(l.reviewed_at)) latest.set(key, l);
	}
	const byJudge = new Map<string, { rows: AgreementRow[]; bySig: Map<string, AgreementRow[]> }>();
	const reviewersOf = new Map<string, Set<string>>();
	const sigOrder = new Map<string, string>();
	for (const l of latest.values()) {
		const judges = jsonColumn<Record<string, Score>>(l.judges, {});
		const labels = jsonColumn<Record<string, unknown>>(l.labels, {});
		for (const [judge, score] of Object.entries(judges)) {
			if (options.judges && !options.judges.includes(judge)) continue;
			if (!(judge in labels) || !score) continue;
			const row: AgreementRow = {
				request_id: text(l.request_id) || null,
				eval: { [judge]: score },
				human: labels[judge],
			};
			const entry = byJudge.get(judge) ?? {
				rows: [] as AgreementRow[],
				bySig: new Map<string, AgreementRow[]>(),
			};
			byJudge.set(judge, entry);
			entry.rows.push(row);
			const sig = text(score.signature);
			const list = entry.bySig.get(sig) ?? [];
			entry.bySig.set(sig, list);
			list.push(row);
			for (const k of [judge, `${judge}\u0000${sig}`]) {
				const set = reviewersOf.get(k) ?? new Set();
				set.add(text(l.reviewer));
				reviewersOf.set(k, set);
			}
			const at = text(l.reviewed_at);
			const sk = `${judge}\u0000${sig}`;
			if ((sigOrder.get(sk) ?? '') < at) sigOrder.set(sk, at);
		}
	}
	const opts = { minKappa: options.minKappa, minRows: options.minRows, level: options.level };
	const out: JudgeVersionAgreement[] = [];
	for (const judge of [...byJudge.keys()].sort()) {
		const { rows, bySig } = byJudge.get(judge)!;
		out.push({
			judge,
			// One version seen: the whole is that version.
			signature: bySig.size === 1 ? [...bySig.keys()][0] : null,
			reviewers: reviewersOf.get(judge)?.size ?? 0,
			result: judgeAgreement(rows, { judge, humanField: 'human', ...opts }),
		});
		if (bySig.size > 1) {
			const sigs = [...bySig.keys()].sort((a, b) =>
				(sigOrder.get(`${judge}\u0000${b}`) ?? '').localeCompare(
					sigOrder.get(`${judge}\u0000${a}`) ?? '',
				),
			);
			for (const sig of sigs) {
				out.push({
					judge,
					signature: sig,
					reviewers: reviewersOf.get(`${judge}\u0000${sig}`)?.size ?? 0,
					result: judgeAgreement(bySig.get(sig)!, { judge, humanField: 'human', ...opts }),
				});
			}
		}
	}
	return {
		kind: 'reviewAgreement',
		labels: latest.size,
		judges: out,
		unfit: out
			.filter((a) => a.result.fitness.verdict === 'not_fit')
			.map((a) => ({
				judge: a.judge,
				signature: a.signature,
				kappa: a.result.kappa.kappa,
				message: a.result.fitness.message,
			})),
	};
}
