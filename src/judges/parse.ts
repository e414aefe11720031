/**
 * Reading the judge's reply: JSON (bare, fenced or embedded) or tagged text, validated with the
 * judge's zod schema. Harmless variants of a verdict (" 4 ", "4/5", "**4**", "Yes.") are
 * normalised; anything else is an error, never a made-up score.
 */
import { z } from 'zod';

function stripDecoration(s: string): string {
	return s
		.trim()
		.replace(/^[*_`"'\s]+|[*_`"'\s]+$/g, '')
		.replace(/[.!]+$/, '')
		.trim();
}

/** Normalises a 1-5 style score: numbers pass, " 4 ", "**4**", "4.", "4/5" (when /max) parse. */
export function normaliseScore(v: unknown, max: number): unknown {
	if (typeof v !== 'string') return v;
	const s = stripDecoration(v);
	const frac = /^(-?\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(s);
	if (frac) return Number(frac[2]) === max ? Number(frac[1]) : v;
	if (/^-?\d+(?:\.\d+)?$/.test(s)) return Number(s);
	return v;
}

/** Normalises a yes/no verdict: booleans and "Yes.", " no ", "**YES**" become 'yes' / 'no'. */
export function normaliseYesNo(v: unknown): unknown {
	if (typeof v === 'boolean') return v ? 'yes' : 'no';
	if (typeof v !== 'string') return v;
	const s = stripDecoration(v).toLowerCase();
	if (s === 'yes' || s === 'true') return 'yes';
	if (s === 'no' || s === 'false') return 'no';
	return v;
}

/**
 * A reply that is only "yes" or "no" (any case, with punctuation, quotes, emphasis or whitespace
 * around it): what a model answers when it follows a prompt asking for a bare YES/NO (the Spring AI
 * relevancy prompt, a MiniCheck model) instead of the structured output. Null for anything else,
 * a sentence that starts with yes included.
 */
export function bareYesNoReply(reply: string): boolean | null {
	const m = /^[\s\p{P}\p{S}]*(yes|no)[\s\p{P}\p{S}]*$/iu.exec(reply);
	return m ? m[1].toLowerCase() === 'yes' : null;
}

/** Zod type for an integer rating on [min, max] with harmless variants accepted. */
export function likertInt(min = 1, max = 5): z.ZodType<number, z.ZodTypeDef, unknown> {
	return z.preprocess((v) => normaliseScore(v, max), z.number().int().min(min).max(max));
}

/** Zod type for a yes/no verdict with harmless variants accepted. */
export function yesNo(): z.ZodType<'yes' | 'no', z.ZodTypeDef, unknown> {
	return z.preprocess(normaliseYesNo, z.enum(['yes', 'no']));
}

/** Zod type for a reason: a non-empty string. */
export function reasonText(): z.ZodString {
	return z.string().trim().min(1);
}

function stripFences(s: string): string {
	const m = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/.exec(s.trim());
	return m ? m[1] : s;
}

function tryJson(s: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(s) };
	} catch {
		return { ok: false };
	}
}

function escapeRe(s: string): string {
	return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Extracts a candidate object from a reply: whole-reply JSON, fenced JSON, the outermost
 * `{...}`, or `<key>value</key>` tags for the given keys (tag values parsed as JSON when they are).
 */
export function extractCandidate(content: string, keys: ReadonlyArray<string>): unknown {
	if (content.trim() === '') throw new Error('the judge model returned an empty reply');
	const text = stripFences(content.trim());
	const whole = tryJson(text);
	if (whole.ok && typeof whole.value === 'object' && whole.value !== null) return whole.value;
	const first = text.indexOf('{');
	const last = text.lastIndexOf('}');
	if (first >= 0 && last > first) {
		const inner = tryJson(text.slice(first, last + 1));
		if (inner.ok && typeof inner.value === 'object' && inner.value !== null) return inner.value;
	}
	const tagged: Record<string, unknown> = {};
	let found = 0;
	for (const key of keys) {
		const m = new RegExp(`<${escapeRe(key)}>([\\s\\S]*?)</${escapeRe(key)}>`, 'i').exec(text);
		if (!m) continue;
		found++;
		const raw = m[1].trim();
		const parsed = /^[[{]/.test(raw) ? tryJson(raw) : { ok: false as const };
		tagged[key] = parsed.ok ? parsed.value : raw;
	}
	if (found > 0) return tagged;
	throw new Error(
		whole.ok
			? 'the reply is JSON but not an object'
			: 'the reply is neither a JSON object nor tagged text (truncated or free-form)',
	);
}

/** Outcome of parsing one reply. */
export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses and validates a reply against the judge's schema, with a readable error on failure. */
export function parseReply<T>(
	content: string,
	schema: z.ZodType<T, z.ZodTypeDef, unknown>,
	keys: ReadonlyArray<string>,
): ParseOutcome<T> {
	let candidate: unknown;
	try {
		candidate = extractCandidate(content, keys);
	} catch (e) {
		return { ok: false, error: (e as Error).message };
	}
	const result = schema.safeParse(candidate);
	if (result.success) return { ok: true, value: result.data };
	const issues = result.error.issues
		.slice(0, 5)
		.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
		.join('; ');
	return { ok: false, error: `the reply does not match the expected output (${issues})` };
}

/** Keeps raw replies short in scores and errors. */
export function truncate(s: string, max = 1000): string {
	return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more chars]`;
}
