/**
 * n8n-nodes-rag-eval as a library: the canonical eval record and dataset loading, Azure-parity
 * metrics, LLM judges, trace parsing, cost and latency, aggregation, root cause, regression gate,
 * judge agreement and reports.
 * Nothing here imports n8n; the nodes in `nodes/` are thin adapters over these functions.
 */
export * from './core/types';
export {
	evaluateMetric,
	metricSignature,
	scoreKeyOf,
	withDefaults,
	type MetricRunOptions,
} from './core/evaluate';
export {
	coerceInput,
	readInputs,
	InputError,
	missingReason,
	type ChatTurn,
	type ContextDoc,
	type ReadInputs,
} from './core/inputs';
export * from './core/score';
export * from './registry';
export { evaluatorTables } from './docs/tables';
export * from './record';
export {
	prepareDataset,
	type DatasetSource,
	type PrepareOptions,
	type Prepared,
	type SourceAccount,
} from './dataset/prepare';
export * from './metrics';
export * from './judges';
// Embeddings (issue 38): sources, the vector cache and Semantic Similarity.
export * from './embeddings';
// Both layers name their chat turn ChatMessage: the record's (a zod schema) wins at top level.
export { ChatMessage } from './record';
export * from './rootcause';
export * from './manifest';
export * from './aggregate';
export * from './cost';
export * from './gate';
// Comparing variants (issue 37): the comparison and its pairwise statistics.
export { compareVariants, type CompareVariantsOptions, type VariantComparison } from './variants';
export {
	bradleyTerry,
	bradleyTerryBootstrap,
	signTest,
	winMatrix,
	winRate,
	type PairOutcome,
} from './stats/pairwise';
export * from './agreement';
export * from './review';
export * from './generate';
export * from './report';
// Safety backends (issue 12 items 5-6): Azure AI Content Safety and OpenAI moderation.
export {
	createAzureContentSafetyBackend,
	AZURE_CS_API_VERSION,
	AZURE_CS_GROUNDEDNESS_API_VERSION,
	AZURE_CS_LIMITS,
	type AzureContentSafetyConfig,
} from './safety/azure';
export {
	createOpenAIModerationBackend,
	moderationSeverity,
	MODERATION_GROUPS,
	DEFAULT_MODERATION_MODEL,
	type ModerationOptions,
} from './safety/moderation';
export {
	groundednessFromUngroundedShare,
	runServiceGroundedness,
	type ServiceGroundednessContext,
} from './safety/azureGroundedness';
export * from './safety';
// Red teaming: attack injection and the direct-attack jailbreak comparison (issue 12 item 4).
export * from './safety/attacks';
export * from './safety/jailbreak';
// Attacks written by a red-team model on the injector's plan (issue 31 item 2).
export * from './safety/simulate';
