/**
 * The package's one price table: model -> USD per one million input and output tokens. The Cost &
 * Latency node prices what the application spent; Eval Aggregate prices what the judges spent.
 * Both read the same table (the default below, or one the user edits) through `findPrice`.
 */
import type { Score } from '../core/types';
import { parseTrace, TraceError, type ParsedTrace } from '../record/trace';

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
	// Embedding models bill input tokens only.
	'text-embedding-3-small': { input: 0.02, output: 0 },
	'text-embedding-3-large': { input: 0.13, output: 0 },
	'text-embedding-ada-002': { input: 0.1, output: 0 },
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

// ---------------------------------------------------------------------------------------------
// Per-row cost and latency (the Cost & Latency node's library form)

/** Budgets a row must stay within; 0 or absent means no limit. */
export interface Budgets {
	maxTokens?: number;
	maxLatencySeconds?: number;
	maxCostUsd?: number;
}

/** Per-row figures, named as seed 001 names them, plus the application's cost in USD. */
export interface RowFigures {
	total_token_count?: number;
	total_input_token_count?: number;
	total_output_token_count?: number;
	latency_seconds?: number;
	cost_usd?: number;
}

/**
 * The Databricks per-row column of each figure, for the Databricks output format: seed 002's
 * metric table names `agent/total_token_count`, `agent/input_token_count` and
 * `agent/output_token_count`; the latency column follows seed 001's run metric
 * `agent/latency_seconds/average`. Databricks has no cost column. The figures keep their own names
 * as well (seed 001's per-row table), which Eval Aggregate reads.
 */
export const FIGURE_DATABRICKS_COLUMNS: Readonly<Partial<Record<keyof RowFigures, string>>> =
	Object.freeze({
		total_token_count: 'agent/total_token_count',
		total_input_token_count: 'agent/input_token_count',
		total_output_token_count: 'agent/output_token_count',
		latency_seconds: 'agent/latency_seconds',
	});

/** Result of {@link costLatency}: the figures for the row and its Score. */
export interface CostLatencyResult {
	/** Figures to write on the row (given ones kept as they were). */
	figures: RowFigures;
	score: Score;
}

/** Options of {@link costLatency}. */
export interface CostLatencyOptions extends Budgets {
	prices: Readonly<PriceTable>;
	/** Model for LLM calls the trace does not name (and for rows without a trace). */
	model?: string;
	/** Key of the Score (default `cost_latency`). */
	key?: string;
}

/** Version of the cost/latency score; bump when the rule changes. */
export const COST_LATENCY_VERSION = '1';

const FIGURE_ALIASES: Record<keyof RowFigures, readonly string[]> = {
	total_token_count: ['total_token_count'],
	total_input_token_count: ['total_input_token_count', 'input_token_count'],
	total_output_token_count: ['total_output_token_count', 'output_token_count'],
	latency_seconds: ['latency_seconds'],
	cost_usd: ['cost_usd'],
};

function given(row: Record<string, unknown>, k: keyof RowFigures): number | undefined | 'bad' {
	for (const name of FIGURE_ALIASES[k]) {
		const v = row[name];
		if (v === undefined || v === null || v === '') continue;
		const n = typeof v === 'string' ? Number(v) : v;
		return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 'bad';
	}
	return undefined;
}

const budgetOf = (v: number | undefined): number | undefined =>
	v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined;

const COST_LATENCY_SCALE = { kind: 'count' as const, min: 0, max: Number.MAX_SAFE_INTEGER };

/** The error Score of a row whose cost/latency could not be computed (e.g. a bad parameter). */
export function costLatencyError(error: string, key = 'cost_latency'): Score {
	return {
		metric: key,
		value: null,
		scale: COST_LATENCY_SCALE,
		threshold: 1,
		direction: 'lower',
		pass: null,
		status: 'error',
		error,
		signature: `metric:cost_latency@${COST_LATENCY_VERSION}`,
	};
}

/** Why a row has no Cost & Latency score when no budget is set (its figures are still written). */
export const NO_BUDGET_REASON = 'no budget set (max tokens, max latency or max cost)';

/**
 * Per-row cost and latency: token counts and latency from the row's fields, else from its trace
 * (`parseTrace`); cost in USD from the price table per LLM call (by the call's model, else
 * `model`). The Score's value is the largest share of a budget used (1 = exactly at budget), so it
 * passes at the threshold 1 when every budget holds. No budget set: `not_applicable`, figures still
 * returned. A budget whose figure is unknown, a bad trace or a bad field: `error` naming it.
 */
export function costLatency(
	row: Record<string, unknown>,
	trace: unknown,
	options: CostLatencyOptions,
): CostLatencyResult {
	const key = options.key ?? 'cost_latency';
	const signature = `metric:cost_latency@${COST_LATENCY_VERSION}|prices:${Object.keys(options.prices).length}`;
	const base = {
		metric: key,
		scale: COST_LATENCY_SCALE,
		threshold: 1,
		direction: 'lower' as const,
		signature,
	};
	const fail = (error: string, figures: RowFigures = {}): CostLatencyResult => ({
		figures,
		score: { ...base, value: null, pass: null, status: 'error', error },
	});

	const figures: RowFigures = {};
	for (const k of Object.keys(FIGURE_ALIASES) as (keyof RowFigures)[]) {
		const v = given(row, k);
		if (v === 'bad') return fail(`${k}: expected a non-negative number`);
		if (v !== undefined) figures[k] = v;
	}
	const notes: string[] = [];
	let parsed: ParsedTrace | undefined;
	const hasTrace = trace !== undefined && trace !== null && trace !== '';
	if (hasTrace) {
		try {
			parsed = parseTrace(trace);
		} catch (e) {
			if (e instanceof TraceError) return fail(`trace: ${e.message}`, figures);
			throw e;
		}
		notes.push(...parsed.notes);
		for (const k of [
			'total_token_count',
			'total_input_token_count',
			'total_output_token_count',
			'latency_seconds',
		] as const) {
			const v = parsed[k];
			if (v === undefined) continue;
			if (figures[k] === undefined) figures[k] = v;
			else if (Math.abs(figures[k] - v) > 1e-9 * Math.max(1, v))
				notes.push(`${k}: the row gives ${figures[k]}, the trace ${v}; kept the row's`);
		}
	}
	if (figures.total_token_count === undefined && figures.total_input_token_count !== undefined) {
		figures.total_token_count =
			figures.total_input_token_count + (figures.total_output_token_count ?? 0);
	}

	let cost: CostResult | undefined;
	if (figures.cost_usd === undefined) {
		const fromTrace = parsed !== undefined && !notes.some((n) => n.includes('trace-level'));
		let calls: UsageToPrice[];
		if (figures.total_token_count === 0) calls = [];
		else if (fromTrace && parsed !== undefined && parsed.llm_calls.length > 0)
			calls = parsed.llm_calls;
		else if (figures.total_input_token_count !== undefined)
			calls = [
				{
					input_tokens: figures.total_input_token_count,
					output_tokens: figures.total_output_token_count ?? 0,
				},
			];
		else calls = [{}];
		cost = priceUsage(calls, options.prices, options.model);
		if (cost.usd !== undefined) figures.cost_usd = cost.usd;
	}

	const details: Record<string, unknown> = { ...figures };
	if (cost) {
		if (cost.lines.length > 0) details.cost_lines = cost.lines;
		if (cost.problems.length > 0) details.cost_unknown = cost.problems;
	}
	if (notes.length > 0) details.notes = notes;

	if (!hasTrace && Object.keys(figures).length === 0) {
		return {
			figures,
			score: {
				...base,
				value: null,
				pass: null,
				status: 'not_applicable',
				reason: 'no trace and no token, latency or cost fields on the row',
			},
		};
	}
	const budgets: [string, number | undefined, number | undefined, string][] = [
		[
			'tokens',
			budgetOf(options.maxTokens),
			figures.total_token_count,
			'the row has no token counts',
		],
		[
			'latency',
			budgetOf(options.maxLatencySeconds),
			figures.latency_seconds,
			'the row has no latency',
		],
		[
			'cost',
			budgetOf(options.maxCostUsd),
			figures.cost_usd,
			`the cost is unknown (${cost?.problems.join('; ') || 'no token counts'})`,
		],
	];
	let value: number | undefined;
	const over: string[] = [];
	for (const [name, budget, figure, missing] of budgets) {
		if (budget === undefined) continue;
		if (figure === undefined) return fail(`max ${name} is set but ${missing}`, figures);
		const share = figure / budget;
		if (share > 1) over.push(`${name} ${figure} > ${budget}`);
		value = Math.max(value ?? 0, share);
	}
	if (value === undefined) {
		return {
			figures,
			score: {
				...base,
				value: null,
				pass: null,
				status: 'not_applicable',
				reason: NO_BUDGET_REASON,
				details,
			},
		};
	}
	details.over_budget = over;
	return {
		figures,
		score: {
			...base,
			value,
			pass: value <= 1,
			status: 'ok',
			reason: over.length > 0 ? `over budget: ${over.join(', ')}` : 'within every budget',
			details,
		},
	};
}
