/**
 * The judges' fetch (src/judges/transport.ts) against a local HTTP server: what the SDK needs of a
 * fetch (status, headers, body both ways, aborts, errors with their cause) and what it adds
 * (keep-alive sockets, decoded replies, never a short body, the platform fetch where it cannot go).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { judgeFetch, usePlatformFetch } from '../../../src/judges/transport';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let handler: Handler;
const ports: number[] = [];

beforeAll(async () => {
	server = http.createServer((req, res) => {
		ports.push(req.socket.remotePort ?? 0);
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((r) => server.close(r));
});
beforeEach(() => {
	ports.length = 0;
});

describe('judgeFetch', () => {
	it('sends the method, headers and body and returns status, headers and body', async () => {
		let seen: { method?: string; auth?: string; type?: string; body?: string } = {};
		handler = (req, body, res) => {
			seen = {
				method: req.method,
				auth: req.headers.authorization,
				type: req.headers['content-type'],
				body,
			};
			res.setHeader('x-ratelimit-remaining-requests', '41');
			res.setHeader('set-cookie', ['a=1', 'b=2']);
			res.writeHead(201, 'Made', { 'content-type': 'application/json' });
			res.end('{"ok":true,"text":"ü"}');
		};
		const headers = new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' });
		const r = await judgeFetch(`${base}/v1/chat/completions`, {
			method: 'POST',
			headers,
			body: JSON.stringify({ model: 'm' }),
		});
		expect(seen).toEqual({
			method: 'POST',
			auth: 'Bearer k',
			type: 'application/json',
			body: '{"model":"m"}',
		});
		expect(r.status).toBe(201);
		expect(r.ok).toBe(true);
		expect(r.statusText).toBe('Made');
		expect(r.headers.get('x-ratelimit-remaining-requests')).toBe('41');
		expect(r.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
		expect(await r.json()).toEqual({ ok: true, text: 'ü' });
	});

	it('keeps the connection alive between calls', async () => {
		handler = (_req, _body, res) => res.end('{}');
		for (let i = 0; i < 3; i++)
			await (await judgeFetch(`${base}/a`, { method: 'POST', body: '{}' })).text();
		expect(ports).toHaveLength(3);
		expect(new Set(ports).size).toBe(1);
	});

	it('hands on an error status with its body (the SDK reads it)', async () => {
		handler = (_req, _body, res) => {
			res.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' });
			res.end('{"error":{"message":"slow down"}}');
		};
		const r = await judgeFetch(`${base}/x`, { method: 'POST', body: '{}' });
		expect(r.status).toBe(429);
		expect(r.headers.get('retry-after')).toBe('2');
		expect(await r.json()).toEqual({ error: { message: 'slow down' } });
	});

	it('decodes a gzip reply and drops the headers that described the encoded bytes', async () => {
		const zipped = gzipSync(Buffer.from('{"gz":1}'));
		handler = (_req, _body, res) => {
			res.writeHead(200, {
				'content-encoding': 'gzip',
				'content-length': String(zipped.length),
				'content-type': 'application/json',
			});
			res.end(zipped);
		};
		const r = await judgeFetch(`${base}/gz`);
		expect(r.headers.get('content-encoding')).toBeNull();
		expect(r.headers.get('content-length')).toBeNull();
		expect(await r.json()).toEqual({ gz: 1 });
	});

	it('a body that does not decode is an error with the zlib cause', async () => {
		handler = (_req, _body, res) => {
			res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
			res.end('{"not":"gzip"}');
		};
		const err = (await judgeFetch(`${base}/bad`).catch((e: unknown) => e)) as TypeError & {
			cause?: { code?: string };
		};
		expect(err).toBeInstanceOf(TypeError);
		expect(err.message).toBe('fetch failed');
		expect(err.cause?.code).toBe('Z_DATA_ERROR');
	});

	it('a 205 with a body is handed on without it (a Response may not carry one)', async () => {
		handler = (_req, _body, res) => {
			res.writeHead(205, { 'content-type': 'text/plain' });
			res.end('ignored');
		};
		const r = await judgeFetch(`${base}/reset-content`, { method: 'POST', body: '{}' });
		expect(r.status).toBe(205);
		expect(r.body).toBeNull();
	});

	it('a 204 has no body', async () => {
		handler = (_req, _body, res) => {
			res.writeHead(204);
			res.end();
		};
		const r = await judgeFetch(`${base}/none`, { method: 'DELETE' });
		expect(r.status).toBe(204);
		expect(r.body).toBeNull();
	});

	it('rejects with an AbortError when aborted before or while waiting', async () => {
		handler = () => undefined; // never answers
		const before = new AbortController();
		before.abort();
		await expect(judgeFetch(`${base}/hang`, { signal: before.signal })).rejects.toMatchObject({
			name: 'AbortError',
		});
		const during = new AbortController();
		const call = judgeFetch(`${base}/hang`, { method: 'POST', body: '{}', signal: during.signal });
		setTimeout(() => during.abort(), 20);
		await expect(call).rejects.toMatchObject({ name: 'AbortError' });
	});

	it('a reply cut off mid-body is an error with the socket cause, never a short body', async () => {
		handler = (_req, _body, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
			res.write('{"partial":');
			setTimeout(() => res.socket?.destroy(), 10);
		};
		const err = (await judgeFetch(`${base}/cut`).catch((e: unknown) => e)) as TypeError & {
			cause?: { code?: string };
		};
		expect(err).toBeInstanceOf(TypeError);
		expect(err.message).toBe('fetch failed');
		expect(err.cause?.code).toBe('ECONNRESET');
	});

	it('a refused connection rejects as the platform fetch does: fetch failed, cause ECONNREFUSED', async () => {
		const closed = http.createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((r) => closed.close(r));
		const err = (await judgeFetch(`http://127.0.0.1:${port}/`).catch(
			(e: unknown) => e,
		)) as TypeError & {
			cause?: { code?: string };
		};
		expect(err.message).toBe('fetch failed');
		expect(err.cause?.code).toBe('ECONNREFUSED');
	});

	it('a streamed body goes to the platform fetch and still arrives', async () => {
		let got = '';
		handler = (_req, body, res) => {
			got = body;
			res.end('{}');
		};
		const stream = new ReadableStream({
			start(c) {
				c.enqueue(new TextEncoder().encode('streamed'));
				c.close();
			},
		});
		const r = await judgeFetch(`${base}/s`, {
			method: 'POST',
			body: stream,
			duplex: 'half',
		} as RequestInit);
		expect(r.status).toBe(200);
		expect(got).toBe('streamed');
	});
});

describe('usePlatformFetch', () => {
	it('is on when a proxy variable is set or RAG_EVAL_JUDGE_FETCH=platform, else off', () => {
		expect(usePlatformFetch({})).toBe(false);
		expect(usePlatformFetch({ HTTPS_PROXY: 'http://proxy:3128' })).toBe(true);
		expect(usePlatformFetch({ http_proxy: 'http://proxy:3128' })).toBe(true);
		expect(usePlatformFetch({ NODE_USE_ENV_PROXY: '1' })).toBe(true);
		expect(usePlatformFetch({ HTTP_PROXY: '  ' })).toBe(false);
		expect(usePlatformFetch({ RAG_EVAL_JUDGE_FETCH: 'platform' })).toBe(true);
		expect(usePlatformFetch({ RAG_EVAL_JUDGE_FETCH: 'node' })).toBe(false);
	});
});
