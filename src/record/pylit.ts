/**
 * Python literals as pandas and Python's `str()` write them into CSV cells and JSON text:
 * `['a.html', 'b.html']`, `{'name': 'search', 'args': {'q': 'x'}}`, `(1, 2)`, `True`, `None`.
 * Only literals (strings, numbers, booleans, None, lists, tuples, dicts) are read; anything else
 * (a function call, a set, an expression) is not a literal and gives `undefined`. Iterative, with
 * an explicit stack, so a deeply nested cell cannot overflow the call stack.
 */

const FAIL = Symbol('not a python literal');

type Container =
	| { kind: 'list'; out: unknown[]; close: string }
	| { kind: 'dict'; out: Record<string, unknown>; key?: string; close: string };

const ESCAPES: Record<string, string> = {
	n: '\n',
	t: '\t',
	r: '\r',
	'\\': '\\',
	"'": "'",
	'"': '"',
	'0': '\0',
	a: '\x07',
	b: '\b',
	f: '\f',
	v: '\v',
};

/** Reads a quoted Python string starting at `at`; returns the value and the index after it. */
function pyString(s: string, at: number): [string, number] | typeof FAIL {
	const q = s[at];
	let out = '';
	let i = at + 1;
	while (i < s.length) {
		const c = s[i];
		if (c === q) return [out, i + 1];
		if (c === '\\') {
			const e = s[i + 1];
			if (e === 'x' || e === 'u' || e === 'U') {
				const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
				const hex = s.slice(i + 2, i + 2 + n);
				if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) return FAIL;
				out += String.fromCodePoint(parseInt(hex, 16));
				i += 2 + n;
				continue;
			}
			if (e === '\n') {
				i += 2;
				continue;
			}
			out += ESCAPES[e] ?? `\\${e}`;
			i += 2;
			continue;
		}
		out += c;
		i++;
	}
	return FAIL;
}

const NUMBER = /^[-+]?(?:\d[\d_]*\.?[\d_]*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)/;

/** A scalar (string, number, True/False/None) at `at`, or FAIL. */
function pyScalar(s: string, at: number): [unknown, number] | typeof FAIL {
	const c = s[at];
	if (c === "'" || c === '"') return pyString(s, at);
	// String prefixes pandas and repr() may write: u'..', b'..' is bytes, not text.
	if ((c === 'u' || c === 'U') && (s[at + 1] === "'" || s[at + 1] === '"'))
		return pyString(s, at + 1);
	for (const [word, value] of [
		['True', true],
		['False', false],
		['None', null],
		['nan', null],
	] as const) {
		if (s.startsWith(word, at) && !/\w/.test(s[at + word.length] ?? ''))
			return [value, at + word.length];
	}
	const m = NUMBER.exec(s.slice(at, at + 64));
	if (m) {
		const n = Number(m[0].replace(/_/g, ''));
		if (Number.isFinite(n)) return [n, at + m[0].length];
	}
	return FAIL;
}

const skip = (s: string, i: number): number => {
	while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\t' || s[i] === '\r')) i++;
	return i;
};

/**
 * The value of a Python literal list, tuple or dict, or `undefined` when `text` is not one. A bare
 * scalar is not accepted: cells holding one are text, and stay text.
 */
export function parsePythonLiteral(text: string): unknown {
	let i = skip(text, 0);
	if (text[i] !== '[' && text[i] !== '(' && text[i] !== '{') return undefined;
	const stack: Container[] = [];
	let result: unknown = FAIL;
	let expectValue = true;
	const place = (v: unknown): boolean => {
		const top = stack[stack.length - 1];
		if (!top) {
			result = v;
			return true;
		}
		if (top.kind === 'list') top.out.push(v);
		else if (top.key === undefined) {
			if (typeof v !== 'string' && typeof v !== 'number') return false;
			top.key = String(v);
			i = skip(text, i);
			if (text[i] !== ':') return false;
			i++;
			expectValue = true;
			return true;
		} else {
			top.out[top.key] = v;
			top.key = undefined;
		}
		expectValue = false;
		return true;
	};
	while (i < text.length) {
		i = skip(text, i);
		const c = text[i];
		if (c === undefined) break;
		const top = stack[stack.length - 1];
		if (top && c === top.close && (!expectValue || top.kind === 'list' || top.key === undefined)) {
			if (top.kind === 'dict' && top.key !== undefined) return undefined;
			stack.pop();
			i++;
			if (!place(top.out)) return undefined;
			if (stack.length === 0) break;
			continue;
		}
		if (!expectValue) {
			if (c !== ',' || !top) return undefined;
			i++;
			expectValue = true;
			continue;
		}
		if (c === '[' || c === '(') {
			stack.push({ kind: 'list', out: [], close: c === '[' ? ']' : ')' });
			i++;
			continue;
		}
		if (c === '{') {
			stack.push({ kind: 'dict', out: {}, close: '}' });
			i++;
			continue;
		}
		const sc = pyScalar(text, i);
		if (sc === FAIL) return undefined;
		i = sc[1];
		if (!place(sc[0])) return undefined;
	}
	if (stack.length > 0 || result === FAIL) return undefined;
	return skip(text, i) === text.length ? result : undefined;
}
