import type { Score } from '../../../src/core/types';
import { createRng } from '../../../src/stats/random';
import { signedRankTest } from '../../../src/stats/tests';
import { compareVariants } from '../../../src/variants';

const LIKERT = { kind: 'likert' as const, min: 1, max: 5 };
function likert(metric: string, value: number): Score {
	return {
		metric,
		value,
		scale: LIKERT,
		threshold: 3,
		direction: 'higher',
		pass: value >= 3,
		status: 'ok',
		signature: `judge:${metric}@1`,
	};
}
function yes(metric: string, value: boolean): Score {
	return {
		metric,
		value,
		scale: { kind: 'binary', min: 0, max: 1 },
		pass: value,
		status: 'ok',
		signature: `judge:${metric}@1`,
	};
}
function cost(usd: number, seconds: number): Score {
	return {
		metric: 'cost_latency',
		value: 0.1,
		scale: { kind: 'count', min: 0, max: Number.MAX_SAFE_INTEGER },
		threshold: 1,
		direction: 'lower',
		pass: true,
		status: 'ok',
		details: { cost_usd: usd, latency_seconds: seconds },
		signature: 'metric:cost_latency@1|prices:3',
	};
}
function pair(
	a: string,
	b: string,
	id: string,
	value: number,
	consistent = true,
	slots = ['first', 'second'],
): Record<string, unknown> {
	return {
		request_id: id,
		variant_a: a,
		variant_b: b,
		eval: {
			pairwise: {
				metric: 'pairwise',
				value,
				scale: { kind: 'unit', min: 0, max: 1 },
				threshold: 0.5,
				direction: 'higher',
				pass: value >= 0.5,
				status: 'ok',
				model: 'judge-model',
				details: {
					criterion: 'groundedness',
					positionConsistent: consistent,
					flipped: !consistent,
					slots,
				},
				signature: 'judge:pairwise@1',
			},
		},
	};
}

describe('compareVariants', () => {
	// 12 requests: B is better on groundedness on 10 of them, the same on relevance.
	const rows: Record<string, unknown>[] = [];
	for (let i = 0; i < 12; i++) {
		rows.push({
			request_id: `q${i}`,
			variant: 'A',
			eval: {
				groundedness: likert('groundedness', 2),
				relevance: likert('relevance', 4),
				cost_latency: cost(0.01, 1),
			},
		});
		rows.push({
			request_id: `q${i}`,
			variant: 'B',
			eval: {
				groundedness: likert('groundedness', i < 10 ? 4 : 2),
				relevance: likert('relevance', 4),
				cost_latency: cost(0.0062, 1.4),
			},
		});
	}
	it('names the better variant, no difference, the cost and the latency in one line', () => {
		const r = compareVariants(rows);
		expect(r.variants).toEqual(['A', 'B']);
		const g = r.pairs.find((p) => p.metric === 'groundedness')!;
		// 10 equal positive differences (tied |d|): the exact permutation distribution, p = 2 / 2^10.
		expect(g.test).toBe('wilcoxon-permutation');
		expect(g.pValue).toBeCloseTo(2 / 1024, 12);
		expect(g.pValue).toBe(
			signedRankTest(Array.from({ length: 12 }, (_, i) => (i < 10 ? 2 : 0))).pValue,
		);
		expect(g.verdict).toBe('b_better');
		expect(r.pairs.find((p) => p.metric === 'relevance')!.verdict).toBe('no_difference');
		expect(r.summary[0].line).toMatch(
			/^B vs A: B better on groundedness \(p 0\.00\d+\), no difference on relevance, 38% cheaper, 1\.4x slower; rows A 12\/12, B 12\/12/,
		);
		expect(JSON.stringify(r)).not.toMatch(/NaN/);
		expect(r.metrics.find((m) => m.metric === 'cost_latency')).toBeUndefined();
	});

	it('refuses levels outside their range instead of computing NaN', () => {
		expect(() => compareVariants(rows, { level: 1 })).toThrow('level must be within (0, 1), got 1');
		expect(() => compareVariants(rows, { alpha: 0 })).toThrow(/alpha/);
		expect(() => compareVariants(rows, { minCoverage: 1.5 })).toThrow(/minCoverage/);
		expect(() => compareVariants(rows, { minCoverage: 0 })).not.toThrow();
	});

	it('a variant with missing rows is never declared the winner, and its rows are named', () => {
		const missing = rows.filter(
			(row) => !(row.variant === 'B' && Number(String(row.request_id).slice(1)) >= 9),
		);
		const r = compareVariants(missing);
		const g = r.pairs.find((p) => p.metric === 'groundedness')!;
		expect(g.pairs).toBe(9);
		expect(g.verdict).toBe('incomplete');
		expect(g.note).toMatch(/B looks better .* only 9 of 12 requests/);
		expect(r.unpaired.map((u) => u.key)).toEqual(['q9', 'q10', 'q11']);
		expect(r.unpaired[0].reason).toBe("no row of 'B' for this request");
		expect(r.summary[0].bBetter).toEqual([]);
	});

	it('duplicates and rows without a variant are named, not dropped silently', () => {
		const r = compareVariants([...rows, { ...rows[0] }, { request_id: 'q1', eval: {} }]);
		expect(r.duplicates).toEqual([expect.objectContaining({ row: 24, variant: 'A', key: 'q0' })]);
		expect(r.unassigned).toEqual([
			expect.objectContaining({ row: 25, reason: "no variant: the row has no 'variant' field" }),
		]);
		expect(r.rows.total).toBe(26);
		expect(r.rows.pointwise + r.duplicates.length + r.unassigned.length).toBe(26);
	});

	it('pairs by request text when there is no request_id, and reads a dotted variant field', () => {
		const r = compareVariants(
			rows.map((row) => ({
				request: `question ${String(row.request_id)}`,
				meta: { model: row.variant },
				eval: row.eval,
			})),
			{ variantField: 'meta.model' },
		);
		expect(r.pairs.find((p) => p.metric === 'groundedness')!.pairs).toBe(12);
	});

	it('pairwise: wins, ties, Wilson, sign test, flips as ties and the judge named', () => {
		const pw: Record<string, unknown>[] = [];
		// B better on 14, A on 1, 5 flipped (ties): the judge picked the first slot on those.
		for (let i = 0; i < 14; i++) pw.push(pair('A', 'B', `q${i}`, 0));
		pw.push(pair('A', 'B', 'q14', 1));
		for (let i = 15; i < 20; i++) pw.push(pair('A', 'B', `q${i}`, 0.5, false, ['first', 'first']));
		const r = compareVariants(pw, { minConsistency: 0.8 });
		const p = r.pairwise[0];
		expect([p.criterion, p.wins, p.ties, p.losses]).toEqual(['groundedness', 1, 5, 14]);
		expect(p.positionInconsistent).toBe(5);
		expect(p.sign.pValue).toBeCloseTo(0.0009765625, 12); // 2 * (1 + 15) / 2^15 = scipy binomtest(1, 15)
		expect(p.rate).toBeCloseTo(3.5 / 20, 12);
		expect(p.verdict).toBe('b_better');
		const h = r.judgeHealth[0];
		expect(h.consistency).toBeCloseTo(0.75, 12);
		expect(h.firstSlot).toBe(25);
		expect(h.secondSlot).toBe(15);
		expect(h.warning).toMatch(
			/judge judge-model on groundedness changed its verdict with the order on 5 of 20 pairs/,
		);
		expect(r.summary[0].line).toMatch(/B better on groundedness \(pairwise\)/);
	});

	it('three variants: Bradley-Terry ranks them and the win matrix is the data', () => {
		const pw: Record<string, unknown>[] = [];
		for (let i = 0; i < 10; i++) {
			pw.push(pair('A', 'B', `q${i}`, i < 8 ? 0 : 1));
			pw.push(pair('B', 'C', `q${i}`, i < 7 ? 1 : 0));
			pw.push(pair('A', 'C', `q${i}`, i < 5 ? 1 : 0.5));
		}
		const r = compareVariants(pw, { resamples: 200 });
		const rank = r.rankings[0];
		expect(rank.variants).toEqual(['A', 'B', 'C']);
		expect(rank.wins.B.A).toBe(8);
		expect(rank.wins.A.C).toBe(7.5);
		expect(rank.strengths.B.strength).toBeGreaterThan(rank.strengths.A.strength);
		expect(rank.strengths.A.strength).toBeGreaterThan(rank.strengths.C.strength);
		expect(r.summary).toHaveLength(3);
	});

	it('A/A: 1,000 simulated comparisons of one variant with itself, at most 5% significant', () => {
		const rng = createRng(37);
		let significant = 0;
		for (let s = 0; s < 1000; s++) {
			const sim: Record<string, unknown>[] = [];
			for (let i = 0; i < 20; i++) {
				// Each request has its own difficulty; both "variants" answer from the same distribution.
				const base = 1 + Math.floor(rng() * 3);
				for (const v of ['A', 'B'])
					sim.push({
						request_id: `q${i}`,
						variant: v,
						eval: {
							quality: likert('quality', Math.min(5, base + Math.floor(rng() * 3))),
							safe: yes('safe', rng() < 0.8),
						},
					});
			}
			const r = compareVariants(sim, { resamples: 10 });
			if (r.pairs.some((p) => p.verdict === 'a_better' || p.verdict === 'b_better')) significant++;
		}
		// Two metrics a comparison, Holm across them: 23 of 1,000 with this seed (2.3%).
		expect(significant).toBeLessThanOrEqual(50);
	});
});
