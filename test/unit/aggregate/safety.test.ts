/**
 * Run-level safety figures: rows per severity level, defects at the level each Score carries,
 * and the worst rows per category, equal whether rows are folded in one pass or merged in batches.
 */
import {
	aggregate,
	aggregatePartial,
	finalizeAggregate,
	mergePartials,
} from '../../../src/aggregate';
import type { Score } from '../../../src/core/types';
import { Governor } from '../../../src/judges/governor';
import type { HarmVerdict, SafetyBackend } from '../../../src/safety/backend';
import { evaluateHarms } from '../../../src/safety/evaluate';
import type { HarmCategory, SeverityLevel } from '../../../src/safety/levels';

/** Scores as the Content Safety node writes them, from scripted severities. */
async function scored(
	rows: { id: string; violence: number; sexual: number }[],
	defectLevel: SeverityLevel = 'medium',
): Promise<Record<string, unknown>[]> {
	const backend: SafetyBackend = {
		id: 'llm',
		key: 'k',
		capabilities: new Set(['harms']),
		async harms(req) {
			const row = rows.find((r) => r.id === req.response)!;
			const verdicts = {} as Record<HarmCategory, HarmVerdict>;
			verdicts.violence = { severity: row.violence, reason: 'v' };
			verdicts.sexual = { severity: row.sexual, reason: 's' };
			return { verdicts, info: { backend: 'llm', attempts: 1, latencyMs: 1 } };
		},
	};
	const governor = new Governor();
	return Promise.all(
		rows.map(async (r) => ({
			request_id: r.id,
			eval: (await evaluateHarms(
				{ response: r.id },
				{ backend, governor, categories: ['violence', 'sexual'], defectLevel },
			)) as Record<string, Score>,
		})),
	);
}

const ROWS = [
	{ id: 'q1', violence: 0, sexual: 0 },
	{ id: 'q2', violence: 7, sexual: 1 },
	{ id: 'q3', violence: 4, sexual: 2 },
	{ id: 'q4', violence: 5, sexual: 0 },
	{ id: 'q5', violence: 2, sexual: 0 },
	{ id: 'q6', violence: 6, sexual: 3 },
	{ id: 'q7', violence: 3, sexual: 0 },
	{ id: 'q8', violence: 1, sexual: 0 },
];

describe('safety aggregation', () => {
	it('counts rows per level, defects at the Scores own level and lists the worst rows', async () => {
		const s = aggregate(await scored(ROWS));
		expect(s.severity.violence.distribution).toEqual({ very_low: 2, low: 2, medium: 2, high: 2 });
		expect(s.severity.sexual.distribution).toEqual({ very_low: 6, low: 2, medium: 0, high: 0 });
		// Medium and above: q2, q3, q4, q6.
		expect(s.severity.violence.defectsAtScoreLevel).toMatchObject({ count: 4, of: 8, value: 0.5 });
		expect(s.severity.violence.worst).toEqual([
			{ id: 'q2', severity: 7, level: 'high', metric: 'violence' },
			{ id: 'q6', severity: 6, level: 'high', metric: 'violence' },
			{ id: 'q4', severity: 5, level: 'medium', metric: 'violence' },
			{ id: 'q3', severity: 4, level: 'medium', metric: 'violence' },
			{ id: 'q7', severity: 3, level: 'low', metric: 'violence' },
		]);
		// Very low is no harm: never a worst row.
		expect(s.severity.sexual.worst.map((w) => w.id)).toEqual(['q6', 'q3']);
		// The Aggregate's own threshold (default 4 = medium) gives the same defect rate here.
		expect(s.defectRates.violence).toMatchObject({ count: 4, of: 8, threshold: 4 });
	});

	it('follows the Defect Level the node used', async () => {
		const s = aggregate(await scored(ROWS, 'high'));
		expect(s.severity.violence.defectsAtScoreLevel).toMatchObject({ count: 2, of: 8 });
		const low = aggregate(await scored(ROWS, 'low'));
		expect(low.severity.violence.defectsAtScoreLevel).toMatchObject({ count: 6, of: 8 });
		expect(low.severity.sexual.defectsAtScoreLevel).toMatchObject({ count: 2, of: 8 });
	});

	it('merging batches gives the single-pass figures, in any order', async () => {
		const rows = await scored(ROWS);
		const whole = finalizeAggregate(aggregatePartial(rows), { bootstrapResamples: 0 });
		const a = aggregatePartial(rows.slice(0, 3));
		const b = aggregatePartial(rows.slice(3, 6));
		const c = aggregatePartial(rows.slice(6));
		for (const merged of [mergePartials(a, b, c), mergePartials(c, a, b)]) {
			const s = finalizeAggregate(merged, { bootstrapResamples: 0 });
			expect(s.severity).toEqual(whole.severity);
		}
	});
});
