import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertExecution, type ApiExecution } from '../../../src/executions';
import { costLatency } from '../../../src/cost';
import { parseTrace } from '../../../src/record/trace';
import { EvalRecord } from '../../../src/record/schema';
import { summaryOf } from '../../support/n8n-api-server';

const FIX = join(__dirname, '../../fixtures');
const load = (rel: string): ApiExecution =>
	JSON.parse(readFileSync(join(FIX, rel), 'utf8')) as ApiExecution;
const opts = { instance: 'http://n8n.local:5678', workflowId: 'wf-x' };

function row(
	e: ApiExecution,
	o: Partial<typeof opts> & { appNode?: string; traceDetail?: 'slim' | 'full' | 'none' } = {},
) {
	const c = convertExecution(e, { ...opts, ...o });
	if (!c.ok) throw new Error(`expected a row, got ${c.invalid.error}`);
	return c.row as Record<string, unknown> & { metadata: Record<string, unknown> };
}

describe('convertExecution: an AI Agent with tools and a retriever', () => {
	const e = load('n8n-executions/agent-tools.json');
	const r = row(e);

	it('takes the request from the chat trigger and the answer from the agent', () => {
		expect(r.request_id).toBe('n8n-exec-1201');
		expect(r.request).toMatch(/^Can I return the blue jacket from order \d+\?$/);
		expect(r.response).toMatch(/within the 30-day return window/);
		expect(r.metadata.app_node).toBe('AI Agent');
	});

	it('has the tool calls, the retrieved documents, tokens, latency and model of the trace', () => {
		const parsed = parseTrace(e);
		expect(r.tool_calls).toEqual(parsed.tool_calls);
		// Named as the agent calls them: n8n's tool name of the node, or a Vector Store tool's
		// own `name` parameter.
		expect((r.tool_calls as { name: string }[]).map((t) => t.name)).toEqual([
			'Get_Order',
			'product_docs',
		]);
		expect((r.tool_definitions as { name: string }[]).map((t) => t.name)).toEqual([
			'Get_Order',
			'product_docs',
		]);
		expect(r.retrieved_context).toEqual([
			{ doc_uri: 'kb/returns.md', content: expect.stringContaining('30 days') },
			{ doc_uri: 'kb/support.md', content: expect.stringContaining('8:00-18:00') },
		]);
		expect(r.total_token_count).toBe(parsed.total_token_count);
		expect(r.total_token_count).toBeGreaterThan(900);
		expect(r.latency_seconds).toBeCloseTo(
			(Date.parse(String(e.stoppedAt)) - Date.parse(String(e.startedAt))) / 1000,
			6,
		);
		expect(r.metadata.model).toBe('gpt-4o-mini');
		expect(r.metadata.llm_calls).toBe(2);
	});

	it('says where it came from, with a link to the execution', () => {
		expect(r.metadata).toMatchObject({
			source: 'n8n-execution',
			execution_id: '1201',
			workflow_id: 'wf-agent',
			status: 'success',
			mode: 'webhook',
			started_at: e.startedAt,
			stopped_at: e.stoppedAt,
			execution_url: 'http://n8n.local:5678/workflow/wf-agent/executions/1201',
		});
	});

	it('is a valid canonical record (with the source Eval Dataset adds)', () => {
		const res = EvalRecord.safeParse({
			...r,
			source: {
				format: 'items',
				schema: 'n8n-execution',
				row: 1,
				fingerprint: 'x',
				present: { request: true, response: true },
			},
		});
		expect(res.success ? 'ok' : res.error.message).toBe('ok');
	});

	it('keeps a slim trace that Cost & Latency reads to the same figures and prices by model', () => {
		const slim = JSON.stringify(r.trace).length;
		expect(slim).toBeLessThan(JSON.stringify(e).length / 10);
		const fromSlim = costLatency({}, r.trace, {
			prices: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
		});
		const fromFull = costLatency({}, e, {
			prices: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
		});
		expect(fromSlim.figures).toEqual(fromFull.figures);
		expect(fromSlim.figures.cost_usd).toBeGreaterThan(0);
	});

	it('keeps the whole execution or no trace when asked', () => {
		expect(row(e, { traceDetail: 'full' }).trace).toEqual(e);
		expect(row(e, { traceDetail: 'none' }).trace).toBeUndefined();
	});
});

describe('convertExecution: other apps', () => {
	it('a retrieval QA chain behind a webhook: request from the body, answer from the chain', () => {
		const r = row(load('n8n-executions/chain-retriever.json'));
		expect(r.metadata.app_node).toBe('Question and Answer Chain');
		expect(r.request).toBe('When is phone support open?');
		expect(r.response).toMatch(/^Phone support is open/);
		expect((r.retrieved_context as unknown[]).length).toBe(2);
		expect(r.metadata.model).toBe('llama3.2:3b');
		expect(r.metadata.trace_notes).toEqual(
			expect.arrayContaining([expect.stringMatching(/estimate/i)]),
		);
	});

	it('without a prompt expression, the chain request is the first text field of the webhook body', () => {
		const e = load('n8n-executions/chain-retriever.json') as ApiExecution & {
			workflowData: { nodes: { name: string; parameters: Record<string, unknown> }[] };
		};
		for (const n of e.workflowData.nodes) n.parameters = {};
		expect(row(e).request).toBe('When is phone support open?');
		delete (e as { workflowData?: unknown }).workflowData;
		// Without the workflow the chain is found as the node its sub-nodes report to.
		const r = row(e);
		expect(r.metadata.app_node).toBe('Question and Answer Chain');
		expect(r.request).toBe('When is phone support open?');
	});

	it('an HTTP call node chosen by name: its input prompt and the completion text', () => {
		const e = load('n8n-executions/http-call.json');
		const r = row(e, { appNode: 'Call Model' });
		expect(r.request).toBe(
			'Summarise: the parcel left the warehouse on Monday and arrives Thursday.',
		);
		expect(r.response).toBe('The parcel ships Monday and arrives Thursday.');
		expect(r.response_raw).toMatchObject({ object: 'chat.completion' });
		// Auto: no AI node ran, so the last node that ran.
		expect(row(e).metadata.app_node).toBe('Store Answer');
	});

	it('a failed agent run converts, with the error and no response', () => {
		const e = load('n8n-executions/agent-error.json');
		const r = row(e);
		expect(r.metadata.status).toBe('error');
		expect(r.metadata.error).toMatch(/^OpenAI Chat Model: Rate limit reached/);
		expect(r.response).toBeUndefined();
		expect(r.request).toBe(
			(
				e.data as {
					resultData: {
						runData: Record<string, { data: { main: { json: { chatInput: string } }[][] } }[]>;
					};
				}
			).resultData.runData['When chat message received'][0].data.main[0][0].json.chatInput,
		);
		expect(r.total_token_count).toBeGreaterThan(0);
	});

	it('the older fixture without executionIndex on sub-nodes still converts', () => {
		const r = row(load('traces/n8n-agent-connections.json'));
		expect(r.request).toBe('Is order 4417 shipped yet?');
		expect(r.response).toMatch(/^Order 4417 shipped/);
	});
});

describe('convertExecution: what cannot be converted goes to Invalid with the reason', () => {
	const e = load('n8n-executions/agent-tools.json');

	it('an execution without saved data names the save setting', () => {
		const c = convertExecution(summaryOf(e as never), opts);
		expect(c.ok).toBe(false);
		if (c.ok) return;
		expect(c.invalid.reason).toBe('no_saved_data');
		expect(c.invalid.error).toBe('execution 1201: n8n kept no execution data for it');
		expect(c.invalid.hint).toMatch(/EXECUTIONS_DATA_SAVE_ON_SUCCESS=all/);
		expect(c.invalid.metadata.execution_url).toBe(
			'http://n8n.local:5678/workflow/wf-agent/executions/1201',
		);
	});

	it('data left out as too large', () => {
		const c = convertExecution({ ...e, dataTooLargeToDisplay: true }, opts);
		expect(!c.ok && c.invalid.reason).toBe('too_large');
	});

	it('an app node that did not run lists the nodes that did', () => {
		const c = convertExecution(e, { ...opts, appNode: 'Chatbot' });
		expect(c.ok).toBe(false);
		if (c.ok) return;
		expect(c.invalid.reason).toBe('app_node_not_found');
		expect(c.invalid.error).toContain('"Chatbot" did not run');
		expect(c.invalid.error).toContain('AI Agent');
	});

	it('run data with a negative duration is an unreadable trace, not a crash', () => {
		const bad = JSON.parse(JSON.stringify(e)) as {
			data: { resultData: { runData: Record<string, { executionTime: number }[]> } };
		};
		bad.data.resultData.runData['Get Order'][0].executionTime = -5;
		const c = convertExecution(bad as unknown as ApiExecution, opts);
		expect(!c.ok && c.invalid.reason).toBe('unreadable_trace');
	});
});

describe('convertExecution: executions captured from a real n8n 2.41.1', () => {
	const list = JSON.parse(
		readFileSync(join(FIX, 'n8n-executions/real-agent-list.json'), 'utf8'),
	) as {
		data: ApiExecution[];
		nextCursor: string | null;
	};

	it('reads the list page as the API returns it', () => {
		expect(list.nextCursor).toBeNull();
		expect(list.data.map((e) => e.id)).toEqual(['2', '1']);
	});

	it('an AI Agent v3 behind a webhook: the prompt expression, the answer, real token usage', () => {
		const rows = list.data.map((e) => row(e));
		expect(rows.map((r) => r.request)).toEqual([
			'When is phone support open?',
			'Is order 4417 shipped yet?',
		]);
		for (const r of rows) {
			expect(r.response).toMatch(
				/^\{"reason":"Deterministic test judge: rated \d for reason\.","score":\d\}$/,
			);
			expect(r.metadata).toMatchObject({
				status: 'success',
				app_node: 'AI Agent',
				model: 'gpt-4o-mini',
				llm_calls: 1,
			});
			expect(r.metadata.trace_notes).toBeUndefined();
			expect(r.total_token_count).toBe(35);
			expect(r.total_input_token_count).toBe(18);
			expect(r.latency_seconds).toBeGreaterThan(0);
		}
		expect(rows[0].metadata.execution_url).toBe(
			'http://n8n.local:5678/workflow/appAgent0000001/executions/2',
		);
	});
});
