/**
 * When one tool call is the call another expected: names by n8n's tool-name rule, arguments by the
 * user's rules (exact; the expected keys only; keys ignored by glob; numbers within a tolerance;
 * text compared without case). Every difference is named by its key path, so the Tool Calls
 * details can say which argument was wrong and how.
 */
import type { ToolCall } from '../record/schema';
import { n8nToolName } from '../record/toolcalls';

/** How arguments are compared. */
export interface ArgumentRules {
	/** `exact`: same keys and values; `expected_keys`: the expected keys only; `names_only`: none. */
	mode: 'exact' | 'expected_keys' | 'names_only';
	/** Key names or dotted paths left out, as globs (`*` matches any run of characters). */
	ignore: RegExp[];
	/** Numbers match when at most this far apart. */
	tolerance: number;
	/** Text matches without regard to case. */
	caseInsensitive: boolean;
}

/** One way a call's arguments differ from the expected ones. */
export interface ArgumentDifference {
	/** Dotted key path (`filters.date`), `(arguments)` for the arguments as a whole. */
	key: string;
	why: 'missing' | 'unexpected' | 'different' | 'not_json';
	expected?: unknown;
	actual?: unknown;
}

/** A comma- or newline-separated glob list as patterns over key names and dotted paths. */
export function globsOf(text: string): RegExp[] {
	return text
		.split(/[,\n]/)
		.map((g) => g.trim())
		.filter((g) => g !== '')
		.map((g) => new RegExp(`^${g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));
}

/** The key under which two names compare: equal after n8n's tool-name rule. */
export function nameKey(name: string): string {
	return n8nToolName(name);
}

function isPlain(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function ignored(rules: ArgumentRules, key: string, path: string): boolean {
	return rules.ignore.some((g) => g.test(key) || g.test(path));
}

/** Whether two argument values match under the rules (objects recursively, in the rule's mode). */
export function valuesMatch(e: unknown, a: unknown, rules: ArgumentRules, path = ''): boolean {
	if (typeof e === 'number' && typeof a === 'number') return Math.abs(e - a) <= rules.tolerance;
	if (typeof e === 'string' && typeof a === 'string')
		return rules.caseInsensitive ? e.toLowerCase() === a.toLowerCase() : e === a;
	if (Array.isArray(e) && Array.isArray(a))
		return e.length === a.length && e.every((x, i) => valuesMatch(x, a[i], rules, `${path}[${i}]`));
	if (isPlain(e) && isPlain(a)) return objectDifferences(e, a, rules, path, 1).length === 0;
	return e === a;
}

function objectDifferences(
	e: Record<string, unknown>,
	a: Record<string, unknown>,
	rules: ArgumentRules,
	prefix: string,
	limit = Infinity,
): ArgumentDifference[] {
	const out: ArgumentDifference[] = [];
	for (const k of Object.keys(e)) {
		if (out.length >= limit) return out;
		const path = prefix ? `${prefix}.${k}` : k;
		if (ignored(rules, k, path)) continue;
		if (!(k in a) || a[k] === undefined) {
			out.push({ key: path, why: 'missing', expected: e[k] });
			continue;
		}
		const ev = e[k];
		const av = a[k];
		if (isPlain(ev) && isPlain(av)) {
			out.push(...objectDifferences(ev, av, rules, path, limit - out.length));
		} else if (!valuesMatch(ev, av, rules, path)) {
			out.push({ key: path, why: 'different', expected: ev, actual: av });
		}
	}
	if (rules.mode === 'exact') {
		for (const k of Object.keys(a)) {
			if (out.length >= limit) return out;
			const path = prefix ? `${prefix}.${k}` : k;
			if (k in e || a[k] === undefined || ignored(rules, k, path)) continue;
			out.push({ key: path, why: 'unexpected', actual: a[k] });
		}
	}
	return out;
}

/**
 * How `actual`'s arguments differ from `expected`'s; empty when they match. An expected call that
 * gives no arguments at all accepts any (a golden set may name only the tool). Arguments that are
 * not JSON compare as text; against expected JSON they are a `not_json` difference.
 */
export function argumentDifferences(
	expected: ToolCall,
	actual: ToolCall,
	rules: ArgumentRules,
	limit = Infinity,
): ArgumentDifference[] {
	if (rules.mode === 'names_only') return [];
	if (expected.arguments === undefined && expected.arguments_raw === undefined) return [];
	if (expected.arguments === undefined) {
		const e = expected.arguments_raw ?? '';
		const a =
			actual.arguments_raw ??
			(actual.arguments === undefined ? '' : JSON.stringify(actual.arguments));
		return valuesMatch(e, a, rules)
			? []
			: [{ key: '(arguments)', why: 'different', expected: e, actual: a }];
	}
	if (actual.arguments === undefined) {
		return actual.arguments_raw !== undefined
			? [
					{
						key: '(arguments)',
						why: 'not_json',
						expected: expected.arguments,
						actual: actual.arguments_raw,
					},
				]
			: isPlain(expected.arguments)
				? objectDifferences(expected.arguments, {}, rules, '', limit)
				: [{ key: '(arguments)', why: 'missing', expected: expected.arguments }];
	}
	if (isPlain(expected.arguments) && isPlain(actual.arguments))
		return objectDifferences(expected.arguments, actual.arguments, rules, '', limit);
	return valuesMatch(expected.arguments, actual.arguments, rules)
		? []
		: [
				{
					key: '(arguments)',
					why: 'different',
					expected: expected.arguments,
					actual: actual.arguments,
				},
			];
}

/** JSON with object keys sorted, for telling identical calls apart. */
export function stableText(v: unknown): string {
	if (Array.isArray(v)) return `[${v.map(stableText).join(',')}]`;
	if (isPlain(v)) {
		const keys = Object.keys(v)
			.filter((k) => v[k] !== undefined)
			.sort();
		return `{${keys.map((k) => `${JSON.stringify(k)}:${stableText(v[k])}`).join(',')}}`;
	}
	return JSON.stringify(v) ?? 'null';
}

/** Identity of a call for repeats: its name (by the tool-name rule) and its arguments as given. */
export function callIdentity(c: ToolCall): string {
	return `${nameKey(c.name)}\u0000${c.arguments !== undefined ? stableText(c.arguments) : `raw:${c.arguments_raw ?? ''}`}`;
}
