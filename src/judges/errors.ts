/**
 * Error types shared by the model sources, the governor and the judge runner. Every message that
 * leaves this module has been passed through `redact`, so keys never reach scores or logs.
 */
import type { CallCost } from '../core/usage';

/** How the governor must treat a failed call. */
export type ModelErrorKind =
	| 'rate_limit'
	| 'server'
	| 'connection'
	| 'timeout'
	| 'bad_request'
	| 'response_format_unsupported'
	| 'fatal'
	| 'aborted'
	/** The circuit breaker is open for the endpoint+model: no call was made. */
	| 'unavailable'
	/** The row's or the node's deadline passed before the judge answered. */
	| 'deadline'
	/** The node's spend limit was reached: the call was not made (`src/judges/spend.ts`). */
	| 'spend_limit'
	/** Estimate-only mode: the call was rendered and counted, never sent (`src/judges/estimate.ts`). */
	| 'not_called';

/** A failed model call, classified for retry decisions, with a readable secret-free message. */
export class ModelCallError extends Error {
	readonly kind: ModelErrorKind;
	readonly status?: number;
	/** Server-requested wait before the next attempt (Retry-After and rate-limit headers). */
	readonly retryAfterMs?: number;
	/** Attempts made before giving up; set by the governor. */
	attempts?: number;
	/**
	 * What the failed evaluation cost (tokens, model, attempts), when the thrower knows: a safety
	 * backend whose judge answered but unusably still spent the tokens.
	 */
	cost?: CallCost;

	constructor(
		kind: ModelErrorKind,
		message: string,
		opts: { status?: number; retryAfterMs?: number } = {},
	) {
		super(message);
		this.name = 'ModelCallError';
		this.kind = kind;
		this.status = opts.status;
		this.retryAfterMs = opts.retryAfterMs;
	}

	/** Whether another attempt may succeed (429, 5xx, resets, timeouts). */
	get retryable(): boolean {
		return (
			this.kind === 'rate_limit' ||
			this.kind === 'server' ||
			this.kind === 'connection' ||
			this.kind === 'timeout'
		);
	}

	/** Whether every later call with the same credential+model would fail the same way. */
	get fatal(): boolean {
		return this.kind === 'fatal';
	}

	/** A rate limit with a server-given wait: retried until the row's deadline, not counted. */
	get paced(): boolean {
		return this.kind === 'rate_limit' && this.retryAfterMs !== undefined;
	}
}

/** Node/undici error codes of the `cause` chain, with what they mean to a user. */
const CAUSES: Record<string, string> = {
	ECONNREFUSED: 'connection refused: nothing listens at that host and port',
	ECONNRESET: 'connection reset by the server',
	UND_ERR_SOCKET: 'the server closed the connection before answering',
	EPIPE: 'the server closed the connection while the request was sent',
	ETIMEDOUT: 'connecting timed out',
	UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
	UND_ERR_HEADERS_TIMEOUT: 'the server sent no response headers in time',
	UND_ERR_BODY_TIMEOUT: 'the server stopped sending the response body',
	ENOTFOUND: 'DNS lookup failed: no such host',
	EAI_AGAIN: 'DNS lookup failed temporarily',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'network unreachable',
};

/** TLS failures that no retry fixes: the certificate or the protocol is wrong. */
const TLS_CODE =
	/^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|ERR_TLS_|ERR_SSL_|EPROTO$|HOSTNAME_MISMATCH)/;

/** The first error code (and its message) found along an error's `cause` chain. */
function codeInChain(err: unknown): { code?: string; message?: string } {
	let cur: unknown = err;
	let message: string | undefined;
	for (let depth = 0; depth < 8 && typeof cur === 'object' && cur !== null; depth++) {
		const e = cur as { code?: unknown; message?: unknown; cause?: unknown };
		if (typeof e.message === 'string' && e.message !== '') message = e.message;
		if (typeof e.code === 'string' && e.code !== '') return { code: e.code, message };
		cur = e.cause;
	}
	return { message };
}

/**
 * Names the cause of a connection failure from the `cause` chain (`fetch failed` alone says
 * nothing): ECONNRESET, ECONNREFUSED, DNS and TLS codes. TLS certificate/protocol errors and
 * unknown hosts are `fatal` (a retry cannot fix a wrong URL or certificate); the rest retryable.
 */
export function connectionError(
	err: unknown,
	secrets: ReadonlyArray<string | undefined> = [],
): ModelCallError {
	const { code, message } = codeInChain(err);
	const tls = code !== undefined && TLS_CODE.test(code);
	let what: string;
	if (code === undefined) what = message ?? 'unknown cause';
	else if (tls)
		what = `${code} (TLS handshake failed: check the base URL's scheme and the server certificate)`;
	// node:http reports a socket closed before any reply as ECONNRESET "socket hang up".
	else if (code === 'ECONNRESET' && /socket hang up/i.test(message ?? ''))
		what = `${code} (${CAUSES.UND_ERR_SOCKET})`;
	else what = `${code} (${CAUSES[code] ?? firstLine(message ?? 'no detail')})`;
	const text = redact(`connection to the judge model failed: ${what}`, secrets);
	if (tls || code === 'ENOTFOUND')
		return new ModelCallError('fatal', `${text}. Check the base URL of the judge credential.`);
	return new ModelCallError('connection', text);
}

function firstLine(s: string): string {
	return s.split('\n')[0].trim();
}

const KEY_LIKE = /\bsk-[A-Za-z0-9_\-*.]{8,}/g;
const BEARER = /Bearer\s+[A-Za-z0-9_\-.~+/=*]+/gi;
const OPENAI_KEY_ECHO = /(Incorrect API key provided:)\s*\S+/gi;

/**
 * Removes secrets from a message: the exact key values given, anything shaped like an API key or
 * bearer token, and the key echo in OpenAI's 401 message (which shows a masked key prefix/suffix).
 */
export function redact(message: string, secrets: ReadonlyArray<string | undefined> = []): string {
	let out = message;
	for (const secret of secrets) {
		if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
	}
	return out
		.replace(OPENAI_KEY_ECHO, '$1 [redacted]')
		.replace(BEARER, 'Bearer [redacted]')
		.replace(KEY_LIKE, '[redacted]');
}

/** Parses `Retry-After` (seconds or HTTP date), `retry-after-ms` and `x-ratelimit-reset-*`. */
export function retryAfterFromHeaders(
	get: (name: string) => string | null | undefined,
	now: number = Date.now(),
): number | undefined {
	const ms = get('retry-after-ms');
	if (ms != null && ms.trim() !== '') {
		const n = Number(ms);
		if (Number.isFinite(n) && n >= 0) return n;
	}
	const ra = get('retry-after');
	if (ra != null && ra.trim() !== '') {
		const secs = Number(ra);
		if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
		const date = Date.parse(ra);
		if (!Number.isNaN(date)) return Math.max(0, date - now);
	}
	// OpenAI's reset headers are durations like "1s", "6m0s", "20ms"; the longer of the two wins
	// because both budgets must have recovered before the call can succeed.
	let best: number | undefined;
	for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
		const v = get(name);
		if (v == null) continue;
		const d = parseDuration(v);
		if (d !== undefined) best = best === undefined ? d : Math.max(best, d);
	}
	return best;
}

/** Parses Go-style durations ("1h2m3.5s", "20ms") or a bare number of seconds. */
export function parseDuration(text: string): number | undefined {
	const t = text.trim();
	if (t === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
	const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
	let total = 0;
	let consumed = 0;
	let m: RegExpExecArray | null;
	while ((m = re.exec(t)) !== null) {
		const n = Number(m[1]);
		const unit = m[2];
		total += unit === 'h' ? n * 3600000 : unit === 'm' ? n * 60000 : unit === 's' ? n * 1000 : n;
		consumed += m[0].length;
	}
	return consumed === t.length ? total : undefined;
}

/** A store's error (Redis, disk) for a message: at most 300 characters, no URL password. */
export function storeErrorText(e: unknown): string {
	const err = e as { code?: unknown; message?: unknown };
	const msg = typeof err?.message === 'string' ? err.message : String(e);
	// A Redis URL may carry a password: never let one reach a Score.
	return msg.replace(/\/\/[^@\s/]*@/g, '//***@').slice(0, 300);
}
