/**
 * Issue 10.6 on the real engine: a judge model that is down for 10 of 19 rows. Eval Aggregate's
 * pass rate is over all 19 rows (not 9/9) with the incomplete rows beside it, the run is
 * `incomplete`, Regression Gate leaves on its third output (Incomplete) and Eval Report's
 * headline says INCOMPLETE with the count and the first errors: no green message.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { runWorkflow, type WorkflowJson } from '../support/engine';
import { faults, startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const ROWS = Array.from({ length: 19 }, (_, i) => ({
	request_id: `q${String(i + 1).padStart(2, '0')}`,
	request: `question ${i + 1}${i % 2 === 0 && i < 20 ? ' [down]' : ''}`,
	response: `answer ${i + 1}`,
	retrieved_context: [{ content: `context ${i + 1}` }],
}));
// Rows 1, 3, ..., 19 carry the marker: 10 of 19.
const DOWN = ROWS.filter((r) => r.request.includes('[down]')).map((r) => r.request_id);

function node(
	name: string,
	type: string,
	parameters: INodeParameters = {},
	extra: Partial<INode> = {},
): INode {
	return { id: name, name, type, typeVersion: 1, position: [0, 0], parameters, ...extra };
}

function workflow(minCoverage?: number): WorkflowJson {
	const opt = minCoverage === undefined ? {} : { minCoverage };
	return {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger'),
			node('Eval Dataset', 'n8n-nodes-rag-eval.evalDataset', { source: 'items' }),
			node(
				'Groundedness',
				'n8n-nodes-rag-eval.judgeGroundedness',
				{ threshold: 3, options: { concurrency: 1, maxRetries: 0 } },
				{ credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } } },
			),
			node('Eval Aggregate', 'n8n-nodes-rag-eval.evalAggregate', {
				output: 'summary',
				options: { bootstrapResamples: 0, ...opt },
			}),
			node('Regression Gate', 'n8n-nodes-rag-eval.regressionGate', {
				current: '={{ $json }}',
				baseline: '',
				defaultTolerance: 0.02,
				options: { ...opt },
			}),
			node('OK', 'n8n-nodes-base.noOp'),
			node('Regressed', 'n8n-nodes-base.noOp'),
			node('Eval Report', 'n8n-nodes-rag-eval.evalReport', {
				title: 'Nightly',
				formats: ['slack', 'markdown'],
				options: {
					rows: "={{ $('Groundedness').all().map((i) => i.json) }}",
					runUrl: 'https://n8n.example.com/workflow/1/executions/42',
				},
			}),
		],
		connections: {
			Start: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
			'Eval Dataset': { main: [[{ node: 'Groundedness', type: 'main', index: 0 }]] },
			Groundedness: { main: [[{ node: 'Eval Aggregate', type: 'main', index: 0 }]] },
			'Eval Aggregate': { main: [[{ node: 'Regression Gate', type: 'main', index: 0 }]] },
			'Regression Gate': {
				main: [
					[{ node: 'OK', type: 'main', index: 0 }],
					[{ node: 'Regressed', type: 'main', index: 0 }],
					[{ node: 'Eval Report', type: 'main', index: 0 }],
				],
			},
		},
	};
}

describe('a judge model down for 10 of 19 rows, on the real engine', () => {
	let server: OpenAIServer;
	const credentials = () => ({
		ragEvalLlmApi: {
			provider: 'compatible',
			baseUrl: server.baseUrl,
			apiKey: 'sk-test-coverage-0000000000',
			model: 'judge-model',
		},
	});
	const start = { startItems: ROWS.map((json) => ({ json })) };
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault((req) =>
			JSON.stringify(req.messages).includes('[down]')
				? faults.unavailable()
				: { json: { reason: 'Every claim is in the context.', score: 5 } },
		);
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('aggregate: pass rate 9 of 19 with 10 incomplete beside it; gate: Incomplete; report: INCOMPLETE', async () => {
		const r = await runWorkflow(workflow(), { ...start, credentials: credentials() });
		const judged = r.output('Groundedness');
		expect(judged).toHaveLength(19);
		const errored = judged.filter(
			(x) => (x.eval as Record<string, Score>).groundedness.status === 'error',
		);
		expect(errored.map((x) => x.request_id)).toEqual(DOWN);
		expect(DOWN).toHaveLength(10);

		const [summary] = r.output('Eval Aggregate');
		expect(summary.overall).toMatchObject({
			pass: 9,
			fail: 0,
			incomplete: 10,
			passRate: { count: 9, of: 19, value: 9 / 19 },
			judgedPassRate: { count: 9, of: 9, value: 1 },
		});
		expect(summary.coverage).toEqual({
			judged: 9,
			of: 19,
			share: 9 / 19,
			minimum: 0.95,
			basis: 'verdicts',
		});
		expect(summary.status).toBe('incomplete');

		// Output indexes never move: OK 0, Regressed 1, Incomplete 2.
		expect(r.output('Regression Gate', 0)).toEqual([]);
		expect(r.output('Regression Gate', 1)).toEqual([]);
		const [gated] = r.output('Regression Gate', 2);
		expect(gated).toMatchObject({ status: 'incomplete', incomplete: true, regressed: false });
		expect(r.executedNodes()).not.toContain('OK');

		const [report] = r.output('Eval Report');
		const slack = report.slack as { text: string; blocks: { text?: { text: string } }[] };
		expect(slack.text).toMatch(
			/^Nightly — 19 rows: INCOMPLETE \(10 of 19 rows not judged\) — first error: q01 groundedness: /,
		);
		const body = JSON.stringify(slack.blocks);
		expect(body).toContain('10 of 19 rows could not be judged (coverage 47.4%, minimum 95.0%)');
		expect(body).toContain('*First errors*');
		expect(body).toMatch(/q01 groundedness: row 1/);
		expect(body).not.toContain('large_green_circle');
		expect(String(report.markdown).split('\n')[0]).toBe(
			'# Nightly — 19 rows: INCOMPLETE (10 of 19 rows not judged)',
		);
		expect(report.verdict).toBe('INCOMPLETE');
	});

	it('Minimum Coverage on both nodes: at 40% the same run is complete and the gate says OK', async () => {
		const r = await runWorkflow(workflow(40), { ...start, credentials: credentials() });
		const [summary] = r.output('Eval Aggregate');
		expect(summary.status).toBe('complete');
		expect(summary.coverage).toMatchObject({ minimum: 0.4 });
		expect(r.output('Regression Gate', 0)).toHaveLength(1);
		expect(r.output('Regression Gate', 2)).toEqual([]);
		expect(r.executedNodes()).not.toContain('Eval Report');
	});

	it('a Minimum Coverage outside 0-100 fails the node with a remedy', async () => {
		const r = await runWorkflow(workflow(150), { ...start, credentials: credentials() });
		expect(r.nodeError('Eval Aggregate')).toMatch(
			/Minimum Coverage must be a percentage from 0 to 100, got 150/,
		);
	});
});
