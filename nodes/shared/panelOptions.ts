/**
 * Judge panels in a node: the jurors (every connected Chat Model, and the models of Panel Models
 * on the RAG Eval LLM API credential), the Panel options, and the panel a node run judges with
 * (src/judges/panel.ts pools the verdicts); and how a rating is scored (sampled, weighted by
 * log-probabilities, repeated samples).
 */
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import type { PriceTable } from '../../src/cost';
import {
	callKey,
	createChatModelSource,
	createOpenAIModelSource,
	type ModelSource,
} from '../../src/judges/model';
import { weightable } from '../../src/judges/logprobs';
import type { Juror, PanelOptions, PoolRule } from '../../src/judges/panel';
import type { JudgeDecl } from '../../src/judges/types';
import type { Governor } from '../../src/judges/governor';
import type { PanelFatalCheck } from './common';
import { modelRejectedAdvice } from './llmNodeProperties';
import { connectedChatModels, LLM_CREDENTIAL, llmConfigFromCredential } from './llmOptions';

/**
 * Rows in, and any number of Chat Model sub-nodes: one judges instead of the credential, two or
 * more judge as a panel (src/judges/panel.ts).
 */
export const JUDGE_PANEL_INPUTS: INodeTypeDescription['inputs'] = [
	NodeConnectionTypes.Main,
	{
		type: NodeConnectionTypes.AiLanguageModel,
		displayName: 'Chat Model',
		required: false,
	},
];

/** A judge node's model sources: the first judges alone; two or more are a panel's jurors. */
export interface JudgeJurors {
	/** The first juror's source (the only one without a panel); absent: no model. */
	source?: ModelSource;
	jurors: Juror[];
}

/** The credential's models listed in Panel Models, trimmed, without blanks and repeats. */
export function panelModelsOption(options: IDataObject): string[] {
	const raw = options.panelModels;
	if (typeof raw !== 'string') return [];
	return [
		...new Set(
			raw
				.split(/[,\n]/)
				.map((m) => m.trim())
				.filter(Boolean),
		),
	];
}

/**
 * The jurors of a judge node: every connected Chat Model, then each model of Panel Models on the
 * RAG Eval LLM API credential. Without Panel Models the credential judges only when no Chat Model
 * is connected, as before panels.
 */
export async function resolveJurors(
	ctx: IExecuteFunctions,
	options: IDataObject,
): Promise<JudgeJurors> {
	const chatModels = await connectedChatModels(ctx);
	const jurors: Juror[] = [];
	const named = new Map<string, number>();
	const labelOf = (kind: string, model: string) => {
		// Two jurors of one model (on two servers) are told apart by a count.
		const base = `${kind} (${model})`;
		const n = (named.get(base) ?? 0) + 1;
		named.set(base, n);
		return n === 1 ? base : `${base} #${n}`;
	};
	for (const m of chatModels) {
		const source = createChatModelSource(m);
		jurors.push({ label: labelOf('chat model', source.defaultModel), source });
	}
	const listed = panelModelsOption(options);
	if (listed.length > 0 || jurors.length === 0) {
		let cred: IDataObject | undefined;
		try {
			cred = (await ctx.getCredentials(LLM_CREDENTIAL)) as IDataObject;
		} catch {
			cred = undefined;
		}
		if (cred) {
			if (listed.length === 0) {
				const source = createOpenAIModelSource(
					llmConfigFromCredential(cred, ctx.getNodeParameter('model', 0, '') as string),
				);
				jurors.push({ label: labelOf('credential', source.defaultModel), source });
			} else {
				const source = createOpenAIModelSource(llmConfigFromCredential(cred));
				for (const model of listed)
					jurors.push({ label: labelOf('credential', model), source, model });
			}
		}
	}
	return { source: jurors[0]?.source, jurors };
}

/** Panel Models, Panel Pool and Panel Quorum: what a judge node's jurors are and how they pool. */
export function panelProperties(binary: boolean): INodeProperties[] {
	return [
		{
			displayName: 'Panel Models',
			name: 'panelModels',
			type: 'string',
			default: '',
			placeholder: 'gpt-4o-mini, gpt-4.1-mini',
			description:
				'Models on the RAG Eval LLM API credential that judge as a panel, comma-separated, beside any connected Chat Models. Two or more jurors in all make a panel: each judges the row, and their verdicts are pooled.',
		},
		{
			displayName: 'Panel Pool',
			name: 'panelPool',
			type: 'options',
			default: 'auto',
			options: [
				{
					name: 'Automatic',
					value: 'auto',
					description:
						"The judge's own rule: majority for yes/no verdicts (Safety: worst), the mean for ratings",
				},
				{
					name: 'Majority',
					value: 'majority',
					description: 'The most common verdict; a tie takes the failing one',
				},
				{
					name: 'Mean',
					value: 'mean',
					description: binary ? 'Yes/no verdicts: the majority' : 'The mean of the ratings',
				},
				{
					name: 'Median',
					value: 'median',
					description: binary ? 'Yes/no verdicts: the majority' : 'The middle rating',
				},
				{
					name: 'Worst',
					value: 'worst',
					description: 'The worst verdict decides: one juror failing the row fails it (safety)',
				},
			],
			description: "How the jurors of a panel make the row's verdict",
		},
		{
			displayName: 'Panel Quorum',
			name: 'panelQuorum',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0 },
			description:
				'Jurors that must answer for a row to get a verdict; below it the row leaves with an error naming the jurors that failed. 0 = every juror.',
		},
	];
}

/** The panel of a node run, when it has two or more jurors; prices price each juror's tokens. */
export function panelOptionsFor(
	jurors: ReadonlyArray<Juror>,
	options: IDataObject,
	prices?: PriceTable,
): PanelOptions | undefined {
	if (jurors.length < 2) return undefined;
	const pool = options.panelPool;
	const quorum = options.panelQuorum;
	return {
		jurors,
		...(pool === 'majority' || pool === 'mean' || pool === 'median' || pool === 'worst'
			? { pool: pool as PoolRule }
			: {}),
		...(typeof quorum === 'number' && quorum > 0 ? { quorum } : {}),
		...(prices ? { prices } : {}),
	};
}

/** A panel's jurors' models, each charged at its own price by the spend limit; none alone. */
export function panelModelsOf(jurors: ReadonlyArray<Juror>): string[] | undefined {
	return jurors.length > 1 ? jurors.map((j) => j.model ?? j.source.defaultModel) : undefined;
}

/**
 * What the item loop checks of a judge node's fatal errors: the lone judge's key, or a panel's
 * jurors each by its own governor key, so a rejected juror is told once and fails the node only
 * when the others are below the quorum.
 */
export function judgeFatalCheck(
	governor: Governor,
	source: ModelSource | undefined,
	model: string | undefined,
	panel: PanelOptions | undefined,
	judge: string,
): { governor: Governor; key: string | undefined; advice: string; panel?: PanelFatalCheck } {
	return {
		governor,
		key: source ? callKey(source, model) : undefined,
		advice: modelRejectedAdvice('The judge model'),
		...(panel
			? {
					panel: {
						jurors: panel.jurors.map((j) => ({ label: j.label, key: callKey(j.source, j.model) })),
						quorum: panel.quorum,
						judge,
					},
				}
			: {}),
	};
}

/**
 * Rating judges (1-5, 0-7): Score From the sampled score, or the probability-weighted mean of the
 * score token's alternatives (src/judges/logprobs.ts), and repeated samples.
 */
export function scoringProperties(decl: Pick<JudgeDecl, 'scale'>): INodeProperties[] {
	const weighted: INodeProperties[] = weightable(decl.scale)
		? [
				{
					displayName: 'Score From',
					name: 'scoreFrom',
					type: 'options',
					default: 'sampled',
					options: [
						{
							name: 'Sampled Score',
							value: 'sampled',
							description: 'The score the model wrote',
						},
						{
							name: 'Probability-Weighted (Log-Probabilities)',
							value: 'weighted',
							description:
								'Asks for log-probabilities and takes the mean of the valid scores weighted by their probability at the score token (G-Eval); the spread in details.weighting. Models that return none keep the sampled score, with a note.',
						},
					],
				},
			]
		: [];
	return [
		...weighted,
		{
			displayName: 'Samples',
			name: 'samples',
			type: 'number',
			default: 1,
			typeOptions: { minValue: 1, maxValue: 20 },
			description:
				'Judge each row this many times (each juror of a panel too) and take the mean (yes/no: the majority), with the spread in details.samples. Samples differ only with a Temperature above 0; each is its own call and its own cache entry.',
		},
	];
}

/** The Samples option: a whole number above 1, else undefined (the row is judged once). */
export function samplesOption(options: IDataObject): number | undefined {
	const n = options.samples;
	return typeof n === 'number' && Number.isFinite(n) && n > 1
		? Math.min(20, Math.floor(n))
		: undefined;
}
