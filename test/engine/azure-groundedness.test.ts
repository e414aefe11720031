/**
 * Groundedness Judge with Backend = Azure AI Content Safety on the real engine: Eval Dataset ->
 * Groundedness -> Pass / Fail / Not Scored, answered over HTTP by the local Azure server.
 */
import type { INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, type WorkflowJson } from '../support/engine';
import {
	azureFaults,
	azureReplies,
	startAzureContentSafetyServer,
	type AzureContentSafetyServer,
} from '../support/azure-content-safety-server';

const rows = [
	{
		request_id: 'q1',
		query: 'What is the capital of Japan?',
		context: 'Tokyo is the capital of Japan.',
		response: 'Tokyo is the capital.',
	},
	{
		request_id: 'q2',
		query: 'How much is she paid?',
		context: ['She is paid 10 dollars an hour.', 'She works 40 hours a week.'],
		response: 'She earns 12 dollars an hour and owns the bank.',
	},
	{ request_id: 'q3', query: 'Where is the Eiffel Tower?', response: 'In Paris.' },
];

function workflow(parameters: Record<string, unknown> = {}, withCred = true): WorkflowJson {
	return chain(
		{ name: 'Eval Dataset', type: 'evalDataset', parameters: { source: 'items' } },
		{
			name: 'Groundedness',
			type: 'judgeGroundedness',
			parameters: {
				backend: 'azure_content_safety',
				threshold: 3,
				splitOutputs: true,
				options: { maxRetries: 2 },
				...parameters,
			} as INodeParameters,
			credentials: withCred
				? { azureContentSafetyApi: { id: '2', name: 'Content Safety' } }
				: undefined,
		},
	);
}

describe('Groundedness Judge through Azure AI Content Safety on the real engine', () => {
	let server: AzureContentSafetyServer;
	beforeEach(async () => {
		server = await startAzureContentSafetyServer();
	});
	afterEach(async () => {
		await server.close();
	});
	const creds = () => ({
		azureContentSafetyApi: { endpoint: server.endpoint, apiKey: server.key },
	});

	it('maps the ungrounded share to 1-5, lists the spans, routes the rows and sends only header auth', async () => {
		server.setDefault('detectGroundedness', (req) =>
			String(req.body?.text).includes('12 dollars')
				? azureReplies.groundedness(0.8, ['12 dollars an hour', 'owns the bank'])
				: azureReplies.groundedness(0),
		);
		// The first call is rate limited once: waited out, counted in attempts.
		server.script('detectGroundedness', azureFaults.rateLimited(0.01));
		const r = await runWorkflow(workflow(), {
			startItems: rows.map((json) => ({ json })),
			credentials: creds(),
		});
		expect(r.nodeError('Groundedness')).toBeUndefined();
		const pass = r.output('Groundedness', 0);
		const fail = r.output('Groundedness', 1);
		const notScored = r.output('Groundedness', 2);
		expect(pass.map((x) => x.request_id)).toEqual(['q1']);
		expect(fail.map((x) => x.request_id)).toEqual(['q2']);
		expect(notScored.map((x) => x.request_id)).toEqual(['q3']);

		const good = (pass[0].eval as Record<string, Score>).groundedness;
		expect(good).toMatchObject({ status: 'ok', value: 5, pass: true, threshold: 3 });
		expect(good.signature).toBe(
			'judge:groundedness@1|backend:azure_content_safety|service:text:detectGroundedness 2024-02-15-preview|map:quartiles-v1',
		);
		const bad = (fail[0].eval as Record<string, Score>).groundedness;
		expect(bad).toMatchObject({
			status: 'ok',
			value: 1,
			pass: false,
			model: 'text:detectGroundedness 2024-02-15-preview',
		});
		expect(bad.reason).toBe(
			'Azure AI Content Safety groundedness detection: 80% of the reply is ungrounded (score 1 by our rule: 5 - ceil(ungrounded share x 4)). Ungrounded: "12 dollars an hour"; "owns the bank"',
		);
		expect(bad.details).toMatchObject({
			backend: 'azure_content_safety',
			ungroundedPercentage: 0.8,
			ungroundedSpans: ['12 dollars an hour', 'owns the bank'],
		});
		const na = (notScored[0].eval as Record<string, Score>).groundedness;
		expect(na).toMatchObject({ status: 'not_applicable', value: null, pass: null });

		// Two rows called (plus the one 429); the third had no context and was never sent.
		const calls = server.requestsTo('detectGroundedness');
		expect(calls).toHaveLength(3);
		const q2 = calls.find((c) => String(c.body?.text).includes('12 dollars'))!;
		expect(q2.body).toEqual({
			domain: 'Generic',
			task: 'QnA',
			qna: { query: 'How much is she paid?' },
			text: 'She earns 12 dollars an hour and owns the bank.',
			groundingSources: ['She is paid 10 dollars an hour.', 'She works 40 hours a week.'],
			reasoning: false,
		});
		expect(good.attempts! + bad.attempts!).toBe(3);
		for (const c of calls) {
			expect(c.headers['ocp-apim-subscription-key']).toBe(server.key);
			expect(c.rawBody).not.toContain(server.key);
		}
		expect(JSON.stringify(r.run.data.resultData)).not.toContain(server.key);
		server.assertNoUnexpected();
	});

	it('a wrong key stops the node with a secret-free fatal error; Continue On Fail lets rows leave with it', async () => {
		const wrong = {
			azureContentSafetyApi: { endpoint: server.endpoint, apiKey: 'bad-key-71e3c9aa' },
		};
		// One call at a time, so the second row sees the first row's fatal 401 before calling.
		const serial = { options: { maxRetries: 2, concurrency: 1 } };
		const r = await runWorkflow(workflow(serial), {
			startItems: rows.map((json) => ({ json })),
			credentials: wrong,
		});
		expect(r.nodeError('Groundedness')).toMatch(/authentication failed \(401\)/);
		expect(JSON.stringify(r.run.data.resultData)).not.toContain('bad-key-71e3c9aa');

		const wf = workflow(serial);
		wf.nodes[2].continueOnFail = true;
		const c = await runWorkflow(wf, {
			startItems: rows.map((json) => ({ json })),
			credentials: wrong,
		});
		expect(c.nodeError('Groundedness')).toBeUndefined();
		const errored = c
			.output('Groundedness', 2)
			.map((x) => (x.eval as Record<string, Score>).groundedness);
		const statuses = errored.map((s) => s.status).sort();
		expect(statuses).toEqual(['error', 'error', 'not_applicable']);
		const e = errored.find((s) => s.status === 'error')!;
		expect(e.error).toMatch(
			/^row \d+ \(request_id "q[12]"\): Groundedness: Azure AI Content Safety text:detectGroundedness: authentication failed \(401\): Access denied [^]*resource\. Check the API key/,
		);
		expect(JSON.stringify(c.run.data.resultData)).not.toContain('bad-key-71e3c9aa');
		// Fatal: in each run one call, never retried; the second row was not called after the 401.
		expect(server.requests.length).toBe(2);
		expect(errored.some((s) => /not called/.test(s.error ?? ''))).toBe(true);
	});

	it('the LLM backend stays the default and ignores the Azure credential', async () => {
		const wf = workflow({ backend: undefined });
		delete (wf.nodes[2].parameters as Record<string, unknown>).backend;
		const r = await runWorkflow(wf, {
			startItems: rows.map((json) => ({ json })),
			credentials: creds(),
		});
		expect(r.nodeError('Groundedness')).toBeUndefined();
		const all = [0, 1, 2].flatMap((o) => r.output('Groundedness', o));
		expect(all).toHaveLength(3);
		for (const x of all)
			expect((x.eval as Record<string, Score>).groundedness.status).toBe('not_applicable');
		expect(server.requests).toHaveLength(0);
	});
});
