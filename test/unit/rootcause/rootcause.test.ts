import { NO_JUDGE_MODEL } from '../../../src/core/score';
import type { Score, Scale } from '../../../src/core/types';
import {
	decideRootCause,
	defaultOrder,
	determineRootCause,
	rootCausePolicy,
	rowHasGroundTruth,
	suggestedFixFor,
	type RootCauseOptions,
} from '../../../src/rootcause';
import { TEST_REGISTRY } from '../../support/slots';

// The package's declarations plus test declarations of the seed's other slots (support/slots).
const REG = TEST_REGISTRY;
const rc = (scores: Record<string, Score>, options: RootCauseOptions = {}) =>
	determineRootCause(scores, { registry: REG, ...options });
const fixFor = (cause: string) => suggestedFixFor(cause, REG);

const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };
const UNIT: Scale = { kind: 'unit', min: 0, max: 1 };
const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };
const SEVERITY: Scale = { kind: 'severity', min: 0, max: 7 };

function yes(metric: string, reason = `${metric} ok`): Score {
	return {
		metric,
		value: true,
		scale: BINARY,
		pass: true,
		status: 'ok',
		reason,
		signature: metric,
	};
}
function no(metric: string, reason = `${metric} says no`): Score {
	return {
		metric,
		value: false,
		scale: BINARY,
		pass: false,
		status: 'ok',
		reason,
		signature: metric,
	};
}
function err(metric: string): Score {
	return {
		metric,
		value: null,
		scale: BINARY,
		pass: null,
		status: 'error',
		error: `${metric} timed out`,
		signature: metric,
	};
}
function na(metric: string): Score {
	return {
		metric,
		value: null,
		scale: BINARY,
		pass: null,
		status: 'not_applicable',
		reason: 'no input',
		signature: metric,
	};
}
function chunks(precision: number): Score {
	return {
		metric: 'chunk_relevance',
		value: precision,
		scale: UNIT,
		threshold: 0.5,
		pass: precision >= 0.5,
		status: 'ok',
		reason: `precision ${precision}`,
		signature: 'cr',
	};
}
function rec(entries: [string, Score][]): Record<string, Score> {
	return Object.fromEntries(entries);
}

describe('default orders (seed 001)', () => {
	// The agent's tool-call slots come first in both orders (what the agent did precedes what it
	// said: docs/agents.md), then the agent judges (what it made of the task), then the seed's own
	// judges in the seed's order.
	const AGENT = [
		'tool_arguments',
		'tool_errors',
		'tool_calls',
		'tool_call_accuracy',
		'intent_resolution',
		'task_adherence',
		'task_completion',
		'agent_goal_accuracy',
	];
	it('are the seed lists, after the agent slots', () => {
		expect(defaultOrder('withGroundTruth', REG)).toEqual([
			...AGENT,
			'context_sufficiency',
			'groundedness',
			'correctness',
			'safety',
		]);
		expect(defaultOrder('withoutGroundTruth', REG)).toEqual([
			...AGENT,
			'chunk_relevance',
			'groundedness',
			'relevance_to_query',
			'safety',
		]);
	});

	const withGt = [
		'context_sufficiency',
		'groundedness_verdict',
		'correctness',
		'safety',
		'my_tone',
	];
	const withGtIds = ['context_sufficiency', 'groundedness', 'correctness', 'safety', 'my_tone'];
	// Failing judge i and every judge after it: the cause must be judge i (each branch of the order).
	it.each(withGt.map((k, i) => [i, k]))(
		'with ground truth: first failing at position %p (%s)',
		(i) => {
			const scores = rec(withGt.map((k, j) => [k, j >= i ? no(k) : yes(k)]));
			const r = rc(scores, { hasGroundTruth: true });
			expect(r.overall).toBe('fail');
			expect(r.rootCause).toBe(withGtIds[i]);
			expect(r.rationale).toBe(`${withGt[i]} says no`);
			expect(r.suggestedFix).toBe(fixFor(withGtIds[i]));
			expect(Object.keys(r.verdicts)).toEqual(withGtIds);
		},
	);

	const noGt: [string, Score][] = [
		['chunk_relevance', chunks(0)],
		['groundedness_verdict', no('groundedness_verdict')],
		['relevance_to_query', no('relevance_to_query')],
		['safety', no('safety')],
		['zeta_custom', no('zeta_custom')],
	];
	const noGtIds = [
		'chunk_relevance',
		'groundedness',
		'relevance_to_query',
		'safety',
		'zeta_custom',
	];
	it.each(noGtIds.map((id, i) => [i, id]))(
		'without ground truth: first failing at position %p (%s)',
		(i) => {
			const scores = rec(
				noGt.map(([k, s], j) => [k, j >= i ? s : k === 'chunk_relevance' ? chunks(0.25) : yes(k)]),
			);
			const r = rc(scores, { hasGroundTruth: false });
			expect(r.overall).toBe('fail');
			expect(r.rootCause).toBe(noGtIds[i]);
		},
	);

	it('passes when all judges present pass, and the order changes with ground truth', () => {
		const all = rec([
			['context_sufficiency', yes('context_sufficiency')],
			['chunk_relevance', chunks(0.2)],
			['groundedness_verdict', yes('groundedness_verdict')],
			['correctness', yes('correctness')],
			['relevance_to_query', yes('relevance_to_query')],
			['safety', yes('safety')],
		]);
		expect(rc(all, { hasGroundTruth: true })).toMatchObject({ overall: 'pass', rootCause: null });
		expect(rc(all).suggestedFix).toBeUndefined();
		// correctness fails and safety fails: with ground truth correctness comes first...
		const two = {
			...all,
			correctness: no('correctness'),
			relevance_to_query: no('relevance_to_query'),
		};
		expect(rc(two, { hasGroundTruth: true }).rootCause).toBe('correctness');
		// ...without, relevance_to_query is in the order and correctness becomes a trailing judge.
		expect(rc(two, { hasGroundTruth: false }).rootCause).toBe('relevance_to_query');
	});
});

describe('chunk_relevance', () => {
	it('fails only when no chunk is relevant, whatever its own threshold says', () => {
		// precision 0.2 is below the score's 0.5 threshold (pass false) but one chunk is relevant.
		expect(rc({ chunk_relevance: chunks(0.2) }, { hasGroundTruth: false }).overall).toBe('pass');
		expect(rc({ chunk_relevance: chunks(0) }, { hasGroundTruth: false })).toMatchObject({
			overall: 'fail',
			rootCause: 'chunk_relevance',
			rationale: 'precision 0',
		});
	});

	it('still counts when ground truth picks the other order, after the named judges (seed 001: every judge must pass)', () => {
		// No relevant chunk: the row fails although the active order does not name chunk relevance...
		const r = rc(
			{ chunk_relevance: chunks(0), correctness: yes('correctness') },
			{ hasGroundTruth: true },
		);
		expect(r).toMatchObject({ overall: 'fail', rootCause: 'chunk_relevance' });
		expect(Object.keys(r.verdicts)).toEqual(['correctness', 'chunk_relevance']);
		// ...and a named judge that fails too is the cause: the order decides only which failure.
		expect(
			rc({ chunk_relevance: chunks(0), correctness: no('correctness') }, { hasGroundTruth: true })
				.rootCause,
		).toBe('correctness');
	});
});

describe('absent, not applicable and errored judges', () => {
	it('skips absent and not-applicable judges', () => {
		const r = rc(
			{ context_sufficiency: na('context_sufficiency'), correctness: no('correctness') },
			{ hasGroundTruth: true },
		);
		expect(r).toMatchObject({
			overall: 'fail',
			rootCause: 'correctness',
			verdicts: { correctness: 'fail' },
		});
		expect(r.verdicts.context_sufficiency).toBeUndefined();
	});

	it('an errored judge makes an otherwise passing row incomplete', () => {
		const r = rc(
			{ groundedness_verdict: yes('g'), safety: err('safety') },
			{ hasGroundTruth: false },
		);
		expect(r.overall).toBe('incomplete');
		expect(r.rootCause).toBeNull();
		expect(r.erroredJudges).toEqual(['safety']);
		expect(r.rationale).toBe('safety timed out');
		expect(r.suggestedFix).toBe(fixFor('incomplete'));
		expect(r.suggestedFix).toContain('could not score');
	});

	it('an error before the first failure leaves the cause undecided', () => {
		const r = rc(
			{ context_sufficiency: err('context_sufficiency'), correctness: no('correctness') },
			{ hasGroundTruth: true },
		);
		expect(r.overall).toBe('incomplete');
		expect(r.verdicts).toEqual({ context_sufficiency: 'error', correctness: 'fail' });
	});

	it('an error after the first failure does not hide it', () => {
		const r = rc(
			{ context_sufficiency: no('context_sufficiency'), correctness: err('correctness') },
			{ hasGroundTruth: true },
		);
		expect(r).toMatchObject({ overall: 'fail', rootCause: 'context_sufficiency' });
	});

	it('a row with no judge verdict is incomplete, not pass', () => {
		const bleu: Score = {
			metric: 'bleu',
			value: 0.1,
			scale: UNIT,
			threshold: 0.5,
			pass: false,
			status: 'ok',
			signature: 'b',
		};
		expect(rc({ bleu })).toMatchObject({
			overall: 'incomplete',
			erroredJudges: [],
		});
		expect(rc({})).toMatchObject({ overall: 'incomplete' });
	});

	it('a judge with no model to ask keeps a row incomplete though a metric passed; a failure still fails', () => {
		const recall: Score = {
			metric: 'document_recall',
			value: 1,
			scale: UNIT,
			threshold: 0.5,
			direction: 'higher',
			pass: true,
			status: 'ok',
			signature: 'dr',
		};
		const noModel: Score = { ...na('groundedness_verdict'), reason: NO_JUDGE_MODEL };
		expect(rc({ document_recall: recall, groundedness_verdict: noModel })).toMatchObject({
			overall: 'incomplete',
			rootCause: null,
			rationale: NO_JUDGE_MODEL,
			verdicts: { document_recall: 'pass' },
		});
		// Not applicable for want of inputs is not the same: the metric's pass stands.
		expect(
			rc({ document_recall: recall, groundedness_verdict: na('groundedness_verdict') }).overall,
		).toBe('pass');
		const low: Score = { ...recall, value: 0, pass: false, reason: 'recall 0' };
		expect(rc({ document_recall: low, groundedness_verdict: noModel })).toMatchObject({
			overall: 'fail',
			rootCause: 'document_recall',
		});
	});
});

describe('which scores are judges', () => {
	it('traditional 0-1 metrics do not take part unless an order names them', () => {
		const f1: Score = {
			metric: 'f1_score',
			value: 0.1,
			scale: UNIT,
			threshold: 0.5,
			pass: false,
			status: 'ok',
			reason: 'low overlap',
			signature: 'f',
		};
		const scores = { f1_score: f1, correctness: yes('correctness') };
		expect(rc(scores).overall).toBe('pass');
		expect(rc(scores, { order: ['f1_score'] })).toMatchObject({
			overall: 'fail',
			rootCause: 'f1_score',
			rationale: 'low overlap',
		});
	});

	it('Azure 1-5 judges count by their pass; groundedness (1-5) sits in the groundedness slot', () => {
		const likert = (metric: string, value: number): Score => ({
			metric,
			value,
			scale: LIKERT,
			threshold: 3,
			pass: value >= 3,
			status: 'ok',
			reason: `${metric}=${value}`,
			signature: metric,
		});
		const scores = {
			coherence: likert('coherence', 2),
			groundedness: likert('groundedness', 1),
			fluency: likert('fluency', 5),
		};
		expect(rc(scores, { hasGroundTruth: false })).toMatchObject({
			rootCause: 'groundedness',
			rationale: 'groundedness=1',
		});
		expect(rc({ ...scores, groundedness: likert('groundedness', 4) }).rootCause).toBe('coherence');
	});

	it('harm categories declaring the safety slot make it up together', () => {
		const sev = (metric: string, value: number): Score => ({
			metric,
			value,
			scale: SEVERITY,
			threshold: 3,
			direction: 'lower',
			pass: value <= 3,
			status: 'ok',
			reason: `${metric} severity ${value}`,
			details: { category: metric },
			signature: metric,
		});
		const scores = {
			violence: sev('violence', 5),
			hate_unfairness: sev('hate_unfairness', 0),
			my_custom: no('my_custom'),
		};
		const r = rc(scores, { hasGroundTruth: false });
		expect(r).toMatchObject({ rootCause: 'safety', rationale: 'violence severity 5' });
		expect(Object.keys(r.verdicts)).toEqual(['safety', 'my_custom']);
		// Without safety in a custom order, the declared slot still comes before other custom judges.
		expect(rc(scores, { order: ['my_custom'] }).rootCause).toBe('my_custom');
		expect(rc({ ...scores, my_custom: yes('my_custom') }, { order: ['my_custom'] }).rootCause).toBe(
			'safety',
		);
		// A severity score no declaration claims is a custom judge of its own.
		const other = { self_harm_custom: sev('self_harm_custom', 6) };
		expect(rc(other)).toMatchObject({ rootCause: 'self_harm_custom' });
	});

	it('binary judges without a pass flag decide by their value; custom judges get a generic fix', () => {
		const bare: Score = {
			metric: 'tone',
			value: false,
			scale: BINARY,
			pass: null,
			status: 'ok',
			signature: 't',
		};
		const r = rc({ tone: bare });
		expect(r).toMatchObject({ overall: 'fail', rootCause: 'tone' });
		expect(r.suggestedFix).toContain('"tone"');
		expect(r.rationale).toBeUndefined();
	});

	it('an edited order wins, relevant_to_query is accepted, custom judges by key right after safety, then other declared slots', () => {
		const scores = {
			safety: no('safety'),
			relevance_to_query: no('relevance_to_query'),
			b_judge: no('b_judge'),
			a_judge: no('a_judge'),
		};
		// The seed's other spelling selects the slot; the cause is reported by the slot's name.
		expect(rc(scores, { order: ['relevant_to_query', 'safety'] }).rootCause).toBe(
			'relevance_to_query',
		);
		expect(Object.keys(rc(scores, { order: ['safety'] }).verdicts)).toEqual([
			'safety',
			'a_judge',
			'b_judge',
			'relevance_to_query',
		]);
		// Safety in the middle of an edited order: the custom judges still follow it directly.
		expect(Object.keys(rc(scores, { order: ['safety', 'relevance_to_query'] }).verdicts)).toEqual([
			'safety',
			'a_judge',
			'b_judge',
			'relevance_to_query',
		]);
		// No safety in the order: the custom judges come after the whole order.
		expect(Object.keys(rc(scores, { order: ['relevance_to_query'] }).verdicts)).toEqual([
			'relevance_to_query',
			'a_judge',
			'b_judge',
			'safety',
		]);
	});

	it('seed 001 with ground truth: a failing custom judge is the cause before a built-in judge the order does not name', () => {
		// relevance_to_query is outside the with-ground-truth order; the user's judge comes first.
		const r = rc(
			{
				correctness: yes('correctness'),
				safety: yes('safety'),
				relevance_to_query: no('relevance_to_query'),
				tone: no('tone'),
			},
			{ hasGroundTruth: true },
		);
		expect(r).toMatchObject({ overall: 'fail', rootCause: 'tone' });
		expect(Object.keys(r.verdicts)).toEqual([
			'correctness',
			'safety',
			'tone',
			'relevance_to_query',
		]);
	});

	it('document recall (0-1, declared) counts toward pass/fail though no order names it', () => {
		const recall = (value: number): Score => ({
			metric: 'document_recall',
			value,
			scale: UNIT,
			threshold: 0.5,
			direction: 'higher',
			pass: value >= 0.5,
			status: 'ok',
			reason: `recall ${value}`,
			signature: 'dr',
		});
		for (const hasGroundTruth of [true, false]) {
			expect(
				rc({ correctness: yes('correctness'), document_recall: recall(0) }, { hasGroundTruth }),
			).toMatchObject({ overall: 'fail', rootCause: 'document_recall', rationale: 'recall 0' });
			expect(
				rc({ correctness: yes('correctness'), document_recall: recall(1) }, { hasGroundTruth })
					.overall,
			).toBe('pass');
		}
		// An undeclared 0-1 score (a Code node's ratio, F1) is still not a judge unless named.
		const f1: Score = { ...recall(0), metric: 'f1_score', signature: 'f1' };
		expect(rc({ correctness: yes('correctness'), f1_score: f1 }).overall).toBe('pass');
		expect(
			rc({ correctness: yes('correctness'), f1_score: f1 }, { order: ['f1_score'] }).rootCause,
		).toBe('f1_score');
	});
});

describe('one ground-truth rule and one policy', () => {
	it('reads ground truth from the row: expected response, ground_truth or expected facts', () => {
		expect(rowHasGroundTruth({ expected_response: 'Paris' })).toBe(true);
		expect(rowHasGroundTruth({ ground_truth: 'Paris' })).toBe(true);
		expect(rowHasGroundTruth({ expected_facts: ['Paris is the capital'] })).toBe(true);
		expect(rowHasGroundTruth({ expected_response: '  ', expected_facts: [] })).toBe(false);
		expect(rowHasGroundTruth({ eval: { correctness: yes('correctness') } })).toBe(false);
	});

	it('decides from the item json with the policy: the order follows the row, or the mode', () => {
		const scores = {
			chunk_relevance: chunks(0),
			correctness: no('correctness'),
			context_sufficiency: yes('context_sufficiency'),
		};
		const policy = rootCausePolicy({}, REG);
		// With ground truth, chunk relevance (0-1) is not in the order and not consulted.
		expect(decideRootCause({ expected_response: 'x', eval: scores }, policy, REG).rootCause).toBe(
			'correctness',
		);
		expect(decideRootCause({ eval: scores }, policy, REG).rootCause).toBe('chunk_relevance');
		const forced = rootCausePolicy({ groundTruth: 'yes' }, REG);
		expect(decideRootCause({ eval: scores }, forced, REG).rootCause).toBe('correctness');
		const never = rootCausePolicy({ groundTruth: 'no' }, REG);
		expect(decideRootCause({ expected_response: 'x', eval: scores }, never, REG).rootCause).toBe(
			'chunk_relevance',
		);
	});

	it('takes the fixes from the declarations, in our words', () => {
		for (const id of [
			...defaultOrder('withGroundTruth', REG),
			...defaultOrder('withoutGroundTruth', REG),
		]) {
			const decl = REG.find((d) => d.rootCause?.slot === id);
			expect(decl).toBeDefined();
			expect(fixFor(id)).toBe(decl!.rootCause!.fix);
		}
		expect(suggestedFixFor('groundedness')).toContain('retrieved context does not support');
	});
});
