/**
 * Tool Calls: what an agent did against what it was expected to do, deterministic, on one row.
 *
 * The agent's calls and the expected ones are matched one to one (a maximum bipartite matching:
 * same tool, by n8n's tool-name rule, and arguments matching under the row's rules), so repeated
 * and loosely specified calls pair up as well as they can. From the matching: precision (matched
 * / made), recall (matched / expected) and F1; an unmatched expected call with an unmatched call
 * of the same tool is a wrong-argument call (its differences named key by key); what remains is
 * missing or extra. The order check (exact sequence; in order with other calls between; any order;
 * subset; superset), identical calls repeated beyond what was expected, failed calls and the step
 * count are reported and decide the pass with the threshold. The anchors' own numbers (Ragas,
 * DeepEval, n8n; ./toolcallsParity.ts) sit in `details.parity`, and any one of them can be the
 * row's value. Two companion Scores let the Root-Cause Router tell causes apart: the share of
 * same-tool calls with the right arguments (`tool_call_arguments`) and the share of calls that
 * failed (`tool_call_errors`, which needs no expected calls).
 */
import type { EvaluatorFacts, InputDecl, MetricDecl, MetricResult } from '../core/types';
import type { ToolCall, ToolDefinition } from '../record/schema';
import { readDefinition, readToolCalls } from '../record/toolcalls';
import {
	argumentDifferences,
	callIdentity,
	globsOf,
	nameKey,
	type ArgumentDifference,
	type ArgumentRules,
} from './toolcallsMatch';
import {
	deepevalToolCorrectness,
	n8nToolsUsed,
	ragasToolCallAccuracy,
	ragasToolCallF1,
} from './toolcallsParity';

/** Order modes of the Order parameter. */
export const ORDER_MODES = [
	'in_order',
	'exact',
	'any_order',
	'subset',
	'superset',
	'ignore',
] as const;
export type OrderMode = (typeof ORDER_MODES)[number];

/** Which figure is the row's value. */
export const SCORE_CHOICES = [
	'f1',
	'precision',
	'recall',
	'ragas_tool_call_accuracy',
	'ragas_tool_call_f1',
	'deepeval_tool_correctness',
	'n8n_tools_used',
] as const;

/** Longest text of an argument value or error kept in details (tool results are never copied). */
const SHOWN = 300;

function shown(v: unknown): unknown {
	if (v === undefined) return undefined;
	const text = typeof v === 'string' ? v : JSON.stringify(v);
	if (text === undefined) return undefined;
	if (text.length <= SHOWN) return v;
	return `${text.slice(0, SHOWN)}... (${text.length} characters)`;
}

function argsShown(c: ToolCall): unknown {
	return c.arguments !== undefined ? shown(c.arguments) : shown(c.arguments_raw);
}

/** Maximum one-to-one matching of expected to actual calls (augmenting paths, greedy start). */
function maxMatching(
	edges: number[][],
	actualCount: number,
): { ofExpected: number[]; ofActual: number[] } {
	const ofExpected = new Array<number>(edges.length).fill(-1);
	const ofActual = new Array<number>(actualCount).fill(-1);
	for (let e = 0; e < edges.length; e++) {
		for (const a of edges[e]) {
			if (ofActual[a] < 0) {
				ofActual[a] = e;
				ofExpected[e] = a;
				break;
			}
		}
	}
	for (let e = 0; e < edges.length; e++) {
		if (ofExpected[e] >= 0 || edges[e].length === 0) continue;
		const seen = new Uint8Array(actualCount);
		// Iterative depth-first search for an augmenting path from expected call e.
		const stack: { e: number; i: number }[] = [{ e, i: 0 }];
		const via: number[] = [];
		let found = false;
		while (stack.length > 0 && !found) {
			const top = stack[stack.length - 1];
			if (top.i >= edges[top.e].length) {
				stack.pop();
				via.pop();
				continue;
			}
			const a = edges[top.e][top.i++];
			if (seen[a]) continue;
			seen[a] = 1;
			via.push(a);
			if (ofActual[a] < 0) {
				found = true;
				break;
			}
			stack.push({ e: ofActual[a], i: 0 });
		}
		if (!found) continue;
		// Flip the path: stack[k].e takes via[k].
		for (let k = stack.length - 1; k >= 0; k--) {
			const a = via[k];
			ofActual[a] = stack[k].e;
			ofExpected[stack[k].e] = a;
		}
	}
	return { ofExpected, ofActual };
}

/** Whether the expected calls appear in the calls in order, others between (greedy is optimal). */
function inOrder(compatible: Set<number>[], actualCount: number): boolean {
	let a = 0;
	for (const ok of compatible) {
		while (a < actualCount && !ok.has(a)) a++;
		if (a >= actualCount) return false;
		a++;
	}
	return true;
}

function rulesOf(params: Record<string, unknown>): ArgumentRules {
	const mode = params.argumentMatch;
	if (mode !== 'exact' && mode !== 'expected_keys' && mode !== 'names_only')
		throw new TypeError(
			`Argument Match must be exact, expected_keys or names_only, got ${String(mode)}`,
		);
	const tolerance = Number(params.numberTolerance ?? 0);
	if (!Number.isFinite(tolerance) || tolerance < 0)
		throw new RangeError(
			`Number Tolerance must be a non-negative number, got ${String(params.numberTolerance)}`,
		);
	return {
		mode,
		ignore: globsOf(String(params.ignoreKeys ?? '')),
		tolerance,
		caseInsensitive: params.caseInsensitive === true,
	};
}

function bound(v: unknown, name: string): number {
	const n = Number(v ?? 0);
	if (!Number.isInteger(n) || n < 0)
		throw new RangeError(`${name} must be a whole number >= 0, got ${String(v)}`);
	return n;
}

interface Named {
	position: number;
	name: string;
	arguments?: unknown;
	note?: string;
}

/** The full comparison of one row (exported for tests and for the agent-judge work to reuse). */
export function compareToolCalls(
	actual: ToolCall[],
	expected: ToolCall[],
	params: Record<string, unknown>,
	definitions?: ToolDefinition[],
): MetricResult & { details: Record<string, unknown>; failedChecks: string[] } {
	const rules = rulesOf(params);
	const order = params.order as OrderMode;
	if (!ORDER_MODES.includes(order))
		throw new TypeError(`Order must be one of ${ORDER_MODES.join(', ')}`);
	const minSteps = bound(params.minSteps, 'Min Steps');
	const maxSteps = bound(params.maxSteps, 'Max Steps');

	// Candidate pairs: same tool and matching arguments. Differences are kept for same-tool pairs.
	const byName = new Map<string, number[]>();
	actual.forEach((c, i) => {
		const k = nameKey(c.name);
		const l = byName.get(k);
		if (l) l.push(i);
		else byName.set(k, [i]);
	});
	const edges: number[][] = expected.map((e) => {
		const same = byName.get(nameKey(e.name)) ?? [];
		return same.filter((a) => argumentDifferences(e, actual[a], rules, 1).length === 0);
	});
	const compatible = edges.map((l) => new Set(l));
	const { ofExpected, ofActual } = maxMatching(edges, actual.length);
	const matched = ofExpected.filter((a) => a >= 0).length;

	// Unmatched expected calls with an unmatched call of the same tool: wrong arguments.
	const freeActual = new Map<string, number[]>();
	actual.forEach((c, i) => {
		if (ofActual[i] >= 0) return;
		const k = nameKey(c.name);
		const l = freeActual.get(k);
		if (l) l.push(i);
		else freeActual.set(k, [i]);
	});
	const defNames = definitions ? new Set(definitions.map((d) => nameKey(d.name))) : undefined;
	const notes: string[] = [];
	const wrongArguments: {
		position: number;
		expectedPosition: number;
		name: string;
		differences: ArgumentDifference[];
	}[] = [];
	const missing: Named[] = [];
	const pairedActual = new Set<number>();
	expected.forEach((e, i) => {
		if (ofExpected[i] >= 0) return;
		const l = freeActual.get(nameKey(e.name));
		const a = l?.shift();
		if (a !== undefined) {
			pairedActual.add(a);
			const differences = argumentDifferences(e, actual[a], rules, 20).map((d) => ({
				...d,
				expected: shown(d.expected),
				actual: shown(d.actual),
			}));
			wrongArguments.push({ position: a, expectedPosition: i, name: actual[a].name, differences });
			return;
		}
		const m: Named = { position: i, name: e.name };
		const args = argsShown(e);
		if (args !== undefined) m.arguments = args;
		if (defNames && !defNames.has(nameKey(e.name))) {
			m.note = 'not among the tools the agent had';
			notes.push(
				`expected call ${i} names ${e.name}, a tool the agent did not have (tool_definitions)`,
			);
		}
		missing.push(m);
	});
	const extra: Named[] = [];
	actual.forEach((c, i) => {
		if (ofActual[i] >= 0 || pairedActual.has(i)) return;
		const x: Named = { position: i, name: c.name };
		const args = argsShown(c);
		if (args !== undefined) x.arguments = args;
		if (defNames && !defNames.has(nameKey(c.name))) x.note = 'not among the tools the agent had';
		extra.push(x);
	});
	const failed = actual
		.map((c, i) => ({ c, i }))
		.filter(({ c }) => c.error !== undefined)
		.map(({ c, i }) => ({ position: i, name: c.name, error: shown(c.error) as string }));
	const rawArgs = actual.filter((c) => c.arguments_raw !== undefined).length;
	if (rawArgs > 0)
		notes.push(`${rawArgs} call(s) gave arguments that are not JSON; compared as text`);
	const unnamedIds = actual.filter((c) => c.id === undefined).length;
	if (unnamedIds > 0 && unnamedIds < actual.length)
		notes.push(
			`${unnamedIds} of ${actual.length} calls carry no id; calls are matched by tool and arguments`,
		);

	// Identical calls beyond the first that no expected call accounts for: loops.
	const groups = new Map<string, number[]>();
	actual.forEach((c, i) => {
		const k = callIdentity(c);
		const l = groups.get(k);
		if (l) l.push(i);
		else groups.set(k, [i]);
	});
	const repeated: { name: string; arguments?: unknown; times: number; positions: number[] }[] = [];
	let extraRepeats = 0;
	for (const positions of groups.values()) {
		if (positions.length < 2) continue;
		const unexpected = positions.slice(1).filter((p) => ofActual[p] < 0).length;
		if (unexpected === 0) continue;
		extraRepeats += unexpected;
		const c = actual[positions[0]];
		const r: (typeof repeated)[number] = {
			name: c.name,
			times: positions.length,
			positions: positions.slice(0, 20),
		};
		const args = argsShown(c);
		if (args !== undefined) r.arguments = args;
		repeated.push(r);
	}

	let orderOk: boolean;
	switch (order) {
		case 'exact':
			orderOk = actual.length === expected.length && expected.every((_, i) => compatible[i].has(i));
			break;
		case 'in_order':
			orderOk = inOrder(compatible, actual.length);
			break;
		case 'any_order':
			orderOk = matched === expected.length && matched === actual.length;
			break;
		case 'subset':
			orderOk = matched === actual.length;
			break;
		case 'superset':
			orderOk = matched === expected.length;
			break;
		case 'ignore':
			orderOk = true;
	}

	const precision = actual.length > 0 ? matched / actual.length : expected.length === 0 ? 1 : 0;
	const recall = expected.length > 0 ? matched / expected.length : actual.length === 0 ? 1 : 0;
	const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
	const steps = actual.length;
	const stepsOk = steps >= minSteps && (maxSteps === 0 || steps <= maxSteps);

	const parity = {
		ragas_tool_call_accuracy: ragasToolCallAccuracy(actual, expected, true),
		ragas_tool_call_accuracy_any_order: ragasToolCallAccuracy(actual, expected, false),
		ragas_tool_call_f1: ragasToolCallF1(actual, expected),
		deepeval_tool_correctness: deepevalToolCorrectness(actual, expected),
		deepeval_tool_correctness_input_parameters: deepevalToolCorrectness(actual, expected, {
			inputParameters: true,
			ordering: false,
			exactMatch: false,
		}),
		deepeval_tool_correctness_ordered: deepevalToolCorrectness(actual, expected, {
			inputParameters: true,
			ordering: true,
			exactMatch: false,
		}),
		n8n_tools_used: n8nToolsUsed(actual, expected) ?? null,
	};

	const failedChecks: string[] = [];
	if (!orderOk) failedChecks.push('order');
	if (!stepsOk) failedChecks.push('steps');
	if (params.failOnRepeats !== false && extraRepeats > 0) failedChecks.push('repeats');

	const details: Record<string, unknown> = {
		precision,
		recall,
		f1,
		expected: expected.length,
		called: actual.length,
		matched,
		order: { mode: order, ok: orderOk },
		steps: { count: steps, min: minSteps, max: maxSteps === 0 ? null : maxSteps, ok: stepsOk },
		missing,
		extra,
		wrongArguments,
		failed,
		repeated,
		parity,
	};
	if (failedChecks.length > 0) details.failedChecks = failedChecks;
	if (notes.length > 0) details.notes = notes;

	const choice = String(params.score ?? 'f1');
	let value: number;
	let notApplicable: string | undefined;
	if (choice === 'f1') value = f1;
	else if (choice === 'precision') value = precision;
	else if (choice === 'recall') value = recall;
	else if (choice in parity) {
		const p = parity[choice as keyof typeof parity];
		value = p ?? 0;
		if (p === null)
			notApplicable = `${choice} needs at least one expected tool (n8n stops with an error)`;
	} else throw new TypeError(`Score must be one of ${SCORE_CHOICES.join(', ')}, got ${choice}`);

	// Companions never leave a scored row "not scored": none of zero calls failed, and with no
	// call of an expected tool (or arguments not compared) no argument was wrong.
	const sameTool = matched + wrongArguments.length;
	const companions: Record<string, MetricResult> = {
		tool_call_errors: errorsResult(actual),
		tool_call_arguments:
			rules.mode === 'names_only' || sameTool === 0
				? {
						value: 1,
						details: { matched, sameTool, wrongArguments },
						reason:
							rules.mode === 'names_only'
								? 'Arguments are not compared (Argument Match: Names Only).'
								: 'No call of an expected tool was made, so no arguments were wrong.',
					}
				: {
						value: matched / sameTool,
						details: { matched, sameTool, wrongArguments },
						...(wrongArguments.length > 0
							? { reason: `Wrong arguments: ${wrongArguments.map(wrongText).join('; ')}.` }
							: {}),
					},
	};
	return {
		value,
		details,
		failedChecks,
		companions,
		reason: reasonOf(details, missing, extra, wrongArguments, failed, repeated, failedChecks),
		...(notApplicable !== undefined ? { notApplicable } : {}),
	};
}

function errorsResult(actual: ToolCall[]): MetricResult {
	if (actual.length === 0)
		return {
			value: 0,
			details: { failed: [], called: 0 },
			reason: 'No tool call was made, so none failed.',
		};
	const failed = actual
		.map((c, i) => ({ c, i }))
		.filter(({ c }) => c.error !== undefined)
		.map(({ c, i }) => ({ position: i, name: c.name, error: shown(c.error) as string }));
	return {
		value: failed.length / actual.length,
		details: { failed, called: actual.length },
		...(failed.length > 0
			? {
					reason: `Failed calls: ${failed.map((f) => `${f.name} (call ${f.position}): ${f.error}`).join('; ')}.`,
				}
			: {}),
	};
}

function wrongText(w: {
	name: string;
	position: number;
	differences: ArgumentDifference[];
}): string {
	const diffs = w.differences
		.slice(0, 3)
		.map((d) =>
			d.why === 'missing'
				? `${d.key} missing`
				: d.why === 'unexpected'
					? `${d.key} not expected`
					: d.why === 'not_json'
						? 'arguments are not JSON'
						: `${d.key} ${JSON.stringify(d.expected)} expected, got ${JSON.stringify(d.actual)}`,
		)
		.join(', ');
	return `${w.name} (call ${w.position}): ${diffs}`;
}

function reasonOf(
	d: Record<string, unknown>,
	missing: Named[],
	extra: Named[],
	wrong: { name: string; position: number; differences: ArgumentDifference[] }[],
	failed: { name: string; position: number }[],
	repeated: { name: string; times: number }[],
	checks: string[],
): string {
	const parts = [
		`${d.matched as number} of ${d.expected as number} expected calls made as expected (${d.called as number} calls).`,
	];
	if (missing.length) parts.push(`Missing: ${missing.map((m) => m.name).join(', ')}.`);
	if (wrong.length) parts.push(`Wrong arguments: ${wrong.map(wrongText).join('; ')}.`);
	if (extra.length)
		parts.push(`Extra: ${extra.map((x) => `${x.name} (call ${x.position})`).join(', ')}.`);
	if (failed.length)
		parts.push(`Failed: ${failed.map((f) => `${f.name} (call ${f.position})`).join(', ')}.`);
	if (repeated.length)
		parts.push(`Repeated: ${repeated.map((r) => `${r.name} x${r.times}`).join(', ')}.`);
	const order = d.order as { mode: string; ok: boolean };
	if (checks.includes('order')) parts.push(`Order (${order.mode}) not met.`);
	if (checks.includes('steps')) {
		const s = d.steps as { count: number; min: number; max: number | null };
		parts.push(`${s.count} steps, outside ${s.min}-${s.max ?? 'any'}.`);
	}
	return parts.join(' ');
}

const callsInput: InputDecl = {
	name: 'toolCalls',
	displayName: 'Tool Calls',
	field: 'tool_calls',
	kind: 'json',
	required: false,
	description:
		"The calls the agent made: the record's tool_calls, an AI Agent's intermediateSteps, OpenAI or Azure messages, or a list of {name, arguments}; missing counts as no call",
};

const expectedInput: InputDecl = {
	name: 'expectedToolCalls',
	displayName: 'Expected Tool Calls',
	field: 'expected_tool_calls',
	kind: 'json',
	required: false,
	description:
		'The calls the agent should make, in order: a list of {name, arguments?} (an empty list: no call expected); missing leaves only failed calls scored',
};

const definitionsInput: InputDecl = {
	name: 'toolDefinitions',
	displayName: 'Tool Definitions',
	field: 'tool_definitions',
	kind: 'json',
	required: false,
	description: 'The tools the agent had (optional): expected calls naming another tool get a note',
};

/** Share of same-tool calls made with the right arguments (companion of Tool Calls). */
export const toolCallArgumentsFacts: EvaluatorFacts = {
	id: 'tool_call_arguments',
	version: '1',
	displayName: 'Tool Call Arguments',
	description:
		'Share of the expected calls made with the right tool that also had the right arguments',
	reference: 'Ours: matched / (matched + wrong-argument calls) of the Tool Calls matching',
	inputs: [callsInput, expectedInput],
	params: [],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 1, direction: 'higher' },
	rootCause: {
		slot: 'tool_arguments',
		rank: { withGroundTruth: -3, withoutGroundTruth: -3 },
		output: 20,
		fix: 'The agent picked the right tool with wrong arguments: describe each parameter (format, units, where its value comes from) in the tool definition, and pass values the previous tool returned explicitly in the prompt.',
	},
	databricks: {
		column: 'agent/ground_truth/tool_call_arguments',
		runMetric: 'agent/ground_truth/tool_call_arguments/average',
	},
};

/** Share of the calls that failed (companion of Tool Calls; needs no expected calls). */
export const toolCallErrorsFacts: EvaluatorFacts = {
	id: 'tool_call_errors',
	version: '1',
	displayName: 'Tool Call Errors',
	description: 'Share of the tool calls that failed; 0 passes',
	reference: 'Ours: failed calls (an error on the call, a failed n8n tool run) / calls made',
	inputs: [callsInput],
	params: [],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0, direction: 'lower' },
	rootCause: {
		slot: 'tool_errors',
		rank: { withGroundTruth: -2, withoutGroundTruth: -2 },
		output: 21,
		fix: 'A tool call failed: read the error on the call (credentials, rate limits, timeouts, bad input the tool rejected), fix the tool or its backend, and let the agent see tool errors so it can retry.',
	},
	databricks: {
		column: 'agent/tool_call_error_rate',
		runMetric: 'agent/tool_call_error_rate/average',
	},
};

const option = (name: string, value: string) => ({ name, value });

/** Tool Calls, declared once: its node, docs, router slots and aggregate names derive from this. */
export const toolCallsMetric: MetricDecl = {
	// Not `tool_calls`: that is the record field the metric reads, and a Score's columns are
	// written under its key beside the row's fields.
	id: 'tool_call_match',
	version: '1',
	displayName: 'Tool Calls',
	description:
		"Compares the agent's tool calls with the expected ones: precision, recall, F1, order, arguments, repeats, failures and steps, naming every missing, extra and wrong call",
	reference:
		'Ours (max matching of calls); parity in details: Ragas ToolCallAccuracy and ToolCallF1, DeepEval ToolCorrectness, n8n Evaluation Tools Used (docs/agents.md)',
	anchorNames: [
		'ToolCallAccuracy',
		'ToolCallF1',
		'ToolCorrectnessMetric',
		'Tools Used',
		'tool-call-f1',
		'trajectory match',
	],
	inputs: [callsInput, expectedInput, definitionsInput],
	params: [
		{
			name: 'score',
			displayName: 'Score',
			type: 'options',
			default: 'f1',
			options: [
				option('F1 of Calls', 'f1'),
				option('Precision of Calls', 'precision'),
				option('Recall of Calls', 'recall'),
				option('Ragas ToolCallAccuracy', 'ragas_tool_call_accuracy'),
				option('Ragas ToolCallF1', 'ragas_tool_call_f1'),
				option('DeepEval ToolCorrectness', 'deepeval_tool_correctness'),
				option('n8n Tools Used', 'n8n_tools_used'),
			],
			description: "The row's value; every figure is in details either way (details.parity)",
		},
		{
			name: 'order',
			displayName: 'Order',
			type: 'options',
			default: 'in_order',
			options: [
				option('In Order (Others Between)', 'in_order'),
				option('Exact Sequence', 'exact'),
				option('Any Order (Same Calls)', 'any_order'),
				option('Subset (Nothing Unexpected)', 'subset'),
				option('Superset (Every Expected Call)', 'superset'),
				option('Ignore Order', 'ignore'),
			],
			description: 'What the order of the calls must satisfy for the row to pass',
		},
		{
			name: 'argumentMatch',
			displayName: 'Argument Match',
			type: 'options',
			default: 'exact',
			options: [
				option('Exact (Same Keys and Values)', 'exact'),
				option('Expected Keys Only', 'expected_keys'),
				option('Names Only', 'names_only'),
			],
			description:
				'How arguments must match; an expected call without arguments accepts any arguments',
		},
		{
			name: 'ignoreKeys',
			displayName: 'Ignore Argument Keys',
			type: 'string',
			default: '',
			description:
				'Comma-separated keys or dotted paths left out of the comparison, * as a wildcard (e.g. request_id, *.timestamp)',
		},
		{
			name: 'numberTolerance',
			displayName: 'Number Tolerance',
			type: 'number',
			default: 0,
			description: 'Numbers match when at most this far apart',
		},
		{
			name: 'caseInsensitive',
			displayName: 'Case-Insensitive Text',
			type: 'boolean',
			default: false,
			description: 'Whether text arguments match regardless of case',
		},
		{
			name: 'failOnRepeats',
			displayName: 'Fail on Repeated Calls',
			type: 'boolean',
			default: true,
			description:
				'Whether an identical call repeated beyond what was expected (a loop) fails the row',
		},
		{
			name: 'minSteps',
			displayName: 'Min Steps',
			type: 'number',
			default: 0,
			description: 'Fewest tool calls for the row to pass (0: no minimum)',
		},
		{
			name: 'maxSteps',
			displayName: 'Max Steps',
			type: 'number',
			default: 0,
			description: 'Most tool calls for the row to pass (0: no maximum)',
		},
	],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 1, direction: 'higher' },
	signatureParts: 'names:n8n-tool-name|match:max-bipartite',
	rootCause: {
		slot: 'tool_calls',
		rank: { withGroundTruth: -1, withoutGroundTruth: -1 },
		output: 19,
		fix: 'The agent called the wrong tools, missed some, or called them out of order or in a loop: make each tool description say when to use it, name the steps in the system prompt, and cap the agent iterations.',
	},
	databricks: {
		column: 'agent/ground_truth/tool_call_f1',
		runMetric: 'agent/ground_truth/tool_call_f1/average',
	},
	companions: [toolCallArgumentsFacts, toolCallErrorsFacts],
	compute(inputs, params): MetricResult {
		const actual = readToolCalls(inputs.toolCalls, 'tool_calls');
		if (inputs.expectedToolCalls === undefined) {
			return {
				value: 0,
				notApplicable: 'missing expected_tool_calls: give the calls the agent should make',
				companions: { tool_call_errors: errorsResult(actual) },
			};
		}
		const expected = readToolCalls(inputs.expectedToolCalls, 'expected_tool_calls');
		let definitions: ToolDefinition[] | undefined;
		if (inputs.toolDefinitions !== undefined) {
			let raw: unknown = inputs.toolDefinitions;
			if (typeof raw === 'string') {
				try {
					raw = JSON.parse(raw) as unknown;
				} catch {
					throw new TypeError(
						'tool_definitions: expected a list of tool definitions, got text that is not JSON',
					);
				}
			}
			const list = Array.isArray(raw) ? raw : [raw];
			definitions = list.map((t, i) => readDefinition(t, `tool_definitions[${i}]`));
		}
		const result: MetricResult & { failedChecks?: string[] } = compareToolCalls(
			actual,
			expected,
			params,
			definitions,
		);
		delete result.failedChecks;
		return result;
	},
	passes(result, _params, threshold) {
		const checks = (result.details?.failedChecks as string[] | undefined) ?? [];
		return result.value >= threshold && checks.length === 0;
	},
};
