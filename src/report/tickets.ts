/**
 * Tickets for the GitHub / Jira / Linear nodes: one payload per run (title naming what broke, the
 * Markdown report as body, labels), or a plan with one ticket per failing root cause, found again
 * night after night by its labels, and the comment that closes a recovered cause.
 */

import { decideRootCause, suggestedFixFor } from '../rootcause';
import { markdownReport } from './markdown';
import {
	incompleteCount,
	manifestShort,
	mdCell,
	mdText,
	overallRateText,
	pct,
	redactSecrets,
	regressions,
	type ReportInput,
	type ReportRow,
	type RunVerdict,
	runVerdict,
	safeUrl,
	truncate,
	worstRows,
} from './model';

/** Label of the package on every ticket it files; with a cause label it finds an open ticket. */
export const TICKET_LABEL = 'rag-eval';

/** Label naming a cause on its ticket: `root-cause:<cause>` (GitHub label-safe, 50 chars). */
export function causeLabel(cause: string): string {
	return `root-cause:${cause}`.replace(/[^A-Za-z0-9:_-]/g, '-').slice(0, 50);
}

/** Ticket for the GitHub / Jira / Linear nodes. */
export interface TicketPayload {
	title: string;
	body: string;
	labels: string[];
}

/** Ticket payload: a one-line title naming what broke, the Markdown report as body, labels. */
export function ticketPayload(input: ReportInput): TicketPayload {
	const reg = regressions(input.gate);
	const top = (input.summary.rootCauses ?? [])
		.filter((c) => c.cause !== 'pass')
		.sort((a, b) => b.count - a.count)[0];
	let title: string;
	if (runVerdict(input) === 'INCOMPLETE')
		title = `Eval incomplete: ${(incompleteCount(input) === 0 ? manifestShort(input) : null) ?? `${incompleteCount(input)} rows could not be judged`}`;
	else if (reg.length) title = `Eval regression: ${reg.map((r) => r.metric).join(', ')}`;
	else if (top) title = `Eval failures: ${top.count} rows fail first on ${top.cause}`;
	else title = `Eval report: ${input.title ?? 'RAG evaluation'}`;
	const labels = [TICKET_LABEL];
	if (runVerdict(input) === 'INCOMPLETE') labels.push('incomplete');
	if (reg.length) labels.push('regression');
	if (top) labels.push(causeLabel(top.cause));
	return {
		title: truncate(redactSecrets(title).replace(/\s+/g, ' '), 200),
		body: markdownReport(input),
		labels,
	};
}

// ---------------------------------------------------------------------------------------------
// One ticket per root cause

/** A ticket for one failing root cause: what to open, or what to comment on an open one. */
export interface CauseTicket {
	cause: string;
	/** {@link causeLabel} of the cause; an open ticket with it and {@link TICKET_LABEL} is this one. */
	label: string;
	/** Labels for a new ticket: the package label and the cause label. */
	labels: string[];
	/** Stable across nights (no counts), so people recognise the ticket. */
	title: string;
	/** Body of a new ticket: the cause, its suggested fix, tonight's count and the first rows. */
	body: string;
	/** Comment on an open ticket: tonight's count and worst rows. */
	comment: string;
	count: number;
	share: number;
}

/** Tickets for a run: one per failing cause, and the comment that closes a recovered cause. */
export interface TicketPlan {
	verdict: RunVerdict | null;
	/**
	 * Whether a cause missing tonight may be called recovered: only on a complete run (an
	 * incomplete run may hide the cause in rows it could not judge).
	 */
	canClose: boolean;
	causes: CauseTicket[];
	/** Comment for an open ticket whose cause no row failed on tonight. */
	recoveredComment: string;
}

function rowCause(row: ReportRow): string | null {
	if (typeof row.root_cause === 'string' && row.root_cause) return row.root_cause;
	if (row.root_cause === null) return null;
	// No router upstream: the one root-cause function, with the default policy.
	const verdict = decideRootCause(row as unknown as Record<string, unknown>);
	return verdict.overall === 'fail' ? verdict.rootCause : null;
}

function causeRowsMarkdown(input: ReportInput, cause: string, limit: number): string[] {
	const rows = (input.rows ?? []).filter((r) => rowCause(r) === cause);
	const out: string[] = [];
	for (const w of worstRows(rows, limit)) {
		out.push(`- **${mdText(w.id)}**: ${mdText(truncate(w.request, 200))}`);
		out.push(`  - response: ${mdText(truncate(w.response, 200))}`);
		for (const f of w.failures)
			out.push(
				`  - \`${mdCell(f.metric)}\` ${mdText(f.value)}${f.reason ? `: ${mdText(truncate(f.reason, 300))}` : ''}`,
			);
	}
	return out;
}

/**
 * Ticket plan of a run: one {@link CauseTicket} per failing root cause (most rows first), to be
 * deduplicated across nights by its labels, and the recovery comment for causes that are gone.
 */
export function ticketPlan(input: ReportInput): TicketPlan {
	const verdict = runVerdict(input);
	const url = safeUrl(input.runUrl);
	const limit = Math.max(1, Math.min(input.maxWorstRows ?? 10, 10));
	const rows = input.summary.rows;
	const run = url ? `[this run](${url})` : 'this run';
	const o = input.summary.overall;
	const rate = overallRateText(o);
	const rateText = rate ? ` ${rate}.` : '';
	const causes = (input.summary.rootCauses ?? [])
		.filter((c) => c.cause !== 'pass' && c.count > 0)
		.map((c): CauseTicket => {
			const fix = c.fix ?? c.suggestedFix ?? suggestedFixFor(c.cause);
			const share = `${c.count}${rows !== undefined ? ` of ${rows}` : ''} rows (${pct(c.share)})`;
			const first = causeRowsMarkdown(input, c.cause, limit);
			const label = causeLabel(c.cause);
			const body = [
				`Rows of the RAG evaluation fail first on **${mdText(c.cause)}** (root cause: the first failing judge in the ordered list).`,
				'',
				`**Tonight:** ${share} in ${run}.${rateText}`,
				'',
				`**Suggested fix:** ${mdText(fix)}`,
				'',
				...(first.length ? ['**First failing rows:**', '', ...first, ''] : []),
				`_Filed by the nightly evaluation. It comments here each night the cause persists and closes this issue when no row fails on it. Labels \`${TICKET_LABEL}\` and \`${label}\` find this issue again: keep them._`,
			].join('\n');
			const comment = [
				`**${mdText(input.title ?? 'RAG evaluation')}**: still failing on **${mdText(c.cause)}**: ${share} in ${run}.${rateText}`,
				...(verdict === 'INCOMPLETE'
					? [
							'',
							`Note: the run was INCOMPLETE (${incompleteCount(input)} rows not judged); the count may be low.`,
						]
					: []),
				...(first.length ? ['', '**Worst rows tonight:**', '', ...first] : []),
			].join('\n');
			return {
				cause: c.cause,
				label,
				labels: [TICKET_LABEL, label],
				title: truncate(`RAG eval: rows fail first on ${redactSecrets(c.cause)}`, 200),
				body: redactSecrets(body),
				comment: redactSecrets(comment),
				count: c.count,
				share: c.share,
			};
		});
	const recoveredComment = `Recovered: no row failed first on this cause in ${run}.${rateText} Closing; if it fails again, a new issue is opened.`;
	return { verdict, canClose: verdict !== 'INCOMPLETE', causes, recoveredComment };
}
