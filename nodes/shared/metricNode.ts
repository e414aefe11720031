/**
 * Builds an n8n node type from a deterministic MetricDecl: parameters default to the canonical
 * record's fields, the Score lands in `json.eval`, and rows can be split into Pass / Fail.
 */
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	metricEvaluator,
	metricSignature,
	scoreKeyOf,
	withDefaults,
} from '../../src/core/evaluate';
import { errorScore, scoreBase } from '../../src/core/score';
import type { InputDecl, MetricDecl, ParamDecl } from '../../src/core/types';
import {
	iconFor,
	outputFormatProperty,
	sameForEveryItem,
	SCORING_OUTPUTS,
	splitProperties,
} from './common';
import { evaluatorNames, type NodeSearch, type SearchableNodeClass } from './codex';
import { scoringOutputSchema } from './outputSchema';
import { scoreItems } from './scoreItems';

/** Node name of a metric: `eval` + PascalCase of its id (`f1_score` -> `evalF1Score`). */
export function metricNodeName(id: string): string {
	return (
		'eval' +
		id
			.split(/[_-]/)
			.map((p) => p.charAt(0).toUpperCase() + p.slice(1))
			.join('')
	);
}

/** Node parameter for one declared input, defaulting to the canonical field by expression. */
export function inputProperty(input: InputDecl): INodeProperties {
	return {
		displayName: input.displayName,
		name: input.name,
		type: input.kind === 'text' ? 'string' : 'json',
		default: `={{ $json.${input.field} }}`,
		required: input.required,
		description: `${input.description} Defaults to the dataset's \`${input.field}\` field.`,
	};
}

/** Node option for one declared parameter. */
export function paramProperty(p: ParamDecl): INodeProperties {
	const base = { displayName: p.displayName, name: p.name, description: p.description };
	switch (p.type) {
		case 'number':
			return {
				...base,
				type: 'number',
				default: p.default as number,
				typeOptions: { numberPrecision: 4 },
			};
		case 'boolean':
			return { ...base, type: 'boolean', default: p.default as boolean };
		case 'options':
			return { ...base, type: 'options', default: p.default as string, options: p.options ?? [] };
		case 'string':
			return { ...base, type: 'string', default: p.default as string };
	}
}

/** What a metric-like node (a metric, an embedding metric) says of itself: name, icon, subtitle. */
export function metricNodeHead(
	decl: Pick<MetricDecl, 'displayName' | 'description'>,
	name: string,
): Pick<
	INodeTypeDescription,
	'displayName' | 'name' | 'icon' | 'group' | 'version' | 'subtitle' | 'description' | 'defaults'
> {
	return {
		displayName: decl.displayName,
		name,
		icon: iconFor('metric'),
		group: ['transform'],
		version: 1,
		subtitle: `={{ "${decl.displayName} >= " + $parameter.threshold }}`,
		description: decl.description,
		defaults: { name: decl.displayName },
	};
}

/** The Threshold parameter of a metric-like node, worded by its direction. */
export function thresholdProperty(threshold: MetricDecl['threshold']): INodeProperties {
	return {
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		default: threshold.default,
		typeOptions: { numberPrecision: 4 },
		description: `A row passes when the score is ${threshold.direction === 'higher' ? 'at least' : 'at most'} this value`,
	};
}

/** The Result Key option: the key under `eval` a node writes its Score to. */
export function resultKeyProperty(id: string): INodeProperties {
	return {
		displayName: 'Result Key',
		name: 'resultKey',
		type: 'string',
		default: '',
		description: `Key under \`eval\` for this score. Defaults to the metric id (${id}).`,
	};
}

/** The n8n description of a metric node. */
export function metricDescription(decl: MetricDecl): INodeTypeDescription {
	const primary = decl.params.filter((p) => p.type === 'options');
	const tuning = decl.params.filter((p) => p.type !== 'options');
	return {
		...metricNodeHead(decl, metricNodeName(decl.id)),
		inputs: [NodeConnectionTypes.Main],
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		// Deterministic metrics are AI-agent tools: an agent can score its own answer against a
		// reference, or its retrieval against the expected documents (README, Nodes).
		usableAsTool: true,
		properties: [
			...decl.inputs.map(inputProperty),
			...primary.map(paramProperty),
			thresholdProperty(decl.threshold),
			...splitProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [...tuning.map(paramProperty), outputFormatProperty, resultKeyProperty(decl.id)],
			},
		],
	};
}

/** Execute a metric node over all items: every item leaves with a Score. */
export async function executeMetric(
	this: IExecuteFunctions,
	decl: MetricDecl,
): Promise<INodeExecutionData[][]> {
	const evaluator = metricEvaluator(decl);
	// Parameters may be expressions over the item, so they are read per row; without an
	// expression they are the same for every row and read once (one object for all rows).
	const readParams = (i: number): Record<string, unknown> => {
		const options = (this.getNodeParameter('options', i, {}) as IDataObject) ?? {};
		const params: Record<string, unknown> = {};
		for (const p of decl.params) {
			const v =
				p.type === 'options' ? this.getNodeParameter(p.name, i, p.default) : options[p.name];
			if (v !== undefined) params[p.name] = v;
		}
		return params;
	};
	const constant =
		sameForEveryItem(this, 'options') &&
		decl.params.every((p) => p.type !== 'options' || sameForEveryItem(this, p.name));
	let shared: Record<string, unknown> | undefined;
	const paramsOf = (i: number): Record<string, unknown> =>
		constant ? (shared ??= Object.freeze(readParams(0))) : readParams(i);
	return scoreItems(this, {
		inputs: decl.inputs,
		threshold: decl.threshold.default,
		// A metric with companions (Tool Calls) writes their Scores too, each with its own facts.
		factsOf: (key) => evaluator.factsOf(key),
		unreadable: (error, row) => {
			const p = withDefaults(decl, paramsOf(row.index));
			const key = scoreKeyOf(decl, p);
			const base = scoreBase(decl, key, metricSignature(decl, p), row.threshold);
			return { [key]: errorScore(base, error) };
		},
		evaluateRow: (values, row) =>
			evaluator.evaluateRow(values, { threshold: row.threshold, params: paramsOf(row.index) }),
	});
}

/** The key a metric's Score has under `eval` with its parameters at their defaults. */
export function defaultScoreKey(decl: MetricDecl): string {
	const params = Object.fromEntries(decl.params.map((p) => [p.name, p.default]));
	return decl.scoreKey ? decl.scoreKey(params) : decl.id;
}

/** A node class for a metric: n8n's loader needs one class per file, so each file extends this. */
export function metricNodeClass(decl: MetricDecl): SearchableNodeClass {
	return class implements INodeType {
		static readonly search: NodeSearch = { families: ['metric'], anchors: evaluatorNames([decl]) };
		static readonly outputSchema = scoringOutputSchema(decl.inputs, [
			defaultScoreKey(decl),
			...(decl.companions ?? []).map((c) => c.id),
		]);
		description = metricDescription(decl);
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeMetric.call(this, decl);
		}
	};
}
