/** Public API of the LLM judge runtime (re-exported by src/index.ts). */
export * from './types';
export * from './errors';
export * from './model';
export * from './governor';
export { dataRule, newNonce, placeholdersOf, promptHash, renderPrompt } from './prompt';
export type { RenderedPrompt } from './prompt';
export {
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
export * from './registry';
export { groundedness, groundednessVerdict } from './specs/groundedness';
export { relevance, relevanceConversation, relevanceConversationGt } from './specs/relevance';
export { coherence, fluency, similarity } from './specs/quality';
export { retrieval, retrievalValue, intentCoverage } from './specs/retrieval';
