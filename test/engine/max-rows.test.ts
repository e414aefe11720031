/**
 * Eval Dataset's Max Rows on the real engine: a dataset over the limit fails the node (or, with
 * "On Error: Continue (using error output)", leaves as one error item) and no judge is called.
 */
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';
import { runWorkflow, type WorkflowJson } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const row = (i: number) => ({
	query: `Question ${i}?`,
	response: `Answer ${i}.`,
	ground_truth: `Answer ${i}.`,
});

function workflow(datasetParams: INodeParameters, onError?: string): WorkflowJson {
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
				parameters: datasetParams,
				...(onError ? { onError: onError as 'continueErrorOutput' } : {}),
			},
			{
				id: 'r',
				name: 'Similarity',
				type: 'n8n-nodes-rag-eval.judgeSimilarity',
				typeVersion: 1,
				position: [400, 0],
				parameters: { threshold: 3 },
				credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
			},
			{
				id: 'i',
				name: 'Invalid Rows',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [400, 150],
				parameters: {},
			},
			{
				id: 'e',
				name: 'Refused',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [400, 300],
				parameters: {},
			},
		],
		connections: {
			Start: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
			'Eval Dataset': {
				main: [
					[{ node: 'Similarity', type: 'main', index: 0 }],
					[{ node: 'Invalid Rows', type: 'main', index: 0 }],
					[{ node: 'Refused', type: 'main', index: 0 }],
				],
			},
		},
	};
}

describe('Eval Dataset Max Rows on the real engine', () => {
	let server: OpenAIServer;
	let credentials: Record<string, ICredentialDataDecryptedObject>;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(() => ({ json: { reason: 'On topic.', score: 4 } }));
		credentials = {
			ragEvalLlmApi: {
				provider: 'compatible',
				baseUrl: server.baseUrl,
				apiKey: 'k-test',
				model: 'm',
			},
		};
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('fails the node over the limit (incoming items): nothing downstream runs, no judge call', async () => {
		const r = await runWorkflow(workflow({ source: 'items', options: { maxRows: 3 } }), {
			startItems: [1, 2, 3, 4].map((i) => ({ json: row(i) })),
			credentials,
		});
		expect(r.nodeError('Eval Dataset')).toBe(
			'The dataset has 4 rows, more than Max Rows (3); nothing was evaluated',
		);
		expect(r.run.data.resultData.error?.message).toMatch(/more than Max Rows \(3\)/);
		expect(r.executedNodes()).not.toContain('Similarity');
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('counts parsed rows of pasted text, valid and invalid alike', async () => {
		const text = [row(1), row(2), { query: 'no response' }]
			.map((x) => JSON.stringify(x))
			.join('\n');
		const over = await runWorkflow(
			workflow({ source: 'text', text, format: 'jsonl', options: { maxRows: 2 } }),
			{ credentials },
		);
		expect(over.nodeError('Eval Dataset')).toMatch(/has 3 rows, more than Max Rows \(2\)/);
		expect(server.chatRequests()).toHaveLength(0);

		// Limit and sampling do not hide rows from the count: the posted size is what is bounded.
		const limited = await runWorkflow(
			workflow({ source: 'text', text, format: 'jsonl', options: { maxRows: 2, limit: 1 } }),
			{ credentials },
		);
		expect(limited.nodeError('Eval Dataset')).toMatch(/has 3 rows/);
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('with the error output: one error item naming the limit, no rows, no judge call', async () => {
		const r = await runWorkflow(
			workflow({ source: 'items', options: { maxRows: 2 } }, 'continueErrorOutput'),
			{ startItems: [1, 2, 3].map((i) => ({ json: row(i) })), credentials },
		);
		expect(r.nodeError('Eval Dataset')).toBeUndefined();
		expect(r.output('Eval Dataset', 0)).toEqual([]);
		expect(r.output('Eval Dataset', 1)).toEqual([]);
		const [refused, ...more] = r.output('Eval Dataset', 2);
		expect(more).toEqual([]);
		expect(refused.error).toBe(
			'The dataset has 3 rows, more than Max Rows (2); nothing was evaluated',
		);
		expect(refused.details).toMatchObject({ reason: 'max_rows', rows: 3, maxRows: 2 });
		expect(r.output('Refused')).toHaveLength(1);
		expect(r.executedNodes()).not.toContain('Similarity');
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('with the error output: an unreadable dataset leaves as an error item, not as rows', async () => {
		const r = await runWorkflow(
			workflow(
				{ source: 'text', text: '"not rows"', format: 'json', options: { maxRows: 5 } },
				'continueErrorOutput',
			),
			{ credentials },
		);
		expect(r.output('Eval Dataset', 0)).toEqual([]);
		const [refused] = r.output('Eval Dataset', 2);
		expect(refused.error).toMatch(/expected a JSON array of rows or an object, got string/);
		expect(refused.details).toMatchObject({ reason: 'unreadable' });
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('at the limit, or with no limit, every row is judged', async () => {
		const items = [1, 2, 3].map((i) => ({ json: row(i) }));
		const at = await runWorkflow(workflow({ source: 'items', options: { maxRows: 3 } }), {
			startItems: items,
			credentials,
		});
		expect(at.nodeError('Eval Dataset')).toBeUndefined();
		expect(at.output('Similarity')).toHaveLength(3);
		expect(server.chatRequests()).toHaveLength(3);

		const unlimited = await runWorkflow(workflow({ source: 'items' }), {
			startItems: items,
			credentials,
		});
		expect(unlimited.output('Similarity')).toHaveLength(3);
		// The same rows again: every one is judged, by the verdict cache (on by default).
		expect(server.chatRequests()).toHaveLength(3);
		for (const item of unlimited.output('Similarity')) {
			const score = (item.eval as Record<string, { status: string; cached?: boolean }>).similarity;
			expect(score).toMatchObject({ status: 'ok', cached: true });
		}
	});
});
