/**
 * One n8n execution (as the public API returns it with `includeData=true`) -> one canonical eval
 * row, or the reason it cannot be one. The figures (tokens, latency, models, tool calls, retrieved
 * context) come from `parseTrace` (src/record/trace/n8n.ts); the request and response come from
 * "the app": the node chosen by name, else the last AI Agent / chain / LLM node that ran, else the
 * last node that ran.
 */
import { parseTrace, TraceError, type ParsedTrace } from '../record/trace';
import { aiParents } from '../record/trace/n8n';
import { isObject, type Row } from '../record/values';
import type { ApiExecution } from './client';

/** Why an execution could not become a row. */
export type InvalidReason =
	| 'no_saved_data'
	| 'too_large'
	| 'pruned'
	| 'app_node_not_found'
	| 'unreadable_trace';

/** How much of the execution a row keeps as its `trace`. */
export type TraceDetail = 'slim' | 'full' | 'none';

export interface ConvertOptions {
	/** Name of the node whose input and output are the app's request and response ('' = auto). */
	appNode?: string;
	/** The instance's root URL, for `metadata.execution_url`. */
	instance: string;
	/** The monitored workflow, used when the execution does not say. */
	workflowId: string;
	/** What the row keeps as `trace` (default slim: the LLM calls only). */
	traceDetail?: TraceDetail;
}

export interface InvalidExecution {
	request_id: string;
	execution_id: string;
	reason: InvalidReason;
	/** `execution <id>: <what is wrong>`, for the Invalid output. */
	error: string;
	/** What to change so the next executions convert. */
	hint?: string;
	metadata: Record<string, unknown>;
}

export type Converted =
	| { ok: true; row: Record<string, unknown> }
	| { ok: false; invalid: InvalidExecution };

/** Node types that are "the app" of an AI workflow, most specific first. */
const APP_TYPES = [
	/\.agent$/i,
	/\.agentTool$/i,
	/\.chainLlm$/i,
	/\.chainRetrievalQa$/i,
	/\.chainSummarization/i,
	/\.(openAi|anthropic|googleGemini|ollama|mistralAi|groq|perplexity)$/i,
	/\.(textClassifier|informationExtractor|sentimentAnalysis)$/i,
];

export const SAVE_HINT =
	"Let n8n save the monitored workflow's executions: in its Settings set 'Save successful production executions' (and 'Save failed production executions') to 'Save', or on the instance EXECUTIONS_DATA_SAVE_ON_SUCCESS=all (and EXECUTIONS_DATA_SAVE_ON_ERROR=all).";

const TOO_LARGE_HINT =
	'n8n leaves out the data of executions larger than EXECUTIONS_DATA_MAX_DISPLAY_SIZE when the API reads them; raise it on the instance, or make the workflow keep less data.';

const PRUNED_HINT =
	'n8n deletes executions older than EXECUTIONS_DATA_MAX_AGE (and over EXECUTIONS_DATA_PRUNE_MAX_COUNT); run this node more often than they are pruned.';

function str(v: unknown): string | undefined {
	return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** The common metadata of an execution, valid or not. */
export function executionMetadata(e: ApiExecution, o: ConvertOptions): Record<string, unknown> {
	const id = String(e.id);
	const wid = str(e.workflowId) ?? o.workflowId;
	return {
		source: 'n8n-execution',
		execution_id: id,
		workflow_id: wid,
		status: e.status ?? (e.finished === true ? 'success' : 'unknown'),
		mode: e.mode,
		started_at: e.startedAt ?? null,
		stopped_at: e.stoppedAt ?? null,
		execution_url: `${o.instance}/workflow/${encodeURIComponent(wid)}/executions/${encodeURIComponent(id)}`,
	};
}

/** The Invalid item for an execution that could not be converted. */
export function invalidExecution(
	e: ApiExecution,
	o: ConvertOptions,
	reason: InvalidReason,
	what: string,
	hint?: string,
): InvalidExecution {
	const id = String(e.id);
	return {
		request_id: `n8n-exec-${id}`,
		execution_id: id,
		reason,
		error: `execution ${id}: ${what}`,
		...(hint ? { hint } : {}),
		metadata: executionMetadata(e, o),
	};
}

interface NodeRun {
	name: string;
	run: Row;
	/** Order the node ran in (its start, then n8n's execution index). */
	at: number;
	index: number;
}

/** The main output's first json of a run, if any. */
function mainJson(run: Row, output = 0): Row | undefined {
	const data = isObject(run.data) ? run.data : undefined;
	const main = data && Array.isArray(data.main) ? data.main : undefined;
	if (!main) return undefined;
	const order = [output, ...main.map((_, i) => i).filter((i) => i !== output)];
	for (const i of order) {
		const branch: unknown = main[i];
		if (!Array.isArray(branch)) continue;
		for (const item of branch) if (isObject(item) && isObject(item.json)) return item.json;
	}
	return undefined;
}

/** The first text-like field of an object (looking one level into `body`, as webhooks nest it). */
function fieldText(v: Row, keys: readonly string[], depth = 0): string | undefined {
	for (const k of keys) {
		const inner = v[k];
		if (typeof inner === 'string' && inner !== '') return inner;
		if (isObject(inner) && typeof inner.text === 'string') return inner.text;
		if (isObject(inner) && typeof inner.content === 'string') return inner.content;
	}
	// An OpenAI-style answer from an HTTP call: choices[0].message.content.
	const choices = v.choices;
	if (Array.isArray(choices) && isObject(choices[0])) {
		const c = choices[0];
		if (isObject(c.message) && typeof c.message.content === 'string') return c.message.content;
		if (typeof c.text === 'string') return c.text;
	}
	if (depth === 0 && isObject(v.body)) return fieldText(v.body, keys, 1);
	return undefined;
}

/** Text of a value: strings as they are, else the first text-like field, else JSON. */
function textOf(v: unknown, keys: readonly string[]): string | undefined {
	if (v === undefined || v === null) return undefined;
	if (typeof v === 'string') return v;
	if (typeof v === 'number' || typeof v === 'boolean') return String(v);
	if (isObject(v)) {
		const found = fieldText(v, keys);
		if (found !== undefined) return found;
	}
	try {
		return JSON.stringify(v);
	} catch {
		return undefined;
	}
}

/**
 * The app node's prompt when its parameter is a plain `{{ $json.a.b }}` expression (an agent or
 * chain with "Define below"): that path of the json it received.
 */
function promptFromParameters(
	e: ApiExecution,
	node: string,
	given: Row | undefined,
): string | undefined {
	if (!given) return undefined;
	const wf = isObject(e.workflowData) ? e.workflowData : undefined;
	const def =
		wf && Array.isArray(wf.nodes)
			? wf.nodes.find((n) => isObject(n) && n.name === node)
			: undefined;
	const params = isObject(def) && isObject(def.parameters) ? def.parameters : undefined;
	if (!params) return undefined;
	for (const k of ['text', 'prompt', 'input', 'query']) {
		const p = params[k];
		if (typeof p !== 'string') continue;
		const m =
			/^=\s*\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*|\[\s*(?:'[^']*'|"[^"]*")\s*\])+)\s*\}\}\s*$/.exec(
				p,
			);
		if (!m) continue;
		let cur: unknown = given;
		for (const part of m[1].matchAll(/\.([A-Za-z_$][\w$]*)|\[\s*(?:'([^']*)'|"([^"]*)")\s*\]/g)) {
			const key = part[1] ?? part[2] ?? part[3];
			cur = isObject(cur) ? cur[key] : undefined;
		}
		if (typeof cur === 'string' && cur !== '') return cur;
	}
	return undefined;
}

const REQUEST_KEYS = [
	'chatInput',
	'input',
	'query',
	'question',
	'prompt',
	'text',
	'message',
	'body',
];
const RESPONSE_KEYS = [
	'output',
	'text',
	'response',
	'answer',
	'content',
	'message',
	'result',
	'data',
];

/** Runs of main-line nodes (not AI sub-nodes), in the order they ran. */
function mainRuns(runData: Row, subNodes: ReadonlySet<string>): NodeRun[] {
	const out: NodeRun[] = [];
	let index = 0;
	for (const [name, runs] of Object.entries(runData)) {
		if (!Array.isArray(runs)) continue;
		for (const run of runs) {
			index++;
			if (!isObject(run)) continue;
			const data = isObject(run.data) ? run.data : undefined;
			// AI sub-nodes (models, tools, retrievers, memory) report under ai_* connections.
			if (subNodes.has(name) || (data && Object.keys(data).some((k) => k.startsWith('ai_'))))
				continue;
			const start = typeof run.startTime === 'number' ? run.startTime : 0;
			const took = typeof run.executionTime === 'number' ? run.executionTime : 0;
			const ei = typeof run.executionIndex === 'number' ? run.executionIndex : index;
			out.push({ name, run, at: start + took, index: ei });
		}
	}
	return out.sort((a, b) => a.at - b.at || a.index - b.index);
}

/** The workflow's node types by name, when the execution carries its workflow. */
function nodeTypes(e: ApiExecution): Map<string, string> {
	const out = new Map<string, string>();
	const wf = isObject(e.workflowData) ? e.workflowData : undefined;
	if (wf && Array.isArray(wf.nodes))
		for (const n of wf.nodes)
			if (isObject(n) && typeof n.name === 'string' && typeof n.type === 'string')
				out.set(n.name, n.type);
	return out;
}

/**
 * The app node's last run: by name when given; else the last AI Agent / chain / LLM node that ran
 * (by type, else a node that AI sub-nodes feed), else the last node that ran.
 */
export function findAppRun(
	e: ApiExecution,
	runData: Row,
	appNode: string | undefined,
): { found: NodeRun } | { missing: string } {
	const wf = isObject(e.workflowData) ? e.workflowData : undefined;
	const parents = aiParents(wf?.connections);
	const subs = new Set(parents.keys());
	const runs = mainRuns(runData, subs);
	if (appNode && appNode.trim() !== '') {
		const name = appNode.trim();
		const mine = runs.filter((r) => r.name === name);
		if (mine.length > 0) return { found: mine[mine.length - 1] };
		const ran = [...new Set(runs.map((r) => r.name))];
		return {
			missing: `the app node "${name}" did not run in this execution (nodes that ran: ${ran.join(', ') || 'none'})`,
		};
	}
	if (runs.length === 0) return { missing: 'no node ran in this execution' };
	const types = nodeTypes(e);
	const fed = new Set(parents.values());
	// Nodes that sub-nodes reported to through `source` (executions without workflowData).
	for (const [, runsRaw] of Object.entries(runData)) {
		if (!Array.isArray(runsRaw)) continue;
		for (const run of runsRaw) {
			if (!isObject(run) || !isObject(run.data)) continue;
			if (!Object.keys(run.data).some((k) => k.startsWith('ai_'))) continue;
			const src = Array.isArray(run.source) ? run.source[0] : undefined;
			if (isObject(src) && typeof src.previousNode === 'string') fed.add(src.previousNode);
		}
	}
	for (const re of APP_TYPES) {
		const hits = runs.filter((r) => re.test(types.get(r.name) ?? ''));
		if (hits.length > 0) return { found: hits[hits.length - 1] };
	}
	const ai = runs.filter((r) => fed.has(r.name));
	if (ai.length > 0) return { found: ai[ai.length - 1] };
	return { found: runs[runs.length - 1] };
}

/** The json the app node received: its source node's output (the branch it came from). */
function inputJson(runData: Row, app: NodeRun): Row | undefined {
	const src = Array.isArray(app.run.source) ? app.run.source[0] : undefined;
	if (!isObject(src) || typeof src.previousNode !== 'string') return undefined;
	const prev = runData[src.previousNode];
	if (!Array.isArray(prev) || prev.length === 0) return undefined;
	const runIndex = typeof src.previousNodeRun === 'number' ? src.previousNodeRun : prev.length - 1;
	const run: unknown = prev[Math.min(runIndex, prev.length - 1)];
	if (!isObject(run)) return undefined;
	return mainJson(run, typeof src.previousNodeOutput === 'number' ? src.previousNodeOutput : 0);
}

/**
 * The LLM calls only, as n8n execution data: what Cost & Latency needs to count tokens and
 * price them by model, at a few hundred bytes a call instead of the whole execution.
 */
function slimTrace(e: ApiExecution, runData: Row): Row {
	const kept: Row = {};
	for (const [name, runs] of Object.entries(runData)) {
		if (!Array.isArray(runs)) continue;
		const calls: Row[] = [];
		for (const run of runs) {
			if (!isObject(run) || !isObject(run.data) || run.data.ai_languageModel === undefined)
				continue;
			const usage: Row[] = [];
			const lm: unknown = run.data.ai_languageModel;
			if (Array.isArray(lm))
				for (const branch of lm)
					if (Array.isArray(branch))
						for (const item of branch)
							if (isObject(item) && isObject(item.json)) {
								const j: Row = {};
								if (item.json.tokenUsage !== undefined) j.tokenUsage = item.json.tokenUsage;
								if (item.json.tokenUsageEstimate !== undefined)
									j.tokenUsageEstimate = item.json.tokenUsageEstimate;
								usage.push({ json: j });
							}
			const inp = isObject(run.inputOverride) ? run.inputOverride.ai_languageModel : undefined;
			let model: unknown;
			if (
				Array.isArray(inp) &&
				Array.isArray(inp[0]) &&
				isObject(inp[0][0]) &&
				isObject(inp[0][0].json)
			) {
				const opts = inp[0][0].json.options;
				if (isObject(opts))
					for (const k of [
						'model',
						'model_name',
						'modelName',
						'deployment_name',
						'azureOpenAIApiDeploymentName',
					])
						if (typeof opts[k] === 'string') {
							model = { [k]: opts[k] };
							break;
						}
			}
			calls.push({
				startTime: run.startTime,
				executionTime: run.executionTime,
				...(model ? { inputOverride: { ai_languageModel: [[{ json: { options: model } }]] } } : {}),
				data: { ai_languageModel: [usage] },
			});
		}
		if (calls.length > 0) kept[name] = calls;
	}
	return {
		startedAt: e.startedAt,
		stoppedAt: e.stoppedAt,
		resultData: { runData: kept },
	};
}

/** The error an execution ended with, if any (`resultData.error` or the app node's). */
function executionError(resultData: Row, app: NodeRun | undefined): string | undefined {
	const err = isObject(resultData.error)
		? resultData.error
		: app && isObject(app.run.error)
			? app.run.error
			: undefined;
	if (!err) return undefined;
	const msg = typeof err.message === 'string' ? err.message : undefined;
	const node = isObject(err.node) && typeof err.node.name === 'string' ? err.node.name : undefined;
	return msg ? (node ? `${node}: ${msg}` : msg) : undefined;
}

/** Converts one execution into a canonical row, or says why it cannot. */
export function convertExecution(e: ApiExecution, o: ConvertOptions): Converted {
	const id = String(e.id);
	const fail = (reason: InvalidReason, what: string, hint?: string): Converted => ({
		ok: false,
		invalid: invalidExecution(e, o, reason, what, hint),
	});
	if (e.dataTooLargeToDisplay === true)
		return fail(
			'too_large',
			'n8n did not return its data: it is over the size limit for reading',
			TOO_LARGE_HINT,
		);
	const data = isObject(e.data) ? e.data : undefined;
	const resultData = data && isObject(data.resultData) ? data.resultData : undefined;
	const runData = resultData && isObject(resultData.runData) ? resultData.runData : undefined;
	if (!data || !resultData || !runData || Object.keys(runData).length === 0)
		return fail('no_saved_data', 'n8n kept no execution data for it', SAVE_HINT);

	const app = findAppRun(e, runData, o.appNode);
	if ('missing' in app)
		return fail(
			'app_node_not_found',
			app.missing,
			o.appNode
				? 'Set App Node to the name of the node that answers (as it appears in the monitored workflow), or leave it empty to pick the AI node.'
				: undefined,
		);
	let parsed: ParsedTrace;
	try {
		parsed = parseTrace(e);
	} catch (err) {
		if (err instanceof TraceError)
			return fail('unreadable_trace', `its run data cannot be read: ${err.message}`);
		throw err;
	}

	const out = mainJson(app.found.run);
	const given = inputJson(runData, app.found);
	let request: string | undefined;
	let requestRaw: unknown;
	const defined = promptFromParameters(e, app.found.name, given);
	if (defined !== undefined) request = defined;
	else if (given && typeof given.chatInput === 'string') request = given.chatInput;
	else if (typeof parsed.request === 'string') request = parsed.request;
	else if (given) {
		request = textOf(given, REQUEST_KEYS);
		requestRaw = given;
	}
	let response: string | undefined;
	let responseRaw: unknown;
	if (out) {
		response = textOf(out, RESPONSE_KEYS);
		if (typeof out.output !== 'string' && typeof out.text !== 'string') responseRaw = out;
	}

	const metadata: Record<string, unknown> = {
		...executionMetadata(e, o),
		app_node: app.found.name,
	};
	const models = [...new Set(parsed.llm_calls.map((c) => c.model).filter((m): m is string => !!m))];
	if (models.length > 0) metadata.model = models[0];
	if (models.length > 1) metadata.models = models;
	if (parsed.llm_calls.length > 0) metadata.llm_calls = parsed.llm_calls.length;
	const error = executionError(resultData, app.found);
	if (error) metadata.error = error;
	if (parsed.notes.length > 0) metadata.trace_notes = parsed.notes;

	const row: Record<string, unknown> = { request_id: `n8n-exec-${id}` };
	if (request !== undefined) row.request = request;
	if (requestRaw !== undefined) row.request_raw = requestRaw;
	if (response !== undefined) row.response = response;
	if (responseRaw !== undefined) row.response_raw = responseRaw;
	if (parsed.retrieved_context && parsed.retrieved_context.length > 0)
		row.retrieved_context = parsed.retrieved_context;
	if (parsed.tool_calls && parsed.tool_calls.length > 0) row.tool_calls = parsed.tool_calls;
	if (parsed.tool_definitions && parsed.tool_definitions.length > 0)
		row.tool_definitions = parsed.tool_definitions;
	for (const k of [
		'total_token_count',
		'total_input_token_count',
		'total_output_token_count',
		'latency_seconds',
	] as const)
		if (parsed[k] !== undefined) row[k] = parsed[k];
	const detail = o.traceDetail ?? 'slim';
	if (detail === 'full') row.trace = { ...e };
	else if (detail === 'slim') row.trace = slimTrace(e, runData);
	row.metadata = metadata;
	return { ok: true, row };
}

export { PRUNED_HINT };
