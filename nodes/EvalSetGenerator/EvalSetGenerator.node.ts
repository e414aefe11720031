import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { openVerdictCache } from '../../src/judges/cache';
import { callKey } from '../../src/judges/model';
import {
	DEFAULT_CHUNK_OVERLAP,
	DEFAULT_CHUNK_SIZE,
	DEFAULT_DUPLICATE_THRESHOLD,
	DEFAULT_MIX,
	estimateGenerator,
	fileText,
	generateEvalSet,
	KIND_NAMES,
	parseMix,
	QUESTION_KINDS,
	readDocument,
	type GeneratorOptions,
	type SourceDocument,
} from '../../src/generate';
import type { NodeSearch } from '../shared/codex';
import { iconFor, throwIfFatal } from '../shared/common';
import { priceTableOption } from '../shared/collect';
import {
	cacheOptions,
	cacheProperties,
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

const DEFAULT_MIX_TEXT = QUESTION_KINDS.map((k) => `${k}=${DEFAULT_MIX[k]}`).join(', ');

/**
 * Eval Set Generator: documents in, draft golden rows out. Every row is checked before it leaves
 * (groundedness of its expected facts against the chunks it cites, unanswerable really
 * unanswerable, optionally not answerable without the documents, no near-duplicate) and carries
 * metadata.source "generated" with the generator's signature; every planned question that fails
 * leaves on Invalid with why, as does every input item that is not a readable document.
 */
export class EvalSetGenerator implements INodeType {
	static readonly search: NodeSearch = {
		families: ['dataset'],
		words: ['generate', 'synthetic data', 'test set generation', 'questions', 'golden dataset'],
	};

	description: INodeTypeDescription = {
		displayName: 'Eval Set Generator',
		name: 'evalSetGenerator',
		icon: iconFor('dataset'),
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter.rows + " questions" }}',
		description:
			'Draft an evaluation set from your documents: questions of several kinds with expected facts and the source chunks, each checked before it is kept',
		defaults: { name: 'Eval Set Generator' },
		usableAsTool: undefined,
		inputs: [
			NodeConnectionTypes.Main,
			{
				type: NodeConnectionTypes.AiLanguageModel,
				displayName: 'Chat Model',
				required: false,
				maxConnections: 1,
			},
		],
		outputs: [
			{ type: NodeConnectionTypes.Main, displayName: 'Rows' },
			{ type: NodeConnectionTypes.Main, displayName: 'Invalid' },
		],
		credentials: [{ name: LLM_CREDENTIAL, required: false, testedBy: 'ragEvalLlmApiTest' }],
		properties: [
			{
				displayName:
					'Input: one document per item ({text, id} or {pageContent, metadata.source} from a document loader or vector store), or a text, Markdown or HTML file in a binary property. Rows are drafts for people to review: each carries metadata.source "generated".',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Number of Rows',
				name: 'rows',
				type: 'number',
				default: 20,
				typeOptions: { minValue: 1, maxValue: 10000 },
				description: 'Questions to keep, split over the kinds by Mix of Kinds',
			},
			{
				displayName: 'Mix of Kinds',
				name: 'mix',
				type: 'string',
				default: DEFAULT_MIX_TEXT,
				description: `Relative weights, kind=weight separated by commas. Kinds: ${QUESTION_KINDS.map((k) => `${k} (${KIND_NAMES[k]})`).join(', ')}.`,
			},
			{
				displayName: 'Seed',
				name: 'seed',
				type: 'number',
				default: 1,
				description:
					'Picks the chunks and the order of kinds; the same documents, options and seed give the same plan (and, with the cache, no new calls)',
			},
			modelProperty('Model to generate and check with'),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Binary Property',
						name: 'binaryProperty',
						type: 'string',
						default: 'data',
						description: 'Items with a file in this binary property are read from the file',
					},
					{
						displayName: 'Chunk Size (Characters)',
						name: 'chunkSize',
						type: 'number',
						default: DEFAULT_CHUNK_SIZE,
						typeOptions: { minValue: 50 },
					},
					{
						displayName: 'Chunk Overlap (Characters)',
						name: 'chunkOverlap',
						type: 'number',
						default: DEFAULT_CHUNK_OVERLAP,
						typeOptions: { minValue: 0 },
						description:
							'Characters a chunk shares with the one before it (less than half the size)',
					},
					{
						displayName: 'Duplicate Threshold',
						name: 'duplicateThreshold',
						type: 'number',
						default: DEFAULT_DUPLICATE_THRESHOLD,
						typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
						description:
							'A question whose character-trigram similarity to a kept one (or to an Existing Question) reaches this is dropped as a near-duplicate',
					},
					{
						displayName: 'Existing Questions',
						name: 'existingQuestions',
						type: 'json',
						default: '',
						placeholder: "={{ $('Get Golden Set').all().map((item) => item.json) }}",
						description:
							'Rows already in the golden set ({request_id, request}); new questions too similar to them are dropped',
					},
					{
						displayName: 'Expected Output',
						name: 'expectedOutput',
						type: 'options',
						default: 'facts',
						options: [
							{ name: 'Expected Facts', value: 'facts' },
							{ name: 'Expected Response', value: 'response' },
						],
						description:
							'Which field answerable rows carry (the Databricks schema allows one of the two)',
					},
					{
						displayName: 'ID Field',
						name: 'idField',
						type: 'string',
						default: '',
						description:
							'Field (or metadata field) with the document URI. Empty: doc_uri, uri, url, id, source... or the file name.',
					},
					{
						displayName: 'Language',
						name: 'language',
						type: 'string',
						default: '',
						placeholder: 'English',
						description:
							'Language of the questions and answers. Empty: the language of the documents.',
					},
					{
						displayName: 'Persona',
						name: 'persona',
						type: 'string',
						default: '',
						placeholder: 'a new customer on the mobile app',
						description: 'Who asks the questions. Empty: a user of what the documents describe.',
					},
					{
						displayName: 'Require Documents',
						name: 'requireDocuments',
						type: 'boolean',
						default: false,
						description:
							'Whether to drop questions general knowledge answers without the documents (one more check call per row)',
					},
					{
						displayName: 'Text Field',
						name: 'textField',
						type: 'string',
						default: '',
						description:
							'Field with the document text. Empty: text, content, pageContent, page_content, document or body.',
					},
					{
						displayName: 'Top-Up Rounds',
						name: 'topUpRounds',
						type: 'number',
						default: 1,
						typeOptions: { minValue: 0, maxValue: 5 },
						description: 'Extra rounds that write new questions for the ones dropped (by kind)',
					},
					...samplingOptions('Generator and check calls').map((p) =>
						p.name === 'temperature'
							? {
									...p,
									default: 0.7,
									description: 'Of the generator calls; the checks always run at 0',
								}
							: p.name === 'seed'
								? {
										...p,
										displayName: 'Sampling Seed',
										description:
											"The model's sampling seed where the server supports one (0 = none); the plan's seed is Seed above",
									}
								: p,
					),
					...runtimeOptions,
					...spendOptionsWithRun(
						{ name: 'Generate', value: 'generate', description: 'Call the model and emit rows' },
						'Call nothing: plan the questions, count every prompt and price the run (one item with estimate)',
						'Estimate Only prices a run before enabling it',
					),
					...cacheProperties,
				],
			},
		],
	};

	methods = { credentialTest: { ragEvalLlmApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const rowsWanted = Number(this.getNodeParameter('rows', 0, 20));
		if (!Number.isInteger(rowsWanted) || rowsWanted < 1) {
			throw new NodeOperationError(
				this.getNode(),
				`Number of Rows must be a whole number of at least 1 (got ${rowsWanted})`,
			);
		}
		let mix;
		try {
			mix = parseMix(this.getNodeParameter('mix', 0, DEFAULT_MIX_TEXT));
		} catch (e) {
			throw new NodeOperationError(this.getNode(), `Mix of Kinds: ${(e as Error).message}`, {
				description: `Write kind=weight pairs separated by commas, e.g. ${DEFAULT_MIX_TEXT}`,
			});
		}
		const invalid: INodeExecutionData[] = [];
		const docs: SourceDocument[] = [];
		const binaryProperty = (options.binaryProperty as string) || 'data';
		const seen = new Map<string, number>();
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			const bin = item.binary?.[binaryProperty];
			let read;
			if (bin) {
				const buffer = await this.helpers.getBinaryDataBuffer(i, binaryProperty);
				const t = fileText(buffer, bin.mimeType, bin.fileName);
				read =
					'error' in t
						? t
						: readDocument(
								{ ...item.json, text: t.text },
								i,
								{ id: options.idField as string },
								bin.fileName,
							);
			} else {
				read = readDocument(item.json, i, {
					text: options.textField as string,
					id: options.idField as string,
				});
			}
			if ('error' in read) {
				invalid.push({
					json: { ...item.json, error: `item ${i + 1}: not a document: ${read.error}` },
					pairedItem: { item: i },
				});
				continue;
			}
			const first = seen.get(read.doc.uri);
			if (first !== undefined) {
				invalid.push({
					json: {
						...item.json,
						error: `item ${i + 1}: document "${read.doc.uri}" was already read from item ${first + 1}; document URIs must be unique`,
					},
					pairedItem: { item: i },
				});
				continue;
			}
			seen.set(read.doc.uri, i);
			docs.push(read.doc);
		}
		const existing = existingQuestionsOption(this, options.existingQuestions);
		const genOptions: GeneratorOptions = {
			rows: rowsWanted,
			mix,
			seed: Number(this.getNodeParameter('seed', 0, 1)) || 0,
			chunk: {
				size: (options.chunkSize as number | undefined) ?? DEFAULT_CHUNK_SIZE,
				overlap: (options.chunkOverlap as number | undefined) ?? DEFAULT_CHUNK_OVERLAP,
			},
			language: options.language as string | undefined,
			persona: options.persona as string | undefined,
			expectedOutput: options.expectedOutput === 'response' ? 'response' : 'facts',
			requireDocuments: options.requireDocuments === true,
			duplicateThreshold:
				(options.duplicateThreshold as number | undefined) ?? DEFAULT_DUPLICATE_THRESHOLD,
			topUpRounds: (options.topUpRounds as number | undefined) ?? 1,
			existingQuestions: existing,
		};
		const source = await resolveSource(this);
		const modelOverride = (this.getNodeParameter('model', 0, '') as string) || undefined;
		const model = modelOverride ?? source?.defaultModel ?? 'unknown';
		const temperature = (options.temperature as number | undefined) ?? 0.7;
		const seedOption = (options.seed as number) || undefined;
		const estimating = options.runMode === 'estimate';
		if (docs.length === 0) return [[], invalid];
		const { governor, close } = nodeGovernor(this, options);
		try {
			if (estimating) {
				const estimate = await estimateGenerator(
					docs,
					genOptions,
					{
						source: source ?? { key: 'none', defaultModel: model },
						governor,
						model: modelOverride,
						temperature,
						seed: seedOption,
					},
					priceTableOption(this, options.modelPrices),
					replyTokensOption(options),
				);
				return [
					[
						{
							json: { estimate: { eval_set_generator: estimate } as unknown as IDataObject },
							pairedItem: docs.map((d) => ({ item: d.itemIndex })),
						},
					],
					invalid,
				];
			}
			if (!source) {
				throw new NodeOperationError(this.getNode(), 'No model to generate with', {
					description:
						'Add a RAG Eval LLM API credential or connect a Chat Model. Estimate Only works without one.',
				});
			}
			const spend = await spendLimitFor(this, options, model);
			const cache = openVerdictCache(cacheOptions(options));
			try {
				const result = await generateEvalSet(docs, genOptions, {
					source,
					governor,
					model: modelOverride,
					temperature,
					seed: seedOption,
					signal: this.getExecutionCancelSignal?.(),
					spend,
					cache,
				});
				throwIfFatal(
					this,
					governor,
					callKey(source, modelOverride),
					modelRejectedAdvice('The model'),
				);
				const short = (Object.keys(result.wanted) as (keyof typeof result.wanted)[]).filter(
					(k) => result.kept[k] < result.wanted[k],
				);
				if (short.length > 0) {
					this.addExecutionHints?.({
						message: `Kept ${result.rows.length} of ${rowsWanted} rows: short of ${short.map((k) => `${k} (${result.kept[k]}/${result.wanted[k]})`).join(', ')}. The Invalid output says why each question was dropped.`,
						type: 'warning',
						location: 'outputPane',
					});
				}
				const pair = (idx: number[]) =>
					idx.length ? idx.map((item) => ({ item })) : [{ item: 0 }];
				return [
					result.rows.map((r) => ({
						json: r.json as IDataObject,
						pairedItem: pair(r.itemIndexes),
					})),
					[
						...invalid,
						...result.invalid.map((r) => ({
							json: r.json as IDataObject,
							pairedItem: pair(r.itemIndexes),
						})),
					],
				];
			} finally {
				await cache?.close();
			}
		} finally {
			await close();
		}
	}
}

function existingQuestionsOption(
	ctx: IExecuteFunctions,
	raw: unknown,
): { id: string; text: string }[] {
	if (raw === undefined || raw === null || raw === '') return [];
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch {
			throw new NodeOperationError(ctx.getNode(), 'Existing Questions is not JSON', {
				description:
					"Set it to an expression returning rows, e.g. {{ $('Get Golden Set').all().map((item) => item.json) }}.",
			});
		}
	}
	if (!Array.isArray(value)) {
		throw new NodeOperationError(ctx.getNode(), 'Existing Questions is not a list of rows');
	}
	const out: { id: string; text: string }[] = [];
	value.forEach((r, i) => {
		if (!r || typeof r !== 'object') return;
		const row = r as Record<string, unknown>;
		const text =
			typeof row.request === 'string'
				? row.request
				: typeof row.question === 'string'
					? row.question
					: undefined;
		if (text)
			out.push({
				id: typeof row.request_id === 'string' ? row.request_id : `existing ${i + 1}`,
				text,
			});
	});
	return out;
}
