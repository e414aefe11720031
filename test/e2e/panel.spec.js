// Real n8n: one judge with two connected OpenAI Chat Model nodes (n8n's own
// @n8n/n8n-nodes-langchain.lmChatOpenAi, base URL at the local judge server) judges as a panel.
// Each juror is a different model; the server's `[[model:<name>=N]]` marker makes one of them
// dissent on the second row, so the pooled verdict, the jurors' verdicts and the disagreement are
// checked as n8n ran them.
'use strict';
const assert = require('node:assert/strict');

const CHAT_CREDENTIAL = { id: 'ragEvalChatModel01', name: 'OpenAI chat model (e2e-agent)' };
const JURORS = ['juror-alpha', 'juror-beta'];

const rows = [
	{
		request_id: 'p1',
		request: 'What is the capital of Japan?',
		response: 'Tokyo is the capital of Japan. [[score=5]]',
	},
	{
		request_id: 'p2',
		request: 'How do I reset my password?',
		response: 'Open Settings and choose Reset password. [[score=5]] [[model:juror-beta=1]]',
	},
];

function panelWorkflow() {
	const chatModel = (model, i) => ({
		id: `7061656e-656c-4000-8000-00000000001${i}`,
		name: `Chat Model ${model}`,
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.2,
		position: [300 + i * 160, 220],
		parameters: { model: { __rl: true, mode: 'id', value: model }, options: { temperature: 0 } },
		credentials: { openAiApi: CHAT_CREDENTIAL },
	});
	const connections = {
		Run: { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
		'Eval Dataset': { main: [[{ node: 'Relevance to Query', type: 'main', index: 0 }], []] },
	};
	for (const m of JURORS)
		connections[`Chat Model ${m}`] = {
			ai_languageModel: [[{ node: 'Relevance to Query', type: 'ai_languageModel', index: 0 }]],
		};
	return {
		id: 'e2ePanelJudge0001',
		name: 'E2E: a judge with two Chat Models',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: '7061656e-656c-4000-8000-000000000001',
				name: 'Run',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: '7061656e-656c-4000-8000-000000000002',
				name: 'Eval Dataset',
				type: 'n8n-nodes-rag-eval.evalDataset',
				typeVersion: 1,
				position: [220, 0],
				parameters: { source: 'text', text: rows.map((r) => JSON.stringify(r)).join('\n') },
			},
			{
				id: '7061656e-656c-4000-8000-000000000003',
				name: 'Relevance to Query',
				type: 'n8n-nodes-rag-eval.judgeRelevanceToQuery',
				typeVersion: 1,
				position: [440, 0],
				parameters: { options: { cache: false } },
			},
			...JURORS.map(chatModel),
		],
		connections,
	};
}

module.exports = [
	{
		name: 'panel: a judge with two connected OpenAI Chat Models pools their verdicts in real n8n',
		workflowId: 'e2ePanelJudge0001',
		check(run, { out }) {
			const scored = out(run, 'Relevance to Query', 0);
			assert.equal(scored.length, 2, 'both rows leave the judge');
			const byId = Object.fromEntries(scored.map((i) => [i.request_id, i.eval.relevance_to_query]));
			for (const id of ['p1', 'p2']) {
				const s = byId[id];
				assert.ok(s, `row ${id} carries eval.relevance_to_query`);
				assert.equal(s.status, 'ok', `row ${id}: ${s.error || ''}`);
				const panel = s.details && s.details.panel;
				assert.ok(panel, `row ${id} has details.panel`);
				assert.equal(panel.jurors.length, 2);
				assert.equal(panel.answered, 2);
				assert.deepEqual(panel.jurors.map((j) => j.model).sort(), JURORS);
				for (const j of panel.jurors) {
					assert.match(j.signature, new RegExp(`model:${j.model}\\|`));
					assert.ok(j.usage && j.usage.totalTokens > 0, `juror ${j.juror} has its usage`);
				}
				assert.match(s.signature, /model:panel\[juror-alpha\+juror-beta\]/);
			}
			// Both jurors say yes on p1.
			assert.equal(byId.p1.value, true);
			assert.equal(byId.p1.details.panel.disagrees, false);
			// On p2 juror-beta dissents: a 1-1 tie takes the failing verdict, half the panel disagrees.
			const p2 = byId.p2.details.panel;
			const beta = p2.jurors.find((j) => j.model === 'juror-beta');
			const alpha = p2.jurors.find((j) => j.model === 'juror-alpha');
			assert.equal(alpha.value, true);
			assert.equal(beta.value, false);
			assert.equal(byId.p2.value, false);
			assert.equal(p2.disagreement, 0.5);
			assert.equal(p2.disagrees, true);
		},
	},
];

module.exports.workflows = () => [panelWorkflow()];
