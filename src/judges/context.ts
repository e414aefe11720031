/**
 * What a judge call needs besides the row. Kept in its own module so the single-call path, the
 * fan-out, the turn walker and the cache can all name it without importing one another.
 */
import type { VerdictCache } from './cache';
import type { Governor } from './governor';
import type { ModelSource } from './model';
import type { SpendLimit } from './spend';

/**
 * What one node run learns while its rows are judged, shared by every row of the run (a library
 * caller may share one across calls, or leave it out and let every row learn on its own).
 */
export interface JudgeRunState {
	/**
	 * Params switched for the rest of the run, by judge id: Fact Check's Auto mode after a reply
	 * that was a bare yes/no where JSON was asked (MiniCheck from then on), with why.
	 */
	switched: Map<string, { param: string; value: string; reason: string }>;
	/** Judges whose model gave a structured verdict in Auto mode: rows no longer wait for a probe. */
	structured: Set<string>;
	/**
	 * The row probing the model in Auto mode, by judge id: other rows wait for it, so that once the
	 * model shows it only answers yes/no, the rows not yet sent go straight to the switched mode.
	 */
	probes: Map<string, Promise<void>>;
}

/** A fresh run state, one per node execution. */
export function newRunState(): JudgeRunState {
	return { switched: new Map(), structured: new Set(), probes: new Map() };
}

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
	/**
	 * `weighted`: a rating judge (1-5, 0-7) asks for log-probabilities and scores the row with the
	 * probability-weighted mean of the score token's alternatives (./logprobs.ts); default the
	 * sampled score.
	 */
	scoreFrom?: 'sampled' | 'weighted';
	/**
	 * Which of a row's repeated samples this call is (1-based, ./repeats.ts): part of the verdict
	 * cache key, so each sample is its own call. Absent: the row is judged once.
	 */
	sample?: number;
	/** Values for the judge's params (also read from `inputs` under the param name). */
	params?: Record<string, unknown>;
	signal?: AbortSignal;
	/** The node execution's spend limit: checked before each call, charged after (./spend). */
	spend?: SpendLimit;
	/** The judge verdict cache; absent = every call goes to the model. */
	cache?: VerdictCache;
	/** What the node run has learned so far (./fanout: Auto modes). */
	run?: JudgeRunState;
	/**
	 * The row's identity for the circuit breaker (its request id, else its position), the same on
	 * every node of the execution: the breaker counts failing rows, not calls.
	 */
	row?: string;
}
