/**
 * promptfoo test CSVs: every column not starting with `__` is a prompt variable; `__expected`
 * (`__expected1`, `__expected2`...) holds an assertion (`equals:x`, `llm-rubric:...`, or a plain
 * value meaning equals), `__description` names the test, `__metadata:key` (`__metadata:tags[]` for
 * a list) is metadata, `__threshold`, `__prefix`, `__suffix`, `__metric` and `__config:...` are
 * test options (kept in metadata under their own names), `__providerOutput` the output to grade.
 * promptfoo tests as JSON Lines (`{vars, assert, description, metadata}`) read the same way.
 *
 * The request is the variable named like one (`query`, `question`, `prompt`...), else the only
 * variable, else all variables as one JSON object (kept structured in `request_raw`); a `context`
 * variable is the retrieved context and a `response`-like one the response. An equality
 * assertion is the expected response, a rubric a guideline, a factuality check an expected fact;
 * other assertions (contains, regex, javascript...) have no canonical field and stay in
 * `metadata.assertions`, named in the account.
 */
import { readField } from '../fields';
import type { Adapter, Draft, Names } from '../readers';
import { isObject, type RowReader } from '../values';

const REQUEST_VARS = [
	'query',
	'question',
	'prompt',
	'input',
	'user_input',
	'message',
	'user_message',
	'customer_message',
];
const RESPONSE_VARS = ['response', 'answer', 'reply', 'output', 'completion'];
const CONTEXT_VARS = ['context', 'contexts', 'documents'];

/** `type:value` of a promptfoo assertion cell; no known type means the value is expected as is. */
function assertion(cell: string): { type: string; value: string } {
	const m = /^(not-)?([a-z][a-z0-9-]*)\s*:\s*([\s\S]*)$/.exec(cell);
	if (m && ASSERTION_TYPES.has(m[2])) return { type: (m[1] ?? '') + m[2], value: m[3] };
	return { type: 'equals', value: cell };
}

/** Assertion types promptfoo reads from `__expected` cells (the common ones). */
const ASSERTION_TYPES = new Set([
	'equals',
	'contains',
	'icontains',
	'contains-all',
	'contains-any',
	'icontains-all',
	'icontains-any',
	'starts-with',
	'regex',
	'is-json',
	'contains-json',
	'javascript',
	'python',
	'similar',
	'llm-rubric',
	'model-graded-closedqa',
	'factuality',
	'answer-relevance',
	'context-faithfulness',
	'context-recall',
	'context-relevance',
	'levenshtein',
	'rouge-n',
	'bleu',
	'webhook',
	'latency',
	'cost',
	'perplexity',
	'classifier',
	'moderation',
	'is-refusal',
	'g-eval',
	'fn',
	'file',
	'grader',
]);

/** `a,b\,c` -> `['a', 'b,c']`: promptfoo's list cells escape commas inside items. */
function listCell(v: string): string[] {
	return v
		.split(/(?<!\\),/)
		.map((x) => x.replace(/\\,/g, ',').trim())
		.filter((x) => x !== '');
}

/** Where the test's variables are: CSV columns, or a JSON Lines test's `vars` object. */
interface Vars {
	names: string[];
	take: (name: string, field: string) => unknown;
	path: (name: string) => string;
}

/** Picks the request, response and context among the variables and reads them. */
function readVars(r: RowReader, d: Draft, v: Vars, names: Names): void {
	const reqVar = REQUEST_VARS.find((k) => v.names.includes(k));
	const respVar = RESPONSE_VARS.find((k) => v.names.includes(k) && k !== reqVar);
	const ctxVar = CONTEXT_VARS.find((k) => v.names.includes(k));
	if (respVar !== undefined) {
		readField(r, 'response', v.take(respVar, 'response'), v.path(respVar), d);
		names.response = v.path(respVar);
	}
	if (ctxVar !== undefined)
		readField(r, 'retrieved_context', v.take(ctxVar, 'retrieved_context'), v.path(ctxVar), d);
	const rest = v.names.filter((k) => k !== respVar && k !== ctxVar);
	if (reqVar !== undefined) {
		readField(r, 'request', v.take(reqVar, 'request'), v.path(reqVar), d);
		names.request = v.path(reqVar);
	} else if (rest.length === 1) {
		readField(r, 'request', v.take(rest[0], 'request'), v.path(rest[0]), d);
		names.request = v.path(rest[0]);
	} else if (rest.length > 1) {
		// The prompt is a template over several variables: all of them together are the request.
		const raw: Record<string, unknown> = {};
		for (const k of rest) raw[k] = v.take(k, 'request');
		readField(r, 'request', raw, 'vars', d);
	}
}

/** One assertion: the field it feeds, or false when it has none (kept in metadata.assertions). */
function applyAssertion(d: Draft, type: string, value: unknown): string | false {
	if (typeof value !== 'string') return false;
	if ((type === 'equals' || type === 'similar') && d.expected_response === undefined) {
		d.expected_response = value;
		return 'expected_response';
	}
	if (type === 'llm-rubric' || type === 'model-graded-closedqa') {
		d.guidelines = [...((d.guidelines as string[] | undefined) ?? []), value];
		return 'guidelines';
	}
	if (type === 'factuality') {
		d.expected_facts = [...(d.expected_facts ?? []), value];
		return 'expected_facts';
	}
	return false;
}

/**
 * A promptfoo test as JSON Lines (`tests: file://cases.jsonl`): `{vars: {...}, assert: [{type,
 * value}], description, metadata, providerOutput}`. The variables are read as a CSV's columns are;
 * the ones not read stay in metadata under `vars`.
 */
function readJsonTest(r: RowReader, d: Draft, names: Names): void {
	const vars = r.peek('vars') as Record<string, unknown>;
	readVars(
		r,
		d,
		{
			names: Object.keys(vars).filter((k) => vars[k] !== undefined && vars[k] !== null),
			take: (k, field) => r.takePath(`vars.${k}`, field),
			path: (k) => `vars.${k}`,
		},
		names,
	);
	if (r.has('providerOutput')) {
		readField(r, 'response', r.take('providerOutput', 'response'), 'providerOutput', d);
		names.response = 'providerOutput';
	}
	const list = r.peek('assert');
	if (!Array.isArray(list)) return;
	const asserts: { type: string; value: unknown }[] = [];
	const fed = new Set<string>();
	list.forEach((a) => {
		const type = isObject(a) && typeof a.type === 'string' ? a.type : undefined;
		const value = isObject(a) ? a.value : undefined;
		const field = type === undefined ? false : applyAssertion(d, type, value);
		if (field === false)
			asserts.push(isObject(a) ? { type: String(a.type), value } : { type: '?', value: a });
		else fed.add(field);
	});
	r.take('assert', 'metadata');
	r.feeds('assert', ...fed, ...(asserts.length > 0 ? ['metadata'] : []));
	if (asserts.length > 0) {
		d.metadata = { ...d.metadata, assertions: asserts };
		r.note('assert', 'assertions with no canonical field are kept in metadata.assertions');
	}
	if (fed.has('expected_response')) names.expectedResponse = 'assert';
}

function read(r: RowReader, d: Draft): Names {
	const names: Names = { request: 'vars', response: 'vars', expectedResponse: '__expected' };
	if (isObject(r.peek('vars'))) {
		readJsonTest(r, d, names);
		return names;
	}
	readVars(
		r,
		d,
		{
			names: Object.keys(r.row).filter((k) => !k.startsWith('__') && r.has(k)),
			take: (k, field) => r.take(k, field),
			path: (k) => k,
		},
		names,
	);
	// `__providerOutput`: the output to grade, given instead of calling a provider.
	if (r.has('__providerOutput') && d.response === undefined) {
		readField(r, 'response', r.take('__providerOutput', 'response'), '__providerOutput', d);
		names.response = '__providerOutput';
	}
	const meta: Record<string, unknown> = {};
	const asserts: { column: string; type: string; value: string }[] = [];
	for (const key of Object.keys(r.row)) {
		if (!key.startsWith('__') || !r.has(key)) continue;
		const cell = r.row[key];
		if (key.startsWith('__expected') && typeof cell === 'string') {
			const a = assertion(cell);
			const field = applyAssertion(d, a.type, a.value);
			if (field !== false) {
				r.take(key, field);
				if (field === 'expected_response') names.expectedResponse = key;
			} else {
				asserts.push({ column: key, type: a.type, value: a.value });
				r.take(key, 'metadata');
				r.note(
					key,
					`promptfoo "${a.type}" assertion: no canonical field, kept in metadata.assertions`,
				);
			}
		} else if (key.startsWith('__metadata:')) {
			const name = key.slice('__metadata:'.length);
			const list = name.endsWith('[]');
			meta[list ? name.slice(0, -2) : name] =
				list && typeof cell === 'string' ? listCell(cell) : cell;
			r.take(key, 'metadata');
		} else if (key === '__description') {
			meta.description = cell;
			r.take(key, 'metadata');
		} else if (key === '__threshold') {
			const n = typeof cell === 'string' && cell.trim() !== '' ? Number(cell) : cell;
			meta.threshold = typeof n === 'number' && Number.isFinite(n) ? n : cell;
			r.take(key, 'metadata');
		}
	}
	// A factuality check beside an equality one: one reference is enough, the check is kept aside.
	if (d.expected_facts !== undefined && d.expected_response !== undefined) {
		for (const value of d.expected_facts)
			asserts.push({ column: '__expected', type: 'factuality', value });
		d.expected_facts = undefined;
	}
	if (asserts.length > 0) meta.assertions = asserts;
	if (Object.keys(meta).length > 0) d.metadata = { ...d.metadata, ...meta };
	return names;
}

export const promptfoo: Adapter = { columns: {}, read };
