/**
 * A judge node's failure modes on the real engine: exhausted quota fails the node once with a
 * clear message (or, with Continue On Fail, every row carries the error), the API key never
 * appears in a node error, an item or run data, and the execution's cancel signal stops the
 * calls in flight.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { runWorkflow, type WorkflowJson } from '../support/engine';
import { faults, startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const SECRET = 'sk-proj-FAULTS-SECRET-9d41e7b2c0';

const rows = [1, 2, 3].map((n) => ({
	request: `question ${n}`,
	response: `answer ${n}`,
	retrieved_context: [{ content: `context ${n}` }],
}));

function workflow(judge: Partial<INode> = {}, options: IDataObject = {}): WorkflowJson {
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
				parameters: { options: { concurrency: 1, ...options } },
				credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
				...judge,
			},
			{
				id: 'n',
				name: 'After',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [600, 0],
				parameters: {},
			},
		],
		connections: {
			Start: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
			'Eval Dataset': { main: [[{ node: 'Groundedness', type: 'main', index: 0 }]] },
			Groundedness: { main: [[{ node: 'After', type: 'main', index: 0 }]] },
		},
	};
}

describe('judge node faults on the real engine', () => {
	let server: OpenAIServer;
	const credentials = () => ({
		ragEvalLlmApi: {
			provider: 'compatible',
			baseUrl: server.baseUrl,
			apiKey: SECRET,
			model: 'judge-model',
		},
	});
	const start = { startItems: rows.map((json) => ({ json })) };
	beforeEach(async () => {
		server = await startOpenAIServer();
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	it('insufficient_quota fails the node once with a clear message and a remedy', async () => {
		server.setDefault(() => faults.insufficientQuota());
		const r = await runWorkflow(workflow(), { ...start, credentials: credentials() });
		expect(r.nodeError('Groundedness')).toMatch(/quota is exhausted/);
		const task = r.run.data.resultData.runData.Groundedness;
		expect(task).toHaveLength(1);
		expect(task[0].error?.description).toMatch(/Continue On Fail/);
		expect(r.executedNodes()).not.toContain('After');
		// Fail fast: no retry and no call for the other rows once the quota is known to be gone.
		expect(server.chatRequests()).toHaveLength(1);
		expect(JSON.stringify(r.run)).not.toContain(SECRET);
	});

	it('with Continue On Fail, every row leaves carrying the quota error, never a score', async () => {
		server.setDefault(() => faults.insufficientQuota());
		const r = await runWorkflow(workflow({ continueOnFail: true }), {
			...start,
			credentials: credentials(),
		});
		expect(r.nodeError('Groundedness')).toBeUndefined();
		const out = r.output('After');
		expect(out.map((x) => x.request)).toEqual(rows.map((x) => x.request));
		out.forEach((x, i) => {
			const s = (x.eval as Record<string, Score>).groundedness;
			expect(s).toMatchObject({ status: 'error', value: null, pass: null });
			// Eval Dataset gives every row a request_id, and errors name it beside the position
			expect(s.error).toMatch(
				new RegExp(`^row ${i + 1} \\(request_id "\\w+"\\): .*quota is exhausted`),
			);
		});
		expect(server.chatRequests()).toHaveLength(1);
	});

	it('never puts the API key in a node error, even when the endpoint echoes it', async () => {
		const echo = () => ({
			status: 401,
			error: {
				message: `Incorrect API key provided: ${SECRET}. You can find your API key at https://platform.openai.com/account/api-keys.`,
				type: 'invalid_request_error',
				code: 'invalid_api_key',
			},
		});
		server.setDefault(echo);
		const failed = await runWorkflow(workflow(), { ...start, credentials: credentials() });
		const message = failed.nodeError('Groundedness');
		expect(message).toMatch(/authentication failed/);
		expect(message).not.toContain(SECRET);
		expect(message).not.toContain(SECRET.slice(8));
		const error = failed.run.data.resultData.runData.Groundedness[0].error;
		expect(JSON.stringify(error)).not.toContain(SECRET);
		expect(JSON.stringify(failed.run)).not.toContain(SECRET);
		expect(server.chatRequests()[0].headers.authorization).toBe(`Bearer ${SECRET}`);

		const carried = await runWorkflow(workflow({ continueOnFail: true }), {
			...start,
			credentials: credentials(),
		});
		const out = carried.output('After');
		expect(out).toHaveLength(rows.length);
		for (const x of out)
			expect((x.eval as Record<string, Score>).groundedness.error).toMatch(/authentication/);
		expect(JSON.stringify(out)).not.toContain(SECRET);
		expect(JSON.stringify(carried.run)).not.toContain(SECRET);
	});

	it('a model down for good: a bounded number of calls, every row named unavailable by position and request_id', async () => {
		server.setDefault(() => faults.serverError());
		const many = Array.from({ length: 30 }, (_, i) => ({
			json: { ...rows[i % 3], request_id: `req-${i + 1}` },
		}));
		const r = await runWorkflow(workflow({}, { concurrency: 4, breakerCooldownSeconds: 0.02 }), {
			startItems: many,
			credentials: credentials(),
		});
		expect(r.nodeError('Groundedness')).toBeUndefined();
		const out = r.output('After');
		expect(out).toHaveLength(30);
		out.forEach((x, i) => {
			const s = (x.eval as Record<string, Score>).groundedness;
			expect(s).toMatchObject({ status: 'error', value: null, pass: null });
			expect(s.error).toMatch(
				new RegExp(
					`^row ${i + 1} \\(request_id "req-${i + 1}"\\): Groundedness: judge model unavailable: 5 rows in a row failed \\([5-8] calls, no answer in between\\)`,
				),
			);
		});
		// 5 rows' failures open the breaker (no more calls in flight than it takes), then two
		// probes: not 30 x 5, and no more than the 9 of when calls were counted instead of rows
		expect(server.chatRequests().length).toBeLessThanOrEqual(5 + 2);
	});

	it('the Node Deadline option ends a hung model: rows leave with the deadline named', async () => {
		server.setDefault(() => faults.hang());
		const r = await runWorkflow(
			workflow({}, { concurrency: 2, nodeDeadlineSeconds: 0.5, timeoutSeconds: 600 }),
			{ ...start, credentials: credentials() },
		);
		expect(r.run.status).toBe('success');
		const out = r.output('After');
		expect(out).toHaveLength(3);
		const errors = out.map((x) => (x.eval as Record<string, Score>).groundedness.error);
		expect(errors[0]).toMatch(
			/^row 1 \(request_id "\w+"\): Groundedness: the node's deadline of 500 ms passed after 1 attempt/,
		);
		expect(errors[1]).toMatch(
			/^row 2 \(request_id "\w+"\): Groundedness: the node's deadline of 500 ms passed after 1 attempt/,
		);
		expect(errors[2]).toMatch(
			/^row 3 \(request_id "\w+"\): Groundedness: the node's deadline of 500 ms passed before this row was judged \(option Node Deadline\)/,
		);
		expect(server.chatRequests()).toHaveLength(2);
	}, 10_000);

	it('stops calling the model when the execution is cancelled', async () => {
		let arrived!: () => void;
		const firstCall = new Promise<void>((resolve) => (arrived = resolve));
		server.setDefault(() => {
			arrived();
			return faults.hang();
		});
		// Long timeout and retries: only the cancel signal can end this run within the test timeout.
		const r = await runWorkflow(workflow({}, { timeoutSeconds: 600, maxRetries: 5 }), {
			...start,
			credentials: credentials(),
			cancelWhen: firstCall,
		});
		expect(r.run.status).toBe('canceled');
		expect(r.executedNodes()).not.toContain('After');
		// The call in flight is aborted (with the signal ignored it would hang for 600 s and time
		// the test out), and the rows still queued behind it never reach the server.
		const [first] = server.chatRequests();
		await first.clientAborted;
		await new Promise((resolve) => setImmediate(resolve));
		expect(server.chatRequests()).toHaveLength(1);
	}, 10_000);
});
