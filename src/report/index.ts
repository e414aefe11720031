/**
 * Eval reports from a run summary, optional scored rows and an optional gate result: a Slack
 * Block Kit message, Markdown, a ticket payload, a self-contained HTML page and JUnit XML.
 * Every piece of user text (metric names, requests, responses, rationales, causes) is escaped for
 * its target format and scrubbed of anything shaped like a credential; rows contribute only
 * their id, request, response and scores, never other fields.
 *
 * One file per format (slack, markdown, tickets, html, junit) over the shared report model
 * (model.ts); this file re-exports their public names.
 */

export * from '../history';
export {
	firstErrors,
	redactSecrets,
	failingToolCalls,
	MAX_FAILING_CALLS,
	agreementLines,
	unfitJudges,
	type ReportAgreementLike,
	runVerdict,
	type ReportInput,
	type ReportMetricLike,
	type ReportPerMetricLike,
	type ReportRootCause,
	type ReportRow,
	type ReportSeverityLike,
	type ReportSummaryLike,
	type RunVerdict,
} from './model';
export { SLACK_LIMITS, slackMessage, type SlackBlock, type SlackMessage } from './slack';
export { markdownReport } from './markdown';
export {
	causeLabel,
	TICKET_LABEL,
	ticketPayload,
	ticketPlan,
	type CauseTicket,
	type TicketPayload,
	type TicketPlan,
} from './tickets';
export { escapeHtml, htmlReport, rootCauseChart } from './html';
export { junitReport } from './junit';
export {
	variantsHtml,
	variantsJunit,
	variantsMarkdown,
	variantsModel,
	variantsSlack,
	type VariantsModel,
	type VariantsReportInput,
} from './variants';
