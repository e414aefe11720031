/**
 * Public API of the deterministic metrics: Azure-parity F1, BLEU, GLEU, METEOR and ROUGE,
 * sacreBLEU, their declarations, corpus aggregation and the shared tokenizers.
 */
export {
	bleuCorpus,
	bleuFromStats,
	bleuMetric,
	bleuScore,
	bleuStats,
	bleuStatsFromTokens,
} from './bleu';
export type { BleuStats } from './bleu';
export { statArray, statNumber, sumStats } from './corpus';
export type { Stats } from './corpus';
export { f1Score, f1ScoreMetric, f1Tokens, responseGroundTruthInputs } from './f1';
export { gleuFromTokens, gleuMetric, gleuScore } from './gleu';
export { meteorMetric, meteorScore } from './meteor';
export { corpusFinalizers, metricRegistry, validateMetricRegistry } from './registry';
export {
	documentRecall,
	documentRecallMetric,
	hitRateAtK,
	ndcgAtK,
	precisionAtK,
	rankedUris,
	readExpectedDocs,
	recallAtK,
	reciprocalRank,
	retrievalMetrics,
} from './retrieval';
export type { ExpectedDoc } from './retrieval';
export { lcsLength, ROUGE_TYPES, rougeMetric, rougeScore } from './rouge';
export type { RougeScore, RougeType } from './rouge';
export {
	sacreBleuCorpus,
	sacreBleuFromStats,
	sacreBleuMetric,
	sacreBleuSentence,
	sacreBleuStats,
} from './sacrebleu';
export type { SacreBleuResult, SacreBleuStats } from './sacrebleu';
export {
	compareToolCalls,
	toolCallArgumentsFacts,
	toolCallErrorsFacts,
	toolCallsMetric,
} from './toolcalls';
export {
	deepevalToolCorrectness,
	n8nToolsUsed,
	ragasToolCallAccuracy,
	ragasToolCallF1,
} from './toolcallsParity';
export {
	isAscii,
	nistInternationalTokenize,
	nltkTokenize,
	pySplit,
	rougeTokenize,
	sentTokenize,
	tokenize13a,
	wordTokenize,
} from './tokenize';
