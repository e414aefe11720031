/**
 * Pieces every node of the package shares: naming, icons, the Score-writing item loop and
 * the Pass / Fail / Not Scored routing with pairedItem set on every emitted item.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type NodeParameterValueType,
} from 'n8n-workflow';
import type { EvaluatorFacts, Score } from '../../src/core/types';
import type { Governor } from '../../src/judges/governor';
import { panelFatal } from '../../src/judges/panel';

/** Package name as n8n prefixes our node types. */
export const PACKAGE_NAME = 'n8n-nodes-rag-eval';

/**
 * A subtitle naming an options parameter's choice by its label (n8n shows the stored value, such
 * as "text" or "summary", otherwise); an unknown value shows as it is.
 */
export function choiceSubtitle(
	parameter: string,
	labels: Readonly<Record<string, string>>,
): string {
	const p = `$parameter.${parameter}`;
	const chain = Object.entries(labels)
		.map(([value, label]) => `${p} === ${JSON.stringify(value)} ? ${JSON.stringify(label)} : `)
		.join('');
	return `={{ ${chain}${p} }}`;
}

/** Icon reference for a node kind; the build copies `nodes/icons/<kind>.svg` beside each node. */
export function iconFor(kind: string): { light: `file:${string}.svg`; dark: `file:${string}.svg` } {
	return { light: `file:${kind}.svg`, dark: `file:${kind}.dark.svg` };
}

/** Where rows that were not scored go when splitting into Pass and Fail. */
export type NotScoredRoute = 'separate' | 'pass' | 'fail';

/** The output list a scoring node shows, as an expression over its parameters. */
export const SCORING_OUTPUTS =
	'={{ $parameter.splitOutputs ? [{ type: "main", displayName: "Pass" }, { type: "main", displayName: "Fail" }].concat($parameter.notScoredRoute === "pass" || $parameter.notScoredRoute === "fail" ? [] : [{ type: "main", displayName: "Not Scored" }]) : [{ type: "main", displayName: "Scored" }] }}';

/** Parameters for the Pass / Fail split, shared by every metric and judge node. */
export const splitProperties: INodeProperties[] = [
	{
		displayName: 'Split Into Pass / Fail Outputs',
		name: 'splitOutputs',
		type: 'boolean',
		default: false,
		description:
			'Whether to send passing and failing rows to separate outputs so the workflow can branch on them',
	},
	{
		displayName: 'Rows Not Scored Go To',
		name: 'notScoredRoute',
		type: 'options',
		default: 'separate',
		displayOptions: { show: { splitOutputs: [true] } },
		options: [
			{
				name: 'Their Own Output',
				value: 'separate',
				description: 'Not-applicable and errored rows leave on a third output, Not Scored',
			},
			{
				name: 'Pass',
				value: 'pass',
				description:
					'Treat rows that could not be scored as passing (errors still carry their error)',
			},
			{
				name: 'Fail',
				value: 'fail',
				description: 'Treat rows that could not be scored as failing',
			},
		],
		description:
			'Rows without the needed inputs, or whose scoring failed, are never counted as fails silently',
	},
];

/** Besides the Score under `eval`, what a scoring node also writes on the item. */
export type OutputFormat = 'upfront' | 'score' | 'databricks' | 'flat';

/** The Output Format option every metric and judge node offers. */
export const outputFormatProperty: INodeProperties = {
	displayName: 'Output Format',
	name: 'outputFormat',
	type: 'options',
	default: 'upfront',
	options: [
		{
			name: 'Score Up Front',
			value: 'upfront',
			description:
				'<key> (the value) and <key>_pass as the first columns, the full Score under eval.<key> (reason, usage, signature)',
		},
		{
			name: 'Score Object Only',
			value: 'score',
			description: 'Only the Score under eval.<key>, as before Score Up Front became the default',
		},
		{
			name: 'Score + Databricks Columns',
			value: 'databricks',
			description:
				'Also the Databricks per-row columns, e.g. response/llm_judged/groundedness/rating ("yes"/"no") and .../rationale',
		},
		{
			name: 'Score + Flat Numbers',
			value: 'flat',
			description:
				"Also <key>: number at the top level (yes/no as 1/0), which n8n's Evaluation node takes in Set Metrics",
		},
	],
	description:
		'The Score under eval is always kept: Eval Aggregate and the Root-Cause Router read it. Databricks columns and flat numbers are left out for rows that were not scored.',
};

/**
 * The top-level fields a Score adds, placed first on the row: its value and pass (Score Up Front,
 * null for a row not scored), its Databricks columns or its flat number; none for Score Object Only.
 */
export function formatFields(
	format: OutputFormat,
	key: string,
	score: Score,
	decl: Pick<EvaluatorFacts, 'databricks'>,
): IDataObject {
	if (format === 'upfront') return { [key]: score.value, [`${key}_pass`]: score.pass };
	if (format === 'score' || score.status !== 'ok' || score.value === null) return {};
	const number = typeof score.value === 'boolean' ? (score.value ? 1 : 0) : score.value;
	const names = decl.databricks;
	if (format === 'flat' || !names) return { [key]: number };
	const value = typeof score.value === 'boolean' ? (score.value ? 'yes' : 'no') : score.value;
	const out: IDataObject = { [names.column]: value };
	// Every per-row name the seeds give the value (seed 002 spells some differently from seed 001).
	for (const alias of names.columnAliases ?? []) out[alias] = value;
	if (names.rationaleColumn && score.reason !== undefined)
		out[names.rationaleColumn] = score.reason;
	return out;
}

/**
 * The Databricks columns of a row's figures (Cost & Latency's token counts and latency), from the
 * declared field -> column map; figures the row does not have get no column.
 */
export function figureColumnFields(
	fields: IDataObject,
	columns: Readonly<Record<string, string>> | undefined,
): IDataObject {
	const out: IDataObject = {};
	for (const [field, column] of Object.entries(columns ?? {}))
		if (fields[field] !== undefined) out[column] = fields[field];
	return out;
}

/** How a row is named in errors: its position, and its request_id when it has one. */
export function rowLabel(item: INodeExecutionData, index: number): string {
	const id = item.json.request_id;
	return typeof id === 'string' || typeof id === 'number'
		? `row ${index + 1} (request_id ${JSON.stringify(id)})`
		: `row ${index + 1}`;
}

/** Whether a top-level field is a verdict column an earlier scoring node put first (`<key>`, `<key>_pass`). */
function isVerdictColumn(name: string, scores: IDataObject): boolean {
	return (
		scores[name] !== undefined ||
		(name.endsWith('_pass') && scores[name.slice(0, -5)] !== undefined)
	);
}

/**
 * A row's identity for the circuit breaker: its request_id, else its position. The same on every
 * node of a pipeline, so a row seen to fail on its own on one node is known as such on the next.
 */
export function breakerRow(item: INodeExecutionData, index: number): string {
	const id = item.json.request_id;
	return typeof id === 'string' || typeof id === 'number' ? `id:${String(id)}` : `at:${index}`;
}

/**
 * Copy an item with its Scores under `json.eval[key]`, keeping binary data and lineage, laid out
 * for people: the verdict columns first (earlier nodes' in their order, then `front`, one set per
 * Score), then the row's own fields and `fields`, then `eval`, then the row's bookkeeping
 * (`source`) last. A set replaces fields of the same names only when `replace` is set (the
 * Databricks and flat formats always did); Score Up Front never overwrites a row's field, e.g.
 * under a Result Key named `response`.
 */
export function withScore(
	item: INodeExecutionData,
	index: number,
	scores: Readonly<Record<string, Score>>,
	front: readonly IDataObject[] = [],
	options: { replace?: boolean; fields?: IDataObject } = {},
): INodeExecutionData {
	const prev = (item.json.eval as IDataObject | undefined) ?? {};
	const head: IDataObject = {};
	const body: IDataObject = {};
	for (const name in item.json) {
		if (name === 'eval' || name === 'source') continue;
		if (isVerdictColumn(name, prev)) head[name] = item.json[name];
		else body[name] = item.json[name];
	}
	for (const columns of front) {
		// A Score's columns go in together or not at all: never a `_pass` beside someone's field.
		if (!options.replace && Object.keys(columns).some((name) => name in body)) continue;
		for (const name in columns) {
			delete body[name];
			head[name] = columns[name];
		}
	}
	const json: IDataObject = {
		...head,
		...body,
		...options.fields,
		eval: { ...prev, ...(scores as unknown as IDataObject) },
	};
	if (item.json.source !== undefined) json.source = item.json.source;
	const out: INodeExecutionData = { json, pairedItem: { item: index } };
	if (item.binary) out.binary = item.binary;
	return out;
}

/** Route scored items to one output, or to Pass / Fail (/ Not Scored) as configured. */
export function routeScored(
	ctx: IExecuteFunctions,
	scored: { item: INodeExecutionData; score: Score }[],
): INodeExecutionData[][] {
	const split = ctx.getNodeParameter('splitOutputs', 0, false) as boolean;
	if (!split) return [scored.map((s) => s.item)];
	const route = ctx.getNodeParameter('notScoredRoute', 0, 'separate') as NotScoredRoute;
	const pass: INodeExecutionData[] = [];
	const fail: INodeExecutionData[] = [];
	const notScored: INodeExecutionData[] = [];
	for (const { item, score } of scored) {
		if (score.pass === true) pass.push(item);
		else if (score.pass === false) fail.push(item);
		else if (route === 'pass') pass.push(item);
		else if (route === 'fail') fail.push(item);
		else notScored.push(item);
	}
	return route === 'separate' ? [pass, fail, notScored] : [pass, fail];
}

/** Read a parameter for one item, turning expression failures into a readable row error. */
export function readParam(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: NodeParameterValueType,
): { ok: true; value: unknown } | { ok: false; error: string } {
	try {
		return { ok: true, value: ctx.getNodeParameter(name, itemIndex, fallback) };
	} catch (e) {
		const message = e instanceof Error ? e.message : String(e);
		return { ok: false, error: `parameter ${name}: ${message}` };
	}
}

/** Whether a saved parameter value holds an n8n expression (`=...`) anywhere inside it. */
function holdsExpression(v: unknown): boolean {
	if (typeof v === 'string') return v.startsWith('=');
	if (Array.isArray(v)) return v.some(holdsExpression);
	if (v !== null && typeof v === 'object') return Object.values(v).some(holdsExpression);
	return false;
}

/**
 * Whether a node parameter resolves to the same value for every item: its saved value (absent
 * when it is the default) holds no expression. Such a parameter is read once for all items: in
 * the n8n process every getNodeParameter call looks the node type up again and validates the value
 * (~10-20 us), a few calls a row that were most of a metric node's n8n-side time.
 */
export function sameForEveryItem(ctx: IExecuteFunctions, name: string): boolean {
	return !holdsExpression(ctx.getNode().parameters?.[name]);
}

/**
 * Read the threshold for one item. An expression can hand back text: numeric text is read as its
 * number, anything else is a row error naming the field rather than a silently failed row.
 */
export function readThreshold(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fallback: number,
): { ok: true; value: number } | { ok: false; error: string } {
	const r = readParam(ctx, 'threshold', itemIndex, fallback);
	if (!r.ok) return r;
	const v = r.value;
	if (typeof v === 'number' && Number.isFinite(v)) return { ok: true, value: v };
	if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)))
		return { ok: true, value: Number(v) };
	return {
		ok: false,
		error: `threshold: expected a number, got ${JSON.stringify(v) ?? String(v)}`,
	};
}

/**
 * Fails the node with the first error no retry can fix (bad key, model, quota or endpoint) that
 * the governor saw for `key`, unless Continue On Fail lets every row leave with it. `advice` says
 * who rejected the calls and what to check.
 */
/** A panel's jurors, each by its governor key, and the quorum, for {@link throwIfPanelFatal}. */
export interface PanelFatalCheck {
	jurors: ReadonlyArray<{ label: string; key: string }>;
	quorum?: number;
	/** Names the judge in the failure and the notice (its display name). */
	judge: string;
}

/**
 * A panel's fatal errors, told once: fails the node (unless Continue On Fail) when the jurors the
 * governor saw rejected leave fewer than the quorum; otherwise the run goes on with the others
 * and carries one warning naming each rejected juror and its error.
 */
export function throwIfPanelFatal(
	ctx: IExecuteFunctions,
	governor: Governor,
	check: PanelFatalCheck,
	advice: string,
): void {
	const verdict = panelFatal(
		check.jurors,
		check.quorum,
		(i) => governor.fatalError(check.jurors[i].key)?.message,
	);
	if (!verdict) return;
	if (verdict.failure !== undefined) {
		if (ctx.continueOnFail()) return;
		throw new NodeOperationError(ctx.getNode(), `${check.judge}: ${verdict.failure}`, {
			description: `${advice} Fix or remove the rejected juror, or lower Panel Quorum to judge with the others. Enable "Continue On Fail" to let rows leave with this error instead.`,
		});
	}
	const message = `${check.judge}: ${verdict.notice}`;
	ctx.logger?.warn(`${ctx.getNode().name}: ${message}`);
	ctx.addExecutionHints?.({ message, type: 'warning', location: 'outputPane' });
}

export function throwIfFatal(
	ctx: IExecuteFunctions,
	governor: Governor,
	key: string | undefined,
	advice: string,
): void {
	const fatal = key !== undefined ? governor.fatalError(key) : undefined;
	if (fatal && !ctx.continueOnFail()) {
		throw new NodeOperationError(ctx.getNode(), fatal.message, {
			description: `${advice} Enable "Continue On Fail" to let rows leave with this error instead.`,
		});
	}
}
