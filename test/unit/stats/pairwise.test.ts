import {
	bradleyTerry,
	bradleyTerryBootstrap,
	signTest,
	winMatrix,
	winRate,
	type PairOutcome,
} from '../../../src/stats/pairwise';
import { createRng } from '../../../src/stats/random';

// Exact binomial tail by integer arithmetic, independent of the library's log-space sum:
// two-sided sign test p = min(1, 2 * sum_{i <= min(w, l)} C(n, i) / 2^n), n = w + l.
function exactSignP(w: number, l: number): number {
	const n = w + l;
	if (n === 0) return 1;
	let c = 1n;
	let tail = 0n;
	for (let i = 0; i <= Math.min(w, l); i++) {
		if (i > 0) c = (c * BigInt(n - i + 1)) / BigInt(i);
		tail += c;
	}
	return Math.min(1, (2 * Number(tail)) / 2 ** n);
}

describe('sign test', () => {
	// scipy 1.17.1: binomtest(w, w + l, 0.5).pvalue (two-sided), printed with repr().
	const scipy: [number, number, number][] = [
		[0, 0, 1],
		[1, 0, 1],
		[5, 0, 0.0625],
		[6, 0, 0.03125],
		[9, 3, 0.14599609375],
		[3, 9, 0.14599609375],
		[10, 10, 1],
		[17, 4, 0.007197380065917969],
		[30, 48, 0.053544392168502264],
		[140, 111, 0.07696174080300337],
	];
	it.each(scipy)('%i wins, %i losses equals scipy binomtest', (w, l, p) => {
		const r = signTest(w, l);
		expect(r.pValue).toBeCloseTo(p, 13);
		expect(r.n).toBe(w + l);
		expect(r.test).toBe('sign-exact');
	});
	it('equals the exact binomial tail summed by hand', () => {
		for (const [w, l] of [
			[2, 7],
			[12, 25],
			[40, 41],
			[0, 13],
		])
			expect(signTest(w, l).pValue).toBeCloseTo(exactSignP(w, l), 13);
	});
	it('refuses counts that are not counts', () => {
		expect(() => signTest(-1, 2)).toThrow(RangeError);
		expect(() => signTest(1.5, 2)).toThrow(RangeError);
	});
});

describe('win rate and Wilson interval', () => {
	// Wilson (1927) written out: centre (p + z^2/2n) / (1 + z^2/n), half-width
	// z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2), z = 1.959963984540054 (the 0.975 normal quantile).
	function wilsonByHand(x: number, n: number): [number, number] {
		const z = 1.959963984540054;
		const p = x / n;
		const d = 1 + (z * z) / n;
		const c = (p + (z * z) / (2 * n)) / d;
		const h = (z / d) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
		return [c - h, c + h];
	}
	it.each([
		[7, 2, 3],
		[0, 0, 10],
		[15, 5, 0],
		[1, 0, 0],
		[33, 9, 18],
	])('%i wins, %i ties, %i losses', (wins, ties, losses) => {
		const r = winRate({ wins, ties, losses });
		const n = wins + ties + losses;
		expect(r.rate).toBeCloseTo((wins + ties / 2) / n, 15);
		const [lo, hi] = wilsonByHand(wins + ties / 2, n);
		expect(r.interval!.low).toBeCloseTo(Math.max(0, lo), 12);
		expect(r.interval!.high).toBeCloseTo(Math.min(1, hi), 12);
		expect(r.sign.pValue).toBeCloseTo(exactSignP(wins, losses), 13);
	});
	it("7 wins 3 losses equals scipy's binomtest(7, 10).proportion_ci(method='wilson')", () => {
		// scipy 1.17.1: ConfidenceInterval(low=0.39677814746114526, high=0.892208732593699).
		const r = winRate({ wins: 7, ties: 0, losses: 3 });
		expect(r.interval!.low).toBeCloseTo(0.39677814746114526, 12);
		expect(r.interval!.high).toBeCloseTo(0.892208732593699, 12);
	});
	it('no comparisons: no rate, no interval, p = 1', () => {
		const r = winRate({ wins: 0, ties: 0, losses: 0 });
		expect(r.rate).toBeNull();
		expect(r.interval).toBeNull();
		expect(r.sign.pValue).toBe(1);
	});
});

// Fixed data: wins of i over j (ties as halves) among four variants, made up for this test.
const W = [
	[0, 7, 9, 6.5],
	[3, 0, 6, 8],
	[1, 4, 0, 5.5],
	[3.5, 2, 4.5, 0],
];
function outcomesOf(w: number[][]): PairOutcome[] {
	const out: PairOutcome[] = [];
	for (let i = 0; i < w.length; i++)
		for (let j = i + 1; j < w.length; j++) {
			let a = w[i][j];
			let b = w[j][i];
			while (a >= 1) (out.push({ a: i, b: j, outcome: 1 }), a--);
			while (b >= 1) (out.push({ a: i, b: j, outcome: 0 }), b--);
			// Halves on both sides are one tie.
			if (a === 0.5 && b === 0.5) out.push({ a: i, b: j, outcome: 0.5 });
			else if (a !== 0 || b !== 0) throw new Error('halves must pair');
		}
	return out;
}

// An independent fit: Newton-Raphson on the Bradley-Terry log-likelihood in logit form,
// sum_{i != j} w_ij (b_i - log(e^b_i + e^b_j)), with b_0 fixed at 0 (Agresti, Categorical Data
// Analysis, 3rd ed., section 11.6), then centred.
function newtonFit(w: number[][]): number[] {
	const k = w.length;
	const b = new Array<number>(k).fill(0);
	for (let it = 0; it < 100; it++) {
		const g = new Array<number>(k).fill(0);
		const H = Array.from({ length: k }, () => new Array<number>(k).fill(0));
		for (let i = 0; i < k; i++)
			for (let j = 0; j < k; j++) {
				if (i === j) continue;
				const n = w[i][j] + w[j][i];
				const p = 1 / (1 + Math.exp(b[j] - b[i]));
				g[i] += w[i][j] - n * p;
				H[i][i] -= n * p * (1 - p);
				H[i][j] += n * p * (1 - p);
			}
		// Solve H[1:,1:] x = g[1:] by Gaussian elimination.
		const m = k - 1;
		const A = Array.from({ length: m }, (_, r) => [...H[r + 1].slice(1), g[r + 1]]);
		for (let c = 0; c < m; c++) {
			for (let r = c + 1; r < m; r++) {
				const f = A[r][c] / A[c][c];
				for (let q = c; q <= m; q++) A[r][q] -= f * A[c][q];
			}
		}
		const x = new Array<number>(m).fill(0);
		for (let r = m - 1; r >= 0; r--) {
			let s = A[r][m];
			for (let q = r + 1; q < m; q++) s -= A[r][q] * x[q];
			x[r] = s / A[r][r];
		}
		for (let r = 0; r < m; r++) b[r + 1] -= x[r];
	}
	const mean = b.reduce((a, v) => a + v, 0) / k;
	return b.map((v) => v - mean);
}

describe('Bradley-Terry', () => {
	const outcomes = outcomesOf(W);
	it('the win matrix is the data', () => {
		expect(winMatrix(4, outcomes).wins).toEqual(W);
	});
	it('equals an independent Newton fit and scipy', () => {
		const fit = bradleyTerry(4, outcomes);
		expect(fit.converged).toBe(true);
		expect(fit.regularized).toBe(false);
		const newton = newtonFit(W);
		// numpy 2 / Python 3 Newton iteration on the same likelihood (printed with repr()).
		const numpy = [0.846333198400958, 0.2109029564795486, -0.500197870952133, -0.5570382839283735];
		fit.strengths.forEach((s, i) => {
			expect(s).toBeCloseTo(newton[i], 8);
			expect(s).toBeCloseTo(numpy[i], 8);
		});
	});
	it('a variant that never loses gets a finite strength, marked regularized', () => {
		const o: PairOutcome[] = [
			{ a: 0, b: 1, outcome: 1 },
			{ a: 0, b: 1, outcome: 1 },
			{ a: 1, b: 2, outcome: 1 },
			{ a: 1, b: 2, outcome: 0 },
		];
		const fit = bradleyTerry(3, o);
		expect(fit.regularized).toBe(true);
		expect(fit.strengths.every(Number.isFinite)).toBe(true);
		expect(fit.strengths[0]).toBeGreaterThan(fit.strengths[1]);
	});
	it('bootstrap intervals are seeded, contain the estimate and order the clear winner first', () => {
		const grouped = outcomes.map((o, i) => ({ ...o, group: `q${i % 20}` }));
		const a = bradleyTerryBootstrap(4, grouped, { resamples: 300, seed: 7 });
		const b = bradleyTerryBootstrap(4, grouped, { resamples: 300, seed: 7 });
		expect(a.intervals).toEqual(b.intervals);
		a.strengths.forEach((s, i) => {
			expect(a.intervals[i].low).toBeLessThanOrEqual(s);
			expect(a.intervals[i].high).toBeGreaterThanOrEqual(s);
		});
		expect(a.intervals[0].low).toBeGreaterThan(a.intervals[3].high - 1.5);
		expect(a.strengths[0]).toBeGreaterThan(a.strengths[3]);
	});
});

describe('A/A: no difference is found more often than alpha', () => {
	it('1,000 simulated verdict sets, sign test at 0.05: at most 5% significant', () => {
		const rng = createRng(20261202);
		let significant = 0;
		for (let s = 0; s < 1000; s++) {
			let w = 0;
			let l = 0;
			// 40 requests judged by a judge with no preference: a third ties.
			for (let i = 0; i < 40; i++) {
				const u = rng();
				if (u < 1 / 3) w++;
				else if (u < 2 / 3) l++;
			}
			if (signTest(w, l).pValue < 0.05) significant++;
		}
		expect(significant).toBeLessThanOrEqual(50);
		// It is a test that can fail: it finds differences when there are some.
		let found = 0;
		for (let s = 0; s < 200; s++) {
			let w = 0;
			let l = 0;
			for (let i = 0; i < 40; i++) rng() < 0.75 ? w++ : l++;
			if (signTest(w, l).pValue < 0.05) found++;
		}
		expect(found).toBeGreaterThan(150);
	});
});
