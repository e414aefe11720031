// Real n8n executes Manual Trigger -> Eval Dataset -> Semantic Similarity with n8n's own OpenAI
// Embeddings sub-node (@n8n/n8n-nodes-langchain.embeddingsOpenAi, its OpenAI credential's base URL
// at the local test server) on the node's Embeddings input, and no RAG Eval credential: the
// scores must equal the cosines of the test server's own word-hash vectors, and a second
// execution reads every vector from the cache folder (no embedding call).
// A second workflow runs Answer Relevancy with that Embeddings sub-node AND n8n's OpenAI Chat Model
// sub-node (@n8n/n8n-nodes-langchain.lmChatOpenAi, same server) connected: a committal answer
// scores the hand cosine of the server's vectors of its generated question and the request, an
// answer whose questions are all noncommittal scores 0 without an embedding call, and a re-run
// makes no call at all.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const n8n = require('../../scripts/n8n-install');
const { embed } = require('../support/openai-server-cli.js');

const WORKFLOW_ID = 'e2eEmbeddings00001';
// The Chat Model credential scripts/e2e.js imports (same server as the judges).
const openAi = n8n.openAiCredential('e2e-test-key', null, 'e2e-agent');

const rows = [
	{
		request_id: 'e1',
		request: 'How long do I have to return an item?',
		response: 'Returns are accepted within 30 days of delivery.',
		expected_response: 'Returns are accepted within 30 days of the delivery date.',
	},
	{
		request_id: 'e2',
		request: 'When is the store open?',
		response: 'The store opens at nine on Saturday.',
		expected_response: 'Refunds take five business days.',
	},
	{ request_id: 'e3', request: 'Anything else?', response: 'No reference for this one.' },
];

let cacheDir;
let judgeUrl;

function cosine(a, b) {
	let dot = 0;
	let na = 0;
	let nb = 0;
	for (let i = 0; i < a.length; i++) {
		dot += a[i] * b[i];
		na += a[i] * a[i];
		nb += b[i] * b[i];
	}
	return dot / Math.sqrt(na * nb);
}

async function embeddingCalls() {
	return (await serverCalls()).embeddings;
}

/**
 * Run -> Eval Dataset (the rows) -> the scoring node, with n8n sub-nodes (each on the OpenAI
 * credential, connected to the scoring node by its connection type) beside it.
 */
function scorerWorkflow({ id, name, idBase, rows: dataset, scorer, scorerType, subNodes }) {
	const nodeId = (n) => `7c2e9a10-0038-4e00-${idBase}-00000000000${n}`;
	const credentials = { openAiApi: { id: openAi.id, name: openAi.name } };
	const connections = {
		Run: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
		'Eval Dataset': { main: [[{ node: scorer, type: 'main', index: 0 }], []] },
	};
	for (const sub of subNodes)
		connections[sub.name] = {
			[sub.connection]: [[{ node: scorer, type: sub.connection, index: 0 }]],
		};
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: nodeId(1),
				name: 'Run',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: nodeId(2),
				name: 'Eval Dataset',
				type: 'n8n-nodes-rag-eval.evalDataset',
				typeVersion: 1,
				position: [220, 0],
				parameters: { source: 'text', text: dataset.map((r) => JSON.stringify(r)).join('\n') },
			},
			{
				id: nodeId(3),
				name: scorer,
				type: scorerType,
				typeVersion: 1,
				position: [440, 0],
				parameters: { options: { cacheStore: 'disk', cacheFolder: cacheDir } },
			},
			...subNodes.map(({ connection, ...sub }, i) => {
				void connection;
				return { id: nodeId(4 + i), typeVersion: 1.2, ...sub, credentials };
			}),
		],
		connections,
	};
}

const EMBEDDINGS_NODE = {
	name: 'Embeddings OpenAI',
	type: '@n8n/n8n-nodes-langchain.embeddingsOpenAi',
	parameters: { model: 'text-embedding-3-small', options: {} },
	connection: 'ai_embedding',
};

function workflow() {
	return scorerWorkflow({
		id: WORKFLOW_ID,
		name: 'E2E: Semantic Similarity with an OpenAI Embeddings node',
		idBase: '9a00',
		rows,
		scorer: 'Semantic Similarity',
		scorerType: 'n8n-nodes-rag-eval.evalSemanticSimilarity',
		subNodes: [{ ...EMBEDDINGS_NODE, position: [440, 220] }],
	});
}

/** Each item's Score under `key`, after checking every row left `node`. */
function scoresOf(run, out, node, key, n) {
	const items = out(run, node, 0);
	assert.equal(items.length, n, 'every row leaves the node');
	return items.map((i) => i.eval && i.eval[key]);
}

const scores = (run, out) =>
	scoresOf(run, out, 'Semantic Similarity', 'semantic_similarity', rows.length);

let before = 0;

const spec = {
	name: 'embeddings: n8n OpenAI Embeddings node -> Semantic Similarity, cosines of the server vectors, re-run cached',
	workflowId: WORKFLOW_ID,
	executions: [
		{
			name: 'cold',
			async before() {
				before = await embeddingCalls();
			},
			async check(run, { out }) {
				const [a, b, c] = scores(run, out);
				// One embedDocuments call per row with both texts.
				assert.equal((await embeddingCalls()) - before, 2, 'two embedding calls');
				for (const [s, r] of [
					[a, rows[0]],
					[b, rows[1]],
				]) {
					assert.equal(s.status, 'ok', JSON.stringify(s));
					const want = cosine(embed(r.response), embed(r.expected_response));
					assert.ok(Math.abs(s.value - want) < 1e-9, `${r.request_id}: ${s.value} vs ${want}`);
					assert.equal(s.pass, want >= 0.75);
					assert.equal(s.model, 'text-embedding-3-small');
					assert.match(s.signature, /embed:text-embedding-3-small\|cos:raw$/);
					assert.equal(s.details.usageEstimated, true, 'the sub-node reports no usage');
					assert.ok(s.usage.promptTokens > 0);
				}
				assert.equal(a.pass, true);
				assert.equal(b.pass, false);
				assert.equal(c.status, 'not_applicable');
				assert.equal(c.value, null);
			},
		},
		{
			name: 'warm',
			async before() {
				before = await embeddingCalls();
			},
			async check(run, { out }) {
				const [a, b] = scores(run, out);
				assert.equal((await embeddingCalls()) - before, 0, 'no embedding call on the re-run');
				for (const s of [a, b]) {
					assert.equal(s.cached, true, JSON.stringify(s));
					assert.equal(s.attempts, 0);
				}
			},
		},
	],
};

// Answer Relevancy. The test server fills the judge's question list from its schema: each of the
// three questions is "Deterministic test judge: rated N for question." (one text, embedded once)
// and flagged noncommittal when N >= 3; the answer's `[[answer_relevancy_questions=N]]` marker
// sets N for this judge alone.
const AR_ID = 'e2eAnswerRelevancy01';
const QUESTION = (n) => `Deterministic test judge: rated ${n} for question.`;
const arRows = [
	{
		request_id: 'r1',
		request: 'How long do I have to return an item?',
		response: 'You can return it within 30 days of delivery. [[answer_relevancy_questions=1]]',
	},
	{
		request_id: 'r2',
		request: 'Can I pay with a gift card?',
		response: 'I cannot say, it depends. [[answer_relevancy_questions=5]]',
	},
];

function answerRelevancyWorkflow() {
	return scorerWorkflow({
		id: AR_ID,
		name: 'E2E: Answer Relevancy with OpenAI Chat Model and Embeddings nodes',
		idBase: '9b00',
		rows: arRows,
		scorer: 'Answer Relevancy',
		scorerType: 'n8n-nodes-rag-eval.evalAnswerRelevancy',
		subNodes: [
			{
				name: 'Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				position: [360, 220],
				parameters: {
					model: { __rl: true, mode: 'id', value: 'question-writer' },
					options: { temperature: 0 },
				},
				connection: 'ai_languageModel',
			},
			{ ...EMBEDDINGS_NODE, position: [520, 220] },
		],
	});
}

async function serverCalls() {
	const stats = await fetch(new URL('/__stats', judgeUrl)).then((r) => r.json());
	return { chat: stats.chat || 0, embeddings: stats.embeddings || 0 };
}

const relevancyScores = (run, out) =>
	scoresOf(run, out, 'Answer Relevancy', 'answer_relevancy', arRows.length);

let calls = { chat: 0, embeddings: 0 };

const arSpec = {
	name: 'embeddings: Answer Relevancy with n8n OpenAI Chat Model and Embeddings nodes, hand cosine, noncommittal 0, re-run cached',
	workflowId: AR_ID,
	executions: [
		{
			name: 'cold',
			async before() {
				calls = await serverCalls();
			},
			async check(run, { out }) {
				const [a, b] = relevancyScores(run, out);
				const now = await serverCalls();
				// One question call per row; one embedding call, for the committal row only.
				assert.equal(now.chat - calls.chat, 2, 'two question calls');
				assert.equal(now.embeddings - calls.embeddings, 1, 'one embedding call');
				assert.equal(a.status, 'ok', JSON.stringify(a));
				// The three questions are one text: the mean of three equal cosines is that cosine.
				const want = cosine(embed(QUESTION(1)), embed(arRows[0].request));
				// About -0.10 (two words' hashes collide): apart from the noncommittal row's 0.
				assert.ok(Math.abs(want) > 0.05, `hand cosine ${want}`);
				assert.ok(Math.abs(a.value - want) < 1e-9, `r1: ${a.value} vs ${want}`);
				assert.equal(a.pass, want >= 0.7);
				assert.equal(a.details.questions.length, 3);
				for (const q of a.details.questions) {
					assert.equal(q.question, QUESTION(1));
					assert.equal(q.noncommittal, false);
				}
				assert.equal(a.model, 'question-writer');
				assert.match(
					a.signature,
					/^judge:answer_relevancy@1\|model:question-writer\|temp:0\|prompt:[0-9a-f]+\|embed:text-embedding-3-small\|n:3$/,
				);
				assert.equal(a.details.embedding.model, 'text-embedding-3-small');
				assert.equal(a.details.embedding.usageEstimated, true, 'the sub-node reports no usage');
				assert.equal(b.status, 'ok', JSON.stringify(b));
				assert.equal(b.value, 0);
				assert.equal(b.pass, false);
				assert.equal(b.details.allNoncommittal, true);
			},
		},
		{
			name: 'warm',
			async before() {
				calls = await serverCalls();
			},
			async check(run, { out }) {
				const [a, b] = relevancyScores(run, out);
				const now = await serverCalls();
				assert.equal(now.embeddings - calls.embeddings, 0, 'no embedding call on the re-run');
				assert.equal(now.chat - calls.chat, 0, 'no question call on the re-run');
				for (const s of [a, b]) {
					assert.equal(s.cached, true, JSON.stringify(s));
					assert.equal(s.attempts, 0);
				}
				const want = cosine(embed(QUESTION(1)), embed(arRows[0].request));
				assert.ok(Math.abs(a.value - want) < 1e-9, `r1 warm: ${a.value} vs ${want}`);
				assert.equal(b.value, 0);
			},
		},
	],
};

module.exports = [spec, arSpec];
module.exports.setup = ({ judge }) => {
	judgeUrl = judge;
	// Outside the user folder, which scripts/e2e.js empties of cached verdicts before each run.
	cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-e2e-embed-'));
};
module.exports.teardown = () => {
	if (cacheDir) fs.rmSync(cacheDir, { recursive: true, force: true });
};
module.exports.workflows = () => [workflow(), answerRelevancyWorkflow()];
