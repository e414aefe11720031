/**
 * LangSmith runs: one run (`{id, name, run_type, inputs, outputs, start_time, end_time, extra,
 * child_runs, trace_id, parent_run_id}`), a run tree (`child_runs` nested), a list of runs (as
 * `list_runs` exports them, linked by `parent_run_id`), or the SDK's run payloads `{post: [...],
 * patch: [...]}` (each patch completes the posted run of the same `id`, or of the same
 * `dotted_order` when it carries no id). `run_type` says what a run is: `llm`, `retriever`,
 * `tool`, anything else a step. Times are ISO text or epoch milliseconds.
 */
import { isObject, typeName, type Row } from '../values';
import { fromSpans } from './figures';
import { usageOf, type Kind, type Span } from './normalise';
import { nanos, str } from './read';
import { TraceError, type ParsedTrace } from './types';

const KINDS: Record<string, Kind> = { llm: 'llm', retriever: 'retriever', tool: 'tool' };

/** Whether `v` looks like a LangSmith run. */
export function isLangSmithRun(v: unknown): boolean {
	return (
		isObject(v) &&
		typeof (v as Row).run_type === 'string' &&
		('inputs' in (v as Row) || 'outputs' in (v as Row) || 'child_runs' in (v as Row))
	);
}

/** Whether `t` is the SDK's run payloads (`post` runs, `patch` updates). */
export function isLangSmithPayloads(t: Row): boolean {
	return Array.isArray(t.post) && t.post.some(isLangSmithRun);
}

/** A LangSmith time: ISO text, or epoch milliseconds as the JS SDK sends them. */
function time(v: unknown): number | undefined {
	if (typeof v === 'number' && Number.isFinite(v)) return v * 1e6;
	return nanos(v);
}

/** Token usage: the run's own counts, `usage_metadata` on its outputs, or `llm_output`. */
function usage(run: Row): Span['usage'] {
	const own = usageOf({
		input: run.prompt_tokens,
		output: run.completion_tokens,
		total: run.total_tokens,
	});
	if (own) return own;
	const out = isObject(run.outputs) ? run.outputs : undefined;
	if (!out) return undefined;
	const llmOutput = isObject(out.llm_output) ? out.llm_output : undefined;
	return (
		usageOf(out.usage_metadata) ??
		usageOf(out.usage) ??
		usageOf(llmOutput?.token_usage) ??
		usageOf(llmOutput?.usage)
	);
}

function modelOf(run: Row): string | undefined {
	const extra = isObject(run.extra) ? run.extra : {};
	const meta = isObject(extra.metadata) ? extra.metadata : {};
	const params = isObject(extra.invocation_params) ? extra.invocation_params : {};
	const out = isObject(run.outputs) ? run.outputs : {};
	return (
		str(out.model) ??
		str(params.model) ??
		str(params.model_name) ??
		str(meta.ls_model_name) ??
		undefined
	);
}

function span(run: Row, i: number, parent: string | undefined): Span {
	const type = typeof run.run_type === 'string' ? run.run_type.toLowerCase() : '';
	const s: Span = {
		id: typeof run.id === 'string' && run.id !== '' ? run.id : `run ${i + 1}`,
		name: typeof run.name === 'string' ? run.name : `run ${i + 1}`,
		start: time(run.start_time),
		end: time(run.end_time),
		kind: KINDS[type] ?? 'other',
		inputs: run.inputs,
		outputs: run.outputs,
		attrs: {},
		order: i,
	};
	const p =
		typeof run.parent_run_id === 'string' && run.parent_run_id !== '' ? run.parent_run_id : parent;
	if (p !== undefined) s.parent = p;
	if (typeof run.trace_id === 'string') s.trace = run.trace_id;
	if (s.kind === 'llm') {
		const u = usage(run);
		if (u) s.usage = u;
	}
	const model = modelOf(run);
	if (model !== undefined) s.model = model;
	if (typeof run.error === 'string' && run.error !== '') s.error = run.error;
	return s;
}

/** The SDK's payloads as whole runs: each patch merged into the run it completes. */
function mergePayloads(t: Row): unknown[] {
	const runs = (t.post as unknown[]).map((r) => (isObject(r) ? { ...r } : r));
	const patches = Array.isArray(t.patch) ? t.patch : [];
	for (const p of patches) {
		if (!isObject(p)) continue;
		const target = runs.find(
			(r) =>
				isObject(r) &&
				((typeof p.id === 'string' && r.id === p.id) ||
					(p.id === undefined &&
						typeof p.dotted_order === 'string' &&
						r.dotted_order === p.dotted_order)),
		);
		if (isObject(target)) Object.assign(target, p);
		else runs.push(p);
	}
	return runs;
}

/** Runs (a tree, a list, or the SDK's payloads) as spans; walked without recursion. */
export function parseLangSmith(t: unknown): ParsedTrace {
	const top = isObject(t) && isLangSmithPayloads(t) ? mergePayloads(t) : Array.isArray(t) ? t : [t];
	const spans: Span[] = [];
	const stack: [unknown, string | undefined, string][] = [];
	for (let i = top.length - 1; i >= 0; i--) stack.push([top[i], undefined, `runs[${i}]`]);
	while (stack.length > 0) {
		const [run, parent, path] = stack.pop() as [unknown, string | undefined, string];
		if (!isObject(run))
			throw new TraceError(`${path}: expected a run object, got ${typeName(run)}`);
		const s = span(run, spans.length, parent);
		spans.push(s);
		const kids = Array.isArray(run.child_runs) ? run.child_runs : [];
		for (let k = kids.length - 1; k >= 0; k--)
			stack.push([kids[k], s.id, `${path}.child_runs[${k}]`]);
	}
	return fromSpans('langsmith', spans, undefined);
}
