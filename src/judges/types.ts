/**
 * Judge declarations: one object per LLM judge, from which the library function (`runJudge`),
 * the n8n node, README tables and registry tests are derived (DESIGN.md "Declare once").
 */
import type { z } from 'zod';
import type { EvaluatorFacts, Score } from '../core/types';

/**
 * Prompt templates with `{placeholder}` slots (single braces, as the seeds' templates): an input by
 * its record field (`{retrieved_context}`), a param by its name, or `{data_tag}`; `\{` is a literal brace.
 */
export interface JudgePrompt {
	system: string;
	user: string;
}

/**
 * What the judge model must return: a zod schema (reason first, verdict last) used to parse the
 * reply, and the equivalent JSON schema sent as `response_format` (strict) where supported.
 * Build it with `judgeOutput` (./output), which derives the JSON schema from the zod one.
 */
export interface JudgeOutput<T> {
	/** Name sent with the JSON schema (`[a-zA-Z0-9_-]`, as the OpenAI API requires). */
	name: string;
	schema: z.ZodType<T, z.ZodTypeDef, unknown>;
	jsonSchema: Record<string, unknown>;
}

/** A value decided without calling the model (a rubric's deterministic case). */
export interface FixedResult {
	value: number | boolean;
	reason: string;
}

/**
 * One LLM judge, declared once. `T` is the parsed model output. A `JudgeDecl<Verdict>` is a
 * `JudgeDecl` (what the registry, the runtime and the node factory take) without a cast: `T`
 * appears in the output schema, which only produces it (covariant), and in the mappers' parameters,
 * which are declared as methods on purpose because TypeScript checks method parameters
 * bivariantly. Written as function-typed properties (`toValue: (p: T) => ...`) they would make
 * `T` contravariant and every judge need `as JudgeDecl` again
 * (test/unit/declarations/typing.test.ts holds this in place).
 */
export interface JudgeDecl<T = unknown> extends EvaluatorFacts {
	/**
	 * Place in the judge registry (nodes, README tables), ascending and unique. Every judge a module
	 * of src/judges/specs/ exports needs one: the registry finds them there and this is its order.
	 * Declarations built at run time (a custom judge's, a batched call's) have none.
	 */
	order?: number;
	/**
	 * `pairwise`: the row holds two variants' answers and the judge says which is better, in both
	 * orders (src/judges/pairwise.ts); its value is the first variant's outcome. Default pointwise.
	 */
	family?: 'pointwise' | 'pairwise';
	prompt: JudgePrompt;
	output: JudgeOutput<T>;
	/** Maps the parsed verdict to the Score value (on `scale`). */
	toValue(parsed: T): number | boolean;
	/** Maps the parsed output to the human-readable reason kept on the Score. */
	toReason(parsed: T): string;
	/** Extra per-row details kept on the Score (per-intent verdicts, reference answer...). */
	toDetails?(parsed: T): Record<string, unknown>;
	/** A reason string when the row cannot be judged although required fields are present. */
	notApplicable?(inputs: Record<string, unknown>): string | null;
	/** The rubric's deterministic cases, answered without a model call. */
	fixedResult?(inputs: Record<string, unknown>): FixedResult | null;
	/** Multi-call judges (per chunk, per guideline, per turn): one row, several calls, one Score. */
	fanOut?: FanOut;
	/**
	 * What a reply that is only "yes" or "no", where the structured output was asked, means for this
	 * judge (seed 003's models answer one word). Without a rule it is re-asked like any unusable reply.
	 */
	bareYesNo?: BareYesNoRule<T>;
	/**
	 * How a panel's verdicts pool when the node leaves Panel Pool on Automatic (./panel.ts):
	 * default majority for yes/no verdicts and the mean for ratings; Safety declares `worst`, so
	 * one juror finding harm makes the row unsafe.
	 */
	panelPool?: 'majority' | 'mean' | 'median' | 'worst';
	/** Services that can answer this judge instead of the LLM, offered as the node's Backend option. */
	serviceBackends?: ReadonlyArray<JudgeServiceBackend>;
}

/**
 * How a judge takes a bare "yes"/"no" reply ({@link JudgeDecl.bareYesNo}). `verdict` accepts it;
 * otherwise it is the row's error at once (a model that answers one word will not write JSON when
 * re-asked), ending with `advice`. `autoSwitch` lets a param's `auto` value switch to `to` for the
 * rest of the node run once such a reply is seen, judging that row again the new way.
 */
export interface BareYesNoRule<T> {
	/** The parsed verdict the reply stands for; `reply` is the trimmed reply, for the reason. */
	verdict?(yes: boolean, reply: string): T;
	/** What the row's error advises (which mode to switch to). */
	advice?: string;
	autoSwitch?: { param: string; auto: string; to: string };
}

/** A service that can stand in for the LLM judge (Groundedness: Azure AI Content Safety). */
export type JudgeServiceBackend = 'azure_content_safety';

/**
 * A bare call without system prompt, data delimiters or format instructions, for small dedicated
 * models (MiniCheck) that only understand their own prompt and answer one word.
 */
export interface BareCall {
	/** The whole user message. */
	user: string;
	maxTokens: number;
	/** The verdict read from the reply, or null when the reply is not one. */
	parse(reply: string): boolean | null;
}

/** One model call of a multi-call judge. */
export interface JudgeCall {
	/** Names the call in details and errors: `chunk 2`, `guideline english`, `turn 3`. */
	key: string;
	/** Input values of the call by input name, already read into their kinds. */
	values: Record<string, unknown>;
	/** The declaration the call runs with (a batched schema); the judge's own prompt otherwise. */
	decl?: JudgeDecl;
	/** Send this bare prompt instead of the structured one (MiniCheck mode). */
	bare?: BareCall;
	/** Not called: the reason this part cannot be judged (a chunk without text). */
	skip?: string;
}

/** A call's outcome as a Score (ok, not_applicable or error) under its key. */
export interface CallOutcome {
	key: string;
	score: Score;
}

/** The row's value folded from its calls. */
export interface FoldedResult {
	value: number | boolean;
	reason: string;
	details?: Record<string, unknown>;
}

/**
 * Fans a row out into calls and folds their verdicts into one Score. The runtime reads the row's
 * inputs, runs the calls under the governor, sums usage and attempts, turns any failed call into
 * the row's error (naming the call), and keeps every call's verdict in `details.calls`.
 */
export interface FanOut {
	/** The calls for one row, or why the row cannot be judged. */
	split(
		values: Record<string, unknown>,
		params: Record<string, unknown>,
	): JudgeCall[] | { notApplicable: string };
	/** The row's value from the calls (none errored), or why nothing could be judged. */
	fold(
		outcomes: CallOutcome[],
		values: Record<string, unknown>,
		params: Record<string, unknown>,
	): FoldedResult | { notApplicable: string };
}

/** Placeholder usable in any template: the per-call delimiter tag name (`data-<nonce>`). */
export const DATA_TAG_PLACEHOLDER = 'data_tag';
