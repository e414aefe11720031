/**
 * The JSON schemas the judges send are part of their released behaviour: the prompt's format
 * instructions list the schema's properties in order and the verdict cache keys on the schema, so
 * a changed schema means different prompts and a cold cache. fixtures/judge-json-schemas.json
 * records every schema as it was written by hand, before they were derived from the zod schemas;
 * each recorded schema must still be sent exactly, key order included. Judges declared since then
 * are not in the recording: they only have to be strict schemas.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { sentSchemas, type SentSchema } from './schemas';

const recorded = JSON.parse(
	readFileSync(path.join(__dirname, 'fixtures', 'judge-json-schemas.json'), 'utf8'),
) as Record<string, SentSchema>;
const sent = sentSchemas();

/** Strict structured output (OpenAI): every property required, in order, and no others. */
function strictProblems(schema: unknown, at = '(root)'): string[] {
	const s = schema as Record<string, unknown>;
	const problems: string[] = [];
	if (s.type === 'object') {
		const keys = Object.keys((s.properties ?? {}) as object);
		if (JSON.stringify(s.required) !== JSON.stringify(keys))
			problems.push(`${at}: required is not every property in order`);
		if (s.additionalProperties !== false) problems.push(`${at}: additionalProperties is not false`);
		for (const k of keys)
			problems.push(...strictProblems((s.properties as Record<string, unknown>)[k], `${at}.${k}`));
	}
	if (s.type === 'array') problems.push(...strictProblems(s.items, `${at}[]`));
	return problems;
}

describe('JSON schemas sent to the judge model', () => {
	it('still sends every recorded schema', () => {
		expect(Object.keys(sent)).toEqual(expect.arrayContaining(Object.keys(recorded)));
	});

	it.each(Object.keys(recorded))('%s is sent exactly as recorded, key order included', (key) => {
		// JSON text comparison: toEqual alone would accept the same keys in another order.
		expect(JSON.stringify(sent[key], null, 2)).toBe(JSON.stringify(recorded[key], null, 2));
	});

	it.each(Object.keys(sent))('%s is a strict schema', (key) => {
		expect(strictProblems(sent[key].jsonSchema)).toEqual([]);
	});
});
