/**
 * Reading one judge row, shared by the single-call and the fan-out paths: inputs come by input
 * name or by record field, go through the metrics' reader (missing -> not applicable, malformed ->
 * the row's error naming the field, never sent to the model), then the declaration's own
 * not-applicable rule.
 */
import { readRow } from '../core/inputs';
import { errorScore, notApplicableScore, type ScoreBase } from '../core/score';
import type { Score } from '../core/types';
import type { JudgeDecl } from './types';

/** The row's typed input values, or the Score it leaves with without a model call. */
export function readJudgeRow(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	base: ScoreBase,
): { values: Record<string, unknown> } | { score: Score } {
	const read = readRow(decl.inputs, inputs);
	if (!read.ok) {
		return {
			score:
				'missing' in read
					? notApplicableScore(base, read.reason)
					: errorScore(base, read.error.message),
		};
	}
	const na = decl.notApplicable?.(read.values) ?? null;
	if (na !== null) return { score: notApplicableScore(base, na) };
	return { values: read.values };
}
