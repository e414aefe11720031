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
import { evaluateMetric, metricSignature, scoreKeyOf, withDefaults } from '../../src/core/evaluate';
import { errorScore, labelRowError, scoreBase } from '../../src/core/score';
import type { InputDecl, MetricDecl, ParamDecl, Score } from '../../src/core/types';
import {
	formatFields,
	iconFor,
	outputFormatProperty,
	readParam,
	readThreshold,
	routeScored,
	rowLabel,
	SCORING_OUTPUTS,
	splitProperties,
	withScore,
	type OutputFormat,
} from './common';

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

/** The n8n description of a metric node. */
export function metricDescription(decl: MetricDecl): INodeTypeDescription {
	const primary = decl.params.filter((p) => p.type === 'options');
	const tuning = decl.params.filter((p) => p.type !== 'options');
	return {
		displayName: decl.displayName,
		name: metricNodeName(decl.id),
		icon: iconFor('metric'),
		group: ['transform'],
		version: 1,
		subtitle: `={{ "${decl.displayName} >= " + $parameter.threshold }}`,
		description: decl.description,
		defaults: { name: decl.displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		usableAsTool: true,
		properties: [
			...decl.inputs.map(inputProperty),
			...primary.map(paramProperty),
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'number',
				default: decl.threshold.default,
				typeOptions: { numberPrecision: 4 },
				description: `A row passes when the score is ${decl.threshold.direction === 'higher' ? 'at least' : 'at most'} this value`,
			},
			...splitProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					...tuning.map(paramProperty),
					outputFormatProperty,
					{
						displayName: 'Result Key',
						name: 'resultKey',
						type: 'string',
						default: '',
						description: `Key under \`eval\` for this score. Defaults to the metric id (${decl.id}).`,
					},
				],
			},
		],
	};
}

/** Execute a metric node over all items: every item leaves with a Score. */
export async function executeMetric(
	this: IExecuteFunctions,
	decl: MetricDecl,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const scored: { item: INodeExecutionData; score: Score }[] = [];
	for (let i = 0; i < items.length; i++) {
		const options = (this.getNodeParameter('options', i, {}) as IDataObject) ?? {};
		const params: Record<string, unknown> = {};
		for (const p of decl.params) {
			const v =
				p.type === 'options' ? this.getNodeParameter(p.name, i, p.default) : options[p.name];
			if (v !== undefined) params[p.name] = v;
		}
		const t = readThreshold(this, i, decl.threshold.default);
		const threshold = t.ok ? t.value : undefined;
		const raw: Record<string, unknown> = {};
		let paramError: string | undefined = t.ok ? undefined : t.error;
		for (const input of decl.inputs) {
			const r = readParam(this, input.name, i);
			if (r.ok) raw[input.name] = r.value;
			else paramError ??= r.error;
		}
		let score: Score;
		if (paramError) {
			const p = withDefaults(decl, params);
			score = errorScore(
				scoreBase(decl, scoreKeyOf(decl, p), metricSignature(decl, p), threshold),
				paramError,
			);
		} else {
			score = evaluateMetric(decl, raw, { threshold, params });
		}
		labelRowError(score, rowLabel(items[i], i));
		const key = (options.resultKey as string) || score.metric;
		const format = (options.outputFormat as OutputFormat | undefined) ?? 'score';
		const extra = formatFields(format, key, score, decl);
		scored.push({ item: withScore(items[i], i, key, score, extra), score });
	}
	return routeScored(this, scored);
}

/** A node class for a metric: n8n's loader needs one class per file, so each file extends this. */
export function metricNodeClass(decl: MetricDecl): new () => INodeType {
	return class implements INodeType {
		description = metricDescription(decl);
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeMetric.call(this, decl);
		}
	};
}
