/**
 * "Verdicts a team can trust", item 1, on the real engine: every Root-Cause Router output wired
 * into one Eval Aggregate (a natural thing to draw) makes n8n run the aggregate once per non-empty
 * output. Without run manifests the Pass run's summary said `complete`, coverage 1.0, 10/10 pass
 * and the gate let it through as OK. With them every such summary counts the rows that never
 * arrived, says `incomplete`, the gate leaves on Incomplete and the report says INCOMPLETE. The
 * same run reaching the aggregate twice (a Merge of one branch with itself) is called out too.
 */
import type { IDataObject, INode, INodeParameters, IConnections } from 'n8n-workflow';
import { routerOutputNames } from '../../src/rootcause';
import { runWorkflow, type EngineRun, type WorkflowJson } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

// 20 rows; the judge fails the ten marked [weak] (groundedness 1 of 5) and passes the rest.
const ROWS = Array.from({ length: 20 }, (_, i) => ({
	request_id: `q${String(i + 1).padStart(2, '0')}`,
	request: `question ${i + 1}${i % 2 === 1 ? ' [weak]' : ''}`,
	response: `answer ${i + 1}`,
	retrieved_context: [{ content: `context ${i + 1}` }],
}));

function node(name: string, type: string, parameters: INodeParameters = {}): INode {
	const extra: Partial<INode> =
		type === 'n8n-nodes-rag-eval.judgeGroundedness'
			? { credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } } }
			: {};
	return { id: name, name, type, typeVersion: 1, position: [0, 0], parameters, ...extra };
}

const to = (name: string, index = 0) => ({ node: name, type: 'main' as const, index });

/** Start -> Eval Dataset -> Groundedness -> `middle` -> Eval Aggregate -> Gate -> Report. */
function workflow(middle: INode[], wiring: IConnections): WorkflowJson {
	return {
		// n8n's default for new workflows.
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger'),
			node('Eval Dataset', 'n8n-nodes-rag-eval.evalDataset', { source: 'items' }),
			node('Groundedness', 'n8n-nodes-rag-eval.judgeGroundedness', {
				threshold: 3,
				options: { concurrency: 1, maxRetries: 0 },
			}),
			...middle,
			node('Eval Aggregate', 'n8n-nodes-rag-eval.evalAggregate', {
				output: 'summary',
				options: { bootstrapResamples: 0 },
			}),
			node('Regression Gate', 'n8n-nodes-rag-eval.regressionGate', {
				current: '={{ $json }}',
				baseline: '',
			}),
			node('OK', 'n8n-nodes-base.noOp'),
			node('Regressed', 'n8n-nodes-base.noOp'),
			node('Eval Report', 'n8n-nodes-rag-eval.evalReport', {
				title: 'Nightly',
				formats: ['slack', 'markdown'],
			}),
		],
		connections: {
			Start: { main: [[to('Eval Dataset')]] },
			'Eval Dataset': { main: [[to('Groundedness')]] },
			...wiring,
			'Eval Aggregate': { main: [[to('Regression Gate')]] },
			'Regression Gate': {
				main: [[to('OK')], [to('Regressed')], [to('Eval Report')]],
			},
		},
	};
}

/** The JSON of the first item on output 0 of every run of a node (n8n runs it once per input). */
function everyRun(r: EngineRun, name: string, output = 0): IDataObject[] {
	return (r.run.data.resultData.runData[name] ?? []).flatMap((task) =>
		(task.data?.main?.[output] ?? []).map((i) => i.json),
	);
}

describe('run manifests on the real engine', () => {
	let server: OpenAIServer;
	const credentials = () => ({
		ragEvalLlmApi: {
			provider: 'compatible',
			baseUrl: server.baseUrl,
			apiKey: 'sk-test-manifest-00000000000',
			model: 'judge-model',
		},
	});
	const start = { startItems: ROWS.map((json) => ({ json })) };
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault((req) => ({
			json: JSON.stringify(req.messages).includes('[weak]')
				? { reason: 'Nothing in the context supports it.', score: 1 }
				: { reason: 'Every claim is in the context.', score: 5 },
		}));
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('every Root-Cause Router output into one Eval Aggregate: no summary is green', async () => {
		const outputs = routerOutputNames();
		const wf = workflow([node('Root-Cause Router', 'n8n-nodes-rag-eval.rootCauseRouter')], {
			Groundedness: { main: [[to('Root-Cause Router')]] },
			'Root-Cause Router': { main: outputs.map(() => [to('Eval Aggregate')]) },
		});
		const r = await runWorkflow(wf, { ...start, credentials: credentials() });
		expect(r.nodeError('Eval Aggregate')).toBeUndefined();

		// n8n ran the aggregate once per non-empty router output: Pass and groundedness. Without
		// manifests the Pass run's summary said complete, coverage 1, 10 of 10 passing.
		expect(r.output('Root-Cause Router', 0)).toHaveLength(10);
		const summaries = everyRun(r, 'Eval Aggregate');
		expect(summaries).toHaveLength(2);
		expect(summaries.map((s) => s.status)).toEqual(['incomplete', 'incomplete']);
		const pass = summaries.find((s) => (s.overall as IDataObject).pass === 10) as IDataObject;
		const fail = summaries.find((s) => (s.overall as IDataObject).fail === 10) as IDataObject;
		for (const s of [pass, fail]) {
			expect(s.status).toBe('incomplete');
			expect(s.rows).toBe(10);
			expect(s.coverage).toMatchObject({ judged: 10, of: 20, share: 0.5, basis: 'verdicts' });
			expect(s.manifest).toMatchObject({
				runs: 1,
				expected: 20,
				received: 10,
				missing: 10,
				duplicates: 0,
				complete: false,
			});
		}
		// The Pass run's pass rate is over the run's 20 rows, not 10 of 10.
		expect(pass.overall).toMatchObject({
			pass: 10,
			passRate: { count: 10, of: 20, value: 0.5 },
			judgedPassRate: { count: 10, of: 10, value: 1 },
		});

		// Every gate run leaves on Incomplete (OK 0, Regressed 1, Incomplete 2), never OK.
		expect(everyRun(r, 'Regression Gate', 0)).toEqual([]);
		expect(everyRun(r, 'Regression Gate', 1)).toEqual([]);
		const gated = everyRun(r, 'Regression Gate', 2);
		expect(gated).toHaveLength(2);
		for (const g of gated) {
			expect(g).toMatchObject({ status: 'incomplete', incomplete: true });
			expect((g.gate as IDataObject).incompleteReasons).toEqual(
				expect.arrayContaining([expect.stringMatching(/10 of 20 rows of the run never reached/)]),
			);
		}
		expect(r.executedNodes()).not.toContain('OK');

		const reports = everyRun(r, 'Eval Report');
		expect(reports).toHaveLength(2);
		for (const report of reports) {
			expect(report.verdict).toBe('INCOMPLETE');
			expect(String(report.markdown).split('\n')[0]).toBe(
				'# Nightly — 10 rows: INCOMPLETE (10 of 20 rows not judged)',
			);
			expect(String(report.markdown)).toContain(
				'10 of 20 rows of the run never reached Eval Aggregate',
			);
			expect(JSON.stringify(report.slack)).not.toContain('large_green_circle');
		}

		// Rows leave Eval Dataset stamped with one manifest: 20 rows, positions 1..20.
		const rows = r.output('Eval Dataset');
		expect(rows).toHaveLength(20);
		const manifests = rows.map((x) => (x.source as IDataObject).run_manifest as IDataObject);
		expect(new Set(manifests.map((m) => m.run_id)).size).toBe(1);
		expect(manifests.map((m) => m.position)).toEqual(ROWS.map((_, i) => i + 1));
		expect(manifests.every((m) => m.total_rows === 20)).toBe(true);
		expect(manifests[0].dataset_fingerprint).toBe((rows[0].source as IDataObject).fingerprint);
	});

	it('the same rows wired in once: complete, and the gate says OK', async () => {
		const wf = workflow([], { Groundedness: { main: [[to('Eval Aggregate')]] } });
		const r = await runWorkflow(wf, { ...start, credentials: credentials() });
		const [summary] = everyRun(r, 'Eval Aggregate');
		expect(summary).toMatchObject({
			status: 'complete',
			rows: 20,
			coverage: { judged: 20, of: 20, share: 1 },
			manifest: { expected: 20, received: 20, missing: 0, duplicates: 0, complete: true },
		});
		expect(everyRun(r, 'Regression Gate', 0)).toHaveLength(1);
	});

	it('the same run twice into one aggregate (a Merge of a branch with itself) says so', async () => {
		const wf = workflow(
			[
				{
					...node('Both', 'n8n-nodes-base.merge', { mode: 'append' }),
					typeVersion: 3,
				},
			],
			{
				Groundedness: { main: [[to('Both', 0), to('Both', 1)]] },
				Both: { main: [[to('Eval Aggregate')]] },
			},
		);
		const r = await runWorkflow(wf, { ...start, credentials: credentials() });
		expect(r.nodeError('Both')).toBeUndefined();
		const [summary] = everyRun(r, 'Eval Aggregate');
		expect(summary.rows).toBe(40);
		expect(summary).toMatchObject({
			status: 'incomplete',
			manifest: {
				runs: 1,
				expected: 20,
				received: 20,
				missing: 0,
				duplicates: 20,
				complete: false,
			},
		});
		const [gated] = everyRun(r, 'Regression Gate', 2);
		expect(gated).toMatchObject({ status: 'incomplete' });
		const [report] = everyRun(r, 'Eval Report');
		expect(String(report.markdown).split('\n')[0]).toBe(
			'# Nightly — 40 rows: INCOMPLETE (20 rows arrived twice)',
		);
		expect(String(report.markdown)).toContain(
			'20 rows of the run reached Eval Aggregate more than once',
		);
	});
});
