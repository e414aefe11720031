/** Public API of the LLM judge runtime (re-exported by src/index.ts). */
export * from './types';
export * from './errors';
export * from './model';
export * from './governor';
export { dataRule, newNonce, placeholdersOf, promptHash, renderPrompt } from './prompt';
export type { RenderedPrompt } from './prompt';
export {
	bareYesNoReply,
	extractCandidate,
	likertInt,
	normaliseScore,
	normaliseYesNo,
	parseReply,
	reasonText,
	yesNo,
} from './parse';
export type { ParseOutcome } from './parse';
export * from './run';
export {
	evaluate,
	evaluationRecord,
	EvaluationError,
	type EvaluationMetadata,
	type EvaluationRequest,
	type EvaluationResponse,
} from './evaluate';
export { newRunState, type JudgeRunState } from './context';
export type { TurnContext } from './turns';
export * from './registry';
export { groundedness, groundednessVerdict } from './specs/groundedness';
export { relevance, relevanceConversation, relevanceConversationGt } from './specs/relevance';
export { coherence, fluency, similarity } from './specs/quality';
export { retrieval, retrievalValue, intentCoverage } from './specs/retrieval';
export { relevanceToQuery } from './specs/relevanceToQuery';
export { safety, SAFETY_SLOT } from './specs/safety';
export { correctness, missingFacts } from './specs/correctness';
export type { FactsVerdict, FactVerdict } from './specs/correctness';
export { chunkRelevance, chunkFanOut } from './specs/chunkRelevance';
export type { ChunkMode, ChunkVerdict } from './specs/chunkRelevance';
export { contextSufficiency } from './specs/contextSufficiency';
export { guidelineAdherence, mergeGuidelines, readGuidelines } from './specs/guidelineAdherence';
export { springRelevancy } from './specs/springRelevancy';
export { factCheck, bareYesNo } from './specs/factCheck';
export { customJudge, customJudgeDecl, customJudgeProblems } from './specs/custom';
export type { CustomJudgeConfig, CustomChoice, CustomOutputKind } from './specs/custom';
export {
	intentResolution,
	toolCallAccuracy,
	taskAdherence,
	taskCompletion,
	responseCompleteness,
	failedDimensions,
	toolCallAccuracyDetails,
} from './specs/azureAgent';
export type {
	TaskAdherenceVerdict,
	TaskCompletionVerdict,
	ToolCallAccuracyVerdict,
} from './specs/azureAgent';
export { agentGoalAccuracy, agentGoalAccuracyWithoutReference } from './specs/goalAccuracy';
export type { GoalVerdict } from './specs/goalAccuracy';
export { runFanOut, runBareCall } from './fanout';
export { sumUsage } from '../core/usage';
export {
	SpendLimit,
	SpendLimitError,
	isSpendStopped,
	spendStopDetails,
	type SpendLimitOptions,
	type SpendUnit,
} from './spend';
export {
	DEFAULT_REPLY_TOKENS,
	countChatTokens,
	encodingFor,
	estimateRequest,
	estimateRow,
	loadEncoder,
	recordingSource,
	runEstimate,
	type CallEstimate,
	type EncodingName,
	type Encoder,
	type EstimateOptions,
	type RowEstimate,
	type RunEstimate,
	type TokenizerChoice,
} from './estimate';
export {
	DEFAULT_CACHE_TTL_MS,
	VerdictCache,
	defaultCacheDir,
	diskBackend,
	diskSweepsDone,
	openVerdictCache,
	pruneDiskCache,
	sweepDiskStore,
	redisBackend,
	redisSettingsFromEnv,
} from './cache';
export type {
	CacheBackend,
	CacheInfo,
	CacheOptions,
	CacheStoreKind,
	RedisSettings,
	SweepResult,
} from './cache';
export {
	defaultPoolRule,
	panelDisagreement,
	panelFatal,
	panelQuorum,
	panelSignature,
	poolValues,
	runPanel,
} from './panel';
export type { Juror, PanelDisagreement, PanelFatal, PanelOptions, PoolRule } from './panel';
export { TOP_LOGPROBS, weightable, weightedScore } from './logprobs';
export type { Weighting } from './logprobs';
export { runRepeats, sampleSpread } from './repeats';
export type { SampleSummary } from './repeats';
