/**
 * Judge agreement: how well a judge's verdicts match human labels on the same rows, in the terms
 * Databricks uses to qualify its judges (seed 001: Cohen's kappa, accuracy, F1, false positive
 * and false negative rates), plus weighted kappa for 1-5 judges and a fitness-to-gate verdict.
 *
 * Fitness rule (all thresholds are options): at least `minRows` (30) rows labelled by both, and
 * Cohen's kappa >= `minKappa` (0.6, the lower edge of Landis & Koch's "substantial"). The lower
 * confidence bound is reported beside it so a borderline judge is visible.
 */

import type { Score } from '../core/types';
import {
	binaryConfusion,
	binaryRates,
	cohenKappa,
	contingencyTable,
	kappaBand,
	weightedKappa,
	type BinaryConfusion,
	type BinaryRates,
	type KappaResult,
} from '../stats/agreement';

/** A row: the item's json, with the judge's Score under `eval` and the human label somewhere. */
export type AgreementRow = Record<string, unknown> & {
	request_id?: unknown;
	eval?: Record<string, Score | undefined> | null;
};

/** Options of {@link judgeAgreement}. */
export interface AgreementOptions {
	/** Key of the judge's Score under `eval`, e.g. `groundedness`. */
	judge: string;
	/** Dotted path of the human label in the row, e.g. `human.groundedness` or `label`. */
	humanField: string;
	/** `binary` (yes/no) or `likert` (1-5); default inferred from the judge's Score scale. */
	scale?: 'binary' | 'likert';
	/** Human labels meaning positive (pass); matched case-insensitively. */
	positiveLabels?: readonly (string | number | boolean)[];
	/** Human labels meaning negative (fail). */
	negativeLabels?: readonly (string | number | boolean)[];
	/** For 1-5 ratings: pass when rating >= this; default the Score's threshold, else 3. */
	passThreshold?: number;
	/** Fitness: minimum kappa; default 0.6. */
	minKappa?: number;
	/** Fitness: minimum rows labelled by both; default 30. */
	minRows?: number;
	/** Confidence level of the kappa intervals; default 0.95. */
	level?: number;
}

/** A row where judge and human disagree. */
export interface Disagreement {
	/** Position of the row in the input. */
	index: number;
	requestId: string | null;
	judge: boolean | number;
	human: boolean | number;
	/** The judge's rationale, to see why it disagreed. */
	reason?: string;
}

/** Fitness of a judge to gate releases on. */
export interface JudgeFitness {
	verdict: 'fit' | 'not_fit' | 'insufficient_data';
	fit: boolean;
	/** One plain-words sentence for users. */
	message: string;
}

/** Result of {@link judgeAgreement}. */
export interface AgreementResult {
	judge: string;
	scale: 'binary' | 'likert';
	/** Rows labelled by both the judge (status ok) and a human. */
	n: number;
	skipped: {
		judgeError: number;
		judgeNotApplicable: number;
		noJudgeScore: number;
		noHumanLabel: number;
	};
	/** Positive = pass / yes. For 1-5 ratings, pass = rating >= passThreshold. */
	confusion: BinaryConfusion;
	rates: BinaryRates;
	kappa: KappaResult;
	kappaBand: string;
	/** Only for 1-5 judges: the 5x5 table (rows judge, columns human) and weighted kappas. */
	ordinal?: {
		categories: number[];
		matrix: number[][];
		kappa: KappaResult;
		linear: KappaResult;
		quadratic: KappaResult;
		passThreshold: number;
		/**
		 * Judge ratings between two levels (a panel's mean, a probability-weighted score) put in the
		 * table at their nearest level (halves up); pass/fail used the exact rating.
		 */
		rounded: number;
	};
	disagreements: Disagreement[];
	fitness: JudgeFitness;
}

const DEFAULT_POSITIVE = [true, 1, 'yes', 'y', 'true', 'pass', 'passed', 'correct', '1'];
const DEFAULT_NEGATIVE = [false, 0, 'no', 'n', 'false', 'fail', 'failed', 'incorrect', '0'];
const LIKERT = [1, 2, 3, 4, 5];

/** Agreement statistics of one judge against human labels on the same rows. */
export function judgeAgreement(
	rows: readonly AgreementRow[],
	options: AgreementOptions,
): AgreementResult {
	const scale = options.scale ?? inferScale(rows, options.judge);
	const positive = normaliseLabels(options.positiveLabels ?? DEFAULT_POSITIVE);
	const negative = normaliseLabels(options.negativeLabels ?? DEFAULT_NEGATIVE);
	const skipped = { judgeError: 0, judgeNotApplicable: 0, noJudgeScore: 0, noHumanLabel: 0 };
	const binaryPairs: { judge: boolean; human: boolean }[] = [];
	const ordinalPairs: { judge: number; human: number }[] = [];
	const disagreements: Disagreement[] = [];
	let threshold = options.passThreshold;
	let rounded = 0;

	rows.forEach((row, index) => {
		const score = row.eval?.[options.judge];
		if (!score) return void skipped.noJudgeScore++;
		if (score.status === 'error') return void skipped.judgeError++;
		if (score.status === 'not_applicable') return void skipped.judgeNotApplicable++;
		const rawHuman = getPath(row, options.humanField);
		const requestId =
			row.request_id === undefined || row.request_id === null ? null : String(row.request_id);
		if (scale === 'likert') {
			threshold ??= score.threshold ?? 3;
			// A panel's mean or a probability-weighted score lies between the levels: pass/fail
			// compares it exactly with the threshold; the 5x5 table takes its nearest level.
			const exact = toJudgeRating(score.value);
			const h = toRating(rawHuman);
			if (exact === null) return void skipped.noJudgeScore++;
			if (h === null) return void skipped.noHumanLabel++;
			const j = Math.round(exact);
			if (j !== exact) rounded++;
			ordinalPairs.push({ judge: j, human: h });
			binaryPairs.push({ judge: exact >= threshold, human: h >= threshold });
			if (j !== h)
				disagreements.push({ index, requestId, judge: exact, human: h, reason: score.reason });
			return;
		}
		const j = judgeVerdict(score);
		const h = toVerdict(rawHuman, positive, negative);
		if (j === null) return void skipped.noJudgeScore++;
		if (h === null) return void skipped.noHumanLabel++;
		binaryPairs.push({ judge: j, human: h });
		if (j !== h) disagreements.push({ index, requestId, judge: j, human: h, reason: score.reason });
	});

	const level = options.level ?? 0.95;
	const confusion = binaryConfusion(binaryPairs);
	// Row 0 / column 0 = positive, so the table reads like the confusion matrix.
	const binaryTable = contingencyTable(binaryPairs, [true, false]);
	const kappa = cohenKappa(binaryTable, level);
	const result: AgreementResult = {
		judge: options.judge,
		scale,
		n: binaryPairs.length,
		skipped,
		confusion,
		rates: binaryRates(confusion),
		kappa,
		kappaBand: kappaBand(kappa.kappa),
		disagreements,
		fitness: { verdict: 'insufficient_data', fit: false, message: '' },
	};
	if (scale === 'likert') {
		const matrix = contingencyTable(ordinalPairs, LIKERT);
		const unweighted = cohenKappa(matrix, level);
		result.ordinal = {
			categories: LIKERT,
			matrix,
			kappa: unweighted,
			linear: weightedKappa(matrix, 'linear', level),
			quadratic: weightedKappa(matrix, 'quadratic', level),
			passThreshold: threshold ?? 3,
			rounded,
		};
	}
	result.fitness = assessFitness(result, options.minKappa ?? 0.6, options.minRows ?? 30);
	return result;
}

function assessFitness(r: AgreementResult, minKappa: number, minRows: number): JudgeFitness {
	const k = r.kappa.kappa;
	const fmt = (x: number): string => x.toFixed(2);
	if (r.n < minRows) {
		return {
			verdict: 'insufficient_data',
			fit: false,
			message: `Only ${r.n} rows carry both a judge verdict and a human label; label at least ${minRows} before trusting "${r.judge}" to gate.`,
		};
	}
	if (k === null) {
		return {
			verdict: 'not_fit',
			fit: false,
			message: `Kappa is undefined for "${r.judge}": the judge or the humans gave one answer on every row, so agreement beyond chance cannot be measured. Label rows of both outcomes.`,
		};
	}
	const ci = r.kappa.ci;
	const ciText = ci ? ` (${Math.round(ci.level * 100)}% CI ${fmt(ci.low)} to ${fmt(ci.high)})` : '';
	if (k < minKappa) {
		return {
			verdict: 'not_fit',
			fit: false,
			message: `"${r.judge}" agreement with humans is ${r.kappaBand}: kappa ${fmt(k)}${ciText} is below ${minKappa}. Do not gate on it; review the ${r.disagreements.length} disagreeing rows and refine the prompt or threshold.`,
		};
	}
	const borderline =
		ci && ci.low < minKappa
			? ` The interval reaches below ${minKappa}: more labels would make this firmer.`
			: '';
	return {
		verdict: 'fit',
		fit: true,
		message: `"${r.judge}" is fit to gate on: kappa ${fmt(k)}${ciText}, ${r.kappaBand} agreement over ${r.n} rows.${borderline}`,
	};
}

function inferScale(rows: readonly AgreementRow[], judge: string): 'binary' | 'likert' {
	for (const row of rows) {
		const s = row.eval?.[judge];
		if (s?.scale) return s.scale.kind === 'likert' ? 'likert' : 'binary';
	}
	return 'binary';
}

function judgeVerdict(score: Score): boolean | null {
	if (typeof score.value === 'boolean') return score.value;
	return typeof score.pass === 'boolean' ? score.pass : null;
}

function normaliseLabels(labels: readonly (string | number | boolean)[]): Set<string> {
	return new Set(labels.map((l) => String(l).trim().toLowerCase()));
}

function toVerdict(raw: unknown, positive: Set<string>, negative: Set<string>): boolean | null {
	if (raw === null || raw === undefined) return null;
	if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') return null;
	const key = String(raw).trim().toLowerCase();
	if (positive.has(key)) return true;
	if (negative.has(key)) return false;
	return null;
}

// Ratings are 1-5 integers; "4" from a spreadsheet counts, 4.5 or 7 does not (it is not on the scale).
/** A judge's 1-5 rating, whole or between levels (a panel's mean, a weighted score). */
function toJudgeRating(raw: unknown): number | null {
	return typeof raw === 'number' && Number.isFinite(raw) && raw >= 1 && raw <= 5 ? raw : null;
}

function toRating(raw: unknown): number | null {
	const v = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
	return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 5 ? v : null;
}

function getPath(obj: unknown, path: string): unknown {
	// A literal key wins, so spreadsheet columns named "human.label" still resolve.
	if (obj !== null && typeof obj === 'object' && path in obj) {
		return (obj as Record<string, unknown>)[path];
	}
	let cur: unknown = obj;
	for (const part of path.split('.')) {
		if (cur === null || typeof cur !== 'object') return undefined;
		cur = (cur as Record<string, unknown>)[part];
	}
	return cur;
}
