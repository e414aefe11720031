/**
 * The rows a scoring node could not score, in words for the node's notice: "3 of 3 rows not
 * scored: no judge model configured: ..." and "2 of 19 rows errored: ... (1 row); ... (1 row)".
 * A node that ends green with rows nobody judged must say so where people look, not only in the
 * last column of each row.
 */
import type { Score } from './types';

/** How many reasons a notice names; the rest are counted. */
const MAX_REASONS = 3;
/** Longest reason quoted; longer ones are cut. */
const MAX_REASON = 200;

// A row label that the item loop or an evaluator put in front of an error ("row 3 (request_id
// q-17): "): the same fault on other rows must read as the same reason.
const ROW_LABEL = /^row \d+( \(request_id [^)]*\))?: /;

function reasonOf(score: Score): string {
	const text = (score.status === 'error' ? score.error : score.reason) ?? '';
	const plain = text.replace(ROW_LABEL, '').replace(/\s+/g, ' ').trim();
	const said = plain || (score.status === 'error' ? 'error' : 'not applicable');
	return said.length > MAX_REASON ? `${said.slice(0, MAX_REASON - 1)}…` : said;
}

function rowsWord(n: number): string {
	return n === 1 ? '1 row' : `${n} rows`;
}

/** "reason" alone when every counted row shares it, else the commonest with their row counts. */
function reasonsText(counts: Map<string, number>, rows: number): string {
	const ranked = [...counts].sort((a, b) => b[1] - a[1]);
	if (ranked.length === 1 && ranked[0][1] === rows) return ranked[0][0];
	const named = ranked.slice(0, MAX_REASONS).map(([r, n]) => `${r} (${rowsWord(n)})`);
	const more = ranked.length - MAX_REASONS;
	if (more > 0) named.push(`and ${more} other reason${more > 1 ? 's' : ''}`);
	return named.join('; ');
}

/** Which rows a notice counts: errored, not scored, or not scored by the node's design. */
export type UnscoredKind = 'errored' | 'not_scored' | 'by_design';

/**
 * Notices for the rows of one node run: one for rows with an errored Score, one for rows whose
 * Scores were only not applicable, and one for rows not applicable by the node's design
 * (`byDesign`, e.g. Cost & Latency without a budget), which a node may show more quietly; none
 * when every row was scored. Reasons are counted per row (a row whose four categories failed
 * alike counts once) and named commonest first.
 */
export function unscoredNotices(
	rows: ReadonlyArray<Record<string, Score>>,
	byDesign: (score: Score) => boolean = () => false,
): { kind: UnscoredKind; message: string }[] {
	const counts: Record<UnscoredKind, { rows: number; reasons: Map<string, number> }> = {
		errored: { rows: 0, reasons: new Map() },
		not_scored: { rows: 0, reasons: new Map() },
		by_design: { rows: 0, reasons: new Map() },
	};
	for (const row of rows) {
		const scores = Object.values(row);
		const errors = scores.filter((s) => s.status === 'error');
		const counted = errors.length > 0 ? errors : scores.filter((s) => s.status !== 'ok');
		if (counted.length === 0) continue;
		const kind: UnscoredKind =
			errors.length > 0 ? 'errored' : counted.every(byDesign) ? 'by_design' : 'not_scored';
		const c = counts[kind];
		c.rows++;
		for (const reason of new Set(counted.map(reasonOf)))
			c.reasons.set(reason, (c.reasons.get(reason) ?? 0) + 1);
	}
	const of = rows.length;
	const said: Record<UnscoredKind, string> = {
		not_scored: 'not scored',
		by_design: 'not scored',
		errored: 'errored',
	};
	return (['not_scored', 'by_design', 'errored'] as const)
		.filter((kind) => counts[kind].rows > 0)
		.map((kind) => ({
			kind,
			message: `${counts[kind].rows} of ${of} rows ${said[kind]}: ${reasonsText(counts[kind].reasons, counts[kind].rows)}`,
		}));
}
