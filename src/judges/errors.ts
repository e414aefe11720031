/**
 * Error types shared by the model sources, the governor and the judge runner. Every message that
 * leaves this module has been passed through `redact`, so keys never reach scores or logs.
 */

/** How the governor must treat a failed call. */
export type ModelErrorKind =
	| 'rate_limit'
	| 'server'
	| 'connection'
	| 'timeout'
	| 'bad_request'
	| 'response_format_unsupported'
	| 'fatal'
	| 'aborted';

/** A failed model call, classified for retry decisions, with a readable secret-free message. */
export class ModelCallError extends Error {
	readonly kind: ModelErrorKind;
	readonly status?: number;
	/** Server-requested wait before the next attempt (Retry-After and rate-limit headers). */
	readonly retryAfterMs?: number;
	/** Attempts made before giving up; set by the governor. */
	attempts?: number;

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
