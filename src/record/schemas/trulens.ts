/**
 * TruLens records-and-feedback tables: what `TruSession.get_records_and_feedback()` returns (its
 * `AppsExtractor`, read in truera/trulens `src/core/trulens/core/database/sqlalchemy.py` at
 * 019799d4), written to CSV or JSON by pandas. A row is one recorded app call: `record_id`,
 * `input`, `output` (the app's own answer), `tags`, `record_json`, `cost_json`, `perf_json`, `ts`,
 * the app's `app_id`, `app_json`, `type`, `app_name`, `app_version`, and the derived `latency`
 * (seconds), `total_tokens`, `total_cost`, `cost_currency`. Each feedback function adds its mean
 * score under its own name (`Answer Relevance`, `Context Relevance`, `Groundedness`), its calls
 * under `<name>_calls` (`[{args, ret, meta}]`, Python literals in a CSV) and its judge's cost
 * under `<name> feedback cost in <currency>`; a feedback with several results writes
 * `<name>:::<key>` columns instead of one score.
 *
 * The feedback TruLens already computed is kept, never dropped: every score, calls and cost column
 * stays in metadata under its own name (scores as numbers, calls as objects), with a note in the
 * account; `record_json` stays there too, parsed. The retrieved context is what TruLens's
 * context feedback judged: the `args.context` of each call of the first feedback whose calls all
 * carry one (one chunk a call, in call order), else the `args.source` of a groundedness call (a
 * text or a list).
 */
import { readField } from '../fields';
import type { Adapter, Draft, Names } from '../readers';
import type { RetrievedChunk } from '../schema';
import { id, isObject, nonNegative, structured, type Row, type RowReader } from '../values';

const CALLS = '_calls';
const COST = / feedback cost in [A-Za-z]+$/;
/** TruLens's `MULTI_CALL_NAME_DELIMITER` (trulens.core.database.base). */
const MULTI = ':::';

/** The feedback functions of a row: the names of its `<name>_calls` columns. */
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

/** Seconds between two TruLens times (`2024-09-25T13:28:17.693140`, microseconds kept). */
function secondsBetween(start: unknown, end: unknown): number | undefined {
	if (typeof start !== 'string' || typeof end !== 'string') return undefined;
	const at = (t: string): number | undefined => {
		const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?$/.exec(t);
		if (!m) return undefined;
		const whole = Date.parse(m[1] + 'Z');
		return Number.isNaN(whole) ? undefined : whole / 1000 + Number(m[2] ?? 0);
	};
	const a = at(start);
	const b = at(end);
	if (a === undefined || b === undefined || b < a) return undefined;
	return Math.round((b - a) * 1e6) / 1e6;
}

/** Input and output token counts of a TruLens `Cost` (`n_prompt_tokens`, `n_completion_tokens`). */
function tokensFrom(r: RowReader, key: string, d: Draft, alsoTotal: boolean): void {
	const cost = structured(r, r.peek(key), key);
	if (!isObject(cost)) return;
	const count = (v: unknown): number | undefined =>
		typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
	const fed: string[] = [];
	const input = count(cost.n_prompt_tokens);
	const output = count(cost.n_completion_tokens);
	const total = alsoTotal ? count(cost.n_tokens) : undefined;
	if (input !== undefined) {
		d.total_input_token_count = input;
		fed.push('total_input_token_count');
	}
	if (output !== undefined) {
		d.total_output_token_count = output;
		fed.push('total_output_token_count');
	}
	if (total !== undefined) {
		d.total_token_count = total;
		fed.push('total_token_count');
	}
	if (fed.length === 0) return;
	r.take(key, fed[0]);
	r.feeds(key, ...fed);
	r.release(key, 'also kept whole: the app call cost as TruLens counted it');
}

/**
 * One TruLens `Record` as JSON (the `record_json` of the table, or a record dumped on its own):
 * `main_input`, `main_output`, `record_id`, `perf` (start and end times), `cost`, and the app's
 * instrumented `calls`, which stay in metadata (they are TruLens's call stacks, not a trace format
 * we read).
 */
function readRecord(r: RowReader, d: Draft): Names {
	readField(r, 'request', r.take('main_input', 'request'), 'main_input', d);
	readField(r, 'response', r.take('main_output', 'response'), 'main_output', d);
	const recordId = id(r, r.take('record_id', 'request_id'), 'record_id');
	if (recordId !== undefined) d.request_id = recordId;
	const perf = structured(r, r.peek('perf'), 'perf');
	const seconds = isObject(perf) ? secondsBetween(perf.start_time, perf.end_time) : undefined;
	if (seconds !== undefined) {
		r.take('perf', 'latency_seconds');
		d.latency_seconds = seconds;
		r.release('perf', 'also kept whole: the start and end times the latency is taken from');
	}
	tokensFrom(r, 'cost', d, true);
	if (r.has('calls')) {
		r.note(
			'calls',
			"the app's instrumented calls as TruLens recorded them, kept in metadata.calls",
		);
	}
	return { request: 'main_input', response: 'main_output', expectedResponse: 'main_output' };
}

function read(r: RowReader, d: Draft): Names {
	if (!r.has('input') && !r.has('output') && (r.has('main_input') || r.has('main_output'))) {
		return readRecord(r, d);
	}
	readField(r, 'request', r.take('input', 'request'), 'input', d);
	readField(r, 'response', r.take('output', 'response'), 'output', d);
	const recordId = id(r, r.take('record_id', 'request_id'), 'record_id');
	if (recordId !== undefined) d.request_id = recordId;
	// pandas writes a missing number as an empty cell (CSV) or null (JSON): absent, not an error.
	const latency = r.peek('latency') ?? undefined;
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
	const tokens = r.peek('total_tokens') ?? undefined;
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
	tokensFrom(r, 'cost_json', d, false);
	// The record as TruLens stored it (pandas writes it as a Python literal in a CSV): kept, parsed.
	const record = structured(r, r.peek('record_json'), 'record_json');
	if (isObject(record)) {
		if (record !== r.peek('record_json')) r.expand('record_json', record);
		r.note(
			'record_json',
			'the app call as TruLens recorded it (calls, cost, perf), kept in metadata.record_json',
		);
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
	const names = new Set(calls.keys());
	for (const k of Object.keys(r.row)) {
		// A feedback with several results writes one column each: `<name>:::<key>`.
		const multi = k.indexOf(MULTI);
		if (multi > 0 && names.has(k.slice(0, multi))) {
			numberCell(r, k);
			r.note(
				k,
				`a result of TruLens feedback "${k.slice(0, multi)}" as TruLens computed it, kept in metadata["${k}"]`,
			);
		}
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
		main_input: ['request'],
		main_output: ['response'],
	},
	read,
};
