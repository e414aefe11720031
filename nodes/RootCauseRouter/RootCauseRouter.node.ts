import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import {
	ORDER_WITH_GROUND_TRUTH,
	ORDER_WITHOUT_GROUND_TRUTH,
	determineRootCause,
} from '../../src/rootcause';
import { iconFor } from '../shared/common';
import { listParam } from '../shared/collect';

const WITH_GT = ORDER_WITH_GROUND_TRUTH.join(', ');
const WITHOUT_GT = ORDER_WITHOUT_GROUND_TRUTH.join(', ');

/** Outputs: Pass, one per cause of both orders (deduplicated, in order), Custom Judge, Incomplete. */
const OUTPUTS = `={{ (() => { const split = (s) => String(s || '').split(',').map((x) => x.trim()).filter(Boolean); const causes = []; for (const c of split($parameter.orderWithGroundTruth || '${WITH_GT}').concat(split($parameter.orderWithoutGroundTruth || '${WITHOUT_GT}'))) { if (!causes.includes(c)) causes.push(c); } return ['Pass'].concat(causes, ['Custom Judge', 'Incomplete']).map((n) => ({ type: 'main', displayName: n })); })() }}`;

/** Output names in index order, mirroring the OUTPUTS expression. */
function routerOutputs(withGt: string[], withoutGt: string[]): string[] {
	const causes: string[] = [];
	for (const c of [...withGt, ...withoutGt]) if (!causes.includes(c)) causes.push(c);
	return ['Pass', ...causes, 'Custom Judge', 'Incomplete'];
}

/**
 * Root-Cause Router: overall pass/fail per row from every judge present, and on failure the
 * first failing judge in the Databricks order, each cause on its own output with a suggested fix.
 */
export class RootCauseRouter implements INodeType {
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
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: OUTPUTS as INodeTypeDescription['outputs'],
		properties: [
			{
				displayName: 'Has Ground Truth',
				name: 'groundTruth',
				type: 'options',
				default: 'auto',
				options: [
					{
						name: 'Detect per Row',
						value: 'auto',
						description: 'Yes when the row has expected_response or expected_facts',
					},
					{ name: 'Yes', value: 'yes' },
					{ name: 'No', value: 'no' },
				],
				description:
					'Which order applies: rows with ground truth are diagnosed differently from rows without',
			},
			{
				displayName: 'Order With Ground Truth',
				name: 'orderWithGroundTruth',
				type: 'string',
				default: WITH_GT,
				description:
					'Judges checked in this order; the first that failed is the root cause. Custom judges come after.',
			},
			{
				displayName: 'Order Without Ground Truth',
				name: 'orderWithoutGroundTruth',
				type: 'string',
				default: WITHOUT_GT,
				description: 'Judges checked in this order when the row has no ground truth',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const withGt = listParam(this.getNodeParameter('orderWithGroundTruth', 0, WITH_GT) as string);
		const withoutGt = listParam(
			this.getNodeParameter('orderWithoutGroundTruth', 0, WITHOUT_GT) as string,
		);
		const gtMode = this.getNodeParameter('groundTruth', 0, 'auto') as 'auto' | 'yes' | 'no';
		const names = routerOutputs(withGt, withoutGt);
		const out: INodeExecutionData[][] = names.map(() => []);
		items.forEach((item, i) => {
			const scores = ((item.json.eval as IDataObject | undefined) ?? {}) as unknown as Record<
				string,
				Score
			>;
			const facts = item.json.expected_facts;
			const hasGroundTruth =
				gtMode === 'yes' ||
				(gtMode === 'auto' &&
					((typeof item.json.expected_response === 'string' &&
						item.json.expected_response !== '') ||
						(Array.isArray(facts) && facts.length > 0)));
			const order = hasGroundTruth ? withGt : withoutGt;
			const verdict = determineRootCause(scores, { hasGroundTruth, order });
			const json: IDataObject = {
				...item.json,
				overall: verdict.overall,
				root_cause: verdict.rootCause,
				root_cause_rationale: verdict.rationale ?? null,
				suggested_fix: verdict.suggestedFix ?? null,
			};
			let target: number;
			if (verdict.overall === 'pass') target = 0;
			else if (verdict.overall === 'incomplete') target = names.length - 1;
			else {
				const idx = names.indexOf(verdict.rootCause ?? '');
				target = idx > 0 && idx < names.length - 2 ? idx : names.length - 2;
			}
			const routed: INodeExecutionData = { json, pairedItem: { item: i } };
			if (item.binary) routed.binary = item.binary;
			out[target].push(routed);
		});
		return out;
	}
}
