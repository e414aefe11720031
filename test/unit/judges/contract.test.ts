/**
 * The runtime contract, checked for every judge of the registry against the local test server,
 * so a judge declared later is held to it with no test written for it: a row of its declared
 * inputs gets an ok Score on its scale from a valid reply (built from its output schema), a
 * server failing every call gives an error Score with value null (never 0), a row missing a
 * required input is not applicable without any HTTP call, and every structured call sends the
 * schema derived from the judge's zod schema. Fan-out judges (per chunk, per guideline...) go
 * through the same checks: the server answers every call of the row.
 */
import type { InputDecl } from '../../../src/core/types';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { toJsonSchema } from '../../../src/judges/output';
import { judgeRegistry } from '../../../src/judges/registry';
import { runJudge } from '../../../src/judges/run';
import type { JudgeDecl } from '../../../src/judges/types';
import {
	faults,
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../../support/openai-server';

/** Sample text for the canonical text fields; any other text field gets its display name. */
const TEXTS: Record<string, string> = {
	request: 'When did the bridge open, and what did it cost?',
	response: 'The bridge opened in 1932 and cost 4 million dollars.',
	expected_response: 'It opened in 1932; it cost 4 million dollars.',
};

/** A value of each input kind, as a canonical record holds it. */
function sampleValue(input: InputDecl): unknown {
	switch (input.kind) {
		case 'text':
			return TEXTS[input.field] ?? `${input.displayName}: sample text`;
		case 'texts':
			return ['The bridge opened in 1932.', 'It cost 4 million dollars.'];
		case 'contexts':
			return [
				{ doc_uri: 'kb/bridge.md', content: 'The bridge opened to traffic in 1932.' },
				{ doc_uri: 'kb/cost.md', content: 'Its construction cost 4 million dollars.' },
			];
		case 'messages':
			return [
				{ role: 'user', content: 'Tell me about the bridge.' },
				{ role: 'assistant', content: 'Which bridge do you mean?' },
			];
		case 'json':
			return ['The response must be in English.', 'The response must not use slang.'];
		case 'toolCalls':
			return [
				{ name: 'bridge_facts', arguments: { bridge: 'Harbour' }, result: 'Opened 1932; cost 4M.' },
			];
		case 'toolDefinitions':
			return [
				{
					name: 'bridge_facts',
					description: 'Facts about a bridge',
					parameters: { type: 'object', properties: { bridge: { type: 'string' } } },
				},
			];
	}
}

/** A row with every declared input (required and optional) under its canonical field. */
function canonicalRow(decl: JudgeDecl): Record<string, unknown> {
	return Object.fromEntries(decl.inputs.map((i) => [i.field, sampleValue(i)]));
}

/**
 * A reply valid for a JSON schema written with its bounds: the first enum value, the lowest
 * allowed number, the fewest (but at least one) list items. For the shipped refinements (a
 * contradiction scores 1-2, "yes" needs every fact supported) these choices are consistent.
 */
function sampleReply(schema: Record<string, unknown>): unknown {
	if (Array.isArray(schema.enum)) return schema.enum[0];
	switch (schema.type) {
		case 'object': {
			const props = schema.properties as Record<string, Record<string, unknown>>;
			return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleReply(v)]));
		}
		case 'array': {
			const n = Math.max(1, Number(schema.minItems ?? 1));
			return Array.from({ length: n }, () => sampleReply(schema.items as Record<string, unknown>));
		}
		case 'integer':
		case 'number':
			return Number(schema.minimum ?? 1);
		case 'boolean':
			return true;
		default:
			return 'The inputs support this verdict.';
	}
}

/** The schema a structured call sent, or undefined for a call without one. */
function sentSchema(req: RecordedRequest): { name: string; schema: unknown } | undefined {
	const s = req.responseFormat?.json_schema;
	return s ? { name: s.name, schema: s.schema } : undefined;
}

function onScale(decl: JudgeDecl, value: unknown): boolean {
	if (decl.scale.kind === 'binary') return typeof value === 'boolean';
	return typeof value === 'number' && value >= decl.scale.min && value <= decl.scale.max;
}

const requiredInputs = judgeRegistry.flatMap((d) =>
	d.inputs.filter((i) => i.required).map((i) => [d.id, i.field, d] as const),
);

describe('every registered judge', () => {
	let server: OpenAIServer;
	let source: ModelSource;
	beforeAll(async () => {
		server = await startOpenAIServer();
	});
	afterAll(async () => {
		await server.close();
	});
	beforeEach(() => {
		// A fresh source per test: the structured-output mode found is cached per source.
		source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
	});
	afterEach(() => {
		server.setDefault(null);
	});
	const governor = (): Governor =>
		new Governor({ backoffBaseMs: 1, timeoutMs: 2000, maxRetries: 1 });
	/** The chat calls a function made. */
	const callsOf = async <T>(f: () => Promise<T>): Promise<[T, RecordedRequest[]]> => {
		const before = server.chatRequests().length;
		const result = await f();
		return [result, server.chatRequests().slice(before)];
	};

	it.each(judgeRegistry.map((d) => [d.id, d] as const))(
		'%s: a canonical row and a valid reply give an ok Score on its scale, sending the derived schema',
		async (_id, decl) => {
			const reply = sampleReply(toJsonSchema(decl.output.schema, { bounds: true }));
			server.setDefault((req) =>
				sentSchema(req)?.name === decl.output.name ? { json: reply } : faults.serverError(),
			);
			const [score, calls] = await callsOf(() =>
				runJudge(decl, canonicalRow(decl), { source, governor: governor() }),
			);
			expect(score).toMatchObject({ metric: decl.id, status: 'ok' });
			expect(onScale(decl, score.value)).toBe(true);
			expect(typeof score.pass).toBe('boolean');
			expect(calls.length).toBeGreaterThanOrEqual(1);
			// A fan-out row keeps one verdict per call it made (every chunk, every guideline set).
			if (decl.fanOut) {
				const perCall = score.details?.calls as { status: string }[];
				expect(perCall.map((c) => c.status)).toEqual(calls.map(() => 'ok'));
			}
			for (const call of calls) {
				expect(call.responseFormat?.type).toBe('json_schema');
				expect(call.responseFormat?.json_schema?.strict).toBe(true);
				// JSON text: the key order is part of what is sent.
				expect(JSON.stringify(sentSchema(call))).toBe(
					JSON.stringify({ name: decl.output.name, schema: decl.output.jsonSchema }),
				);
			}
		},
	);

	it.each(judgeRegistry.map((d) => [d.id, d] as const))(
		'%s: a server failing every call gives an error Score with value null, never 0',
		async (_id, decl) => {
			server.setDefault(() => faults.serverError());
			const [score, calls] = await callsOf(() =>
				runJudge(decl, canonicalRow(decl), { source, governor: governor() }),
			);
			expect(score).toMatchObject({ metric: decl.id, status: 'error', value: null, pass: null });
			expect(score.error).toEqual(expect.any(String));
			expect(calls.length).toBeGreaterThanOrEqual(1);
		},
	);

	it.each(requiredInputs)(
		'%s: a row without %s is not applicable, with no HTTP call',
		async (_id, field, decl) => {
			const row = canonicalRow(decl);
			delete row[field];
			const [score, calls] = await callsOf(() =>
				runJudge(decl, row, { source, governor: governor() }),
			);
			expect(score).toMatchObject({
				metric: decl.id,
				status: 'not_applicable',
				value: null,
				pass: null,
			});
			expect(score.reason).toContain(field);
			expect(calls).toEqual([]);
		},
	);
});
