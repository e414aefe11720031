// Production monitoring of an n8n AI Agent (issue 29): the support agent as it runs in production
// (an AI Agent behind an authenticated webhook, with a knowledge-base retriever and an order
// lookup tool), the workflow that loads its knowledge base, and the monitor: every hour it reads a
// seeded 10% sample of the agent's new executions through n8n's public API (Eval Executions),
// judges them without references (groundedness, relevance to the query, safety, Content Safety,
// and the agent judges Intent Resolution, Task Adherence and Tool Call Accuracy against the tool
// definitions the agent had), measures tokens and latency, aggregates, gates against the median of the last 7 runs and posts
// one Slack message per run that links each failing execution to n8n's execution view.
// `npm start` creates the n8n API credential (a read-only public API key of the owner) and points
// the monitor at it. test/e2e/monitor.suite.js runs all three on a real n8n.
'use strict';

const APP_ID = 'ragEvalMonitorApp01';
const KB_ID = 'ragEvalMonitorKb001';
const MONITOR_ID = 'ragEvalMonitor0001';
const WEBHOOK_AUTH = {
	httpHeaderAuth: { id: 'ragEvalWebhookAuth', name: 'RAG eval webhook token' },
};
const N8N_API = { n8nApi: { id: 'ragEvalN8nApi0001', name: 'n8n API (rag-eval monitor)' } };
const CHAT_MODEL = {
	type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
	v: 1.2,
	params: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: { temperature: 0 } },
	notes: 'Set your OpenAI credential (or one with an OpenAI-compatible base URL)',
};
const EMBEDDINGS = {
	type: '@n8n/n8n-nodes-langchain.embeddingsOpenAi',
	v: 1.2,
	params: { model: 'text-embedding-3-small', options: {} },
	notes: 'Same OpenAI credential as the Chat Model',
};
// Simple Vector Store keys are shared between workflows: the loader fills what the agent reads.
const KB_KEY = { __rl: true, mode: 'id', value: 'rag_eval_support_kb' };

/** The knowledge base: the distinct contexts of the bundled support sample, one document each. */
function knowledgeBase(dataset) {
	const seen = new Map();
	for (const line of dataset('rag-support-sample.jsonl').split('\n')) {
		const { context } = JSON.parse(line);
		if (typeof context !== 'string' || seen.has(context)) continue;
		const slug = context
			.split(':')[0]
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-|-$/g, '')
			.slice(0, 40);
		seen.set(context, `kb/${slug || 'doc'}-${seen.size + 1}`);
	}
	return [...seen].map(([content, doc_uri]) => ({ doc_uri, content }));
}

module.exports = ({ P, workflow, sticky, dataset, referenceFreeJudges, slackWebhook }) => {
	const kb = workflow(
		'monitor-kb',
		KB_ID,
		"RAG monitoring: load the support agent's knowledge base",
		[
			{ name: 'Load Now', type: 'n8n-nodes-base.manualTrigger', pos: [0, 0] },
			{
				name: 'Load via HTTP',
				type: 'n8n-nodes-base.webhook',
				v: 2,
				pos: [0, 200],
				webhookId: '6b1d3f0e-2c4a-4e59-9a77-0d3c5e8f1a21',
				params: {
					httpMethod: 'POST',
					path: 'rag-eval-support-kb',
					authentication: 'headerAuth',
					responseMode: 'lastNode',
					options: {},
				},
				credentials: WEBHOOK_AUTH,
				notes: 'Same as Load Now, for scripts: POST with Authorization: Bearer <token>',
			},
			{
				name: 'Support Documents',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [240, 100],
				params: {
					jsCode: `// The shop's policies, one document each (doc_uri names it in the retrieved context).\nconst docs = ${JSON.stringify(knowledgeBase(dataset), null, '\t')};\nreturn docs.map((json) => ({ json }));`,
				},
				notes: 'Replace with your documents (Read Files, Google Drive, Notion...)',
			},
			{
				name: 'Support Docs Store',
				type: '@n8n/n8n-nodes-langchain.vectorStoreInMemory',
				v: 1.3,
				pos: [480, 100],
				params: { mode: 'insert', memoryKey: KB_KEY, clearStore: true },
				notes: 'In n8n memory: load again after every restart of n8n',
			},
			{
				name: 'Document Loader',
				type: '@n8n/n8n-nodes-langchain.documentDefaultDataLoader',
				v: 1.1,
				pos: [480, 320],
				params: {
					jsonMode: 'expressionData',
					jsonData: '={{ $json.content }}',
					textSplittingMode: 'simple',
					options: {
						metadata: { metadataValues: [{ name: 'doc_uri', value: '={{ $json.doc_uri }}' }] },
					},
				},
			},
			{ name: 'Embeddings', ...EMBEDDINGS, pos: [700, 320] },
			sticky(
				'Load the knowledge base',
				[-40, -260],
				[640, 220],
				[
					"## The support agent's knowledge base",
					'Run this once after n8n starts (**Load Now**, or POST to the **Load via HTTP** webhook):',
					'it puts the shop policies into a Simple Vector Store that the support agent searches.',
					'In production use your own vector store (Pinecone, Qdrant, PGVector...) in both workflows:',
					"the monitor reads whatever the agent's retriever returned.",
				].join('\n'),
			),
		],
		[
			['Load Now', 'Support Documents'],
			['Load via HTTP', 'Support Documents'],
			['Support Documents', 'Support Docs Store'],
			['Document Loader', 'Support Docs Store', 0, 'ai_document'],
			['Embeddings', 'Support Docs Store', 0, 'ai_embedding'],
		],
	);

	const app = workflow(
		'monitor-app',
		APP_ID,
		'RAG monitoring: the support agent in production',
		[
			{
				name: 'Customer Question',
				type: 'n8n-nodes-base.webhook',
				v: 2,
				pos: [0, 0],
				webhookId: '3f8a2c71-9d4e-4b0a-8c16-5e7f2a9b0c31',
				params: {
					httpMethod: 'POST',
					path: 'rag-eval-support-agent',
					authentication: 'headerAuth',
					responseMode: 'responseNode',
					options: {},
				},
				credentials: WEBHOOK_AUTH,
				notes: 'POST {"question": "...", "session_id": "..."} with Authorization: Bearer <token>',
			},
			{
				name: 'Chat Input',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [220, 0],
				params: {
					jsCode: [
						"// The question as chatInput, the field n8n's chat nodes use: the monitor reads the request there.",
						'const body = $json.body ?? {};',
						"if (typeof body.question !== 'string' || body.question.trim() === '')",
						'\tthrow new Error(\'POST a JSON body with a non-empty "question" (and optionally "session_id")\');',
						'return [{ json: { chatInput: body.question, sessionId: String(body.session_id ?? $execution.id) } }];',
					].join('\n'),
				},
			},
			{
				name: 'Support Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				v: 3,
				pos: [460, 0],
				params: {
					promptType: 'define',
					text: '={{ $json.chatInput }}',
					options: {
						systemMessage:
							'You are the support assistant of an online shop. Search the Knowledge Base tool before every answer and answer only from what it returns, in one or two sentences; say so when it does not cover the question. For a question about one order, call Look Up Order with the order number.',
					},
				},
			},
			{ name: 'Chat Model', ...CHAT_MODEL, pos: [340, 260] },
			{
				name: 'Knowledge Base',
				type: '@n8n/n8n-nodes-langchain.toolVectorStore',
				v: 1.1,
				pos: [560, 260],
				params: {
					description:
						"the shop's policies: returns and exchanges, shipping times, payment methods, support hours, warranty",
					topK: 3,
				},
			},
			{
				name: 'Support Docs',
				type: '@n8n/n8n-nodes-langchain.vectorStoreInMemory',
				v: 1.3,
				pos: [500, 480],
				params: { mode: 'retrieve', memoryKey: KB_KEY },
				notes: 'Filled by "RAG monitoring: load the support agent\'s knowledge base"',
			},
			{ name: 'Embeddings', ...EMBEDDINGS, pos: [500, 680] },
			{
				name: 'Look Up Order',
				type: '@n8n/n8n-nodes-langchain.toolCode',
				v: 1.3,
				pos: [800, 260],
				params: {
					description: 'Looks up an order by its number and returns its status as JSON',
					language: 'javaScript',
					jsCode: [
						'// Stands in for your order system: replace with an HTTP Request tool to your API.',
						'const number = (String(query).match(/\\d{4,}/) || [])[0];',
						"if (!number) return 'No order number in the question: ask the customer for it.';",
						"const states = ['processing', 'shipped', 'delivered'];",
						'return JSON.stringify({ order: number, status: states[Number(number) % 3] });',
					].join('\n'),
				},
			},
			{
				name: 'Output Guard',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [800, 0],
				params: {
					jsCode: [
						'// Conversations that carry payment card data go to a person: the execution fails (and shows',
						'// red in the executions list) instead of sending the answer. The monitor judges those too.',
						"const question = $('Chat Input').first().json.chatInput;",
						"const answer = String($json.output ?? '');",
						'const blocked = /card number|\\bcvv\\b|\\b(?:\\d[ -]?){13,19}\\b/i;',
						'if (blocked.test(question) || blocked.test(answer))',
						"\tthrow new Error('Output guard: the conversation carries payment card data; hand it to a person');",
						"return [{ json: { answer, session_id: $('Chat Input').first().json.sessionId } }];",
					].join('\n'),
				},
			},
			{
				name: 'Reply',
				type: 'n8n-nodes-base.respondToWebhook',
				v: 1.1,
				pos: [1020, 0],
				params: { respondWith: 'json', responseBody: '={{ $json }}', options: {} },
			},
			sticky(
				'The support agent',
				[-40, -330],
				[900, 290],
				[
					'## The support agent in production',
					'An AI Agent behind an authenticated webhook: it searches the knowledge base (Simple Vector',
					'Store, loaded by the knowledge-base workflow) and can look up orders. **Change**: the',
					'OpenAI credential of **Chat Model** and both **Embeddings** nodes (any OpenAI-compatible',
					'server works), then publish. n8n must keep its executions, data included',
					"(`EXECUTIONS_DATA_SAVE_ON_SUCCESS=all`, the default, or this workflow's setting):",
					'the monitor reads them.',
				].join('\n'),
			),
		],
		[
			['Customer Question', 'Chat Input'],
			['Chat Input', 'Support Agent'],
			['Support Agent', 'Output Guard'],
			['Output Guard', 'Reply'],
			['Chat Model', 'Support Agent', 0, 'ai_languageModel'],
			['Chat Model', 'Knowledge Base', 0, 'ai_languageModel'],
			['Knowledge Base', 'Support Agent', 0, 'ai_tool'],
			['Look Up Order', 'Support Agent', 0, 'ai_tool'],
			['Support Docs', 'Knowledge Base', 0, 'ai_vectorStore'],
			['Embeddings', 'Support Docs', 0, 'ai_embedding'],
		],
		{
			settings: {
				executionOrder: 'v1',
				saveDataSuccessExecution: 'all',
				saveDataErrorExecution: 'all',
			},
		},
	);

	const monitor = workflow(
		'monitor-run',
		MONITOR_ID,
		'RAG monitoring: judge a sample of the support agent in production',
		[
			{
				name: 'Every Hour',
				type: 'n8n-nodes-base.scheduleTrigger',
				v: 1.2,
				pos: [0, 0],
				params: { rule: { interval: [{ field: 'hours', hoursInterval: 1 }] } },
			},
			{ name: 'Run Now', type: 'n8n-nodes-base.manualTrigger', pos: [0, 200] },
			{
				name: 'Eval Executions',
				type: `${P}.evalExecutions`,
				pos: [240, 100],
				params: {
					workflowId: { __rl: true, mode: 'id', value: APP_ID },
					appNode: '',
					window: 'sinceLastRun',
					statuses: ['success', 'error'],
					sampling: 'rate',
					sampleRate: 10,
					seed: 1,
					stratifyByStatus: true,
					maxExecutions: 2000,
				},
				credentials: N8N_API,
				notes:
					'New executions since the last run; a seeded 10% of each status, at least one failed execution',
			},
			...referenceFreeJudges(
				[480, 100],
				'Tokens and latency of each execution, from its own run data',
				{ agent: true },
			),
			// The run's verdict and report on a second row, under the first.
			{
				name: 'Eval Aggregate',
				type: `${P}.evalAggregate`,
				pos: [240, 520],
				params: { output: 'summary', options: { minCoverage: 95 } },
				notes: 'Below 95% of sampled executions judged the run is INCOMPLETE',
			},
			{
				name: 'Load History',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [480, 520],
				params: {
					jsCode:
						"// The last 30 complete runs (run metrics only, never rows) live in this workflow's static data.\nconst store = $getWorkflowStaticData('global');\nreturn [{ json: { current: $input.first().json, history: store.history ?? [] } }];",
				},
			},
			{
				name: 'Regression Gate',
				type: `${P}.regressionGate`,
				pos: [720, 520],
				params: {
					current: '={{ $json.current }}',
					baseline: '',
					options: {
						minCoverage: 95,
						compareAgainst: 'median',
						history: '={{ $json.history }}',
						medianRuns: 7,
					},
				},
				notes: 'Against the median of the last 7 runs. Outputs: OK, Regressed, Incomplete',
			},
			{
				name: 'Save to History',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [960, 420],
				params: {
					jsCode:
						"// A complete run (OK or Regressed) joins the history the next runs are gated against.\nconst store = $getWorkflowStaticData('global');\nconst s = $input.first().json.summary;\nconst keep = (o, f) => Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, f(v)]));\nconst entry = {\n  at: new Date().toISOString(),\n  rows: s.rows,\n  metrics: keep(s.metrics, (m) => ({ value: m.value ?? null, measured: m.measured, direction: m.direction })),\n  perMetric: keep(s.perMetric, (m) => ({ measured: m.measured, scale: m.scale, direction: m.direction, mean: { value: m.mean?.value }, passRate: { value: m.passRate?.value } })),\n};\nstore.history = [...(store.history ?? []), entry].slice(-30);\nreturn $input.all();",
				},
			},
			{
				name: 'Eval Report',
				type: `${P}.evalReport`,
				pos: [1200, 520],
				params: {
					title: 'Support agent in production',
					formats: ['slack', 'markdown'],
					options: {
						rows: "={{ $('Cost & Latency').all().map((item) => item.json) }}",
						history: "={{ $('Load History').first().json.history }}",
						runUrl:
							"={{ 'http://localhost:5678/workflow/' + $workflow.id + '/executions/' + $execution.id }}",
						maxWorstRows: 5,
						mention: 'here',
					},
				},
				notes: 'Change localhost:5678 in Options -> Run URL to your n8n address',
			},
			{
				name: 'Link Failing Executions',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [1440, 520],
				params: { jsCode: linkFailingExecutionsCode() },
				notes: "Each failing execution linked to n8n's execution view",
			},
			slackWebhook([1680, 520], '={{ JSON.stringify($json.slack) }}'),
			sticky(
				'Monitor',
				[-40, -320],
				[1000, 280],
				[
					'## Monitor the support agent in production',
					'Every hour: the executions of "RAG monitoring: the support agent in production" that are new',
					"since the last run (a watermark in this workflow's static data), a seeded **10%** of each status, judged",
					'without references, its tool calls against the tools it had. One Slack message a run, with links to',
					'the failing executions. **Change**: the judge-model credential of the seven judges, the n8n API credential of',
					'**Eval Executions** (`npm start` creates it), Run URL and the Slack webhook URL; then publish.',
					'What leaves n8n for the judge model: each sampled request, answer, retrieved context and tool calls',
					'(docs/monitoring-production.md).',
				].join('\n'),
			),
		],
		[
			['Every Hour', 'Eval Executions'],
			['Run Now', 'Eval Executions'],
			['Eval Executions', 'Groundedness'],
			['Groundedness', 'Relevance to Query'],
			['Relevance to Query', 'Safety'],
			['Safety', 'Content Safety'],
			['Content Safety', 'Intent Resolution'],
			['Intent Resolution', 'Task Adherence'],
			['Task Adherence', 'Tool Call Accuracy'],
			['Tool Call Accuracy', 'Cost & Latency'],
			['Cost & Latency', 'Eval Aggregate'],
			['Eval Aggregate', 'Load History'],
			['Load History', 'Regression Gate'],
			['Regression Gate', 'Save to History', 0],
			['Regression Gate', 'Save to History', 1],
			['Regression Gate', 'Eval Report', 2],
			['Save to History', 'Eval Report'],
			['Eval Report', 'Link Failing Executions'],
			['Link Failing Executions', 'Post to Slack'],
		],
	);

	return {
		'monitor-production-agent': monitor,
		'monitor-production-agent-app': app,
		'monitor-production-agent-kb': kb,
	};
};

/**
 * Code of "Link Failing Executions": adds to the Slack message one section listing the sampled
 * executions that failed a judge or a budget (or errored in n8n), each linked to its execution in
 * n8n (metadata.execution_url from Eval Executions), keeping within Slack's 50 blocks.
 */
function linkFailingExecutionsCode() {
	return [
		"const rows = $('Cost & Latency').all().map((item) => item.json);",
		'const failing = rows.filter((r) =>',
		"\tr.metadata?.status === 'error' ||",
		"\tObject.values(r.eval ?? {}).some((s) => s && (s.status === 'error' || (s.status === 'ok' && s.pass === false))),",
		');',
		'const report = $input.first().json;',
		'const slack = { ...report.slack, blocks: [...(report.slack?.blocks ?? [])] };',
		'if (failing.length > 0) {',
		'\tconst esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");',
		'\tconst lines = failing.slice(0, 20).map((r) => {',
		"\t\tconst why = Object.entries(r.eval ?? {}).filter(([, s]) => s && (s.status === 'error' || (s.status === 'ok' && s.pass === false))).map(([k]) => k);",
		"\t\tif (r.metadata?.status === 'error') why.unshift('execution failed');",
		'\t\tconst id = r.metadata?.execution_id ?? r.request_id;',
		'\t\tconst url = r.metadata?.execution_url;',
		"\t\treturn `• ${url ? `<${url}|execution ${esc(id)}>` : `execution ${esc(id)}`}: ${esc(why.join(', '))}`;",
		'\t});',
		'\tif (failing.length > 20) lines.push(`…and ${failing.length - 20} more`);',
		"\tconst section = { type: 'section', text: { type: 'mrkdwn', text: `*Failing executions (${failing.length})*\\n${lines.join('\\n')}`.slice(0, 3000) } };",
		'\t// Slack takes at most 50 blocks: the list replaces the last one when the report used them all.',
		'\tif (slack.blocks.length >= 50) slack.blocks.splice(49);',
		'\tslack.blocks.push(section);',
		'}',
		'return [{ json: { ...report, slack, failing_executions: failing.map((r) => r.metadata?.execution_id ?? r.request_id) } }];',
	].join('\n');
}
