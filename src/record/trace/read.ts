/**
 * Small readers shared by every trace format: JSON-encoded attribute values, numbers and times
 * from numbers or text, and span attributes as a flat map (OTLP key/value lists converted, dotted
 * keys also found nested).
 */
import { isObject, type Row } from '../values';

/** MLflow stores span attributes JSON-encoded; objects from other exporters are used as they are. */
export function decoded(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	// Fast path for the commonest encoded value, a plain quoted word such as "\"LLM\"".
	if (
		v.length >= 2 &&
		v[0] === '"' &&
		v[v.length - 1] === '"' &&
		!v.includes('\\') &&
		v.indexOf('"', 1) === v.length - 1
	)
		return v.slice(1, -1);
	const t = v.trimStart();
	const c = t[0];
	// Only JSON-looking text is parsed: plain prose stays prose without a try/catch per value.
	if (c !== '{' && c !== '[' && c !== '"' && !(c >= '0' && c <= '9') && c !== '-') {
		if (t !== 'true' && t !== 'false' && t !== 'null') return v;
	}
	try {
		return JSON.parse(v) as unknown;
	} catch {
		return v;
	}
}

/** A non-negative finite number from a number or numeric text (OTLP int64 values are strings). */
export function num(v: unknown): number | undefined {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A finite number, negative allowed (times, so skew can be detected rather than hidden). */
export function finite(v: unknown): number | undefined {
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export function str(v: unknown): string | undefined {
	const d = decoded(v);
	return typeof d === 'string' && d !== '' ? d : undefined;
}

export function present(v: unknown): boolean {
	return v !== undefined && v !== null && v !== '';
}

/**
 * A time as nanoseconds: ISO date text (Phoenix, Langfuse, DeepEval exports), nanoseconds, or the
 * OpenTelemetry JS `HrTime` pair `[seconds, nanos]` (also as `{"0": s, "1": ns}` once stored).
 */
export function nanos(v: unknown): number | undefined {
	if (typeof v === 'string' && /[T:-]/.test(v.trim().slice(1))) {
		const t = Date.parse(v);
		return Number.isFinite(t) ? t * 1e6 : undefined;
	}
	if (Array.isArray(v) || (isObject(v) && '0' in v && '1' in v)) {
		const pair = v as Record<number, unknown>;
		const sec = finite(pair[0]);
		const ns = finite(pair[1]);
		return sec !== undefined && ns !== undefined ? sec * 1e9 + ns : undefined;
	}
	return finite(v);
}

/**
 * One OTLP AnyValue as a plain value. Arrays of scalars are kept; deeper structures (kvlist,
 * nested arrays) are user data we do not need, so they are not walked.
 */
function anyValue(v: unknown): unknown {
	if (!isObject(v)) return undefined;
	if ('stringValue' in v) return v.stringValue;
	if ('intValue' in v) return finite(v.intValue);
	if ('doubleValue' in v) return finite(v.doubleValue);
	if ('boolValue' in v) return v.boolValue;
	if (isObject(v.arrayValue) && Array.isArray(v.arrayValue.values)) {
		const out: unknown[] = [];
		for (const x of v.arrayValue.values) {
			if (isObject(x) && !isObject(x.arrayValue) && !isObject(x.kvlistValue)) out.push(anyValue(x));
		}
		return out;
	}
	return undefined;
}

/** Attributes as a flat map: OTLP key/value lists are converted, plain objects used as they are. */
export function attributeMap(v: unknown): Row {
	if (isObject(v)) return v;
	if (!Array.isArray(v)) return {};
	const out: Row = {};
	for (const kv of v) {
		if (isObject(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
	}
	return out;
}

/**
 * An attribute by dotted key: the flat key first (OTLP, MLflow), else the nested path (Phoenix
 * exports nest `{"llm": {"token_count": {...}}}`). A loop over the key's parts, not over data.
 */
const KEY_PARTS = new Map<string, string[]>();

export function attr(attrs: Row, key: string): unknown {
	const v = attrs[key];
	if (v !== undefined) return v;
	let parts = KEY_PARTS.get(key);
	if (parts === undefined) {
		parts = key.split('.');
		KEY_PARTS.set(key, parts);
	}
	if (!isObject(attrs[parts[0]])) return undefined;
	let cur: unknown = attrs;
	for (const part of parts) {
		if (!isObject(cur)) return undefined;
		cur = cur[part];
	}
	return cur;
}
