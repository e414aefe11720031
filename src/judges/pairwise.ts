/**
 * The pairwise judge family: one request, two answers, one verdict on a criterion, asked twice
 * with the answers' order swapped (Zheng et al. 2023, MT-Bench, section 3.4: swapping positions
 * and calling a verdict that changes with the order a tie). A pairwise judge is an ordinary
 * fan-out declaration (`family: 'pairwise'`): each order is one call through the single-call path,
 * so the governor, spend limit, verdict cache (each order its own key), estimates and nonce-delimited
 * data apply as for every judge. The variants' names never reach the model: only the two answers,
 * in the slots `response_a` and `response_b`.
 *
 * A call's value is the slot it prefers (1 = the first slot, 0 = the second, 0.5 = tie); the row's
 * value is the first-named variant's (`response_a`'s) outcome: 1 better, 0 worse, 0.5 tie.
 */
import type { CallOutcome, FanOut, FoldedResult, JudgeCall } from './types';

/** Which answer a single-order verdict picked. */
export type SlotPick = 'first' | 'second' | 'tie';

/** Which variant a pairwise row's verdict favours. */
export type PairWinner = 'a' | 'b' | 'tie';

/** The input names a pairwise declaration shows in its two slots. */
export interface PairSlots {
	first: string;
	second: string;
}

function slotOf(value: unknown): SlotPick {
	return value === 1 ? 'first' : value === 0 ? 'second' : 'tie';
}

function winnerOf(forA: number): PairWinner {
	return forA === 1 ? 'a' : forA === 0 ? 'b' : 'tie';
}

/**
 * The two orders of one row and their fold. `prepare` may refuse a row (not applicable) or check
 * the params (throwing an `InputError` makes it the row's error); `details` adds to the Score's.
 */
export function pairwiseFanOut(
	slots: PairSlots,
	options: {
		prepare?(values: Record<string, unknown>, params: Record<string, unknown>): string | null;
		details?(params: Record<string, unknown>): Record<string, unknown>;
	} = {},
): FanOut {
	return {
		split(values, params): JudgeCall[] | { notApplicable: string } {
			const refused = options.prepare?.(values, params) ?? null;
			if (refused !== null) return { notApplicable: refused };
			const swapped = {
				...values,
				[slots.first]: values[slots.second],
				[slots.second]: values[slots.first],
			};
			return [
				{ key: 'a first', values },
				{ key: 'b first', values: swapped },
			];
		},
		fold(outcomes: CallOutcome[], _values, params): FoldedResult {
			const [aFirst, bFirst] = outcomes;
			const pickAFirst = slotOf(aFirst.score.value);
			const pickBFirst = slotOf(bFirst.score.value);
			// In a's terms: a in the first slot of the first call, in the second slot of the second.
			const forA1 = aFirst.score.value as number;
			const forA2 = 1 - (bFirst.score.value as number);
			const consistent = forA1 === forA2;
			const flipped = !consistent && forA1 !== 0.5 && forA2 !== 0.5;
			const value = consistent ? forA1 : 0.5;
			const winner = winnerOf(value);
			const said = (forA: number) => (forA === 1 ? 'a better' : forA === 0 ? 'b better' : 'a tie');
			const reason = consistent
				? `${winner === 'tie' ? 'A tie' : `Answer ${winner.toUpperCase()} is better`} in both orders. ${aFirst.score.reason ?? ''}`.trim()
				: `Position-inconsistent, counted as a tie: with A first the judge said ${said(forA1)}, with B first ${said(forA2)}.`;
			return {
				value,
				reason,
				details: {
					...(options.details?.(params) ?? {}),
					winner,
					positionConsistent: consistent,
					flipped,
					slots: [pickAFirst, pickBFirst],
					orders: [
						{ first: 'a', verdict: winnerOf(forA1), reason: aFirst.score.reason },
						{ first: 'b', verdict: winnerOf(forA2), reason: bFirst.score.reason },
					],
				},
			};
		},
	};
}
