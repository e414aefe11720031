import {
	binaryConfusion,
	binaryRates,
	cohenKappa,
	contingencyTable,
	kappaBand,
	weightedKappa,
} from '../../../src/stats/agreement';

// Delta-method variance of a kappa functional of the cell probabilities, with a numerical
// gradient: an independent route to the FCE (1969) large-sample variance.
function deltaMethodSe(table: number[][], kappaOf: (p: number[][]) => number): number {
	const n = table.flat().reduce((a, b) => a + b, 0);
	const p = table.map((r) => r.map((v) => v / n));
	const h = 1e-6;
	const grad = p.map((row, i) =>
		row.map((_, j) => {
			const up = p.map((r) => [...r]);
			const down = p.map((r) => [...r]);
			up[i][j] += h;
			down[i][j] -= h;
			return (kappaOf(up) - kappaOf(down)) / (2 * h);
		}),
	);
	let m1 = 0;
	let m2 = 0;
	p.forEach((row, i) =>
		row.forEach((pij, j) => {
			m1 += pij * grad[i][j];
			m2 += pij * grad[i][j] * grad[i][j];
		}),
	);
	return Math.sqrt((m2 - m1 * m1) / n);
}

// Kappa written directly from its definition with disagreement weights v (0 on the diagonal),
// valid for unnormalised p too (needed by the numerical gradient).
function kappaFromDefinition(p: number[][], v: (i: number, j: number) => number): number {
	const total = p.flat().reduce((a, b) => a + b, 0);
	const rows = p.map((r) => r.reduce((a, b) => a + b, 0) / total);
	const cols = p[0].map((_, j) => p.reduce((a, r) => a + r[j], 0) / total);
	let obs = 0;
	let exp = 0;
	p.forEach((row, i) =>
		row.forEach((pij, j) => {
			obs += v(i, j) * (pij / total);
			exp += v(i, j) * rows[i] * cols[j];
		}),
	);
	return 1 - obs / exp;
}

describe('binary confusion and rates', () => {
	it('counts and derives every rate by hand', () => {
		const pairs = [
			...Array(8).fill({ judge: true, human: true }),
			...Array(2).fill({ judge: true, human: false }),
			...Array(4).fill({ judge: false, human: true }),
			...Array(6).fill({ judge: false, human: false }),
		];
		const m = binaryConfusion(pairs);
		expect(m).toEqual({ truePositive: 8, falsePositive: 2, falseNegative: 4, trueNegative: 6 });
		const r = binaryRates(m);
		expect(r.n).toBe(20);
		expect(r.accuracy).toBeCloseTo(14 / 20, 15);
		expect(r.precision).toBeCloseTo(0.8, 15);
		expect(r.recall).toBeCloseTo(8 / 12, 15);
		expect(r.f1).toBeCloseTo((2 * 0.8 * (8 / 12)) / (0.8 + 8 / 12), 15);
		expect(r.falsePositiveRate).toBeCloseTo(2 / 8, 15);
		expect(r.falseNegativeRate).toBeCloseTo(4 / 12, 15);
	});

	it('returns null (not NaN) for undefined rates', () => {
		const r = binaryRates({ truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 5 });
		expect(r.precision).toBeNull();
		expect(r.recall).toBeNull();
		expect(r.f1).toBeNull();
		expect(r.falseNegativeRate).toBeNull();
		expect(r.falsePositiveRate).toBe(0);
		expect(
			binaryRates({ truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 })
				.accuracy,
		).toBeNull();
	});
});

describe("Cohen's kappa", () => {
	it('textbook 2x2 (Wikipedia: 20 yes/yes, 5, 10, 15 no/no): po = 0.7, pe = 0.5, kappa = 0.4', () => {
		const r = cohenKappa([
			[20, 5],
			[10, 15],
		]);
		expect(r.observedAgreement).toBeCloseTo(0.7, 15);
		expect(r.expectedAgreement).toBeCloseTo(0.5, 15);
		expect(r.kappa).toBeCloseTo(0.4, 15);
		expect(r.n).toBe(50);
	});

	it('second textbook 2x2 (45/15/25/15 of 100): kappa = 0.1304', () => {
		const r = cohenKappa([
			[45, 15],
			[25, 15],
		]);
		// po = 0.6, pe = 0.6*0.7 + 0.4*0.3 = 0.54
		expect(r.kappa).toBeCloseTo((0.6 - 0.54) / 0.46, 14);
		expect(r.kappa).toBeCloseTo(0.1304, 4);
	});

	it('standard error equals the delta-method variance (FCE 1969) on 2x2 and 3x3 tables', () => {
		for (const table of [
			[
				[20, 5],
				[10, 15],
			],
			[
				[30, 4, 1],
				[6, 25, 5],
				[2, 3, 24],
			],
		]) {
			const r = cohenKappa(table);
			const expected = deltaMethodSe(table, (p) =>
				kappaFromDefinition(p, (i, j) => (i === j ? 0 : 1)),
			);
			expect(r.standardError!).toBeCloseTo(expected, 7);
			expect(r.ci!.low).toBeCloseTo(r.kappa! - 1.959963984540054 * r.standardError!, 10);
			expect(r.ci!.high).toBeCloseTo(r.kappa! + 1.959963984540054 * r.standardError!, 10);
		}
	});

	it('perfect agreement gives kappa 1 with zero SE; one category only is undefined', () => {
		const r = cohenKappa([
			[10, 0],
			[0, 7],
		]);
		expect(r.kappa).toBeCloseTo(1, 15);
		expect(r.standardError).toBeCloseTo(0, 12);
		const single = cohenKappa([
			[10, 0],
			[0, 0],
		]);
		expect(single.kappa).toBeNull();
		expect(single.observedAgreement).toBe(1);
		expect(cohenKappa([[0]]).kappa).toBeNull();
	});

	it('contingency table puts the judge on rows and refuses unknown labels', () => {
		const t = contingencyTable(
			[
				{ judge: 'yes', human: 'no' },
				{ judge: 'yes', human: 'yes' },
			],
			['yes', 'no'],
		);
		expect(t).toEqual([
			[1, 1],
			[0, 0],
		]);
		expect(() => contingencyTable([{ judge: 'maybe', human: 'no' }], ['yes', 'no'])).toThrow(
			RangeError,
		);
	});
});

describe('weighted kappa (1-5)', () => {
	const table = [
		[5, 2, 0, 0, 0],
		[1, 6, 3, 0, 0],
		[0, 2, 8, 2, 1],
		[0, 0, 3, 7, 2],
		[0, 1, 0, 2, 9],
	];

	it('linear and quadratic match the disagreement-weight definition', () => {
		const lin = weightedKappa(table, 'linear');
		const quad = weightedKappa(table, 'quadratic');
		expect(lin.kappa).toBeCloseTo(
			kappaFromDefinition(table, (i, j) => Math.abs(i - j) / 4),
			14,
		);
		expect(quad.kappa).toBeCloseTo(
			kappaFromDefinition(table, (i, j) => ((i - j) / 4) ** 2),
			14,
		);
		// Near-misses weigh less, so on a near-diagonal table quadratic > linear > unweighted.
		expect(quad.kappa!).toBeGreaterThan(lin.kappa!);
		expect(lin.kappa!).toBeGreaterThan(cohenKappa(table).kappa!);
	});

	it('hand-computed on a 3-category table: linear weighted kappa = 1 - 0.2 / 0.5', () => {
		// n = 10, rows = cols = (0.4, 0.2, 0.4); off-diagonal cells at distance 1 only.
		const t = [
			[3, 1, 0],
			[1, 0, 1],
			[0, 1, 3],
		];
		// observed disagreement = 4 cells * 0.1 * 0.5 = 0.2; expected = sum r_i c_j |i-j|/2 =
		// (0.4*0.2*0.5)*2 + (0.2*0.4*0.5)*2 + (0.4*0.4*1)*2 = 0.08 + 0.08 + 0.32 = 0.48
		expect(weightedKappa(t, 'linear').kappa).toBeCloseTo(1 - 0.2 / 0.48, 14);
	});

	it('equals sklearn only when sklearn is given every category as labels', () => {
		// Ratings 3 and 4 never occur. sklearn 1.2.1 cohen_kappa_score(judge, human, weights=w):
		// labels=[1, 2, 3, 4, 5] -> 0.5054945054945056 (linear), 0.5423728813559322 (quadratic);
		// without labels it spaces 1, 2, 5 evenly -> 0.41860465116279066, 0.4444444444444444.
		const judge = [1, 2, 5, 5, 1, 2, 2, 5, 1, 5];
		const human = [2, 2, 5, 1, 1, 5, 2, 5, 2, 5];
		const pairs = judge.map((j, i) => ({ judge: j, human: human[i] }));
		const t = contingencyTable(pairs, [1, 2, 3, 4, 5]);
		expect(weightedKappa(t, 'linear').kappa).toBeCloseTo(0.5054945054945056, 14);
		expect(weightedKappa(t, 'quadratic').kappa).toBeCloseTo(0.5423728813559322, 14);
		const present = contingencyTable(pairs, [1, 2, 5]);
		expect(weightedKappa(present, 'linear').kappa).toBeCloseTo(0.41860465116279066, 14);
		expect(weightedKappa(present, 'quadratic').kappa).toBeCloseTo(0.4444444444444444, 14);
	});

	it('standard errors equal the delta-method variance', () => {
		for (const [weights, v] of [
			['linear', (i: number, j: number) => Math.abs(i - j) / 4],
			['quadratic', (i: number, j: number) => ((i - j) / 4) ** 2],
		] as const) {
			const r = weightedKappa(table, weights);
			expect(r.standardError!).toBeCloseTo(
				deltaMethodSe(table, (p) => kappaFromDefinition(p, v)),
				7,
			);
		}
	});
});

describe('kappa bands', () => {
	it('follows Landis & Koch', () => {
		expect(kappaBand(-0.1)).toMatch(/poor/);
		expect(kappaBand(0.15)).toBe('slight');
		expect(kappaBand(0.4)).toBe('fair');
		expect(kappaBand(0.55)).toBe('moderate');
		expect(kappaBand(0.7)).toBe('substantial');
		expect(kappaBand(0.95)).toBe('almost perfect');
		expect(kappaBand(null)).toBe('undefined');
	});
});
