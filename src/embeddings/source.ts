/**
 * The embedding seam: one call that turns texts into vectors, whatever answers it, beside the chat
 * seam of ../judges/model.ts. `createOpenAIEmbeddingSource` calls `/v1/embeddings` of the RAG Eval
 * LLM API credential (OpenAI, Azure OpenAI, OpenAI-compatible servers) through the `openai` SDK;
 * `createSubNodeEmbeddingSource` duck-types a connected n8n Embeddings sub-node (LangChain's
 * `embedDocuments` / `embedQuery`) without importing LangChain.
 */
import type { Usage } from '../core/types';
import { ModelCallError } from '../judges/errors';
import {
	chatModelEndpoint,
	endpointOf,
	headersToRecord,
	makeClient,
	toModelError,
	type LlmConfig,
} from '../judges/model';

/** What one embedding call returned. */
export interface EmbeddingResult {
	/** One vector per text, in the order asked. */
	vectors: number[][];
	/** Model that answered, as reported (else the one asked). */
	model: string;
	/** Tokens the server reported; null when it reports none (sub-nodes never do). */
	usage: Usage | null;
	headers?: Record<string, string>;
}

/** Anything that embeds texts; errors are thrown as `ModelCallError`. */
export interface EmbeddingSource {
	/** Governor key: endpoint + model, never the API key. */
	readonly key: string;
	/** Provider and endpoint, without the model and never the key: the vector cache's key part. */
	readonly endpoint: string;
	/** The model asked for (its name in the Score's signature). */
	readonly model: string;
	/**
	 * What else decides the vectors besides the model and the text (a sub-node's dimensions,
	 * say): plain data, never a secret; part of the vector cache key.
	 */
	readonly settings: Record<string, unknown>;
	/** Whether the server reports token usage; when not, tokens are counted with the tokenizer. */
	readonly reportsUsage: boolean;
	embed(texts: string[], signal?: AbortSignal): Promise<EmbeddingResult>;
}

/** The default embedding model of the credential path (OpenAI's cheapest current one). */
export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

function checkVectors(vectors: unknown, n: number): number[][] {
	if (!Array.isArray(vectors) || vectors.length !== n)
		throw new ModelCallError(
			'server',
			`the embedding model returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${n} texts`,
		);
	for (const v of vectors) {
		if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number'))
			throw new ModelCallError(
				'server',
				'the embedding model returned a vector that is not numbers',
			);
	}
	return vectors as number[][];
}

/**
 * An embedding source on the credential: `POST /embeddings` through the SDK. On Azure OpenAI the
 * model is the embedding deployment's name (a chat deployment cannot embed).
 */
export function createOpenAIEmbeddingSource(config: LlmConfig, model: string): EmbeddingSource {
	const own: LlmConfig =
		config.provider === 'azure'
			? { ...config, azureDeployment: model, model }
			: { ...config, model };
	const client = makeClient(own);
	const endpoint = endpointOf(own);
	const secrets = [config.apiKey];
	return {
		key: `${endpoint}|${model}`,
		endpoint,
		model,
		settings: {},
		reportsUsage: true,
		async embed(texts, signal) {
			try {
				const { data, response } = await client.embeddings
					.create({ model, input: texts }, { signal })
					.withResponse();
				// The index says which text a vector belongs to; servers need not keep the order.
				const sorted = [...(data.data ?? [])].sort((a, b) => a.index - b.index);
				const prompt = data.usage?.prompt_tokens;
				return {
					vectors: checkVectors(
						sorted.map((d) => d.embedding),
						texts.length,
					),
					model: data.model || model,
					usage:
						typeof prompt === 'number'
							? {
									promptTokens: prompt,
									completionTokens: 0,
									totalTokens: data.usage?.total_tokens ?? prompt,
								}
							: null,
					headers: headersToRecord(response.headers),
				};
			} catch (err) {
				throw toModelError(err, secrets);
			}
		},
	};
}

/** Minimal shape of a LangChain embeddings object (n8n's Embeddings sub-nodes). */
interface DuckEmbeddings {
	embedDocuments(texts: string[]): Promise<unknown>;
	embedQuery?(text: string): Promise<unknown>;
}

function isDuckEmbeddings(e: unknown): e is DuckEmbeddings {
	return (
		typeof e === 'object' &&
		e !== null &&
		typeof (e as { embedDocuments?: unknown }).embedDocuments === 'function'
	);
}

/** The settings of a LangChain embeddings class that change its vectors. */
const EMBEDDING_SETTING_FIELDS = ['dimensions', 'encodingFormat', 'truncate', 'inputType'] as const;

/**
 * Wraps a connected Embeddings sub-node. Its model and endpoint are read from the object's public
 * fields (`model` / `modelName`, `clientConfig.baseURL` and the like) for the signature, cache and
 * governor keys; the sub-node calls its server with its own settings and credential.
 */
export function createSubNodeEmbeddingSource(embeddings: unknown): EmbeddingSource {
	if (!isDuckEmbeddings(embeddings))
		throw new Error(
			'The connected Embeddings node has no embedDocuments() method; connect an n8n Embeddings sub-node.',
		);
	const e = embeddings as unknown as Record<string, unknown>;
	const model =
		[e.model, e.modelName, e.deploymentName, e.azureOpenAIApiDeploymentName].find(
			(v): v is string => typeof v === 'string' && v !== '',
		) ?? 'embedding-model';
	const ctor = (embeddings as { constructor?: { name?: unknown } }).constructor?.name;
	const cls = typeof ctor === 'string' && ctor !== 'Object' ? ctor : 'unknown';
	const where = chatModelEndpoint(embeddings);
	const endpoint = `embeddings:${cls}${where ? `@${where}` : ''}`;
	const settings: Record<string, unknown> = {};
	for (const f of EMBEDDING_SETTING_FIELDS) {
		const v = e[f];
		if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') settings[f] = v;
	}
	return {
		key: `${endpoint}|${model}`,
		endpoint,
		model,
		settings,
		reportsUsage: false,
		async embed(texts, signal) {
			if (signal?.aborted) throw new ModelCallError('aborted', 'the call was cancelled');
			try {
				// LangChain's embedDocuments takes no signal; the governor's timeout still ends the row.
				const vectors = await embeddings.embedDocuments(texts);
				return { vectors: checkVectors(vectors, texts.length), model, usage: null };
			} catch (err) {
				throw toModelError(err);
			}
		},
	};
}
