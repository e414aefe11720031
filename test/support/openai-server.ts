/**
 * A local OpenAI-compatible server for judge tests: `node:http` on 127.0.0.1 with a random port,
 * serving chat completions (OpenAI and Azure deployment paths) and the models list with the real
 * response shapes, scripted replies per test, recorded requests and fault modes. A call with no
 * scripted reply and no default handler answers 500 and is recorded as unexpected, so
 * `assertNoUnexpected()` fails the test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	rawBody: string;
	/** Parsed JSON body, or undefined when the body was not JSON. */
	body: unknown;
	/** Azure deployment name for `/openai/deployments/{d}/...` paths. */
	deployment?: string;
	/** Chat completions only: `model`, messages and response_format from the body. */
	model?: string;
	messages?: { role: string; content: string }[];
	responseFormat?: {
		type: string;
		json_schema?: { name: string; schema: unknown; strict?: boolean };
	};
	unexpected: boolean;
	/** Resolves when the client closed the connection before the server answered (an abort). */
	clientAborted: Promise<void>;
}

/** What the server answers to one call. */
export interface ScriptedReply {
	/** Assistant message content (a string; `null` is sent when undefined and `json` is unset). */
	content?: string | null;
	/** Shorthand for `content: JSON.stringify(json)`. */
	json?: unknown;
	/** HTTP status, default 200. Non-2xx statuses send `error` as the OpenAI error body. */
	status?: number;
	headers?: Record<string, string>;
	error?: { message: string; type?: string; code?: string | null };
	/** Wait before answering. */
	delayMs?: number;
	/** Never answer (until the client gives up or the server closes). */
	hang?: boolean;
	/** Destroy the socket without answering (the client sees "other side closed"). */
	drop?: boolean;
	/** Reset the TCP connection (RST) without answering: the client sees ECONNRESET. */
	reset?: boolean;
	/** Send a 200 whose JSON body is cut off after this many characters. */
	truncateBodyAt?: number;
	/** Send this body verbatim (with `status`, content-type JSON). */
	rawBody?: string;
	finishReason?: string;
	refusal?: string;
	usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
	/** Model reported in the reply; default the request's model (or Azure deployment). */
	model?: string;
	/**
	 * `choices[0].logprobs.content` of the reply (what OpenAI sends when the request asks for
	 * `logprobs`); default null. Build it with {@link scoreTokenLogprobs}.
	 */
	logprobs?: TokenLogprob[] | null;
}

/** One token of a reply with its log-probability and its most likely alternatives. */
export interface TokenLogprob {
	token: string;
	logprob: number;
	bytes: number[] | null;
	top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}

function tokenEntry(token: string, logprob: number): Omit<TokenLogprob, 'top_logprobs'> {
	return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

/**
 * The log-probabilities of a reply whose only uncertain token is its score: `content` is cut into
 * the text before the last `"<key>":` value, the value token and the rest; the value token's
 * `top_logprobs` are `alternatives` (token -> probability, most likely first as given), the other
 * tokens certain (log-probability 0). The sampled token is the value written in `content`.
 */
export function scoreTokenLogprobs(
	content: string,
	alternatives: Record<string, number>,
	key = 'score',
): TokenLogprob[] {
	const m = new RegExp(`"${key}"\\s*:\\s*`, 'g');
	let at = -1;
	for (let hit = m.exec(content); hit; hit = m.exec(content)) at = hit.index + hit[0].length;
	if (at < 0) throw new Error(`scoreTokenLogprobs: no "${key}" in ${content}`);
	const end = at + (/^[^,}\s]+/.exec(content.slice(at))?.[0].length ?? 0);
	const value = content.slice(at, end);
	const top = Object.entries(alternatives).map(([t, p]) => tokenEntry(t, Math.log(p)));
	const sampled = top.find((t) => t.token === value)?.logprob ?? Math.log(1e-6);
	const parts: TokenLogprob[] = [];
	if (at > 0) parts.push({ ...tokenEntry(content.slice(0, at), 0), top_logprobs: [] });
	parts.push({ ...tokenEntry(value, sampled), top_logprobs: top });
	if (end < content.length) parts.push({ ...tokenEntry(content.slice(end), 0), top_logprobs: [] });
	return parts;
}

/** A reply, or a function computing it from the request. */
export type ReplyHandler = (req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

/** Handle on a running test server. */
export interface OpenAIServer {
	/** `http://127.0.0.1:<port>` (Azure endpoint). */
	url: string;
	/** `http://127.0.0.1:<port>/v1` (OpenAI base URL). */
	baseUrl: string;
	/** Every request received, in arrival order. */
	requests: RecordedRequest[];
	/** Only the chat-completion requests. */
	chatRequests(): RecordedRequest[];
	/** Queues replies for the next chat calls, consumed in order. */
	script(...replies: Array<ScriptedReply | ReplyHandler>): void;
	/** Answers chat calls once the script is empty; `null` removes it. */
	setDefault(handler: ReplyHandler | null): void;
	/**
	 * Queues replies for the next chat calls naming `model` (the body's model, or the Azure
	 * deployment), consumed in order before the shared script: a panel's jurors can disagree.
	 */
	scriptFor(model: string, ...replies: Array<ScriptedReply | ReplyHandler>): void;
	/** Answers calls naming `model` once its script and the shared script are empty; `null` removes it. */
	setDefaultFor(model: string, handler: ReplyHandler | null): void;
	/** Model ids listed by `/models`, or a reply (e.g. 404) for the models endpoint. */
	setModels(models: string[] | ScriptedReply): void;
	/** Scripted replies not consumed yet. */
	remaining(): number;
	/** Throws if any call arrived with nothing scripted to answer it. */
	assertNoUnexpected(): void;
	close(): Promise<void>;
	// --- /v1/moderations (safety backend tests) ---
	/** Only the moderation requests. */
	moderationRequests(): RecordedRequest[];
	/** Queues replies for the next moderation calls (`scores` = category_scores), in order. */
	scriptModeration(...replies: Array<ModerationReply | ModerationHandler>): void;
	/** Answers moderation calls once their script is empty; `null` removes it. */
	setModerationDefault(handler: ModerationHandler | null): void;
	// --- /v1/embeddings (embedding metrics) ---
	/** Only the embedding requests. */
	embeddingRequests(): RecordedRequest[];
	/**
	 * Queues replies for the next embedding calls (faults, or `vectors` to send), in order; once
	 * empty, every call gets the deterministic word-hash vectors of {@link embedTestText}.
	 */
	scriptEmbeddings(...replies: Array<EmbeddingReply | EmbeddingHandler>): void;
	/** Answers embedding calls once their script is empty; `null` restores the word-hash vectors. */
	setEmbeddingDefault(handler: EmbeddingHandler | null): void;
}

/** An embedding reply: the vectors to send (default: the word-hash vectors), or any fault. */
export interface EmbeddingReply extends ScriptedReply {
	vectors?: number[][];
}

/** An embedding reply, or a function computing it from the request. */
export type EmbeddingHandler = (req: RecordedRequest) => EmbeddingReply | Promise<EmbeddingReply>;

// The CLI server's embedding function: one definition of the test vectors for both servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cli = require('./openai-server-cli.js') as { embed(text: string): Float32Array };

/**
 * The deterministic test vector of a text (each word adds +-1 to one of 64 dimensions picked by
 * its hash, then normalised), as float32 values: what the server sends for it.
 */
export function embedTestText(text: string): number[] {
	return Array.from(cli.embed(text));
}

/** The texts of an embedding request, in order. */
export function embeddingInputs(req: RecordedRequest): string[] {
	const input = (req.body as { input?: unknown } | undefined)?.input;
	const list = Array.isArray(input) ? input : [input ?? ''];
	return list.map((t) => (typeof t === 'string' ? t : JSON.stringify(t)));
}

/** Builds an embeddings body in the OpenAI shape, floats or base64 float32 as asked. */
export function embeddingBody(
	reply: EmbeddingReply,
	req: RecordedRequest,
): Record<string, unknown> {
	const b = (req.body ?? {}) as { model?: unknown; encoding_format?: unknown };
	const texts = embeddingInputs(req);
	const vectors = reply.vectors ?? texts.map(embedTestText);
	const tokens = texts.reduce((a, t) => a + approxTokens(t), 0);
	return {
		object: 'list',
		model: reply.model ?? (typeof b.model === 'string' ? b.model : 'embedding-model'),
		data: vectors.map((v, index) => ({
			object: 'embedding',
			index,
			embedding:
				b.encoding_format === 'base64'
					? Buffer.from(new Float32Array(v).buffer).toString('base64')
					: v,
		})),
		usage: { prompt_tokens: tokens, total_tokens: tokens },
	};
}

/** A moderation reply: scripted `category_scores` (others 0), or any fault of ScriptedReply. */
export interface ModerationReply extends ScriptedReply {
	scores?: Record<string, number>;
	/** Sub-categories reported flagged; default those scoring at least 0.5. */
	flagged?: string[];
}

/** A moderation reply, or a function computing it from the request. */
export type ModerationHandler = (
	req: RecordedRequest,
) => ModerationReply | Promise<ModerationReply>;

/** The 13 categories `omni-moderation-latest` scores, in the API's order. */
export const MODERATION_CATEGORIES = [
	'harassment',
	'harassment/threatening',
	'hate',
	'hate/threatening',
	'illicit',
	'illicit/violent',
	'self-harm',
	'self-harm/intent',
	'self-harm/instructions',
	'sexual',
	'sexual/minors',
	'violence',
	'violence/graphic',
] as const;

let moderationCounter = 0;

/** Builds a moderation body in the OpenAI shape (`results[0]` with categories and scores). */
export function moderationBody(
	reply: ModerationReply,
	req: RecordedRequest,
): Record<string, unknown> {
	const b = (req.body ?? {}) as { model?: unknown };
	const scores: Record<string, number> = {};
	const categories: Record<string, boolean> = {};
	const applied: Record<string, string[]> = {};
	for (const c of MODERATION_CATEGORIES) {
		scores[c] = reply.scores?.[c] ?? 0;
		categories[c] = reply.flagged ? reply.flagged.includes(c) : scores[c] >= 0.5;
		applied[c] = ['text'];
	}
	for (const [c, v] of Object.entries(reply.scores ?? {})) scores[c] = v;
	return {
		id: `modr-test-${++moderationCounter}`,
		model: reply.model ?? (typeof b.model === 'string' ? b.model : 'omni-moderation-latest'),
		results: [
			{
				flagged: Object.values(categories).some(Boolean),
				categories,
				category_scores: scores,
				category_applied_input_types: applied,
			},
		],
	};
}

/** Approximate token count, deterministic so tests can assert usage. */
export function approxTokens(text: string): number {
	return Math.max(1, Math.ceil(text.length / 4));
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function sendJson(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(text);
}

function errorType(status: number): string {
	if (status === 429) return 'rate_limit_exceeded';
	if (status === 401) return 'invalid_request_error';
	if (status >= 500) return 'server_error';
	return 'invalid_request_error';
}

let completionCounter = 0;

/** Builds the body of a successful chat completion in the OpenAI shape. */
export function completionBody(
	reply: ScriptedReply,
	req: RecordedRequest,
): Record<string, unknown> {
	const content =
		reply.json !== undefined
			? JSON.stringify(reply.json)
			: reply.content === undefined
				? null
				: reply.content;
	const promptText = (req.messages ?? []).map((m) => m.content).join('\n');
	const usage = reply.usage ?? {
		prompt_tokens: approxTokens(promptText),
		completion_tokens: content ? approxTokens(content) : 0,
		total_tokens: approxTokens(promptText) + (content ? approxTokens(content) : 0),
	};
	return {
		id: `chatcmpl-test-${++completionCounter}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: reply.model ?? req.model ?? req.deployment ?? 'unknown-model',
		system_fingerprint: 'fp_test',
		choices: [
			{
				index: 0,
				message: { role: 'assistant', content, refusal: reply.refusal ?? null },
				logprobs: reply.logprobs ? { content: reply.logprobs, refusal: null } : null,
				finish_reason: reply.finishReason ?? 'stop',
			},
		],
		usage,
	};
}

/** Starts a server on 127.0.0.1 with a random port. */
export async function startOpenAIServer(): Promise<OpenAIServer> {
	const requests: RecordedRequest[] = [];
	const queue: Array<ScriptedReply | ReplyHandler> = [];
	let fallback: ReplyHandler | null = null;
	const modelQueues = new Map<string, Array<ScriptedReply | ReplyHandler>>();
	const modelFallbacks = new Map<string, ReplyHandler>();
	let models: string[] | ScriptedReply = ['judge-model', 'gpt-4o-mini'];
	const moderationQueue: Array<ModerationReply | ModerationHandler> = [];
	const embeddingQueue: Array<EmbeddingReply | EmbeddingHandler> = [];
	let embeddingFallback: EmbeddingHandler | null = null;
	let moderationFallback: ModerationHandler | null = null;

	async function answer(
		res: ServerResponse,
		reply: ScriptedReply,
		rec: RecordedRequest,
		okBody: () => unknown,
	): Promise<void> {
		if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
		if (reply.hang) return; // the socket stays open until the client aborts or close()
		if (reply.drop) {
			res.socket?.destroy();
			return;
		}
		if (reply.reset) {
			res.socket?.resetAndDestroy();
			return;
		}
		const status = reply.status ?? 200;
		if (reply.truncateBodyAt !== undefined) {
			const full = JSON.stringify(okBody());
			res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
			res.end(full.slice(0, reply.truncateBodyAt));
			return;
		}
		if (reply.rawBody !== undefined) return sendJson(res, status, reply.rawBody, reply.headers);
		if (status >= 300) {
			const error = {
				message: reply.error?.message ?? `status ${status}`,
				type: reply.error?.type ?? errorType(status),
				param: null,
				code: reply.error?.code ?? null,
			};
			return sendJson(res, status, { error }, reply.headers);
		}
		void rec;
		sendJson(res, status, okBody(), reply.headers);
	}

	const server = createServer((req, res) => {
		void (async () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const rawBody = await readBody(req);
			let body: unknown;
			try {
				body = rawBody === '' ? undefined : JSON.parse(rawBody);
			} catch {
				body = undefined;
			}
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(req.headers))
				headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
			let onAbort: () => void = () => {};
			const clientAborted = new Promise<void>((resolve) => (onAbort = resolve));
			res.on('close', () => {
				if (!res.writableFinished) onAbort();
			});
			const rec: RecordedRequest = {
				clientAborted,
				method: req.method ?? 'GET',
				path: url.pathname,
				query: Object.fromEntries(url.searchParams.entries()),
				headers,
				rawBody,
				body,
				unexpected: false,
			};
			const azure = /^\/openai\/deployments\/([^/]+)\/(.+)$/.exec(url.pathname);
			if (azure) rec.deployment = decodeURIComponent(azure[1]);
			const endpoint = azure
				? `/${azure[2]}`
				: url.pathname.replace(/^\/v1/, '').replace(/^\/openai/, '');
			requests.push(rec);

			if (req.method === 'POST' && endpoint === '/chat/completions') {
				const b = (body ?? {}) as Record<string, unknown>;
				rec.model = typeof b.model === 'string' ? b.model : undefined;
				rec.messages = Array.isArray(b.messages)
					? (b.messages as { role: string; content: string }[])
					: undefined;
				rec.responseFormat = b.response_format as RecordedRequest['responseFormat'];
				const named = rec.model ?? rec.deployment ?? '';
				const next =
					modelQueues.get(named)?.shift() ?? queue.shift() ?? modelFallbacks.get(named) ?? fallback;
				if (!next) {
					rec.unexpected = true;
					return sendJson(res, 500, {
						error: {
							message: 'unexpected call: nothing scripted',
							type: 'server_error',
							param: null,
							code: null,
						},
					});
				}
				const reply = typeof next === 'function' ? await next(rec) : next;
				return answer(res, reply, rec, () => completionBody(reply, rec));
			}
			if (req.method === 'GET' && endpoint === '/models') {
				if (!Array.isArray(models))
					return answer(res, models, rec, () => ({ object: 'list', data: [] }));
				const list = models;
				return sendJson(res, 200, {
					object: 'list',
					data: list.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'test' })),
				});
			}
			if (req.method === 'POST' && endpoint === '/moderations') {
				const next = moderationQueue.shift() ?? moderationFallback;
				if (!next) {
					rec.unexpected = true;
					return sendJson(res, 500, {
						error: {
							message: 'unexpected moderation call: nothing scripted',
							type: 'server_error',
							param: null,
							code: null,
						},
					});
				}
				const reply = typeof next === 'function' ? await next(rec) : next;
				return answer(res, reply, rec, () => moderationBody(reply, rec));
			}
			if (req.method === 'POST' && endpoint === '/embeddings') {
				const next = embeddingQueue.shift() ?? embeddingFallback ?? undefined;
				const reply: EmbeddingReply = typeof next === 'function' ? await next(rec) : (next ?? {});
				return answer(res, reply, rec, () => embeddingBody(reply, rec));
			}
			rec.unexpected = true;
			sendJson(res, 404, {
				error: {
					message: `unknown endpoint ${req.method} ${url.pathname}`,
					type: 'invalid_request_error',
					param: null,
					code: null,
				},
			});
		})().catch((err: unknown) => {
			if (!res.headersSent)
				sendJson(res, 500, { error: { message: String(err), type: 'server_error' } });
		});
	});
	server.keepAliveTimeout = 1000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		baseUrl: `${url}/v1`,
		requests,
		chatRequests: () => requests.filter((r) => r.path.endsWith('/chat/completions')),
		script: (...replies) => {
			queue.push(...replies);
		},
		setDefault: (h) => {
			fallback = h;
		},
		scriptFor: (model, ...replies) => {
			const q = modelQueues.get(model) ?? [];
			q.push(...replies);
			modelQueues.set(model, q);
		},
		setDefaultFor: (model, h) => {
			if (h) modelFallbacks.set(model, h);
			else modelFallbacks.delete(model);
		},
		setModels: (m) => {
			models = m;
		},
		remaining: () => queue.length + [...modelQueues.values()].reduce((n, q) => n + q.length, 0),
		assertNoUnexpected: () => {
			const bad = requests.filter((r) => r.unexpected);
			if (bad.length > 0) {
				throw new Error(
					`${bad.length} unexpected call(s) to the test OpenAI server: ${bad.map((r) => `${r.method} ${r.path}`).join(', ')}`,
				);
			}
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
		moderationRequests: () => requests.filter((r) => r.path.endsWith('/moderations')),
		scriptModeration: (...replies) => {
			moderationQueue.push(...replies);
		},
		setModerationDefault: (h) => {
			moderationFallback = h;
		},
		embeddingRequests: () => requests.filter((r) => r.path.endsWith('/embeddings')),
		scriptEmbeddings: (...replies) => {
			embeddingQueue.push(...replies);
		},
		setEmbeddingDefault: (h) => {
			embeddingFallback = h;
		},
	};
}

/** Builders for the issue's fault modes. */
export const faults = {
	/** 429 with `Retry-After` (seconds). */
	rateLimited: (retryAfterSeconds = 0.01): ScriptedReply => ({
		status: 429,
		headers: { 'retry-after': String(retryAfterSeconds) },
		error: {
			message: 'Rate limit reached for requests',
			type: 'requests',
			code: 'rate_limit_exceeded',
		},
	}),
	serverError: (): ScriptedReply => ({
		status: 500,
		error: {
			message: 'The server had an error while processing your request.',
			type: 'server_error',
		},
	}),
	unavailable: (): ScriptedReply => ({
		status: 503,
		error: {
			message: 'The engine is currently overloaded, please try again later.',
			type: 'server_error',
		},
	}),
	/** 429 paced by OpenAI's rate-limit reset headers instead of Retry-After. */
	rateLimitedUntilReset: (reset = '20ms'): ScriptedReply => ({
		status: 429,
		headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': reset },
		error: { message: 'Rate limit reached for requests', type: 'requests', code: null },
	}),
	/** 429 with no hint of how long to wait. */
	rateLimitedNoWait: (): ScriptedReply => ({
		status: 429,
		error: { message: 'Rate limit reached for requests', type: 'requests', code: null },
	}),
	hang: (): ScriptedReply => ({ hang: true }),
	drop: (): ScriptedReply => ({ drop: true }),
	reset: (): ScriptedReply => ({ reset: true }),
	/** A 200 whose body stops mid-JSON (a proxy cut the reply). */
	truncatedBody: (): ScriptedReply => ({
		json: { reason: 'Supported by the context.', score: 4 },
		truncateBodyAt: 60,
	}),
	truncatedJson: (): ScriptedReply => ({
		content: '{"reason": "The answer restates the context and',
		finishReason: 'stop',
	}),
	schemaViolation: (): ScriptedReply => ({ json: { reason: 'looks fine', score: 'excellent' } }),
	outOfRange: (): ScriptedReply => ({ json: { reason: 'very good', score: 7 } }),
	refusal: (): ScriptedReply => ({
		content: null,
		refusal: "I'm sorry, I can't help with that request.",
	}),
	empty: (): ScriptedReply => ({ content: '' }),
	length: (): ScriptedReply => ({
		content: '{"reason": "The answer is partly supported because',
		finishReason: 'length',
	}),
	contentFilter: (): ScriptedReply => ({ content: null, finishReason: 'content_filter' }),
	insufficientQuota: (): ScriptedReply => ({
		status: 429,
		error: {
			message: 'You exceeded your current quota, please check your plan and billing details.',
			type: 'insufficient_quota',
			code: 'insufficient_quota',
		},
	}),
	/** 400 as returned by endpoints that do not support `response_format` json_schema. */
	responseFormatUnsupported: (kind = 'json_schema'): ScriptedReply => ({
		status: 400,
		error: {
			message: `Invalid parameter: 'response_format' of type '${kind}' is not supported with this model.`,
			type: 'invalid_request_error',
			code: null,
		},
	}),
};
