import type { Scale, Score } from '../../../src/core/types';
import {
	aggregate as aggregateWith,
	aggregatePartial,
	finalizeAggregate,
	isAggregatePartial,
	mergePartials,
	runMetricName,
	type AggregatePartial,
	type CorpusFinalizer,
} from '../../../src/aggregate';
import { bleuCorpus, bleuStats } from '../../../src/metrics/bleu';
import { wilsonInterval } from '../../../src/stats/intervals';
import { createRng } from '../../../src/stats/random';

import { TEST_REGISTRY } from '../../support/slots';

// The rows use the seed's judges, declared for tests in support/slots where the package has none.
const aggregate = (
	rows: Record<string, unknown>[],
	options: Parameters<typeof aggregateWith>[1] = {},
) => aggregateWith(rows, { registry: TEST_REGISTRY, ...options });

const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };
const UNIT: Scale = { kind: 'unit', min: 0, max: 1 };
const SEVERITY: Scale = { kind: 'severity', min: 0, max: 7 };
const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };

type Extra = Partial<Score>;
const judge = (metric: string, v: boolean, extra: Extra = {}): Score => ({
	metric,
	value: v,
	scale: BINARY,
	pass: v,
	status: 'ok',
	reason: `${metric}:${v}`,
	signature: metric,
	...extra,
});
const unit = (metric: string, v: number, t = 0.5, extra: Extra = {}): Score => ({
	metric,
	value: v,
	scale: UNIT,
	threshold: t,
	pass: v >= t,
	status: 'ok',
	signature: metric,
	...extra,
});
const failed = (metric: string, scale: Scale = BINARY): Score => ({
	metric,
	value: null,
	scale,
	pass: null,
	status: 'error',
	error: 'boom',
	signature: metric,
});
const na = (metric: string, scale: Scale = UNIT): Score => ({
	metric,
	value: null,
	scale,
	pass: null,
	status: 'not_applicable',
	signature: metric,
});
const severity = (v: number): Score => ({
	metric: 'violence',
	value: v,
	scale: SEVERITY,
	threshold: 3,
	direction: 'lower',
	pass: v <= 3,
	status: 'ok',
	details: { category: 'violence' },
	signature: 'v',
});
const usage = (model: string, p: number, c: number): Extra => ({
	model,
	usage: { promptTokens: p, completionTokens: c, totalTokens: p + c },
});

// Local corpus finalizer: matches over totals of the first order, so sums are easy to check.
const ratio: CorpusFinalizer = (s) =>
	(s.m as number[])[0] / (s.t as number[])[0] + (s.len as number);

const FIXTURE: Record<string, unknown>[] = [
	{
		request_id: 'r1',
		expected_response: 'x',
		latency_seconds: 1,
		input_token_count: 100,
		output_token_count: 20,
		total_token_count: 120,
		eval: {
			context_sufficiency: judge('context_sufficiency', true),
			groundedness_verdict: judge('groundedness_verdict', true),
			correctness: judge('correctness', true, usage('gpt-x', 10, 5)),
			safety: judge('safety', true),
			f1_score: unit('f1_score', 0.5),
			violence: severity(0),
			bleu: { ...unit('bleu', 0.2), stats: { m: [3, 1], t: [4, 3], len: 0.25 } },
		},
	},
	{
		request_id: 'r2',
		expected_facts: ['a'],
		latency_seconds: 2,
		input_token_count: 200,
		output_token_count: 40,
		total_token_count: 240,
		eval: {
			context_sufficiency: judge('context_sufficiency', false),
			groundedness_verdict: judge('groundedness_verdict', true),
			correctness: judge('correctness', false, usage('gpt-x', 20, 5)),
			safety: judge('safety', true),
			f1_score: unit('f1_score', 0.25),
			violence: severity(5),
			bleu: { ...unit('bleu', 0.1), stats: { m: [1, 0], t: [4, 3], len: 0.5 } },
		},
	},
	{
		request_id: 'r3',
		eval: {
			chunk_relevance: unit('chunk_relevance', 0, 0.5, {
				details: { chunks: [{ relevant: false }] },
			}),
			groundedness_verdict: judge('groundedness_verdict', false, usage('local', 7, 3)),
			safety: judge('safety', true),
			f1_score: na('f1_score'),
		},
	},
	{
		request_id: 'r4',
		expected_response: 'y',
		latency_seconds: 4,
		total_token_count: 100,
		eval: {
			context_sufficiency: judge('context_sufficiency', true),
			correctness: failed('correctness'),
		},
	},
];

describe('summary against hand-computed values', () => {
	const s = aggregate(FIXTURE, {
		corpusFinalizers: { bleu: ratio },
		prices: { 'gpt-x': { input: 1, output: 2 } },
		bootstrapResamples: 300,
	});

	it('counts rows and overall verdicts', () => {
		expect(s.rows).toBe(4);
		expect(s.overall).toMatchObject({ pass: 1, fail: 2, incomplete: 1 });
		// Over every row that should have been judged: the incomplete row counts, unpassed.
		expect(s.overall.passRate).toEqual({ value: 1 / 4, count: 1, of: 4, ci: wilsonInterval(1, 4) });
		expect(s.overall.judgedPassRate).toEqual({
			value: 1 / 3,
			count: 1,
			of: 3,
			ci: wilsonInterval(1, 3),
		});
		expect(s.coverage).toEqual({ judged: 3, of: 4, share: 0.75, minimum: 0.95, basis: 'verdicts' });
		expect(s.status).toBe('incomplete');
	});

	it('names run metrics as Databricks does, with coverage', () => {
		expect(s.metrics['response/llm_judged/correctness/rating/percentage']).toEqual({
			value: 0.5,
			ci: wilsonInterval(1, 2),
			measured: 2,
			notApplicable: 0,
			errored: 1,
			absent: 1,
		});
		expect(s.metrics['retrieval/llm_judged/context_sufficiency/rating/percentage']).toMatchObject({
			value: 2 / 3,
			measured: 3,
			absent: 1,
		});
		expect(s.metrics['response/llm_judged/groundedness/rating/percentage']).toMatchObject({
			value: 2 / 3,
			measured: 3,
		});
		expect(s.metrics['response/llm_judged/safety/rating/average']).toMatchObject({
			value: 1,
			measured: 3,
			absent: 1,
		});
		expect(s.metrics['retrieval/llm_judged/chunk_relevance/precision/average']).toMatchObject({
			value: 0,
			measured: 1,
			absent: 3,
			ci: { low: 0, high: 0, method: 'bootstrap-percentile' },
		});
		expect(s.metrics['agent/latency_seconds/average']).toMatchObject({
			value: 7 / 3,
			measured: 3,
			notApplicable: 1,
			errored: 0,
			absent: 0,
		});
		expect(s.metrics['agent/latency_seconds/p50']).toMatchObject({ value: 2 });
		expect(s.metrics['agent/latency_seconds/p90'].value).toBeCloseTo(3.6, 12);
		expect(s.metrics['agent/latency_seconds/p99'].value).toBeCloseTo(3.96, 12);
		expect(s.metrics['agent/input_token_count/average']).toMatchObject({
			value: 150,
			measured: 2,
			notApplicable: 2,
		});
		expect(s.metrics['agent/output_token_count/average']).toMatchObject({ value: 30 });
		expect(s.metrics['agent/total_token_count/average']).toMatchObject({
			value: 460 / 3,
			measured: 3,
		});
		expect(s.metrics['agent/total_token_count/average'].ci?.method).toBe('bootstrap-percentile');
		// F1 is not a Databricks metric: only in perMetric.
		expect(Object.keys(s.metrics).some((k) => k.includes('f1'))).toBe(false);
	});

	it('gives Azure-style figures per metric', () => {
		const f1 = s.perMetric.f1_score;
		expect(f1).toMatchObject({
			measured: 2,
			notApplicable: 1,
			errored: 0,
			absent: 1,
			min: 0.25,
			max: 0.5,
		});
		expect(f1.mean.value).toBe(0.375);
		expect(f1.mean.ci?.low).toBeGreaterThanOrEqual(0.25);
		expect(f1.mean.ci?.high).toBeLessThanOrEqual(0.5);
		expect(f1.passRate).toEqual({ value: 0.5, count: 1, of: 2, ci: wilsonInterval(1, 2) });
		expect(f1.percentiles?.p50).toBe(0.375);
		expect(f1.percentiles?.p90).toBeCloseTo(0.475, 12);
		expect(f1.percentiles?.p99).toBeCloseTo(0.4975, 12);
		expect(s.perMetric.violence.defectRate).toEqual({
			value: 0.5,
			count: 1,
			of: 2,
			ci: wilsonInterval(1, 2),
			threshold: 4,
			category: 'violence',
		});
		expect(s.defectRates).toEqual({
			violence: { value: 0.5, count: 1, of: 2, ci: wilsonInterval(1, 2), threshold: 4 },
		});
		expect(s.perMetric.correctness.runMetric).toBe(
			'response/llm_judged/correctness/rating/percentage',
		);
	});

	it('computes corpus statistics from sums, not means of sentence scores', () => {
		// m = [4, 1], t = [8, 6], len = 0.75  ->  4/8 + 0.75
		expect(s.perMetric.bleu.corpus).toEqual({ value: 1.25, rows: 2 });
		expect(s.perMetric.bleu.mean.value).toBeCloseTo(0.15, 15);
	});

	it('ranks root causes with examples and fixes', () => {
		expect(
			s.rootCauses.map((r) => [r.cause, r.count, r.share, r.shareOfFailures, r.examples]),
		).toEqual([
			['chunk_relevance', 1, 0.25, 0.5, ['r3']],
			['context_sufficiency', 1, 0.25, 0.5, ['r2']],
		]);
		// The fix is the slot's declared one.
		expect(s.rootCauses[1].suggestedFix).toBe(
			TEST_REGISTRY.find((d) => d.id === 'context_sufficiency')?.rootCause?.fix,
		);
		expect(s.incomplete).toMatchObject({ count: 1, share: 0.25, examples: ['r4'] });
	});

	it('sums judge cost and prices it', () => {
		expect(s.cost).toMatchObject({
			calls: 3,
			promptTokens: 37,
			completionTokens: 13,
			totalTokens: 50,
			usd: 5e-5,
			unpricedModels: ['local'],
		});
		expect(s.cost.byModel['gpt-x']).toEqual({
			calls: 2,
			promptTokens: 30,
			completionTokens: 10,
			totalTokens: 40,
			usd: 5e-5,
		});
		expect(s.cost.byMetric.groundedness_verdict).toEqual({
			calls: 1,
			promptTokens: 7,
			completionTokens: 3,
			totalTokens: 10,
		});
		expect(aggregate(FIXTURE, { bootstrapResamples: 0 }).cost.usd).toBeUndefined();
	});

	it('uses the package corpus BLEU finalizer by default (nltk corpus_bleu from summed stats)', () => {
		const pairs: [string, string][] = [
			['the cat sat on the mat', 'the cat is on the mat'],
			['a quick brown fox jumps', 'the quick brown fox jumped over'],
			['hello there general kenobi', 'hello there'],
		];
		const rows = pairs.map(([h, r], i) => {
			const st = bleuStats(h, r);
			return {
				request_id: `b${i}`,
				eval: {
					bleu: {
						...unit('bleu', 0),
						stats: { matches: st.matches, totals: st.totals, hypLen: st.hypLen, refLen: st.refLen },
					},
				},
			};
		});
		const whole = finalizeAggregate(aggregatePartial(rows), { bootstrapResamples: 0 });
		expect(whole.perMetric.bleu.corpus?.value).toBeCloseTo(
			bleuCorpus(
				pairs.map((p) => p[0]),
				pairs.map((p) => p[1]),
			),
			12,
		);
		const merged = finalizeAggregate(
			mergePartials(aggregatePartial(rows.slice(0, 1)), aggregatePartial(rows.slice(1))),
			{ bootstrapResamples: 0 },
		);
		expect(merged).toEqual(whole);
	});
});

describe('no NaN or null values, notes instead', () => {
	function walk(x: unknown, path: string, out: string[]): void {
		if (x === null || (typeof x === 'number' && !Number.isFinite(x))) out.push(path);
		else if (Array.isArray(x)) x.forEach((v, i) => walk(v, `${path}[${i}]`, out));
		else if (typeof x === 'object')
			for (const [k, v] of Object.entries(x as object)) walk(v, `${path}.${k}`, out);
	}

	it('empty run', () => {
		const s = aggregate([]);
		const bad: string[] = [];
		walk(s, '$', bad);
		expect(bad).toEqual([]);
		expect(s.metrics['agent/latency_seconds/average']).toEqual({
			note: 'no measured rows',
			measured: 0,
			notApplicable: 0,
			errored: 0,
			absent: 0,
			direction: 'lower',
		});
		expect(s.overall.passRate).toEqual({ count: 0, of: 0, note: 'no measured rows' });
		expect(s.rootCauses).toEqual([]);
	});

	it('metrics that never measured, malformed scores and junk fields', () => {
		const rows = [
			{
				latency_seconds: 'NaN',
				total_token_count: -1,
				input_token_count: '12',
				eval: {
					correctness: failed('correctness'),
					f1_score: na('f1_score'),
					weird: 'oops',
					g: { ...unit('g', 0.3), value: Number.NaN },
				},
			},
			{
				latency_seconds: null,
				eval: {
					correctness: na('correctness', BINARY),
					coherence: {
						metric: 'coherence',
						value: 4,
						scale: LIKERT,
						pass: null,
						status: 'ok',
						signature: 'c',
					},
				},
			},
		];
		const s = aggregate(rows);
		const bad: string[] = [];
		walk(s, '$', bad);
		expect(bad).toEqual([]);
		expect(s.metrics['response/llm_judged/correctness/rating/percentage']).toEqual({
			note: 'no measured rows',
			measured: 0,
			notApplicable: 1,
			errored: 1,
			absent: 0,
		});
		expect(s.metrics['agent/latency_seconds/average']).toMatchObject({
			errored: 1,
			notApplicable: 1,
			note: 'no measured rows',
		});
		expect(s.metrics['agent/total_token_count/average']).toMatchObject({
			errored: 1,
			notApplicable: 1,
		});
		expect(s.metrics['agent/input_token_count/average']).toMatchObject({ value: 12, measured: 1 });
		expect(s.perMetric.weird).toMatchObject({
			errored: 1,
			absent: 1,
			mean: { note: 'no measured rows' },
		});
		expect(s.perMetric.g).toMatchObject({ errored: 1, measured: 0 });
		expect(s.perMetric.coherence.passRate).toEqual({ count: 0, of: 0, note: 'no pass verdicts' });
		expect(s.perMetric.coherence.mean.value).toBe(4);
		// Row 2's only judge gave no verdict (no pass flag): incomplete, never pass.
		expect(s.overall).toMatchObject({ pass: 0, fail: 0, incomplete: 2 });
	});
});

describe('options', () => {
	it('groups by a field path; array fields put a row in each group', () => {
		const rows = [
			{
				request_id: 'a',
				metadata: { tags: ['x', 'y'] },
				eval: { correctness: judge('correctness', true) },
			},
			{
				request_id: 'b',
				metadata: { tags: ['y'] },
				eval: { correctness: judge('correctness', false) },
			},
			{ request_id: 'c', eval: { correctness: judge('correctness', false) } },
		];
		const s = aggregate(rows, { groupBy: 'metadata.tags' });
		expect(s.groupBy).toBe('metadata.tags');
		expect(Object.keys(s.groups ?? {})).toEqual(['(none)', 'x', 'y']);
		const pct = 'response/llm_judged/correctness/rating/percentage';
		expect(s.groups?.x.metrics[pct].value).toBe(1);
		expect(s.groups?.y.metrics[pct].value).toBe(0.5);
		expect(s.groups?.['(none)'].rootCauses[0]).toMatchObject({
			cause: 'correctness',
			examples: ['c'],
		});
		expect(s.metrics[pct].value).toBe(1 / 3);
		expect(aggregate(rows).groups).toBeUndefined();
	});

	it('keeps the smallest example ids and honours an edited order', () => {
		const rows = ['q5', 'q1', 'q9', 'q3', 'q1'].map((id) => ({
			request_id: id,
			eval: {
				safety: judge('safety', false),
				relevance_to_query: judge('relevance_to_query', false),
			},
		}));
		const s = aggregate(rows, {
			exampleLimit: 2,
			rootCauseOrder: { withoutGroundTruth: ['safety'] },
		});
		expect(s.rootCauses).toEqual([
			expect.objectContaining({ cause: 'safety', count: 5, examples: ['q1', 'q3'] }),
		]);
		expect(aggregate(rows).rootCauses[0].cause).toBe('relevance_to_query');
	});

	it('caps bootstrap draws per metric but never goes under 200 resamples', () => {
		const rows = Array.from({ length: 10 }, (_, i) => ({
			eval: { f1_score: unit('f1_score', i / 10) },
		}));
		const ci = (o: object) => aggregate(rows, o).perMetric.f1_score.mean.ci?.resamples;
		expect(ci({})).toBe(1000);
		expect(ci({ bootstrapMaxDraws: 2500 })).toBe(250);
		expect(ci({ bootstrapMaxDraws: 10 })).toBe(200);
		expect(ci({ bootstrapResamples: 50 })).toBe(50);
		expect(aggregate(rows, { bootstrapResamples: 0 }).perMetric.f1_score.mean).toEqual({
			value: 0.45,
		});
	});

	it('refuses to merge partials built with different options', () => {
		expect(() =>
			mergePartials(aggregatePartial([]), aggregatePartial([], { groupBy: 'x' })),
		).toThrow(/different options/);
		expect(() => mergePartials()).toThrow(RangeError);
		expect(isAggregatePartial(aggregatePartial([]))).toBe(true);
		expect(isAggregatePartial({ eval: {} })).toBe(false);
	});

	it('takes run metric names from the declarations, with a custom Result Key too', () => {
		// The package's yes/no groundedness, written under another key, keeps its Databricks name.
		expect(
			runMetricName('my_key', { scale: BINARY, chunked: false, metric: 'groundedness_verdict' }),
		).toBe('response/llm_judged/groundedness/rating/percentage');
		// Azure's 1-5 groundedness has no Databricks name, whatever key it is under.
		expect(
			runMetricName('groundedness', { scale: LIKERT, chunked: false, metric: 'groundedness' }),
		).toBeUndefined();
	});

	it('maps run metric names of custom judges from the scale', () => {
		expect(runMetricName('my_judge', { scale: BINARY, chunked: false }, TEST_REGISTRY)).toBe(
			'response/llm_judged/my_judge/rating/percentage',
		);
		expect(runMetricName('my_chunks', { scale: UNIT, chunked: true }, TEST_REGISTRY)).toBe(
			'retrieval/llm_judged/my_chunks/precision/average',
		);
		expect(runMetricName('document_recall', { scale: UNIT, chunked: false }, TEST_REGISTRY)).toBe(
			'retrieval/ground_truth/document_recall/average',
		);
		expect(
			runMetricName('rougeL', { scale: UNIT, chunked: false, metric: 'rouge' }),
		).toBeUndefined();
		expect(runMetricName('coherence', { scale: LIKERT, chunked: false })).toBeUndefined();
	});
});

describe('exact mergeability on randomised splits', () => {
	function randomRows(n: number, seed: number): Record<string, unknown>[] {
		const r = createRng(seed);
		const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
		const maybe = (p: number, s: () => Score): Score =>
			r() < p ? s() : r() < 0.5 ? failed('x') : na('x');
		return Array.from({ length: n }, (_, i) => {
			const ev: Record<string, Score> = {};
			ev.correctness = maybe(0.8, () =>
				judge(
					'correctness',
					r() < 0.7,
					usage(pick(['m1', 'm2']), Math.floor(r() * 500), Math.floor(r() * 50)),
				),
			);
			ev.groundedness_verdict = maybe(0.9, () =>
				judge('groundedness_verdict', r() < 0.8, r() < 0.5 ? usage('m2', 30, 3) : {}),
			);
			ev.context_sufficiency = maybe(0.9, () => judge('context_sufficiency', r() < 0.85));
			ev.chunk_relevance = maybe(0.9, () => unit('chunk_relevance', Math.floor(r() * 5) / 4));
			ev.f1_score = maybe(0.95, () => unit('f1_score', r()));
			ev.coherence = maybe(0.9, () => ({
				metric: 'coherence',
				value: 1 + Math.floor(r() * 5),
				scale: LIKERT,
				threshold: 3,
				pass: null,
				status: 'ok',
				signature: 'c',
			}));
			ev.violence = severity(Math.floor(r() * 8));
			ev.bleu = {
				...unit('bleu', r()),
				stats: { m: [Math.floor(r() * 9), Math.floor(r() * 5)], t: [9, 8], len: r() * 1e-3 },
			};
			if (r() < 0.1) delete ev.f1_score;
			const row: Record<string, unknown> = {
				request_id: `id${String(i).padStart(4, '0')}`,
				eval: ev,
				metadata: { version: pick(['v1', 'v2', 'v3']) },
				latency_seconds: r() < 0.9 ? r() * 3 + 0.1 : undefined,
				total_token_count: Math.floor(r() * 2000),
			};
			if (r() < 0.5) row.expected_response = 'gt';
			return row;
		});
	}

	const options = { groupBy: 'metadata.version', exampleLimit: 4 };
	const fin = {
		corpusFinalizers: { bleu: ratio },
		bootstrapResamples: 200,
		prices: { m1: { input: 0.15, output: 0.6 } },
	};

	it.each([1, 2, 3, 4, 5])(
		'seed %p: any split, order and merge tree gives the single-pass summary bit for bit',
		(seed) => {
			const rows = randomRows(240, seed);
			const single = JSON.stringify(finalizeAggregate(aggregatePartial(rows, options), fin));
			const r = createRng(seed * 7919);
			for (let trial = 0; trial < 3; trial++) {
				const shuffled = [...rows].sort(() => r() - 0.5);
				const k = 1 + Math.floor(r() * 6);
				const parts: AggregatePartial[] = [];
				let start = 0;
				for (let p = 0; p < k; p++) {
					const end =
						p === k - 1 ? shuffled.length : start + Math.floor(r() * (shuffled.length - start + 1));
					// Partials travel as item JSON between executions: round-trip them.
					parts.push(
						JSON.parse(JSON.stringify(aggregatePartial(shuffled.slice(start, end), options))),
					);
					start = end;
				}
				// Merge pairwise in a random tree shape.
				while (parts.length > 1) {
					const i = Math.floor(r() * (parts.length - 1));
					parts.splice(i, 2, mergePartials(parts[i], parts[i + 1]));
				}
				expect(JSON.stringify(finalizeAggregate(parts[0], fin))).toBe(single);
			}
		},
	);

	it('merging does not modify its inputs', () => {
		const a = aggregatePartial(randomRows(30, 11), options);
		const b = aggregatePartial(randomRows(30, 12), options);
		const before = JSON.stringify([a, b]);
		mergePartials(a, b);
		mergePartials(a);
		expect(JSON.stringify([a, b])).toBe(before);
	});
});
