/**
 * Shared contracts of the evaluation core: the Score every metric and judge writes, and the
 * declaration shapes from which library functions, n8n nodes, docs and tests are derived.
 * This file has no runtime dependencies so every layer can import it.
 */

/** Outcome of one metric on one row. */
export type ScoreStatus = 'ok' | 'not_applicable' | 'error';

/** Token usage of one judge call (or the sum over a judge's calls for one row). */
export interface Usage {
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
}

/**
 * The scale a value is expressed on. `unit` is 0-1 (F1, BLEU...), `likert` is 1-5 (Azure
 * judges), `binary` is yes/no (Databricks judges), `severity` is 0-7 (safety).
 */
export interface Scale {
	kind: 'unit' | 'likert' | 'binary' | 'severity' | 'count';
	min: number;
	max: number;
}

/** Whether a value passes when it is at least (`higher`) or at most (`lower`) the threshold. */
export type Direction = 'higher' | 'lower';

/** One metric's result on one row, stored at `item.json.eval[metricId]` (DESIGN.md). */
export interface Score {
	/** Metric or judge id, e.g. `bleu`, `rougeL`, `groundedness`. */
	metric: string;
	/** On the metric's own scale; `null` unless status is `ok`. Never NaN. */
	value: number | boolean | null;
	scale: Scale;
	threshold?: number;
	direction?: Direction;
	/** `null` when not applicable or errored: such rows are never silently counted as fails. */
	pass: boolean | null;
	status: ScoreStatus;
	/** Judge rationale, or why the row is not applicable. */
	reason?: string;
	/** What went wrong, readable, never containing secrets. */
	error?: string;
	usage?: Usage;
	/** Model that actually answered (judges). */
	model?: string;
	latencyMs?: number;
	attempts?: number;
	/**
	 * True when the verdict came from the judge verdict cache: `attempts` is 0 (no HTTP call) and
	 * `usage` is what the verdict cost when first judged; `details.cache` says which store.
	 */
	cached?: boolean;
	/** Extra per-row numbers (ROUGE precision/recall, per-chunk verdicts...). */
	details?: Record<string, unknown>;
	/** Mergeable sufficient statistics for corpus-level aggregation (e.g. BLEU n-gram counts). */
	stats?: Record<string, number | number[]>;
	/** Reproducibility stamp: id + version, tokenizer/smoothing or model/temperature/prompt hash. */
	signature: string;
}

/** Kinds of values a declared input accepts; the node factory coerces item fields into these. */
export type InputKind =
	| 'text'
	| 'texts'
	| 'contexts'
	| 'messages'
	| 'json'
	/** What an agent did: read into `ToolCall[]` by src/record/toolcalls.ts (any source's shape). */
	| 'toolCalls'
	/** The tools an agent had: read into `ToolDefinition[]` (OpenAI, MCP, LangChain, n8n shapes). */
	| 'toolDefinitions';

/** One input of a metric or judge, with the canonical record field it maps from by default. */
export interface InputDecl {
	/** Parameter name in the node and key in the library call, camelCase. */
	name: string;
	displayName: string;
	/** Default source: a top-level field of the canonical record, e.g. `response`. */
	field: string;
	kind: InputKind;
	required: boolean;
	description: string;
	/**
	 * Whether blank text (and an empty object) counts as missing, making the row not applicable:
	 * judges set it (a blank answer cannot be judged); metrics score blank text as text.
	 */
	blankIsMissing?: boolean;
	/** Contexts only: every document must carry `content` (a doc_uri-only chunk is not applicable). */
	needsContent?: boolean;
}

/** A tunable parameter of a metric or judge, rendered as a node option. */
export interface ParamDecl {
	name: string;
	displayName: string;
	type: 'number' | 'string' | 'boolean' | 'options';
	default: number | string | boolean;
	options?: { name: string; value: string }[];
	description: string;
}

/** The two root-cause orders of seed 001: rows with ground truth and rows without. */
export type RootCauseOrderName = 'withGroundTruth' | 'withoutGroundTruth';

/**
 * Where a judge sits in the root-cause diagnosis (seed 001). Judges sharing a slot (the 1-5 and
 * yes/no groundedness) answer for it together. `rank` places the slot in each default order it
 * belongs to; a slot in no default order still gets its own router output and counts for the
 * overall verdict after the ordered slots. `output` is the router output's fixed position among
 * the slots: it never changes once released, so saved connections never move.
 */
export interface RootCauseDecl {
	slot: string;
	/** Position in each default order the slot belongs to (lower = checked first). */
	rank?: Partial<Record<RootCauseOrderName, number>>;
	/** Fixed position of the slot's router output (after Pass, Incomplete and Custom Judge). */
	output: number;
	/** What to try when this slot is the root cause, in our words. */
	fix: string;
	/**
	 * When an ok score fails the slot: `pass-false` (its pass is false; the default) or `zero`
	 * (its value is 0, e.g. chunk relevance fails only when not one chunk is relevant).
	 */
	failsWhen?: 'pass-false' | 'zero';
	/** Other spellings of the slot users may write in an order (seed 001 spells some two ways). */
	aliases?: string[];
}

/** Names a score takes in Databricks Agent Evaluation (seeds 001 and 002). */
export interface DatabricksNames {
	/** Per-row column of the value, e.g. `response/llm_judged/groundedness/rating`. */
	column: string;
	/**
	 * The same per-row value under the other names the seeds give it, written beside `column`:
	 * seed 002's metric table spells chunk precision `retrieval/llm_judged/chunk_relevance_precision`
	 * where seed 001 writes `.../chunk_relevance/precision`.
	 */
	columnAliases?: string[];
	/** Per-row column of the rationale, when the judge writes one. */
	rationaleColumn?: string;
	/** Run-level metric name, e.g. `response/llm_judged/groundedness/rating/percentage`. */
	runMetric: string;
}

/**
 * How a conversation's per-turn values fold into the row's value: their mean, the worst turn (by
 * the evaluator's direction), or the last turn.
 */
export type TurnRule = 'mean' | 'worst' | 'last';

/** Facts every evaluator (metric or judge) declares besides its computation. */
export interface EvaluatorFacts {
	id: string;
	version: string;
	displayName: string;
	/** One sentence for the node panel. */
	description: string;
	/** Citation and the exact reference behaviour matched (README and signature). */
	reference: string;
	inputs: InputDecl[];
	params: ParamDecl[];
	scale: Scale;
	threshold: { default: number; direction: Direction };
	/** Root-cause slot; metrics without one only count when a user's order names them. */
	rootCause?: RootCauseDecl;
	/** Databricks column and run-metric names, when Databricks has the judge or metric. */
	databricks?: DatabricksNames;
	/**
	 * What the anchors call this evaluator (their class, function or scorer names, e.g. Azure's
	 * `GroundednessEvaluator`, MLflow's `RetrievalGroundedness`): a node is found in n8n's nodes
	 * panel by the name a user already knows (nodes/shared/codex.ts).
	 */
	anchorNames?: string[];
	/** Folding of per-turn values; default: worst for yes/no and severities, else the mean. */
	turnRule?: TurnRule;
}

/** Result of a deterministic metric's computation on one row. */
export interface MetricResult {
	value: number;
	details?: Record<string, unknown>;
	stats?: Record<string, number | number[]>;
	/** Why the row has no value (the Score is then not applicable; `value` is ignored). */
	notApplicable?: string;
	/** One sentence for the Score's reason (Tool Calls names its missing and wrong calls). */
	reason?: string;
	/** Values of the declaration's `companions`, by companion id (absent: not applicable). */
	companions?: Record<string, MetricResult>;
}

/**
 * A deterministic metric, declared once. The node, library wrapper, README table and registry
 * tests are all derived from this object.
 */
export interface MetricDecl extends EvaluatorFacts {
	/** Signature suffix describing tokenizer/smoothing etc., e.g. `tok:nltk|smooth:method4`. */
	signatureParts: string;
	/** Pure computation; inputs are already coerced to their declared kinds. Throws on bad input. */
	compute(inputs: Record<string, unknown>, params: Record<string, unknown>): MetricResult;
	/** Key under `item.json.eval`; defaults to `id` (ROUGE uses its type, e.g. `rougeL`). */
	scoreKey?(params: Record<string, unknown>): string;
	/** Pass rule when more than the main threshold matters (ROUGE's precision/recall thresholds). */
	passes?(result: MetricResult, params: Record<string, unknown>, threshold: number): boolean;
	/** Corpus-level value from the summed `stats` of many rows (BLEU's n-gram counts). */
	corpus?(summed: Record<string, number | number[]>): number;
	/**
	 * Further Scores one computation writes beside the main one, each under its own id with its
	 * own facts (threshold, root-cause slot, Databricks names): Tool Calls writes the share of
	 * calls with right arguments and the share of failed calls, so the router can name either as
	 * the cause. Their thresholds are their declared defaults; `compute` fills
	 * `MetricResult.companions`. They join the evaluator registry (src/registry.ts).
	 */
	companions?: EvaluatorFacts[];
}
