/**
 * The package's one price table: model -> USD per one million input and output tokens. The Cost &
 * Latency node prices what the application spent; Eval Aggregate prices what the judges spent.
 * Both read the same table (the default below, or one the user edits) through `findPrice`.
 */

/** USD per one million tokens: `input` (prompt) and `output` (completion). */
export interface ModelPrice {
	input: number;
	output: number;
}

/** Prices by model name. */
export type PriceTable = Record<string, ModelPrice>;

/** The day {@link DEFAULT_PRICES} was taken from the providers' published list prices. */
export const DEFAULT_PRICES_TAKEN = '2026-06-21';

/**
 * A small default table: OpenAI standard-tier list prices, USD per 1M tokens, as published on
 * platform.openai.com/docs/pricing on {@link DEFAULT_PRICES_TAKEN} (no cached-input or batch
 * discounts). Prices change: edit the table in the node for your provider and contract.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
	'gpt-5': { input: 1.25, output: 10 },
	'gpt-5-mini': { input: 0.25, output: 2 },
	'gpt-5-nano': { input: 0.05, output: 0.4 },
	'gpt-4.1': { input: 2, output: 8 },
	'gpt-4.1-mini': { input: 0.4, output: 1.6 },
	'gpt-4.1-nano': { input: 0.1, output: 0.4 },
	'gpt-4o': { input: 2.5, output: 10 },
	'gpt-4o-mini': { input: 0.15, output: 0.6 },
	o3: { input: 2, output: 8 },
	'o4-mini': { input: 1.1, output: 4.4 },
});

/** A price table that cannot be used, with the model and field at fault. */
export class PriceTableError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'PriceTableError';
	}
}

function isObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validates a price table given as an object or JSON text: every entry needs non-negative finite
 * `input` and `output` numbers. Throws {@link PriceTableError} naming the first bad entry.
 */
export function readPriceTable(v: unknown): PriceTable {
	let t = v;
	if (typeof t === 'string') {
		if (t.trim() === '') return {};
		try {
			t = JSON.parse(t) as unknown;
		} catch (e) {
			throw new PriceTableError(`price table is not valid JSON (${(e as Error).message})`);
		}
	}
	if (!isObject(t))
		throw new PriceTableError(
			'price table must be an object like {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}',
		);
	const out: PriceTable = {};
	for (const [model, p] of Object.entries(t)) {
		if (!isObject(p)) throw new PriceTableError(`price of "${model}" must be {input, output}`);
		for (const k of ['input', 'output'] as const) {
			const x = p[k];
			if (typeof x !== 'number' || !Number.isFinite(x) || x < 0)
				throw new PriceTableError(
					`price of "${model}": ${k} must be a non-negative number of USD per 1M tokens`,
				);
		}
		out[model] = { input: p.input as number, output: p.output as number };
	}
	return out;
}

const DATE_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/;

/**
 * The price of a model: the exact name, else case-insensitively, without a provider prefix
 * (`openai/gpt-4o-mini`, `models/...`), without a date suffix (`gpt-4o-mini-2024-07-18`), else the
 * longest table name that the model extends at a `-` boundary. `key` says which entry priced it.
 */
export function findPrice(
	model: string,
	table: Readonly<PriceTable>,
): { key: string; price: ModelPrice } | undefined {
	const exact = table[model];
	if (exact) return { key: model, price: exact };
	const lower = new Map<string, string>();
	for (const k of Object.keys(table)) lower.set(k.toLowerCase(), k);
	let name = model.trim().toLowerCase();
	const tryName = (n: string): { key: string; price: ModelPrice } | undefined => {
		const k = lower.get(n);
		return k !== undefined ? { key: k, price: table[k] } : undefined;
	};
	const direct = tryName(name);
	if (direct) return direct;
	name = name.slice(name.lastIndexOf('/') + 1);
	const bare = tryName(name) ?? tryName(name.replace(DATE_SUFFIX, ''));
	if (bare) return bare;
	let best: string | undefined;
	for (const k of lower.keys()) {
		if (name.startsWith(k + '-') && (best === undefined || k.length > best.length)) best = k;
	}
	return best !== undefined ? tryName(best) : undefined;
}

/** USD for a number of input and output tokens at a price. */
export function tokenCost(inputTokens: number, outputTokens: number, price: ModelPrice): number {
	return (inputTokens * price.input + outputTokens * price.output) / 1e6;
}

/** Tokens of one model call to price (an LLM span, or a row's totals). */
export interface UsageToPrice {
	model?: string;
	input_tokens?: number;
	output_tokens?: number;
}

/** One priced line of {@link priceUsage}. */
export interface PricedLine {
	model: string;
	/** The table entry that priced it (after prefix, date or family matching). */
	priced_as?: string;
	input_tokens: number;
	output_tokens: number;
	usd?: number;
}

/** What a set of calls cost; `usd` is absent when any call could not be priced. */
export interface CostResult {
	usd?: number;
	lines: PricedLine[];
	/** Why `usd` is absent, naming the model or the missing figure. */
	problems: string[];
}

/**
 * Prices calls by their own model, or `fallbackModel` when a call names none. Calls without an
 * input/output split, without a model, or with a model missing from the table leave `usd` unset
 * and say why in `problems`, so a partial sum never poses as the cost.
 */
export function priceUsage(
	calls: readonly UsageToPrice[],
	table: Readonly<PriceTable>,
	fallbackModel?: string,
): CostResult {
	const lines: PricedLine[] = [];
	const problems: string[] = [];
	let usd = 0;
	for (const c of calls) {
		const model =
			c.model ?? (fallbackModel && fallbackModel.trim() !== '' ? fallbackModel : undefined);
		const input = c.input_tokens;
		const output = c.output_tokens;
		if (model === undefined) {
			problems.push('an LLM call names no model (set Model)');
			continue;
		}
		if (input === undefined || output === undefined) {
			problems.push(`"${model}": usage has no input/output split to price`);
			continue;
		}
		const found = findPrice(model, table);
		const line: PricedLine = { model, input_tokens: input, output_tokens: output };
		if (!found) {
			problems.push(`no price for model "${model}" (add it to the price table)`);
			lines.push(line);
			continue;
		}
		line.priced_as = found.key;
		line.usd = tokenCost(input, output, found.price);
		usd += line.usd;
		lines.push(line);
	}
	const out: CostResult = { lines, problems: [...new Set(problems)] };
	if (out.problems.length === 0) out.usd = usd;
	return out;
}
