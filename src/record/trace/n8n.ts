/**
 * n8n execution data of AI Agent / LLM chain runs (`resultData.runData`): Chat Model runs with
 * their `tokenUsage` or `tokenUsageEstimate`, retriever and vector store runs with their
 * documents, and the agent's or chain's answer as the response.
 */
import type { ToolDefinition } from '../schema';
import { errorText, fromAiSchema, n8nToolName, readCall } from '../toolcalls';
import { isObject, typeName, type Row } from '../values';
import { checkSkew, fromSpans, later } from './figures';
import { usageOf, type Span } from './normalise';
import { decoded, finite, present } from './read';
import { TraceError, type ParsedTrace } from './types';

/** Milliseconds since the epoch from an ISO date text or a number. */
function epochMs(v: unknown): number | undefined {
	if (typeof v === 'number' && Number.isFinite(v)) return v;
	if (typeof v !== 'string' || v.trim() === '') return undefined;
	const n = Number(v);
	if (Number.isFinite(n)) return n;
	const t = Date.parse(v);
	return Number.isFinite(t) ? t : undefined;
}

const N8N_RETRIEVER_CONNECTIONS = ['ai_retriever', 'ai_vectorStore'];

/** First json of a connection's items: `data[conn][0][0].json`. */
function firstJson(conn: unknown): Row | undefined {
	if (!Array.isArray(conn)) return undefined;
	for (const branch of conn) {
		if (!Array.isArray(branch)) continue;
		for (const item of branch) if (isObject(item) && isObject(item.json)) return item.json;
	}
	return undefined;
}

/** Every json of a connection's items, across branches. */
function allJson(conn: unknown): Row[] {
	const out: Row[] = [];
	if (!Array.isArray(conn)) return out;
	for (const branch of conn) {
		if (!Array.isArray(branch)) continue;
		for (const item of branch) if (isObject(item) && isObject(item.json)) out.push(item.json);
	}
	return out;
}

function n8nModel(options: unknown): string | undefined {
	if (!isObject(options)) return undefined;
	for (const k of [
		'model',
		'model_name',
		'modelName',
		'deployment_name',
		'azureOpenAIApiDeploymentName',
	]) {
		if (typeof options[k] === 'string' && options[k] !== '') return options[k] as string;
	}
	return undefined;
}

/**
 * Who feeds whom through the workflow's AI connections (`workflowData.connections`): a sub-node
 * (Chat Model, tool, retriever, vector store, memory) -> the node it feeds. Executions from the n8n
 * API carry the workflow; sub-node runs often have no `source`, so this is the only link.
 */
export function aiParents(connections: unknown): Map<string, string> {
	const out = new Map<string, string>();
	if (!isObject(connections)) return out;
	for (const [node, byType] of Object.entries(connections)) {
		if (!isObject(byType)) continue;
		for (const [type, outputs] of Object.entries(byType)) {
			if (!type.startsWith('ai_') || !Array.isArray(outputs)) continue;
			for (const branch of outputs) {
				if (!Array.isArray(branch)) continue;
				for (const c of branch) {
					if (isObject(c) && typeof c.node === 'string' && !out.has(node)) out.set(node, c.node);
				}
			}
		}
	}
	return out;
}

/** Nodes connected to another node through an `ai_tool` connection: the agent's tools. */
export function aiToolNodes(connections: unknown): Set<string> {
	const out = new Set<string>();
	if (!isObject(connections)) return out;
	for (const [node, byType] of Object.entries(connections)) {
		if (isObject(byType) && Array.isArray(byType.ai_tool) && byType.ai_tool.length > 0)
			out.add(node);
	}
	return out;
}

/**
 * The name the agent calls a tool node by: the node's `name` parameter for the tool nodes that
 * have one (Code, Workflow and Vector Store tools of older versions), else n8n's tool name of
 * the node name (`nodeNameToToolName`).
 */
export function n8nToolNameOf(node: string, nodes: Map<string, Row>): string {
	const p = nodes.get(node)?.parameters;
	if (isObject(p) && typeof p.name === 'string' && /^[a-zA-Z0-9_-]+$/.test(p.name)) return p.name;
	return n8nToolName(node);
}

/** The workflow's nodes by name (`workflowData.nodes`), when the execution carries its workflow. */
export function nodesByName(nodes: unknown): Map<string, Row> {
	const out = new Map<string, Row>();
	if (!Array.isArray(nodes)) return out;
	for (const n of nodes) if (isObject(n) && typeof n.name === 'string') out.set(n.name, n);
	return out;
}

/**
 * Definitions of the tools connected to an agent: name as the agent sees it, the description the
 * node gives the model (`toolDescription`, `description`) and the `$fromAI` parameters as a JSON
 * schema. Disabled nodes are left out.
 */
export function n8nToolDefinitions(
	toolNodes: Set<string>,
	nodes: Map<string, Row>,
): ToolDefinition[] {
	const out: ToolDefinition[] = [];
	for (const name of toolNodes) {
		const n = nodes.get(name);
		if (!n || n.disabled === true) continue;
		const def: ToolDefinition = { name: n8nToolNameOf(name, nodes), node: name };
		const p = isObject(n.parameters) ? n.parameters : {};
		const d = p.toolDescription ?? p.description;
		if (typeof d === 'string' && d !== '') def.description = d;
		const schema = fromAiSchema(p);
		if (schema) def.parameters = schema;
		if (typeof n.type === 'string') def.type = n.type;
		out.push(def);
	}
	return out;
}

/**
 * n8n execution data (`resultData.runData`: node name -> runs). A Chat Model sub-node's run holds
 * `data.ai_languageModel` items `{response, tokenUsage | tokenUsageEstimate}` (n8n's
 * N8nLlmTracing) and `inputOverride.ai_languageModel` `{messages, options: {model}}`; retrievers
 * and vector stores hold `{response: Document[]}` under `ai_retriever` / `ai_vectorStore`. The
 * nodes those runs report to (`source[0].previousNode`) are the AI Agent / chain nodes, whose main
 * output carries the answer (`output` for agents, `text` for chains).
 */
export function parseN8n(
	exec: Row,
	runData: Row,
	connections?: unknown,
	workflowNodes?: unknown,
): ParsedTrace {
	const linked = aiParents(connections);
	const toolNodes = aiToolNodes(connections);
	const nodes = nodesByName(workflowNodes);
	const spans: Span[] = [];
	const aiRoots = new Set<string>();
	let request: unknown;
	let requestAt = Infinity;
	let first = Infinity;
	let last = -Infinity;
	let order = 0;
	for (const [node, runsRaw] of Object.entries(runData)) {
		if (!Array.isArray(runsRaw))
			throw new TraceError(`runData["${node}"]: expected array of runs, got ${typeName(runsRaw)}`);
		for (let r = 0; r < runsRaw.length; r++) {
			const run: unknown = runsRaw[r];
			if (!isObject(run))
				throw new TraceError(`runData["${node}"][${r}]: expected object, got ${typeName(run)}`);
			const startMs = finite(run.startTime);
			const took = finite(run.executionTime);
			if (took !== undefined && took < 0)
				throw new TraceError(
					`runData["${node}"][${r}]: executionTime is negative (${took} ms); clock skew?`,
				);
			if (startMs !== undefined) {
				first = Math.min(first, startMs);
				last = Math.max(last, startMs + (took ?? 0));
			}
			const data = isObject(run.data) ? run.data : {};
			const input = isObject(run.inputOverride) ? run.inputOverride : {};
			const source = Array.isArray(run.source) ? run.source[0] : undefined;
			const parentNode =
				isObject(source) && typeof source.previousNode === 'string'
					? source.previousNode
					: linked.get(node);
			const base = {
				name: node,
				start: startMs !== undefined ? startMs * 1e6 : undefined,
				end: startMs !== undefined ? (startMs + (took ?? 0)) * 1e6 : undefined,
				attrs: {},
			};
			if (data.ai_languageModel !== undefined) {
				const inJson = firstJson(input.ai_languageModel);
				const model = n8nModel(inJson?.options);
				if (parentNode) aiRoots.add(parentNode);
				for (const j of allJson(data.ai_languageModel)) {
					const real = usageOf(j.tokenUsage);
					const est = real ? undefined : usageOf(j.tokenUsageEstimate);
					const usage = real ?? (est ? { ...est, estimated: true } : undefined);
					spans.push({
						...base,
						id: `${node}#${r}#${order}`,
						kind: 'llm',
						usage,
						model,
						order: order++,
					});
				}
				continue;
			}
			const retr = N8N_RETRIEVER_CONNECTIONS.find((c) => data[c] !== undefined);
			if (retr) {
				if (parentNode) aiRoots.add(parentNode);
				const docs: unknown[] = [];
				for (const j of allJson(data[retr])) {
					const d = decoded(j.response ?? j.documents);
					if (Array.isArray(d)) docs.push(...d);
				}
				spans.push({
					...base,
					id: `${node}#${r}`,
					kind: 'retriever',
					outputs: docs,
					order: order++,
				});
				continue;
			}
			// A tool the agent called: its input (the agent's arguments) and its response; a run
			// that failed has no response but an error, and is a call all the same (known as a tool
			// by the workflow's ai_tool connections or, in bare run data, by its ai_tool input).
			if (
				data.ai_tool !== undefined ||
				(run.error !== undefined && (toolNodes.has(node) || input.ai_tool !== undefined))
			) {
				if (parentNode) aiRoots.add(parentNode);
				const args = firstJson(input.ai_tool);
				const out = firstJson(data.ai_tool);
				const span: Span = {
					...base,
					id: `${node}#${r}`,
					kind: 'tool',
					inputs: args ? (args.query ?? args.input ?? args) : undefined,
					outputs: out ? (out.response ?? out) : undefined,
					attrs: { 'gen_ai.tool.name': n8nToolNameOf(node, nodes) },
					order: order++,
				};
				const err =
					errorText(run.error) ??
					(run.executionStatus === 'error' ? 'the tool run failed' : undefined);
				if (err !== undefined) span.error = err;
				spans.push(span);
				continue;
			}
			const main = firstJson(data.main);
			if (main && typeof main.chatInput === 'string' && (startMs ?? 0) < requestAt) {
				request = main.chatInput;
				requestAt = startMs ?? 0;
			}
			spans.push({ ...base, id: `${node}#${r}`, kind: 'other', outputs: main, order: order++ });
		}
	}
	checkSkew(spans);
	const started = epochMs(exec.startedAt);
	const stopped = epochMs(exec.stoppedAt);
	let latency: number | undefined;
	if (started !== undefined && stopped !== undefined) {
		if (stopped < started)
			throw new TraceError(
				`stoppedAt is ${(started - stopped) / 1000} s before startedAt; clock skew?`,
			);
		latency = (stopped - started) / 1000;
	} else if (last >= first) latency = (last - first) / 1000;

	const out = fromSpans('n8n', spans, latency);
	// fromSpans took request/response from a "root"; for n8n the answer is the AI node's output.
	delete out.request;
	delete out.response;
	if (request !== undefined) out.request = request;
	let answerAt: Span | undefined;
	for (const s of spans) {
		if (s.kind !== 'other' || !aiRoots.has(s.name) || !isObject(s.outputs)) continue;
		if (answerAt === undefined || later(s, answerAt)) answerAt = s;
	}
	if (answerAt && isObject(answerAt.outputs)) {
		const o = answerAt.outputs;
		let answer = o.output ?? o.text ?? o.response;
		if (isObject(answer) && typeof answer.text === 'string') answer = answer.text;
		if (present(answer)) out.response = answer;
		// No tool sub-node runs (a streaming agent drops its steps; older executions): the
		// agent's intermediate steps, when it returned them, are the calls.
		if (!out.tool_calls && Array.isArray(o.intermediateSteps) && o.intermediateSteps.length > 0) {
			try {
				out.tool_calls = o.intermediateSteps.map((s, i) => readCall(s, `intermediateSteps[${i}]`));
				out.tool_calls.forEach((c, i) => (c.position = i));
			} catch (e) {
				out.notes.push(`intermediate steps not read: ${(e as Error).message}`);
			}
		}
	}
	const defs = n8nToolDefinitions(toolNodes, nodes);
	if (defs.length > 0) out.tool_definitions = defs;
	return out;
}

/**
 * The execution and its `runData`, under `resultData` (at the top or in `data`) or bare, with the
 * workflow's connections when the execution carries its workflow (`workflowData`).
 */
export function n8nRunData(
	t: Row,
): { exec: Row; runData: Row; connections?: unknown; nodes?: unknown } | undefined {
	const candidates: Row[] = [t];
	if (isObject(t.data)) candidates.push(t.data);
	const wf = isObject(t.workflowData)
		? t.workflowData
		: isObject(t.data) && isObject(t.data.workflowData)
			? t.data.workflowData
			: undefined;
	const connections = wf?.connections;
	const nodes = wf?.nodes;
	for (const c of candidates) {
		if (isObject(c.resultData) && isObject(c.resultData.runData))
			return { exec: t, runData: c.resultData.runData, connections, nodes };
	}
	if (isObject(t.runData)) return { exec: t, runData: t.runData, connections, nodes };
	return undefined;
}
