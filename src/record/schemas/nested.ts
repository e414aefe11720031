/**
 * Records that nest their fields: MLflow 3 evaluation datasets (`inputs`, `outputs`, `expectations`,
 * `trace`, `tags`), LangSmith examples (`inputs`, reference `outputs`, `metadata`) and Phoenix
 * dataset examples (`input`, reference `output`, `metadata`). Each member is read by name through a
 * dotted path (`inputs.question` -> request); members with no canonical meaning stay where they
 * were, in metadata (`{inputs: {user_type}}`), and the account names them (`inputs.user_type`).
 */
import { readField, type Field } from '../fields';
import type { Adapter, Draft, Names } from '../readers';
import { isObject, structured, type Row, type RowReader } from '../values';

/** Names under which the nested records hold the request, in order of preference. */
const REQUEST_KEYS = [
	'question',
	'query',
	'input',
	'user_input',
	'prompt',
	'request',
	'messages',
	'chat_input',
	'user_query',
	'instruction',
	'text',
];
/** Names under which they hold an answer (the app's, or the reference). */
const ANSWER_KEYS = [
	'answer',
	'response',
	'output',
	'result',
	'text',
	'content',
	'completion',
	'generated_text',
	'prediction',
	'expected_response',
	'expected_output',
	'expected_answer',
	'reference',
	'ground_truth',
	'label',
];
const CONTEXT_KEYS = ['context', 'contexts', 'retrieved_context', 'retrieval_context', 'documents'];
const HISTORY_KEYS = ['chat_history', 'history'];
/** MLflow's reserved expectation names (and their canonical fields). */
const EXPECTATIONS: Record<string, Field> = {
	expected_response: 'expected_response',
	expected_facts: 'expected_facts',
	guidelines: 'guidelines',
	expected_retrieved_context: 'expected_retrieved_context',
};

/** The object under `key` (parsed from JSON text in a CSV cell), or undefined. */
function objectAt(r: RowReader, key: string): Row | undefined {
	const raw = r.peek(key);
	if (isObject(raw)) return raw;
	if (typeof raw !== 'string') return undefined;
	const v = structured(r, raw, key);
	if (!isObject(v)) return undefined;
	r.expand(key, v);
	return v;
}

/** Reads `key`'s member `name` (dotted path `key.name`) into `field`. */
function member(r: RowReader, key: string, name: string, field: Field, d: Draft): string {
	const path = `${key}.${name}`;
	readField(r, field, r.takePath(path, field), path, d);
	return path;
}

/** The request side: a text, a message list, or an object of named inputs. */
function readInputs(r: RowReader, key: string, d: Draft, contextField: Field): string {
	const obj = objectAt(r, key);
	if (obj === undefined) {
		readField(r, 'request', r.take(key, 'request'), key, d);
		return key;
	}
	const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && obj[k] !== null);
	const named = REQUEST_KEYS.find((k) => keys.includes(k));
	let requestPath = key;
	if (named !== undefined) requestPath = member(r, key, named, 'request', d);
	else if (keys.length === 1) requestPath = member(r, key, keys[0], 'request', d);
	else {
		// Several inputs, none named like a request: the whole object is the request (as an
		// arbitrary Databricks agent input), kept structured in request_raw.
		readField(r, 'request', r.take(key, 'request'), key, d);
		return key;
	}
	const ctx = CONTEXT_KEYS.find((k) => keys.includes(k) && k !== named);
	if (ctx !== undefined) member(r, key, ctx, contextField, d);
	const hist = HISTORY_KEYS.find((k) => keys.includes(k));
	if (hist !== undefined && d.history === undefined) member(r, key, hist, 'history', d);
	return requestPath;
}

/** The answer side: a text, or an object whose answer is found by name (or is its only member). */
function readOutputs(
	r: RowReader,
	key: string,
	field: Field,
	d: Draft,
	contextField?: Field,
): string {
	const obj = objectAt(r, key);
	if (obj === undefined) {
		readField(r, field, r.take(key, field), key, d);
		return key;
	}
	const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && obj[k] !== null);
	const named = ANSWER_KEYS.find((k) => keys.includes(k));
	let path = key;
	if (named !== undefined) path = member(r, key, named, field, d);
	else if (keys.length === 1) path = member(r, key, keys[0], field, d);
	else readField(r, field, r.take(key, field), key, d);
	if (contextField !== undefined) {
		const ctx = CONTEXT_KEYS.find((k) => keys.includes(k));
		if (ctx !== undefined && named !== undefined) member(r, key, ctx, contextField, d);
	}
	return path;
}

function readMlflow(r: RowReader, d: Draft): Names {
	const request = readInputs(r, 'inputs', d, 'retrieved_context');
	const response = r.has('outputs') ? readOutputs(r, 'outputs', 'response', d) : 'outputs';
	let expected = 'expectations.expected_response';
	const exp = objectAt(r, 'expectations');
	if (exp !== undefined) {
		for (const [name, field] of Object.entries(EXPECTATIONS)) {
			if (exp[name] !== undefined && exp[name] !== null) member(r, 'expectations', name, field, d);
		}
	} else if (r.has('expectations')) expected = 'expectations';
	return { request, response, expectedResponse: expected };
}

/** LangSmith examples and Phoenix dataset examples: their outputs are the reference. */
function reference(input: string, output: string) {
	return (r: RowReader, d: Draft): Names => {
		const request = readInputs(r, input, d, 'retrieved_context');
		const expected = r.has(output)
			? readOutputs(r, output, 'expected_response', d, 'expected_retrieved_context')
			: output;
		return { request, response: output, expectedResponse: expected };
	};
}

export const mlflow: Adapter = {
	columns: {
		inputs: ['request'],
		outputs: ['response'],
		expectations: ['expected_response'],
	},
	read: readMlflow,
};

export const langsmith: Adapter = {
	columns: { inputs: ['request'], outputs: ['expected_response'] },
	read: reference('inputs', 'outputs'),
};

export const phoenix: Adapter = {
	columns: { input: ['request'], output: ['expected_response'] },
	read: reference('input', 'output'),
};
