/**
 * One node for a family of metric declarations sharing their inputs (the retrieval metrics): a
 * Metric chooser picks the declaration, which then runs exactly as its own metric node would.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { MetricDecl } from '../../src/core/types';
import { evaluatorNames, type NodeSearch, type SearchableNodeClass } from './codex';
import { choiceSubtitle } from './common';
import { scoringOutputSchema } from './outputSchema';
import { defaultScoreKey, executeMetric, metricDescription, paramProperty } from './metricNode';

/** The node description: the first declaration's, with a Metric chooser and K shown when used. */
export function metricFamilyDescription(
	name: string,
	displayName: string,
	description: string,
	decls: MetricDecl[],
): INodeTypeDescription {
	const base = metricDescription(decls[0]);
	const withK = decls.filter((d) => d.params.some((p) => p.name === 'k')).map((d) => d.id);
	return {
		...base,
		name,
		displayName,
		description,
		defaults: { name: displayName },
		subtitle: choiceSubtitle('metric', Object.fromEntries(decls.map((d) => [d.id, d.displayName]))),
		properties: [
			{
				displayName: 'Metric',
				name: 'metric',
				type: 'options',
				default: decls[0].id,
				options: decls.map((d) => ({
					name: d.displayName,
					value: d.id,
					description: d.description,
				})),
			},
			...base.properties.slice(0, decls[0].inputs.length),
			{
				displayName: 'K',
				name: 'k',
				type: 'number',
				default: 5,
				typeOptions: { minValue: 1 },
				displayOptions: { show: { metric: withK } },
				description: 'How many of the top-ranked documents count',
			},
			...choiceParams(decls),
			...base.properties.slice(decls[0].inputs.length),
		],
	};
}

/**
 * The choice parameters (`options` type: NDCG's Gain) of the family's later metrics, each shown
 * for the metrics that declare it; the first metric's own are in its base description already.
 */
function choiceParams(decls: MetricDecl[]): INodeProperties[] {
	const own = new Set(decls[0].params.map((p) => p.name));
	const out: INodeProperties[] = [];
	const seen = new Set<string>();
	for (const d of decls.slice(1)) {
		for (const p of d.params) {
			if (p.type !== 'options' || own.has(p.name) || seen.has(p.name)) continue;
			seen.add(p.name);
			const ids = decls.filter((x) => x.params.some((q) => q.name === p.name)).map((x) => x.id);
			out.push({ ...paramProperty(p), displayOptions: { show: { metric: ids } } });
		}
	}
	return out;
}

/** A node class over a family of metric declarations. */
export function metricFamilyNodeClass(
	name: string,
	displayName: string,
	description: string,
	decls: MetricDecl[],
	words: string[] = [],
): SearchableNodeClass {
	return class implements INodeType {
		static readonly search: NodeSearch = {
			families: ['metric'],
			words: [...words, ...decls.map((d) => d.displayName)],
			anchors: evaluatorNames(decls),
		};
		// With the Metric option at its default, the family's first metric.
		static readonly outputSchema = scoringOutputSchema(decls[0].inputs, [
			defaultScoreKey(decls[0]),
		]);
		description = metricFamilyDescription(name, displayName, description, decls);
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const id = this.getNodeParameter('metric', 0) as string;
			const decl = decls.find((d) => d.id === id);
			if (!decl) throw new NodeOperationError(this.getNode(), `Unknown metric "${id}"`);
			const k = this.getNodeParameter('k', 0, 5) as number;
			// K is a top-level field here; the shared executor reads tuning params from Options.
			const withK: MetricDecl = {
				...decl,
				params: decl.params.map((p) => (p.name === 'k' ? { ...p, default: k } : p)),
			};
			return executeMetric.call(this, withK);
		}
	};
}
