/**
 * One shape for what an agent did (`ToolCall`, `ToolDefinition` in ./schema), from every form the
 * sources write it in. The dataset readers (./readers.ts), the trace readers (./trace) and the
 * Tool Calls metric (src/metrics/toolcalls.ts) all finish their calls here, so a call read from an
 * n8n execution, an AI Agent's intermediate steps, OpenAI or Azure messages, Ragas, DeepEval or a
 * trace span carries the same fields: name, arguments (parsed JSON; text that is not JSON kept in
 * `arguments_raw`), result or error, position and, when the source says, the turn.
 */
import type { ToolCall, ToolDefinition } from './schema';

type Row = Record<string, unknown>;

function isObject(v: unknown): v is Row {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kind(v: unknown): string {
	return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

const MAX_TOOL_NAME = 64;

/**
 * The name an n8n AI Agent gives a connected tool node (n8n-workflow `nodeNameToToolName`): every
 * run of characters other than letters, digits, `_` and `-` becomes `_`, cut to 64 characters
 * (OpenAI's limit) without a trailing `_` or `-`. Execution data names a tool's run by its node
 * name ("Order Lookup") while the agent and its intermediate steps say "Order_Lookup".
 */
export function n8nToolName(name: string): string {
	let t = name.replace(/[^a-zA-Z0-9_-]+/g, '_');
	if (t.length > MAX_TOOL_NAME) t = t.slice(0, MAX_TOOL_NAME).replace(/[_-]+$/, '');
	return t;
}

/** Arguments as the source gave them: JSON text parsed, other text kept as raw text. */
export function splitArguments(v: unknown): { arguments?: unknown; arguments_raw?: string } {
	if (v === undefined || v === null) return {};
	if (typeof v !== 'string') return { arguments: v };
	const t = v.trim();
	if (t === '') return {};
	if (t[0] === '{' || t[0] === '[') {
		try {
			return { arguments: JSON.parse(t) as unknown };
		} catch {
			// not JSON after all: kept as the text it is
		}
	}
	return { arguments_raw: v };
}

/**
 * A call finished in place: text arguments parsed or moved to `arguments_raw`, `position` set.
 * Returns the same object.
 */
export function finishCall(call: ToolCall, position: number): ToolCall {
	if (typeof call.arguments === 'string') {
		const split = splitArguments(call.arguments);
		delete call.arguments;
		if (split.arguments !== undefined) call.arguments = split.arguments;
		if (split.arguments_raw !== undefined) call.arguments_raw = split.arguments_raw;
	}
	call.position = position;
	return call;
}

/** Every call of a list finished (positions 0, 1, ...); undefined stays undefined. */
export function finishCalls(calls: ToolCall[] | undefined): ToolCall[] | undefined {
	if (!calls) return calls;
	calls.forEach((c, i) => finishCall(c, i));
	return calls;
}

/**
 * Tool calls as earlier versions stored them (no position, turn or error; raw text in
 * `arguments`), so content-hash request ids of rows with tool calls do not change.
 */
export function legacyToolCalls(calls: unknown): unknown {
	if (!Array.isArray(calls)) return calls;
	return calls.map((c) => {
		if (!isObject(c)) return c;
		const rest: Row = { ...c };
		for (const k of ['position', 'turn', 'error', 'arguments_raw']) delete rest[k];
		const raw = c.arguments_raw;
		return raw !== undefined && rest.arguments === undefined ? { ...rest, arguments: raw } : rest;
	});
}

/** Text of an error as a source writes it: a string, `{message}` or anything as JSON. */
export function errorText(e: unknown): string | undefined {
	if (e === undefined || e === null || e === false) return undefined;
	if (typeof e === 'string') return e === '' ? undefined : e;
	if (isObject(e)) {
		const m = e.message ?? e.description ?? e.error;
		if (typeof m === 'string' && m !== '') return m;
	}
	return JSON.stringify(e);
}

/**
 * One call from any of the shapes sources write: canonical `{id, name, arguments, result, error}`,
 * OpenAI `{id, function: {name, arguments}}`, Azure `{type: 'tool_call', tool_call_id, name,
 * arguments}`, Ragas / LangChain `{name, args}`, DeepEval `{name, input_parameters, output}`,
 * LlamaIndex `{tool_name, tool_kwargs}`, n8n intermediate steps `{action: {tool, toolInput,
 * toolCallId}, observation}`. Throws a TypeError naming what is wrong.
 */
export function readCall(c: unknown, at: string): ToolCall {
	if (!isObject(c)) throw new TypeError(`${at}: expected a tool call object, got ${kind(c)}`);
	// n8n AI Agent intermediate step: the action is the call, the observation its result.
	if (isObject(c.action) && (typeof c.action.tool === 'string' || c.observation !== undefined)) {
		const a = c.action;
		if (typeof a.tool !== 'string')
			throw new TypeError(`${at}.action.tool: expected string, got ${kind(a.tool)}`);
		const call: ToolCall = { name: a.tool };
		if (typeof a.toolCallId === 'string' && a.toolCallId !== '') call.id = a.toolCallId;
		Object.assign(call, splitArguments(a.toolInput));
		if (c.observation !== undefined && c.observation !== null) call.result = c.observation;
		return call;
	}
	const fn = isObject(c.function) ? c.function : c;
	const name = fn.name ?? fn.tool_name ?? fn.toolName ?? fn.tool;
	if (typeof name !== 'string' || name === '')
		throw new TypeError(`${at}.name: expected the tool's name, got ${kind(name)}`);
	const call: ToolCall = { name };
	const id = c.id ?? c.tool_call_id ?? c.toolCallId ?? c.call_id;
	if (typeof id === 'string' && id !== '') call.id = id;
	const args =
		fn.arguments ??
		fn.args ??
		c.input_parameters ??
		c.inputParameters ??
		c.input ??
		c.tool_kwargs ??
		c.toolInput ??
		c.parameters;
	Object.assign(call, splitArguments(args));
	if (call.arguments === undefined && typeof c.arguments_raw === 'string')
		call.arguments_raw = c.arguments_raw;
	const result = c.result ?? c.output ?? c.observation;
	if (result !== undefined && result !== null) call.result = result;
	const error = errorText(c.error);
	if (error !== undefined) call.error = error;
	else if (c.status === 'error' || c.is_error === true || c.isError === true)
		call.error = typeof call.result === 'string' ? call.result : 'the tool reported an error';
	for (const k of ['turn', 'position'] as const) {
		const n = c[k];
		if (typeof n === 'number' && Number.isInteger(n) && n >= 0) call[k] = n;
	}
	return call;
}

/**
 * The calls of a chat transcript: each assistant turn's `tool_calls` (OpenAI) or `tool_call`
 * content parts (Azure), each paired with the `tool` turn that answers it by id (its content, or
 * its one `tool_result` part). `turn` counts assistant turns from 0.
 */
export function callsOfMessages(msgs: unknown[], at: string): ToolCall[] {
	const out: ToolCall[] = [];
	const byId = new Map<string, ToolCall>();
	let turn = -1;
	msgs.forEach((m, i) => {
		if (!isObject(m)) throw new TypeError(`${at}[${i}]: expected a message, got ${kind(m)}`);
		const role = m.role ?? m.type;
		if (role === 'assistant' || role === 'ai') turn++;
		const made: ToolCall[] = [];
		if (Array.isArray(m.tool_calls))
			m.tool_calls.forEach((c, j) => made.push(readCall(c, `${at}[${i}].tool_calls[${j}]`)));
		if (Array.isArray(m.content)) {
			m.content.forEach((p, j) => {
				if (isObject(p) && p.type === 'tool_call')
					made.push(readCall(p, `${at}[${i}].content[${j}]`));
			});
		}
		for (const c of made) {
			if (turn >= 0) c.turn = turn;
			out.push(c);
			if (c.id !== undefined) byId.set(c.id, c);
		}
		if (role !== 'tool') return;
		const answered = typeof m.tool_call_id === 'string' ? byId.get(m.tool_call_id) : undefined;
		if (!answered || answered.result !== undefined) return;
		const parts = Array.isArray(m.content)
			? m.content.filter((p): p is Row => isObject(p) && p.type === 'tool_result')
			: [];
		answered.result = parts.length === 1 ? parts[0].tool_result : m.content;
		const err =
			errorText(m.error) ?? (m.is_error === true ? 'the tool reported an error' : undefined);
		if (err !== undefined) answered.error = err;
	});
	return out;
}

const SPEAKERS = new Set(['human', 'ai', 'tool', 'system', 'user', 'assistant']);

/** Whether a list is a chat transcript (turns with a role) rather than a list of calls. */
function looksLikeMessages(list: unknown[]): boolean {
	return list.some(
		(m) => isObject(m) && (typeof m.role === 'string' || SPEAKERS.has(m.type as string)),
	);
}

/**
 * Tool calls from whatever a node's input holds: a list of calls in any shape {@link readCall}
 * reads, a chat transcript ({@link callsOfMessages}), an AI Agent's output `{intermediateSteps}`,
 * an object `{tool_calls}`, or JSON text of any of them. Calls are finished (positions set).
 * Throws a TypeError naming the field and what is wrong.
 */
export function readToolCalls(v: unknown, field: string): ToolCall[] {
	let value = v;
	if (typeof value === 'string') {
		const t = value.trim();
		if (t === '') return [];
		try {
			value = JSON.parse(t) as unknown;
		} catch {
			throw new TypeError(`${field}: expected a list of tool calls, got text that is not JSON`);
		}
	}
	if (value === undefined || value === null) return [];
	if (isObject(value)) {
		if (Array.isArray(value.intermediateSteps))
			return readToolCalls(value.intermediateSteps, `${field}.intermediateSteps`);
		if (Array.isArray(value.tool_calls))
			return readToolCalls(value.tool_calls, `${field}.tool_calls`);
		if (Array.isArray(value.messages)) return readToolCalls(value.messages, `${field}.messages`);
		// One call on its own.
		return finishCalls([readCall(value, field)]) ?? [];
	}
	if (!Array.isArray(value))
		throw new TypeError(`${field}: expected a list of tool calls, got ${kind(value)}`);
	if (looksLikeMessages(value)) return finishCalls(callsOfMessages(value, field)) ?? [];
	const calls = value.map((c, i) => readCall(c, `${field}[${i}]`));
	return finishCalls(calls) ?? [];
}

/** JSON schema of the `$fromAI('key', 'description', 'type')` parameters of an n8n tool node. */
export function fromAiSchema(parameters: unknown): Row | undefined {
	if (!isObject(parameters)) return undefined;
	const text = JSON.stringify(parameters);
	const re =
		/\$fromAI\(\s*\\?['"`]([^'"`\\]+)\\?['"`](?:\s*,\s*\\?['"`]([^'"`\\]*)\\?['"`])?(?:\s*,\s*\\?['"`](\w+)\\?['"`])?/g;
	const properties: Row = {};
	for (const m of text.matchAll(re)) {
		const [, key, description, type] = m;
		if (key in properties) continue;
		const p: Row = { type: type ?? 'string' };
		if (description) p.description = description;
		properties[key] = p;
	}
	const keys = Object.keys(properties);
	return keys.length > 0 ? { type: 'object', properties, required: keys } : undefined;
}

/**
 * One tool definition from OpenAI `{type: 'function', function: {name, description,
 * parameters}}`, MCP `{name, description, inputSchema}`, LangChain `{name, description, schema}`
 * or the canonical `{name, description, parameters}`; other keys are kept. Throws naming the field.
 */
export function readDefinition(t: unknown, at: string): ToolDefinition {
	if (!isObject(t)) throw new TypeError(`${at}: expected a tool definition, got ${kind(t)}`);
	const fn = isObject(t.function) ? t.function : t;
	if (typeof fn.name !== 'string' || fn.name === '')
		throw new TypeError(`${at}.name: expected string, got ${kind(fn.name)}`);
	const def: ToolDefinition = { ...(fn === t ? t : { ...t, ...fn }), name: fn.name };
	delete (def as Row).function;
	if (typeof fn.description === 'string') def.description = fn.description;
	const params = fn.parameters ?? fn.inputSchema ?? fn.input_schema ?? fn.schema;
	if (params !== undefined) def.parameters = params;
	return def;
}

/**
 * Tool definitions from whatever a node's input holds: a list of definitions in any shape
 * {@link readDefinition} reads, one definition, an object `{tools}` / `{tool_definitions}`, or JSON
 * text of any of them. Throws a TypeError naming the field and what is wrong.
 */
export function readToolDefinitions(v: unknown, field: string): ToolDefinition[] {
	let value = v;
	if (typeof value === 'string') {
		const t = value.trim();
		if (t === '') return [];
		try {
			value = JSON.parse(t) as unknown;
		} catch {
			throw new TypeError(
				`${field}: expected a list of tool definitions, got text that is not JSON`,
			);
		}
	}
	if (value === undefined || value === null) return [];
	if (isObject(value)) {
		if (Array.isArray(value.tools)) return readToolDefinitions(value.tools, `${field}.tools`);
		if (Array.isArray(value.tool_definitions))
			return readToolDefinitions(value.tool_definitions, `${field}.tool_definitions`);
		return [readDefinition(value, field)];
	}
	if (!Array.isArray(value))
		throw new TypeError(`${field}: expected a list of tool definitions, got ${kind(value)}`);
	return value.map((t, i) => readDefinition(t, `${field}[${i}]`));
}
