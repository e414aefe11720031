/**
 * Every file of test/fixtures/datasets-real (written by Azure AI Evaluation, DeepEval and Ragas;
 * origins in SOURCES.md) loads as a new user would load it, `{format: 'auto', schema: 'auto'}`:
 * every row becomes a record, with the canonical fields where the source project puts them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalRecord, loadDataset, type LoadResult } from '../../../src/record';

const DIR = join(__dirname, '../../fixtures/datasets-real');
const read = (name: string): Buffer => readFileSync(join(DIR, name));
const load = (name: string): LoadResult =>
	loadDataset(read(name), { format: 'auto', schema: 'auto' });

/** Rows in the file counted without our loader: JSON array length, or non-blank JSONL lines. */
function sourceRows(name: string): number {
	const text = read(name).toString('utf8');
	if (name.endsWith('.json')) return (JSON.parse(text) as unknown[]).length;
	const lines = text.split('\n').filter((l) => l.trim() !== '');
	return name.endsWith('.csv') ? -1 : lines.length;
}

/** Per file: expected format, schema, row count, and assertions on field values. */
const EXPECT: Record<
	string,
	{ format: string; schema: string; rows: number; check: (r: LoadResult) => void }
> = {
	'azure-samples-evaluate-test-data.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 3,
		check: ({ records: [first] }) => {
			expect(first.request).toBe('How do you create a run?');
			expect(first.retrieved_context).toEqual([{ content: 'AML API only' }]);
			expect(first.response).toMatch(/^To create a run using the Azure Machine Learning API/);
			expect(first.expected_response).toBe('Paris is the capital of France.');
		},
	},
	'azure-samples-conversation-data.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 2,
		check: ({ records: [one, two] }) => {
			// The file starts with a blank line: rows are numbered by file line.
			expect(one.source.row).toBe(2);
			expect(one.request).toBe('What is the meaning of life?');
			expect(one.response).toBe('42.');
			expect(one.history).toBeUndefined();
			expect(two.request).toBe('What color is my shirt?');
			expect(two.response).toBe("How would I know? I don't have eyes.");
			expect(two.history).toEqual([
				{ role: 'user', content: 'What atoms compose water?' },
				{ role: 'assistant', content: 'Hydrogen and oxygen' },
			]);
			expect(two.request_raw).toEqual(
				JSON.parse(read('azure-samples-conversation-data.jsonl').toString().split('\n')[2]),
			);
		},
	},
	'azure-sdk-evaluate-test-data-conversation.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 2,
		check: ({ records: [shapes, capitals] }) => {
			expect(shapes.request).toBe('Next, what shape has 4 sides');
			expect(shapes.response).toBe('A square');
			// Per-turn context: the reply's is the record's retrieved context, earlier turns keep theirs.
			expect(shapes.retrieved_context).toEqual([{ content: 'The answer is a square.' }]);
			expect(shapes.history).toEqual([
				{ role: 'user', content: 'What shape has 3 sides' },
				{
					role: 'assistant',
					content: 'A triangle',
					context: [{ content: 'The answer is a triangle.' }],
				},
			]);
			expect(shapes.metadata).toEqual({});
			expect(capitals.response).toBe('Boston');
			expect(capitals.history?.[0].context).toEqual([
				{ content: 'User wants to know the capital of Hawaii' },
			]);
			expect(capitals.metadata).toEqual({ context: 'User wants to know about state capitals' });
		},
	},
	'azure-samples-qr-data.csv': {
		format: 'csv',
		schema: 'azure',
		rows: 3,
		check: ({ records }) => {
			expect(records.map((r) => [r.request, r.response])).toEqual([
				['What is the meaning of life?', '42.'],
				['What atoms compose water?', 'Hydrogen and oxygen.'],
				['What color is my shirt?', "How would I know? I don't have eyes."],
			]);
		},
	},
	'azure-samples-agent-evaluation-data.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 5,
		check: ({ records }) => {
			const [london, seattle, places] = records;
			expect(london.request).toBe('How is the weather in London ?');
			expect(london.history).toEqual([{ role: 'system', content: 'You are a helpful assistant' }]);
			expect(london.response).toBe(
				'The weather in London is currently cloudy with a temperature of 18\u00b0C.',
			);
			expect(london.tool_calls).toEqual([
				{
					id: 'call_a2XxwMTijdIclDEdZMjEaePv',
					name: 'fetch_weather',
					arguments: { location: 'London' },
					result: { weather: 'Cloudy, 18\u00b0C' },
					position: 0,
					turn: 0,
				},
			]);
			expect(london.tool_definitions).toHaveLength(11);
			expect(london.tool_definitions?.[10]).toEqual({
				name: 'fetch_weather',
				description: 'Fetches the weather information for the specified location.',
				parameters: {
					type: 'object',
					properties: {
						location: { type: 'string', description: 'The location to fetch weather for.' },
					},
				},
			});
			// Earlier turns keep their tool calls and the call id their tool turn answers.
			expect(seattle.request).toBe('How about Seattle ?');
			expect(seattle.history?.map((m) => m.role)).toEqual([
				'system',
				'user',
				'assistant',
				'tool',
				'assistant',
			]);
			expect(seattle.history?.[2].tool_calls?.[0].name).toBe('fetch_weather');
			expect(seattle.history?.[3].tool_call_id).toBe('call_a2XxwMTijdIclDEdZMjEaePv');
			expect(seattle.tool_calls?.[0].result).toEqual({ weather: 'Rainy, 14\u00b0C' });
			// Tool calls made after the last user turn inside the query count for this response.
			expect(places.tool_calls?.map((c) => c.name)).toEqual(['opening_hours', 'send_email']);
			expect(places.response).toMatch(/^Seattle is known for various popular tourist attractions/);
			expect(Array.isArray(places.response_raw)).toBe(true);
		},
	},
	'azure-samples-quality-target-data.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 4,
		check: ({ records: [first, tent] }) => {
			expect(first.request).toBe('What is the capital of France?');
			expect(first.retrieved_context).toEqual([{ content: 'France is the country in Europe.' }]);
			expect(first.expected_response).toBe('Paris');
			expect(first.response).toBeUndefined();
			expect(first.source.present).toEqual({ request: true, response: false });
			expect(tent.expected_response).toBe(
				'The TrailMaster X4 tent has a rainfly waterproof rating of 2000mm',
			);
		},
	},
	'azure-samples-nlp-evaluators-data.jsonl': {
		format: 'jsonl',
		schema: 'azure',
		rows: 3,
		check: ({ records: [first] }) => {
			expect(first.request).toBeUndefined();
			expect(first.response).toBe('The cat sits on the mat.');
			expect(first.expected_response).toBe('A cat is sitting on the mat.');
			expect(first.source.present).toEqual({ request: false, response: true });
		},
	},
	'deepeval-goldens.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 15,
		check: ({ records: [first] }) => {
			expect(first.request).toBe('What is the tallest mountain in the world?');
			expect(first.response).toBe('Mount Everest');
			expect(first.expected_response).toBe('Mount Everest');
			expect(first.retrieved_context).toEqual([
				{ content: 'Mountain heights list' },
				{ content: 'Moutain list' },
			]);
			expect(first.expected_retrieved_context).toEqual([
				{ content: 'Geography' },
				{ content: 'Mountains' },
			]);
			expect(first.metadata).toEqual({ name: 'Name 1', comments: 'Comments 1', source_file: null });
		},
	},
	'deepeval-goldens.csv': {
		format: 'csv',
		schema: 'deepeval',
		rows: 15,
		check: (csv) => {
			// `|`-joined list cells: the same goldens as the JSON file, field for field.
			const json = load('deepeval-goldens.json');
			const pick = (r: EvalRecord) => ({
				request: r.request,
				response: r.response,
				expected_response: r.expected_response,
				retrieved_context: r.retrieved_context,
				expected_retrieved_context: r.expected_retrieved_context,
				// An empty CSV cell is absent; the JSON file says null for the same thing.
				metadata: Object.fromEntries(Object.entries(r.metadata).filter(([, v]) => v !== null)),
			});
			expect(csv.records.map(pick)).toEqual(json.records.map(pick));
			expect(csv.records[1].tool_calls).toEqual([
				{ name: 'calculator', arguments: { query: '5 * 7' }, position: 0 },
			]);
			expect(csv.records[1].expected_tool_calls).toEqual(csv.records[1].tool_calls);
		},
	},
	'deepeval-confident-goldens.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 4,
		check: ({ records: [paris, , , photo] }) => {
			expect(paris.request).toBe('What is the capital of France and what is its population?');
			expect(paris.expected_response).toMatch(/^The capital of France is Paris, which has/);
			expect(paris.retrieved_context).toHaveLength(2);
			expect(paris.expected_retrieved_context?.[0]).toEqual({
				content: 'France is a country in Western Europe with Paris as its capital city.',
			});
			expect(paris.tool_calls).toEqual([
				{
					name: 'search_population_data',
					arguments: { query: 'Paris France population 2024' },
					position: 0,
				},
			]);
			expect(paris.expected_tool_calls?.[0].arguments).toEqual({
				query: 'Paris France population statistics',
			});
			expect(paris.metadata.additional_metadata).toEqual({
				topic: 'geography',
				difficulty: 'easy',
				language: 'english',
			});
			expect(photo.request).toMatch(/^Explain the concept of photosynthesis/);
			expect(photo.response).toMatch(/^Photosynthesis is the process/);
			expect(photo.metadata).toEqual({
				custom_column_key_values: { topic: 'biology', difficulty: 'medium' },
			});
		},
	},
	'deepeval-goldens-multi-turn.json': {
		format: 'json',
		schema: 'deepeval',
		rows: 5,
		check: ({ records }) => {
			const raw = JSON.parse(read('deepeval-goldens-multi-turn.json').toString()) as {
				turns: { role: string; content: string }[];
				context?: string[];
			}[];
			const [laptop] = records;
			const turns = raw[0].turns;
			expect(laptop.request).toBe(turns[turns.length - 2].content);
			expect(laptop.response).toBe(turns[turns.length - 1].content);
			expect(laptop.history).toEqual(turns.slice(0, -2));
			expect(laptop.expected_retrieved_context?.map((c) => c.content)).toEqual(raw[0].context);
			expect(laptop.expected_outcome).toMatch(/^The customer should receive a prepaid/);
			// The fifth golden ends on its opening user turn: no response yet.
			const pasta = records[4];
			expect(pasta.request).toBe(raw[4].turns[0].content);
			expect(pasta.response).toBeUndefined();
			expect(pasta.history).toBeUndefined();
			expect(pasta.source.present).toEqual({ request: true, response: false });
		},
	},
	'ragas-scientist-biographies.csv': {
		format: 'csv',
		schema: 'ragas',
		rows: 5,
		check: ({ records: [einstein, , , , salk] }) => {
			expect(einstein.request).toBe(
				'Who originated the theory of relativity and where were they born?',
			);
			expect(einstein.expected_response).toBe(
				'Albert Einstein originated the theory of relativity. He was born in Ulm, in the Kingdom of Wuerttemberg, Germany.',
			);
			expect(einstein.response).toBeUndefined();
			expect(salk.expected_response).toBe(
				'Jonas Salk developed the polio vaccine, first tested in the United States.',
			);
		},
	},
};

describe('real datasets from other projects load with format and schema auto', () => {
	const files = readdirSync(DIR).filter((f) => f !== 'SOURCES.md');

	it('every file in the folder has expectations here, and every expected file exists', () => {
		expect(files.sort()).toEqual(Object.keys(EXPECT).sort());
	});

	it.each(files)('%s: every row becomes a valid record with its fields', (name) => {
		const want = EXPECT[name];
		const res = load(name);
		expect(res.invalid).toEqual([]);
		expect(res.format).toBe(want.format);
		expect(res.schema).toBe(want.schema);
		expect(res.records).toHaveLength(want.rows);
		const counted = sourceRows(name);
		if (counted >= 0) expect(res.records).toHaveLength(counted);
		for (const r of res.records) {
			expect(EvalRecord.safeParse(r).success).toBe(true);
			expect(r.source.present).toEqual({
				request: r.request !== undefined,
				response: r.response !== undefined,
			});
		}
		want.check(res);
	});
});
