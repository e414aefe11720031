/**
 * The numbers other tools give for the same tool calls, so a team moving from any of them sees
 * the figure it knows beside ours. Each formula is written from its source's published behaviour
 * (docs/agents.md has the sources and the edge cases):
 *
 * - Ragas `ToolCallAccuracy` (ragas/metrics/_tool_call_accuracy.py, strict_order default True):
 *   0 unless the predicted tool names equal the reference names in sequence (sorted first when not
 *   strict); then the calls are paired position by position, each same-name pair scoring the share
 *   of reference argument keys whose values are equal as Python `str()` text (ExactMatch), summed,
 *   divided by the number of reference calls and multiplied by the share of reference calls that
 *   had a partner. Both empty: 1; either empty: 0.
 * - Ragas `ToolCallF1` (ragas/metrics/_tool_call_f1.py): sets of (name, frozenset of argument
 *   items); tp, fp, fn by set operations, F1 rounded to 4 decimals (Python `round`, half to even).
 * - DeepEval `ToolCorrectnessMetric` (deepeval/metrics/tool_correctness/tool_correctness.py,
 *   without `available_tools`, whose LLM tool-selection judge is not deterministic): by default
 *   names only, any order: each expected tool takes the best unmatched called tool of its name
 *   (argument-key overlap when input parameters count), divided by the expected count; with
 *   ordering, a longest common subsequence weighted by that overlap. A called tool identical to
 *   one already matched (same name, parameters and output) cannot be matched again, as in
 *   DeepEval, whose matched set compares calls by value.
 * - n8n Evaluation node, metric Tools Used (nodes-base Evaluation/utils/metricHandlers.ts): the
 *   share of expected tool names (n8n's tool-name rule, lower case) that appear anywhere among the
 *   intermediate steps' tools (lower case). No expected tool: n8n stops with an error.
 */
import type { ToolCall } from '../record/schema';
import { n8nToolName } from '../record/toolcalls';

type Dict = Record<string, unknown>;

function isPlain(v: unknown): v is Dict {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A call's arguments as the dict Ragas and DeepEval read (anything but an object reads as `{}`). */
function argsOf(c: ToolCall): Dict {
	return isPlain(c.arguments) ? c.arguments : {};
}

function pyQuote(s: string): string {
	const q = s.includes("'") && !s.includes('"') ? '"' : "'";
	const body = s
		.replace(/\\/g, '\\\\')
		.replace(/\n/g, '\\n')
		.replace(/\r/g, '\\r')
		.replace(/\t/g, '\\t')
		.replace(q === "'" ? /'/g : /"/g, `\\${q}`);
	return `${q}${body}${q}`;
}

/**
 * Python's `repr` of a float, from the shortest digits that round-trip (as both languages use):
 * positional notation for exponents -4 to 15, else `d.ddde+XX`.
 */
export function pyFloat(n: number): string {
	if (Number.isNaN(n)) return 'nan';
	if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
	if (Number.isInteger(n) && Math.abs(n) < 1e16)
		return `${n === 0 && 1 / n < 0 ? '-' : ''}${Math.abs(n)}.0`;
	const [mant, expText] = n.toExponential().split('e');
	const exp = Number(expText);
	const neg = mant.startsWith('-');
	const digits = mant.replace('-', '').replace('.', '');
	const sign = neg ? '-' : '';
	if (exp >= -4 && exp < 16) {
		if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
		const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
		const frac = digits.slice(exp + 1);
		return `${sign}${int}.${frac === '' ? '0' : frac}`;
	}
	const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
	return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * Python `str()` of a JSON value as Ragas compares arguments. JSON integers read as Python ints
 * (`75`), other numbers as floats (`0.5`); a whole number written `75.0` in JSON cannot be told from
 * `75` once parsed, so it reads as `75` here where Python would print `75.0`.
 */
export function pyStr(v: unknown, nested = false): string {
	if (typeof v === 'string') return nested ? pyQuote(v) : v;
	if (typeof v === 'boolean') return v ? 'True' : 'False';
	if (v === null || v === undefined) return 'None';
	if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v).toString() : pyFloat(v);
	if (Array.isArray(v)) return `[${v.map((x) => pyStr(x, true)).join(', ')}]`;
	if (isPlain(v))
		return `{${Object.entries(v)
			.map(([k, x]) => `${pyQuote(k)}: ${pyStr(x, true)}`)
			.join(', ')}}`;
	return String(v);
}

/** Python `==` on JSON values: `True == 1`, `1 == 1.0`, lists by position, dicts by key set. */
export function pyEq(a: unknown, b: unknown): boolean {
	const num = (x: unknown): number | undefined =>
		typeof x === 'number' ? x : typeof x === 'boolean' ? Number(x) : undefined;
	const na = num(a);
	const nb = num(b);
	if (na !== undefined || nb !== undefined)
		return na !== undefined && nb !== undefined && na === nb;
	if (a === undefined) a = null;
	if (b === undefined) b = null;
	if (Array.isArray(a) || Array.isArray(b)) {
		if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
		return a.every((x, i) => pyEq(x, b[i]));
	}
	if (isPlain(a) || isPlain(b)) {
		if (!isPlain(a) || !isPlain(b)) return false;
		const ka = Object.keys(a);
		if (ka.length !== Object.keys(b).length) return false;
		return ka.every((k) => k in b && pyEq(a[k], b[k]));
	}
	return a === b;
}

/** A text equal for values Python finds equal (bools as numbers, dict keys sorted). */
export function pyKey(v: unknown): string {
	if (typeof v === 'boolean') return String(Number(v));
	if (typeof v === 'number') return Object.is(v, -0) ? '0' : String(v);
	if (v === null || v === undefined) return 'null';
	if (Array.isArray(v)) return `[${v.map(pyKey).join(',')}]`;
	if (isPlain(v))
		return `{${Object.keys(v)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${pyKey(v[k])}`)
			.join(',')}}`;
	return JSON.stringify(v);
}

/**
 * Python 3 `round(x, 4)`: the nearest 4-decimal value of the double, ties to even. A double lies
 * exactly half-way between two 4-decimal values only when 32x is an odd integer.
 */
export function pyRound4(x: number): number {
	const scaled = x * 32;
	if (Number.isInteger(scaled) && scaled % 2 !== 0) {
		const lo = Math.floor(x * 1e4);
		return (lo % 2 === 0 ? lo : lo + 1) / 1e4;
	}
	return Number(x.toFixed(4));
}

function ragasArgScore(preds: Dict, refs: Dict): number {
	const refKeys = Object.keys(refs);
	if (refKeys.length === 0) return Object.keys(preds).length === 0 ? 1 : 0;
	let score = 0;
	for (const k of refKeys) if (k in preds && pyStr(preds[k]) === pyStr(refs[k])) score += 1;
	return score / refKeys.length;
}

function ragasSortKey(c: ToolCall): string[] {
	const a = argsOf(c);
	const key = [c.name];
	for (const k of Object.keys(a).sort()) key.push(k, pyStr(a[k]));
	return key;
}

function compareKeys(x: string[], y: string[]): number {
	for (let i = 0; i < Math.min(x.length, y.length); i++) {
		if (x[i] < y[i]) return -1;
		if (x[i] > y[i]) return 1;
	}
	return x.length - y.length;
}

/** Ragas ToolCallAccuracy (see the module comment). */
export function ragasToolCallAccuracy(
	predicted: ToolCall[],
	reference: ToolCall[],
	strictOrder = true,
): number {
	if (predicted.length === 0 && reference.length === 0) return 1;
	if (predicted.length === 0 || reference.length === 0) return 0;
	let pred = predicted;
	let ref = reference;
	if (!strictOrder) {
		const sort = (l: ToolCall[]) =>
			l
				.map((c) => ({ c, k: ragasSortKey(c) }))
				.sort((a, b) => compareKeys(a.k, b.k))
				.map((x) => x.c);
		pred = sort(pred);
		ref = sort(ref);
	}
	const pn = pred.map((c) => c.name);
	const rn = ref.map((c) => c.name);
	const names = strictOrder ? [pn, rn] : [[...pn].sort(), [...rn].sort()];
	const aligned =
		names[0].length === names[1].length && names[0].every((n, i) => n === names[1][i]);
	let score = 0;
	const compared = Math.min(pred.length, ref.length);
	for (let i = 0; i < compared; i++) {
		if (ref[i].name === pred[i].name) score += ragasArgScore(argsOf(pred[i]), argsOf(ref[i]));
	}
	score /= ref.length;
	if (compared < ref.length) score *= compared / ref.length;
	return score * (aligned ? 1 : 0);
}

/** Ragas ToolCallF1 (see the module comment). */
export function ragasToolCallF1(predicted: ToolCall[], reference: ToolCall[]): number {
	const key = (c: ToolCall): string => {
		const a = argsOf(c);
		return `${JSON.stringify(c.name)}|${Object.keys(a)
			.sort()
			.map((k) => `${JSON.stringify(k)}=${pyKey(a[k])}`)
			.join(',')}`;
	};
	const expected = new Set(reference.map(key));
	const actual = new Set(predicted.map(key));
	let tp = 0;
	for (const k of actual) if (expected.has(k)) tp++;
	const fp = actual.size - tp;
	const fn = expected.size - tp;
	const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
	const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
	const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
	return pyRound4(f1);
}

/** DeepEval's settings that change the formula (`evaluation_params`, ordering, exact match). */
export interface DeepEvalOptions {
	inputParameters: boolean;
	ordering: boolean;
	exactMatch: boolean;
}

function compareDicts(d1: Dict, d2: Dict, exact: boolean): number {
	if (pyEq(d1, d2)) return 1;
	if (exact) return 0;
	const total = new Set([...Object.keys(d1), ...Object.keys(d2)]).size;
	let score = 0;
	for (const k of Object.keys(d1)) {
		if (!(k in d2)) continue;
		if (pyEq(d1[k], d2[k])) score += 1 / total;
		else if (isPlain(d1[k]) && isPlain(d2[k]))
			score += compareDicts(d1[k] as Dict, d2[k] as Dict, exact) / total;
	}
	return score;
}

/** DeepEval ToolCorrectnessMetric's score (see the module comment). */
export function deepevalToolCorrectness(
	called: ToolCall[],
	expected: ToolCall[],
	o: DeepEvalOptions = { inputParameters: false, ordering: false, exactMatch: false },
): number {
	const pairScore = (e: ToolCall, c: ToolCall): number =>
		o.inputParameters ? compareDicts(argsOf(e), argsOf(c), o.exactMatch) : 1;
	if (o.exactMatch) {
		if (called.length !== expected.length) return 0;
		if (expected.length === 0) return 1;
		for (let i = 0; i < called.length; i++) {
			if (called[i].name !== expected[i].name) return 0;
			if (o.inputParameters && !pyEq(called[i].arguments ?? null, expected[i].arguments ?? null))
				return 0;
		}
		return 1;
	}
	if (o.ordering) {
		if (expected.length === 0) return called.length === 0 ? 1 : 0;
		const m = expected.length;
		const n = called.length;
		const dp: Float64Array[] = Array.from({ length: m + 1 }, () => new Float64Array(n + 1));
		for (let i = 1; i <= m; i++) {
			for (let j = 1; j <= n; j++) {
				const e = expected[i - 1];
				const c = called[j - 1];
				if (e.name !== c.name) {
					dp[i][j] = Math.max(dp[i - 1][j], dp[i][j - 1]);
					continue;
				}
				const s = pairScore(e, c);
				dp[i][j] = Math.max(dp[i - 1][j], dp[i][j - 1], s > 0 ? dp[i - 1][j - 1] + s : 0);
			}
		}
		let i = m;
		let j = n;
		let total = 0;
		while (i > 0 && j > 0) {
			if (dp[i][j] === dp[i - 1][j]) i--;
			else if (dp[i][j] === dp[i][j - 1]) j--;
			else {
				total += dp[i][j] - dp[i - 1][j - 1];
				i--;
				j--;
			}
		}
		return total / m;
	}
	if (expected.length === 0) return called.length === 0 ? 1 : 0;
	const identity = (c: ToolCall) =>
		`${JSON.stringify(c.name)}|${pyKey(c.arguments ?? null)}|${pyKey(c.result ?? null)}`;
	const ids = called.map(identity);
	const matched = new Set<string>();
	let total = 0;
	for (const e of expected) {
		let best = 0;
		let bestAt = -1;
		for (let j = 0; j < called.length; j++) {
			if (matched.has(ids[j]) || called[j].name !== e.name) continue;
			const s = pairScore(e, called[j]);
			if (s > best) {
				best = s;
				bestAt = j;
			}
		}
		if (best > 0) {
			total += best;
			matched.add(ids[bestAt]);
		}
	}
	return total / expected.length;
}

/** n8n Tools Used; undefined when no tool is expected (n8n stops the node with an error). */
export function n8nToolsUsed(steps: ToolCall[], expected: ToolCall[]): number | undefined {
	const names = expected.map((c) => c.name.trim()).filter((n) => n !== '');
	if (names.length === 0) return undefined;
	const used = new Set(steps.map((s) => s.name.toLowerCase()));
	const hits = names.filter((n) => used.has(n8nToolName(n).toLowerCase())).length;
	return hits / names.length;
}
