/**
 * The one place Scores are built. Every metric, judge and node goes through these functions, so
 * there is one pass rule (direction-aware, yes/no verdicts by their value) and one shape for
 * not-applicable and errored rows: value and pass null, never a 0 standing in for a failure.
 */
import type { Direction, EvaluatorFacts, RootCauseDecl, Scale, Score, Usage } from './types';

/** The fields every Score of one evaluation carries, whatever its outcome. */
export interface ScoreBase {
	metric: string;
	scale: Scale;
	threshold?: number;
	direction: Direction;
	signature: string;
}

/** What an ok Score may carry besides its value. */
export interface ScoreExtras {
	reason?: string;
	usage?: Usage;
	model?: string;
	latencyMs?: number;
	attempts?: number;
	details?: Record<string, unknown>;
	stats?: Record<string, number | number[]>;
}

/** The base of a Score from a declaration: its key, scale, direction and (except yes/no) threshold. */
export function scoreBase(
	decl: Pick<EvaluatorFacts, 'scale' | 'threshold'>,
	metric: string,
	signature: string,
	threshold?: number,
): ScoreBase {
	const base: ScoreBase = {
		metric,
		scale: decl.scale,
		direction: decl.threshold.direction,
		signature,
	};
	// A yes/no verdict passes by its value; a threshold on it would have no effect.
	if (decl.scale.kind !== 'binary') base.threshold = threshold ?? decl.threshold.default;
	return base;
}

/**
 * Whether a value passes: yes/no values by the verdict (a "yes" passes when higher is better),
 * numbers at or above (higher) or at or below (lower) the threshold.
 */
export function passes(value: number | boolean, threshold: number | undefined, dir: Direction) {
	if (typeof value === 'boolean') return dir === 'higher' ? value : !value;
	const t = threshold ?? (dir === 'higher' ? -Infinity : Infinity);
	return dir === 'higher' ? value >= t : value <= t;
}

/**
 * A measured Score. A non-finite number becomes an error Score (NaN never leaves a node);
 * `pass` may be given when the declaration has its own pass rule (ROUGE's three thresholds).
 */
export function okScore(
	base: ScoreBase,
	value: number | boolean,
	extras: ScoreExtras = {},
	pass?: boolean,
): Score {
	if (typeof value === 'number' && !Number.isFinite(value)) {
		return errorScore(
			base,
			`${base.metric} produced a non-finite value; no score recorded`,
			extras,
		);
	}
	const score: Score = {
		...base,
		value,
		pass: pass ?? passes(value, base.threshold, base.direction),
		status: 'ok',
	};
	return withExtras(score, extras);
}

/**
 * The reason a judge gives every row when it has no model to ask. Such a row was meant to be
 * judged and was not: root cause never calls it a pass (src/rootcause), whatever else passed.
 */
export const NO_JUDGE_MODEL =
	'no judge model configured: add a RAG Eval LLM API credential or connect a Chat Model';

/** Whether a Score is a judge's "not applicable" for want of a model, not for want of inputs. */
export function isUnjudgedForWantOfModel(score: Pick<Score, 'status' | 'reason'>): boolean {
	return score.status === 'not_applicable' && score.reason === NO_JUDGE_MODEL;
}

/** A row the evaluator cannot score (missing inputs, nothing to judge): `reason` says why. */
export function notApplicableScore(base: ScoreBase, reason: string, extras: ScoreExtras = {}) {
	return withExtras(
		{ ...base, value: null, pass: null, status: 'not_applicable', reason } as Score,
		extras,
	);
}

/** A row whose evaluation failed: `error` names the row, the field or the call that failed. */
export function errorScore(base: ScoreBase, error: string, extras: ScoreExtras = {}): Score {
	return withExtras({ ...base, value: null, pass: null, status: 'error', error }, extras);
}

/** Prefixes a failed Score's error with the row it came from (`row 3 (request_id q-7): ...`). */
export function labelRowError(score: Score, row: string): Score {
	if (score.status === 'error' && score.error !== undefined && !score.error.startsWith(row)) {
		score.error = `${row}: ${score.error}`;
	}
	return score;
}

function withExtras(score: Score, extras: ScoreExtras): Score {
	const target = score as unknown as Record<string, unknown>;
	const from = extras as Record<string, unknown>;
	// for...in, not Object.entries: no array of pairs per Score (one per row and node).
	for (const k in from) {
		const v = from[k];
		if (v !== undefined) target[k] = v;
	}
	return score;
}

/**
 * The one signature builder: `<kind>:<id>@<version>` then the parts that decide the value
 * (model, temperature, prompt hash, backend, tokenizer...), `|`-separated, empty parts dropped.
 * Never given a credential.
 */
export function signatureOf(
	kind: 'metric' | 'judge' | 'safety',
	decl: Pick<EvaluatorFacts, 'id' | 'version'>,
	...parts: ReadonlyArray<string | undefined>
): string {
	return [`${kind}:${decl.id}@${decl.version}`, ...parts].filter(Boolean).join('|');
}

/**
 * Whether an ok Score passes its root-cause slot: by its `pass`, or, for a slot that fails only at
 * zero (`failsWhen: 'zero'`: chunk relevance, seed 001's "is at least one chunk relevant?"), by its
 * value. Undefined when the Score cannot say (not ok, or no pass criterion). The root cause
 * (src/rootcause) and the note below share this one rule.
 */
export function passesSlot(
	score: Pick<Score, 'status' | 'value' | 'pass' | 'scale'>,
	failsWhen: RootCauseDecl['failsWhen'] = 'pass-false',
): boolean | undefined {
	if (score.status !== 'ok') return undefined;
	if (failsWhen === 'zero') {
		if (typeof score.value === 'boolean') return score.value;
		if (typeof score.value === 'number' && Number.isFinite(score.value)) return score.value > 0;
		return undefined;
	}
	if (typeof score.pass === 'boolean') return score.pass;
	// A yes/no score written elsewhere without a pass flag still says yes or no.
	if (score.scale.kind === 'binary' && typeof score.value === 'boolean') return score.value;
	return undefined;
}

/**
 * Names, on the row, a difference between the node's Pass/Fail and the root cause's verdict on the
 * same Score. Chunk relevance is the case: its node passes a precision at or above its threshold
 * (0.5 by default, the user's to tune), while the root cause follows seed 001 and fails the slot
 * only when not one chunk is relevant. Both rules stay, because each answers its own question
 * (is retrieval precise enough? is retrieval the first thing that broke?); a row where they differ
 * says so in its reason and in `details.rootCause`, so a row on the node's Fail output that the
 * Root-Cause Router passes (or the reverse) is explained where people read it.
 */
export function withSlotNote(score: Score, facts: Pick<EvaluatorFacts, 'rootCause'>): Score {
	const rc = facts.rootCause;
	if (!rc?.failsWhen || rc.failsWhen === 'pass-false' || typeof score.pass !== 'boolean')
		return score;
	const slotPass = passesSlot(score, rc.failsWhen);
	if (slotPass === undefined || slotPass === score.pass) return score;
	const rule = 'only when the value is 0';
	const verdict = slotPass ? 'passing' : 'failing';
	const node = `the node's Pass/Fail uses the threshold ${score.threshold ?? '(none)'}`;
	const note = `The root cause counts this row as ${verdict} ${rc.slot}: it fails the slot ${rule} (seed 001); ${node}.`;
	return {
		...score,
		reason: score.reason ? `${score.reason} ${note}` : note,
		details: {
			...(score.details ?? {}),
			rootCause: { slot: rc.slot, verdict: slotPass ? 'pass' : 'fail', failsWhen: rc.failsWhen },
		},
	};
}
