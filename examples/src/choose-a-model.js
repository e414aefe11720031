// Choose a model (issue 37 item 5): the golden set answered by one app with three Chat Models,
// judged pointwise (Groundedness, Relevance) and pairwise (the Pairwise Judge in both orders),
// then Compare Variants names the better model on each judge with its p-value, the cost and
// latency differences from Cost & Latency, Bradley-Terry strengths and the judge's position
// consistency, and Eval Report writes one Slack message and a side-by-side Markdown/HTML report.
// The app runs in its own sub-workflow, once per (question, model), so Cost & Latency reads each
// answer's own tokens and latency from its execution.
'use strict';

/** The models compared, in the order the report lists them: the first is the baseline. */
const MODELS = ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1'];

module.exports = ({
	P,
	workflow,
	sticky,
	sampleDataset,
	slackWebhook,
	askEachRow,
	askEachRowEdges,
}) => {
	const app = workflow(
		'chooseapp',
		'ragEvalChooseApp01',
		'RAG evaluation: the app whose model is chosen',
		[
			{
				name: 'Question In',
				type: 'n8n-nodes-base.executeWorkflowTrigger',
				v: 1.1,
				pos: [0, 0],
				params: { inputSource: 'passthrough' },
			},
			{
				name: 'Answer the Question',
				type: '@n8n/n8n-nodes-langchain.chainLlm',
				v: 1.7,
				pos: [240, 0],
				params: {
					promptType: 'define',
					text: '={{ "Context:\\n" + ($json.retrieved_context ?? []).map((c) => c.content).join("\\n\\n") + "\\n\\nQuestion: " + $json.request }}',
					messages: {
						messageValues: [
							{
								type: 'SystemMessagePromptTemplate',
								message:
									'You are the support assistant of an online shop. Answer in one or two sentences, only from the context; say so when the context does not answer the question.',
							},
						],
					},
				},
			},
			{
				name: 'Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				v: 1.2,
				pos: [240, 220],
				params: {
					model: { __rl: true, mode: 'id', value: '={{ $json.variant }}' },
					options: { temperature: 0 },
				},
				notes:
					"The row's variant is the model: set an OpenAI credential (or a compatible base URL)",
			},
			{
				name: 'Answer',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [600, 0],
				params: {
					jsCode:
						"// The chain's text is the row's response; the evaluation pairs it back with its row.\nreturn $input.all().map((item) => ({ json: { response: item.json.text } }));",
				},
			},
			sticky(
				'The app',
				[-40, -300],
				[860, 260],
				[
					'## The app whose model is chosen',
					'Run once per question and model by "RAG evaluation: choose a model". **Chat Model** takes',
					"its model from the row's `variant`: set its OpenAI credential (any OpenAI-compatible server",
					'works). Replace **Answer the Question** with your own chain or agent; keep the Chat Model',
					'expression so each row runs on its variant. n8n must save successful executions with their',
					'data (the default): the evaluation reads each run for tokens and latency.',
				].join('\n'),
			),
		],
		[
			['Question In', 'Answer the Question'],
			['Chat Model', 'Answer the Question', 0, 'ai_languageModel'],
			['Answer the Question', 'Answer'],
		],
	);

	const choose = workflow(
		'choosemodel',
		'ragEvalChooseModel1',
		'RAG evaluation: choose a model',
		[
			{ name: 'Run Now', type: 'n8n-nodes-base.manualTrigger', pos: [0, 0] },
			sampleDataset([240, 0]),
			{
				name: 'One Row per Model',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [480, 0],
				params: {
					jsCode: [
						'// The models to compare: the first is the baseline the others are compared with.',
						`const MODELS = ${JSON.stringify(MODELS)};`,
						"// Each question once per model. The dataset's own answer is left out, so nothing but the",
						"// model's answer is judged; request_id pairs a question's answers across models.",
						'return $input.all().flatMap((item, i) => {',
						'\tconst { response, ...row } = item.json;',
						'\tconst request_id = row.request_id ?? `q${i + 1}`;',
						'\treturn MODELS.map((variant) => ({ json: { ...row, request_id, variant }, pairedItem: i }));',
						'});',
					].join('\n'),
				},
			},
			...askEachRow('Ask the App', 720, app, "Tokens, cost and latency from each answer's own run"),
			{
				name: 'Groundedness',
				type: `${P}.judgeGroundedness`,
				pos: [1440, 0],
				params: { threshold: 3 },
			},
			{
				name: 'Relevance',
				type: `${P}.judgeRelevance`,
				pos: [1800, 0],
				params: { threshold: 3 },
			},
			{
				name: 'Pair the Models',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [2160, 180],
				params: {
					jsCode: [
						'// One Pairwise Judge row per question and pair of models: the judge sees the two answers',
						"// (in both orders), never the models' names.",
						'const byRequest = new Map();',
						'for (const item of $input.all()) {',
						'\tconst list = byRequest.get(item.json.request_id) ?? [];',
						'\tlist.push(item.json);',
						'\tbyRequest.set(item.json.request_id, list);',
						'}',
						'const pairs = [];',
						'for (const rows of byRequest.values())',
						'\tfor (let i = 0; i < rows.length; i++)',
						'\t\tfor (let j = i + 1; j < rows.length; j++) {',
						'\t\t\tconst [a, b] = [rows[i], rows[j]];',
						'\t\t\tif (typeof a.response !== "string" || typeof b.response !== "string") continue;',
						'\t\t\tpairs.push({ json: {',
						'\t\t\t\trequest_id: a.request_id, request: a.request, retrieved_context: a.retrieved_context, expected_response: a.expected_response,',
						'\t\t\t\tvariant_a: a.variant, variant_b: b.variant, response_a: a.response, response_b: b.response,',
						'\t\t\t} });',
						'\t\t}',
						'return pairs;',
					].join('\n'),
				},
				notes: 'A question whose answer is missing gets no pair: Compare Variants reports it',
			},
			{
				name: 'Pairwise Judge',
				type: `${P}.judgePairwise`,
				pos: [2400, 180],
				params: { options: { criterion: 'groundedness' } },
				notes: 'Which answer is better grounded, asked in both orders',
			},
			{
				name: 'All Scores',
				type: 'n8n-nodes-base.merge',
				v: 3.2,
				pos: [2760, 0],
				params: {},
				notes: 'The judged answers, then the pairwise verdicts',
			},
			{
				name: 'Compare Variants',
				type: `${P}.compareVariants`,
				pos: [3000, 0],
				params: {},
				notes: 'Baseline: the first model. Paired tests, Holm across the comparison',
			},
			{
				name: 'Eval Report',
				type: `${P}.evalReport`,
				pos: [3240, 0],
				params: {
					title: 'Which model should answer support questions?',
					formats: ['slack', 'markdown', 'html'],
					options: {},
				},
			},
			slackWebhook([3480, 0], '={{ JSON.stringify($json.slack) }}'),
			sticky(
				'Start here',
				[-40, 380],
				[1180, 300],
				[
					'## Choose a model: which is better, cheaper and faster?',
					'Every question is answered by each model in **One Row per Model** (edit the list; the first',
					'is the baseline) through "RAG evaluation: the app whose model is chosen". Groundedness and',
					'Relevance score every answer; the **Pairwise Judge** compares each pair of answers in both',
					'orders (a verdict that flips with the order is a tie). **Compare Variants** gives one line per',
					'pair of models: better or no difference per judge (paired tests, Holm), cost and latency.',
					'',
					'1. **Eval Dataset**: your golden set. 8 questions find only large differences: use 30 or more.',
					"2. The app's **Chat Model**, **Groundedness**, **Relevance** and **Pairwise Judge**: your credentials.",
					'3. **Post to Slack**: your incoming webhook URL, then enable it. Run with **Run Now**.',
				].join('\n'),
			),
		],
		[
			['Run Now', 'Eval Dataset'],
			['Eval Dataset', 'One Row per Model'],
			['One Row per Model', 'Pair Answers With Rows', 0, 'main', 0],
			['One Row per Model', 'Ask the App'],
			...askEachRowEdges('Ask the App'),
			['Pair Answers With Rows', 'Groundedness'],
			['Groundedness', 'Relevance'],
			['Relevance', 'All Scores', 0, 'main', 0],
			['Relevance', 'Pair the Models'],
			['Pair the Models', 'Pairwise Judge'],
			['Pairwise Judge', 'All Scores', 0, 'main', 1],
			['All Scores', 'Compare Variants'],
			['Compare Variants', 'Eval Report'],
			['Eval Report', 'Post to Slack'],
		],
	);
	return { 'choose-a-model': choose, 'choose-a-model-app': app };
};
