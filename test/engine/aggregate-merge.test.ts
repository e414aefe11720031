/**
 * Eval Aggregate on the real engine: partials built from batches (as sub-workflows on queue-mode
 * workers would) merge to exactly the one-pass summary; Judge Agreement measures a judge.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { runWorkflow, singleNode } from '../support/engine';

const likert = (v: number, metric: string): Score => ({
	metric,
	value: v,
	scale: { kind: 'likert', min: 1, max: 5 },
	threshold: 3,
	direction: 'higher',
	pass: v >= 3,
	status: 'ok',
	signature: `judge:${metric}@1`,
	usage: { promptTokens: 100 + v, completionTokens: 20, totalTokens: 120 + v },
	model: 'judge-model',
});
const rows: IDataObject[] = Array.from({ length: 40 }, (_, i) => ({
	request_id: `r${i}`,
	expected_response: 'x',
	latency_seconds: 0.5 + (i % 7) * 0.1,
	human_label: i % 5 === 0 ? 'no' : 'yes',
	eval: {
		groundedness: likert(1 + ((i * 7) % 5), 'groundedness') as unknown as IDataObject,
		relevance: likert(1 + ((i * 3) % 5), 'relevance') as unknown as IDataObject,
	},
}));

describe('Eval Aggregate and Judge Agreement on the real engine', () => {
	it('merges batch partials to exactly the one-pass summary', async () => {
		const agg = (output: string) => singleNode('n8n-nodes-rag-eval.evalAggregate', { output });
		const whole = await runWorkflow(agg('summary'), { startItems: rows.map((json) => ({ json })) });
		const partials: IDataObject[] = [];
		for (const batch of [rows.slice(0, 13), rows.slice(13, 29), rows.slice(29)]) {
			const r = await runWorkflow(agg('partial'), { startItems: batch.map((json) => ({ json })) });
			expect(r.output('Node')).toHaveLength(1);
			partials.push(JSON.parse(JSON.stringify(r.output('Node')[0])) as IDataObject);
		}
		const merged = await runWorkflow(agg('summary'), {
			startItems: partials.reverse().map((json) => ({ json })),
		});
		const a = whole.output('Node')[0];
		const b = merged.output('Node')[0];
		expect(JSON.stringify(b)).toBe(JSON.stringify(a));
		expect(a.rows).toBe(40);
		expect(JSON.stringify(a)).not.toMatch(/NaN|null/);
		expect(whole.items('Node')[0].pairedItem).toHaveLength(40);
	});

	it('measures agreement of a judge with human labels', async () => {
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.judgeAgreement', {
				judge: 'groundedness',
				humanLabel: '={{ $json.human_label }}',
			}),
			{
				startItems: rows.map((json) => ({ json })),
			},
		);
		expect(r.nodeError('Node')).toBeUndefined();
		const [res] = r.output('Node');
		expect(res.n).toBe(40);
		// By construction, per block of five rows (i % 5 = 0..4): the judge scores 1, 3, 5, 2, 4
		// (pass from 3) and the human says no, yes, yes, yes, yes. So per block: one true negative,
		// three true positives and one false negative (i % 5 = 3); never a false positive.
		expect(res.scale).toBe('binary');
		expect(res.confusion).toEqual({
			truePositive: 24,
			falsePositive: 0,
			falseNegative: 8,
			trueNegative: 8,
		});
		// Cohen's kappa by hand: observed 32/40 = 0.8; expected 0.6 * 0.8 + 0.4 * 0.2 = 0.56.
		const kappa = res.kappa as { kappa: number; observedAgreement: number };
		expect(kappa.observedAgreement).toBeCloseTo(0.8, 12);
		expect(kappa.kappa).toBeCloseTo((0.8 - 0.56) / (1 - 0.56), 12);
		// Below the default 0.6 gate: not fit, and the eight disagreeing rows are named.
		expect(res.fitness).toMatchObject({ verdict: 'not_fit', fit: false });
		expect((res.disagreements as { requestId: string }[]).map((d) => d.requestId)).toEqual(
			[3, 8, 13, 18, 23, 28, 33, 38].map((i) => `r${i}`),
		);
	});
});
