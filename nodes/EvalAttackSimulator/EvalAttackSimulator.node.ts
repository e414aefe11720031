import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { openVerdictCache } from '../../src/judges/cache';
import { callKey } from '../../src/judges/model';
import {
	estimateRow,
	recordingSource,
	runEstimate,
	type RowEstimate,
} from '../../src/judges/estimate';
import type { JudgeContext } from '../../src/judges/run';
import {
	MAX_TURNS_LIMIT,
	simulateAttacks,
	type AttackWriter,
	type RefusalChoice,
	type SimulatedRow,
	type TurnsChoice,
} from '../../src/safety/simulate';
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
import { iconFor, throwIfFatal } from '../shared/common';
import { priceTableOption } from '../shared/collect';
import {
	cacheOptions,
	cacheProperties,
	JUDGE_NODE_INPUTS,
	LLM_CREDENTIAL,
	ragEvalLlmApiTest,
	replyTokensOption,
	resolveSource,
	runtimeOptions,
	samplingOptions,
	spendLimitFor,
} from '../shared/llmOptions';
import {
	modelProperty,
	modelRejectedAdvice,
	spendOptionsWithRun,
} from '../shared/llmNodeProperties';
import { nodeGovernor } from '../shared/nodeGovernor';

const rowOptions = attackRowOptions({
	perRow: 'Attacked copies of each row, each with a different technique',
	templates:
		'Comma-separated template ids to draw from instead of the techniques (README lists them)',
});

/** Key of the simulator's estimates under `estimate`. */
const ESTIMATE_KEY = 'attack_simulator';

/** The judges' spend options, with Mode worded for writing attacks. */
const simulatorSpendOptions = spendOptionsWithRun(
	{ name: 'Write Attacks', value: 'write', description: 'Ask the red-team model for every attack' },
	'Call nothing: render every attack prompt, count its tokens and price the run (item.json.estimate.attack_simulator); attacked rows leave unchanged with attack.error saying so',
	'Estimate Only prices a run before enabling it: attacked rows carry their estimated calls, tokens and USD, never an attack',
);

/**
 * Attack Simulator: the Attack Injector's paired dataset with attacks written by a red-team model
 * (direct jailbreaks in the user turn, single- or multi-turn, or instructions planted in a
 * retrieved document), reproducible by seed; without a model, the injector's templates.
 */
export class EvalAttackSimulator implements INodeType {
	static readonly search: NodeSearch = {
		families: ['red-team'],
		words: ['simulator', 'attack simulation', 'multi-turn'],
		anchors: ['AdversarialSimulator', 'DirectAttackSimulator', 'IndirectAttackSimulator'],
	};

	description: INodeTypeDescription = {
		displayName: 'Attack Simulator',
		name: 'evalAttackSimulator',
		icon: iconFor('attack'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ $parameter.mode + ' attacks, seed ' + $parameter.seed }}",
		description:
			'Write jailbreak attacks with a red-team model (user turn or retrieved document, single- or multi-turn), paired with their baseline rows',
		defaults: { name: 'Attack Simulator' },
		inputs: JUDGE_NODE_INPUTS,
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: LLM_CREDENTIAL, required: false, testedBy: 'ragEvalLlmApiTest' }],
		// Not an AI-agent tool: a pipeline step that builds a test set.
		usableAsTool: undefined,
		properties: [
			{
				displayName:
					'The red-team model is the RAG Eval LLM API credential, or the Chat Model connected below. Without one, the Attack Injector templates are used and every row says so (attack.generator).',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			attackModeProperty(
				'The attack goes before the first user turn of each row',
				'The attack is planted in one retrieved document of each row',
			),
			attackSeedProperty(
				"Decides each row's category, technique, turn count and document, is written into the attack prompt and its cache key, and is sent as the sampling seed: the same seed gives the same attacks",
			),
			{
				displayName: 'Turns',
				name: 'turns',
				type: 'options',
				default: 'single',
				displayOptions: { show: { mode: ['direct'] } },
				options: [
					{ name: 'Single Turn', value: 'single', description: 'One attack message' },
					{
						name: 'Multi-Turn',
						value: 'multi',
						description:
							'User turns that escalate over a conversation; the earlier ones go into history, the last before the first user turn',
					},
					{
						name: 'Mixed',
						value: 'mixed',
						description: 'Single or multi-turn, chosen per attack by the seed',
					},
				],
			},
			{
				displayName: 'Max Turns',
				name: 'maxTurns',
				type: 'number',
				default: 3,
				typeOptions: { minValue: 2, maxValue: MAX_TURNS_LIMIT },
				displayOptions: { show: { mode: ['direct'], turns: ['multi', 'mixed'] } },
				description: 'A multi-turn attack has 2 to this many user turns, chosen by the seed',
			},
			attackFamiliesProperty(
				'Techniques',
				'Attack families to draw from: the technique the model is asked to use, and the templates used without a model. None selected: every family that fits the attack.',
			),
			...attackCategoriesProperties('What the attacks try to get out of the app.'),
			modelProperty('Red-team model'),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					rowOptions.perRow,
					rowOptions.includeBaseline,
					{
						displayName: 'On Refusal',
						name: 'onRefusal',
						type: 'options',
						default: 'template',
						options: [
							{
								name: 'Use the Template',
								value: 'template',
								description:
									'The template of the same technique stands in; attack.fallback says the model declined',
							},
							{
								name: 'Mark the Row',
								value: 'error',
								description:
									'The attacked row leaves unchanged with attack.error; the comparison reports its pair incomplete',
							},
						],
						description: 'What to do when the red-team model declines to write an attack',
					},
					rowOptions.templates,
					...samplingOptions('Attack calls').filter((p) => p.name !== 'seed'),
					...runtimeOptions,
					...simulatorSpendOptions,
					...cacheProperties.map((p) =>
						p.name === 'cache'
							? {
									...p,
									displayName: 'Cache Attacks',
									description:
										'Whether to reuse the attack of an identical earlier call (same endpoint, model, temperature, seed, row text and plan) instead of calling the model: a re-run with the same seed gets the same attacks',
								}
							: p,
					),
				],
			},
		],
	};

	methods = { credentialTest: { ragEvalLlmApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { plan, options: o } = readAttackParameters(this);
		const { mode, seed } = plan;
		const turns = (
			mode === 'direct' ? this.getNodeParameter('turns', 0, 'single') : 'single'
		) as TurnsChoice;
		const maxTurns = turns === 'single' ? 3 : (this.getNodeParameter('maxTurns', 0, 3) as number);
		const opts = {
			...plan,
			turns,
			maxTurns,
			onRefusal: ((o.onRefusal as string | undefined) ?? 'template') as RefusalChoice,
		};
		const optionError = (e: unknown): never =>
			attackOptionError(
				this,
				e,
				'Check Seed, Turns, Max Turns, Techniques, Target Harm Categories and the options. No attack was written.',
			);
		const rows = items.map((i) => i.json);
		const source = await resolveSource(this);
		let out: SimulatedRow[];
		let estimates: Map<string, RowEstimate> | undefined;
		let estimateModel = '';
		if (!source) {
			out = await simulateAttacks(rows, opts).catch(optionError);
		} else {
			const modelOverride = (this.getNodeParameter('model', 0, '') as string) || undefined;
			const model = modelOverride ?? source.defaultModel;
			const estimating = o.runMode === 'estimate';
			// Checked before any call: a limit that cannot work fails the node.
			const spend = estimating ? undefined : await spendLimitFor(this, o, model);
			const cache = estimating ? undefined : openVerdictCache(cacheOptions(o));
			const { governor, close } = nodeGovernor(this, o);
			const base: JudgeContext = {
				source,
				governor,
				model: modelOverride,
				temperature: (o.temperature as number | undefined) ?? 0,
				// The attack seed doubles as the sampling seed, where the server supports one.
				seed,
				signal: this.getExecutionCancelSignal?.(),
				spend,
				cache,
			};
			const recorded = new Map<string, ReturnType<typeof recordingSource>>();
			const writer: AttackWriter = {
				width: Math.max(1, governor.maxConcurrencyFor(callKey(source, modelOverride)) * 2),
				contextFor(plan, slot) {
					if (!estimating) return base;
					const rec = recordingSource(source);
					recorded.set(`${plan.index}:${slot.k}`, rec);
					return { ...base, source: rec.source };
				},
			};
			if (estimating) {
				estimates = new Map();
				estimateModel = model;
				const est = {
					model,
					prices: priceTableOption(this, o.modelPrices),
					replyTokens: replyTokensOption(o),
				};
				writer.onScore = async (plan, slot, score) => {
					const key = `${plan.index}:${slot.k}`;
					estimates!.set(key, await estimateRow(recorded.get(key)?.requests ?? [], score, est));
				};
			}
			try {
				out = await simulateAttacks(rows, opts, writer).catch(optionError);
			} finally {
				await Promise.all([cache?.close(), close()]);
			}
			// A rejected key or model name fails the node as it does a judge's: a night of
			// "incomplete" pairs would hide a broken credential behind a red-team report.
			throwIfFatal(
				this,
				governor,
				callKey(source, modelOverride),
				modelRejectedAdvice('The red-team model'),
			);
		}
		const run = estimates ? runEstimate([...estimates.values()], estimateModel) : undefined;
		return [
			pairedRows(items, out, (r) => {
				const json = r.json as IDataObject;
				const own = r.k !== undefined ? estimates?.get(`${r.source}:${r.k}`) : undefined;
				if (!own) return json;
				const prev = (json.estimate as IDataObject | undefined) ?? {};
				return {
					...json,
					estimate: { ...prev, [ESTIMATE_KEY]: { ...own, run } as unknown as IDataObject },
				};
			}),
		];
	}
}
