import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { injectAttacks } from '../../src/safety/attacks';
import {
	attackFamiliesProperty,
	attackModeProperty,
	attackOptionError,
	attackRowOptions,
	attackSeedProperty,
	attackCategoriesProperties,
	pairedRows,
	readAttackParameters,
} from '../shared/attackParams';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';

const rowOptions = attackRowOptions({
	perRow: 'Attacked copies of each row, each with a different template',
	templates: 'Comma-separated template ids to use instead of the families (README lists them)',
});

/**
 * Attack Injector: the attacked copy of a dataset for jailbreak evaluation. Direct attacks go
 * before the first user turn, indirect ones into one retrieved document; each attacked row keeps
 * its baseline's pair id, and the same seed gives the same attacks.
 */
export class EvalAttackInjector implements INodeType {
	static readonly search: NodeSearch = {
		families: ['red-team'],
		words: ['injection', 'direct attack', 'indirect attack', 'UPIA', 'XPIA'],
	};

	description: INodeTypeDescription = {
		displayName: 'Attack Injector',
		name: 'evalAttackInjector',
		icon: iconFor('attack'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ $parameter.mode + ' attacks, seed ' + $parameter.seed }}",
		description:
			'Add jailbreak attacks to eval rows (first user turn or a retrieved document), paired with their baseline rows',
		defaults: { name: 'Attack Injector' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		properties: [
			attackModeProperty(
				'Prepend the attack to the first user turn of each row',
				'Plant the attack in one retrieved document of each row',
			),
			attackSeedProperty(
				'The same seed gives byte-identical rows and attacks; keep it fixed to compare runs night after night',
			),
			attackFamiliesProperty(
				'Attack Families',
				'Families to draw templates from. None selected: every family that fits the attack.',
			),
			...attackCategoriesProperties('What the attack payloads ask for.'),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [rowOptions.perRow, rowOptions.includeBaseline, rowOptions.templates],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { plan } = readAttackParameters(this);
		let rows;
		try {
			rows = injectAttacks(
				items.map((i) => i.json),
				plan,
			);
		} catch (e) {
			attackOptionError(
				this,
				e,
				'Check Seed, Attack Families, Target Harm Categories and the options.',
			);
		}
		return [pairedRows(items, rows)];
	}
}
