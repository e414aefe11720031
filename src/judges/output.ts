/**
 * One schema per judge output: the zod schema that parses the reply is written once, and the JSON
 * schema sent as `response_format` (strict) is derived from it here. The converter covers the zod
 * subset judge outputs use (objects, strings, numbers and integers, booleans, enums and literals,
 * arrays, nullable values; refinements and preprocessing are unwrapped) and throws on anything
 * else, so an unsupported declaration fails when its module loads, not on a user's first row.
 */
import { z } from 'zod';
import type { JudgeOutput } from './types';

/** How the JSON schema is written. */
export interface JsonSchemaOptions {
	/**
	 * Also send numeric and length bounds (`minimum`, `maximum`, `minLength`, `minItems`...).
	 * Off for judge outputs: zod enforces the bounds on parse (and a reply out of range is re-asked
	 * once), several providers' strict modes reject these keywords, and the schemas the judges
	 * shipped with never carried them (the verdict cache keys on the schema).
	 */
	bounds?: boolean;
}

/**
 * A zod type with its refinements, preprocessing and nullability removed, the outermost
 * description, and whether null is allowed.
 */
function unwrap(schema: z.ZodTypeAny): {
	inner: z.ZodTypeAny;
	description?: string;
	nullable: boolean;
} {
	let inner = schema;
	let description = schema.description;
	let nullable = false;
	for (;;) {
		if (inner instanceof z.ZodEffects) inner = (inner as z.ZodEffects<z.ZodTypeAny>).innerType();
		else if (inner instanceof z.ZodNullable) {
			inner = (inner as z.ZodNullable<z.ZodTypeAny>).unwrap();
			nullable = true;
		} else break;
		description ??= inner.description;
	}
	return { inner, description, nullable };
}

function numberBounds(schema: z.ZodNumber): Record<string, number> {
	const out: Record<string, number> = {};
	for (const c of schema._def.checks) {
		if (c.kind === 'min') out[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value;
		if (c.kind === 'max') out[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value;
	}
	return out;
}

function stringBounds(schema: z.ZodString): Record<string, number> {
	const out: Record<string, number> = {};
	for (const c of schema._def.checks) {
		if (c.kind === 'min') out.minLength = c.value;
		if (c.kind === 'max') out.maxLength = c.value;
		if (c.kind === 'length') out.minLength = out.maxLength = c.value;
	}
	return out;
}

function arrayBounds(schema: z.ZodArray<z.ZodTypeAny>): Record<string, number> {
	const d = schema._def;
	const out: Record<string, number> = {};
	if (d.minLength) out.minItems = d.minLength.value;
	if (d.maxLength) out.maxItems = d.maxLength.value;
	if (d.exactLength) out.minItems = out.maxItems = d.exactLength.value;
	return out;
}

/**
 * The JSON schema of a zod type. Keys come in one order, the one the hand-written schemas used
 * (`type`, `enum`, `description`, bounds, then `items` or `properties`, `required`,
 * `additionalProperties`), because the prompt's format instructions and the verdict cache read it.
 * Objects are strict: every property required, in declaration order, and no other property.
 */
export function toJsonSchema(
	schema: z.ZodTypeAny,
	options: JsonSchemaOptions = {},
	at = '(root)',
): Record<string, unknown> {
	const { inner, description, nullable } = unwrap(schema);
	const out = typeSchema(inner, description, options, at);
	if (nullable) {
		// Assigning existing keys keeps their place in the order.
		out.type = [out.type, 'null'];
		if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
	}
	return out;
}

function typeSchema(
	inner: z.ZodTypeAny,
	description: string | undefined,
	options: JsonSchemaOptions,
	at: string,
): Record<string, unknown> {
	const described = description !== undefined ? { description } : {};
	if (inner instanceof z.ZodString)
		return { type: 'string', ...described, ...(options.bounds ? stringBounds(inner) : {}) };
	if (inner instanceof z.ZodNumber) {
		const int = inner._def.checks.some((c) => c.kind === 'int');
		return {
			type: int ? 'integer' : 'number',
			...described,
			...(options.bounds ? numberBounds(inner) : {}),
		};
	}
	if (inner instanceof z.ZodBoolean) return { type: 'boolean', ...described };
	if (inner instanceof z.ZodEnum)
		return { type: 'string', enum: [...(inner.options as string[])], ...described };
	if (inner instanceof z.ZodLiteral) {
		const value: unknown = inner.value;
		if (!['string', 'number', 'boolean'].includes(typeof value))
			throw new TypeError(`${at}: only string, number and boolean literals can be sent`);
		return { type: typeof value, enum: [value], ...described };
	}
	if (inner instanceof z.ZodArray) {
		const array = inner as z.ZodArray<z.ZodTypeAny>;
		return {
			type: 'array',
			...described,
			...(options.bounds ? arrayBounds(array) : {}),
			items: toJsonSchema(array.element, options, `${at}[]`),
		};
	}
	if (inner instanceof z.ZodObject) {
		const shape = (inner as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
		const properties: Record<string, unknown> = {};
		for (const [key, value] of Object.entries(shape)) {
			if (value.isOptional())
				throw new TypeError(
					`${at}.${key}: strict structured output requires every property; use .nullable() instead of .optional()`,
				);
			properties[key] = toJsonSchema(value, options, `${at}.${key}`);
		}
		return {
			type: 'object',
			...described,
			properties,
			required: Object.keys(properties),
			additionalProperties: false,
		};
	}
	const kind = (inner._def as { typeName?: string }).typeName ?? inner.constructor.name;
	throw new TypeError(`${at}: ${kind} cannot be sent as a judge output schema`);
}

/**
 * A judge's output from its zod object: the reply is parsed with `schema`, and the strict JSON
 * schema sent to the model is derived from it. Declare the reason before the verdict, with
 * `.describe()` on the fields the model should be told about.
 */
export function judgeOutput<S extends z.ZodTypeAny>(
	name: string,
	schema: S,
): JudgeOutput<z.output<S>> {
	const jsonSchema = toJsonSchema(schema);
	if (jsonSchema.type !== 'object')
		throw new TypeError(`judge output '${name}': the schema must be an object`);
	return { name, schema, jsonSchema };
}
