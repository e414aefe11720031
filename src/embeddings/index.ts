/**
 * Embeddings on the one runtime: sources (a connected Embeddings sub-node or the credential's
 * /embeddings), the vector cache, batched and governed embedding of a row's texts, and the
 * evaluators that read them (Semantic Similarity).
 */
export {
	createOpenAIEmbeddingSource,
	createSubNodeEmbeddingSource,
	DEFAULT_EMBEDDING_MODEL,
	type EmbeddingResult,
	type EmbeddingSource,
} from './source';
export { VectorCache, type StoredVector, type VectorLookup } from './cache';
export { embedTexts, splitTokens, type EmbeddedTexts, type EmbeddingContext } from './embed';
export { cosine, rescaleCosine, DEFAULT_RESCALE_FLOOR, semanticSimilarity } from './similarity';
export { answerRelevancy, DEFAULT_QUESTION_COUNT, questionGenerator } from './answerRelevancy';
export { embeddingEvaluator, embeddingRegistry } from './registry';
export type { EmbeddingMetricDecl, EmbeddingRowContext } from './types';
