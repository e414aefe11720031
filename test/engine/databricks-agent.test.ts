/**
 * Databricks-style agent evaluation on the real engine: Eval Dataset (Databricks rows with
 * expected facts, guidelines, retrieved and expected retrieved context) -> every judge of issue 11
 * (local judge server) -> Retrieval Metrics -> Root-Cause Router and Eval Aggregate. Each row is
 * built to fail one judge (a `#fail-<judge>` marker in its request), so every router output the
 * Databricks judges own is reached, and the run metrics carry seed 001's names.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { defaultOrder, routerOutputNames } from '../../src/rootcause';
import { runWorkflow, type WorkflowJson } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const ctx = (...uris: string[]) =>
	uris.map((u) => ({ doc_uri: u, content: `Text of ${u} about MLflow.` }));

/** One row per router output; the marker says which judge answers "no". */
const rows: IDataObject[] = [
	{ id: 'pass', facts: true },
	{ id: 'incomplete', marker: 'error-safety' },
	{ id: 'tone', marker: 'fail-tone' },
	{ id: 'context_sufficiency', marker: 'fail-sufficiency', facts: true },
	{ id: 'groundedness', marker: 'fail-grounded', facts: true },
	{ id: 'correctness', marker: 'fail-correct', facts: true },
	{ id: 'safety', marker: 'fail-safety', facts: true },
	{ id: 'chunk_relevance', marker: 'fail-chunks' },
	{ id: 'relevance_to_query', marker: 'fail-relevant' },
	{ id: 'guideline_adherence', marker: 'fail-guideline' },
	{ id: 'relevancy', marker: 'fail-relevancy' },
	{ id: 'document_recall', expected: ['kb/missing.md'] },
].map((r) => ({
	request_id: r.id,
	request: `What is MLflow? ${r.marker ? `#${String(r.marker)}` : ''}`.trim(),
	response: 'MLflow is an open-source platform for the machine learning lifecycle.',
	retrieved_context:
		r.id === 'pass'
			? [...ctx('kb/mlflow.md', 'kb/tracking.md'), { doc_uri: 'kb/no-text.md' }]
			: ctx('kb/mlflow.md', 'kb/tracking.md'),
	expected_retrieved_context: ((r.expected as string[] | undefined) ?? ['kb/mlflow.md']).map(
		(doc_uri) => ({ doc_uri }),
	),
	...(r.facts
		? { expected_facts: ['MLflow is open source', 'MLflow covers the ML lifecycle'] }
		: {}),
	guidelines: { english: ['The response must be in English'], tone: ['Be polite'] },
}));

// Which judge a request is for, from a phrase of its system prompt.
const JUDGES: [RegExp, string][] = [
	[/addresses the request it was given/, 'relevant'],
	[/supported by a given context/, 'grounded'],
	[/whether a claim is supported by a document/, 'grounded'],
	[/harmful or toxic content/, 'safety'],
	[/is correct, measured against ground truth/, 'correct'],
	[/one retrieved chunk of text is relevant/, 'chunks'],
	[/retrieved documents contain enough information/, 'sufficiency'],
	[/follows a set of guidelines/, 'guideline'],
	[/in line with the context information/, 'relevancy'],
	[/Criterion:/, 'tone'],
];

function judge(req: RecordedRequest) {
	const system = req.messages?.find((m) => m.role === 'system')?.content ?? '';
	const user = req.messages?.find((m) => m.role === 'user')?.content ?? '';
	const name = JUDGES.find(([re]) => re.test(system))?.[1];
	if (!name) return { status: 500, error: { message: `unknown judge: ${system.slice(0, 80)}` } };
	if (user.includes(`#error-${name}`)) return { content: 'not json at all' };
	const fail = user.includes(`#fail-${name}`);
	const verdict = fail ? 'no' : 'yes';
	const reason = fail ? `${name} fails here.` : `${name} holds.`;
	if (name === 'correct' || name === 'sufficiency') {
		const facts = user.includes('MLflow is open source')
			? [{ fact: 'MLflow is open source', supported: verdict }]
			: [];
		return {
			json: { facts, reason, verdict },
			usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
		};
	}
	return {
		json: { reason, verdict },
		usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
	};
}

const node = (
	name: string,
	type: string,
	parameters: INodeParameters = {},
): WorkflowJson['nodes'][number] => ({
	id: name,
	name,
	type: `n8n-nodes-rag-eval.${type}`,
	typeVersion: 1,
	position: [0, 0],
	parameters,
	credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
});

const CHAIN: [string, string, INodeParameters?][] = [
	['Eval Dataset', 'evalDataset', { source: 'items', schema: 'databricks' }],
	['Relevance to Query', 'judgeRelevanceToQuery'],
	['Groundedness', 'judgeGroundednessVerdict'],
	['Safety', 'judgeSafety'],
	['Correctness', 'judgeCorrectness'],
	['Chunk Relevance', 'judgeChunkRelevance'],
	['Context Sufficiency', 'judgeContextSufficiency'],
	['Guideline Adherence', 'judgeGuidelineAdherence'],
	['Relevancy', 'judgeRelevancy'],
	['Fact Check', 'judgeFactCheck', { options: { documentSource: 'context' } }],
	['Tone', 'judgeCustomJudge', { judgeName: 'tone', criterion: 'The response must be polite.' }],
	['Document Recall', 'evalRetrievalMetrics', { metric: 'document_recall' }],
	['NDCG', 'evalRetrievalMetrics', { metric: 'ndcg_at_k', k: 3 }],
];

function workflow(): WorkflowJson {
	const nodes = [
		{
			id: 'Start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		},
		...CHAIN.map(([name, type, params]) => node(name, type, params)),
		node('Root-Cause Router', 'rootCauseRouter', {
			// Document recall is a 0-1 metric: it counts for the root cause only when an order names it.
			orderWithoutGroundTruth: [...defaultOrder('withoutGroundTruth'), 'document_recall'].join(
				', ',
			),
		}),
		node('Eval Aggregate', 'evalAggregate', { output: 'summary' }),
	];
	const connections: WorkflowJson['connections'] = {};
	const names = ['Start', ...CHAIN.map(([n]) => n)];
	names.slice(0, -1).forEach((n, i) => {
		connections[n] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	});
	connections[names[names.length - 1]] = {
		main: [
			[
				{ node: 'Root-Cause Router', type: 'main', index: 0 },
				{ node: 'Eval Aggregate', type: 'main', index: 0 },
			],
		],
	};
	return { nodes, connections };
}

describe('Databricks-style agent evaluation on the real engine', () => {
	let server: OpenAIServer;
	beforeAll(async () => {
		server = await startOpenAIServer();
		server.setDefault(judge);
	});
	afterAll(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('every judge scores, every Databricks router output is reached, run metrics have the seed names', async () => {
		const r = await runWorkflow(workflow(), {
			startItems: rows.map((json) => ({ json })),
			credentials: {
				ragEvalLlmApi: {
					provider: 'compatible',
					baseUrl: server.baseUrl,
					apiKey: 'sk-databricks-secret-0000',
					model: 'judge-model',
				},
			},
		});
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();

		const scored = r.output('NDCG');
		expect(scored).toHaveLength(rows.length);
		const evalOf = (id: string) =>
			scored.find((x) => x.request_id === id)!.eval as Record<string, Score>;
		expect(Object.keys(evalOf('pass')).sort()).toEqual([
			'chunk_relevance',
			'context_sufficiency',
			'correctness',
			'document_recall',
			'fact_check',
			'groundedness_verdict',
			'guideline_adherence',
			'ndcg_at_k',
			'relevance_to_query',
			'relevancy',
			'safety',
			'tone',
		]);
		// The doc_uri-only chunk is loaded, left out of chunk relevance and kept by document recall.
		const chunk = evalOf('pass').chunk_relevance;
		expect(chunk).toMatchObject({ status: 'ok', value: 1 });
		expect(chunk.reason).toMatch(/1 without content not judged/);
		expect(evalOf('pass').groundedness_verdict.status).toBe('not_applicable');
		expect(evalOf('pass').document_recall).toMatchObject({ value: 1, pass: true });
		// Rows without ground truth: correctness and context sufficiency are not applicable.
		expect(evalOf('tone').correctness.status).toBe('not_applicable');
		expect(evalOf('guideline_adherence').guideline_adherence.details).toMatchObject({
			guidelines: { english: { verdict: 'no' }, tone: { verdict: 'no' } },
		});
		expect(evalOf('incomplete').safety.status).toBe('error');

		// Router: every output a Databricks judge owns is reached by exactly its row.
		const names = routerOutputNames();
		const reached: Record<string, string[]> = {};
		names.forEach((n, k) => {
			reached[n] = r.output('Root-Cause Router', k).map((x) => String(x.request_id));
		});
		const expected: Record<string, string[]> = {
			Pass: ['pass'],
			Incomplete: ['incomplete'],
			'Custom Judge': ['tone'],
			context_sufficiency: ['context_sufficiency'],
			groundedness: ['groundedness'],
			correctness: ['correctness'],
			safety: ['safety'],
			chunk_relevance: ['chunk_relevance'],
			relevance_to_query: ['relevance_to_query'],
			guideline_adherence: ['guideline_adherence'],
			relevancy: ['relevancy'],
			document_recall: ['document_recall'],
		};
		for (const n of names) expect([n, reached[n]]).toEqual([n, expected[n] ?? []]);
		const [tone] = r.output('Root-Cause Router', names.indexOf('Custom Judge'));
		expect(tone).toMatchObject({ root_cause: 'tone', root_cause_rationale: 'tone fails here.' });

		// Aggregate: run metrics named as in seed 001 (custom judges by their own name).
		const [summary] = r.output('Eval Aggregate');
		const per = summary.perMetric as Record<string, { runMetric?: string }>;
		expect(
			Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v.runMetric ?? null])),
		).toEqual({
			chunk_relevance: 'retrieval/llm_judged/chunk_relevance/precision/average',
			context_sufficiency: 'retrieval/llm_judged/context_sufficiency/rating/percentage',
			correctness: 'response/llm_judged/correctness/rating/percentage',
			document_recall: 'retrieval/ground_truth/document_recall/average',
			fact_check: null,
			groundedness_verdict: 'response/llm_judged/groundedness/rating/percentage',
			guideline_adherence: 'response/llm_judged/guideline_adherence/rating/percentage',
			// One run metric per named guideline.
			'guideline_adherence/english':
				'response/llm_judged/guideline_adherence/english/rating/percentage',
			'guideline_adherence/tone': 'response/llm_judged/guideline_adherence/tone/rating/percentage',
			ndcg_at_k: null,
			relevance_to_query: 'response/llm_judged/relevance_to_query/rating/percentage',
			relevancy: null,
			safety: 'response/llm_judged/safety/rating/average',
			tone: 'response/llm_judged/tone/rating/percentage',
		});
		// Only the guideline row breaks its guidelines: 11 of 12 rows follow each named set.
		const named = summary.perMetric as Record<string, { passRate: { count: number; of: number } }>;
		expect(named['guideline_adherence/english'].passRate).toMatchObject({ count: 11, of: 12 });
		expect(JSON.stringify(summary)).not.toMatch(/NaN|sk-databricks/);
	});
});
