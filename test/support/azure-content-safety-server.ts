/**
 * A local Azure AI Content Safety server for backend tests: `node:http` on 127.0.0.1 with a random
 * port, serving the four text operations we call with the service's request checks and reply
 * shapes (text:analyze, text:detectProtectedMaterial, text:shieldPrompt, text:detectGroundedness),
 * its error body `{"error":{"code","message"}}`, a key check on `Ocp-Apim-Subscription-Key`,
 * scripted replies and faults per route, and recorded requests. A call with nothing scripted and no
 * default answers 500 and is recorded as unexpected, so `assertNoUnexpected()` fails the test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The operations served, by the name after `text:` in the path. */
export type AzureRoute =
	| 'analyze'
	| 'detectProtectedMaterial'
	| 'shieldPrompt'
	| 'detectGroundedness';

/** One request as the server saw it. */
export interface AzureRecordedRequest {
	method: string;
	path: string;
	route?: AzureRoute;
	apiVersion?: string;
	headers: Record<string, string>;
	rawBody: string;
	body: Record<string, unknown> | undefined;
	unexpected: boolean;
}

/** What the server answers to one call. */
export interface AzureReply {
	/** Success body (the operation's JSON); ignored when `status` is an error or `rawBody` is set. */
	body?: unknown;
	status?: number;
	/** Error body `{error:{code,message}}` sent with a non-2xx status. */
	error?: { code: string; message: string };
	headers?: Record<string, string>;
	/** Send this text verbatim (a malformed or cut-off body). */
	rawBody?: string;
	delayMs?: number;
	/** Never answer (until the client gives up or the server closes). */
	hang?: boolean;
	/** Reset the TCP connection without answering. */
	reset?: boolean;
}

/** A reply, or a function computing it from the request. */
export type AzureHandler = (req: AzureRecordedRequest) => AzureReply | Promise<AzureReply>;

/** Handle on a running server. */
export interface AzureContentSafetyServer {
	/** `http://127.0.0.1:<port>`, the resource endpoint. */
	endpoint: string;
	/** The key the server accepts. */
	key: string;
	requests: AzureRecordedRequest[];
	/** Recorded requests of one operation. */
	requestsTo(route: AzureRoute): AzureRecordedRequest[];
	/** Queues replies for the next calls of one operation, consumed in order. */
	script(route: AzureRoute, ...replies: Array<AzureReply | AzureHandler>): void;
	/** Answers an operation once its script is empty; `null` removes it. */
	setDefault(route: AzureRoute, handler: AzureHandler | null): void;
	remaining(route: AzureRoute): number;
	assertNoUnexpected(): void;
	close(): Promise<void>;
}

const ROUTES: ReadonlyArray<AzureRoute> = [
	'analyze',
	'detectProtectedMaterial',
	'shieldPrompt',
	'detectGroundedness',
];

/** api-versions the server knows per operation, as the service would (unknown -> 404). */
const VERSIONS: Record<AzureRoute, ReadonlyArray<string>> = {
	analyze: ['2023-10-01', '2024-09-01'],
	detectProtectedMaterial: ['2024-09-01'],
	shieldPrompt: ['2024-09-01'],
	detectGroundedness: ['2024-02-15-preview', '2024-09-15-preview'],
};

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function send(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
	res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function azureError(code: string, message: string): { error: Record<string, unknown> } {
	return { error: { code, message, details: [] } };
}

function len(s: unknown): number {
	return typeof s === 'string' ? Array.from(s).length : 0;
}

/** The service's own request checks: a 400 body, or null when the request is well formed. */
function invalid(route: AzureRoute, b: Record<string, unknown> | undefined): string | null {
	if (!b) return 'The request body is not valid JSON.';
	if (route === 'analyze') {
		if (typeof b.text !== 'string' || b.text === '') return 'Text is required.';
		if (len(b.text) > 10_000) return 'Text length exceeds the limit of 10000 characters.';
		if (
			b.outputType !== undefined &&
			!['FourSeverityLevels', 'EightSeverityLevels'].includes(String(b.outputType))
		)
			return 'Invalid outputType.';
	}
	if (route === 'detectProtectedMaterial') {
		if (typeof b.text !== 'string' || b.text === '') return 'Text is required.';
		if (len(b.text) > 1_000) return 'Text length exceeds the limit of 1000 characters.';
	}
	if (route === 'shieldPrompt') {
		if (b.userPrompt !== undefined && typeof b.userPrompt !== 'string')
			return 'Invalid userPrompt.';
		if (b.documents !== undefined && !Array.isArray(b.documents)) return 'Invalid documents.';
	}
	if (route === 'detectGroundedness') {
		if (typeof b.text !== 'string' || b.text === '') return 'Text is required.';
		if (!Array.isArray(b.groundingSources) || b.groundingSources.length === 0)
			return 'GroundingSources is required.';
		if (b.task === 'QnA' && typeof (b.qna as { query?: unknown } | undefined)?.query !== 'string')
			return 'Query is required for the QnA task.';
	}
	return null;
}

/** Starts a server on 127.0.0.1 with a random port, accepting `key`. */
export async function startAzureContentSafetyServer(
	key = 'azure-cs-test-key-9c1f4e7a',
): Promise<AzureContentSafetyServer> {
	const requests: AzureRecordedRequest[] = [];
	const queues = new Map<AzureRoute, Array<AzureReply | AzureHandler>>(ROUTES.map((r) => [r, []]));
	const defaults = new Map<AzureRoute, AzureHandler>();

	async function answer(res: ServerResponse, reply: AzureReply): Promise<void> {
		if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
		if (reply.hang) return;
		if (reply.reset) {
			res.socket?.resetAndDestroy();
			return;
		}
		const status = reply.status ?? 200;
		if (reply.rawBody !== undefined) return send(res, status, reply.rawBody, reply.headers);
		if (status >= 300) {
			const e = reply.error ?? { code: String(status), message: `status ${status}` };
			return send(res, status, azureError(e.code, e.message), reply.headers);
		}
		send(res, status, reply.body ?? {}, reply.headers);
	}

	const server = createServer((req, res) => {
		void (async () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const rawBody = await readBody(req);
			let body: Record<string, unknown> | undefined;
			try {
				const parsed: unknown = rawBody === '' ? undefined : JSON.parse(rawBody);
				body =
					typeof parsed === 'object' && parsed !== null
						? (parsed as Record<string, unknown>)
						: undefined;
			} catch {
				body = undefined;
			}
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(req.headers))
				headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
			const m = /^\/contentsafety\/text:([A-Za-z]+)$/.exec(url.pathname);
			const route = m && (ROUTES as string[]).includes(m[1]) ? (m[1] as AzureRoute) : undefined;
			const rec: AzureRecordedRequest = {
				method: req.method ?? 'GET',
				path: url.pathname,
				route,
				apiVersion: url.searchParams.get('api-version') ?? undefined,
				headers,
				rawBody,
				body,
				unexpected: false,
			};
			requests.push(rec);
			if (!route || req.method !== 'POST') {
				rec.unexpected = true;
				return send(res, 404, azureError('NotFound', 'Resource not found'));
			}
			// The service checks the key before anything else.
			if (headers['ocp-apim-subscription-key'] !== key) {
				return send(
					res,
					401,
					azureError(
						'401',
						'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
					),
				);
			}
			if (!rec.apiVersion || !VERSIONS[route].includes(rec.apiVersion)) {
				return send(res, 404, azureError('404', 'Resource not found'));
			}
			const bad = invalid(route, body);
			if (bad) return send(res, 400, azureError('InvalidRequestBody', bad));
			const next = queues.get(route)!.shift() ?? defaults.get(route);
			if (!next) {
				rec.unexpected = true;
				return send(
					res,
					500,
					azureError('InternalServerError', 'unexpected call: nothing scripted'),
				);
			}
			return answer(res, typeof next === 'function' ? await next(rec) : next);
		})().catch((err: unknown) => {
			if (!res.headersSent) send(res, 500, azureError('InternalServerError', String(err)));
		});
	});
	server.keepAliveTimeout = 1000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		endpoint: `http://127.0.0.1:${port}`,
		key,
		requests,
		requestsTo: (route) => requests.filter((r) => r.route === route),
		script: (route, ...replies) => {
			queues.get(route)!.push(...replies);
		},
		setDefault: (route, handler) => {
			if (handler) defaults.set(route, handler);
			else defaults.delete(route);
		},
		remaining: (route) => queues.get(route)!.length,
		assertNoUnexpected: () => {
			const bad = requests.filter((r) => r.unexpected);
			if (bad.length > 0)
				throw new Error(
					`${bad.length} unexpected call(s) to the test Azure AI Content Safety server: ${bad.map((r) => `${r.method} ${r.path}`).join(', ')}`,
				);
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Success bodies in the service's shapes. */
export const azureReplies = {
	/** text:analyze with the given severities (absent requested categories answer 0). */
	analyze:
		(
			severities: Partial<Record<'Hate' | 'Sexual' | 'Violence' | 'SelfHarm', number>> = {},
		): AzureHandler =>
		(req) => {
			const asked = (req.body?.categories as string[] | undefined) ?? [
				'Hate',
				'SelfHarm',
				'Sexual',
				'Violence',
			];
			return {
				body: {
					blocklistsMatch: [],
					categoriesAnalysis: asked.map((category) => ({
						category,
						severity: severities[category as keyof typeof severities] ?? 0,
					})),
				},
			};
		},
	protectedMaterial: (detected: boolean): AzureReply => ({
		body: { protectedMaterialAnalysis: { detected } },
	}),
	shieldPrompt: (userPrompt: boolean, documents: boolean[]): AzureReply => ({
		body: {
			userPromptAnalysis: { attackDetected: userPrompt },
			documentsAnalysis: documents.map((attackDetected) => ({ attackDetected })),
		},
	}),
	groundedness: (ungroundedPercentage: number, spans: string[] = []): AzureReply => ({
		body: {
			ungroundedDetected: ungroundedPercentage > 0,
			ungroundedPercentage,
			ungroundedDetails: spans.map((text) => ({ text })),
		},
	}),
};

/** The faults of the issue, in the service's shapes. */
export const azureFaults = {
	unauthorized: (): AzureReply => ({
		status: 401,
		error: {
			code: '401',
			message:
				'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
		},
	}),
	rateLimited: (retryAfterSeconds = 0.01): AzureReply => ({
		status: 429,
		headers: { 'retry-after': String(retryAfterSeconds) },
		error: { code: '429', message: 'Rate limit is exceeded. Try again in 1 seconds.' },
	}),
	rateLimitedMs: (ms = 10): AzureReply => ({
		status: 429,
		headers: { 'retry-after-ms': String(ms) },
		error: { code: '429', message: 'Rate limit is exceeded.' },
	}),
	serverError: (): AzureReply => ({
		status: 500,
		error: { code: 'InternalServerError', message: 'An unexpected error occurred.' },
	}),
	malformed: (): AzureReply => ({ rawBody: '{"categoriesAnalysis": [{"category": "Hate", "sev' }),
	slow: (delayMs: number, reply: AzureReply): AzureReply => ({ ...reply, delayMs }),
	hang: (): AzureReply => ({ hang: true }),
	reset: (): AzureReply => ({ reset: true }),
};
