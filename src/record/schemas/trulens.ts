/**
 * TruLens records-and-feedback tables: what `TruSession.get_records_and_feedback()` returns (its
 * `AppsExtractor`, read in truera/trulens `src/core/trulens/core/database/sqlalchemy.py` at
 * 019799d4), written to CSV or JSON by pandas. A row is one recorded app call: `record_id`,
 * `input`, `output` (the app's own answer), `tags`, `record_json`, `cost_json`, `perf_json`, `ts`,
 * the app's `app_id`, `app_json`, `type`, `app_name`, `app_version`, and the derived `latency`
 * (seconds), `total_tokens`, `total_cost`, `cost_currency`. Each feedback function adds its mean
 * score under its own name (`Answer Relevance`, `Context Relevance`, `Groundedness`), its calls
 * under `<name>_calls` (`[{args, ret, meta}]`, Python literals in a CSV) and its judge's cost
 * under `<name> feedback cost in <currency>`.
 *
 * The feedback TruLens already computed is kept, never dropped: every score, calls and cost column
 * stays in metadata under its own name (scores as numbers, calls as objects), with a note in the
 * account. The retrieved context is what TruLens's context feedback judged: the `args.context` of
 * each call of the first feedback whose calls carry one (one chunk a call, in call order), else
 * the `args.source` of a groundedness call (a text or a list).
 */
import { readField } from '../fields';
import type { Adapter, Draft, Names } from '../readers';
import type { RetrievedChunk } from '../schema';
import { id, isObject, nonNegative, structured, type Row, type RowReader } from '../values';

const CALLS = '_calls';
const COST = / feedback cost in [A-Za-z]+$/;

/** The feedback functions of a row: names that have a `<name>_calls` column or a score. */
function feedbackNames(row: Row): string[] {
	const names: string[] = [];
	for (const k of Object.keys(row)) {
		if (k.endsWith(CALLS) && k.length > CALLS.length) names.push(k.slice(0, -CALLS.length));
	}
	return names;
}

/** The calls of one feedback, parsed (JSON text or Python literals in a CSV cell). */
function callsOf(r: RowReader, key: string): unknown[] | undefined {
	const raw = r.peek(key);
	if (raw === undefined || raw === null) return undefined;
	const v = structured(r, raw, key);
	if (!Array.isArray(v)) return undefined;
	if (v !== raw) r.expand(key, v);
	return v;
}

/** The texts the context feedback judged, one chunk each, or a groundedness call's source. */
function contextOf(
	calls: Map<string, unknown[]>,
): { from: string; chunks: RetrievedChunk[] } | undefined {
	const argsOf = (c: unknown): Row | undefined =>
		isObject(c) && isObject(c.args) ? c.args : undefined;
	for (const [name, list] of calls) {
		const texts = list.map((c) => argsOf(c)?.context);
		if (texts.length > 0 && texts.every((t) => typeof t === 'string')) {
			return { from: name, chunks: (texts as string[]).map((content) => ({ content })) };
		}
	}
	for (const [name, list] of calls) {
		const source = argsOf(list[0])?.source;
		if (typeof source === 'string') return { from: name, chunks: [{ content: source }] };
		if (Array.isArray(source) && source.length > 0 && source.every((s) => typeof s === 'string')) {
			return { from: name, chunks: (source as string[]).map((content) => ({ content })) };
		}
	}
	return undefined;
}

/** A CSV cell of a score or cost as the number pandas wrote (`0.9`, `nan` stays text). */
function numberCell(r: RowReader, key: string): void {
	const v = r.peek(key);
	if (typeof v !== 'string' || v.trim() === '') return;
	const n = Number(v);
	if (Number.isFinite(n)) r.expand(key, n);
}

function read(r: RowReader, d: Draft): Names {
	readField(r, 'request', r.take('input', 'request'), 'input', d);
	readField(r, 'response', r.take('output', 'response'), 'output', d);
	const recordId = id(r, r.take('record_id', 'request_id'), 'record_id');
	if (recordId !== undefined) d.request_id = recordId;
	const latency = r.peek('latency');
	const seconds = nonNegative(
		r,
		typeof latency === 'string' ? Number(latency) : latency,
		'latency',
		false,
	);
	if (seconds !== undefined) {
		r.take('latency', 'latency_seconds');
		d.latency_seconds = seconds;
	}
	const tokens = r.peek('total_tokens');
	const total = nonNegative(
		r,
		typeof tokens === 'string' ? Number(tokens) : tokens,
		'total_tokens',
		true,
	);
	if (total !== undefined) {
		r.take('total_tokens', 'total_token_count');
		d.total_token_count = total;
	}
	const cost = structured(r, r.peek('cost_json'), 'cost_json');
	if (isObject(cost)) {
		const input = cost.n_prompt_tokens;
		const output = cost.n_completion_tokens;
		if (typeof input === 'number' && Number.isInteger(input) && input >= 0) {
			d.total_input_token_count = input;
		}
		if (typeof output === 'number' && Number.isInteger(output) && output >= 0) {
			d.total_output_token_count = output;
		}
		if (d.total_input_token_count !== undefined || d.total_output_token_count !== undefined) {
			r.take('cost_json', 'total_input_token_count');
			const fed = ['total_input_token_count', 'total_output_token_count'].filter(
				(f) => d[f as 'total_input_token_count'] !== undefined,
			);
			r.feeds('cost_json', ...fed);
			r.release('cost_json', 'also kept whole: the app call cost as TruLens counted it');
		}
	}

	const calls = new Map<string, unknown[]>();
	for (const name of feedbackNames(r.row)) {
		const key = name + CALLS;
		const list = callsOf(r, key);
		if (list !== undefined) calls.set(name, list);
		r.note(
			key,
			`the calls of TruLens feedback "${name}" (args, ret, meta), kept in metadata["${key}"]`,
		);
		if (r.peek(name) !== undefined) {
			numberCell(r, name);
			r.note(name, `TruLens feedback score as TruLens computed it, kept in metadata["${name}"]`);
		}
	}
	for (const k of Object.keys(r.row)) {
		if (COST.test(k)) {
			numberCell(r, k);
			r.note(k, `the cost of a TruLens feedback judge, kept in metadata["${k}"]`);
		}
	}
	const ctx = contextOf(calls);
	if (ctx !== undefined && d.retrieved_context === undefined) {
		const key = ctx.from + CALLS;
		r.take(key, 'retrieved_context');
		d.retrieved_context = ctx.chunks;
		r.release(
			key,
			`also kept whole: the calls of TruLens feedback "${ctx.from}", kept in metadata["${key}"]`,
		);
	}
	return { request: 'input', response: 'output', expectedResponse: 'output' };
}

export const trulens: Adapter = {
	columns: {
		input: ['request'],
		output: ['response'],
		record_id: ['request_id'],
		latency: ['latency_seconds'],
		total_tokens: ['total_token_count'],
	},
	read,
};
