import { metricRegistry, retrievalMetrics, validateMetricRegistry } from '../../../src/metrics';
import { rougeMetric } from '../../../src/metrics/rouge';
import { sacreBleuMetric } from '../../../src/metrics/sacrebleu';
import { toolCallsMetric } from '../../../src/metrics/toolcalls';
import type { MetricDecl } from '../../../src/core/types';

// The text metrics; the retrieval metrics read doc_uri lists and Tool Calls reads tool calls,
// and both have tests of their own.
const textMetrics = metricRegistry.filter(
	(m) => !retrievalMetrics.includes(m) && m !== toolCallsMetric,
);

describe('metric registry', () => {
	it('lists the traditional metrics once each, then the retrieval metrics, then Tool Calls', () => {
		expect(metricRegistry.map((m) => m.id)).toEqual([
			'f1_score',
			'bleu',
			'gleu',
			'meteor',
			'rouge',
			'sacrebleu',
			'document_recall',
			'precision_at_k',
			'recall_at_k',
			'hit_rate_at_k',
			'mrr',
			'ndcg_at_k',
			'tool_call_match',
		]);
	});

	it('maps response and ground truth to record fields', () => {
		for (const m of textMetrics) {
			const fields = Object.fromEntries(m.inputs.map((i) => [i.name, i.field]));
			expect(fields).toEqual({ response: 'response', groundTruth: 'expected_response' });
		}
	});

	it('refuses duplicate ids and inputs without a field', () => {
		const base = metricRegistry[0];
		expect(() => validateMetricRegistry([base, base])).toThrow(/duplicate metric id/);
		const noField: MetricDecl = {
			...base,
			id: 'x',
			inputs: [{ ...base.inputs[0], field: '' }],
		};
		expect(() => validateMetricRegistry([noField])).toThrow(/has no field/);
	});

	it('computes through the declarations, with stats for the BLEU flavours', () => {
		const inputs = { response: 'The cat sat on the mat.', groundTruth: 'A cat sat on the mat.' };
		for (const m of textMetrics.filter((x) => x.id !== 'meteor')) {
			const r = m.compute(inputs, {});
			expect(Number.isFinite(r.value)).toBe(true);
			expect(r.value).toBeGreaterThan(0);
			if (m.id === 'bleu' || m.id === 'sacrebleu') expect(r.stats).toBeDefined();
		}
		expect(() => metricRegistry[0].compute({ response: 3, groundTruth: 'x' }, {})).toThrow(
			/response must be a string/,
		);
	});

	it('sacreBLEU is on 0-100 with a default threshold of 50', () => {
		expect(sacreBleuMetric.scale).toMatchObject({ min: 0, max: 100 });
		expect(sacreBleuMetric.threshold.default).toBe(50);
	});
});

describe('ROUGE declaration', () => {
	const inputs = { response: 'the cat sat', groundTruth: 'the cat sat on the mat' };

	it('keys the score by type and reports precision, recall and F', () => {
		expect(rougeMetric.scoreKey!({ rougeType: 'rouge2' })).toBe('rouge2');
		expect(rougeMetric.scoreKey!({})).toBe('rougeL');
		const r = rougeMetric.compute(inputs, { rougeType: 'rouge1' });
		expect(r.details).toEqual({ precision: 1, recall: 0.5, fmeasure: 2 / 3 });
		expect(r.value).toBe(2 / 3);
	});

	it('passes only when precision, recall and F all reach their thresholds', () => {
		const params = { rougeType: 'rouge1', precisionThreshold: 0.5, recallThreshold: 0.5 };
		const r = rougeMetric.compute(inputs, params);
		expect(rougeMetric.passes!(r, params, 0.5)).toBe(true);
		expect(rougeMetric.passes!(r, { ...params, recallThreshold: 0.6 }, 0.5)).toBe(false);
		expect(rougeMetric.passes!(r, params, 0.7)).toBe(false);
	});

	it('rejects an unknown type parameter', () => {
		expect(() => rougeMetric.compute(inputs, { rougeType: 'rougeX' })).toThrow(TypeError);
	});
});
