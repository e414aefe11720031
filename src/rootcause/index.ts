/**
 * Root cause of a row's quality failure, after Databricks Mosaic AI Agent Evaluation (seed 001,
 * "how the root cause is determined"): a row passes when every judge present passes; otherwise
 * the root cause is the first failing judge in a fixed order, because judges correlate causally
 * (a retriever that missed the facts makes grounded, correct answers unlikely). Matched exactly:
 * both default orders, custom judges right after safety, and chunk relevance failing only when no chunk is
 * relevant. Our additions: errored judges make a row incomplete, and the fix texts.
 *
 * Every fact about a slot (its place in each order, its fix, its router output, how it fails)
 * is declared by the judge that fills it (`rootCause` in its declaration); this module only
 * applies them. It is called once per row, by the Root-Cause Router or, without a router
 * upstream, by Eval Aggregate, with the same policy object.
 */
import { isUnjudgedForWantOfModel, passesSlot } from '../core/score';
import type { EvaluatorFacts, RootCauseOrderName, Score } from '../core/types';
import { evaluatorRegistry, slotsOf, type SlotInfo } from '../registry';

/** The cause reported for rows a judge could not score. */
export const INCOMPLETE = 'incomplete';

/** Output name of failures whose cause is a judge without a declared slot (user judges). */
export const CUSTOM_JUDGE = 'Custom Judge';

const INCOMPLETE_FIX =
	'A judge could not score this row: read its error (quota, timeout, unparseable output), fix the cause and re-run the row.';

/** The default order (slot ids) of one of seed 001's two orders, from the declared ranks. */
export function defaultOrder(
	name: RootCauseOrderName,
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): string[] {
	return slotsOf(registry)
		.filter((s) => s.rank?.[name] !== undefined)
		.sort((a, b) => (a.rank?.[name] ?? 0) - (b.rank?.[name] ?? 0))
		.map((s) => s.slot);
}

/**
 * Names of the Root-Cause Router's outputs, in index order: Pass, Incomplete, Custom Judge, then
 * one per declared slot by its fixed output position. Editing an order, adding a custom judge or
 * changing the ground-truth mode never changes this list, so saved connections never move.
 */
export function routerOutputNames(
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): string[] {
	return ['Pass', 'Incomplete', CUSTOM_JUDGE, ...slotsOf(registry).map((s) => s.slot)];
}

/** Suggested fix for a cause: the slot's declared fix, or a generic text naming a custom judge. */
export function suggestedFixFor(
	cause: string,
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): string {
	if (cause === INCOMPLETE) return INCOMPLETE_FIX;
	const slot = findSlot(cause, slotsOf(registry));
	return (
		slot?.fix ??
		`The custom judge "${cause}" failed: read its rationale and address the criterion it checks (prompt, retrieval or data).`
	);
}

function findSlot(name: string, slots: SlotInfo[]): SlotInfo | undefined {
	return slots.find((s) => s.slot === name || s.aliases?.includes(name));
}

/** How ground truth is decided per row: from its fields (`auto`), or fixed by the user. */
export type GroundTruthMode = 'auto' | 'yes' | 'no';

/** Everything that decides a row's root cause besides its scores; shared by router and aggregate. */
export interface RootCausePolicy {
	groundTruth: GroundTruthMode;
	/** Slot ids (or score keys of custom judges) in priority order. */
	withGroundTruth: string[];
	withoutGroundTruth: string[];
}

/** A policy with seed 001's default orders (from the declarations) and any overrides. */
export function rootCausePolicy(
	overrides: Partial<RootCausePolicy> = {},
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): RootCausePolicy {
	return {
		groundTruth: overrides.groundTruth ?? 'auto',
		withGroundTruth: overrides.withGroundTruth ?? defaultOrder('withGroundTruth', registry),
		withoutGroundTruth:
			overrides.withoutGroundTruth ?? defaultOrder('withoutGroundTruth', registry),
	};
}

/**
 * The one ground-truth rule: a row has ground truth when it carries an expected response (or
 * Azure's `ground_truth`) or expected facts: non-blank text, a non-empty list or an object.
 */
export function rowHasGroundTruth(row: Record<string, unknown>): boolean {
	const present = (v: unknown): boolean =>
		(typeof v === 'string' && v.trim() !== '') ||
		(Array.isArray(v) && v.length > 0) ||
		(typeof v === 'object' && v !== null && !Array.isArray(v));
	return present(row.expected_response) || present(row.expected_facts) || present(row.ground_truth);
}

/** Options of {@link determineRootCause}. */
export interface RootCauseOptions {
	/** Picks the default order; false when omitted. */
	hasGroundTruth?: boolean;
	/** Slot ids in priority order, replacing the default order. Unlisted judges come after. */
	order?: readonly string[];
	/** The evaluators whose declarations define slots; the package's by default. */
	registry?: ReadonlyArray<EvaluatorFacts>;
}

/** Verdict of one judge slot on one row. */
export type JudgeVerdict = 'pass' | 'fail' | 'error';

/** Outcome of {@link determineRootCause}. */
export interface RootCauseResult {
	overall: 'pass' | 'fail' | 'incomplete';
	/** The first failing slot (fail only), named as in the order; null otherwise. */
	rootCause: string | null;
	/** For fail and incomplete. */
	suggestedFix?: string;
	/** The failing judge's reason (fail), or the first error message (incomplete). */
	rationale?: string;
	/** Every slot that took part, in evaluation order, with its verdict. */
	verdicts: Record<string, JudgeVerdict>;
	/** Slots that errored (incomplete rows only). */
	erroredJudges?: string[];
}

/**
 * Whether a score without a declared slot counts for the overall verdict although no order lists
 * it: judge-like scales (yes/no, 1-5, severity) do, as custom judges; undeclared 0-1 and count
 * metrics (F1, BLEU, ROUGE, a Code node's ratio) only count when an order names them. Declared
 * slots always count, whatever their scale.
 */
export function isImplicitJudge(score: Score): boolean {
	return (
		score.scale.kind === 'binary' ||
		score.scale.kind === 'likert' ||
		score.scale.kind === 'severity'
	);
}

interface SlotVerdict {
	verdict: JudgeVerdict;
	text?: string;
}

function keyVerdict(failsWhen: 'pass-false' | 'zero', score: Score): SlotVerdict | undefined {
	if (score.status === 'error') return { verdict: 'error', text: score.error ?? score.reason };
	// The one slot rule (src/core/score.ts); an ok score without a pass criterion decides nothing.
	const pass = passesSlot(score, failsWhen);
	if (pass === undefined) return undefined;
	return { verdict: pass ? 'pass' : 'fail', text: score.reason };
}

function isScore(x: unknown): x is Score {
	return (
		typeof x === 'object' &&
		x !== null &&
		typeof (x as Score).status === 'string' &&
		typeof (x as Score).scale === 'object' &&
		(x as Score).scale !== null
	);
}

/**
 * Overall verdict and root cause of one row from its scores (`item.json.eval`).
 * - A score belongs to the slot its evaluator declares (found by the score's `metric`, so a custom
 *   Result Key keeps its slot); a score of an undeclared evaluator is its own slot named by key.
 * - Slots are checked in the order (default: by ground truth), with the user's judges (judge-like
 *   scores no declaration claims, {@link isImplicitJudge}, by key) right after safety as seed 001
 *   lists them; then every other declared slot that ran, whatever its scale, by output position.
 * - Absent and not-applicable scores are skipped. An ok score passes or fails by its `pass` (or
 *   by its value for slots that fail only at zero, as chunk relevance does).
 * - The first failing slot is the root cause, unless a slot before it errored: then, as with
 *   errors and no failure, the row is `incomplete` (the errored judge might have been the cause).
 * - A row on which no judge gave a verdict is `incomplete` too: nothing vouches for it. So is a
 *   row a judge was meant to judge but had no model to ask: a metric that passed (document
 *   recall, say) does not make up for a judge that never ran.
 */
export function determineRootCause(
	scores: Record<string, unknown>,
	options: RootCauseOptions = {},
): RootCauseResult {
	const registry = options.registry ?? evaluatorRegistry;
	const slots = slotsOf(registry);
	const slotOfId = new Map<string, SlotInfo>();
	for (const s of slots) for (const id of s.evaluators) slotOfId.set(id, s);
	const order =
		options.order ??
		defaultOrder(options.hasGroundTruth ? 'withGroundTruth' : 'withoutGroundTruth', registry);

	// Group the row's scores by slot name.
	const groups = new Map<string, { failsWhen: 'pass-false' | 'zero'; scores: Score[] }>();
	const undeclared: string[] = [];
	for (const key of Object.keys(scores).sort()) {
		const s = scores[key];
		if (!isScore(s)) continue;
		const slot = slotOfId.get(s.metric);
		if (slot) {
			const g = groups.get(slot.slot) ?? { failsWhen: slot.failsWhen ?? 'pass-false', scores: [] };
			g.scores.push(s);
			groups.set(slot.slot, g);
		} else {
			groups.set(key, { failsWhen: 'pass-false', scores: [s] });
			undeclared.push(key);
		}
	}
	const sequence: string[] = [];
	const take = (name: string): void => {
		const slot = findSlot(name, slots);
		const id = slot && groups.has(slot.slot) ? slot.slot : name;
		if (groups.has(id) && !sequence.includes(id)) sequence.push(id);
	};
	// Seed 001 lists "any judge defined by the customer" right after safety in both orders. The
	// user's own judges (judge-like scores no declaration claims, by key) go there: after safety
	// when the order names it, else after the whole order. Undeclared 0-1 and count scores (F1,
	// BLEU, a Code node's ratio) are metrics, not judges: they count only when an order names them.
	const judgeLike = (id: string): boolean => groups.get(id)!.scores.some(isImplicitJudge);
	const customs = undeclared.filter(judgeLike);
	const safetyAt = order.findIndex(
		(name) => findSlot(name, slots)?.slot === 'safety' || name === 'safety',
	);
	const head = safetyAt < 0 ? order : order.slice(0, safetyAt + 1);
	const tail = safetyAt < 0 ? [] : order.slice(safetyAt + 1);
	head.forEach(take);
	customs.forEach(take);
	tail.forEach(take);
	// Every other judge that ran counts toward the overall verdict too (seed 001: the row passes
	// only "if all judges pass"), ranked after the named ones by output position: a declared slot
	// of any scale, so chunk relevance with ground truth and document recall decide pass/fail even
	// when the active order does not name them; the order decides only which failure is the cause.
	for (const s of slots) if (groups.has(s.slot)) take(s.slot);

	const verdicts: Record<string, JudgeVerdict> = {};
	const errored: string[] = [];
	let firstError: string | undefined;
	let failure: { id: string; text?: string } | undefined;
	let unjudged: string | undefined;
	for (const id of sequence) {
		const g = groups.get(id)!;
		unjudged ??= g.scores.find(isUnjudgedForWantOfModel)?.reason;
		// Within a slot (two groundedness scales, several harm categories) a fail outranks an error.
		let fail: SlotVerdict | undefined;
		let error: SlotVerdict | undefined;
		let pass = false;
		for (const score of g.scores) {
			const v = keyVerdict(g.failsWhen, score);
			if (v?.verdict === 'fail') fail ??= v;
			else if (v?.verdict === 'error') error ??= v;
			else if (v?.verdict === 'pass') pass = true;
		}
		if (fail) {
			verdicts[id] = 'fail';
			// A failure behind an earlier error cannot be called the first: leave it undecided.
			if (!failure && errored.length === 0) failure = { id, text: fail.text };
		} else if (error) {
			verdicts[id] = 'error';
			errored.push(id);
			firstError ??= error.text;
		} else if (pass) verdicts[id] = 'pass';
	}

	if (failure) {
		return {
			overall: 'fail',
			rootCause: failure.id,
			suggestedFix: suggestedFixFor(failure.id, registry),
			...(failure.text !== undefined ? { rationale: failure.text } : {}),
			verdicts,
		};
	}
	if (errored.length > 0 || unjudged !== undefined || Object.keys(verdicts).length === 0) {
		const rationale = firstError ?? unjudged;
		return {
			overall: 'incomplete',
			rootCause: null,
			suggestedFix: INCOMPLETE_FIX,
			...(rationale !== undefined ? { rationale } : {}),
			verdicts,
			erroredJudges: errored,
		};
	}
	return { overall: 'pass', rootCause: null, verdicts };
}

/**
 * Root cause of one item's json (`eval` scores plus the record's ground-truth fields) under a
 * policy: the single entry point the Root-Cause Router and Eval Aggregate share.
 */
export function decideRootCause(
	row: Record<string, unknown>,
	policy: RootCausePolicy = rootCausePolicy(),
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): RootCauseResult {
	const hasGroundTruth =
		policy.groundTruth === 'yes' || (policy.groundTruth === 'auto' && rowHasGroundTruth(row));
	const scores =
		typeof row.eval === 'object' && row.eval !== null && !Array.isArray(row.eval)
			? (row.eval as Record<string, unknown>)
			: {};
	return determineRootCause(scores, {
		hasGroundTruth,
		order: hasGroundTruth ? policy.withGroundTruth : policy.withoutGroundTruth,
		registry,
	});
}

/** The router output index a verdict leaves on ({@link routerOutputNames}). */
export function routerOutputIndex(
	verdict: Pick<RootCauseResult, 'overall' | 'rootCause'>,
	registry: ReadonlyArray<EvaluatorFacts> = evaluatorRegistry,
): number {
	if (verdict.overall === 'pass') return 0;
	if (verdict.overall === 'incomplete' || verdict.rootCause === null) return 1;
	const i = slotsOf(registry).findIndex((s) => s.slot === verdict.rootCause);
	return i < 0 ? 2 : 3 + i;
}
