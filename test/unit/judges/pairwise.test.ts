import { InputError } from '../../../src/core/inputs';
import type { Score } from '../../../src/core/types';
import { getJudge } from '../../../src/judges/registry';
import { pairwiseJudge } from '../../../src/judges/specs/pairwise';
import type { CallOutcome, JudgeCall } from '../../../src/judges/types';

const fan = pairwiseJudge.fanOut!;
const values = { request: 'q', responseA: 'answer of A', responseB: 'answer of B' };
const outcome = (key: string, value: number): CallOutcome => ({
	key,
	score: { metric: 'pairwise', value, status: 'ok', reason: `${key} said ${value}` } as Score,
});

describe('pairwise judge family', () => {
	it('is registered as a pairwise judge', () => {
		expect(getJudge('pairwise')?.family).toBe('pairwise');
	});
	it('asks twice, the answers swapped between the slots', () => {
		const calls = fan.split(values, { criterion: 'overall' }) as JudgeCall[];
		expect(calls.map((c) => c.key)).toEqual(['a first', 'b first']);
		expect(calls[0].values).toMatchObject({ responseA: 'answer of A', responseB: 'answer of B' });
		expect(calls[1].values).toMatchObject({ responseA: 'answer of B', responseB: 'answer of A' });
	});
	it.each([
		// [first call (A first), second call (B first)] -> value for A, consistent, flipped
		[1, 0, 1, true, false], // A better in both orders
		[0, 1, 0, true, false], // B better in both orders
		[0.5, 0.5, 0.5, true, false],
		[1, 1, 0.5, false, true], // first slot both times: a flip, a tie
		[1, 0.5, 0.5, false, false], // A, then a tie: inconsistent, not a flip
	])('verdicts %p then %p give %p', (v1, v2, value, consistent, flipped) => {
		const r = fan.fold([outcome('a first', v1), outcome('b first', v2)], values, {
			criterion: 'overall',
		});
		expect('value' in r && r.value).toBe(value);
		if (!('value' in r)) return;
		expect(r.details).toMatchObject({
			positionConsistent: consistent,
			flipped,
			criterion: 'overall',
		});
	});
	it('refuses a criterion whose input the row lacks, and a custom criterion without words', () => {
		expect(fan.split(values, { criterion: 'groundedness' })).toEqual({
			notApplicable: "the groundedness criterion needs the row's retrieved_context",
		});
		expect(fan.split(values, { criterion: 'correctness' })).toEqual({
			notApplicable: "the correctness criterion needs the row's expected_response",
		});
		expect(() => fan.split(values, { criterion: 'custom', customCriterion: ' ' })).toThrow(
			InputError,
		);
		expect(() => fan.split(values, { criterion: 'nonsense' })).toThrow(/unknown criterion/);
	});
});
