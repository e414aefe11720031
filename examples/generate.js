#!/usr/bin/env node
// Writes the importable example workflows (examples/*.workflow.json) from the compact definitions
// below, embedding the bundled datasets so an imported workflow runs with no file on disk. Rerun
// after editing a dataset: the E2E specs check that the embedded copy matches the file.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const HERE = __dirname;
const P = 'n8n-nodes-rag-eval';
const dataset = (name) => fs.readFileSync(path.join(HERE, 'datasets', name), 'utf8').trim();

// Stable node ids keep re-imports idempotent and diffs readable.
function uuid(wfKey, i) {
	const hex = Buffer.from(`${wfKey}:${i}`).toString('hex').padEnd(32, '0').slice(0, 32);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function workflow(key, id, name, nodes, edges, extra = {}) {
	const byName = new Map();
	const built = nodes.map((n, i) => {
		const node = {
			id: uuid(key, i),
			name: n.name,
			type: n.type,
			typeVersion: n.v ?? 1,
			position: n.pos,
			parameters: n.params ?? {},
		};
		if (n.disabled) node.disabled = true;
		if (n.notes) {
			node.notes = n.notes;
			node.notesInFlow = true;
		}
		if (n.webhookId) node.webhookId = n.webhookId;
		if (n.credentials) node.credentials = n.credentials;
		byName.set(n.name, node);
		return node;
	});
	const connections = {};
	for (const [from, to, output = 0, type = 'main', input = 0] of edges) {
		if (!byName.has(from) || !byName.has(to)) throw new Error(`bad edge ${from} -> ${to}`);
		const c = (connections[from] ??= {});
		const list = (c[type] ??= []);
		while (list.length <= output) list.push([]);
		list[output].push({ node: to, type, index: input });
	}
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		tags: [],
		meta: { templateCredsSetupCompleted: true },
		pinData: {},
		nodes: built,
		connections,
		...extra,
	};
}

// Root-Cause Router outputs, from the declarations (build first): Pass, Incomplete, Custom Judge,
// then one per declared root-cause slot at its fixed position.
const ROUTER_OUTPUTS = require('../dist/src/rootcause').routerOutputNames();
const FAILING_OUTPUTS = ROUTER_OUTPUTS.map((_, i) => i).filter((i) => i !== 0 && i !== 1);

const nightly = workflow(
	'nightly',
	'ragEvalNightly001',
	'RAG evaluation: nightly run',
	[
		{
			name: 'Every Night',
			type: 'n8n-nodes-base.scheduleTrigger',
			v: 1.2,
			pos: [0, 0],
			params: { rule: { interval: [{ triggerAtHour: 2 }] } },
		},
		{ name: 'Run Now', type: 'n8n-nodes-base.manualTrigger', pos: [0, 200] },
		{
			name: 'Eval Dataset',
			type: `${P}.evalDataset`,
			pos: [240, 100],
			params: {
				source: 'text',
				text: dataset('rag-support-sample.jsonl'),
				format: 'jsonl',
				schema: 'auto',
			},
			notes: 'Bundled sample: examples/datasets/rag-support-sample.jsonl',
		},
		{
			name: 'Ask Your RAG App',
			type: 'n8n-nodes-base.httpRequest',
			v: 4.2,
			pos: [480, 100],
			disabled: true,
			params: {
				method: 'POST',
				url: 'https://rag.example.internal/answer',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ question: $json.request }) }}',
				options: {},
			},
			notes:
				'Enable and point at your RAG endpoint to score fresh answers; the sample carries responses',
		},
		{ name: 'F1 Score', type: `${P}.evalF1Score`, pos: [720, 100] },
		{ name: 'ROUGE', type: `${P}.evalRouge`, pos: [940, 100] },
		{
			name: 'Groundedness',
			type: `${P}.judgeGroundedness`,
			pos: [1160, 100],
			params: { threshold: 3 },
		},
		{ name: 'Relevance', type: `${P}.judgeRelevance`, pos: [1380, 100], params: { threshold: 3 } },
		{ name: 'Root-Cause Router', type: `${P}.rootCauseRouter`, pos: [1620, 100] },
		{
			name: 'Eval Aggregate',
			type: `${P}.evalAggregate`,
			pos: [1620, -200],
			params: { output: 'summary' },
		},
		{
			name: 'Load Last Run',
			type: 'n8n-nodes-base.code',
			v: 2,
			pos: [1840, -200],
			params: {
				jsCode:
					"// Last night's summary lives in this workflow's static data (kept for scheduled runs).\nconst store = $getWorkflowStaticData('global');\nreturn [{ json: { current: $input.first().json, baseline: store.lastSummary ?? null } }];",
			},
		},
		{
			name: 'Regression Gate',
			type: `${P}.regressionGate`,
			pos: [2060, -200],
			params: { current: '={{ $json.current }}', baseline: '={{ $json.baseline ?? "" }}' },
		},
		{
			name: 'Save This Run',
			type: 'n8n-nodes-base.code',
			v: 2,
			pos: [2300, -200],
			params: {
				jsCode:
					"// Tonight's summary becomes tomorrow's baseline, regressed or not.\nconst store = $getWorkflowStaticData('global');\nstore.lastSummary = $input.first().json.summary;\nreturn $input.all();",
			},
		},
		{
			name: 'Post Failures to Slack',
			type: 'n8n-nodes-base.slack',
			v: 2.3,
			pos: [1900, 0],
			disabled: true,
			params: {
				select: 'channel',
				channelId: { __rl: true, mode: 'name', value: '#rag-quality' },
				text: '={{ "RAG eval: \\"" + $json.request + "\\" failed on " + $json.root_cause + ". " + ($json.suggested_fix || "") }}',
				otherOptions: {},
			},
			notes: 'Add a Slack credential, then enable',
		},
		{
			name: 'Open GitHub Issue',
			type: 'n8n-nodes-base.github',
			v: 1.1,
			pos: [1900, 200],
			disabled: true,
			params: {
				owner: { __rl: true, mode: 'name', value: 'your-org' },
				repository: { __rl: true, mode: 'name', value: 'your-rag-app' },
				title: '={{ "RAG regression: " + $json.root_cause + " on " + $json.request_id }}',
				body: '={{ "Question: " + $json.request + "\\n\\nAnswer: " + $json.response + "\\n\\nWhy: " + ($json.root_cause_rationale || "") + "\\n\\nSuggested fix: " + ($json.suggested_fix || "") }}',
				labels: [{ label: 'rag-eval' }],
			},
			notes: 'Add a GitHub credential, then enable',
		},
	],
	[
		['Every Night', 'Eval Dataset'],
		['Run Now', 'Eval Dataset'],
		['Eval Dataset', 'Ask Your RAG App'],
		['Ask Your RAG App', 'F1 Score'],
		['F1 Score', 'ROUGE'],
		['ROUGE', 'Groundedness'],
		['Groundedness', 'Relevance'],
		['Relevance', 'Root-Cause Router'],
		['Relevance', 'Eval Aggregate'],
		['Eval Aggregate', 'Load Last Run'],
		['Load Last Run', 'Regression Gate'],
		['Regression Gate', 'Save This Run', 0],
		['Regression Gate', 'Save This Run', 1],
		...FAILING_OUTPUTS.map((i) => ['Root-Cause Router', 'Post Failures to Slack', i]),
		...FAILING_OUTPUTS.map((i) => ['Root-Cause Router', 'Open GitHub Issue', i]),
	],
);

const ciGate = workflow(
	'ci-gate',
	'ragEvalCiGate0001',
	'RAG evaluation: CI gate (webhook)',
	[
		{
			name: 'CI Calls',
			type: 'n8n-nodes-base.webhook',
			v: 2,
			pos: [0, 0],
			webhookId: 'b7d0c1c4-6a43-4f51-9f3c-5a1e0c9e2a11',
			params: {
				httpMethod: 'POST',
				path: 'rag-eval-ci',
				responseMode: 'responseNode',
				options: {},
			},
			notes: 'POST {"rows": [...]} in any supported dataset format',
		},
		{
			name: 'Rows From Request',
			type: 'n8n-nodes-base.splitOut',
			pos: [220, 0],
			params: { fieldToSplitOut: 'body.rows', options: {} },
		},
		{
			name: 'Eval Dataset',
			type: `${P}.evalDataset`,
			pos: [440, 0],
			params: { source: 'items', schema: 'auto' },
		},
		{ name: 'F1 Score', type: `${P}.evalF1Score`, pos: [660, 0], params: { threshold: 0.5 } },
		{ name: 'BLEU', type: `${P}.evalBleu`, pos: [880, 0], params: { threshold: 0.2 } },
		{
			name: 'Collect Rows',
			type: 'n8n-nodes-base.aggregate',
			pos: [1100, 0],
			params: { aggregate: 'aggregateAllItemData', destinationFieldName: 'rows', options: {} },
		},
		{
			name: 'Answer CI',
			type: 'n8n-nodes-base.respondToWebhook',
			v: 1.1,
			pos: [1320, 0],
			params: {
				respondWith: 'json',
				responseBody:
					'={{ (() => { const rows = $json.rows; const failed = rows.filter((r) => r.eval.f1_score.pass === false || r.eval.bleu.pass === false); const mean = (k) => { const v = rows.map((r) => r.eval[k].value).filter((x) => typeof x === "number"); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; }; return { pass: failed.length === 0, rows: rows.length, failed: failed.map((r) => r.request_id), f1_mean: mean("f1_score"), bleu_mean: mean("bleu") }; })() }}',
				options: { responseCode: 200 },
			},
		},
	],
	[
		['CI Calls', 'Rows From Request'],
		['Rows From Request', 'Eval Dataset'],
		['Eval Dataset', 'F1 Score'],
		['F1 Score', 'BLEU'],
		['BLEU', 'Collect Rows'],
		['Collect Rows', 'Answer CI'],
	],
);

// Batches run as sub-workflow executions that each return a mergeable partial; the parent merges
// the partials into exactly the summary one pass would give (and, behind a webhook on queue-mode
// n8n, each batch can run on a different worker).
const batchWorker = workflow(
	'batch-worker',
	'ragEvalBatchWork01',
	'RAG evaluation: batch worker (sub-workflow)',
	[
		{
			name: 'Batch In',
			type: 'n8n-nodes-base.executeWorkflowTrigger',
			v: 1.1,
			pos: [0, 0],
			params: { inputSource: 'passthrough' },
		},
		{ name: 'F1 Score', type: `${P}.evalF1Score`, pos: [220, 0] },
		{ name: 'BLEU', type: `${P}.evalBleu`, pos: [440, 0] },
		{ name: 'ROUGE', type: `${P}.evalRouge`, pos: [660, 0] },
		{
			name: 'Partial Aggregate',
			type: `${P}.evalAggregate`,
			pos: [880, 0],
			params: { output: 'partial' },
		},
	],
	[
		['Batch In', 'F1 Score'],
		['F1 Score', 'BLEU'],
		['BLEU', 'ROUGE'],
		['ROUGE', 'Partial Aggregate'],
	],
);

const batched = workflow(
	'batched',
	'ragEvalBatched0001',
	'RAG evaluation: batched (sub-workflows, queue mode ready)',
	[
		{ name: 'Run', type: 'n8n-nodes-base.manualTrigger', pos: [0, 0] },
		{
			name: 'Eval Dataset',
			type: `${P}.evalDataset`,
			pos: [220, 0],
			params: {
				source: 'text',
				text: dataset('rag-support-sample.jsonl'),
				format: 'jsonl',
				schema: 'auto',
			},
			notes: 'Bundled sample: examples/datasets/rag-support-sample.jsonl',
		},
		{
			name: 'Batches of 3',
			type: 'n8n-nodes-base.splitInBatches',
			v: 3,
			pos: [440, 0],
			params: { batchSize: 3, options: {} },
		},
		{
			name: 'Evaluate Batch',
			type: 'n8n-nodes-base.executeWorkflow',
			v: 1.2,
			pos: [660, 120],
			params: {
				source: 'database',
				workflowId: { __rl: true, mode: 'id', value: batchWorker.id },
				mode: 'once',
				options: { waitForSubWorkflow: true },
			},
			notes: 'Runs "RAG evaluation: batch worker" on each batch',
		},
		{
			name: 'Merged Summary',
			type: `${P}.evalAggregate`,
			pos: [880, -120],
			params: { output: 'summary' },
		},
	],
	[
		['Run', 'Eval Dataset'],
		['Eval Dataset', 'Batches of 3'],
		['Batches of 3', 'Merged Summary', 0],
		['Batches of 3', 'Evaluate Batch', 1],
		['Evaluate Batch', 'Batches of 3'],
	],
);

// Queue mode: a sub-workflow started by Execute Workflow runs inside its parent's process, so to
// spread batches over workers each batch is its own webhook execution, queued by n8n main.
const queueWorker = workflow(
	'queue-worker',
	'ragEvalQueueWork01',
	'RAG evaluation: queue batch worker (webhook)',
	[
		{
			name: 'Batch Webhook',
			type: 'n8n-nodes-base.webhook',
			v: 2,
			pos: [0, 0],
			webhookId: '3f0b8a52-2c1d-4b7e-9d55-6e2a4c1f0b21',
			params: { httpMethod: 'POST', path: 'rag-eval-batch', responseMode: 'lastNode', options: {} },
			notes: 'POST {"rows": [...canonical rows]}; answers with a mergeable partial',
		},
		{
			name: 'Rows',
			type: 'n8n-nodes-base.splitOut',
			pos: [220, 0],
			params: { fieldToSplitOut: 'body.rows', options: {} },
		},
		{ name: 'F1 Score', type: `${P}.evalF1Score`, pos: [440, 0] },
		{ name: 'BLEU', type: `${P}.evalBleu`, pos: [660, 0] },
		{ name: 'ROUGE', type: `${P}.evalRouge`, pos: [880, 0] },
		{
			name: 'Partial Aggregate',
			type: `${P}.evalAggregate`,
			pos: [1100, 0],
			params: { output: 'partial' },
		},
	],
	[
		['Batch Webhook', 'Rows'],
		['Rows', 'F1 Score'],
		['F1 Score', 'BLEU'],
		['BLEU', 'ROUGE'],
		['ROUGE', 'Partial Aggregate'],
	],
);

const queueParent = workflow(
	'queue-parent',
	'ragEvalQueueMain01',
	'RAG evaluation: batched over queue-mode workers (webhook)',
	[
		{
			name: 'Start Run',
			type: 'n8n-nodes-base.webhook',
			v: 2,
			pos: [0, 0],
			webhookId: '9a7c4e13-5b2f-4d6a-8e01-2c3b4d5e6f70',
			params: {
				httpMethod: 'POST',
				path: 'rag-eval-batched',
				responseMode: 'lastNode',
				options: {},
			},
			notes: 'POST {} to run; answers with the merged summary',
		},
		{
			name: 'Eval Dataset',
			type: `${P}.evalDataset`,
			pos: [220, 0],
			params: {
				source: 'text',
				text: dataset('rag-support-sample.jsonl'),
				format: 'jsonl',
				schema: 'auto',
			},
		},
		{
			name: 'Batches',
			type: 'n8n-nodes-base.splitInBatches',
			v: 3,
			pos: [440, 0],
			params: { batchSize: '={{ $("Start Run").first().json.body.batchSize || 2 }}', options: {} },
		},
		{
			name: 'Batch Rows',
			type: 'n8n-nodes-base.aggregate',
			pos: [660, 120],
			params: { aggregate: 'aggregateAllItemData', destinationFieldName: 'rows', options: {} },
		},
		{
			name: 'Queue Batch',
			type: 'n8n-nodes-base.httpRequest',
			v: 4.2,
			pos: [880, 120],
			params: {
				method: 'POST',
				url: '={{ "http://" + $("Start Run").first().json.headers.host + "/webhook/rag-eval-batch" }}',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ rows: $json.rows }) }}',
				options: {},
			},
			notes: 'Each batch is a new execution that n8n main queues for any worker',
		},
		{
			name: 'Merged Summary',
			type: `${P}.evalAggregate`,
			pos: [660, -120],
			params: { output: 'summary' },
		},
	],
	[
		['Start Run', 'Eval Dataset'],
		['Eval Dataset', 'Batches'],
		['Batches', 'Merged Summary', 0],
		['Batches', 'Batch Rows', 1],
		['Batch Rows', 'Queue Batch'],
		['Queue Batch', 'Batches'],
	],
);

// An n8n AI Agent answers every dataset question; its answers are paired back with the rows
// and judged. The Chat Model uses n8n's own OpenAI credential (any OpenAI-compatible base URL).
const agent = workflow(
	'agent',
	'ragEvalAgent000001',
	'RAG evaluation: an n8n AI Agent',
	[
		{ name: 'Run', type: 'n8n-nodes-base.manualTrigger', pos: [0, 0] },
		{
			name: 'Eval Dataset',
			type: `${P}.evalDataset`,
			pos: [220, 0],
			params: {
				source: 'text',
				text: dataset('rag-support-sample.jsonl'),
				format: 'jsonl',
				schema: 'auto',
			},
		},
		{
			name: 'Support Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			v: 3,
			pos: [480, 120],
			params: {
				promptType: 'define',
				text: '={{ $json.request }}',
				options: {
					systemMessage:
						'=You answer customer support questions in one or two sentences, using only these documents:\n{{ ($json.retrieved_context || []).map((c) => c.content).join("\\n") }}',
				},
			},
		},
		{
			name: 'Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			v: 1.2,
			pos: [480, 320],
			params: {
				model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
				options: { temperature: 0 },
			},
			notes: 'Set an OpenAI credential (or an OpenAI-compatible base URL)',
		},
		{
			name: 'Pair Answers With Rows',
			type: 'n8n-nodes-base.merge',
			v: 3.2,
			pos: [760, 0],
			params: { mode: 'combine', combineBy: 'combineByPosition', options: {} },
		},
		{
			name: 'F1 Score',
			type: `${P}.evalF1Score`,
			pos: [980, 0],
			params: { response: '={{ $json.output }}' },
		},
		{
			name: 'Relevance',
			type: `${P}.judgeRelevance`,
			pos: [1200, 0],
			params: { response: '={{ $json.output }}', threshold: 3 },
		},
		{
			name: 'Groundedness',
			type: `${P}.judgeGroundedness`,
			pos: [1420, 0],
			params: { response: '={{ $json.output }}', threshold: 3 },
		},
		{
			name: 'Eval Aggregate',
			type: `${P}.evalAggregate`,
			pos: [1640, 0],
			params: { output: 'summary' },
		},
	],
	[
		['Run', 'Eval Dataset'],
		['Eval Dataset', 'Pair Answers With Rows', 0, 'main', 0],
		['Eval Dataset', 'Support Agent'],
		['Support Agent', 'Pair Answers With Rows', 0, 'main', 1],
		['Chat Model', 'Support Agent', 0, 'ai_languageModel'],
		['Pair Answers With Rows', 'F1 Score'],
		['F1 Score', 'Relevance'],
		['Relevance', 'Groundedness'],
		['Groundedness', 'Eval Aggregate'],
	],
);

// Evaluate in n8n's Evaluations tab: n8n's test runner runs this workflow once per Data Table row
// (Evaluation Trigger), our judges and metrics score the row with Output Format "flat", and the
// Evaluation node's Set Metrics hands the numbers to the Evaluations tab. `npm start` creates the
// Data Table from the bundled dataset and points the trigger at it (scripts/start.js).
const EVALUATIONS_TABLE = 'rag-eval-support-sample';
const FLAT = { options: { outputFormat: 'flat' } };
const evaluationsTab = workflow(
	'evaluationsTab',
	'ragEvalEvalTab001',
	"RAG evaluation: n8n's Evaluations tab",
	[
		{
			name: 'When Fetching a Dataset Row',
			type: 'n8n-nodes-base.evaluationTrigger',
			v: 4.7,
			pos: [0, 0],
			params: {
				source: 'dataTable',
				dataTableId: { __rl: true, mode: 'id', value: EVALUATIONS_TABLE },
			},
			notes: `Data Table "${EVALUATIONS_TABLE}" (npm start creates it from examples/datasets)`,
		},
		{
			name: 'Eval Dataset',
			type: `${P}.evalDataset`,
			pos: [240, 0],
			params: { source: 'items', schema: 'auto' },
			notes: 'Maps the row (Azure query/context/response/ground_truth) onto the canonical fields',
		},
		{
			name: 'Ask Your RAG App',
			type: 'n8n-nodes-base.httpRequest',
			v: 4.2,
			pos: [480, 0],
			disabled: true,
			params: {
				method: 'POST',
				url: 'https://rag.example.internal/answer',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ question: $json.request }) }}',
				options: {},
			},
			notes: 'Enable to score fresh answers; the sample rows carry responses',
		},
		{ name: 'F1 Score', type: `${P}.evalF1Score`, pos: [720, 0], params: FLAT },
		{ name: 'ROUGE', type: `${P}.evalRouge`, pos: [940, 0], params: FLAT },
		{
			name: 'Groundedness',
			type: `${P}.judgeGroundedness`,
			pos: [1160, 0],
			params: { threshold: 3, ...FLAT },
		},
		{
			name: 'Relevance',
			type: `${P}.judgeRelevance`,
			pos: [1380, 0],
			params: { threshold: 3, ...FLAT },
		},
		{
			name: 'Set Metrics',
			type: 'n8n-nodes-base.evaluation',
			v: 4.7,
			pos: [1620, 0],
			params: {
				operation: 'setMetrics',
				metric: 'customMetrics',
				metrics: {
					assignments: ['f1_score', 'rougeL', 'groundedness', 'relevance'].map((key, i) => ({
						id: uuid('evaluationsTabMetric', i),
						name: key,
						// A row that could not be scored has no number, and Set Metrics then fails that
						// row's test case: an error, never a fake score in the averages.
						value: `={{ $json.${key} }}`,
						type: 'number',
					})),
				},
			},
			notes: 'Numbers only: our nodes add <key>: number with Output Format "flat"',
		},
	],
	[
		['When Fetching a Dataset Row', 'Eval Dataset'],
		['Eval Dataset', 'F1 Score'],
		['F1 Score', 'ROUGE'],
		['ROUGE', 'Groundedness'],
		['Groundedness', 'Relevance'],
		['Relevance', 'Set Metrics'],
	],
);

const out = {
	'agent-evaluation': agent,
	'batched-queue-mode': queueParent,
	'batched-queue-mode-worker': queueWorker,
	'nightly-rag-evaluation': nightly,
	'ci-gate': ciGate,
	'batched-evaluation': batched,
	'batched-evaluation-worker': batchWorker,
	'evaluations-tab': evaluationsTab,
};
for (const [name, wf] of Object.entries(out)) {
	fs.writeFileSync(path.join(HERE, `${name}.workflow.json`), `${JSON.stringify(wf, null, '\t')}\n`);
	console.log(`wrote examples/${name}.workflow.json (${wf.nodes.length} nodes)`);
}
