/** Helpers for nodes that turn many items into one: lineage to every input and JSON options. */
import { NodeOperationError, type IExecuteFunctions, type IPairedItemData } from 'n8n-workflow';

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

/** Split a comma-separated list parameter. */
export function listParam(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
}
