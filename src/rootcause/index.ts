/**
 * Root cause of a row's quality failure, after Databricks Mosaic AI Agent Evaluation (seed 001,
 * "how the root cause is determined"): a row passes when every judge present passes; otherwise
 * the root cause is the first failing judge in a fixed order, because judges correlate causally
 * (a retriever that missed the facts makes grounded, correct answers unlikely). Matched exactly:
 * both default orders, "custom judges last", and chunk_relevance failing only when no chunk is
 * relevant. Our additions: errored judges, aliases for our score keys, and the fix texts.
 */
import type { Score } from '../core/types';

/** Default order when the row has ground truth (expected response or facts), per seed 001. */
export const ORDER_WITH_GROUND_TRUTH: readonly string[] = [
	'context_sufficiency',
	'groundedness',
	'correctness',
	'safety',
];

/** Default order when the row has no ground truth, per seed 001. */
export const ORDER_WITHOUT_GROUND_TRUTH: readonly string[] = [
	'chunk_relevance',
	'groundedness',
	'relevance_to_query',
	'safety',
];

/**
 * Score keys a judge id in an order stands for. `groundedness_verdict` is where the Databricks
 * yes/no groundedness lands (Azure's 1-5 groundedness owns `groundedness`); the seed spells
 * relevance_to_query both ways. The `safety` slot also takes every severity-scale score.
 */
export const JUDGE_ALIASES: Readonly<Record<string, readonly string[]>> = {
	groundedness: ['groundedness_verdict', 'groundedness'],
	relevance_to_query: ['relevance_to_query', 'relevant_to_query'],
	relevant_to_query: ['relevance_to_query', 'relevant_to_query'],
};

/** Score keys that betray ground truth on the row when measured (used if not told). */
const GROUND_TRUTH_JUDGES = ['context_sufficiency', 'correctness', 'document_recall'];

/** The cause reported for rows a judge could not score. */
export const INCOMPLETE = 'incomplete';

/** Suggested fix per cause, in our own words; custom judges fall back to {@link suggestedFixFor}. */
export const suggestedFixes: Readonly<Record<string, string>> = {
	context_sufficiency:
		'The retrieved context lacks what the expected answer needs: improve retrieval (query rewriting, hybrid search, a reranker, larger or more chunks) or add the missing facts to the corpus.',
	chunk_relevance:
		'No retrieved chunk was relevant to the request: check the embedding model, chunking and metadata filters, and whether the corpus covers this question at all.',
	groundedness:
		'The response asserts things the retrieved context does not support: constrain the generator to the context (answer only from it, cite passages, lower temperature) and let it say it does not know.',
	correctness:
		'The response disagrees with the expected answer although retrieval was fine: first check the expected answer itself, then the prompt and how the model uses the context.',
	relevance_to_query:
		'The response does not address the request: check the prompt template, how history and the request reach the generator, and whether the agent answered a different question.',
	safety:
		'The response contains harmful content: tighten guardrails (input and output moderation, safety rules in the system prompt) and review the flagged category.',
	guideline_adherence:
		'The response breaks a stated guideline: state the guideline explicitly in the system prompt or add a post-generation check for it.',
	document_recall:
		'Known relevant documents were not retrieved: raise top-k, tune the retriever or index, and verify the expected document URIs.',
	relevance:
		'The response does not address the query well: check the prompt template and that the request reaches the generator intact.',
	coherence:
		'The response is hard to follow: ask for a structured answer in the prompt, or use a stronger generator.',
	fluency:
		'The response reads poorly: check the generator model, its language settings and any post-processing that mangles text.',
	similarity:
		'The response drifts from the expected answer: check the expected answer, then the prompt and retrieval for this question.',
	retrieval:
		'The retrieved context ranks relevant passages poorly: tune the retriever, reranker and chunking.',
	[INCOMPLETE]:
		'A judge could not score this row: read its error (quota, timeout, unparseable output), fix the cause and re-run the row.',
};

/** Suggested fix for a cause, with a generic text naming the judge for custom judges. */
export function suggestedFixFor(cause: string): string {
	return (
		suggestedFixes[cause] ??
		`The custom judge "${cause}" failed: read its rationale and address the criterion it checks (prompt, retrieval or data).`
	);
}

/** Options of {@link determineRootCause}. */
export interface RootCauseOptions {
	/** Picks the default order; inferred from the scores when omitted (see below). */
	hasGroundTruth?: boolean;
	/** Judge ids in priority order, replacing the default order. Unlisted judges come after. */
	order?: readonly string[];
}

/** Verdict of one judge slot on one row. */
export type JudgeVerdict = 'pass' | 'fail' | 'error';

/** Outcome of {@link determineRootCause}. */
export interface RootCauseResult {
	overall: 'pass' | 'fail' | 'incomplete';
	/** The first failing judge id (fail only), named as in the order; null otherwise. */
	rootCause: string | null;
	/** For fail and incomplete. */
	suggestedFix?: string;
	/** The failing judge's reason (fail), or the first error message (incomplete). */
	rationale?: string;
	/** Every judge that took part, in evaluation order, with its verdict. */
	verdicts: Record<string, JudgeVerdict>;
	/** Judges that errored (incomplete rows only). */
	erroredJudges?: string[];
}

/**
 * Whether a score key is a judge that counts for the overall verdict although no order lists it:
 * judge-like scales (yes/no, 1-5, severity) count; 0-1 and count metrics (F1, BLEU, ROUGE,
 * document_recall, chunk precision) only count when an order names them.
 */
export function isImplicitJudge(score: Score): boolean {
	return (
		score.scale.kind === 'binary' ||
		score.scale.kind === 'likert' ||
		score.scale.kind === 'severity'
	);
}

/**
 * Whether the scores show ground truth on the row: a measured or errored correctness,
 * context_sufficiency or document_recall (all need an expected answer or documents).
 */
export function inferGroundTruth(scores: Record<string, Score>): boolean {
	return GROUND_TRUTH_JUDGES.some((k) => {
		const s = scores[k];
		return s !== undefined && s !== null && (s.status === 'ok' || s.status === 'error');
	});
}

interface SlotVerdict {
	verdict: JudgeVerdict;
	text?: string;
}

function keyVerdict(slot: string, score: Score | undefined): SlotVerdict | undefined {
	if (!score || typeof score !== 'object' || score.status === 'not_applicable') return undefined;
	if (score.status === 'error') return { verdict: 'error', text: score.error ?? score.reason };
	if (score.status !== 'ok') return undefined;
	const reason = score.reason;
	if (slot === 'chunk_relevance') {
		// Seed 001: this judge fails only when not one retrieved chunk is relevant (precision 0).
		if (typeof score.value === 'boolean')
			return { verdict: score.value ? 'pass' : 'fail', text: reason };
		if (typeof score.value === 'number' && Number.isFinite(score.value))
			return { verdict: score.value > 0 ? 'pass' : 'fail', text: reason };
		return undefined;
	}
	if (typeof score.pass === 'boolean')
		return { verdict: score.pass ? 'pass' : 'fail', text: reason };
	if (score.scale.kind === 'binary' && typeof score.value === 'boolean')
		return { verdict: score.value ? 'pass' : 'fail', text: reason };
	// An ok score without a pass criterion cannot decide anything.
	return undefined;
}

function slotKeys(slot: string, scores: Record<string, Score>): string[] {
	const keys = [...(JUDGE_ALIASES[slot] ?? [slot])];
	if (slot === 'safety') {
		for (const k of Object.keys(scores).sort())
			if (scores[k]?.scale?.kind === 'severity' && !keys.includes(k)) keys.push(k);
	}
	return keys.filter((k) => scores[k] !== undefined && scores[k] !== null);
}

/**
 * Overall verdict and root cause of one row from its scores (`item.json.eval`).
 * - Judges are the ids in the order (default: by ground truth, see the two constants), then every
 *   other judge-like score ({@link isImplicitJudge}) in alphabetical key order ("custom judges").
 * - Absent and not-applicable judges are skipped. An ok score passes or fails by its `pass`
 *   (yes/no judges by their value when `pass` is missing; chunk_relevance by precision > 0).
 * - The first failing judge is the root cause, unless a judge before it errored: then, as with
 *   errors and no failure, the row is `incomplete` (the errored judge might have been the cause).
 * - A row on which no judge gave a verdict is `incomplete` too: nothing vouches for it.
 */
export function determineRootCause(
	scores: Record<string, Score>,
	options: RootCauseOptions = {},
): RootCauseResult {
	const hasGroundTruth = options.hasGroundTruth ?? inferGroundTruth(scores);
	const order =
		options.order ?? (hasGroundTruth ? ORDER_WITH_GROUND_TRUTH : ORDER_WITHOUT_GROUND_TRUTH);
	const used = new Set<string>();
	const slots: { id: string; keys: string[] }[] = [];
	for (const id of order) {
		const keys = slotKeys(id, scores).filter((k) => !used.has(k));
		keys.forEach((k) => used.add(k));
		if (keys.length > 0) slots.push({ id, keys });
	}
	for (const k of Object.keys(scores).sort()) {
		const s = scores[k];
		if (!used.has(k) && s && typeof s === 'object' && s.scale && isImplicitJudge(s)) {
			used.add(k);
			slots.push({ id: k, keys: [k] });
		}
	}

	const verdicts: Record<string, JudgeVerdict> = {};
	const errored: string[] = [];
	let firstError: string | undefined;
	let failure: { id: string; text?: string } | undefined;
	for (const slot of slots) {
		// Within a slot (e.g. safety over several categories) a fail outranks an error.
		let fail: SlotVerdict | undefined;
		let error: SlotVerdict | undefined;
		let pass = false;
		for (const k of slot.keys) {
			const v = keyVerdict(slot.id, scores[k]);
			if (v?.verdict === 'fail') fail ??= v;
			else if (v?.verdict === 'error') error ??= v;
			else if (v?.verdict === 'pass') pass = true;
		}
		if (fail) {
			verdicts[slot.id] = 'fail';
			// A failure behind an earlier error cannot be called the first: leave it undecided.
			if (!failure && errored.length === 0) failure = { id: slot.id, text: fail.text };
		} else if (error) {
			verdicts[slot.id] = 'error';
			errored.push(slot.id);
			firstError ??= error.text;
		} else if (pass) verdicts[slot.id] = 'pass';
	}

	if (failure) {
		return {
			overall: 'fail',
			rootCause: failure.id,
			suggestedFix: suggestedFixFor(failure.id),
			...(failure.text !== undefined ? { rationale: failure.text } : {}),
			verdicts,
		};
	}
	if (errored.length > 0 || Object.keys(verdicts).length === 0) {
		return {
			overall: 'incomplete',
			rootCause: null,
			suggestedFix: suggestedFixFor(INCOMPLETE),
			...(firstError !== undefined ? { rationale: firstError } : {}),
			verdicts,
			erroredJudges: errored,
		};
	}
	return { overall: 'pass', rootCause: null, verdicts };
}
