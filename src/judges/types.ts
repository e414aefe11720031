/**
 * Judge declarations: one object per LLM judge, from which the library function (`runJudge`),
 * the n8n node, README tables and registry tests are derived (DESIGN.md "Declare once").
 */
import type { z } from 'zod';
import type { EvaluatorFacts } from '../core/types';

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

/** One LLM judge, declared once. `T` is the parsed model output. */
export interface JudgeDecl<T = unknown> extends EvaluatorFacts {
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
}

/** Placeholder usable in any template: the per-call delimiter tag name (`data-<nonce>`). */
export const DATA_TAG_PLACEHOLDER = 'data_tag';
