#!/usr/bin/env node
/**
 * A standalone OpenAI-compatible judge server for examples, E2E runs and benchmarks (plain JS,
 * no build step). Every chat completion gets a valid judge reply filled from the request's JSON
 * schema (or the keys listed in the prompt). The score comes from a `[[score=N]]` marker in the
 * judged text when present, else from a hash of the prompt with the per-call nonce removed, so
 * outcomes are stable across runs.
 *
 *   node test/support/openai-server-cli.js [--port 8787] [--latency 100] [--rate429 0.1] [--retry-after 0.2]
 *
 * An agent's request that offers tools and whose user turn holds `[[tool]]` or `[[tool:<name>]]`
 * gets a call of that tool instead (each named tool once, in order; then the usual reply);
 * `[[call:<name> {"arg": 1}]]` markers script the calls exactly, arguments and repeats included.
 * `POST /embeddings` answers deterministic word-hash vectors (see embed).
 *
 * Prints `OPENAI_BASE_URL=http://127.0.0.1:<port>/v1` once listening; `GET /__stats` returns call
 * counts (chat, rateLimited, models) and the chat requests held at once (inFlight, peakInFlight)
 * for benchmarks.
 */
'use strict';
const http = require('node:http');
const crypto = require('node:crypto');
const { generatorReply } = require('./generator-model.js');

/**
 * Score for a request: a `[[model:<name>=N]]` marker naming the model the request calls first
 * (so the jurors of a judge panel can disagree), then a `[[<judge>=N]]` marker naming the reply
 * schema (the judge's output name, e.g. `[[task_completion=1]]`), then `[[score=N]]`, else a
 * stable hash of the nonce-free prompt.
 */
function scoreFor(messages, judge, model) {
	const text = (messages || [])
		.map((m) => (typeof m.content === 'string' ? m.content : ''))
		.join('\n');
	const forModel =
		typeof model === 'string' && model !== ''
			? new RegExp(
					`\\[\\[model:${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=(\\d)\\]\\]`,
				).exec(text)
			: null;
	if (forModel) return Math.min(5, Math.max(1, Number(forModel[1])));
	const own =
		judge && /^[a-z0-9_]+$/i.test(judge)
			? new RegExp(`\\[\\[${judge}=(\\d)\\]\\]`).exec(text)
			: null;
	const marker = own || /\[\[score=(\d)\]\]/.exec(text);
	if (marker) return Math.min(5, Math.max(1, Number(marker[1])));
	const stable = text.replace(/data-[0-9a-f]{8,}/g, 'data');
	const h = crypto.createHash('sha256').update(stable).digest();
	return (h[0] % 5) + 1;
}

/** A tool name as compared: lower case, every run of other characters than letters and digits `_`. */
const toolKey = (name) =>
	String(name)
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '_')
		.replace(/^_|_$/g, '');

/**
 * The next tool call an agent's request asks for, or null. The user turn names the tools to call,
 * in order: `[[tool:<name>]]` (several allowed; names compared by toolKey) or `[[tool]]` (the first
 * tool offered). A tool is called once: those whose result is already in the conversation are
 * skipped, and when none is left the model answers as usual. Arguments are filled from the tool's
 * JSON schema.
 */
function toolCallFor(body, messages) {
	const tools = Array.isArray(body.tools) ? body.tools.filter((t) => t && t.function) : [];
	if (tools.length === 0) return null;
	const user = messages
		.filter((m) => m.role === 'user')
		.map((m) => (typeof m.content === 'string' ? m.content : ''))
		.join('\n');
	const script = scriptedCalls(user);
	if (script.length > 0) return scriptedCallFor(script, tools, messages);
	const wanted = [];
	for (const m of user.matchAll(/\[\[tool(?::([^\]]+))?\]\]/g))
		wanted.push(m[1] === undefined ? toolKey(tools[0].function.name) : toolKey(m[1]));
	if (wanted.length === 0) return null;
	const called = new Set();
	for (const m of messages)
		for (const c of m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : [])
			if (c && c.function) called.add(toolKey(c.function.name));
	const next = wanted.find((w) => !called.has(w));
	const tool = next && tools.find((t) => toolKey(t.function.name) === next);
	if (!tool) return null;
	const fn = tool.function;
	const args = fill(fn.parameters || { type: 'object', properties: {} }, 3) || {};
	// A query-like argument gets the user's words, so a retriever tool searches for them.
	for (const k of ['input', 'query'])
		if (typeof args[k] === 'string') args[k] = user.replace(/\[\[[^\]]*\]\]/g, '').trim();
	return {
		id: `call_local_${crypto
			.createHash('sha256')
			.update(`${JSON.stringify(messages)}#${next}`)
			.digest('hex')
			.slice(0, 12)}`,
		type: 'function',
		function: { name: fn.name, arguments: JSON.stringify(args) },
	};
}

/**
 * The calls a user turn scripts, in order: `[[call:<tool name> <JSON object>]]` (the arguments are
 * optional: without them they are filled from the tool's schema). Unlike `[[tool:...]]`, a script
 * may repeat a call (a loop) and give wrong arguments on purpose.
 */
function scriptedCalls(user) {
	const out = [];
	for (const m of user.matchAll(/\[\[call:([^\]{]+?)\s*(\{[^\]]*\})?\]\]/g)) {
		let args;
		if (m[2] !== undefined) {
			try {
				args = JSON.parse(m[2]);
			} catch {
				throw new Error(`[[call:${m[1]}]]: the arguments are not JSON: ${m[2]}`);
			}
		}
		out.push({ key: toolKey(m[1]), args });
	}
	return out;
}

/**
 * The next scripted call: the k-th of the script once k tool calls are in the conversation (every
 * assistant `tool_calls` entry counts, repeats included), or null when the script is done or names
 * a tool the agent was not offered.
 */
function scriptedCallFor(script, tools, messages) {
	let made = 0;
	for (const m of messages)
		if (m.role === 'assistant' && Array.isArray(m.tool_calls)) made += m.tool_calls.length;
	const step = script[made];
	if (!step) return null;
	const tool = tools.find((t) => toolKey(t.function.name) === step.key);
	if (!tool) return null;
	const args =
		step.args ?? (fill(tool.function.parameters || { type: 'object', properties: {} }, 3) || {});
	return {
		id: `call_local_${crypto
			.createHash('sha256')
			.update(`${JSON.stringify(messages)}#${made}`)
			.digest('hex')
			.slice(0, 12)}`,
		type: 'function',
		function: { name: tool.function.name, arguments: JSON.stringify(args) },
	};
}

/**
 * Deterministic embeddings for `POST /embeddings`: each word (lower case, letters and digits) adds
 * to one of DIM dimensions picked by its hash, and the vector is normalised, so texts sharing words
 * are near each other. Answered as floats, or base64 float32 (the OpenAI SDK's default request).
 */
const EMBEDDING_DIM = 64;
function embed(text) {
	const v = new Float32Array(EMBEDDING_DIM);
	for (const w of String(text)
		.toLowerCase()
		.match(/[a-z0-9]+/g) || []) {
		const h = crypto.createHash('sha256').update(w).digest();
		v[h[0] % EMBEDDING_DIM] += h[1] & 1 ? 1 : -1;
	}
	const norm = Math.hypot(...v) || 1;
	for (let i = 0; i < v.length; i++) v[i] /= norm;
	return v;
}

/**
 * An app's scripted answer: a user turn holding `<<reply:<model> <text>>>` is answered `<text>`
 * when the request is for `<model>` (several markers script several models), so one question can
 * give each model under comparison its own answer. In `<text>`, `((` and `))` stand for `[[` and
 * `]]`: the answer can carry judge markers without the question (which the judges see too)
 * carrying them. Requests with a response format (the judges) are never scripted this way.
 */
function scriptedReply(body, messages) {
	if (body.response_format) return null;
	const user = messages
		.filter((m) => m.role === 'user')
		.map((m) => (typeof m.content === 'string' ? m.content : ''))
		.join('\n');
	for (const m of user.matchAll(/<<reply:(\S+) ([\s\S]*?)>>/g))
		if (m[1] === body.model) return m[2].replace(/\(\(/g, '[[').replace(/\)\)/g, ']]');
	return null;
}

/**
 * A pairwise judge's verdict (a reply schema whose `verdict` is first / second / tie): the answer
 * holding `[[prefer]]` is better, a tie when both or neither do; a request holding
 * `[[first-slot]]` plays a judge biased to the first slot, which says "first" whatever the order.
 */
function pairwiseVerdict(messages) {
	const user = messages
		.filter((m) => m.role === 'user')
		.map((m) => (typeof m.content === 'string' ? m.content : ''))
		.join('\n');
	if (user.includes('[[first-slot]]')) return 'first';
	const first = user.indexOf('First answer:');
	const second = user.indexOf('Second answer:');
	if (first < 0 || second < first) return 'tie';
	const a = user.slice(first, second).includes('[[prefer]]');
	const b = user.slice(second).includes('[[prefer]]');
	return a === b ? 'tie' : a ? 'first' : 'second';
}

/** Fills a JSON schema with values consistent with `score`. */
function fill(schema, score, key, index = 0) {
	if (!schema || typeof schema !== 'object') return null;
	if (Array.isArray(schema.enum)) {
		if (schema.enum.includes('yes') && schema.enum.includes('no')) {
			// contradiction flags read inversely: low scores contradict
			if (key && /contradict/.test(key)) return score <= 2 ? 'yes' : 'no';
			return score >= 3 ? 'yes' : 'no';
		}
		// Per-dimension pass/fail (Task Adherence, Tool Call Accuracy's tools) agree with the verdict.
		if (schema.enum.includes('pass') && schema.enum.includes('fail'))
			return score >= 3 ? 'pass' : 'fail';
		return schema.enum[0];
	}
	switch (schema.type) {
		case 'object': {
			const out = {};
			for (const [k, v] of Object.entries(schema.properties || {}))
				out[k] = fill(v, score, k, index);
			return out;
		}
		case 'array': {
			// Tool Call Accuracy's excess and missing calls cap its level (2 with missing, 3 with
			// excess): none listed keeps any score consistent.
			if (key === 'excess_calls' || key === 'missing_calls') return [];
			// A list whose description says how many items it needs ("5 in all": a batched judge
			// asking one verdict per chunk) gets that many, numbered from 1.
			const n = /(\d+) in all/.exec(schema.description || '');
			return Array.from({ length: n ? Number(n[1]) : 1 }, (_, i) =>
				fill(schema.items, score, key, i),
			);
		}
		case 'integer':
		case 'number':
			return key === 'chunk' ? index + 1 : score;
		case 'boolean':
			return score >= 3;
		default:
			if (key === 'id' || key === 'documents') return 'doc1';
			return `Deterministic test judge: rated ${score} for ${key || 'this field'}.`;
	}
}

const KNOWN = {
	reason: { type: 'string' },
	reference_answer: { type: 'string' },
	score: { type: 'integer' },
	verdict: { type: 'string', enum: ['yes', 'no'] },
	contradicts_ground_truth: { type: 'string', enum: ['yes', 'no'] },
	intents: {
		type: 'array',
		items: {
			type: 'object',
			properties: {
				intent: { type: 'string' },
				supported: { type: 'string', enum: ['yes', 'no'] },
				documents: { type: 'array', items: { type: 'string' } },
			},
		},
	},
	documents: {
		type: 'array',
		items: {
			type: 'object',
			properties: { id: { type: 'string' }, relevance: { type: 'integer' } },
		},
	},
};

/** Without a schema, rebuild one from the "- key:" lines or <key> tags of the system prompt. */
function schemaFromPrompt(messages) {
	const sys = (messages || []).find((m) => m.role === 'system');
	const text = sys && typeof sys.content === 'string' ? sys.content : '';
	const keys = [];
	for (const m of text.matchAll(/^- ([a-z_]+): /gm)) if (!keys.includes(m[1])) keys.push(m[1]);
	if (keys.length === 0) keys.push('reason', 'score');
	const properties = {};
	for (const k of keys) properties[k] = KNOWN[k] || { type: 'string' };
	return { type: 'object', properties };
}

/**
 * Starts the server. Options: port (0 = random), latencyMs per chat call, rate429 (fraction of
 * chat calls answered 429, spread evenly), retryAfter (seconds, string).
 */
function startJudgeServer(opts = {}) {
	const latencyMs = opts.latencyMs || 0;
	const rate429 = opts.rate429 || 0;
	const retryAfter = String(opts.retryAfter ?? '0.2');
	// inFlight / peakInFlight: chat requests held at once (a bench resets the peak per pass).
	const stats = { chat: 0, rateLimited: 0, models: 0, inFlight: 0, peakInFlight: 0 };
	let acc = 0;
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const url = new URL(req.url || '/', 'http://127.0.0.1');
			const azure = /^\/openai\/deployments\/([^/]+)(\/.+)$/.exec(url.pathname);
			const endpoint = azure
				? azure[2]
				: url.pathname.replace(/^\/v1/, '').replace(/^\/openai/, '');
			const send = (status, body, headers) => {
				res.writeHead(status, Object.assign({ 'content-type': 'application/json' }, headers || {}));
				res.end(JSON.stringify(body));
			};
			if (req.method === 'GET' && url.pathname === '/__stats') return send(200, stats);
			if (req.method === 'GET' && endpoint === '/models') {
				stats.models++;
				return send(200, {
					object: 'list',
					data: [{ id: 'judge-model', object: 'model', created: 1700000000, owned_by: 'local' }],
				});
			}
			if (req.method === 'POST' && endpoint === '/embeddings') {
				let eb;
				try {
					eb = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
				} catch {
					eb = {};
				}
				const inputs = Array.isArray(eb.input) ? eb.input : [eb.input ?? ''];
				stats.embeddings = (stats.embeddings || 0) + 1;
				return send(200, {
					object: 'list',
					model: eb.model || 'embedding-model',
					data: inputs.map((t, index) => {
						const v = embed(typeof t === 'string' ? t : JSON.stringify(t));
						return {
							object: 'embedding',
							index,
							embedding:
								eb.encoding_format === 'base64'
									? Buffer.from(v.buffer).toString('base64')
									: Array.from(v),
						};
					}),
					usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
				});
			}
			if (req.method !== 'POST' || endpoint !== '/chat/completions') {
				return send(404, {
					error: {
						message: `unknown endpoint ${req.method} ${url.pathname}`,
						type: 'invalid_request_error',
						param: null,
						code: null,
					},
				});
			}
			let body = {};
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
			} catch {
				return send(400, {
					error: {
						message: 'invalid JSON body',
						type: 'invalid_request_error',
						param: null,
						code: null,
					},
				});
			}
			stats.chat++;
			// Evenly spread faults: an accumulator crossing 1 answers 429, exactly rate429 of calls.
			acc += rate429;
			if (acc >= 1) {
				acc -= 1;
				stats.rateLimited++;
				return send(
					429,
					{
						error: {
							message: 'Rate limit reached for requests',
							type: 'requests',
							param: null,
							code: 'rate_limit_exceeded',
						},
					},
					{ 'retry-after': retryAfter },
				);
			}
			const messages = Array.isArray(body.messages) ? body.messages : [];
			// An agent offered tools whose user turn carries `[[tool]]` first calls its first tool
			// (arguments filled from the tool's schema); once a tool result is in the conversation it
			// answers as usual.
			let call;
			try {
				call = toolCallFor(body, messages);
			} catch (e) {
				return send(400, {
					error: { message: e.message, type: 'invalid_request_error', param: null, code: null },
				});
			}
			if (call) {
				return send(200, {
					id: `chatcmpl-local-${stats.chat}`,
					object: 'chat.completion',
					created: Math.floor(Date.now() / 1000),
					model: body.model || (azure && azure[1]) || 'judge-model',
					choices: [
						{
							index: 0,
							message: { role: 'assistant', content: null, tool_calls: [call], refusal: null },
							logprobs: null,
							finish_reason: 'tool_calls',
						},
					],
					usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
				});
			}
			const rf = body.response_format;
			const score = scoreFor(messages, rf && rf.json_schema && rf.json_schema.name, body.model);
			const schema =
				rf && rf.type === 'json_schema' && rf.json_schema
					? rf.json_schema.schema
					: schemaFromPrompt(messages);
			// The Eval Set Generator's own calls get a question written from the passages
			// (./generator-model.js); an app's scripted answer its text; every other call a reply
			// filled from its schema (a pairwise verdict from the answers' markers).
			const generated = generatorReply({ messages, responseFormat: rf });
			const reply = generated ? null : scriptedReply(body, messages);
			let content;
			if (reply !== null) content = reply;
			else if (generated) content = JSON.stringify(generated);
			else {
				const filled = fill(schema, score);
				const verdict = schema && schema.properties && schema.properties.verdict;
				if (verdict && Array.isArray(verdict.enum) && verdict.enum.includes('first'))
					filled.verdict = pairwiseVerdict(messages);
				content = JSON.stringify(filled);
			}
			const promptTokens = Math.ceil(
				messages.map((m) => String(m.content || '')).join('\n').length / 4,
			);
			const completionTokens = Math.ceil(content.length / 4);
			stats.inFlight++;
			stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
			setTimeout(() => {
				stats.inFlight--;
				send(200, {
					id: `chatcmpl-local-${stats.chat}`,
					object: 'chat.completion',
					created: Math.floor(Date.now() / 1000),
					model: body.model || (azure && azure[1]) || 'judge-model',
					choices: [
						{
							index: 0,
							message: { role: 'assistant', content, refusal: null },
							logprobs: null,
							finish_reason: 'stop',
						},
					],
					usage: {
						prompt_tokens: promptTokens,
						completion_tokens: completionTokens,
						total_tokens: promptTokens + completionTokens,
					},
				});
			}, latencyMs);
		});
	});
	return new Promise((resolve) => {
		server.listen(opts.port || 0, '127.0.0.1', () => {
			const port = server.address().port;
			const url = `http://127.0.0.1:${port}`;
			resolve({
				url,
				baseUrl: `${url}/v1`,
				stats,
				close: () =>
					new Promise((r) => {
						server.closeAllConnections();
						server.close(() => r());
					}),
			});
		});
	});
}

module.exports = { startJudgeServer, scoreFor, fill, embed, EMBEDDING_DIM };

if (require.main === module) {
	const args = process.argv.slice(2);
	const arg = (name, dflt) => {
		const i = args.indexOf(`--${name}`);
		return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
	};
	startJudgeServer({
		port: Number(arg('port', '0')),
		latencyMs: Number(arg('latency', '0')),
		rate429: Number(arg('rate429', '0')),
		retryAfter: arg('retry-after', '0.2'),
	}).then((s) => {
		process.stdout.write(`OPENAI_BASE_URL=${s.baseUrl}\n`);
		const stop = () => s.close().then(() => process.exit(0));
		process.on('SIGINT', stop);
		process.on('SIGTERM', stop);
	});
}
