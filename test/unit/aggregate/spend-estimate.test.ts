/**
 * Eval Aggregate, Regression Gate and Eval Report on spend-limited and estimate-only runs: rows
 * stopped by a spend limit are counted and make the run INCOMPLETE even above the coverage
 * minimum; estimates are summed and priced from the price table; partials merge exactly.
 */
import {
	aggregatePartial,
	finalizeAggregate,
	mergePartials,
	type AggregateSummary,
} from '../../../src/aggregate';
import type { Score } from '../../../src/core/types';
import { DEFAULT_PRICES } from '../../../src/cost';
import { compareRuns } from '../../../src/gate';
import { markdownReport, runVerdict, slackMessage } from '../../../src/report';

function score(ok: boolean, extra: Partial<Score> = {}): Score {
	return {
		metric: 'groundedness',
		value: ok ? 5 : null,
		pass: ok ? true : null,
		status: ok ? 'ok' : 'error',
		scale: { kind: 'likert', min: 1, max: 5 },
		threshold: 3,
		direction: 'higher',
		signature: 'judge:groundedness@1|model:gpt-4o-mini|temp:0|prompt:abc',
		...extra,
	};
}

// 40 rows, the last 1 stopped by the spend limit: coverage 39/40 = 97.5% is above the 95% minimum.
const rows = Array.from({ length: 40 }, (_, i) => ({
	request_id: `r${String(i + 1).padStart(2, '0')}`,
	eval: {
		groundedness:
			i < 39
				? score(true)
				: score(false, {
						error: `row ${i + 1}: Groundedness: spend limit reached: 3000 tokens of 3200 tokens spent`,
						details: { errorKind: 'spend_limit' },
					}),
	},
}));

describe('spend-limited runs', () => {
	const summary = finalizeAggregate(aggregatePartial(rows), { prices: { ...DEFAULT_PRICES } });

	it('are counted and INCOMPLETE even when coverage is above its minimum', () => {
		expect(summary.coverage.share).toBeGreaterThan(summary.coverage.minimum);
		expect(summary.spendLimit).toEqual({ stopped: 1, share: 1 / 40, examples: ['r40'] });
		expect(summary.status).toBe('incomplete');
		expect(summary.overall.incomplete).toBe(1);
	});

	it('merge exactly across partials, and runs without stops carry no spendLimit field', () => {
		const merged = finalizeAggregate(
			mergePartials(aggregatePartial(rows.slice(0, 20)), aggregatePartial(rows.slice(20))),
			{ prices: { ...DEFAULT_PRICES } },
		);
		expect(merged).toEqual(summary);
		const clean = finalizeAggregate(aggregatePartial(rows.slice(0, 39)));
		expect(clean.spendLimit).toBeUndefined();
		expect(clean.status).toBe('complete');
	});

	it('are never green in the gate or the report, which names the spend limit', () => {
		const baseline = finalizeAggregate(aggregatePartial(rows.slice(0, 39)));
		const gate = compareRuns(summary, baseline);
		expect(gate.status).toBe('incomplete');
		expect(runVerdict({ summary })).toBe('INCOMPLETE');
		const md = markdownReport({ summary, rows, gate });
		expect(md).toMatch(/INCOMPLETE/);
		expect(md).toMatch(/Spend limit reached: 1 row was not judged .*\(e\.g\. r40\)/);
		const slack = JSON.stringify(slackMessage({ summary }));
		expect(slack).toMatch(/Spend limit reached: 1 row/);
	});
});

describe('estimate-only runs', () => {
	const estimate = (calls: number, prompt: number, completion: number) => ({
		status: 'estimated',
		model: 'gpt-4o-mini',
		calls,
		promptTokens: prompt,
		completionTokens: completion,
		totalTokens: prompt + completion,
	});
	const est = [
		{
			request_id: 'a',
			estimate: { groundedness: estimate(1, 1000, 300), coherence: estimate(1, 500, 300) },
		},
		{ request_id: 'b', estimate: { groundedness: estimate(1, 2000, 300) } },
		{
			request_id: 'c',
			estimate: { groundedness: { ...estimate(0, 0, 0), status: 'not_applicable' } },
		},
	];

	it('sums the estimates by model and by key and prices them from the table', () => {
		const s: AggregateSummary = finalizeAggregate(aggregatePartial(est), {
			prices: { ...DEFAULT_PRICES },
		});
		expect(s.estimate).toMatchObject({
			rows: 3,
			calls: 3,
			promptTokens: 3500,
			completionTokens: 900,
			totalTokens: 4400,
			byKey: {
				coherence: { calls: 1, promptTokens: 500, completionTokens: 300, totalTokens: 800 },
				groundedness: { calls: 2, promptTokens: 3000, completionTokens: 600, totalTokens: 3600 },
			},
		});
		// gpt-4o-mini: $0.15 / 1M input, $0.60 / 1M output.
		expect(s.estimate?.usd).toBeCloseTo((3500 * 0.15 + 900 * 0.6) / 1e6, 15);
		// Nothing was judged: the run is not complete, and no judge cost is claimed.
		expect(s.status).toBe('incomplete');
		expect(s.overall.pass).toBe(0);
		expect(s.cost.calls).toBe(0);
		const md = markdownReport({ summary: s });
		expect(md).toMatch(
			/Estimate only: 3 rows would take 3 judge calls and 4400 tokens \(3500 prompt \+ 900 completion\), about \$0\.0011\. Nothing was judged\./,
		);
	});

	it('says when the model has no price', () => {
		const s = finalizeAggregate(aggregatePartial(est), { prices: {} });
		expect(s.estimate?.usd).toBeUndefined();
		expect(s.estimate?.unpricedModels).toEqual(['gpt-4o-mini']);
		expect(markdownReport({ summary: s })).toMatch(/USD unknown \(no price for gpt-4o-mini\)/);
	});
});
