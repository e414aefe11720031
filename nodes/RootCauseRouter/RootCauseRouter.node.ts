import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { decideRootCause, routerOutputIndex, routerOutputNames } from '../../src/rootcause';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { policyFromParams, rootCauseProperties } from '../shared/rootCause';

/**
 * Root-Cause Router: overall pass/fail per row from every judge present, and on failure the
 * first failing judge in the Databricks order. Outputs are fixed: Pass, Incomplete, Custom Judge,
 * then one per declared root-cause slot at its declared position, so editing an order never
 * moves a connection.
 */
export class RootCauseRouter implements INodeType {
	static readonly search: NodeSearch = {
		families: ['run'],
		words: ['root cause', 'route', 'diagnosis', 'failure analysis'],
	};

	description: INodeTypeDescription = {
		displayName: 'Root-Cause Router',
		name: 'rootCauseRouter',
		icon: iconFor('router'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ 'ground truth: ' + $parameter.groundTruth }}",
		description:
			'Route each evaluated row to Pass, to the first failing judge in a fixed order (its root cause), or to Incomplete',
		defaults: { name: 'Root-Cause Router' },
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: routerOutputNames().map((displayName) => ({
			type: NodeConnectionTypes.Main,
			displayName,
		})),
		properties: [
			{
				displayName:
					'Every judge with a verdict counts toward the row: the first failing one in the order is its root cause. Failures of judges without their own output (your custom judges) leave on Custom Judge; rows a judge could not score leave on Incomplete.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			...rootCauseProperties,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const policy = policyFromParams({
			groundTruth: this.getNodeParameter('groundTruth', 0, 'auto'),
			orderWithGroundTruth: this.getNodeParameter('orderWithGroundTruth', 0, undefined),
			orderWithoutGroundTruth: this.getNodeParameter('orderWithoutGroundTruth', 0, undefined),
		});
		const out: INodeExecutionData[][] = routerOutputNames().map(() => []);
		items.forEach((item, i) => {
			const verdict = decideRootCause(item.json, policy);
			const json: IDataObject = {
				...item.json,
				overall: verdict.overall,
				root_cause: verdict.rootCause,
				root_cause_rationale: verdict.rationale ?? null,
				suggested_fix: verdict.suggestedFix ?? null,
			};
			const routed: INodeExecutionData = { json, pairedItem: { item: i } };
			if (item.binary) routed.binary = item.binary;
			out[routerOutputIndex(verdict)].push(routed);
		});
		return out;
	}
}
