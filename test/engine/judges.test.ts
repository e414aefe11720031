/**
 * Eval Dataset -> Groundedness -> Relevance on the real engine, judged over HTTP by the local
 * OpenAI-compatible server; and the same judge fed by a connected Chat Model sub-node.
 */
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { runWorkflow, type WorkflowJson } from '../support/engine';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const SECRET = 'sk-test-ENGINE-SECRET-7f3a9c';

const rows = [
	{
		query: 'What is the capital of Japan?',
		context: 'Tokyo is the capital of Japan.',
		response: 'Tokyo.',
		ground_truth: 'Tokyo',
	},
	{
		query: 'Who wrote Hamlet?',
		context: 'Hamlet is a play by William Shakespeare.',
		response: 'Christopher Marlowe wrote it.',
		ground_truth: 'Shakespeare',
	},
	{ query: 'Where is the Eiffel Tower?', response: 'In Paris.', ground_truth: 'Paris' },
];

/** The judge "reads" the answer: a Marlowe answer is ungrounded; relevance is always 4. */
function judgeReply(req: RecordedRequest) {
	const text = (req.messages ?? []).map((m) => m.content).join('\n');
	const isGroundedness = /supported by a given context/.test(text);
	if (isGroundedness) {
		const bad = text.includes('Marlowe');
		return {
			json: {
				reason: bad ? 'The context names Shakespeare, not Marlowe.' : 'The context states this.',
				score: bad ? 1 : 5,
			},
		};
	}
	return { json: { reason: 'The answer addresses the question.', score: 4 } };
}

function workflow(
	extraNodes: WorkflowJson['nodes'] = [],
	extraConnections: WorkflowJson['connections'] = {},
	judgeCreds = true,
): WorkflowJson {
	const creds = judgeCreds ? { ragEvalLlmApi: { id: '1', name: 'Judge' } } : undefined;
	return {
		nodes: [
			{
				id: 't',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'd',
				name: 'Eval Dataset',
				type: 'n8n-nodes-rag-eval.evalDataset',
				typeVersion: 1,
				position: [200, 0],
				parameters: { source: 'items' },
			},
			{
				id: 'g',
				name: 'Groundedness',
				type: 'n8n-nodes-rag-eval.judgeGroundedness',
				typeVersion: 1,
				position: [400, 0],
				parameters: { threshold: 3, splitOutputs: true, model: 'judge-model' },
				credentials: creds,
			},
			{
				id: 'r',
				name: 'Relevance',
				type: 'n8n-nodes-rag-eval.judgeRelevance',
				typeVersion: 1,
				position: [600, 0],
				parameters: { threshold: 3, options: { concurrency: 2 } },
				credentials: creds,
			},
			{
				id: 'f',
				name: 'Ungrounded',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [600, 100],
				parameters: {},
			},
			{
				id: 'n',
				name: 'Not Judged',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [600, 200],
				parameters: {},
			},
			...extraNodes,
		],
		connections: {
			Start: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
			'Eval Dataset': { main: [[{ node: 'Groundedness', type: 'main', index: 0 }]] },
			Groundedness: {
				main: [
					[{ node: 'Relevance', type: 'main', index: 0 }],
					[{ node: 'Ungrounded', type: 'main', index: 0 }],
					[{ node: 'Not Judged', type: 'main', index: 0 }],
				],
			},
			...extraConnections,
		},
	};
}

describe('judges on the real engine', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(judgeReply);
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('judges through the credential, splits Pass / Fail / Not Scored, records usage, hides the key', async () => {
		const r = await runWorkflow(workflow(), {
			startItems: rows.map((json) => ({ json })),
			credentials: {
				ragEvalLlmApi: {
					provider: 'compatible',
					baseUrl: server.baseUrl,
					apiKey: SECRET,
					model: 'default-model',
				},
			},
		});
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();

		const pass = r.output('Groundedness', 0);
		const fail = r.output('Groundedness', 1);
		const notScored = r.output('Groundedness', 2);
		expect(pass.map((x) => x.request)).toEqual(['What is the capital of Japan?']);
		expect(fail.map((x) => x.request)).toEqual(['Who wrote Hamlet?']);
		// No retrieved context: not applicable, named, and never sent to the model.
		expect(notScored.map((x) => x.request)).toEqual(['Where is the Eiffel Tower?']);
		const na = (notScored[0].eval as Record<string, Score>).groundedness;
		expect(na).toMatchObject({ status: 'not_applicable', value: null, pass: null });
		expect(na.reason).toMatch(/context/);

		const g = (fail[0].eval as Record<string, Score>).groundedness;
		expect(g).toMatchObject({
			status: 'ok',
			value: 1,
			pass: false,
			threshold: 3,
			model: 'judge-model',
		});
		expect(g.reason).toBe('The context names Shakespeare, not Marlowe.');
		expect(g.usage!.totalTokens).toBe(g.usage!.promptTokens + g.usage!.completionTokens);
		expect(g.usage!.promptTokens).toBeGreaterThan(0);
		expect(g.signature).toMatch(
			/^judge:groundedness@1\|model:judge-model\|temp:0\|prompt:[0-9a-f]{12}$/,
		);

		const rel = r.output('Relevance');
		expect(rel).toHaveLength(1);
		const rs = (rel[0].eval as Record<string, Score>).relevance;
		expect(rs).toMatchObject({ status: 'ok', value: 4, pass: true, model: 'default-model' });
		expect(Object.keys(rel[0].eval as IDataObject).sort()).toEqual(['groundedness', 'relevance']);

		// Two groundedness calls (third row not applicable) and one relevance call, with the
		// schema-constrained response format and nonce delimiters around the judged text.
		const chats = server.chatRequests();
		expect(chats).toHaveLength(3);
		expect(chats[0].responseFormat?.type).toBe('json_schema');
		expect(chats[0].headers.authorization).toBe(`Bearer ${SECRET}`);
		const user = chats.find((c) => (c.messages ?? []).some((m) => m.content.includes('Marlowe')))!;
		expect(user.messages!.map((m) => m.content).join('\n')).toMatch(
			/<data-[0-9a-f]+>[\s\S]*Marlowe[\s\S]*<\/data-[0-9a-f]+>/,
		);

		// The key reaches the server in the header only: never in any node's output.
		expect(JSON.stringify(r.run.data.resultData)).not.toContain(SECRET);
	});

	it('reports not applicable, without failing the run, when no judge model is configured', async () => {
		const r = await runWorkflow(workflow([], {}, false), {
			startItems: rows.map((json) => ({ json })),
		});
		expect(r.nodeError('Groundedness')).toBeUndefined();
		const notScored = r.output('Groundedness', 2);
		expect(notScored).toHaveLength(3);
		for (const x of notScored) {
			expect((x.eval as Record<string, Score>).groundedness.reason).toMatch(
				/^no judge model configured/,
			);
		}
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('judges with a connected Chat Model sub-node instead of the credential', async () => {
		const wf = workflow(
			[
				{
					id: 'c',
					name: 'Chat Model',
					type: 'test.chatModel',
					typeVersion: 1,
					position: [400, 200],
					parameters: { baseUrl: '', model: 'duck-model' },
				},
			],
			{
				'Chat Model': {
					ai_languageModel: [[{ node: 'Groundedness', type: 'ai_languageModel', index: 0 }]],
				},
			},
			false,
		);
		wf.nodes.find((n) => n.name === 'Chat Model')!.parameters.baseUrl = server.baseUrl;
		const r = await runWorkflow(wf, { startItems: rows.map((json) => ({ json })) });
		for (const n of ['Eval Dataset', 'Groundedness']) expect(r.nodeError(n)).toBeUndefined();
		const g = [...r.output('Groundedness', 0), ...r.output('Groundedness', 1)].map(
			(x) => (x.eval as Record<string, Score>).groundedness,
		);
		expect(g.map((s) => s.value)).toEqual([5, 1]);
		expect(g[0].model).toBe('duck-model');
		expect(g[0].usage!.totalTokens).toBeGreaterThan(0);
		// The duck-typed model was called in text mode: no response_format on the wire.
		expect(server.chatRequests().map((c) => c.responseFormat)).toEqual([undefined, undefined]);
	});
});
