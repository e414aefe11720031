/**
 * Agreement between a judge and human raters (seed 001: Databricks measures judge quality by
 * Cohen's kappa, accuracy, F1 and false positive / false negative rates against human labels).
 *
 * Reference behaviour matched:
 * - Cohen's kappa (Cohen 1960): (po - pe) / (1 - pe) on the joint table; equals sklearn
 *   `cohen_kappa_score` without weights.
 * - Weighted kappa with disagreement weights |i-j|/(k-1) (linear) or ((i-j)/(k-1))^2 (quadratic):
 *   1 - sum(w*o) / sum(w*e), where i, j index the table's categories; equal to sklearn
 *   `cohen_kappa_score(weights='linear'|'quadratic', labels=categories)`, e.g. `labels=[1..5]`
 *   for the 1-5 table of the agreement node. Without `labels` sklearn spaces only the ratings
 *   that occur, which differs when a rating between others never occurs (say, no 4s).
 * - Standard errors: the large-sample (non-null) variance of Fleiss, Cohen & Everitt (1969),
 *   the "ASE" SAS PROC FREQ reports; the interval is kappa +- z * ASE, clipped to [-1, 1].
 */

import { normalQuantile } from './intervals';

/** Counts of a binary judge against binary human labels; positive = the label named positive. */
export interface BinaryConfusion {
	truePositive: number;
	falsePositive: number;
	falseNegative: number;
	trueNegative: number;
}

/** Binary classification rates; `null` where the denominator is 0 (never NaN). */
export interface BinaryRates {
	n: number;
	accuracy: number | null;
	precision: number | null;
	recall: number | null;
	f1: number | null;
	/** FP / (FP + TN): the judge says positive where humans said negative. */
	falsePositiveRate: number | null;
	/** FN / (FN + TP): the judge says negative where humans said positive. */
	falseNegativeRate: number | null;
}

/** Kappa with its asymptotic standard error and a normal confidence interval. */
export interface KappaResult {
	kappa: number | null;
	observedAgreement: number | null;
	expectedAgreement: number | null;
	standardError: number | null;
	ci: { low: number; high: number; level: number } | null;
	n: number;
}

const ratio = (num: number, den: number): number | null => (den === 0 ? null : num / den);

/** Binary confusion matrix from paired (judge, human) booleans. */
export function binaryConfusion(
	pairs: readonly { judge: boolean; human: boolean }[],
): BinaryConfusion {
	const m: BinaryConfusion = {
		truePositive: 0,
		falsePositive: 0,
		falseNegative: 0,
		trueNegative: 0,
	};
	for (const { judge, human } of pairs) {
		if (judge && human) m.truePositive++;
		else if (judge && !human) m.falsePositive++;
		else if (!judge && human) m.falseNegative++;
		else m.trueNegative++;
	}
	return m;
}

/** Accuracy, precision, recall, F1, FPR and FNR from a binary confusion matrix. */
export function binaryRates(m: BinaryConfusion): BinaryRates {
	const { truePositive: tp, falsePositive: fp, falseNegative: fn, trueNegative: tn } = m;
	const n = tp + fp + fn + tn;
	const precision = ratio(tp, tp + fp);
	const recall = ratio(tp, tp + fn);
	// F1 from counts (2TP / (2TP + FP + FN)) stays defined when precision alone is undefined.
	return {
		n,
		accuracy: ratio(tp + tn, n),
		precision,
		recall,
		f1: ratio(2 * tp, 2 * tp + fp + fn),
		falsePositiveRate: ratio(fp, fp + tn),
		falseNegativeRate: ratio(fn, fn + tp),
	};
}

/**
 * Square contingency table of two raters over `categories` (rows = judge, columns = human).
 * Values outside `categories` throw, because silently dropping them would bias kappa.
 */
export function contingencyTable<T>(
	pairs: readonly { judge: T; human: T }[],
	categories: readonly T[],
): number[][] {
	const index = new Map<T, number>();
	categories.forEach((c, i) => index.set(c, i));
	const table = categories.map(() => categories.map(() => 0));
	for (const { judge, human } of pairs) {
		const i = index.get(judge);
		const j = index.get(human);
		if (i === undefined || j === undefined) {
			throw new RangeError(
				`contingencyTable: label outside categories (${String(judge)}, ${String(human)})`,
			);
		}
		table[i][j]++;
	}
	return table;
}

/** Cohen's kappa of a k x k table with the Fleiss-Cohen-Everitt (1969) large-sample SE. */
export function cohenKappa(table: readonly (readonly number[])[], level = 0.95): KappaResult {
	const k = table.length;
	const identity = table.map((_, i) => table.map((__, j) => (i === j ? 1 : 0)));
	return weightedKappaWithAgreementWeights(table, identity, level, k);
}

/** Weighting scheme of weighted kappa. */
export type KappaWeights = 'linear' | 'quadratic';

/**
 * Weighted kappa on an ordered k x k table (e.g. 1-5 ratings), with linear or quadratic
 * disagreement weights by category index and the FCE (1969) large-sample SE; sklearn's value
 * when it is given every category as `labels`.
 */
export function weightedKappa(
	table: readonly (readonly number[])[],
	weights: KappaWeights,
	level = 0.95,
): KappaResult {
	const k = table.length;
	const agreement = table.map((_, i) =>
		table.map((__, j) => {
			if (k === 1) return 1;
			const d = Math.abs(i - j) / (k - 1);
			return 1 - (weights === 'linear' ? d : d * d);
		}),
	);
	return weightedKappaWithAgreementWeights(table, agreement, level, k);
}

// Works in agreement weights w (1 on the diagonal) so that the unweighted case is w = identity and
// both share one variance formula: Var = [sum p_ij (w_ij - (wbar_i. + wbar_.j)(1 - K))^2
// - (K - pe(1 - K))^2] / (n (1 - pe)^2), with wbar_i. = sum_j p_.j w_ij, wbar_.j = sum_i p_i. w_ij.
function weightedKappaWithAgreementWeights(
	table: readonly (readonly number[])[],
	w: readonly (readonly number[])[],
	level: number,
	k: number,
): KappaResult {
	for (const row of table) {
		if (row.length !== k) throw new RangeError('kappa: table must be square');
		for (const v of row) {
			if (!(v >= 0) || !Number.isFinite(v)) throw new RangeError('kappa: counts must be >= 0');
		}
	}
	let n = 0;
	for (const row of table) for (const v of row) n += v;
	const empty: KappaResult = {
		kappa: null,
		observedAgreement: null,
		expectedAgreement: null,
		standardError: null,
		ci: null,
		n,
	};
	if (n === 0) return empty;
	const p = table.map((row) => row.map((v) => v / n));
	const rowM = p.map((row) => row.reduce((a, b) => a + b, 0));
	const colM = p[0].map((_, j) => p.reduce((a, row) => a + row[j], 0));
	let po = 0;
	let pe = 0;
	for (let i = 0; i < k; i++) {
		for (let j = 0; j < k; j++) {
			po += w[i][j] * p[i][j];
			pe += w[i][j] * rowM[i] * colM[j];
		}
	}
	// Both raters used a single category throughout: chance agreement is total, kappa undefined.
	if (1 - pe <= 1e-15) return { ...empty, observedAgreement: po, expectedAgreement: pe };
	const kappa = (po - pe) / (1 - pe);
	const wRow = w.map((row) => row.reduce((a, wij, j) => a + wij * colM[j], 0));
	const wCol = w[0].map((_, j) => w.reduce((a, row, i) => a + row[j] * rowM[i], 0));
	let s = 0;
	for (let i = 0; i < k; i++) {
		for (let j = 0; j < k; j++) {
			const dev = w[i][j] - (wRow[i] + wCol[j]) * (1 - kappa);
			s += p[i][j] * dev * dev;
		}
	}
	const c = kappa - pe * (1 - kappa);
	const variance = Math.max(0, (s - c * c) / (n * (1 - pe) * (1 - pe)));
	const se = Math.sqrt(variance);
	const z = normalQuantile(1 - (1 - level) / 2);
	return {
		kappa,
		observedAgreement: po,
		expectedAgreement: pe,
		standardError: se,
		ci: { low: Math.max(-1, kappa - z * se), high: Math.min(1, kappa + z * se), level },
		n,
	};
}

/** Landis & Koch (1977) verbal band for a kappa value. */
export function kappaBand(kappa: number | null): string {
	if (kappa === null) return 'undefined';
	if (kappa < 0) return 'poor (worse than chance)';
	if (kappa <= 0.2) return 'slight';
	if (kappa <= 0.4) return 'fair';
	if (kappa <= 0.6) return 'moderate';
	if (kappa <= 0.8) return 'substantial';
	return 'almost perfect';
}
