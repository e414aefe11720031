/**
 * The `fetch` the judges' `openai` SDK client sends its requests with: Node's `http.request` over
 * keep-alive agents, the whole reply read before the Response is made. The SDK stays the client:
 * it builds the URL, headers and JSON body, reads the reply, and maps statuses and errors as it
 * does over the platform `fetch`; this module only moves the bytes.
 *
 * Why: at 32 calls in flight a judge run in n8n is bound by its main thread, and undici's `fetch`
 * (request objects, web streams, its fetch algorithm) was the largest share of a call's
 * main-thread time. bench/n8n-scale at 2,000 rows x 2 judges, runs alternating: 9.0 s and 9.0 s
 * over the platform `fetch`, 8.0 s and 8.2 s over this one.
 *
 * Anything it does not cover goes to the platform `fetch` unchanged: a body that is not text or
 * bytes (a stream, a form), a URL that is not http(s), and every call while proxy variables are
 * set (`HTTP(S)_PROXY`, `NODE_USE_ENV_PROXY`: the platform `fetch` honours them, plain agents do
 * not). `RAG_EVAL_JUDGE_FETCH=platform` turns it off altogether.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as zlib from 'node:zlib';

// Free sockets are closed after 4 s: under the 5 s keep-alive timeout of Node servers and most
// proxies, so a socket the server is about to close is not picked for the next call.
const httpAgent = new http.Agent({ keepAlive: true, timeout: 4_000 });
const httpsAgent = new https.Agent({ keepAlive: true, timeout: 4_000 });

const PROXY_VARS = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NODE_USE_ENV_PROXY'];

/** Whether judge calls go over the platform `fetch` (see the module comment). */
export function usePlatformFetch(env: NodeJS.ProcessEnv = process.env): boolean {
	if ((env.RAG_EVAL_JUDGE_FETCH ?? '').trim().toLowerCase() === 'platform') return true;
	return PROXY_VARS.some((v) => (env[v] ?? '').trim() !== '');
}

function headerRecord(h: RequestInit['headers']): Record<string, string> {
	const out: Record<string, string> = {};
	if (!h) return out;
	// Headers (the SDK's), [name, value] pairs or a record, as fetch takes them.
	const all = h instanceof Headers ? h : new Headers(h as ConstructorParameters<typeof Headers>[0]);
	all.forEach((v, k) => (out[k] = v));
	return out;
}

function abortReason(signal: AbortSignal): unknown {
	const r: unknown = signal.reason;
	if (r instanceof Error && r.name === 'AbortError') return r;
	return new DOMException('This operation was aborted', 'AbortError');
}

/** The reply's bytes as the server meant them: gzip, deflate and br undone. */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
	switch ((encoding ?? '').trim().toLowerCase()) {
		case 'gzip':
		case 'x-gzip':
			return zlib.gunzipSync(body);
		case 'deflate':
			return zlib.inflateSync(body);
		case 'br':
			return zlib.brotliDecompressSync(body);
		default:
			return body;
	}
}

/** Statuses whose Response must have no body (the constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The SDK's Response from a whole reply: headers as sent, the body decoded. */
function response(res: http.IncomingMessage, chunks: Buffer[], method?: string): Response {
	const status = res.statusCode ?? 0;
	const encoding = res.headers['content-encoding'];
	const headers = new Headers();
	const raw = res.rawHeaders;
	for (let i = 0; i + 1 < raw.length; i += 2) {
		const name = raw[i].toLowerCase();
		// The body handed on is decoded: its length and encoding headers would lie.
		if (encoding && (name === 'content-encoding' || name === 'content-length')) continue;
		headers.append(raw[i], raw[i + 1]);
	}
	const body =
		NULL_BODY.has(status) || method === 'HEAD' ? null : decoded(Buffer.concat(chunks), encoding);
	return new Response(body, { status, statusText: res.statusMessage, headers });
}

/** A `fetch` for the SDK: see the module comment. */
export function judgeFetch(
	input: string | URL | Request,
	init: RequestInit = {},
): Promise<Response> {
	const body = init.body;
	const plainBody =
		body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
	const url =
		typeof input === 'string' ? new URL(input) : input instanceof URL ? input : new URL(input.url);
	if (
		!plainBody ||
		input instanceof Request ||
		(url.protocol !== 'http:' && url.protocol !== 'https:') ||
		usePlatformFetch()
	)
		return fetch(input, init);
	const signal = init.signal ?? undefined;
	if (signal?.aborted) return Promise.reject(abortReason(signal));
	return new Promise<Response>((resolve, reject) => {
		let settled = false;
		// As the platform fetch rejects: AbortError once aborted, else a TypeError whose cause is
		// what went wrong (the socket's error and its code, a body that does not decode).
		const fail = (cause: unknown): void => {
			if (settled) return;
			settled = true;
			reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause }));
		};
		const secure = url.protocol === 'https:';
		const req = (secure ? https : http).request(
			url,
			{
				method: init.method ?? 'GET',
				headers: headerRecord(init.headers),
				agent: secure ? httpsAgent : httpAgent,
				signal,
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('error', fail);
				res.on('end', () => {
					if (settled) return;
					let made: Response;
					try {
						made = response(res, chunks, init.method);
					} catch (e) {
						// A body that does not decode, or a reply the Response constructor refuses.
						fail(e);
						return;
					}
					settled = true;
					resolve(made);
				});
				// Closed before the end (the socket dropped mid-reply): an error, never a short body.
				res.on('close', () => {
					if (!res.complete)
						fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
				});
			},
		);
		req.on('error', fail);
		req.end(body ?? undefined);
	});
}
