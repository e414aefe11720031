/**
 * Every file of test/fixtures/datasets-collected (written by promptflow, the Azure SDK, OpenAI
 * evals, Phoenix, LangSmith, MLflow, promptfoo, DeepEval and Ragas; origins in SOURCES.md) loads
 * as a new user would load it, `{format: 'auto', schema: 'auto'}` or with the one obvious mapping
 * named here: every row becomes a record with its fields, and every column of the file that was
 * not read into a field is named in the file's account.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import {
	describeAccount,
	EvalRecord,
	loadDataset,
	type LoadOptions,
	type LoadResult,
} from '../../../src/record';

const DIR = join(__dirname, '../../fixtures/datasets-collected');
const read = (name: string): Buffer => readFileSync(join(DIR, name));

/** The non-empty top-level keys of every row, read without our loader. */
function sourceKeys(name: string): { rows: number; keys: Set<string> } {
	const text = read(name).toString('utf8');
	let rows: Record<string, unknown>[];
	if (name.endsWith('.csv')) {
		const cells = parseCsv(text, { relax_quotes: true, relax_column_count: true }) as string[][];
		const header = cells[0].map((h, i) => (h.trim() === '' ? `column_${i + 1}` : h.trim()));
		rows = cells
			.slice(1)
			.map((c) => Object.fromEntries(header.map((h, i) => [h, c[i]]).filter(([, v]) => v)));
	} else if (name.endsWith('.jsonl')) {
		rows = text
			.split('\n')
			.filter((l) => l.trim() !== '')
			.map((l) => JSON.parse(l) as Record<string, unknown>);
	} else {
		const v = JSON.parse(text) as unknown;
		rows = Array.isArray(v)
			? (v as Record<string, unknown>[])
			: ((v as { testCases: Record<string, unknown>[] }).testCases ?? [v]);
	}
	const keys = new Set<string>();
	for (const r of rows) {
		for (const [k, v] of Object.entries(r)) if (v !== null && v !== undefined) keys.add(k);
	}
	return { rows: rows.length, keys };
}

interface Expect {
	format: string;
	schema: string;
	rows: number;
	options?: LoadOptions;
	/** Columns of the file the account names as going to metadata. */
	metadata?: string[];
	check: (r: LoadResult) => void;
}

const EXPECT: Record<string, Expect> = {
	'promptflow-eval-qna-non-rag.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 2,
		check: ({ records: [tent], account }) => {
			expect(tent).toMatchObject({
				request: 'Which tent is the most waterproof?',
				response: 'The Alpine Explorer Tent is the most waterproof.',
				expected_response:
					'The Alpine Explorer Tent has the highest rainfly waterproof rating at 3000m',
				retrieved_context: [
					{
						content:
							'From the our product list, the alpine explorer tent is the most waterproof. The Adventure Dining Table has higher weight.',
					},
				],
				metadata: {},
			});
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				['question', ['request']],
				['answer', ['response']],
				['context', ['retrieved_context']],
				['ground_truth', ['expected_response']],
			]);
		},
	},
	'promptflow-bert-paper-qna-3-line.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 3,
		metadata: ['pdf_url'],
		check: ({ records: [, , vocab] }) => {
			expect(vocab).toMatchObject({
				request: 'What is the size of the vocabulary used by BERT?',
				response: '30,000',
				retrieved_context: [
					{
						content:
							'We use WordPiece embeddings (Wu et al., 2016) with a 30,000 token vocabulary.',
					},
				],
				metadata: { pdf_url: 'https://arxiv.org/pdf/1810.04805.pdf' },
			});
			// An empty chat history is no history.
			expect(vocab.history).toBeUndefined();
		},
	},
	'promptflow-chat-with-wikipedia.jsonl': {
		format: 'json',
		schema: 'azure',
		rows: 1,
		check: ({ records: [r] }) => {
			expect(r.request).toBe(
				'What is the difference between this model and previous neural network?',
			);
			expect(r.history?.map((m) => m.role)).toEqual(['user', 'assistant']);
			expect(r.history?.[0].content).toBe('What is ChatGPT?');
			expect(r.history?.[1].content).toMatch(/^ChatGPT is a chatbot product developed by OpenAI/);
			expect(r.response).toBeUndefined();
		},
	},
	'promptflow-eval-chat-math.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 3,
		check: ({ records }) => {
			expect(records.map((r) => [r.response, r.expected_response])).toEqual([
				['10', '10'],
				['506', '253'],
				['2/6', '1/3'],
			]);
			expect(records[0].source.present).toEqual({ request: false, response: true });
		},
	},
	'azure-sdk-generated-qa-pf-conv.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 5,
		check: ({ records, account }) => {
			expect(records[0].history).toBeUndefined();
			expect(records[2]).toMatchObject({
				request: 'In what way?',
				expected_response:
					"It is different ... because ...\n... these are the reasons.\n   Here's one more reason ...",
			});
			// The simulator answers under outputs.ground_truth: those are the assistant turns.
			expect(records[2].history).toEqual([
				{ role: 'user', content: 'What is Compute Instance?' },
				{ role: 'assistant', content: 'Compute instance is ...' },
				{ role: 'user', content: 'Is CI different than Compute Cluster?' },
				{ role: 'assistant', content: 'Yes.' },
			]);
			expect(records[4].history).toHaveLength(8);
			expect(account.columns.find((c) => c.column === 'chat_history')?.to).toEqual(['history']);
		},
	},
	'openai-evals-test-match.jsonl': {
		format: 'jsonl',
		schema: 'openai-evals',
		rows: 3,
		check: ({ records }) => {
			expect(records.map((r) => [r.request, r.expected_response])).toEqual([
				['Once upon a ', 'time'],
				['The first US president was ', 'George Washington'],
				['OpenAI was founded in 20', '15'],
			]);
			expect(records[0].history).toEqual([
				{ role: 'system', content: 'Complete the phrase as concisely as possible.' },
			]);
		},
	},
	'openai-evals-french-riddle.jsonl': {
		format: 'jsonl',
		schema: 'openai-evals',
		rows: 2,
		check: ({ records: [rome] }) => {
			// No user turn: the task's last system turn is the request, the instructions its history.
			expect(rome.request).toMatch(/^Mon premier est la capitale de l’Italie/);
			expect(rome.history?.[0].content).toMatch(/^Voilà une charade en français/);
			expect(rome.expected_response).toBe('Rome\nA\nRhin\nRomarin');
		},
	},
	'azure-samples-document-retrieval-trec-covid-trimmed.jsonl': {
		format: 'jsonl',
		schema: 'databricks',
		rows: 3,
		check: ({ records, account }) => {
			// Retrieval data only: no request, no response, and the rows still load.
			for (const r of records) {
				expect(r.request).toBeUndefined();
				expect(r.response).toBeUndefined();
				expect(r.retrieved_context).toHaveLength(50);
			}
			const [first] = records;
			expect(first.retrieved_context?.slice(0, 2)).toEqual([
				{ doc_uri: 'dv9m19yk', score: 37.15024 },
				{ doc_uri: 'rzpbpxw2', score: 25.819347 },
			]);
			expect(first.expected_retrieved_context).toHaveLength(18);
			expect(first.expected_retrieved_context?.[0]).toEqual({ doc_uri: '005b2j4b', grade: 2 });
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				['retrieved_documents', ['retrieved_context']],
				['retrieval_ground_truth', ['expected_retrieved_context']],
			]);
		},
	},
	'bedrock-llmaaj-byoi-sample-data-trimmed.jsonl': {
		format: 'jsonl',
		schema: 'bedrock',
		rows: 3,
		metadata: ['category', 'modelResponses'],
		check: ({ records, account }) => {
			const [first] = records;
			expect(first.request).toBe(
				'If books cost \\$10.21 each and you buy 15 of them with a 20% discount, how much will you pay in total?',
			);
			expect(first.expected_response).toBe(
				'The total price will be \\$122.52. Original price: \\$153.15 minus 20% discount (\\$30.630000000000003)',
			);
			expect(first.response).toMatch(/^To determine the total cost of buying 15 books/);
			expect(first.response).toMatch(/\\boxed\{122\.52\} \\]$/);
			// The response list names the model: kept whole beside the answer read from it.
			expect(first.metadata).toMatchObject({
				category: 'Shopping Math',
				modelResponses: [{ modelIdentifier: 'third-party-model' }],
			});
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				['prompt', ['request']],
				['referenceResponse', ['expected_response']],
				['modelResponses', ['response', 'metadata']],
				['category', ['metadata']],
			]);
		},
	},
	'bedrock-rag-eval-byoi-sample-data-trimmed.jsonl': {
		format: 'jsonl',
		schema: 'bedrock',
		rows: 3,
		check: ({ records, account }) => {
			expect(records.map((r) => [r.request, r.response, r.expected_response])).toEqual([
				[
					"What is Amazon's SEC file number?",
					"Amazon's SEC file number is 000-22513.",
					"Amazon's SEC file number is 000-22513.",
				],
				[
					'Is the registrant a large accelerated filer?',
					'The registrant is a large accelerated filer.',
					'The registrant is a large accelerated filer.',
				],
				[
					'What is the fiscal year covered in this Form 10-K?',
					'The fiscal year covered in this Form 10-K is the year ended December 31, 2022.',
					'The fiscal year covered in this Form 10-K is the year ended December 31, 2022.',
				],
			]);
			expect(records[0].retrieved_context).toEqual([
				{ content: 'Commission File No. 000-22513' },
				{ content: 'AMAZON.COM, INC. (Exact name of registrant as specified in its charter)' },
			]);
			expect(records[0].history).toBeUndefined();
			// Citations and the model and knowledge-base names stay with the turns.
			const raw = records[0].request_raw as { output: { citations: unknown[] } }[];
			expect(raw[0].output.citations).toHaveLength(3);
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				['conversationTurns', ['request', 'response', 'expected_response', 'retrieved_context']],
			]);
		},
	},
	'promptfoo-jsonl-test-cases.jsonl': {
		format: 'jsonl',
		schema: 'promptfoo',
		rows: 2,
		check: ({ records, account }) => {
			// Two variables, neither named like a question: together they are the request.
			expect(records.map((r) => [r.request, r.expected_response])).toEqual([
				[
					'{"target_language":"French","text":"Hello, world!"}',
					'Translate the following text to French: Hello, world!',
				],
				[
					'{"target_language":"Spanish","text":"Hello, world!"}',
					'Translate the following text to Spanish: Hello, world!',
				],
			]);
			expect(records[0].request_raw).toEqual({ target_language: 'French', text: 'Hello, world!' });
			expect(records[0].metadata).toEqual({});
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				['vars.target_language', ['request']],
				['vars.text', ['request']],
				['assert', ['expected_response']],
			]);
		},
	},
	'azure-samples-agent-messages-trimmed.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 3,
		check: ({ records, account }) => {
			const [first] = records;
			// The thread ends on a thank-you and the agent's reply to it.
			expect(first.request).toBe("No, that's all. Thank you for your help!");
			expect(first.response).toBe("You're welcome! Have a great day.");
			// Calls nested in content parts, each paired with the tool turn that answers it.
			const calls = (first.history ?? []).flatMap((m) => m.tool_calls ?? []);
			expect(calls.slice(0, 3)).toEqual([
				{ id: 'tool_call_20250310_001', name: 'get_orders', arguments: { account_number: '888' } },
				{ id: 'tool_call_20250310_002', name: 'get_order', arguments: { order_id: '123' } },
				{ id: 'tool_call_20250310_003', name: 'get_order', arguments: { order_id: '124' } },
			]);
			expect(first.history?.[4]).toEqual({
				role: 'tool',
				content: '[{ "order_id": "123" }, { "order_id": "124" }]',
				tool_call_id: 'tool_call_20250310_001',
			});
			expect(records[1].tool_calls?.map((c) => c.name)).toEqual(['transfer_funds']);
			expect(first.tool_definitions?.map((t) => t.name)).toEqual([
				'get_orders',
				'get_order',
				'initiate_return',
				'update_shipping_address',
			]);
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				// Row 2's agent calls transfer_funds after the last user turn: the record's tool calls.
				['messages', ['request', 'history', 'response', 'tool_calls']],
				['tools', ['tool_definitions']],
			]);
		},
	},
	'phoenix-nested.jsonl': {
		format: 'jsonl',
		schema: 'phoenix',
		rows: 3,
		check: ({ records, account }) => {
			expect(records.map((r) => [r.request_id, r.request, r.expected_response])).toEqual([
				['1', 'What is 2+2?', '4'],
				['2', 'Capital of France?', 'Paris'],
				['3', 'Hello in Spanish?', 'Hola'],
			]);
			expect(records[1].retrieved_context).toEqual([{ content: 'geography' }]);
			expect(records[1].response).toBeUndefined();
			expect(account.columns.map((c) => [c.column, c.to])).toEqual([
				['input.question', ['request']],
				['input.context', ['retrieved_context']],
				['output.answer', ['expected_response']],
				['id', ['request_id']],
			]);
		},
	},
	'phoenix-nested.csv': {
		format: 'csv',
		schema: 'phoenix',
		rows: 3,
		check: ({ records }) => {
			// The same examples as the JSON Lines file, with input and output as JSON text in cells.
			const jsonl = loadDataset(read('phoenix-nested.jsonl'));
			const pick = (r: EvalRecord) => [
				r.request_id,
				r.request,
				r.retrieved_context,
				r.expected_response,
			];
			expect(records.map(pick)).toEqual(jsonl.records.map(pick));
		},
	},
	'phoenix-qa-dataset.csv': {
		format: 'csv',
		schema: 'azure',
		rows: 4,
		// A Phoenix dataset's answer is the reference: one mapping says so.
		options: { mapping: { answer: 'expected_response' } },
		check: ({ records, account }) => {
			expect(records[2]).toMatchObject({
				request: 'how do I print "hello world" in python?',
				expected_response: 'print("hello world")',
			});
			expect(records[2].response).toBeUndefined();
			expect(account.notes).toContain(
				'a bare " inside an unquoted CSV cell was read as text, as Python\'s csv module and pandas read it',
			);
			expect(account.columns.find((c) => c.column === 'answer')?.to).toEqual(['expected_response']);
			// Without the mapping the same columns load too: answer as the response.
			const plain = loadDataset(read('phoenix-qa-dataset.csv'));
			expect(plain.records[3]).toMatchObject({
				request: 'how do I print "hello world" in javascript?',
				response: 'console.log("hello world")',
			});
		},
	},
	'langsmith-create-examples.jsonl': {
		format: 'jsonl',
		schema: 'langsmith',
		rows: 2,
		metadata: ['metadata'],
		check: ({ records: [agent, diagram] }) => {
			expect(agent).toMatchObject({
				request: "what's an agent",
				expected_response: 'an agent is...',
				metadata: { difficulty: 'easy' },
			});
			expect(diagram.request).toBe('can you explain the agent architecture in this diagram?');
			expect(diagram.response).toBeUndefined();
		},
	},
	'mlflow-eval-dataset-records.json': {
		format: 'json',
		schema: 'mlflow',
		rows: 6,
		metadata: ['inputs', 'tags'],
		check: ({ records, account }) => {
			const [benefits, start, empty, broad, facts, tagged] = records;
			expect(benefits).toMatchObject({
				request: 'What are the benefits of using MLflow?',
				retrieved_context: [
					{ content: 'MLflow is an open-source platform for managing ML workflows...' },
				],
				expected_facts: [
					'open-source platform',
					'manages ML lifecycle',
					'experiment tracking',
					'model deployment',
				],
				guidelines: [
					'Response should be technical but accessible',
					'Include specific examples of MLflow features',
					'Maintain professional tone throughout',
				],
				// The input with no canonical meaning stays where it was.
				metadata: { inputs: { user_type: 'data_scientist' } },
			});
			expect(start.expected_response).toMatch(/^Start by installing MLflow/);
			expect(empty.request).toBe('');
			// A guideline given as one text is a list of one.
			expect(broad.guidelines).toEqual(['Provide structured overview without overwhelming detail']);
			expect(facts.expected_facts).toEqual(['platform', 'ML lifecycle']);
			expect(tagged.metadata).toEqual({ tags: { category: 'edge_case', priority: 'high' } });
			expect(account.columns.find((c) => c.column === 'inputs.user_type')).toEqual({
				column: 'inputs.user_type',
				to: ['metadata'],
				rows: 2,
			});
		},
	},
	'promptfoo-csv-metadata-tests.csv': {
		format: 'csv',
		schema: 'promptfoo',
		rows: 3,
		metadata: ['__expected1', '__metadata:category', '__metadata:tags[]'],
		check: ({ records: [ml, quantum], account }) => {
			expect(ml).toMatchObject({
				request: 'machine learning',
				guidelines: ['Does this describe {{topic}} accurately?'],
				metadata: {
					category: 'technology',
					tags: ['ai', 'data science', 'algorithms'],
					assertions: [{ column: '__expected1', type: 'contains', value: 'algorithm' }],
				},
			});
			expect(quantum.metadata.tags).toEqual(['physics', 'advanced,theory', 'quantum']);
			expect(account.columns.find((c) => c.column === '__expected1')?.note).toBe(
				'promptfoo "contains" assertion: no canonical field, kept in metadata.assertions',
			);
		},
	},
	'promptfoo-simple-csv-tests.csv': {
		format: 'csv',
		schema: 'promptfoo',
		rows: 4,
		metadata: ['__expected'],
		check: ({ records: [first] }) => {
			// Several variables, none named like a request: together they are the request.
			expect(first.request_raw).toEqual({
				language: 'French',
				body: 'Hello world',
				style_config: '{"tone":"formal","length":"brief"}',
			});
			expect(JSON.parse(first.request ?? '')).toEqual(first.request_raw);
			expect(first.metadata.assertions).toEqual([
				{ column: '__expected', type: 'icontains', value: 'bonjour' },
			]);
		},
	},
	'promptfoo-customer-support-rubric-tests.csv': {
		format: 'csv',
		schema: 'promptfoo',
		rows: 8,
		metadata: ['__description', 'language', '__metadata:severity', '__threshold'],
		check: ({ records }) => {
			const [refund, , , tariff] = records;
			expect(refund).toMatchObject({
				request: 'Me cobraron dos veces mi factura de octubre, quiero mi dinero de vuelta',
				response: expect.stringMatching(/^Hola, lamento el doble cobro/),
				retrieved_context: [
					{
						content:
							'Prepago mensual de 19,99 EUR cobrado dos veces el 3 de octubre. Reembolso pendiente desde hace 12 dias.',
					},
				],
				metadata: {
					description: 'ES refund ticket answered in Spanish',
					severity: 'high',
					language: 'es',
				},
			});
			expect(tariff.metadata.threshold).toBe(0);
			expect(tariff.request).toBe('Cual es el precio de mi tarifa despues del primer año?');
		},
	},
	'deepeval-test-run-sample.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 1,
		metadata: ['name', 'success', 'order', 'metricsData'],
		check: ({ records: [tc], account, wrapper }) => {
			expect(tc.request).toBe(
				'What is CECL forecasting and how does Abrigo handle allowance variance?',
			);
			expect(tc.response).toBe('{...}');
			// The DeepEval trace fills what the test case leaves out.
			expect(tc.latency_seconds).toBeCloseTo(11.42, 9);
			expect([
				tc.total_input_token_count,
				tc.total_output_token_count,
				tc.total_token_count,
			]).toEqual([1200 + 2200 + 540 + 880, 48 + 0 + 180 + 64, 5112]);
			expect(tc.retrieved_context?.[0].content).toMatch(/^CECL \(Current Expected Credit Losses\)/);
			expect(tc.tool_calls).toEqual([
				{
					name: 'web_search',
					arguments: { query: 'abrigo cecl forecasting 2026 changelog', max_results: 3 },
					result: [
						{ url: 'https://abrigo.com/changelog/2026-q1', title: 'Q1 2026 CECL updates' },
						{ url: 'https://abrigo.com/docs/cecl-forecasting', title: 'CECL Forecasting Guide' },
					],
					position: 0,
					turn: 0,
				},
			]);
			expect(tc.metadata.trace_notes).toEqual([
				"response: differs from the trace's final output; kept the row's",
			]);
			expect(account.columns.find((c) => c.column === 'trace')?.to).toEqual([
				'trace',
				'retrieved_context',
				'tool_calls',
				'latency_seconds',
				'total_input_token_count',
				'total_output_token_count',
				'total_token_count',
			]);
			expect(wrapper).toMatchObject({ testPassed: 0, testFailed: 1, runDuration: 11.42 });
		},
	},
	'deepeval-convo-goldens-json-turns.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 3,
		// DeepEval's expected_outcome is the record's expected_outcome (what the agent should achieve).
		metadata: ['scenario', 'user_description', 'name', 'comments'],
		check: ({ records: [paris, , japanese] }) => {
			expect(paris.expected_outcome).toEqual(expect.any(String));
			expect(paris).toMatchObject({
				request: "What's the weather like in Paris this weekend?",
				response: "It's expected to be rainy with temperatures around 18°C.",
				retrieved_context: [{ content: 'Weather API response' }],
				expected_retrieved_context: [{ content: 'Weather' }, { content: 'Paris' }],
			});
			// retrieval_context: null on the reply: no context, not an error.
			expect(japanese.response).toBe("You can say 'ありがとう' (arigatou).");
			expect(japanese.retrieved_context).toBeUndefined();
		},
	},
	'deepeval-convo-goldens-text-turns.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 3,
		metadata: ['scenario', 'user_description'],
		check: ({ records: [paris, reminder, japanese] }) => {
			expect(paris.request).toBe("What's the weather like in Paris this weekend?");
			expect(paris.response).toBe("It's expected to be rainy with temperatures around 18°C.");
			expect(paris.retrieved_context).toEqual([{ content: 'Weather API response' }]);
			expect(reminder.response).toBe(
				'Got it! I’ll remind you to take your medicine at 8 PM tonight.',
			);
			expect(japanese.retrieved_context).toBeUndefined();
		},
	},
	'deepeval-dataset-query.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 5,
		check: ({ records, account }) => {
			expect(records.map((r) => r.request)).toEqual(['1', '2', '3', '4', '5']);
			expect(records[3]).toMatchObject({
				response: 'Actual output for 4',
				expected_response: 'Python Programming',
				retrieved_context: [
					{ content: 'A powerful language model.' },
					{ content: 'Context for 2' },
					{ content: 'Additional info' },
				],
			});
			expect(account.columns.find((c) => c.column === 'query')?.to).toEqual(['request']);
		},
	},
	'ragas-weather-tool-calls.csv': {
		format: 'csv',
		schema: 'ragas',
		rows: 5,
		check: ({ records: [sf, , , , london] }) => {
			expect(sf.request).toBe("What's the weather like in San Francisco?");
			expect(sf.expected_tool_calls).toEqual([
				{ name: 'weatherTool', arguments: { location: 'San Francisco' }, position: 0 },
			]);
			expect(london.expected_tool_calls?.[0].arguments).toEqual({ location: 'London' });
		},
	},
	'ragas-rag-eval-grading-notes.csv': {
		format: 'csv',
		schema: 'ragas',
		rows: 3,
		check: ({ records: [first], account }) => {
			expect(first.request).toBe('What is ragas 0.3');
			expect(first.guidelines).toEqual([
				'- experimentation as the central pillar - provides abstraction for datasets, experiments and metrics - supports evals for RAG, LLM workflows and Agents',
			]);
			expect(account.columns.find((c) => c.column === 'grading_notes')?.to).toEqual(['guidelines']);
		},
	},
	'ragas-hf-doc-qa-eval-trimmed.csv': {
		format: 'csv',
		schema: 'azure',
		rows: 6,
		metadata: ['column_3'],
		check: ({ records }) => {
			expect(records[2]).toMatchObject({
				request: 'Where can you access the logs of your Endpoints in Hugging Face Endpoints?\n',
				expected_response: 'In the "Logs" tab of your Endpoint through the UI.',
			});
			expect(records[3].expected_response).toBeUndefined();
			// The record broken over two lines reads as Python's csv reads it, a row of its own.
			expect(records[4]).toMatchObject({
				request: 'ase',
				expected_response: ' d"',
				metadata: { column_3: '64' },
			});
			expect(records[5].expected_response).toBe(
				'pip install --upgrade-strategy eager optimum["openvino"]',
			);
		},
	},
};

describe('evaluation files of other tools load whole, and their account names every column', () => {
	const files = readdirSync(DIR).filter((f) => f !== 'SOURCES.md');

	it('every file in the folder has expectations here, and every expected file exists', () => {
		expect(files.sort()).toEqual(Object.keys(EXPECT).sort());
	});

	it.each(files)('%s: every row becomes a valid record with its fields', (name) => {
		const want = EXPECT[name];
		const res = loadDataset(read(name), { format: 'auto', schema: 'auto', ...want.options });
		expect(res.invalid).toEqual([]);
		expect(res.format).toBe(want.format);
		expect(res.schema).toBe(want.schema);
		expect(res.records).toHaveLength(want.rows);
		const src = sourceKeys(name);
		expect(res.records).toHaveLength(src.rows);
		for (const r of res.records) expect(EvalRecord.safeParse(r).success).toBe(true);
		// Nothing silent: every column of the file is in the account, by its own name or as the
		// top of a dotted path; the ones said to go to metadata do.
		const named = new Set(res.account.columns.map((c) => c.column.split('.')[0]));
		for (const k of src.keys) expect([name, k, named.has(k)]).toEqual([name, k, true]);
		const toMeta = res.account.columns
			.filter((c) => c.to.includes('metadata'))
			.map((c) => c.column.split('.')[0]);
		expect([...new Set(toMeta)].sort()).toEqual((want.metadata ?? []).sort());
		expect(res.account).toMatchObject({ rows: want.rows, loaded: want.rows, skipped: [] });
		expect(describeAccount(res.account)[0]).toMatch(
			new RegExp(`^${want.rows} rows read \\(${want.format}, schema ${want.schema}`),
		);
		want.check(res);
	});
});
