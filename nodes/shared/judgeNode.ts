/**
 * Builds an n8n node type from a JudgeDecl: the judge model comes from the RAG Eval LLM API
 * credential or a connected Chat Model sub-node; one Governor per execution caps concurrency,
 * retries and fails fast; every row leaves with a Score (ok, not_applicable or error) through the
 * one item loop (./scoreItems).
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import {
	errorScore,
	labelRowError,
	NO_JUDGE_MODEL,
	notApplicableScore,
	scoreBase,
} from '../../src/core/score';
import { turnRuleOf } from '../../src/core/turns';
import type { Score, TurnRule } from '../../src/core/types';
import { openVerdictCache } from '../../src/judges/cache';
import { newRunState } from '../../src/judges/context';
import { judgeEvaluator } from '../../src/judges/evaluator';
import {
	estimatePanelRow,
	estimateRow,
	recordingSource,
	runEstimate,
	type RowEstimate,
} from '../../src/judges/estimate';
import { judgeSignature } from '../../src/judges/run';
import type { JudgeDecl } from '../../src/judges/types';
import {
	iconFor,
	outputFormatProperty,
	breakerRow,
	rowLabel,
	SCORING_OUTPUTS,
	splitProperties,
} from './common';
import { evaluatorNames, type NodeSearch, type SearchableNodeClass } from './codex';
import { scoringOutputSchema } from './outputSchema';
import { priceTableOption } from './collect';
import {
	cacheOptions,
	cacheProperties,
	LLM_CREDENTIAL,
	ragEvalLlmApiTest,
	replyTokensOption,
	runtimeOptions,
	samplingOptions,
	spendLimitFor,
	spendOptions,
} from './llmOptions';
import { maxTokensOf, maxTokensOption, modelProperty } from './llmNodeProperties';
import { inputProperty, paramProperty } from './metricNode';
import { nodeGovernor } from './nodeGovernor';
import {
	JUDGE_PANEL_INPUTS,
	judgeFatalCheck,
	panelModelsOf,
	panelOptionsFor,
	panelProperties,
	resolveJurors,
	samplesOption,
	scoringProperties,
} from './panelOptions';
import { scoreItems } from './scoreItems';
import { executeServiceJudge, judgeBackendOf, withServiceBackends } from './judgeServiceBackend';

export { LLM_CREDENTIAL, ragEvalLlmApiTest } from './llmOptions';

/** Node name of a judge: `judge` + PascalCase of its id (`groundedness` -> `judgeGroundedness`). */
export function judgeNodeName(id: string): string {
	return (
		'judge' +
		id
			.split(/[_-]/)
			.map((p) => p.charAt(0).toUpperCase() + p.slice(1))
			.join('')
	);
}

function promptProperties(decl: JudgeDecl): INodeProperties[] {
	return [
		{
			displayName: 'System Prompt',
			name: 'systemPrompt',
			type: 'string',
			typeOptions: { rows: 8 },
			default: decl.prompt.system,
			description:
				'Instructions for the judge. Placeholders in single braces, e.g. {response}, are filled per row (\\{ for a literal brace); judged text is wrapped in per-call delimiters.',
		},
		{
			displayName: 'User Prompt',
			name: 'userPrompt',
			type: 'string',
			typeOptions: { rows: 8 },
			default: decl.prompt.user,
			description: `Available placeholders: ${[...decl.inputs.map((i) => i.field), ...decl.params.map((p) => p.name), 'data_tag'].map((n) => `{${n}}`).join(', ')}`,
		},
	];
}

/** The Conversation Turns choices: which turns are judged, and by which rule they fold. */
type TurnsChoice = 'last' | 'every' | 'every_worst';

/**
 * Conversations: judge only the last exchange, or every assistant turn (Azure's conversation
 * format; default for the 1-5 judges). Yes/no (Databricks) judges judge the last turn by default.
 * Judges whose turns fold by the mean (the 1-5 ratings) also offer the worst turn: one bad turn
 * then fails the conversation instead of being averaged away.
 */
function conversationTurnsProperty(decl: JudgeDecl): INodeProperties[] {
	const rule = turnRuleOf(decl);
	// A judge of the whole conversation (the agent judges: turn rule `last`) reads the history as
	// one input and scores the last exchange once: judging every turn would only repeat that call.
	if (wholeConversation(decl)) return [];
	return [
		{
			displayName: 'Conversation Turns',
			name: 'conversationTurns',
			type: 'options',
			default: decl.scale.kind === 'binary' ? 'last' : 'every',
			options: [
				{ name: 'Last Turn', value: 'last' },
				{
					name: rule === 'mean' ? 'Every Assistant Turn (Mean)' : 'Every Assistant Turn',
					value: 'every',
					description:
						rule === 'mean'
							? 'The mean of the turn scores (a 5 and a 2 score 3.5); per-turn scores in details.turns'
							: `The ${rule} turn decides (yes only when every turn is yes); per-turn scores in details.turns`,
				},
				...(rule === 'mean'
					? [
							{
								name: 'Every Assistant Turn (Worst)',
								value: 'every_worst',
								description:
									'The lowest turn score decides (a 5 and a 2 score 2): one bad turn fails the conversation; per-turn scores in details.turns',
							},
						]
					: []),
			],
			description:
				'For rows with a conversation history: judge only the last reply, or every assistant turn. Turns before the last have no retrieved context or ground truth unless the row carries turn_contexts.',
		},
	];
}

/** Whether a judge reads the conversation as one input and is never run turn by turn. */
function wholeConversation(decl: JudgeDecl): boolean {
	return decl.turnRule === 'last';
}

/** The n8n description of a judge node. */
export function judgeDescription(decl: JudgeDecl): INodeTypeDescription {
	// A yes/no verdict passes by its value: a threshold field would have no effect.
	const binary = decl.scale.kind === 'binary';
	const thresholdProperty: INodeProperties[] = binary
		? []
		: [
				{
					displayName: 'Threshold',
					name: 'threshold',
					type: 'number',
					default: decl.threshold.default,
					typeOptions: { numberPrecision: 2 },
					description: `A row passes when the score is ${decl.threshold.direction === 'higher' ? 'at least' : 'at most'} this value (scale ${decl.scale.min}-${decl.scale.max})`,
				},
			];
	return {
		displayName: `${decl.displayName} Judge`,
		name: judgeNodeName(decl.id),
		icon: iconFor('judge'),
		group: ['transform'],
		version: 1,
		subtitle: binary
			? `${decl.displayName}: yes passes`
			: `={{ "${decl.displayName} ${decl.threshold.direction === 'higher' ? '>=' : '<='} " + $parameter.threshold }}`,
		description: decl.description,
		defaults: { name: decl.displayName },
		inputs: JUDGE_PANEL_INPUTS,
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		credentials: [{ name: LLM_CREDENTIAL, required: false, testedBy: 'ragEvalLlmApiTest' }],
		properties: [
			{
				displayName:
					'Uses the RAG Eval LLM API credential, or the Chat Model connected below when there is one; two or more Chat Models (or Options -> Panel Models) judge as a panel. Rows are judged concurrently with retries; failures are reported per row, never scored as 0.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			...decl.inputs.map(inputProperty),
			modelProperty('Model to judge with'),
			...thresholdProperty,
			...splitProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					...decl.params.map(paramProperty),
					...promptProperties(decl),
					outputFormatProperty,
					...samplingOptions('Judge calls'),
					maxTokensOption,
					...runtimeOptions,
					...spendOptions,
					...cacheProperties,
					...panelProperties(binary),
					...scoringProperties(decl),
					{
						displayName: 'Result Key',
						name: 'resultKey',
						type: 'string',
						default: '',
						description: `Key under \`eval\` for this score. Defaults to ${decl.id}.`,
					},
					...conversationTurnsProperty(decl),
				],
			},
		],
	};
}

/** Estimate-only rows: each with `estimate.<key>` (its own and the run's), never a score. */
export function estimateRows(
	items: INodeExecutionData[],
	estimates: RowEstimate[],
	resultKey: string,
	model: string,
): INodeExecutionData[] {
	const run = runEstimate(estimates, model);
	return items.map((item, i) => {
		const prev = (item.json.estimate as IDataObject | undefined) ?? {};
		const own = { ...estimates[i], run } as unknown as IDataObject;
		const json = { ...item.json, estimate: { ...prev, [resultKey]: own } };
		const next: INodeExecutionData = { json, pairedItem: { item: i } };
		if (item.binary) next.binary = item.binary;
		return next;
	});
}

// ---- Judge verdict cache (issue 15 item 1) ----

/** Execute a judge node over all items. */
export async function executeJudge(
	this: IExecuteFunctions,
	decl: JudgeDecl,
): Promise<INodeExecutionData[][]> {
	// Service backends (Groundedness via Azure AI Content Safety): ./judgeServiceBackend.ts.
	if (judgeBackendOf(this, decl) !== 'llm') return executeServiceJudge.call(this, decl);
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const { source, jurors } = await resolveJurors(this, options);
	const modelOverride = (this.getNodeParameter('model', 0, '') as string) || undefined;
	const temperature = (options.temperature as number | undefined) ?? 0;
	const promptOverride = {
		system: (options.systemPrompt as string) || undefined,
		user: (options.userPrompt as string) || undefined,
	};
	const params: Record<string, unknown> = {};
	for (const p of decl.params) if (options[p.name] !== undefined) params[p.name] = options[p.name];
	// Spend limit / estimate only: checked before any call is made.
	const estimating = options.runMode === 'estimate';
	const judgeModel = modelOverride ?? source?.defaultModel ?? 'unknown';
	// A panel's jurors share the limit, each charged at its own model's price.
	const models = panelModelsOf(jurors);
	const spend =
		source && !estimating ? await spendLimitFor(this, options, judgeModel, models) : undefined;
	// Verdict cache; no model means no calls, so no store is opened. Estimate Only prices a cold
	// run and must never store the recording source's placeholder replies. Opened after the spend
	// check, which may fail the node, so a store is never left open.
	const cache = source && !estimating ? openVerdictCache(cacheOptions(options)) : undefined;
	// Its breaker is shared with the execution's other nodes (./nodeGovernor.ts).
	const { governor, close: closeGovernor } = nodeGovernor(this, options);
	const estimates: RowEstimate[] = [];
	const estimateOpts = estimating
		? {
				model: judgeModel,
				prices: priceTableOption(this, options.modelPrices),
				replyTokens: replyTokensOption(options),
			}
		: undefined;
	const binary = decl.scale.kind === 'binary';
	const turnsChoice = (
		wholeConversation(decl) ? 'last' : (options.conversationTurns ?? (binary ? 'last' : 'every'))
	) as TurnsChoice;
	const turns: 'every' | 'last' = turnsChoice === 'last' ? 'last' : 'every';
	// The worst-turn choice overrides the declaration's rule; the signature names the rule used.
	const turnRule: TurnRule | undefined = turnsChoice === 'every_worst' ? 'worst' : undefined;
	const evaluator = judgeEvaluator(decl);
	// Two or more jurors judge as a panel; each juror's tokens priced from Model Prices.
	const prices = jurors.length > 1 ? priceTableOption(this, options.modelPrices) : undefined;
	const panel = panelOptionsFor(jurors, options, prices);
	const scoreFrom = options.scoreFrom === 'weighted' ? ('weighted' as const) : undefined;
	const signed = (model: string, threshold?: number) =>
		scoreBase(decl, decl.id, judgeSignature(decl, { model, temperature, scoreFrom }), threshold);
	const ctx = {
		source: source!,
		governor,
		model: modelOverride,
		temperature,
		scoreFrom,
		samples: samplesOption(options),
		seed: (options.seed as number) || undefined,
		maxTokens: maxTokensOf(options),
		promptOverride,
		params,
		signal: this.getExecutionCancelSignal?.(),
		spend,
		cache,
		// One per execution: what the rows learn (Fact Check's Auto mode) holds for the whole run.
		run: newRunState(),
		panel,
	};
	const resultKey = (options.resultKey as string) || decl.id;
	return scoreItems(this, {
		inputs: decl.inputs,
		// A yes/no verdict passes by its value: no threshold is read.
		threshold: binary ? undefined : decl.threshold.default,
		factsOf: () => decl,
		unreadable: (error, row) => ({
			[decl.id]: errorScore(signed(modelOverride ?? 'unknown', row.threshold), error),
		}),
		evaluateRow: async (values, { item, index, threshold }) => {
			if (!source) {
				return { [decl.id]: notApplicableScore(signed('none', threshold), NO_JUDGE_MODEL) };
			}
			const raw: Record<string, unknown> = { ...params, ...values };
			if (turns === 'every' && item.json.history !== undefined) {
				// The transcript and any per-turn contexts come from the record itself.
				raw.history ??= item.json.history;
				if (item.json.turn_contexts !== undefined) raw.turn_contexts = item.json.turn_contexts;
			}
			const rowCtx = { ...ctx, threshold, turns, turnRule, row: breakerRow(item, index) };
			if (!estimateOpts) return evaluator.evaluateRow(raw, rowCtx);
			const rec = recordingSource(source);
			// A panel's estimate counts every juror's calls, each priced at its own model.
			const recorded = panel?.jurors.map((j) => ({ ...j, rec: recordingSource(j.source) }));
			const scores = await evaluator.evaluateRow(raw, {
				...rowCtx,
				source: rec.source,
				...(panel && recorded
					? {
							panel: {
								...panel,
								jurors: recorded.map((j) => ({ ...j, source: j.rec.source })),
							},
						}
					: {}),
			});
			const s = labelRowError(scores[decl.id], rowLabel(item, index));
			estimates[index] = recorded
				? await estimatePanelRow(
						recorded.map((j) => ({ ...j, requests: j.rec.requests })),
						s,
						estimateOpts,
					)
				: await estimateRow(rec.requests, s, estimateOpts);
			return scores;
		},
		fatal: judgeFatalCheck(governor, source, modelOverride, panel, decl.displayName),
		close: async () => {
			await Promise.all([cache?.close(), closeGovernor()]);
		},
		...(estimateOpts
			? {
					emit: async (items: INodeExecutionData[], rows: Record<string, Score>[]) => {
						for (let i = 0; i < items.length; i++) {
							const s = labelRowError(rows[i][decl.id], rowLabel(items[i], i));
							estimates[i] ??= await estimateRow([], s, estimateOpts);
						}
						return estimateRows(items, estimates, resultKey, judgeModel);
					},
				}
			: {}),
	});
}

/** A node class for a judge: n8n's loader needs one class per file, so each file extends this. */
export function judgeNodeClass(decl: JudgeDecl): SearchableNodeClass {
	return class implements INodeType {
		static readonly search: NodeSearch = { families: ['judge'], anchors: evaluatorNames([decl]) };
		static readonly outputSchema = scoringOutputSchema(decl.inputs, [decl.id]);
		description = withServiceBackends(decl, judgeDescription(decl));
		methods = { credentialTest: { ragEvalLlmApiTest } };
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeJudge.call(this, decl);
		}
	};
}
