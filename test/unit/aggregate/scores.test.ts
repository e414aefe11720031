// Issue 44 items 2 and 4: the summary names every metric under `scores` (by its eval key), with
// the exact figure and a rounded one beside it and the rows behind it; a run where no row got a
// verdict says "nothing judged" and carries no pass rate (never 0).
import type { Scale, Score } from '../../../src/core/types';
import { aggregate, summaryNotice } from '../../../src/aggregate';

const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };
const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };

const rating = (value: number): Score => ({
	metric: 'groundedness',
	value,
	scale: LIKERT,
	threshold: 3,
	direction: 'higher',
	pass: value >= 3,
	status: 'ok',
	signature: 'g',
});
const verdict = (value: boolean): Score => ({
	metric: 'relevance_to_query',
	value,
	scale: BINARY,
	pass: value,
	status: 'ok',
	signature: 'r',
});
const notScored = (metric: string, scale: Scale): Score => ({
	metric,
	value: null,
	scale,
	pass: null,
	status: 'not_applicable',
	reason: 'no judge model configured',
	signature: metric,
});

describe('scores: every metric by its eval key, exact and rounded', () => {
	const rows = [
		{ request_id: 'a', eval: { groundedness: rating(5), relevance_to_query: verdict(true) } },
		{ request_id: 'b', eval: { groundedness: rating(4), relevance_to_query: verdict(true) } },
		{ request_id: 'c', eval: { groundedness: rating(2), relevance_to_query: verdict(false) } },
	];
	const s = aggregate(rows, { bootstrapResamples: 0 });

	it('a 1-5 judge reads by its mean, with the pass rate beside it', () => {
		expect(s.scores.groundedness).toEqual({
			figure: 'mean',
			value: 11 / 3,
			display: '3.667',
			passRate: 2 / 3,
			passRateDisplay: '66.7%',
			measured: 3,
			notApplicable: 0,
			errored: 0,
			absent: 0,
			coverage: '3 of 3 rows scored',
			line: 'mean 3.667 on 1-5, 66.7% pass (2 passed of 3 scored) — 3 of 3 rows scored',
			scale: LIKERT,
			direction: 'higher',
		});
	});

	it('a yes/no judge reads by its pass rate', () => {
		expect(s.scores.relevance_to_query).toMatchObject({
			figure: 'pass rate',
			value: 2 / 3,
			display: '66.7%',
			line: 'pass rate 66.7% (2 passed of 3 scored) — 3 of 3 rows scored',
		});
		expect(s.scores.relevance_to_query).not.toHaveProperty('passRate');
	});

	it('the user metrics sit under one key; the run metrics stay where the gate reads them', () => {
		expect(Object.keys(s.scores)).toEqual(['groundedness', 'relevance_to_query']);
		expect(Object.keys(s.metrics).some((k) => k.startsWith('agent/'))).toBe(true);
		expect(s.perMetric.groundedness.mean.value).toBe(11 / 3);
	});

	it('a complete run has no notice', () => {
		expect(s.status).toBe('complete');
		expect(summaryNotice(s)).toBeUndefined();
	});
});

describe('nothing judged', () => {
	const rows = ['a', 'b', 'c'].map((id) => ({
		request_id: id,
		eval: {
			groundedness: notScored('groundedness', LIKERT),
			relevance_to_query: notScored('relevance_to_query', BINARY),
		},
	}));
	const s = aggregate(rows, { bootstrapResamples: 0 });

	it('no pass rate (a note instead of 0), and no figure for any metric', () => {
		expect(s.overall).toMatchObject({ pass: 0, fail: 0, incomplete: 3 });
		expect(s.overall.passRate).toEqual({ count: 0, of: 3, note: 'nothing judged' });
		expect(s.status).toBe('incomplete');
		for (const line of Object.values(s.scores)) {
			expect(line).not.toHaveProperty('value');
			expect(line.display).toBe('nothing scored');
		}
		expect(JSON.stringify(s)).not.toContain('NaN');
	});

	it('the notice says so and names each metric with its coverage', () => {
		expect(summaryNotice(s)?.split('\n')).toEqual([
			'Nothing judged: none of the 3 rows got a verdict, so the summary has no pass rate',
			'groundedness: nothing scored — 0 of 3 rows scored, 3 not applicable',
			'relevance_to_query: nothing scored — 0 of 3 rows scored, 3 not applicable',
		]);
	});

	it('one judged row is a pass rate again, and the notice says why the run is incomplete', () => {
		const one = aggregate([{ request_id: 'z', eval: { groundedness: rating(5) } }, ...rows], {
			bootstrapResamples: 0,
		});
		expect(one.overall.passRate).toMatchObject({ count: 1, of: 4, value: 0.25 });
		expect(summaryNotice(one)?.split('\n')[0]).toBe(
			'Run incomplete: 1 of 4 rows judged (25.0%; minimum 95.0%)',
		);
	});
});
