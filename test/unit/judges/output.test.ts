/** The zod to JSON schema converter behind judge outputs (src/judges/output.ts). */
import { z } from 'zod';
import { judgeOutput, toJsonSchema } from '../../../src/judges/output';
import { likertInt, reasonText, yesNo } from '../../../src/judges/parse';

describe('toJsonSchema', () => {
	it('writes the subset judge outputs use, strict, in declaration order', () => {
		const schema = z.object({
			reason: reasonText().describe('why'),
			tags: z.array(z.string()).describe('labels'),
			ratio: z.number(),
			score: likertInt(1, 5),
			ok: z.boolean(),
			verdict: yesNo().describe('the verdict'),
			kind: z.literal('fixed'),
			items: z.array(z.object({ n: z.number().int() })),
		});
		// JSON text, not toEqual: the key order is what the prompt and the cache read.
		expect(JSON.stringify(toJsonSchema(schema))).toBe(
			JSON.stringify({
				type: 'object',
				properties: {
					reason: { type: 'string', description: 'why' },
					tags: { type: 'array', description: 'labels', items: { type: 'string' } },
					ratio: { type: 'number' },
					score: { type: 'integer' },
					ok: { type: 'boolean' },
					verdict: { type: 'string', enum: ['yes', 'no'], description: 'the verdict' },
					kind: { type: 'string', enum: ['fixed'] },
					items: {
						type: 'array',
						items: {
							type: 'object',
							properties: { n: { type: 'integer' } },
							required: ['n'],
							additionalProperties: false,
						},
					},
				},
				required: ['reason', 'tags', 'ratio', 'score', 'ok', 'verdict', 'kind', 'items'],
				additionalProperties: false,
			}),
		);
	});

	it('unwraps refinements and preprocessing, keeping the outermost description', () => {
		const refined = z
			.object({ a: z.string() })
			.refine(() => true)
			.describe('outer');
		expect(toJsonSchema(refined)).toEqual({
			type: 'object',
			description: 'outer',
			properties: { a: { type: 'string' } },
			required: ['a'],
			additionalProperties: false,
		});
		const inner = z.preprocess((v) => v, z.string().describe('inner'));
		expect(toJsonSchema(inner)).toEqual({ type: 'string', description: 'inner' });
		expect(toJsonSchema(inner.describe('outer'))).toEqual({ type: 'string', description: 'outer' });
	});

	it('sends null as a second type (and enum value) for nullable fields', () => {
		expect(JSON.stringify(toJsonSchema(z.string().nullable().describe('maybe')))).toBe(
			JSON.stringify({ type: ['string', 'null'], description: 'maybe' }),
		);
		expect(toJsonSchema(z.enum(['a', 'b']).nullable())).toEqual({
			type: ['string', 'null'],
			enum: ['a', 'b', null],
		});
	});

	it('sends bounds only when asked: zod enforces them on parse', () => {
		const schema = z.object({
			score: likertInt(0, 7),
			above: z.number().gt(0).lt(1),
			text: z.string().min(1).max(9),
			list: z.array(z.string()).min(1).max(3),
			exact: z.array(z.string()).length(2),
		});
		const props = (o: Record<string, unknown>) => o.properties as Record<string, unknown>;
		expect(props(toJsonSchema(schema)).score).toEqual({ type: 'integer' });
		expect(props(toJsonSchema(schema, { bounds: true }))).toEqual({
			score: { type: 'integer', minimum: 0, maximum: 7 },
			above: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
			text: { type: 'string', minLength: 1, maxLength: 9 },
			list: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
			exact: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'string' } },
		});
	});

	it('refuses what strict structured output cannot express, naming the field', () => {
		expect(() => toJsonSchema(z.object({ a: z.string().optional() }))).toThrow(
			/\(root\)\.a: .*use \.nullable\(\)/,
		);
		expect(() => toJsonSchema(z.object({ a: z.union([z.string(), z.number()]) }))).toThrow(
			/\(root\)\.a: ZodUnion cannot be sent/,
		);
		expect(() => toJsonSchema(z.object({ a: z.array(z.record(z.string())) }))).toThrow(
			/\(root\)\.a\[\]: ZodRecord cannot be sent/,
		);
	});
});

describe('judgeOutput', () => {
	it('keeps the zod schema for parsing and derives the JSON schema sent', () => {
		const out = judgeOutput('x', z.object({ reason: reasonText(), score: likertInt(1, 5) }));
		expect(out.name).toBe('x');
		expect(out.schema.parse({ reason: 'fine', score: '4/5' })).toEqual({
			reason: 'fine',
			score: 4,
		});
		expect(out.jsonSchema.required).toEqual(['reason', 'score']);
	});

	it('needs an object at the top: the runtime lists its properties in the prompt', () => {
		expect(() => judgeOutput('x', z.string())).toThrow(/must be an object/);
	});
});
