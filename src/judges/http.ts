/**
 * One JSON POST over `node:http` / `node:https`, for the judge's chat calls: the hot path of a
 * run (thousands of calls a node). The `openai` SDK's path through `fetch` (undici, web streams,
 * header objects, its request logging) cost ~0.35 ms of main-thread CPU a call, against ~0.1 ms
 * here. Requests go through the process's global agents, which keep connections alive and which
 * n8n replaces by its proxy agents when HTTP_PROXY / HTTPS_PROXY are set (the SDK's `fetch` does
 * not read them).
 */
import * as http from 'node:http';
import * as https from 'node:https';

/** What came back: the status, the headers (lower-case names, one value each) and the body. */
export interface HttpReply {
	status: number;
	headers: Record<string, string>;
	body: string;
}

/** A failure before a complete reply: the Node error (its code, e.g. ECONNRESET) as the cause. */
export class HttpConnectionError extends Error {
	constructor(readonly cause: Error) {
		super(`connection failed: ${cause.message}`);
		this.name = 'HttpConnectionError';
	}
}

/**
 * POSTs `body` to `url`. Rejects with the request's AbortError when `signal` fires, with an
 * {@link HttpConnectionError} for anything else that ended the exchange early.
 */
export function postJson(
	url: URL,
	headers: Record<string, string>,
	body: string,
	signal?: AbortSignal,
): Promise<HttpReply> {
	return new Promise<HttpReply>((resolve, reject) => {
		const payload = Buffer.from(body, 'utf8');
		const lib = url.protocol === 'https:' ? https : http;
		const fail = (e: Error): void => {
			reject(e.name === 'AbortError' || signal?.aborted ? e : new HttpConnectionError(e));
		};
		const req = lib.request(url, {
			method: 'POST',
			headers: { ...headers, 'content-length': String(payload.length) },
			signal,
		});
		req.on('response', (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('error', fail);
			res.on('end', () => {
				const flat: Record<string, string> = {};
				for (const [k, v] of Object.entries(res.headers)) {
					if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
				}
				resolve({
					status: res.statusCode ?? 0,
					headers: flat,
					body: Buffer.concat(chunks).toString('utf8'),
				});
			});
		});
		req.on('error', fail);
		req.end(payload);
	});
}
