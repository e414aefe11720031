/**
 * Eval Aggregate on the real engine: partials built from batches (as sub-workflows on queue-mode
 * workers would) merge to exactly the one-pass summary; Judge Agreement measures a judge.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { runWorkflow, type WorkflowJson } from '../support/engine';

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

function one(type: string, parameters: INodeParameters): WorkflowJson {
	return {
		nodes: [
			{
				id: 's',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{ id: 'n', name: 'Node', type, typeVersion: 1, position: [200, 0], parameters },
		],
		connections: { Start: { main: [[{ node: 'Node', type: 'main', index: 0 }]] } },
	};
}

describe('Eval Aggregate and Judge Agreement on the real engine', () => {
	it('merges batch partials to exactly the one-pass summary', async () => {
		const agg = (output: string) => one('n8n-nodes-rag-eval.evalAggregate', { output });
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
			one('n8n-nodes-rag-eval.judgeAgreement', {
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
		const confusion = res.confusion as Record<string, number>;
		const total = Object.values(confusion).reduce((s, v) => s + (typeof v === 'number' ? v : 0), 0);
		expect(total).toBeGreaterThanOrEqual(40);
		expect(res.fitness).toBeDefined();
		expect(Array.isArray(res.disagreements)).toBe(true);
	});
});
