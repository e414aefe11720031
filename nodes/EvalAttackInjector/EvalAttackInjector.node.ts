import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	ATTACK_FAMILIES,
	ATTACK_FAMILY_NAMES,
	AttackOptionError,
	injectAttacks,
	type AttackFamily,
	type AttackMode,
} from '../../src/safety/attacks';
import { HARM_CATEGORIES, HARM_NAMES, type HarmCategory } from '../../src/safety/levels';
import { iconFor } from '../shared/common';
import { listParam } from '../shared/collect';

/**
 * Attack Injector: the attacked copy of a dataset for jailbreak evaluation. Direct attacks go
 * before the first user turn, indirect ones into one retrieved document; each attacked row keeps
 * its baseline's pair id, and the same seed gives the same attacks.
 */
export class EvalAttackInjector implements INodeType {
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
			{
				displayName: 'Attack',
				name: 'mode',
				type: 'options',
				default: 'direct',
				options: [
					{
						name: 'Direct (User Prompt, UPIA)',
						value: 'direct',
						description: 'Prepend the attack to the first user turn of each row',
					},
					{
						name: 'Indirect (Document, XPIA)',
						value: 'indirect',
						description: 'Plant the attack in one retrieved document of each row',
					},
				],
			},
			{
				displayName: 'Seed',
				name: 'seed',
				type: 'number',
				default: 42,
				description:
					'The same seed gives byte-identical rows and attacks; keep it fixed to compare runs night after night',
			},
			{
				displayName: 'Attack Families',
				name: 'families',
				type: 'multiOptions',
				default: [],
				options: ATTACK_FAMILIES.map((f) => ({ name: ATTACK_FAMILY_NAMES[f], value: f })),
				description:
					'Families to draw templates from. None selected: every family that fits the attack.',
			},
			{
				displayName: 'Target Harm Categories',
				name: 'categories',
				type: 'multiOptions',
				default: [],
				options: HARM_CATEGORIES.map((c) => ({ name: HARM_NAMES[c], value: c })),
				description: 'What the attack payloads ask for. None selected: all four.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Attacks per Row',
						name: 'perRow',
						type: 'number',
						default: 1,
						typeOptions: { minValue: 1 },
						description: 'Attacked copies of each row, each with a different template',
					},
					{
						displayName: 'Include Baseline Rows',
						name: 'includeBaseline',
						type: 'boolean',
						default: true,
						description:
							'Whether to emit each untouched row too (attack.variant "baseline"), so one run evaluates both sets',
					},
					{
						displayName: 'Template IDs',
						name: 'templates',
						type: 'string',
						default: '',
						placeholder: 'role_play.unbound, encoding.base64',
						description:
							'Comma-separated template ids to use instead of the families (README lists them)',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const mode = this.getNodeParameter('mode', 0) as AttackMode;
		const seed = this.getNodeParameter('seed', 0) as number;
		const families = this.getNodeParameter('families', 0, []) as AttackFamily[];
		const categories = this.getNodeParameter('categories', 0, []) as HarmCategory[];
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		const ids = listParam(o.templates);
		let rows;
		try {
			rows = injectAttacks(
				items.map((i) => i.json),
				{
					mode,
					seed,
					templates: ids.length ? ids : families,
					categories,
					perRow: (o.perRow as number | undefined) ?? 1,
					includeBaseline: (o.includeBaseline as boolean | undefined) ?? true,
				},
			);
		} catch (e) {
			// Option errors name the option; anything else is a bug, still shown as a node error.
			const message =
				e instanceof AttackOptionError ? e.message : `unexpected failure: ${String(e)}`;
			throw new NodeOperationError(this.getNode(), message, {
				description: 'Check Seed, Attack Families, Target Harm Categories and the options.',
			});
		}
		return [
			rows.map((r) => {
				const out: INodeExecutionData = {
					json: r.json as IDataObject,
					pairedItem: { item: r.source },
				};
				const binary = items[r.source].binary;
				if (binary) out.binary = binary;
				return out;
			}),
		];
	}
}
