/**
 * Builds an n8n node type from an EmbeddingMetricDecl (Semantic Similarity): the vectors come from
 * a connected Embeddings sub-node (the `ai_embedding` input, any of n8n's Embeddings nodes) or
 * else the RAG Eval LLM API credential's /embeddings; one Governor per execution, the spend
 * limit, and the vectors cached in the verdict cache's store. Rows go through the one item loop
 * (./scoreItems).
 */
import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { errorScore, labelRowError, notApplicableScore, scoreBase } from '../../src/core/score';
import type { Score } from '../../src/core/types';
import { VectorCache } from '../../src/embeddings/cache';
import { estimateEmbeddingRow, recordingEmbeddingSource } from '../../src/embeddings/estimate';
import { embeddingEvaluator } from '../../src/embeddings/registry';
import {
	createOpenAIEmbeddingSource,
	createSubNodeEmbeddingSource,
	DEFAULT_EMBEDDING_MODEL,
	type EmbeddingSource,
} from '../../src/embeddings/source';
import type { EmbeddingMetricDecl } from '../../src/embeddings/types';
import { findPrice } from '../../src/cost';
import { openVerdictCache } from '../../src/judges/cache';
import { recordingSource, type RowEstimate } from '../../src/judges/estimate';
import { callKey } from '../../src/judges/model';
import { priceTableOption } from './collect';
import { evaluatorNames, type NodeSearch, type SearchableNodeClass } from './codex';
import {
	breakerRow,
	outputFormatProperty,
	rowLabel,
	SCORING_OUTPUTS,
	splitProperties,
} from './common';
import {
	cacheOptions,
	cacheProperties,
	LLM_CREDENTIAL,
	llmConfigFromCredential,
	ragEvalLlmApiTest,
	replyTokensOption,
	resolveSource,
	runtimeOptions,
	samplingOptions,
	spendLimitFor,
} from './llmOptions';
import { embeddingSpendOptions } from './embeddingEstimate';
import {
	maxTokensOf,
	maxTokensOption,
	modelProperty,
	modelRejectedAdvice,
} from './llmNodeProperties';
import {
	inputProperty,
	metricNodeHead,
	paramProperty,
	resultKeyProperty,
	thresholdProperty,
} from './metricNode';
import { nodeGovernor } from './nodeGovernor';
import { scoringOutputSchema } from './outputSchema';
import { estimateRows } from './judgeNode';
import { scoreItems } from './scoreItems';

/** Why a row is not scored when neither an Embeddings node nor a credential is there. */
export const NO_EMBEDDING_MODEL =
	'no embedding model configured: connect an Embeddings node or add a RAG Eval LLM API credential';

/** Rows in, and an optional Embeddings sub-node that embeds instead of the credential. */
export const EMBEDDING_NODE_INPUTS: INodeTypeDescription['inputs'] = [
	NodeConnectionTypes.Main,
	{
		type: NodeConnectionTypes.AiEmbedding,
		displayName: 'Embeddings',
		required: false,
		maxConnections: 1,
	},
];

/** The inputs of an evaluator that also asks the judge model: rows, Chat Model, Embeddings. */
const JUDGED_EMBEDDING_NODE_INPUTS: INodeTypeDescription['inputs'] = [
	NodeConnectionTypes.Main,
	{
		type: NodeConnectionTypes.AiLanguageModel,
		displayName: 'Chat Model',
		required: false,
		maxConnections: 1,
	},
	{
		type: NodeConnectionTypes.AiEmbedding,
		displayName: 'Embeddings',
		required: false,
		maxConnections: 1,
	},
];

/** Node name of an embedding evaluator: `eval` + PascalCase of its id. */
export function embeddingNodeName(id: string): string {
	return (
		'eval' +
		id
			.split(/[_-]/)
			.map((p) => p.charAt(0).toUpperCase() + p.slice(1))
			.join('')
	);
}

// The verdict cache's options, worded for vectors (same names: one store, one TTL).
const vectorCacheProperties: INodeProperties[] = cacheProperties.map((p) =>
	p.name === 'cache'
		? {
				...p,
				displayName: 'Cache Vectors',
				description:
					"Whether to reuse a text's vector embedded earlier by the same endpoint and model instead of calling the model again. Rows whose every vector was cached say cached: true; details.cache counts hits and misses.",
			}
		: p.name === 'cacheTtlHours'
			? { ...p, description: 'Vectors older than this are embedded again. 0 = never expire.' }
			: p,
);

const CONCURRENCY = new Set(['concurrency', 'maxConcurrency']);

/** The n8n description of an embedding evaluator's node. */
export function embeddingDescription(decl: EmbeddingMetricDecl): INodeTypeDescription {
	const primary = decl.params.filter((p) => p.type === 'options');
	const tuning = decl.params.filter((p) => p.type !== 'options');
	return {
		...metricNodeHead(decl, embeddingNodeName(decl.id)),
		inputs: decl.usesJudge ? JUDGED_EMBEDDING_NODE_INPUTS : EMBEDDING_NODE_INPUTS,
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		credentials: [{ name: LLM_CREDENTIAL, required: false, testedBy: 'ragEvalLlmApiTest' }],
		properties: [
			{
				displayName: decl.usesJudge
					? "Writes the questions with the Chat Model connected below (else the RAG Eval LLM API credential's model) and embeds with the connected Embeddings node (else the credential's /embeddings). Questions and vectors are cached; a failed call is the row's error, never a score."
					: "Embeds with the Embeddings node connected below when there is one, else the RAG Eval LLM API credential's /embeddings. Vectors are cached; a failed call is the row's error, never a score.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			...decl.inputs.map(inputProperty),
			...primary.map(paramProperty),
			...(decl.usesJudge ? [modelProperty('Model to write the questions with')] : []),
			{
				displayName: 'Embedding Model',
				name: 'embeddingModel',
				type: 'string',
				default: DEFAULT_EMBEDDING_MODEL,
				description:
					'Model the credential embeds with (Azure OpenAI: the embedding deployment). A connected Embeddings node uses its own model.',
			},
			thresholdProperty(decl.threshold),
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
					...samplingOptions('Embedding calls').filter(
						(p) => decl.usesJudge || CONCURRENCY.has(p.name),
					),
					...(decl.usesJudge ? [maxTokensOption] : []),
					...runtimeOptions,
					...embeddingSpendOptions(decl),
					...vectorCacheProperties,
					resultKeyProperty(decl.id),
				],
			},
		],
	};
}

/** The Embeddings sub-node connected to this node, if any. */
async function connectedEmbeddings(ctx: IExecuteFunctions): Promise<unknown> {
	const parents = ctx.getParentNodes?.(ctx.getNode().name, {
		connectionType: NodeConnectionTypes.AiEmbedding,
		depth: 1,
	});
	if (parents && parents.length === 0) return undefined;
	const data = await ctx.getInputConnectionData(NodeConnectionTypes.AiEmbedding, 0);
	return Array.isArray(data) ? data[0] : data;
}

/** The embedding source: a connected Embeddings node, else the credential, else none. */
async function resolveEmbeddingSource(
	ctx: IExecuteFunctions,
): Promise<EmbeddingSource | undefined> {
	const embeddings = await connectedEmbeddings(ctx);
	if (embeddings) return createSubNodeEmbeddingSource(embeddings);
	let cred: IDataObject | undefined;
	try {
		cred = (await ctx.getCredentials(LLM_CREDENTIAL)) as IDataObject;
	} catch {
		return undefined;
	}
	if (!cred) return undefined;
	const model =
		(ctx.getNodeParameter('embeddingModel', 0, DEFAULT_EMBEDDING_MODEL) as string).trim() ||
		DEFAULT_EMBEDDING_MODEL;
	return createOpenAIEmbeddingSource(llmConfigFromCredential(cred), model);
}

/** Execute an embedding evaluator's node over all items: every item leaves with a Score. */
export async function executeEmbedding(
	this: IExecuteFunctions,
	decl: EmbeddingMetricDecl,
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const source = await resolveEmbeddingSource(this);
	const paramsOf = (i: number): Record<string, unknown> => {
		const opts = (this.getNodeParameter('options', i, {}) as IDataObject) ?? {};
		const params: Record<string, unknown> = {};
		for (const p of decl.params) {
			const v = p.type === 'options' ? this.getNodeParameter(p.name, i, p.default) : opts[p.name];
			params[p.name] = v ?? p.default;
		}
		return params;
	};
	const sign = (model: string, i: number, threshold?: number) =>
		scoreBase(decl, decl.id, decl.signature(decl, model, paramsOf(i)), threshold);
	// The judge model, for evaluators that ask it too (Answer Relevancy's questions).
	const chat = decl.usesJudge ? await resolveSource(this) : undefined;
	const modelOverride = (this.getNodeParameter('model', 0, '') as string) || undefined;
	const judgeModel = chat ? (modelOverride ?? chat.defaultModel) : undefined;
	// Spend limit first: it may fail the node, and no store is opened before it. It counts with
	// the judge model's tokenizer when there is one; embeddings are priced by their own model.
	const estimating = options.runMode === 'estimate';
	const spend =
		source && !estimating
			? await spendLimitFor(this, options, judgeModel ?? source.model)
			: undefined;
	if (
		spend?.unit === 'usd' &&
		source &&
		!findPrice(source.model, priceTableOption(this, options.modelPrices))
	)
		throw new NodeOperationError(
			this.getNode(),
			`spend limit in USD: no price for the embedding model "${source.model}", so its spend cannot be counted`,
			{
				description:
					'No call was made. Add the embedding model to Model Prices or set the limit in tokens.',
			},
		);
	// Estimate Only prices a cold run and opens no store.
	const verdicts = source && !estimating ? openVerdictCache(cacheOptions(options)) : undefined;
	const estimates: RowEstimate[] = [];
	const estimateOpts =
		estimating && source
			? {
					embeddingModel: source.model,
					judgeModel,
					prices: priceTableOption(this, options.modelPrices),
					replyTokens: replyTokensOption(options),
				}
			: undefined;
	const resultKey = (options.resultKey as string) || decl.id;
	const cache = verdicts ? new VectorCache(verdicts.backend, verdicts.ttlMs) : undefined;
	const { governor, close: closeGovernor } = nodeGovernor(this, options);
	const evaluator = embeddingEvaluator(decl);
	const signal = this.getExecutionCancelSignal?.();
	return scoreItems(this, {
		inputs: decl.inputs,
		threshold: decl.threshold.default,
		factsOf: () => decl,
		unreadable: (error, row) => ({
			[decl.id]: errorScore(sign(source?.model ?? 'unknown', row.index, row.threshold), error),
		}),
		evaluateRow: async (values, { item, index, threshold }) => {
			if (!source)
				return {
					[decl.id]: notApplicableScore(sign('none', index, threshold), NO_EMBEDDING_MODEL),
				};
			const row = breakerRow(item, index);
			// Estimate Only: the row runs with sources that record what they would send.
			const embedRec = estimateOpts ? recordingEmbeddingSource(source) : undefined;
			const chatRec = estimateOpts && chat ? recordingSource(chat) : undefined;
			const params = paramsOf(index);
			const scores = await evaluator.evaluateRow(values, {
				source: embedRec?.source ?? source,
				governor,
				cache,
				spend,
				signal,
				row,
				threshold,
				params,
				judge: chat
					? {
							source: chatRec?.source ?? chat,
							governor,
							model: modelOverride,
							temperature: (options.temperature as number | undefined) ?? 0,
							seed: (options.seed as number) || undefined,
							maxTokens: maxTokensOf(options),
							spend,
							cache: verdicts,
							signal,
							row,
						}
					: undefined,
			});
			if (estimateOpts && embedRec) {
				const s = labelRowError(scores[decl.id], rowLabel(item, index));
				const judgeRequests = chatRec?.requests ?? [];
				// Texts a judge call would write are stood in for by the declaration.
				const pending =
					embedRec.texts.length === 0 && judgeRequests.length > 0
						? decl.estimateTexts?.(values, params)
						: undefined;
				estimates[index] = await estimateEmbeddingRow(
					judgeRequests,
					pending?.texts ?? embedRec.texts,
					s,
					{ ...estimateOpts, basis: pending?.basis },
				);
			}
			return scores;
		},
		// Read once the rows are done: the judge model's unfixable error, else the embedding model's.
		get fatal() {
			const judgeKey = chat ? callKey(chat, modelOverride) : undefined;
			const judged = judgeKey !== undefined && governor.fatalError(judgeKey) !== undefined;
			return {
				governor,
				key: judged ? judgeKey : source?.key,
				advice: modelRejectedAdvice(judged ? 'The judge model' : 'The embedding model'),
			};
		},
		close: async () => {
			await Promise.all([verdicts?.close(), closeGovernor()]);
		},
		...(estimating
			? {
					emit: async (items: INodeExecutionData[], rows: Record<string, Score>[]) => {
						const opts = estimateOpts ?? {
							embeddingModel: 'none',
							prices: priceTableOption(this, options.modelPrices),
						};
						for (let i = 0; i < items.length; i++) {
							const s = labelRowError(rows[i][decl.id], rowLabel(items[i], i));
							estimates[i] ??= await estimateEmbeddingRow([], [], s, opts);
						}
						return estimateRows(items, estimates, resultKey, judgeModel ?? opts.embeddingModel);
					},
				}
			: {}),
	});
}

/** A node class for an embedding evaluator; each node file extends it. */
export function embeddingNodeClass(decl: EmbeddingMetricDecl): SearchableNodeClass {
	return class implements INodeType {
		static readonly search: NodeSearch = {
			families: ['metric'],
			words: ['embedding', 'embeddings', 'cosine', 'semantic'],
			anchors: evaluatorNames([decl]),
		};
		static readonly outputSchema = scoringOutputSchema(decl.inputs, [decl.id]);
		description = embeddingDescription(decl);
		methods = { credentialTest: { ragEvalLlmApiTest } };
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeEmbedding.call(this, decl);
		}
	};
}
