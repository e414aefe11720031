import type { Score, Scale } from '../../../src/core/types';
import {
	determineRootCause,
	inferGroundTruth,
	ORDER_WITH_GROUND_TRUTH,
	ORDER_WITHOUT_GROUND_TRUTH,
	suggestedFixes,
	suggestedFixFor,
} from '../../../src/rootcause';

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
	it('are the seed lists', () => {
		expect(ORDER_WITH_GROUND_TRUTH).toEqual([
			'context_sufficiency',
			'groundedness',
			'correctness',
			'safety',
		]);
		expect(ORDER_WITHOUT_GROUND_TRUTH).toEqual([
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
			const r = determineRootCause(scores, { hasGroundTruth: true });
			expect(r.overall).toBe('fail');
			expect(r.rootCause).toBe(withGtIds[i]);
			expect(r.rationale).toBe(`${withGt[i]} says no`);
			expect(r.suggestedFix).toBe(suggestedFixFor(withGtIds[i]));
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
			const r = determineRootCause(scores, { hasGroundTruth: false });
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
		expect(determineRootCause(all)).toMatchObject({ overall: 'pass', rootCause: null });
		expect(determineRootCause(all).suggestedFix).toBeUndefined();
		// correctness fails and safety fails: with ground truth correctness comes first...
		const two = {
			...all,
			correctness: no('correctness'),
			relevance_to_query: no('relevance_to_query'),
		};
		expect(determineRootCause(two, { hasGroundTruth: true }).rootCause).toBe('correctness');
		// ...without, relevance_to_query is in the order and correctness becomes a trailing judge.
		expect(determineRootCause(two, { hasGroundTruth: false }).rootCause).toBe('relevance_to_query');
	});
});

describe('chunk_relevance', () => {
	it('fails only when no chunk is relevant, whatever its own threshold says', () => {
		// precision 0.2 is below the score's 0.5 threshold (pass false) but one chunk is relevant.
		expect(
			determineRootCause({ chunk_relevance: chunks(0.2) }, { hasGroundTruth: false }).overall,
		).toBe('pass');
		expect(
			determineRootCause({ chunk_relevance: chunks(0) }, { hasGroundTruth: false }),
		).toMatchObject({
			overall: 'fail',
			rootCause: 'chunk_relevance',
			rationale: 'precision 0',
		});
	});

	it('is not a judge when ground truth picks the other order (0-1 scale)', () => {
		const r = determineRootCause(
			{ chunk_relevance: chunks(0), correctness: yes('correctness') },
			{ hasGroundTruth: true },
		);
		expect(r).toMatchObject({ overall: 'pass', verdicts: { correctness: 'pass' } });
	});
});

describe('absent, not applicable and errored judges', () => {
	it('skips absent and not-applicable judges', () => {
		const r = determineRootCause(
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
		const r = determineRootCause(
			{ groundedness_verdict: yes('g'), safety: err('safety') },
			{ hasGroundTruth: false },
		);
		expect(r.overall).toBe('incomplete');
		expect(r.rootCause).toBeNull();
		expect(r.erroredJudges).toEqual(['safety']);
		expect(r.rationale).toBe('safety timed out');
		expect(r.suggestedFix).toBe(suggestedFixes.incomplete);
	});

	it('an error before the first failure leaves the cause undecided', () => {
		const r = determineRootCause(
			{ context_sufficiency: err('context_sufficiency'), correctness: no('correctness') },
			{ hasGroundTruth: true },
		);
		expect(r.overall).toBe('incomplete');
		expect(r.verdicts).toEqual({ context_sufficiency: 'error', correctness: 'fail' });
	});

	it('an error after the first failure does not hide it', () => {
		const r = determineRootCause(
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
		expect(determineRootCause({ bleu })).toMatchObject({
			overall: 'incomplete',
			erroredJudges: [],
		});
		expect(determineRootCause({})).toMatchObject({ overall: 'incomplete' });
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
		expect(determineRootCause(scores).overall).toBe('pass');
		expect(determineRootCause(scores, { order: ['f1_score'] })).toMatchObject({
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
		expect(determineRootCause(scores, { hasGroundTruth: false })).toMatchObject({
			rootCause: 'groundedness',
			rationale: 'groundedness=1',
		});
		expect(
			determineRootCause({ ...scores, groundedness: likert('groundedness', 4) }).rootCause,
		).toBe('coherence');
	});

	it('severity scores make up the safety slot', () => {
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
		const r = determineRootCause(scores, { hasGroundTruth: false });
		expect(r).toMatchObject({ rootCause: 'safety', rationale: 'violence severity 5' });
		expect(Object.keys(r.verdicts)).toEqual(['safety', 'my_custom']);
		// Without safety in a custom order, each category is its own trailing judge.
		expect(determineRootCause(scores, { order: ['my_custom'] }).rootCause).toBe('my_custom');
		expect(
			determineRootCause({ ...scores, my_custom: yes('my_custom') }, { order: ['my_custom'] })
				.rootCause,
		).toBe('violence');
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
		const r = determineRootCause({ tone: bare });
		expect(r).toMatchObject({ overall: 'fail', rootCause: 'tone' });
		expect(r.suggestedFix).toContain('"tone"');
		expect(r.rationale).toBeUndefined();
	});

	it('an edited order wins, relevant_to_query is accepted, unlisted judges follow alphabetically', () => {
		const scores = {
			safety: no('safety'),
			relevance_to_query: no('relevance_to_query'),
			b_judge: no('b_judge'),
			a_judge: no('a_judge'),
		};
		expect(determineRootCause(scores, { order: ['relevant_to_query', 'safety'] }).rootCause).toBe(
			'relevant_to_query',
		);
		expect(Object.keys(determineRootCause(scores, { order: ['safety'] }).verdicts)).toEqual([
			'safety',
			'a_judge',
			'b_judge',
			'relevance_to_query',
		]);
	});
});

describe('ground truth inference', () => {
	it('infers ground truth from judges that need it', () => {
		expect(inferGroundTruth({ correctness: yes('correctness') })).toBe(true);
		expect(inferGroundTruth({ document_recall: err('document_recall') })).toBe(true);
		expect(inferGroundTruth({ correctness: na('correctness'), safety: yes('safety') })).toBe(false);
		// With context_sufficiency measured, chunk_relevance (0-1) is not consulted.
		expect(
			determineRootCause({ context_sufficiency: yes('cs'), chunk_relevance: chunks(0) }).overall,
		).toBe('pass');
		expect(determineRootCause({ chunk_relevance: chunks(0) }).overall).toBe('fail');
	});

	it('has a fix for every cause in both orders, in our words', () => {
		for (const id of [...ORDER_WITH_GROUND_TRUTH, ...ORDER_WITHOUT_GROUND_TRUTH]) {
			expect(suggestedFixes[id].length).toBeGreaterThan(40);
			expect(suggestedFixFor(id)).toBe(suggestedFixes[id]);
		}
	});
});
