import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPairedItemData,
} from 'n8n-workflow';
import { compareJailbreak, jailbreakSlack, JailbreakOptionError } from '../../src/safety/jailbreak';
import {
	DEFAULT_DEFECT_LEVEL,
	DEFECT_LEVELS,
	HARM_CATEGORIES,
	HARM_NAMES,
	levelName,
	type HarmCategory,
	type SeverityLevel,
} from '../../src/safety/levels';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { allPaired } from '../shared/collect';

/**
 * Jailbreak Comparison: direct-attack defects (seed 000) from content-safety Scores on baseline
 * and attacked rows paired by the Attack Injector's pair id. Summary output: defect rate per
 * category, pairs compared and incomplete, a verdict and a Slack message; Pairs output: one item
 * per attacked row beside its baseline, then any row in no pair with the reason.
 */
export class EvalJailbreakComparison implements INodeType {
	static readonly search: NodeSearch = {
		families: ['red-team'],
		words: ['defect rate', 'comparison', 'baseline'],
	};

	description: INodeTypeDescription = {
		displayName: 'Jailbreak Comparison',
		name: 'evalJailbreakComparison',
		icon: iconFor('jailbreak'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ 'defect at ' + $parameter.defectLevel + ' and above' }}",
		description:
			'Compare content-safety results of attacked rows with their baseline rows: direct-attack defect rate per harm category',
		defaults: { name: 'Jailbreak Comparison' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [
			{ type: NodeConnectionTypes.Main, displayName: 'Summary' },
			{ type: NodeConnectionTypes.Main, displayName: 'Pairs' },
		],
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		properties: [
			{
				displayName: 'Defect Level',
				name: 'defectLevel',
				type: 'options',
				default: DEFAULT_DEFECT_LEVEL,
				options: DEFECT_LEVELS.map((l) => ({ name: `${levelName(l)} and Above`, value: l })),
				description:
					'An attacked reply at this severity or above is a defect when its baseline reply was below it',
			},
			{
				displayName: 'Categories',
				name: 'categories',
				type: 'multiOptions',
				default: [],
				options: HARM_CATEGORIES.map((c) => ({ name: HARM_NAMES[c], value: c })),
				description:
					'Harm categories to compare (eval.<category> Scores). None selected: every category scored on any row.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Report Title',
						name: 'title',
						type: 'string',
						default: 'Red-team: direct attacks',
					},
					{
						displayName: 'Run URL',
						name: 'runUrl',
						type: 'string',
						default: '',
						placeholder:
							"={{ 'https://n8n.example.com/workflow/' + $workflow.id + '/executions/' + $execution.id }}",
						description: 'Link to this execution in the Slack message',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const defectLevel = this.getNodeParameter('defectLevel', 0) as SeverityLevel;
		const categories = this.getNodeParameter('categories', 0, []) as HarmCategory[];
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		let result;
		try {
			result = compareJailbreak(
				items.map((i) => i.json),
				{ defectLevel, categories },
			);
		} catch (e) {
			// Option errors name the option; anything else is a bug, still shown as a node error.
			const message =
				e instanceof JailbreakOptionError ? e.message : `unexpected failure: ${String(e)}`;
			throw new NodeOperationError(this.getNode(), message, {
				description: 'Check Defect Level and Categories.',
			});
		}
		const { summary, pairs, unpaired } = result;
		const slack = jailbreakSlack(summary, pairs, {
			title: typeof o.title === 'string' && o.title.trim() ? o.title : undefined,
			runUrl: typeof o.runUrl === 'string' && o.runUrl.trim() ? o.runUrl : undefined,
		});
		const pairItems: INodeExecutionData[] = pairs.map((p) => {
			const lineage: IPairedItemData[] = [p.baselineIndex, p.attackedIndex]
				.filter((i): i is number => i !== null)
				.map((item) => ({ item }));
			return { json: p as unknown as IDataObject, pairedItem: lineage };
		});
		// Rows in no pair leave on Pairs too, each with the reason, so no row is lost.
		for (const u of unpaired)
			pairItems.push({
				json: { status: 'unpaired', row: u.index + 1, request_id: u.request_id, error: u.error },
				pairedItem: [{ item: u.index }],
			});
		return [
			[
				{
					json: { ...summary, slack } as unknown as IDataObject,
					pairedItem: allPaired(items.length),
				},
			],
			pairItems,
		];
	}
}
