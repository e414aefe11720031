/**
 * Databricks rows on the real engine (judged over HTTP by the local OpenAI-compatible server):
 * Chunk Relevance's two pass rules named on the row and honoured by the Root-Cause Router, and the
 * Databricks output format writing every per-row name the seeds define (seed 002's
 * `retrieval/llm_judged/chunk_relevance_precision`, Cost & Latency's `agent/...` figures).
 */
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { routerOutputNames } from '../../src/rootcause';
import { chain, runWorkflow, singleNode } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const creds = { ragEvalLlmApi: { id: '1', name: 'Judge' } };

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
	// A chunk is relevant when it says so.
	server.setDefault((req: RecordedRequest) => {
		const relevant = (req.messages ?? []).some((m) => m.content.includes('RELEVANT'));
		return {
			json: {
				reason: relevant ? 'It answers the request.' : 'Off topic.',
				verdict: relevant ? 'yes' : 'no',
			},
		};
	});
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

const credentials = () => ({
	ragEvalLlmApi: {
		provider: 'compatible',
		baseUrl: server.baseUrl,
		apiKey: 'sk-databricks-rows-0000',
		model: 'judge-model',
	},
});

const chunks = (...relevant: boolean[]) =>
	relevant.map((r, i) => ({
		doc_uri: `kb/${i + 1}.md`,
		content: r
			? `RELEVANT: MLflow tracks experiments (${i + 1}).`
			: `Bananas are yellow (${i + 1}).`,
	}));

const rows: IDataObject[] = [
	// 1 of 3: under the node's 0.5 threshold, yet a relevant chunk exists (seed 001 passes it).
	{
		request_id: 'one-of-three',
		request: 'What does MLflow track?',
		retrieved_context: chunks(true, false, false),
	},
	// None relevant: both rules fail it.
	{
		request_id: 'none',
		request: 'What does MLflow track?',
		retrieved_context: chunks(false, false),
	},
	// 2 of 3: both rules pass it.
	{
		request_id: 'two-of-three',
		request: 'What does MLflow track?',
		retrieved_context: chunks(true, true, false),
	},
];

const evalOf = (row: IDataObject) => row.eval as Record<string, Score>;

describe('Chunk Relevance: the node threshold and the root-cause rule on one row', () => {
	it('names the difference on the row, and the router follows the root-cause rule', async () => {
		const r = await runWorkflow(
			chain(
				{ name: 'Chunk Relevance', type: 'judgeChunkRelevance', credentials: creds },
				{ name: 'Root-Cause Router', type: 'rootCauseRouter' },
			),
			{ startItems: rows.map((json) => ({ json })), credentials: credentials() },
		);
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();

		// The node's Pass/Fail (what Split Into Pass / Fail Outputs routes by): 0.5 threshold.
		const scored = r.output('Chunk Relevance');
		const pass = scored.filter((x) => evalOf(x).chunk_relevance.pass === true);
		const fail = scored.filter((x) => evalOf(x).chunk_relevance.pass === false);
		expect(pass.map((x) => x.request_id)).toEqual(['two-of-three']);
		expect(fail.map((x) => x.request_id)).toEqual(['one-of-three', 'none']);

		const [oneOfThree, none] = fail.map((x) => evalOf(x).chunk_relevance);
		expect(oneOfThree).toMatchObject({ value: 1 / 3, pass: false, threshold: 0.5 });
		expect(oneOfThree.details).toMatchObject({
			rootCause: { slot: 'chunk_relevance', verdict: 'pass', failsWhen: 'zero' },
		});
		expect(oneOfThree.reason).toBe(
			"1 of 3 judged chunks are relevant (chunk 1). The root cause counts this row as passing chunk_relevance: it fails the slot only when the value is 0 (seed 001); the node's Pass/Fail uses the threshold 0.5.",
		);
		// Where the two rules agree, nothing is added.
		expect(none).toMatchObject({ value: 0, pass: false });
		expect(none.details?.rootCause).toBeUndefined();
		expect(evalOf(pass[0]).chunk_relevance.details?.rootCause).toBeUndefined();

		// The router agrees with what the row says: only the row without a relevant chunk fails.
		const names = routerOutputNames();
		const routed = (name: string) =>
			r
				.output('Root-Cause Router', names.indexOf(name))
				.map((x) => x.request_id)
				.sort();
		expect(routed('Pass')).toEqual(['one-of-three', 'two-of-three']);
		expect(routed('chunk_relevance')).toEqual(['none']);
	});
});

describe('Databricks output format: every per-row name the seeds define', () => {
	it('Chunk Relevance writes seed 001 and seed 002 spellings of the precision', async () => {
		const r = await runWorkflow(
			chain({
				name: 'Node',
				type: 'judgeChunkRelevance',
				parameters: { options: { outputFormat: 'databricks' } },
				credentials: creds,
			}),
			{ startItems: rows.map((json) => ({ json })), credentials: credentials() },
		);
		expect(r.nodeError('Node')).toBeUndefined();
		const out = r.output('Node');
		expect(
			out.map((x) => [
				x['retrieval/llm_judged/chunk_relevance/precision'],
				x['retrieval/llm_judged/chunk_relevance_precision'],
			]),
		).toEqual([
			[1 / 3, 1 / 3],
			[0, 0],
			[2 / 3, 2 / 3],
		]);
	});

	it("Cost & Latency writes seed 002's agent/ token columns and the latency beside its figures", async () => {
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalCostLatency', {
				model: 'gpt-4o-mini',
				options: { outputFormat: 'databricks' },
			}),
			{
				startItems: [
					{
						json: {
							request_id: 'a',
							total_input_token_count: 1200,
							total_output_token_count: 300,
							latency_seconds: 2.5,
						},
					},
					// A row without figures gets no column.
					{ json: { request_id: 'b' } },
				],
			},
		);
		expect(r.nodeError('Node')).toBeUndefined();
		const [a, b] = r.output('Node');
		expect(a).toMatchObject({
			total_token_count: 1500,
			total_input_token_count: 1200,
			total_output_token_count: 300,
			latency_seconds: 2.5,
			'agent/total_token_count': 1500,
			'agent/input_token_count': 1200,
			'agent/output_token_count': 300,
			'agent/latency_seconds': 2.5,
		});
		expect(Object.keys(b).filter((k) => k.startsWith('agent/'))).toEqual([]);
	});
});
