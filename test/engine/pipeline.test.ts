/**
 * The whole nightly pipeline on the real engine: Eval Dataset -> BLEU -> F1 -> Groundedness ->
 * Relevance (local judge server) -> Eval Aggregate -> Regression Gate -> Eval Report, and
 * Relevance -> Root-Cause Router. Asserts every node's real output.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { aggregate } from '../../src/aggregate';
import type { Score } from '../../src/core/types';
import { routerOutputNames } from '../../src/rootcause';
import { f1Score } from '../../src/metrics';
import { runWorkflow, type WorkflowJson } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const N = 24;
const rows = Array.from({ length: N }, (_, i) => {
	const wrong = i % 2 === 1;
	return {
		request_id: `q${String(i).padStart(2, '0')}`,
		request: `What is the opening time of store ${i}?`,
		retrieved_context: [
			{ doc_uri: `doc${i}`, content: `Store ${i} opens at ${8 + (i % 3)} am every weekday.` },
		],
		response: wrong
			? `Store ${i} opens at noon (WRONG).`
			: `Store ${i} opens at ${8 + (i % 3)} am on weekdays.`,
		expected_response: `Store ${i} opens at ${8 + (i % 3)} am every weekday.`,
	};
});

function judge(req: RecordedRequest) {
	const text = (req.messages ?? []).map((m) => m.content).join('\n');
	if (/supported by a given context/.test(text)) {
		const bad = text.includes('(WRONG)');
		return {
			json: {
				reason: bad ? 'Noon is not what the context says.' : 'Matches the context.',
				score: bad ? 1 : 5,
			},
		};
	}
	return { json: { reason: 'On topic.', score: 4 } };
}

const node = (
	name: string,
	type: string,
	parameters: INodeParameters = {},
	extra: Partial<WorkflowJson['nodes'][number]> = {},
): WorkflowJson['nodes'][number] => ({
	id: name,
	name,
	type,
	typeVersion: 1,
	position: [0, 0],
	parameters,
	...extra,
});
const to = (...names: string[]) => ({
	main: names.map((n) => (n ? [{ node: n, type: 'main' as const, index: 0 }] : [])),
});

function pipeline(baseline: unknown): WorkflowJson {
	const creds = { credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } } };
	return {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger'),
			node('Eval Dataset', 'n8n-nodes-rag-eval.evalDataset', { source: 'items' }),
			node('BLEU', 'n8n-nodes-rag-eval.evalBleu'),
			node('F1', 'n8n-nodes-rag-eval.evalF1Score'),
			node('Groundedness', 'n8n-nodes-rag-eval.judgeGroundedness', {}, creds),
			node('Relevance', 'n8n-nodes-rag-eval.judgeRelevance', {}, creds),
			node('Eval Aggregate', 'n8n-nodes-rag-eval.evalAggregate', { output: 'summary' }),
			node('Regression Gate', 'n8n-nodes-rag-eval.regressionGate', {
				baseline: JSON.stringify(baseline),
				defaultTolerance: 0.05,
			}),
			node('Eval Report', 'n8n-nodes-rag-eval.evalReport', { title: 'Nightly store-hours eval' }),
			node('Report OK', 'n8n-nodes-rag-eval.evalReport', {
				title: 'Nightly store-hours eval',
				formats: ['markdown'],
			}),
			node('Root-Cause Router', 'n8n-nodes-rag-eval.rootCauseRouter'),
		],
		connections: {
			Start: to('Eval Dataset'),
			'Eval Dataset': to('BLEU'),
			BLEU: to('F1'),
			F1: to('Groundedness'),
			Groundedness: to('Relevance'),
			Relevance: {
				main: [
					[
						{ node: 'Eval Aggregate', type: 'main', index: 0 },
						{ node: 'Root-Cause Router', type: 'main', index: 0 },
					],
				],
			},
			'Eval Aggregate': to('Regression Gate'),
			'Regression Gate': to('Report OK', 'Eval Report'),
		},
	};
}

describe('nightly pipeline on the real engine', () => {
	let server: OpenAIServer;
	beforeAll(async () => {
		server = await startOpenAIServer();
		server.setDefault(judge);
	});
	afterAll(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('scores, aggregates, gates against last night, routes root causes and reports', async () => {
		// Last night every answer was grounded: the same rows with correct responses, scored alike.
		const good = (i: number): Score => ({
			metric: 'groundedness',
			value: 5,
			scale: { kind: 'likert', min: 1, max: 5 },
			threshold: 3,
			direction: 'higher',
			pass: true,
			status: 'ok',
			signature: 's',
		});
		const baseline = aggregate(
			rows.map((r, i) => ({
				...r,
				eval: { groundedness: good(i), relevance: { ...good(i), metric: 'relevance', value: 4 } },
			})),
		);

		const r = await runWorkflow(pipeline(baseline), {
			startItems: rows.map((json) => ({ json })),
			credentials: {
				ragEvalLlmApi: {
					provider: 'compatible',
					baseUrl: server.baseUrl,
					apiKey: 'sk-pipeline-secret-0000',
					model: 'judge-model',
				},
			},
		});
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();
		expect(server.chatRequests()).toHaveLength(2 * N);

		// Metrics and judges: every row carries four scores.
		const scored = r.output('Relevance');
		expect(scored).toHaveLength(N);
		for (const row of scored)
			expect(Object.keys(row.eval as IDataObject).sort()).toEqual([
				'bleu',
				'f1_score',
				'groundedness',
				'relevance',
			]);
		const f1 = (scored[0].eval as Record<string, Score>).f1_score;
		expect(f1.value).toBe(f1Score(rows[0].response, rows[0].expected_response));

		// Aggregate: one summary, Azure-style means and pass rates with coverage, root causes.
		const [summary] = r.output('Eval Aggregate');
		const per = summary.perMetric as Record<
			string,
			{
				measured: number;
				mean: { value: number };
				passRate: { value: number; count: number; of: number };
			}
		>;
		expect(summary.rows).toBe(N);
		expect(per.groundedness.measured).toBe(N);
		expect(per.groundedness.mean.value).toBe(3);
		expect(per.groundedness.passRate).toMatchObject({ value: 0.5, count: N / 2, of: N });
		expect(per.relevance.mean.value).toBe(4);
		expect(per.bleu.measured).toBe(N);
		const causes = summary.rootCauses as { cause: string; count: number }[];
		expect(causes[0]).toMatchObject({ cause: 'groundedness', count: N / 2 });
		expect(JSON.stringify(summary)).not.toMatch(/NaN|sk-pipeline/);

		// Regression gate: groundedness pass rate fell from 100% to 50%: regressed.
		expect(r.output('Regression Gate', 0)).toHaveLength(0);
		const [gated] = r.output('Regression Gate', 1);
		expect(gated.regressed).toBe(true);
		const table = (
			gated.gate as {
				table: { metric: string; verdict: string; baseline: number; current: number }[];
			}
		).table;
		const regressedRows = table.filter((t) => t.verdict === 'regressed');
		expect(regressedRows.length).toBeGreaterThan(0);
		expect(regressedRows.some((t) => t.metric.includes('groundedness'))).toBe(true);

		// Report from the Regressed branch: Slack blocks, Markdown, ticket, HTML and JUnit files.
		const [report] = r.items('Eval Report');
		const json = report.json as {
			slack: { text: string; blocks: unknown[] };
			markdown: string;
			ticket: { title: string };
			regressed: boolean;
		};
		expect(json.regressed).toBe(true);
		expect(json.slack.blocks.length).toBeGreaterThan(0);
		expect(json.markdown).toContain('groundedness');
		expect(json.ticket.title).toMatch(/regress/i);
		expect(report.binary!.html.mimeType).toBe('text/html');
		expect(Buffer.from(report.binary!.html.data, 'base64').toString('utf8')).toMatch(
			/^<!DOCTYPE html>/i,
		);
		expect(Buffer.from(report.binary!.junit.data, 'base64').toString('utf8')).toMatch(
			/<testsuites/,
		);
		expect(r.executedNodes()).not.toContain('Report OK');

		// Root-Cause Router: grounded rows pass; the others go to the groundedness output with a fix.
		// Outputs: Pass, Incomplete, Custom Judge, then one per declared slot, at fixed positions.
		const names = routerOutputNames();
		expect(names.slice(0, 4)).toEqual(['Pass', 'Incomplete', 'Custom Judge', 'groundedness']);
		expect(r.outputCount('Root-Cause Router')).toBe(names.length);
		const pass = r.output('Root-Cause Router', 0);
		expect(pass.map((x) => x.request_id)).toEqual(
			rows.filter((_, i) => i % 2 === 0).map((x) => x.request_id),
		);
		const all = names.map((_, k) => r.output('Root-Cause Router', k));
		const grounded = all[names.indexOf('groundedness')];
		expect(grounded.map((x) => x.request_id)).toEqual(
			rows.filter((_, i) => i % 2 === 1).map((x) => x.request_id),
		);
		// Relevance (a judge outside the order, with its own output) passed everywhere.
		expect(all.map((o) => o.length)).toEqual(
			names.map((n) => (n === 'Pass' || n === 'groundedness' ? N / 2 : 0)),
		);
		for (const x of grounded) {
			expect(x).toMatchObject({
				overall: 'fail',
				root_cause: 'groundedness',
				root_cause_rationale: 'Noon is not what the context says.',
			});
			expect(x.suggested_fix).toMatch(
				/^The response asserts things the retrieved context does not support/,
			);
		}
	});
});
