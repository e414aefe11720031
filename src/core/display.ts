/**
 * How figures read to people, written once for the summary's display values and every report:
 * rounded numbers, percentages, and the coverage of a per-metric figure ("9 of 19 rows scored,
 * 10 errored"), so no line shows a rate without the rows behind it.
 */

/** A number rounded for reading: integers as they are, else at most `digits` decimals; "—" for none. */
export function roundText(v: number | null | undefined, digits = 3): string {
	if (v === null || v === undefined || !Number.isFinite(v)) return '—';
	return Number.isInteger(v) ? String(v) : v.toFixed(digits).replace(/0+$/, '').replace(/\.$/, '');
}

/** A share (0-1) as a percentage with one decimal: 0.6666666666666666 -> "66.7%". */
export function percentText(share: number): string {
	return `${(share * 100).toFixed(1)}%`;
}

/** How many rows one metric covered: scored (a value), not applicable, errored, and without it. */
export interface CoverageCounts {
	measured: number;
	notApplicable?: number;
	errored?: number;
	/** Rows that do not carry this metric at all (another branch, a node that did not run). */
	absent?: number;
}

/** Rows a metric was due on: every row counted, those without the metric included. */
export function coverageTotal(c: CoverageCounts, rows?: number): number {
	const counted = c.measured + (c.notApplicable ?? 0) + (c.errored ?? 0);
	if (c.absent !== undefined) return counted + c.absent;
	return rows !== undefined && rows >= counted ? rows : counted;
}

/**
 * The coverage of a per-metric figure in words: "9 of 19 rows scored, 10 errored",
 * "0 of 3 rows scored, 3 not applicable". `rows` is the run's row count, used when the counts do
 * not say how many rows lacked the metric.
 */
export function coverageText(c: CoverageCounts, rows?: number): string {
	const of = coverageTotal(c, rows);
	const rest: string[] = [];
	if (c.notApplicable) rest.push(`${c.notApplicable} not applicable`);
	if (c.errored) rest.push(`${c.errored} errored`);
	const absent = of - c.measured - (c.notApplicable ?? 0) - (c.errored ?? 0);
	if (absent > 0) rest.push(`${absent} without this metric`);
	return `${c.measured} of ${of} rows scored${rest.length ? `, ${rest.join(', ')}` : ''}`;
}
