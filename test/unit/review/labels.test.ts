import type { Score } from '../../../src/core/types';
import {
	labelFromSubmission,
	LabelError,
	promoteToGolden,
	goldenJsonl,
	reviewAgreement,
	reviewForm,
	verdictField,
	type ReviewRow,
} from '../../../src/review';

// The signed-in n8n user a Form page adds to its submission (n8n User Auth).
const signedIn = (name: string) => ({
	user: { id: `u-${name}`, email: `${name}@example.com`, firstName: name, lastName: 'R' },
});

const yesNo = (value: boolean, signature: string): Score => ({
	metric: 'groundedness',
	value,
	scale: { kind: 'binary', min: 0, max: 1 },
	direction: 'higher',
	pass: value,
	status: 'ok',
	reason: 'r',
	signature,
});

// Label rows as the Data Table holds them: judge yes/no against reviewer yes/no, per version.
function labels(
	signature: string,
	[tp, fp, fn, tn]: [number, number, number, number],
	day: string,
): Record<string, unknown>[] {
	const out: Record<string, unknown>[] = [];
	const add = (count: number, judge: boolean, human: string) => {
		for (let i = 0; i < count; i++) {
			const id = `${signature}-${out.length}`;
			out.push({
				request_id: id,
				fingerprint: `fp-${id}`,
				reviewer: out.length % 2 ? 'ana' : 'bo',
				reviewed_at: `${day}T10:00:00.000Z`,
				judges: JSON.stringify({ groundedness: yesNo(judge, signature) }),
				labels: JSON.stringify({ groundedness: human }),
			});
		}
	};
	add(tp, true, 'yes');
	add(fp, true, 'no');
	add(fn, false, 'yes');
	add(tn, false, 'no');
	return out;
}

describe('reviewAgreement: per judge and per judge version, equal to reference values', () => {
	// Reference values: statsmodels.stats.inter_rater.cohens_kappa (wt=None) transcribed by hand
	// (kappa = (po - pe) / (1 - pe); var_kappa = (term_a + term_b - term_c) / (1 - pe)^2 / n with
	// term_a = sum_i p_ii (1 - (r_i + c_i)(1 - kappa))^2, term_b = (1 - kappa)^2 sum_{i!=j} p_ij
	// (c_i + r_j)^2, term_c = (kappa - pe (1 - kappa))^2, Fleiss, Cohen & Everitt 1969; interval
	// kappa -+ 1.959963984540054 * std_kappa), computed in Python from the same counts:
	//   v1 (TP 18, FP 3, FN 4, TN 15): kappa 0.6482412060301507, std 0.12056296150016449,
	//      CI 0.41194214362033915..0.8845402684399621, accuracy 0.825, FPR 3/18, FNR 4/22
	//   v2 (TP 10, FP 9, FN 8, TN 5): kappa -0.088, std 0.17487458655848193,
	//      CI -0.4307478914659568..0.2547478914659568, accuracy 0.46875, FPR 9/14, FNR 8/18
	//   all (TP 28, FP 12, FN 12, TN 20): kappa 0.325, std 0.11202438524993119,
	//      CI 0.10543623951989492..0.5445637604801054, accuracy 2/3, FPR 0.375, FNR 0.3
	const rows = [
		...labels('judge:groundedness@1|m:a', [18, 3, 4, 15], '2026-11-01'),
		...labels('judge:groundedness@2|m:b', [10, 9, 8, 5], '2026-11-20'),
	];
	const r = reviewAgreement(rows);
	const find = (sig: string | null) => r.judges.find((j) => j.signature === sig)!;
	const expectations: [string | null, number[]][] = [
		[
			'judge:groundedness@1|m:a',
			[
				0.6482412060301507,
				0.12056296150016449,
				0.41194214362033915,
				0.8845402684399621,
				0.825,
				3 / 18,
				4 / 22,
			],
		],
		[
			'judge:groundedness@2|m:b',
			[
				-0.088,
				0.17487458655848193,
				-0.4307478914659568,
				0.2547478914659568,
				0.46875,
				9 / 14,
				8 / 18,
			],
		],
		[
			null,
			[0.325, 0.11202438524993119, 0.10543623951989492, 0.5445637604801054, 2 / 3, 0.375, 0.3],
		],
	];
	it.each(expectations)('%s', (sig, [kappa, se, low, high, acc, fpr, fnr]) => {
		const a = find(sig).result;
		expect(a.kappa.kappa).toBeCloseTo(kappa, 12);
		expect(a.kappa.standardError).toBeCloseTo(se, 12);
		expect(a.kappa.ci!.low).toBeCloseTo(low, 12);
		expect(a.kappa.ci!.high).toBeCloseTo(high, 12);
		expect(a.rates.accuracy).toBeCloseTo(acc, 12);
		expect(a.rates.falsePositiveRate).toBeCloseTo(fpr, 12);
		expect(a.rates.falseNegativeRate).toBeCloseTo(fnr, 12);
	});

	it('fitness: version 1 fit, version 2 and all versions not fit; the newest version listed first', () => {
		expect(find('judge:groundedness@1|m:a').result.fitness.verdict).toBe('fit');
		expect(find('judge:groundedness@2|m:b').result.fitness.verdict).toBe('not_fit');
		expect(r.judges.map((j) => j.signature)).toEqual([
			null,
			'judge:groundedness@2|m:b',
			'judge:groundedness@1|m:a',
		]);
		expect(r.unfit.map((u) => u.signature)).toEqual([null, 'judge:groundedness@2|m:b']);
		expect(find(null).reviewers).toBe(2);
		expect(r.labels).toBe(72);
	});

	it('a later label of the same row by the same reviewer replaces the earlier one', () => {
		const one = labels('s', [1, 0, 0, 0], '2026-11-01')[0];
		const again = {
			...one,
			reviewed_at: '2026-11-02T00:00:00.000Z',
			labels: '{"groundedness":"no"}',
		};
		const res = reviewAgreement([one, again], { minRows: 1 });
		expect(res.labels).toBe(1);
		expect(res.judges[0].result.confusion.falsePositive).toBe(1);
	});
});

const scoredRow: ReviewRow = {
	request_id: 'q1',
	request: 'What is the refund window?',
	response: 'Thirty days.',
	retrieved_context: [{ doc_uri: 'kb/refunds', content: 'Refunds within 30 days.' }],
	eval: {
		groundedness: yesNo(true, 'judge:groundedness@1'),
		coherence: {
			metric: 'coherence',
			value: 2,
			scale: { kind: 'likert', min: 1, max: 5 },
			threshold: 3,
			direction: 'higher',
			pass: false,
			status: 'ok',
			signature: 'judge:coherence@1',
		},
	},
};

describe('labelFromSubmission', () => {
	const fp = reviewForm(scoredRow).fields.find((f) => f.fieldName === 'fingerprint')!.fieldValue;
	it('records reviewer, time, the judge versions seen and the verdicts given', () => {
		const l = labelFromSubmission(
			scoredRow,
			{
				[verdictField('groundedness')]: 'no',
				[verdictField('coherence')]: '4',
				...signedIn('ana'),
				corrected_answer: 'Thirty days from delivery.',
				expected_facts: '- 30 days\n- from delivery\n',
				context_correct: 'yes',
				fingerprint: fp,
			},
			new Date('2026-12-01T12:00:00Z'),
		);
		expect(l).toMatchObject({
			request_id: 'q1',
			fingerprint: fp,
			reviewer: 'ana@example.com',
			reviewer_id: 'u-ana',
			reviewed_at: '2026-12-01T12:00:00.000Z',
			corrected_answer: 'Thirty days from delivery.',
			expected_facts: JSON.stringify(['30 days', 'from delivery']),
			context_correct: 'yes',
		});
		expect(JSON.parse(l.labels)).toEqual({ groundedness: 'no', coherence: 4 });
		const judges = JSON.parse(l.judges);
		expect(judges.groundedness.signature).toBe('judge:groundedness@1');
		expect(judges.coherence.value).toBe(2);
	});

	it("unsure records no label; a bad answer or another row's page is refused", () => {
		const l = labelFromSubmission(scoredRow, {
			[verdictField('groundedness')]: 'unsure',
			[verdictField('coherence')]: '5',
			...signedIn('bo'),
		});
		expect(JSON.parse(l.labels)).toEqual({ coherence: 5 });
		expect(() =>
			labelFromSubmission(scoredRow, { [verdictField('coherence')]: '7', ...signedIn('bo') }),
		).toThrow(LabelError);
		expect(() =>
			labelFromSubmission(scoredRow, { ...signedIn('bo'), fingerprint: 'other' }),
		).toThrow(/another row/);
	});

	it('the reviewer is the signed-in n8n user; a typed or forged reviewer is ignored', () => {
		const l = labelFromSubmission(scoredRow, {
			...signedIn('ana'),
			reviewer: 'mallory',
			[verdictField('coherence')]: '4',
		});
		expect(l).toMatchObject({ reviewer: 'ana@example.com', reviewer_id: 'u-ana' });
		// Typed names are ignored even with Accept Typed Reviewer Name, while a user is signed in.
		expect(
			labelFromSubmission(scoredRow, { ...signedIn('ana'), reviewer: 'mallory' }, undefined, {
				acceptTypedReviewer: true,
			}).reviewer,
		).toBe('ana@example.com');
	});

	it('no signed-in user: refused, naming the field, unless Accept Typed Reviewer Name', () => {
		const refused = (submission: Record<string, unknown>) => {
			let err: unknown;
			try {
				labelFromSubmission(scoredRow, submission);
			} catch (e) {
				err = e;
			}
			expect(err).toBeInstanceOf(LabelError);
			expect((err as Error).message).toMatch(/^user: .*n8n User Auth/);
		};
		refused({});
		refused({ reviewer: 'mallory' });
		// What a form field could bring: text, a list, an object without both id and email.
		refused({ user: 'mallory@example.com' });
		refused({ user: ['mallory'] });
		refused({ user: { email: 'mallory@example.com' } });
		refused({ user: { id: 'u1', email: '  ' } });
		refused({ user: { id: 7, email: 'mallory@example.com' } });
		const typed = labelFromSubmission(scoredRow, { reviewer: ' bo ' }, undefined, {
			acceptTypedReviewer: true,
		});
		expect(typed).toMatchObject({ reviewer: 'bo', reviewer_id: '' });
		expect(() =>
			labelFromSubmission(scoredRow, { reviewer: ' ' }, undefined, { acceptTypedReviewer: true }),
		).toThrow(/^reviewer: no signed-in n8n user and no typed name/);
	});
});

describe('promoteToGolden', () => {
	const base = labelFromSubmission(
		scoredRow,
		{ ...signedIn('ana'), corrected_answer: 'Thirty days from delivery.', context_correct: 'yes' },
		new Date('2026-12-01T00:00:00Z'),
	);
	it('a corrected answer or facts become a golden row; no correction, none', () => {
		const facts = {
			...base,
			request_id: 'q2',
			request: JSON.stringify('Do you ship abroad?'),
			corrected_answer: '',
			expected_facts: JSON.stringify(['ships to EU']),
			context_correct: 'no',
		};
		const none = {
			...base,
			request_id: 'q3',
			request: '"x"',
			corrected_answer: '',
			expected_facts: '',
		};
		const p = promoteToGolden([base, facts, none]);
		expect(p.rows).toEqual([
			{
				request_id: 'q1',
				request: 'What is the refund window?',
				expected_response: 'Thirty days from delivery.',
				expected_retrieved_context: [{ doc_uri: 'kb/refunds', content: 'Refunds within 30 days.' }],
				source: 'human_review',
				reviewer: 'ana@example.com',
				reviewed_at: '2026-12-01T00:00:00.000Z',
			},
			{
				request_id: 'q2',
				request: 'Do you ship abroad?',
				expected_facts: ['ships to EU'],
				source: 'human_review',
				reviewer: 'ana@example.com',
				reviewed_at: '2026-12-01T00:00:00.000Z',
			},
		]);
		expect(p.skipped).toEqual([
			expect.objectContaining({ request_id: 'q3', reason: 'no_correction' }),
		]);
		expect(goldenJsonl(p.rows).trim().split('\n')).toHaveLength(2);
	});

	it('deduplicates against the dataset (by id or request) and within the labels (latest wins)', () => {
		const later = { ...base, reviewed_at: '2026-12-02T00:00:00.000Z', corrected_answer: 'Newer.' };
		const p = promoteToGolden([base, later]);
		expect(p.rows.map((r) => r.expected_response)).toEqual(['Newer.']);
		expect(p.skipped[0].reason).toBe('superseded');
		expect(promoteToGolden([base], [{ request_id: 'q1' }]).rows).toHaveLength(0);
		const byText = promoteToGolden(
			[base],
			[{ request_id: 'other', request: 'What is the refund window?' }],
		);
		expect(byText.rows).toHaveLength(0);
		expect(byText.skipped[0].reason).toBe('already_in_dataset');
	});
});

describe('reviewAgreement: a single judge, a panel and a probability-weighted judge on the same labels', () => {
	// Six rows a reviewer rated 5, 4, 2, 1, 4, 2. Each judge version rated the same rows: the single
	// judge in whole levels, the panel as the mean of two jurors, the weighted judge from its
	// log-probabilities. Threshold 3.
	const human = [5, 4, 2, 1, 4, 2];
	const versions: Record<string, number[]> = {
		'judge:groundedness@1|model:gpt-4o-mini|temp:0': [5, 4, 3, 1, 4, 2],
		'judge:groundedness@1|model:panel[gpt-4.1-mini+gpt-4o-mini]|temp:0|pool:mean|quorum:2': [
			4.5, 4, 2.5, 1.5, 3.5, 2,
		],
		'judge:groundedness@1|model:gpt-4o-mini|temp:0|score:weighted': [4.8, 3.9, 2.2, 1.1, 4.2, 1.9],
	};
	const rating = (value: number, signature: string): Score => ({
		metric: 'groundedness',
		value,
		scale: { kind: 'likert', min: 1, max: 5 },
		direction: 'higher',
		threshold: 3,
		pass: value >= 3,
		status: 'ok',
		reason: 'r',
		signature,
	});
	const rows = Object.entries(versions).flatMap(([sig, values], v) =>
		values.map((value, i) => ({
			request_id: `q${i}`,
			fingerprint: `fp-${v}-${i}`,
			reviewer: 'ana',
			reviewed_at: `2026-12-0${v + 1}T10:00:00.000Z`,
			judges: JSON.stringify({ groundedness: rating(value, sig) }),
			labels: JSON.stringify({ groundedness: human[i] }),
		})),
	);
	const agreement = reviewAgreement(rows);
	const of = (sig: string) => agreement.judges.find((j) => j.signature === sig)!.result;
	const [single, panel, weighted] = Object.keys(versions).map(of);

	it('keeps each version apart and scores every row of each, none skipped for lying between levels', () => {
		expect(agreement.judges.map((j) => j.signature)).toEqual([
			null,
			...Object.keys(versions).reverse(),
		]);
		for (const r of [single, panel, weighted]) {
			expect(r.n).toBe(6);
			expect(r.skipped).toEqual({
				judgeError: 0,
				judgeNotApplicable: 0,
				noJudgeScore: 0,
				noHumanLabel: 0,
			});
		}
		expect([single, panel, weighted].map((r) => r.ordinal!.rounded)).toEqual([0, 4, 6]);
	});

	it('pass/fail from the exact rating, the 5x5 table from its nearest level (by hand)', () => {
		// Single: it passes row 3 (3 against 2): po 5/6, pe 1/2, kappa 2/3. The others' exact
		// ratings fall on the reviewer's side of 3 on every row: kappa 1.
		expect(single.kappa.kappa).toBeCloseTo(2 / 3, 12);
		expect(panel.kappa.kappa).toBeCloseTo(1, 12);
		expect(weighted.kappa.kappa).toBeCloseTo(1, 12);
		// Unweighted 5x5 kappa. Single: 5 of 6 on the diagonal, pe 8/36 -> 11/14. Panel, levels
		// 5 4 3 2 4 2 (2.5 and 1.5 round up): 4 of 6, pe 9/36 -> 5/9. Weighted, levels 5 4 2 1 4 2:
		// all six -> 1.
		expect(single.ordinal!.kappa.kappa).toBeCloseTo(11 / 14, 12);
		expect(panel.ordinal!.kappa.kappa).toBeCloseTo(5 / 9, 12);
		expect(weighted.ordinal!.kappa.kappa).toBeCloseTo(1, 12);
		// A disagreement keeps the judge's exact rating.
		expect(panel.disagreements.map((d) => [d.requestId, d.judge, d.human])).toEqual([
			['q2', 2.5, 2],
			['q3', 1.5, 1],
		]);
	});
});
