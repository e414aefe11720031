/** Helpers for nodes that turn many items into one: lineage to every input and JSON options. */
import { NodeOperationError, type IExecuteFunctions, type IPairedItemData } from 'n8n-workflow';
import { DEFAULT_PRICES, PriceTableError, readPriceTable, type PriceTable } from '../../src/cost';

/** pairedItem entries pointing at every input item. */
export function allPaired(count: number): IPairedItemData[] {
	return Array.from({ length: count }, (_, item) => ({ item }));
}

/** Parse a JSON option that may arrive as text or as an already-evaluated object. */
export function jsonOption<T>(
	ctx: IExecuteFunctions,
	name: string,
	value: unknown,
	what: string,
): T | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string') return value as T;
	try {
		return JSON.parse(value) as T;
	} catch (e) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${name} is not valid JSON: ${(e as Error).message}`,
			{
				description: `Give ${what} as JSON, or as an expression that returns an object.`,
			},
		);
	}
}

/**
 * A JSON option that must be a list of rows (or empty): parsed by {@link jsonOption}, and anything
 * but an array fails the node, `hint` saying how to set it.
 */
export function rowListOption(
	ctx: IExecuteFunctions,
	name: string,
	value: unknown,
	what: string,
	hint: string,
): unknown[] | undefined {
	const rows = jsonOption<unknown>(ctx, name, value, what);
	if (rows !== undefined && !Array.isArray(rows)) {
		throw new NodeOperationError(ctx.getNode(), `${name} is not a list of rows`, {
			description: hint,
		});
	}
	return rows;
}

/** Split a comma-separated list parameter. */
export function listParam(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
}

/**
 * The Model Prices option of Eval Aggregate and Cost & Latency: the package's one price table
 * (`src/cost`), the dated default when the option is not set, a node error naming the fix otherwise.
 */
export function priceTableOption(ctx: IExecuteFunctions, value: unknown): PriceTable {
	if (value === undefined) return { ...DEFAULT_PRICES };
	try {
		return readPriceTable(value);
	} catch (e) {
		// readPriceTable only throws PriceTableError; anything else is shown the same way.
		const message = e instanceof PriceTableError ? e.message : String(e);
		throw new NodeOperationError(ctx.getNode(), message, {
			description:
				'Give Model Prices as JSON: {"model": {"input": USD per 1M input tokens, "output": USD per 1M output tokens}}',
		});
	}
}
