import type { Score } from '../../../src/core/types';
import { judgeAgreement, type AgreementRow } from '../../../src/agreement';
import { weightedKappa } from '../../../src/stats/agreement';

const binary = { kind: 'binary', min: 0, max: 1 } as const;
const likert = { kind: 'likert', min: 1, max: 5 } as const;

function yesNo(value: boolean | null, status: Score['status'] = 'ok', reason = 'because'): Score {
	return {
		metric: 'groundedness',
		value,
		scale: binary,
		pass: value,
		status,
		reason,
		signature: 'groundedness@1',
	};
}

function rating(value: number): Score {
	return {
		metric: 'coherence',
		value,
		scale: likert,
		threshold: 4,
		pass: value >= 4,
		status: 'ok',
		signature: 'coherence@1',
	};
}

// The classic 50-row example: judge yes/human yes 20, yes/no 5, no/yes 10, no/no 15.
function textbookRows(): AgreementRow[] {
	const rows: AgreementRow[] = [];
	const add = (count: number, judge: boolean, human: string) => {
		for (let i = 0; i < count; i++) {
			rows.push({
				request_id: `r${rows.length}`,
				eval: { groundedness: yesNo(judge) },
				human: { label: human },
			});
		}
	};
	add(20, true, 'Yes');
	add(5, true, 'no');
	add(10, false, 'YES');
	add(15, false, 'No');
	return rows;
}

describe('judgeAgreement (binary judges)', () => {
	it('textbook 2x2: kappa 0.4, all rates, disagreements, not fit at the 0.6 rule', () => {
		const r = judgeAgreement(textbookRows(), { judge: 'groundedness', humanField: 'human.label' });
		expect(r.scale).toBe('binary');
		expect(r.n).toBe(50);
		expect(r.confusion).toEqual({
			truePositive: 20,
			falsePositive: 5,
			falseNegative: 10,
			trueNegative: 15,
		});
		expect(r.kappa.kappa).toBeCloseTo(0.4, 14);
		expect(r.kappaBand).toBe('fair');
		expect(r.rates.accuracy).toBeCloseTo(0.7, 14);
		expect(r.rates.precision).toBeCloseTo(0.8, 14);
		expect(r.rates.recall).toBeCloseTo(2 / 3, 14);
		expect(r.rates.f1).toBeCloseTo(40 / 55, 14);
		expect(r.rates.falsePositiveRate).toBeCloseTo(0.25, 14);
		expect(r.rates.falseNegativeRate).toBeCloseTo(1 / 3, 14);
		expect(r.disagreements).toHaveLength(15);
		expect(r.disagreements[0]).toEqual({
			index: 20,
			requestId: 'r20',
			judge: true,
			human: false,
			reason: 'because',
		});
		expect(r.kappa.ci!.low).toBeLessThan(0.4);
		expect(r.kappa.ci!.high).toBeGreaterThan(0.4);
		expect(r.fitness.verdict).toBe('not_fit');
		expect(r.fitness.message).toMatch(/below 0\.6/);
		// Same data, looser rule: fit, with the borderline warning because the CI dips below.
		const loose = judgeAgreement(textbookRows(), {
			judge: 'groundedness',
			humanField: 'human.label',
			minKappa: 0.35,
		});
		expect(loose.fitness.fit).toBe(true);
		expect(loose.fitness.message).toMatch(/more labels/);
	});

	it('skips errored and not-applicable judge scores and unrecognised human labels', () => {
		const rows: AgreementRow[] = [
			{ request_id: 1, eval: { groundedness: yesNo(null, 'error') }, label: 'yes' },
			{ request_id: 2, eval: { groundedness: yesNo(null, 'not_applicable') }, label: 'yes' },
			{ request_id: 3, eval: {}, label: 'yes' },
			{ request_id: 4, eval: { groundedness: yesNo(true) }, label: 'maybe' },
			{ request_id: 5, eval: { groundedness: yesNo(true) } },
			{ request_id: 6, eval: { groundedness: yesNo(false) }, label: 'fail' },
			{ request_id: 7, eval: { groundedness: yesNo(true) }, label: 'pass' },
		];
		const r = judgeAgreement(rows, { judge: 'groundedness', humanField: 'label' });
		expect(r.skipped).toEqual({
			judgeError: 1,
			judgeNotApplicable: 1,
			noJudgeScore: 1,
			noHumanLabel: 2,
		});
		expect(r.n).toBe(2);
		expect(r.fitness.verdict).toBe('insufficient_data');
		expect(r.fitness.message).toMatch(/Only 2 rows/);
	});

	it('custom label mapping, literal dotted keys, and a fit judge', () => {
		const rows: AgreementRow[] = [];
		for (let i = 0; i < 40; i++) {
			const human = i % 2 === 0;
			const judge = i === 3 ? true : human; // one false positive
			rows.push({
				request_id: i,
				eval: { groundedness: yesNo(judge) },
				'rater.verdict': human ? 'grounded' : 'hallucinated',
			});
		}
		const r = judgeAgreement(rows, {
			judge: 'groundedness',
			humanField: 'rater.verdict',
			positiveLabels: ['grounded'],
			negativeLabels: ['hallucinated'],
		});
		expect(r.n).toBe(40);
		expect(r.confusion.falsePositive).toBe(1);
		// po = 39/40; judge yes 21/40, humans yes 20/40 -> pe = 0.5; kappa = (0.975 - 0.5) / 0.5.
		expect(r.kappa.kappa).toBeCloseTo(0.95, 14);
		expect(r.fitness).toMatchObject({ verdict: 'fit', fit: true });
		expect(r.disagreements.map((d) => d.requestId)).toEqual(['3']);
	});

	it('one-sided labels make kappa undefined and the judge not fit', () => {
		const rows = Array.from({ length: 35 }, (_, i) => ({
			request_id: i,
			eval: { groundedness: yesNo(true) },
			label: true,
		}));
		const r = judgeAgreement(rows, { judge: 'groundedness', humanField: 'label' });
		expect(r.kappa.kappa).toBeNull();
		expect(r.rates.accuracy).toBe(1);
		expect(r.fitness.verdict).toBe('not_fit');
		expect(r.fitness.message).toMatch(/undefined/);
	});
});

describe('judgeAgreement (1-5 judges)', () => {
	it('builds the 5x5 table, weighted kappas and the binary view at the pass threshold', () => {
		const pairs: [number, number][] = [
			[5, 5],
			[4, 5],
			[4, 4],
			[3, 4],
			[2, 2],
			[1, 1],
			[5, 4],
			[3, 3],
			[2, 3],
			[4, 4],
			[1, 2],
			[5, 5],
			[3, 3],
			[4, 3],
			[2, 2],
			[5, 5],
			[1, 1],
			[3, 2],
			[4, 4],
			[2, 1],
		];
		const rows: AgreementRow[] = pairs.map(([j, h], i) => ({
			request_id: `q${i}`,
			eval: { coherence: rating(j) },
			human: String(h),
		}));
		const r = judgeAgreement(rows, { judge: 'coherence', humanField: 'human' });
		expect(r.scale).toBe('likert');
		expect(r.n).toBe(20);
		const matrix = [1, 2, 3, 4, 5].map((j) =>
			[1, 2, 3, 4, 5].map((h) => pairs.filter(([a, b]) => a === j && b === h).length),
		);
		expect(r.ordinal!.matrix).toEqual(matrix);
		expect(r.ordinal!.linear.kappa).toBeCloseTo(weightedKappa(matrix, 'linear').kappa!, 15);
		expect(r.ordinal!.quadratic.kappa).toBeCloseTo(weightedKappa(matrix, 'quadratic').kappa!, 15);
		expect(r.ordinal!.passThreshold).toBe(4);
		// Binary view at >= 4: judge pass & human pass = (5,5)x3,(4,5),(4,4)x3,(5,4) = 8; judge pass & human fail = (4,3) = 1;
		// judge fail & human pass = (3,4) = 1; the other 10 both fail.
		expect(r.confusion).toEqual({
			truePositive: 8,
			falsePositive: 1,
			falseNegative: 1,
			trueNegative: 10,
		});
		expect(r.disagreements).toHaveLength(pairs.filter(([a, b]) => a !== b).length);
		expect(r.disagreements[0]).toMatchObject({ requestId: 'q1', judge: 4, human: 5 });
	});

	it('ignores ratings off the 1-5 scale', () => {
		const rows: AgreementRow[] = [
			{ request_id: 1, eval: { coherence: rating(4) }, human: 4.5 },
			{ request_id: 2, eval: { coherence: rating(4) }, human: 7 },
			{ request_id: 3, eval: { coherence: rating(4) }, human: 4 },
		];
		const r = judgeAgreement(rows, { judge: 'coherence', humanField: 'human', passThreshold: 3 });
		expect(r.n).toBe(1);
		expect(r.skipped.noHumanLabel).toBe(2);
		expect(r.ordinal!.passThreshold).toBe(3);
	});
});
