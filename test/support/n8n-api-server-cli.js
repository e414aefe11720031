#!/usr/bin/env node
/**
 * A local stand-in for n8n's public REST API (`/api/v1`) on 127.0.0.1, for Eval Executions'
 * tests, examples and bench (plain JS, no build step). It answers as n8n 2.41's public API does:
 *
 * - `X-N8N-API-KEY` checked on every request (401 `{message}` without or with a wrong key);
 * - `GET /workflows/{id}` (404 when missing), `GET /workflows` (one page);
 * - `GET /executions?workflowId&status&includeData&limit&cursor&startedAfter`: newest first,
 *   `{data, nextCursor}` with n8n's cursor (base64 JSON `{lastId, limit}`), limit 1..250 (400
 *   above), an unknown workflow gives `{data: [], nextCursor: null}` as n8n does;
 * - `GET /executions/{id}?includeData` (404 when gone).
 *
 * Faults: executions without saved data (`data` left out), too large to read
 * (`dataTooLargeToDisplay`), pruned between listing and reading (404 on GET), and an HTTP 500 on
 * the n-th list page, and a server that refuses `startedAfter` as n8n 1.x does (`noStartedAfter`). Executions are generated in n8n's shapes (AI Agent with tools and a
 * retriever, a retrieval QA chain, an HTTP call to a model, a failed agent run) by the builders
 * exported here; pages are served from each execution's JSON text built once.
 *
 *   node test/support/n8n-api-server-cli.js [--port 0] [--key KEY] [--executions 10000] [--workflow wf-1]
 *
 * prints `N8N_API_URL=http://127.0.0.1:<port>/api/v1` once listening; `GET /__stats` (no key)
 * returns request counts.
 */
'use strict';
const http = require('node:http');

const MAX_PAGE = 250;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/** A deterministic pseudo-random stream (mulberry32). */
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const QUESTIONS = [
	['Is order {n} shipped yet?', 'Order {n} shipped on 28 November via DHL, tracking JD{n}.'],
	['Can I return the blue jacket from order {n}?', 'Yes: order {n} is within the 30-day return window; start the return under My Orders.'],
	['When is phone support open?', 'Phone support is open 8:00-18:00 CET on weekdays.'],
	['Do you ship to Norway?', 'Yes, we ship to Norway; delivery takes 3-5 business days and customs are prepaid.'],
	['What is the warranty on the X200 headphones?', 'The X200 headphones carry a two-year warranty covering defects, not wear.'],
];

const DOCS = [
	['kb/shipping.md', 'Orders ship within 2 business days. DHL tracking is sent by email once an order ships.'],
	['kb/returns.md', 'Items can be returned within 30 days of delivery if unworn and with tags attached.'],
	['kb/support.md', 'Our support line is open 8:00-18:00 CET on weekdays. Weekend support is email only.'],
	['kb/international.md', 'We ship to all EU and EEA countries. Customs duties for Norway and Switzerland are prepaid.'],
	['kb/warranty.md', 'Electronics carry a two-year warranty against manufacturing defects.'],
];

const SYSTEM =
	'You are the customer assistant of an online shop. Answer from the order system and the product documentation only. ' +
	'If you do not know, say so and offer to hand over to a person. Keep answers under 80 words and never invent order data.';

const iso = (ms) => new Date(ms).toISOString();

/** The workflow of an AI Agent app, as n8n stores it (the API returns it as `workflowData`). */
function agentWorkflow(workflowId) {
	return {
		id: workflowId,
		name: 'Shop assistant',
		active: true,
		nodes: [
			{ id: 'n1', name: 'When chat message received', type: '@n8n/n8n-nodes-langchain.chatTrigger', typeVersion: 1.1, position: [0, 0], parameters: { public: true, options: {} }, webhookId: 'c5b1b9c2-0000-4000-8000-000000000001' },
			{ id: 'n2', name: 'AI Agent', type: '@n8n/n8n-nodes-langchain.agent', typeVersion: 1.7, position: [220, 0], parameters: { options: { systemMessage: SYSTEM } } },
			{ id: 'n3', name: 'OpenAI Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatOpenAi', typeVersion: 1.2, position: [100, 200], parameters: { model: { __rl: true, value: 'gpt-4o-mini', mode: 'list' }, options: { temperature: 0.2 } }, credentials: { openAiApi: { id: 'cred1', name: 'OpenAI account' } } },
			{ id: 'n4', name: 'Get Order', type: '@n8n/n8n-nodes-langchain.toolHttpRequest', typeVersion: 1.1, position: [260, 200], parameters: { toolDescription: 'Look up an order by its number', url: 'https://orders.example.com/api/orders/{order_id}', placeholderDefinitions: { values: [{ name: 'order_id', type: 'string' }] } } },
			{ id: 'n5', name: 'Docs Tool', type: '@n8n/n8n-nodes-langchain.toolVectorStore', typeVersion: 1, position: [420, 200], parameters: { name: 'product_docs', description: 'Shop policies and product documentation' } },
			{ id: 'n6', name: 'Product Docs', type: '@n8n/n8n-nodes-langchain.vectorStorePinecone', typeVersion: 1, position: [420, 400], parameters: { pineconeIndex: { __rl: true, value: 'shop-docs', mode: 'list' } } },
			{ id: 'n7', name: 'Embeddings OpenAI', type: '@n8n/n8n-nodes-langchain.embeddingsOpenAi', typeVersion: 1.2, position: [420, 560], parameters: { options: {} } },
		],
		connections: {
			'When chat message received': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			'Get Order': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			'Docs Tool': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			'Product Docs': { ai_vectorStore: [[{ node: 'Docs Tool', type: 'ai_vectorStore', index: 0 }]] },
			'Embeddings OpenAI': { ai_embedding: [[{ node: 'Product Docs', type: 'ai_embedding', index: 0 }]] },
		},
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
		staticData: null,
		pinData: {},
	};
}

function llmRun(start, took, index, messages, text, usage, finish) {
	return {
		startTime: start,
		executionIndex: index,
		executionTime: took,
		executionStatus: 'success',
		source: [{ previousNode: 'AI Agent', previousNodeRun: 0 }],
		inputOverride: {
			ai_languageModel: [[{ json: { messages, estimatedTokens: Math.round(messages.join('').length / 4), options: { openai_api_key: { lc: 1, type: 'secret', id: ['OPENAI_API_KEY'] }, model: 'gpt-4o-mini', temperature: 0.2, timeout: 60000, max_retries: 2, configuration: { baseURL: 'https://api.openai.com/v1' }, model_kwargs: {} } } }]],
		},
		data: {
			ai_languageModel: [[{ json: { response: { generations: [[{ text, generationInfo: { prompt: 0, completion: 0, finish_reason: finish, model_name: 'gpt-4o-mini' } }]] }, tokenUsage: usage } }]],
		},
	};
}

/**
 * An AI Agent execution as `GET /executions?includeData=true` returns it: chat trigger, agent
 * with a Chat Model called twice (tool call, answer), an HTTP tool and a vector-store tool with
 * its retriever. `status: 'error'` gives a run whose second model call failed.
 */
function agentExecution(id, options = {}) {
	const workflowId = options.workflowId ?? 'wf-agent';
	const startedMs = options.startedMs ?? Date.UTC(2026, 10, 30, 9, 0, 0) + Number(id) * 60_000;
	const r = rng(Number(id) * 7919 + 17);
	const [q, a] = QUESTIONS[Number(id) % QUESTIONS.length];
	const n = String(4000 + (Number(id) % 997));
	const question = q.replace(/\{n\}/g, n);
	const answer = a.replace(/\{n\}/g, n);
	const docs = [DOCS[Number(id) % DOCS.length], DOCS[(Number(id) + 1) % DOCS.length]];
	const failed = options.status === 'error';
	const t0 = startedMs + 3;
	const lm1 = 900 + Math.floor(r() * 600);
	const tool = 300 + Math.floor(r() * 400);
	const lm2 = 700 + Math.floor(r() * 900);
	const prompt1 = `System: ${SYSTEM}\nHuman: ${question}`;
	const toolOut = JSON.stringify({ order_id: n, status: 'shipped', carrier: 'DHL', tracking: `JD${n}`, items: [{ sku: 'X200', qty: 1 }] });
	const promptTokens = 420 + Math.floor(r() * 200);
	const runData = {
		'When chat message received': [
			{ startTime: t0, executionIndex: 0, executionTime: 1, executionStatus: 'success', source: [], data: { main: [[{ json: { sessionId: `s-${id}`, action: 'sendMessage', chatInput: question } }]] } },
		],
		'OpenAI Chat Model': [
			llmRun(t0 + 20, lm1, 2, [prompt1], '', { completionTokens: 22, promptTokens, totalTokens: promptTokens + 22 }, 'tool_calls'),
		],
		'Get Order': [
			{ startTime: t0 + 40 + lm1, executionIndex: 3, executionTime: tool, executionStatus: 'success', source: [null], inputOverride: { ai_tool: [[{ json: { query: { order_id: n } } }]] }, data: { ai_tool: [[{ json: { response: toolOut } }]] } },
		],
		'Docs Tool': [
			{ startTime: t0 + 45 + lm1, executionIndex: 4, executionTime: tool - 20, executionStatus: 'success', inputOverride: { ai_tool: [[{ json: { query: question } }]] }, data: { ai_tool: [[{ json: { response: docs.map((d) => d[1]).join('\n') } }]] } },
		],
		'Product Docs': [
			{ startTime: t0 + 50 + lm1, executionIndex: 5, executionTime: tool - 60, executionStatus: 'success', inputOverride: { ai_vectorStore: [[{ json: { query: question } }]] }, data: { ai_vectorStore: [[{ json: { response: docs.map(([source, pageContent]) => ({ pageContent, metadata: { source, loc: { lines: { from: 1, to: 3 } } } })) } }]] } },
		],
	};
	const t2 = t0 + 60 + lm1 + tool;
	let error;
	if (failed) {
		error = { message: 'Rate limit reached for gpt-4o-mini in organization org-test on tokens per min (TPM)', name: 'NodeApiError', node: { name: 'OpenAI Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatOpenAi' }, httpCode: '429', timestamp: t2 + 5 };
		runData['OpenAI Chat Model'].push({ startTime: t2, executionIndex: 6, executionTime: 5, executionStatus: 'error', source: [{ previousNode: 'AI Agent', previousNodeRun: 0 }], error, inputOverride: runData['OpenAI Chat Model'][0].inputOverride });
		runData['AI Agent'] = [{ startTime: t0 + 10, executionIndex: 1, executionTime: t2 - t0, executionStatus: 'error', source: [{ previousNode: 'When chat message received' }], error }];
	} else {
		const p2 = promptTokens + 160;
		const c2 = 30 + Math.floor(r() * 40);
		runData['OpenAI Chat Model'].push(llmRun(t2, lm2, 6, [`${prompt1}\nAI: \nTool: ${toolOut}\nTool: ${docs.map((d) => d[1]).join(' ')}`], answer, { completionTokens: c2, promptTokens: p2, totalTokens: p2 + c2 }, 'stop'));
		runData['AI Agent'] = [{ startTime: t0 + 10, executionIndex: 1, executionTime: t2 + lm2 - t0, executionStatus: 'success', source: [{ previousNode: 'When chat message received' }], data: { main: [[{ json: { output: answer } }]] } }];
	}
	const stopped = failed ? t2 + 10 : t2 + lm2 + 15;
	return {
		id: String(id),
		finished: !failed,
		mode: 'webhook',
		retryOf: null,
		retrySuccessId: null,
		status: failed ? 'error' : 'success',
		startedAt: iso(startedMs),
		stoppedAt: iso(stopped),
		workflowId,
		waitTill: null,
		customData: {},
		data: {
			version: 1,
			startData: {},
			resultData: { runData, lastNodeExecuted: failed ? 'AI Agent' : 'AI Agent', ...(failed ? { error } : {}) },
			executionData: { contextData: {}, nodeExecutionStack: [], metadata: {}, waitingExecution: {}, waitingExecutionSource: {} },
		},
		workflowData: agentWorkflow(workflowId),
		workflowVersionId: 'v1',
	};
}

/** A Question and Answer Chain with a retriever, triggered by a webhook (`body.question`). */
function chainExecution(id, options = {}) {
	const workflowId = options.workflowId ?? 'wf-chain';
	const startedMs = options.startedMs ?? Date.UTC(2026, 10, 30, 9, 0, 0) + Number(id) * 60_000;
	const t0 = startedMs + 2;
	const question = 'When is phone support open?';
	const answer = 'Phone support is open 8:00-18:00 CET on weekdays; at weekends, write to us.';
	const docs = [
		{ pageContent: 'Our support line is open 8:00-18:00 CET on weekdays.', metadata: { source: 'handbook/support.md' } },
		{ pageContent: 'Weekend support is email only.', metadata: { source: 'handbook/weekend.md' } },
	];
	return {
		id: String(id),
		finished: true,
		mode: 'webhook',
		status: 'success',
		startedAt: iso(startedMs),
		stoppedAt: iso(t0 + 2500),
		workflowId,
		waitTill: null,
		customData: {},
		data: {
			resultData: {
				runData: {
					Webhook: [{ startTime: t0, executionIndex: 0, executionTime: 1, executionStatus: 'success', source: [], data: { main: [[{ json: { headers: { host: 'shop.example.com' }, params: {}, query: {}, body: { question } } }]] } }],
					'Question and Answer Chain': [{ startTime: t0 + 5, executionIndex: 1, executionTime: 2400, executionStatus: 'success', source: [{ previousNode: 'Webhook' }], data: { main: [[{ json: { response: { text: answer } } }]] } }],
					'Vector Store Retriever': [{ startTime: t0 + 10, executionIndex: 2, executionTime: 300, executionStatus: 'success', source: [{ previousNode: 'Question and Answer Chain', previousNodeRun: 0 }], inputOverride: { ai_retriever: [[{ json: { query: question } }]] }, data: { ai_retriever: [[{ json: { response: docs } }]] } }],
					'Ollama Chat Model': [{ startTime: t0 + 320, executionIndex: 3, executionTime: 2050, executionStatus: 'success', source: [{ previousNode: 'Question and Answer Chain', previousNodeRun: 0 }], inputOverride: { ai_languageModel: [[{ json: { messages: [`System: Use the context to answer.\nHuman: ${question}`], estimatedTokens: 96, options: { base_url: 'http://127.0.0.1:11434', model: 'llama3.2:3b' } } }]] }, data: { ai_languageModel: [[{ json: { response: { generations: [[{ text: answer, generationInfo: {} }]] }, tokenUsageEstimate: { completionTokens: 19, promptTokens: 96, totalTokens: 115 } } }]] } }],
					'Respond to Webhook': [{ startTime: t0 + 2410, executionIndex: 4, executionTime: 20, executionStatus: 'success', source: [{ previousNode: 'Question and Answer Chain' }], data: { main: [[{ json: { response: { text: answer } } }]] } }],
				},
				lastNodeExecuted: 'Respond to Webhook',
			},
		},
		workflowData: {
			id: workflowId,
			name: 'Support QA',
			nodes: [
				{ name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: { path: 'ask', responseMode: 'responseNode' } },
				{ name: 'Question and Answer Chain', type: '@n8n/n8n-nodes-langchain.chainRetrievalQa', typeVersion: 1.4, parameters: { promptType: 'define', text: '={{ $json.body.question }}' } },
				{ name: 'Vector Store Retriever', type: '@n8n/n8n-nodes-langchain.retrieverVectorStore', typeVersion: 1, parameters: {} },
				{ name: 'Ollama Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatOllama', typeVersion: 1, parameters: { model: 'llama3.2:3b' } },
				{ name: 'Respond to Webhook', type: 'n8n-nodes-base.respondToWebhook', typeVersion: 1.1, parameters: {} },
			],
			connections: {
				Webhook: { main: [[{ node: 'Question and Answer Chain', type: 'main', index: 0 }]] },
				'Question and Answer Chain': { main: [[{ node: 'Respond to Webhook', type: 'main', index: 0 }]] },
				'Vector Store Retriever': { ai_retriever: [[{ node: 'Question and Answer Chain', type: 'ai_retriever', index: 0 }]] },
				'Ollama Chat Model': { ai_languageModel: [[{ node: 'Question and Answer Chain', type: 'ai_languageModel', index: 0 }]] },
			},
		},
	};
}

/** A workflow that calls its model with an HTTP Request node (OpenAI-compatible chat completion). */
function httpExecution(id, options = {}) {
	const workflowId = options.workflowId ?? 'wf-http';
	const startedMs = options.startedMs ?? Date.UTC(2026, 10, 30, 9, 0, 0) + Number(id) * 60_000;
	const t0 = startedMs + 2;
	const prompt = 'Summarise: the parcel left the warehouse on Monday and arrives Thursday.';
	return {
		id: String(id),
		finished: true,
		mode: 'trigger',
		status: 'success',
		startedAt: iso(startedMs),
		stoppedAt: iso(t0 + 900),
		workflowId,
		waitTill: null,
		customData: {},
		data: {
			resultData: {
				runData: {
					Schedule: [{ startTime: t0, executionIndex: 0, executionTime: 1, executionStatus: 'success', source: [], data: { main: [[{ json: { timestamp: iso(t0) } }]] } }],
					'Build Prompt': [{ startTime: t0 + 3, executionIndex: 1, executionTime: 2, executionStatus: 'success', source: [{ previousNode: 'Schedule' }], data: { main: [[{ json: { prompt } }]] } }],
					'Call Model': [{ startTime: t0 + 6, executionIndex: 2, executionTime: 850, executionStatus: 'success', source: [{ previousNode: 'Build Prompt' }], data: { main: [[{ json: { id: 'chatcmpl-1', object: 'chat.completion', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'The parcel ships Monday and arrives Thursday.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 31, completion_tokens: 11, total_tokens: 42 } } }]] } }],
					'Store Answer': [{ startTime: t0 + 860, executionIndex: 3, executionTime: 12, executionStatus: 'success', source: [{ previousNode: 'Call Model' }], data: { main: [[{ json: { saved: true } }]] } }],
				},
				lastNodeExecuted: 'Store Answer',
			},
		},
		workflowData: {
			id: workflowId,
			name: 'Summariser',
			nodes: [
				{ name: 'Schedule', type: 'n8n-nodes-base.scheduleTrigger', typeVersion: 1.2, parameters: {} },
				{ name: 'Build Prompt', type: 'n8n-nodes-base.set', typeVersion: 3.4, parameters: {} },
				{ name: 'Call Model', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions' } },
				{ name: 'Store Answer', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
			],
			connections: {
				Schedule: { main: [[{ node: 'Build Prompt', type: 'main', index: 0 }]] },
				'Build Prompt': { main: [[{ node: 'Call Model', type: 'main', index: 0 }]] },
				'Call Model': { main: [[{ node: 'Store Answer', type: 'main', index: 0 }]] },
			},
		},
	};
}

/** What the API returns without `includeData`: the execution's summary fields only. */
function summaryOf(e) {
	const { data: _d, workflowData: _w, customData: _c, dataTooLargeToDisplay: _t, ...rest } = e;
	return rest;
}

/**
 * The server. `executions` in any order (newest first is served); `faults`:
 * `noData` (ids listed without `data`), `tooLarge` (ids with `dataTooLargeToDisplay` and empty
 * run data), `prunedOnRead` (ids listed but 404 when read one by one), `failPage` (list request
 * number that answers HTTP 500), `latencyMs` per request.
 */
function createN8nApiServer(options = {}) {
	const apiKey = options.apiKey ?? 'test-n8n-api-key';
	const workflows = new Map((options.workflows ?? [{ id: 'wf-agent', name: 'Shop assistant' }]).map((w) => [String(w.id), w]));
	const faults = { noData: new Set(), tooLarge: new Set(), prunedOnRead: new Set(), failPage: 0, latencyMs: 0, noStartedAfter: false, ...(options.faults ?? {}) };
	for (const k of ['noData', 'tooLarge', 'prunedOnRead']) faults[k] = new Set([...(faults[k] ?? [])].map(String));
	/** id -> { e, full: JSON text with data, summary: JSON text without } */
	const store = new Map();
	let sorted = null;
	const stats = { requests: 0, listRequests: 0, getRequests: 0, unauthorized: 0, paths: [] };

	function add(e) {
		let x = e;
		const id = String(x.id);
		if (faults.noData.has(id)) x = summaryOf(x);
		else if (faults.tooLarge.has(id))
			x = { ...x, data: { resultData: { runData: {} }, executionData: { nodeExecutionStack: [] } }, dataTooLargeToDisplay: true };
		store.set(id, { e: x, full: null, summary: null });
		sorted = null;
	}
	for (const e of options.executions ?? []) add(e);

	const idNum = (id) => BigInt(/^\d+$/.test(id) ? id : '0');
	function order() {
		if (!sorted) sorted = [...store.keys()].sort((a, b) => (idNum(b) > idNum(a) ? 1 : idNum(b) < idNum(a) ? -1 : 0));
		return sorted;
	}
	function textOf(id, withData) {
		const s = store.get(id);
		if (withData) return (s.full ??= JSON.stringify(s.e));
		return (s.summary ??= JSON.stringify(summaryOf(s.e)));
	}
	const send = (res, status, text) => {
		res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
		res.end(text);
	};
	const json = (res, status, body) => send(res, status, JSON.stringify(body));

	async function handle(req, res) {
		const url = new URL(req.url, 'http://127.0.0.1');
		if (url.pathname === '/__stats') return json(res, 200, stats);
		stats.requests++;
		stats.paths.push(url.pathname + url.search);
		if (faults.latencyMs) await new Promise((r) => setTimeout(r, faults.latencyMs));
		const key = req.headers['x-n8n-api-key'];
		if (!key) {
			stats.unauthorized++;
			return json(res, 401, { message: "'X-N8N-API-KEY' header required" });
		}
		if (key !== apiKey) {
			stats.unauthorized++;
			return json(res, 401, { message: 'unauthorized' });
		}
		const path = url.pathname.replace(/^\/api\/v1/, '');
		let m;
		if (path === '/workflows') {
			return json(res, 200, { data: [...workflows.values()].map((w) => ({ id: String(w.id), name: w.name, active: true })), nextCursor: null });
		}
		if ((m = /^\/workflows\/([^/]+)$/.exec(path))) {
			const w = workflows.get(decodeURIComponent(m[1]));
			return w ? json(res, 200, { id: String(w.id), name: w.name, active: true, nodes: [], connections: {}, settings: {} }) : json(res, 404, { message: 'Not Found' });
		}
		if (path === '/executions') {
			stats.listRequests++;
			if (faults.failPage && stats.listRequests === faults.failPage) return json(res, 500, { message: 'Internal server error' });
			const q = url.searchParams;
			let limit = q.has('limit') ? Number(q.get('limit')) : 100;
			if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) return json(res, 400, { message: `request/query/limit must be <= ${MAX_PAGE}` });
			let lastId;
			if (q.get('cursor')) {
				try {
					const c = JSON.parse(Buffer.from(q.get('cursor'), 'base64').toString());
					lastId = c.lastId === undefined ? undefined : String(c.lastId);
					if (Number.isInteger(c.limit)) limit = Math.min(Math.max(c.limit, 1), MAX_PAGE);
				} catch {
					return json(res, 400, { message: 'An invalid cursor was provided' });
				}
			}
			if (faults.noStartedAfter && q.has('startedAfter'))
				return json(res, 400, { message: "Unknown query parameter 'startedAfter'" });
			const workflowId = q.get('workflowId');
			if (workflowId && !workflows.has(workflowId)) return json(res, 200, { data: [], nextCursor: null });
			const status = q.get('status');
			const includeData = q.get('includeData') === 'true';
			const after = q.get('startedAfter') ? Date.parse(q.get('startedAfter')) : undefined;
			const match = (id) => {
				const e = store.get(id).e;
				if (workflowId && String(e.workflowId) !== workflowId) return false;
				if (status ? e.status !== status : !FINISHED.has(e.status)) return false;
				if (after !== undefined && Date.parse(e.startedAt) < after) return false;
				return true;
			};
			const ids = order();
			const page = [];
			let i = 0;
			if (lastId !== undefined) while (i < ids.length && idNum(ids[i]) >= idNum(lastId)) i++;
			for (; i < ids.length && page.length < limit; i++) if (match(ids[i])) page.push(ids[i]);
			let more = false;
			for (; i < ids.length; i++)
				if (match(ids[i])) {
					more = true;
					break;
				}
			const nextCursor = more ? Buffer.from(JSON.stringify({ lastId: page[page.length - 1], limit })).toString('base64') : null;
			return send(res, 200, `{"data":[${page.map((id) => textOf(id, includeData)).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`);
		}
		if ((m = /^\/executions\/([^/]+)$/.exec(path))) {
			stats.getRequests++;
			const id = decodeURIComponent(m[1]);
			if (!store.has(id) || faults.prunedOnRead.has(id)) return json(res, 404, { message: 'Not Found' });
			return send(res, 200, textOf(id, url.searchParams.get('includeData') === 'true'));
		}
		return json(res, 404, { message: 'Not Found' });
	}

	const server = http.createServer((req, res) => {
		handle(req, res).catch((e) => json(res, 500, { message: String(e && e.message) }));
	});
	return {
		server,
		stats,
		faults,
		apiKey,
		add,
		remove(id) {
			store.delete(String(id));
			sorted = null;
		},
		addWorkflow(w) {
			workflows.set(String(w.id), w);
		},
		removeWorkflow(id) {
			workflows.delete(String(id));
		},
		get size() {
			return store.size;
		},
		/** Listens on 127.0.0.1 (port 0: any free one); resolves with the API root URL. */
		listen(port = 0) {
			return new Promise((resolve) => {
				server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/api/v1`));
			});
		},
		close() {
			return new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			});
		},
	};
}

module.exports = { createN8nApiServer, agentExecution, chainExecution, httpExecution, agentWorkflow, summaryOf, MAX_PAGE, rng };

if (require.main === module) {
	const args = process.argv.slice(2);
	const arg = (name, dflt) => {
		const i = args.indexOf(`--${name}`);
		return i >= 0 ? args[i + 1] : dflt;
	};
	const count = Number(arg('executions', '100'));
	const workflowId = arg('workflow', 'wf-agent');
	const errorEvery = Number(arg('error-every', '0'));
	const base = Date.now() - count * 1000;
	const executions = [];
	for (let id = 1; id <= count; id++)
		executions.push(agentExecution(id, { workflowId, startedMs: base + id * 1000, status: errorEvery && id % errorEvery === 0 ? 'error' : 'success' }));
	const api = createN8nApiServer({ apiKey: arg('key', 'test-n8n-api-key'), workflows: [{ id: workflowId, name: 'Shop assistant' }], executions });
	api.listen(Number(arg('port', '0'))).then((url) => console.log(`N8N_API_URL=${url}`));
	process.on('SIGTERM', () => api.close().then(() => process.exit(0)));
}
