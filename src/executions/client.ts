/**
 * A small client of n8n's public REST API (`/api/v1`) for what Eval Executions needs: the
 * monitored workflow, its executions page by page (`GET /executions`, newest first, `nextCursor`)
 * and single executions. The key travels in the `X-N8N-API-KEY` header, as n8n's own `n8nApi`
 * credential sends it, and never appears in an error: errors name the host and path only.
 */

/** What went wrong talking to the API, by cause. */
export type ApiErrorKind = 'auth' | 'not_found' | 'network' | 'http' | 'bad_response';

/** A failed API call; the message names the host and path, never the key. */
export class N8nApiError extends Error {
	constructor(
		readonly kind: ApiErrorKind,
		message: string,
		readonly status?: number,
	) {
		super(message);
		this.name = 'N8nApiError';
	}
}

/** An execution as the public API returns it (only the fields we read are typed). */
export interface ApiExecution {
	id: string | number;
	status?: string;
	mode?: string;
	finished?: boolean;
	startedAt?: string | null;
	stoppedAt?: string | null;
	workflowId?: string | number;
	data?: unknown;
	workflowData?: unknown;
	dataTooLargeToDisplay?: boolean;
	[key: string]: unknown;
}

/** One page of `GET /executions`. */
export interface ExecutionPage {
	data: ApiExecution[];
	nextCursor: string | null;
	/** Bytes of the response body, for the bench and the run's account. */
	bytes: number;
}

export interface ListQuery {
	workflowId: string;
	/** One status to filter by on the server (the API takes one); several are filtered here. */
	status?: string;
	includeData: boolean;
	/** 1..250 (the API's maximum). */
	limit: number;
	cursor?: string;
	/** ISO time: only executions started after it (n8n 2.x). */
	startedAfter?: string;
}

export interface ClientOptions {
	/** The API root, e.g. `http://localhost:5678/api/v1`. */
	baseUrl: string;
	apiKey: string;
	/** Milliseconds before a request is abandoned (default 60 s). */
	timeoutMs?: number;
	/** For tests: another fetch. */
	fetch?: typeof fetch;
}

/** The API's largest page. */
export const MAX_PAGE = 250;

/** `http://host:5678/api/v1` from what users type: a bare instance URL gets `/api/v1`. */
export function normaliseBaseUrl(raw: string): string {
	let url = raw.trim().replace(/\/+$/, '');
	if (url === '') throw new N8nApiError('http', 'the n8n API base URL is empty');
	if (!/^https?:\/\//i.test(url)) url = `http://${url}`;
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new N8nApiError('http', `the n8n API base URL "${raw}" is not a URL`);
	}
	if (!/\/api\/v\d+$/.test(parsed.pathname)) url = `${url}/api/v1`;
	return url;
}

/**
 * The base URL of this instance when the credential gives none: `N8N_EDITOR_BASE_URL` or
 * `WEBHOOK_URL` (both hold the instance's public URL), else `N8N_PROTOCOL://N8N_HOST:N8N_PORT`
 * (+ `N8N_PATH`), else `http://localhost:5678`, each with `/api/v1`.
 */
export function defaultBaseUrl(env: Record<string, string | undefined> = process.env): string {
	const root = env.N8N_EDITOR_BASE_URL || env.WEBHOOK_URL;
	if (root) return normaliseBaseUrl(root);
	const host = env.N8N_HOST && env.N8N_HOST !== '0.0.0.0' ? env.N8N_HOST : 'localhost';
	const protocol = env.N8N_PROTOCOL === 'https' ? 'https' : 'http';
	const port = env.N8N_PORT || '5678';
	const prefix = (env.N8N_PATH ?? '').replace(/^\/*/, '/').replace(/\/+$/, '');
	return normaliseBaseUrl(`${protocol}://${host}:${port}${prefix === '/' ? '' : prefix}`);
}

/** The instance's root (the base URL without `/api/v1`), for links to executions. */
export function instanceUrl(baseUrl: string): string {
	return baseUrl.replace(/\/api\/v\d+$/, '');
}

export class N8nApiClient {
	readonly baseUrl: string;
	private readonly apiKey: string;
	private readonly timeoutMs: number;
	private readonly doFetch: typeof fetch;
	/** Requests made and response bytes read, for the run's account. */
	requests = 0;
	bytes = 0;

	constructor(options: ClientOptions) {
		this.baseUrl = normaliseBaseUrl(options.baseUrl);
		this.apiKey = options.apiKey;
		this.timeoutMs = options.timeoutMs ?? 60_000;
		this.doFetch = options.fetch ?? fetch;
	}

	/** Where a request went, for messages: host and path, never a query's secrets or the key. */
	private where(path: string): string {
		const u = new URL(this.baseUrl + path);
		return `${u.host}${u.pathname}`;
	}

	private async get(path: string): Promise<{ body: unknown; bytes: number }> {
		const url = this.baseUrl + path;
		const where = this.where(path);
		let res: Response;
		try {
			res = await this.doFetch(url, {
				headers: { 'X-N8N-API-KEY': this.apiKey, accept: 'application/json' },
				signal: AbortSignal.timeout(this.timeoutMs),
			});
		} catch (e) {
			const cause = (e as { cause?: { code?: string; message?: string } }).cause;
			const why =
				(e as Error).name === 'TimeoutError'
					? `no answer within ${Math.round(this.timeoutMs / 1000)} s`
					: (cause?.code ?? cause?.message ?? (e as Error).message);
			throw new N8nApiError('network', `could not reach the n8n API at ${where}: ${why}`);
		}
		this.requests++;
		const text = await res.text();
		const bytes = Buffer.byteLength(text);
		this.bytes += bytes;
		if (res.status === 401 || res.status === 403) {
			throw new N8nApiError(
				'auth',
				`the n8n API key was refused by ${where} (HTTP ${res.status}); check the n8n API credential: create a key under Settings > n8n API and make sure it may read workflows and executions`,
				res.status,
			);
		}
		if (res.status === 404) throw new N8nApiError('not_found', `${where}: not found`, 404);
		if (!res.ok) {
			let detail = '';
			try {
				const b = JSON.parse(text) as { message?: unknown };
				if (typeof b.message === 'string') detail = `: ${b.message.slice(0, 300)}`;
			} catch {
				// not JSON: the status says enough
			}
			throw new N8nApiError(
				'http',
				`the n8n API at ${where} answered HTTP ${res.status}${detail}`,
				res.status,
			);
		}
		try {
			return { body: JSON.parse(text) as unknown, bytes };
		} catch {
			throw new N8nApiError(
				'bad_response',
				`the n8n API at ${where} answered something that is not JSON (is the base URL the API's, ending in /api/v1?)`,
			);
		}
	}

	/** The workflow (`GET /workflows/{id}`); a missing or deleted one fails with `not_found`. */
	async getWorkflow(id: string): Promise<{ id: string; name?: string; settings?: unknown }> {
		try {
			const { body } = await this.get(`/workflows/${encodeURIComponent(id)}`);
			return body as { id: string; name?: string };
		} catch (e) {
			if (e instanceof N8nApiError && e.kind === 'not_found')
				throw new N8nApiError(
					'not_found',
					`workflow "${id}" was not found at ${this.where('/workflows')} (deleted, archived away, or not shared with the API key's owner)`,
					404,
				);
			throw e;
		}
	}

	/** Workflows for a picker: id and name, one page. */
	async listWorkflows(
		cursor?: string,
	): Promise<{ data: { id: string; name: string }[]; nextCursor: string | null }> {
		const q = new URLSearchParams({ limit: String(MAX_PAGE) });
		if (cursor) q.set('cursor', cursor);
		const { body } = await this.get(`/workflows?${q.toString()}`);
		const b = body as { data?: { id: string; name: string }[]; nextCursor?: string | null };
		return { data: Array.isArray(b.data) ? b.data : [], nextCursor: b.nextCursor ?? null };
	}

	/** One page of executions, newest first. */
	async listExecutions(query: ListQuery): Promise<ExecutionPage> {
		const q = new URLSearchParams({
			workflowId: query.workflowId,
			includeData: String(query.includeData),
			limit: String(Math.max(1, Math.min(MAX_PAGE, Math.floor(query.limit)))),
		});
		if (query.status) q.set('status', query.status);
		if (query.cursor) q.set('cursor', query.cursor);
		if (query.startedAfter) q.set('startedAfter', query.startedAfter);
		const { body, bytes } = await this.get(`/executions?${q.toString()}`);
		const b = body as { data?: unknown; nextCursor?: unknown };
		if (!b || !Array.isArray(b.data))
			throw new N8nApiError(
				'bad_response',
				`the n8n API at ${this.where('/executions')} answered without a data list`,
			);
		return {
			data: b.data as ApiExecution[],
			nextCursor: typeof b.nextCursor === 'string' && b.nextCursor !== '' ? b.nextCursor : null,
			bytes,
		};
	}

	/** One execution; `undefined` when it is gone (pruned or deleted). */
	async getExecution(id: string, includeData: boolean): Promise<ApiExecution | undefined> {
		try {
			const { body } = await this.get(
				`/executions/${encodeURIComponent(id)}?includeData=${String(includeData)}`,
			);
			return body as ApiExecution;
		} catch (e) {
			if (e instanceof N8nApiError && e.kind === 'not_found') return undefined;
			throw e;
		}
	}
}
