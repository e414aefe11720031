/**
 * The canonical eval record and dataset loading: `EvalRecord` (zod schema and type), the field
 * mapping every schema shares (Azure and promptflow, Databricks, Spring AI, Ragas, DeepEval,
 * OpenAI evals, MLflow 3, LangSmith, Phoenix, promptfoo), `loadDataset` and the account it gives.
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
	describeAccount,
	type ColumnAccount,
	type DatasetAccount,
	type SkippedRow,
} from './account';
export { FIELDS, isField, type Field } from './fields';
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
