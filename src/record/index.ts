/**
 * The canonical eval record and dataset loading: `EvalRecord` (zod schema and type), format
 * adapters for Azure, Databricks, Spring AI, Ragas and DeepEval rows, and `loadDataset`.
 */
export {
	ChatMessage,
	EvalRecord,
	ExpectedChunk,
	RecordSource,
	RetrievedChunk,
	SCHEMAS,
	type SchemaName,
} from './schema';
export { detectSchema } from './adapters';
export {
	loadDataset,
	normaliseRow,
	type InvalidRow,
	type LoadOptions,
	type LoadResult,
	type NormaliseResult,
} from './load';
export { DatasetError, decodeText, type DatasetErrorCode, type DatasetFormat } from './parse';
export { parseTrace, TraceError, type LlmCall, type ParsedTrace, type TraceFormat } from './trace';
export { stableStringify } from './hash';
export type { Issue } from './values';
