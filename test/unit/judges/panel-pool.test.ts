/**
 * The pure parts of panels and weighted ratings: pooling rules (ties, directions), the
 * disagreement figure, the quorum, and finding the score token in a reply's log-probabilities.
 */
import { weightedScore } from '../../../src/judges/logprobs';
import type { TokenLogprob } from '../../../src/judges/model';
import {
	defaultPoolRule,
	panelDisagreement,
	panelQuorum,
	poolValues,
} from '../../../src/judges/panel';
import { coherence } from '../../../src/judges/specs/quality';
import { relevanceToQuery } from '../../../src/judges/specs/relevanceToQuery';
import { safety } from '../../../src/judges/specs/safety';

const LIKERT = { min: 1, max: 5 };

describe('poolValues', () => {
	it('yes/no by majority; a tie takes the failing verdict, for either direction', () => {
		expect(poolValues([true, true, false], 'majority', 'higher')).toBe(true);
		expect(poolValues([true, false], 'majority', 'higher')).toBe(false);
		// A lower-is-better yes/no (a harm found): a tie says yes, the failing verdict.
		expect(poolValues([true, false], 'majority', 'lower')).toBe(true);
		expect(poolValues([true, false, false], 'mean', 'higher')).toBe(false);
	});

	it('worst: one failing vote decides', () => {
		expect(poolValues([true, true, false], 'worst', 'higher')).toBe(false);
		expect(poolValues([false, false, true], 'worst', 'lower')).toBe(true);
		expect(poolValues([5, 2, 4], 'worst', 'higher')).toBe(2);
		expect(poolValues([1, 6, 3], 'worst', 'lower')).toBe(6);
	});

	it('ratings: mean, median (even count: the middle two), majority (tie: the worst)', () => {
		expect(poolValues([5, 2, 4], 'mean', 'higher')).toBeCloseTo(11 / 3, 12);
		expect(poolValues([5, 2, 4], 'median', 'higher')).toBe(4);
		expect(poolValues([5, 2, 4, 1], 'median', 'higher')).toBe(3);
		expect(poolValues([4, 4, 2], 'majority', 'higher')).toBe(4);
		expect(poolValues([5, 2], 'majority', 'higher')).toBe(2);
		expect(poolValues([5, 2], 'majority', 'lower')).toBe(5);
	});
});

describe('defaultPoolRule', () => {
	it('majority for yes/no, the mean for ratings, and Safety its declared worst', () => {
		expect(defaultPoolRule(relevanceToQuery)).toBe('majority');
		expect(defaultPoolRule(coherence)).toBe('mean');
		expect(defaultPoolRule(safety)).toBe('worst');
	});
});

describe('panelDisagreement and panelQuorum', () => {
	it('the share of jurors whose pass is not the pooled one; ratings half a scale apart disagree', () => {
		const d = panelDisagreement(
			[
				{ value: 4, pass: true },
				{ value: 4, pass: true },
				{ value: 3, pass: true },
			],
			true,
			LIKERT,
		);
		expect(d).toEqual({ disagreement: 0, spread: 1, disagrees: false });
		const far = panelDisagreement(
			[
				{ value: 5, pass: true },
				{ value: 3, pass: true },
			],
			true,
			LIKERT,
		);
		// 2 points on a 4-point span: half of it.
		expect(far).toEqual({ disagreement: 0, spread: 2, disagrees: true });
		const split = panelDisagreement(
			[
				{ value: true, pass: true },
				{ value: false, pass: false },
				{ value: false, pass: false },
				{ value: false, pass: false },
			],
			false,
			{ min: 0, max: 1 },
		);
		expect(split).toEqual({ disagreement: 0.25, disagrees: true });
	});

	it('quorum: 0 or absent is every juror, others clamped to 1..jurors', () => {
		expect(panelQuorum(3)).toBe(3);
		expect(panelQuorum(3, 0)).toBe(3);
		expect(panelQuorum(3, 2)).toBe(2);
		expect(panelQuorum(3, 7)).toBe(3);
		expect(panelQuorum(3, 1.6)).toBe(1);
	});
});

const tok = (token: string, p: number, top: Record<string, number> = {}): TokenLogprob => ({
	token,
	logprob: Math.log(p),
	top: Object.entries(top).map(([t, q]) => ({ token: t, logprob: Math.log(q) })),
});

describe('weightedScore', () => {
	it('finds the score after its key, not a digit in the reason; merges " 3" and "3"', () => {
		const tokens = [
			tok('{"reason":"', 1),
			// A 4 inside the reason is not the score.
			tok('4', 0.9, { '4': 0.9, '2': 0.1 }),
			tok(' steps","score":', 1),
			tok(' 3', 0.5, { ' 3': 0.5, '3': 0.2, ' 2': 0.3 }),
			tok('}', 1),
		];
		const w = weightedScore(tokens, 3, LIKERT);
		// 3 with 0.7 (0.5 + 0.2), 2 with 0.3: 3*0.7 + 2*0.3 = 2.7.
		expect(w.value).toBeCloseTo(2.7, 12);
		expect(w.weighting).toMatchObject({ method: 'logprobs', sampled: 3 });
		expect((w.weighting as { mass: number }).mass).toBeCloseTo(1, 12);
	});

	it('reads a tagged reply; scores off the scale are not scores', () => {
		const tokens = [
			tok('<reason>ok</reason><score>', 1),
			tok('5', 0.5, { '5': 0.5, '4': 0.3, '9': 0.2 }),
			tok('</score>', 1),
		];
		const w = weightedScore(tokens, 5, LIKERT);
		// 9 is off the 1-5 scale: 5 and 4 renormalised over 0.8.
		expect(w.value).toBeCloseTo((5 * 0.5 + 4 * 0.3) / 0.8, 12);
		expect((w.weighting as { mass: number }).mass).toBeCloseTo(0.8, 12);
	});

	it('keeps the sampled score with a note when the token is missing or there are no log-probabilities', () => {
		expect(weightedScore(null, 4, LIKERT)).toEqual({
			value: 4,
			weighting: {
				method: 'sampled',
				sampled: 4,
				note: 'the model returned no log-probabilities; the sampled score is kept',
			},
		});
		const w = weightedScore([tok('{"score":', 1), tok('5', 1)], 4, LIKERT);
		expect(w.value).toBe(4);
		expect(w.weighting.method).toBe('sampled');
	});
});
