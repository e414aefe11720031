import {
	costLatency,
	DEFAULT_PRICES,
	findPrice,
	priceUsage,
	readPriceTable,
} from '../../../src/cost';
import { aggregate } from '../../../src/aggregate';

describe('the price table', () => {
	it('finds prices exactly, case-insensitively, without provider prefix or date suffix', () => {
		expect(findPrice('gpt-4o-mini', DEFAULT_PRICES)?.key).toBe('gpt-4o-mini');
		expect(findPrice('GPT-4o-Mini', DEFAULT_PRICES)?.key).toBe('gpt-4o-mini');
		expect(findPrice('openai/gpt-4o-mini', DEFAULT_PRICES)?.key).toBe('gpt-4o-mini');
		expect(findPrice('gpt-4o-mini-2024-07-18', DEFAULT_PRICES)?.key).toBe('gpt-4o-mini');
		expect(findPrice('gpt-4.1-mini-2025-04-14', DEFAULT_PRICES)?.key).toBe('gpt-4.1-mini');
		// The longest family name wins: gpt-5-mini, not gpt-5.
		expect(findPrice('gpt-5-mini-preview', DEFAULT_PRICES)?.key).toBe('gpt-5-mini');
		expect(findPrice('llama3.2:3b', DEFAULT_PRICES)).toBeUndefined();
		// A prefix only counts at a '-' boundary.
		expect(findPrice('o30', DEFAULT_PRICES)).toBeUndefined();
	});

	it('validates a user table and names the bad entry', () => {
		expect(readPriceTable('{"m": {"input": 1, "output": 2}}')).toEqual({
			m: { input: 1, output: 2 },
		});
		expect(readPriceTable('')).toEqual({});
		expect(() => readPriceTable('{nope')).toThrow(/not valid JSON/);
		expect(() => readPriceTable([])).toThrow(/must be an object/);
		expect(() => readPriceTable({ m: { input: -1, output: 2 } })).toThrow(
			'price of "m": input must be a non-negative number of USD per 1M tokens',
		);
		expect(() => readPriceTable({ m: 3 })).toThrow('price of "m" must be {input, output}');
	});

	it('prices calls by their model and leaves usd unset when any call cannot be priced', () => {
		const ok = priceUsage(
			[
				{ model: 'gpt-4o', input_tokens: 1000, output_tokens: 100 },
				{ input_tokens: 2000, output_tokens: 0 },
			],
			DEFAULT_PRICES,
			'gpt-4o-mini',
		);
		expect(ok.usd).toBeCloseTo((1000 * 2.5 + 100 * 10 + 2000 * 0.15) / 1e6, 15);
		expect(ok.problems).toEqual([]);
		const bad = priceUsage([{ model: 'x', input_tokens: 1, output_tokens: 1 }, {}], DEFAULT_PRICES);
		expect(bad.usd).toBeUndefined();
		expect(bad.problems).toEqual([
			'no price for model "x" (add it to the price table)',
			'an LLM call names no model (set Model)',
		]);
	});

	it('the aggregate prices judge models through the same lookup', () => {
		const s = aggregate(
			[
				{
					eval: {
						j: {
							metric: 'j',
							value: 1,
							scale: { kind: 'binary', min: 0, max: 1 },
							pass: true,
							status: 'ok',
							signature: 's',
							model: 'gpt-4o-mini-2024-07-18',
							usage: { promptTokens: 1000, completionTokens: 100, totalTokens: 1100 },
						},
					},
				},
			],
			{ prices: DEFAULT_PRICES, bootstrapResamples: 0 },
		);
		expect(s.cost.usd).toBeCloseTo((1000 * 0.15 + 100 * 0.6) / 1e6, 15);
		expect(s.appCost).toEqual({
			rowsPriced: 0,
			rowsUnpriced: 1,
			inputTokens: 0,
			outputTokens: 0,
			totalTokens: 0,
		});
	});
});

describe('costLatency', () => {
	const trace = {
		info: { execution_time_ms: 1500 },
		data: {
			spans: [
				{
					name: 'llm',
					context: { span_id: 'a' },
					parent_id: null,
					start_time: 0,
					end_time: 1,
					attributes: {
						'mlflow.spanType': '"CHAT_MODEL"',
						'mlflow.chat.tokenUsage': '{"input_tokens": 1000, "output_tokens": 200}',
						'mlflow.llm.model': '"gpt-4o"',
					},
				},
			],
		},
	};
	const prices = DEFAULT_PRICES;

	it('value is the largest share of a budget used; passes at or under 1', () => {
		const r = costLatency({}, trace, { prices, maxTokens: 2400, maxLatencySeconds: 3 });
		expect(r.figures).toEqual({
			total_token_count: 1200,
			total_input_token_count: 1000,
			total_output_token_count: 200,
			latency_seconds: 1.5,
			cost_usd: (1000 * 2.5 + 200 * 10) / 1e6,
		});
		expect(r.score).toMatchObject({ status: 'ok', value: 0.5, pass: true, threshold: 1 });
		const over = costLatency({}, trace, { prices, maxLatencySeconds: 1 });
		expect(over.score).toMatchObject({
			value: 1.5,
			pass: false,
			reason: 'over budget: latency 1.5 > 1',
		});
	});

	it('without a budget the row is not applicable, but the figures are still there', () => {
		const r = costLatency({}, trace, { prices });
		expect(r.score.status).toBe('not_applicable');
		expect(r.figures.total_token_count).toBe(1200);
	});

	it('given fields win over the trace, and the disagreement is noted', () => {
		const r = costLatency({ latency_seconds: 9 }, trace, { prices, maxLatencySeconds: 10 });
		expect(r.figures.latency_seconds).toBe(9);
		expect(r.score.details?.notes).toEqual([
			"latency_seconds: the row gives 9, the trace 1.5; kept the row's",
		]);
	});

	it('errors name what is missing or broken; no trace and no fields is not applicable', () => {
		expect(costLatency({}, { nope: 1 }, { prices, maxTokens: 1 }).score.error).toMatch(
			/^trace: unrecognised trace format/,
		);
		expect(costLatency({ latency_seconds: 'slow' }, undefined, { prices }).score.error).toBe(
			'latency_seconds: expected a non-negative number',
		);
		expect(
			costLatency({ latency_seconds: 1 }, undefined, { prices, maxTokens: 5 }).score.error,
		).toBe('max tokens is set but the row has no token counts');
		expect(costLatency({}, undefined, { prices, maxTokens: 5 }).score.status).toBe(
			'not_applicable',
		);
	});

	it('a trace without LLM spans costs 0 and needs no model', () => {
		const r = costLatency(
			{},
			{ info: { execution_time_ms: 10 }, data: { spans: [] } },
			{ prices, maxCostUsd: 0.01 },
		);
		expect(r.figures.cost_usd).toBe(0);
		expect(r.score).toMatchObject({ status: 'ok', value: 0, pass: true });
		expect(r.score.details?.notes).toEqual(['no LLM spans in the trace: token counts are 0']);
	});
});
