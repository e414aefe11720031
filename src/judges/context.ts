/**
 * What a judge call needs besides the row. Kept in its own module so the single-call path, the
 * fan-out, the turn walker and the cache can all name it without importing one another.
 */
import type { VerdictCache } from './cache';
import type { Governor } from './governor';
import type { ModelSource } from './model';
import type { SpendLimit } from './spend';

/** Everything a judge call needs besides the row. */
export interface JudgeContext {
	source: ModelSource;
	governor: Governor;
	/** Overrides the source's default model. */
	model?: string;
	/** Default 0, for reproducible verdicts. */
	temperature?: number;
	seed?: number;
	maxTokens?: number;
	/** Overrides the declaration's default threshold. */
	threshold?: number;
	promptOverride?: { system?: string; user?: string };
	/** Values for the judge's params (also read from `inputs` under the param name). */
	params?: Record<string, unknown>;
	signal?: AbortSignal;
	/** The node execution's spend limit: checked before each call, charged after (./spend). */
	spend?: SpendLimit;
	/** The judge verdict cache; absent = every call goes to the model. */
	cache?: VerdictCache;
}
