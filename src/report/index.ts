/**
 * Eval reports from a run summary, optional scored rows and an optional gate result: a Slack
 * Block Kit message, Markdown, a ticket payload, a self-contained HTML page and JUnit XML.
 * Every piece of user text (metric names, requests, responses, rationales, causes) is escaped for
 * its target format and scrubbed of anything shaped like a credential; rows contribute only
 * their id, request, response and scores, never other fields.
 */

import type { Score } from '../core/types';
import type { GateResult, GateRowResult } from '../gate';
import { lastChange, sparkline, trendChartSvg, trendSeries, type TrendSeries } from '../history';

export * from '../history';

/** One run-level metric as the aggregate reports it. */
export interface ReportMetricLike {
	value?: number | null;
	measured: number;
	notApplicable?: number;
	errored?: number;
	ci?: { low: number; high: number; method?: string } | null;
	note?: string;
}

/** One root-cause bucket: how many rows failed first on `cause`. */
export interface ReportRootCause {
	cause: string;
	count: number;
	share: number;
	/** Suggested fix; the aggregate names it `suggestedFix`. */
	fix?: string;
	suggestedFix?: string;
}

/** What the reports need of a run summary (structural: the aggregate's summary fits). */
export interface ReportSummaryLike {
	rows?: number;
	metrics: Record<string, ReportMetricLike | undefined>;
	rootCauses?: readonly ReportRootCause[];
}

/** A scored row; only these fields are ever rendered. */
export interface ReportRow {
	request_id?: unknown;
	request?: unknown;
	response?: unknown;
	eval?: Record<string, Score | undefined> | null;
}

/** Input shared by every report. */
export interface ReportInput {
	summary: ReportSummaryLike;
	/** Scored rows (all, or just the failing ones) for worst rows and JUnit test cases. */
	rows?: readonly ReportRow[];
	gate?: GateResult;
	/** Report title; default "RAG evaluation". */
	title?: string;
	/** Link back to the run (n8n execution URL, CI job); only http(s) URLs are used. */
	runUrl?: string;
	/** How many worst rows to show; default 10. */
	maxWorstRows?: number;
	/** Earlier run summaries or history entries, oldest first, for the trends section. */
	history?: readonly unknown[];
	/** How many runs (earlier ones plus this one) the trends show; default 30. */
	trendRuns?: number;
}

function trends(input: ReportInput): TrendSeries[] {
	if (!input.history?.length) return [];
	return trendSeries(input.history, input.summary, input.trendRuns ?? 30);
}

function trendLine(s: TrendSeries): { spark: string; last: string; delta: string } {
	const last = s.values[s.values.length - 1];
	const d = lastChange(s.values);
	return { spark: sparkline(s.values), last: fmt(last), delta: d === null ? '' : fmtDelta(d) };
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

const SECRET_PATTERNS: RegExp[] = [
	/\bsk-[A-Za-z0-9_-]{16,}/g,
	/\b(?:xox[abprs]|ghp|gho|github_pat|glpat)[-_][A-Za-z0-9_-]{10,}/g,
	/\bBearer\s+[A-Za-z0-9._~+/=-]{10,}/gi,
	/\b(api[_-]?key|apikey|secret|password|access[_-]?token)(["']?\s*[:=]\s*["']?)[^\s"',}]{4,}/gi,
];

const SECRET_HINT = /sk-|xox|gh[po]_|github_pat|glpat|bearer|key|secret|password|token/i;

/** Masks substrings shaped like API keys or bearer tokens, in case user text carries one. */
export function redactSecrets(text: string): string {
	// One cheap scan first: most text holds none of the trigger words.
	if (!SECRET_HINT.test(text)) return text;
	let out = text;
	for (const re of SECRET_PATTERNS) {
		out = out.replace(re, (match, name?: string, sep?: string) =>
			typeof name === 'string' && typeof sep === 'string'
				? `${name}${sep}[redacted]`
				: '[redacted]',
		);
	}
	return out;
}

function truncate(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, Math.max(0, max - 1))}…`;
}

// Requests may be a string, chat messages or any object (seed 002): show the last user turn.
function displayText(value: unknown, max = 400): string {
	let text: string;
	if (value === undefined || value === null) text = '';
	else if (typeof value === 'string') text = value;
	else if (Array.isArray(value)) {
		const last = [...value].reverse().find((m) => m && typeof m === 'object' && 'content' in m);
		text = last ? displayText((last as { content: unknown }).content, max) : safeJson(value);
	} else if (typeof value === 'object' && 'messages' in value) {
		text = displayText((value as { messages: unknown }).messages, max);
	} else if (typeof value === 'object' && 'query' in value) {
		text = displayText((value as { query: unknown }).query, max);
	} else text = typeof value === 'object' ? safeJson(value) : String(value);
	return truncate(redactSecrets(text.replace(/\s+/g, ' ').trim()), max);
}

function safeJson(v: unknown): string {
	try {
		return JSON.stringify(v) ?? '';
	} catch {
		return '[unserialisable]';
	}
}

function fmt(v: number | null | undefined, digits = 3): string {
	if (v === null || v === undefined || !Number.isFinite(v)) return '—';
	return Number.isInteger(v) ? String(v) : v.toFixed(digits).replace(/0+$/, '').replace(/\.$/, '');
}

function fmtP(p: number | null): string {
	if (p === null) return '—';
	return p < 0.0001 ? '<0.0001' : p.toFixed(4);
}

function fmtDelta(d: number | null): string {
	if (d === null) return '—';
	return `${d > 0 ? '+' : ''}${fmt(d)}`;
}

function pct(share: number): string {
	return `${(share * 100).toFixed(1)}%`;
}

function safeUrl(url: string | undefined): string | null {
	return url && /^https?:\/\/[^\s<>"']+$/i.test(url) ? url : null;
}

interface WorstRow {
	id: string;
	request: string;
	response: string;
	failures: { metric: string; value: string; reason: string; errored: boolean }[];
}

/** Rows ranked worst first: most failed metrics, then most errored; ties keep input order. */
function worstRows(rows: readonly ReportRow[] | undefined, limit: number): WorstRow[] {
	if (!rows) return [];
	const ranked = rows
		.map((row, index) => {
			const scores = Object.entries(row.eval ?? {}).filter((e): e is [string, Score] => !!e[1]);
			const failed = scores.filter(([, s]) => s.status === 'ok' && s.pass === false);
			const errored = scores.filter(([, s]) => s.status === 'error');
			return { row, index, failed, errored };
		})
		.filter((r) => r.failed.length + r.errored.length > 0)
		.sort(
			(a, b) =>
				b.failed.length - a.failed.length ||
				b.errored.length - a.errored.length ||
				a.index - b.index,
		);
	return ranked.slice(0, limit).map(({ row, index, failed, errored }) => ({
		id:
			row.request_id === undefined || row.request_id === null
				? `#${index + 1}`
				: displayText(row.request_id, 80),
		request: displayText(row.request, 300),
		response: displayText(row.response, 300),
		failures: [
			...failed.map(([metric, s]) => ({
				metric: displayText(metric, 80),
				value: typeof s.value === 'boolean' ? (s.value ? 'yes' : 'no') : fmt(s.value),
				reason: displayText(s.reason ?? '', 500),
				errored: false,
			})),
			...errored.map(([metric, s]) => ({
				metric: displayText(metric, 80),
				value: 'error',
				reason: displayText(s.error ?? 'judge error', 500),
				errored: true,
			})),
		],
	}));
}

function metricEntries(summary: ReportSummaryLike): [string, ReportMetricLike][] {
	return Object.entries(summary.metrics)
		.filter((e): e is [string, ReportMetricLike] => !!e[1])
		.sort(([a], [b]) => a.localeCompare(b));
}

function regressions(gate: GateResult | undefined): GateRowResult[] {
	return gate ? gate.table.filter((r) => r.verdict === 'regressed') : [];
}

function headline(input: ReportInput): string {
	const rows = input.summary.rows;
	const base = `${input.title ?? 'RAG evaluation'}${rows !== undefined ? ` — ${rows} rows` : ''}`;
	if (!input.gate) return base;
	const reg = regressions(input.gate);
	return reg.length
		? `${base}: REGRESSED (${reg.length} metric${reg.length > 1 ? 's' : ''})`
		: `${base}: OK`;
}

// ---------------------------------------------------------------------------------------------
// Slack

/** A Slack Block Kit block (only the shapes this module emits). */
export type SlackBlock =
	| { type: 'header'; text: { type: 'plain_text'; text: string; emoji: boolean } }
	| {
			type: 'section';
			text?: { type: 'mrkdwn'; text: string };
			fields?: { type: 'mrkdwn'; text: string }[];
	  }
	| { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
	| { type: 'divider' };

/** Slack message for n8n's Slack node: Block Kit `blocks` plus the plain `text` fallback. */
export interface SlackMessage {
	text: string;
	blocks: SlackBlock[];
}

/** Slack's documented limits (Block Kit reference). */
export const SLACK_LIMITS = {
	blocks: 50,
	text: 3000,
	headerText: 150,
	fields: 10,
	fieldText: 2000,
} as const;

// Slack mrkdwn needs only &, < and > escaped; everything else is literal.
function slackEscape(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// Truncate before escaping would let an entity push past the limit, so cut the escaped text
// at a character boundary that does not split an entity.
function slackText(raw: string, max: number = SLACK_LIMITS.text): string {
	const escaped = slackEscape(raw);
	if (escaped.length <= max) return escaped;
	let cut = escaped.slice(0, max - 1);
	const amp = cut.lastIndexOf('&');
	if (amp > -1 && cut.indexOf(';', amp) === -1) cut = cut.slice(0, amp);
	return `${cut}…`;
}

// Escaping happens on user parts only, so the mrkdwn formatting we add survives.
function slackMrkdwn(
	parts: string,
	max: number = SLACK_LIMITS.text,
): { type: 'mrkdwn'; text: string } {
	return { type: 'mrkdwn', text: parts.length <= max ? parts : `${parts.slice(0, max - 1)}…` };
}

/** Slack message: headline, gate verdict, metrics, root causes, regressions and worst rows. */
export function slackMessage(input: ReportInput): SlackMessage {
	const blocks: SlackBlock[] = [];
	const title = headline(input);
	blocks.push({
		type: 'header',
		text: {
			type: 'plain_text',
			text: truncate(redactSecrets(title), SLACK_LIMITS.headerText),
			emoji: true,
		},
	});
	const url = safeUrl(input.runUrl);
	if (input.gate) {
		const reg = regressions(input.gate);
		const status = reg.length
			? `:red_circle: *Regressed* on ${reg.map((r) => `\`${slackText(r.metric, 200)}\``).join(', ')}`
			: ':large_green_circle: *OK*: no metric regressed against the baseline';
		blocks.push({ type: 'section', text: slackMrkdwn(status) });
	}
	if (url)
		blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${url}|Open the run>` }] });

	const fields = metricEntries(input.summary).map(([name, m]) =>
		slackMrkdwn(
			`*${slackText(name, 300)}*\n${fmt(m.value)}${m.ci ? ` (${fmt(m.ci.low)}–${fmt(m.ci.high)})` : ''} · ${m.measured} measured${m.errored ? ` · ${m.errored} errored` : ''}`,
			SLACK_LIMITS.fieldText,
		),
	);
	for (let i = 0; i < fields.length; i += SLACK_LIMITS.fields) {
		blocks.push({ type: 'section', fields: fields.slice(i, i + SLACK_LIMITS.fields) });
	}

	const causes = input.summary.rootCauses ?? [];
	if (causes.length) {
		blocks.push({ type: 'divider' });
		const lines = causes.map(
			(c) =>
				`• *${slackText(c.cause, 200)}*: ${c.count} rows (${pct(c.share)})${(c.fix ?? c.suggestedFix) ? ` — ${slackText(c.fix ?? c.suggestedFix ?? '', 300)}` : ''}`,
		);
		blocks.push({ type: 'section', text: slackMrkdwn(`*Root causes*\n${lines.join('\n')}`) });
	}

	const reg = regressions(input.gate);
	if (reg.length) {
		const lines = reg.map(
			(r) =>
				`• \`${slackText(r.metric, 200)}\`: ${fmt(r.baseline)} → ${fmt(r.current)} (${fmtDelta(r.delta)}, p=${fmtP(r.pAdjusted)}, ${slackText(r.test)})`,
		);
		blocks.push({ type: 'section', text: slackMrkdwn(`*Regressions*\n${lines.join('\n')}`) });
	}

	const trend = trends(input);
	if (trend.length) {
		const lines = trend.map((t) => {
			const l = trendLine(t);
			return `\`${l.spark}\` ${slackText(t.metric, 200)} ${l.last}${l.delta ? ` (${l.delta})` : ''}`;
		});
		blocks.push({
			type: 'section',
			text: slackMrkdwn(`*Trends (last ${trend[0].values.length} runs)*\n${lines.join('\n')}`),
		});
	}

	const worst = worstRows(input.rows, input.maxWorstRows ?? 10);
	if (worst.length) {
		blocks.push({ type: 'divider' });
		blocks.push({ type: 'section', text: slackMrkdwn('*Worst rows*') });
		for (const w of worst) {
			const fails = w.failures
				.map(
					(f) =>
						`\`${slackText(f.metric)}\` ${slackText(f.value)}: ${slackText(truncate(f.reason, 300))}`,
				)
				.join('\n');
			blocks.push({
				type: 'section',
				text: slackMrkdwn(`*${slackText(w.id)}* — ${slackText(w.request, 300)}\n${fails}`),
			});
		}
	}

	if (blocks.length > SLACK_LIMITS.blocks) {
		const dropped = blocks.length - (SLACK_LIMITS.blocks - 1);
		blocks.splice(SLACK_LIMITS.blocks - 1);
		blocks.push({
			type: 'context',
			elements: [
				{
					type: 'mrkdwn',
					text: `…${dropped} more blocks omitted (Slack allows ${SLACK_LIMITS.blocks}); see the full report.`,
				},
			],
		});
	}
	const reg2 = regressions(input.gate).map((r) => r.metric);
	const fallback = `${title}${reg2.length ? ` — regressed: ${reg2.join(', ')}` : ''}`;
	return { text: slackText(redactSecrets(fallback)), blocks };
}

// ---------------------------------------------------------------------------------------------
// Markdown and tickets

// Table cells: no raw HTML, no pipes breaking columns, no newlines.
function mdCell(text: string): string {
	return mdText(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function mdText(text: string): string {
	return redactSecrets(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Markdown summary: metrics table, gate table, root causes and worst rows with rationales. */
export function markdownReport(input: ReportInput): string {
	const out: string[] = [`# ${mdText(headline(input))}`, ''];
	const url = safeUrl(input.runUrl);
	if (url) out.push(`[Open the run](${url})`, '');
	if (input.gate) out.push(...markdownGate(input.gate), '');
	out.push(
		'## Metrics',
		'',
		'| metric | value | 95% CI | measured | not applicable | errored |',
		'| --- | ---: | --- | ---: | ---: | ---: |',
	);
	for (const [name, m] of metricEntries(input.summary)) {
		const ci = m.ci ? `${fmt(m.ci.low)}–${fmt(m.ci.high)}` : '—';
		out.push(
			`| ${mdCell(name)} | ${fmt(m.value)} | ${ci} | ${m.measured} | ${m.notApplicable ?? 0} | ${m.errored ?? 0} |`,
		);
	}
	const causes = input.summary.rootCauses ?? [];
	if (causes.length) {
		out.push(
			'',
			'## Root causes',
			'',
			'| cause | rows | share | suggested fix |',
			'| --- | ---: | ---: | --- |',
		);
		for (const c of causes)
			out.push(
				`| ${mdCell(c.cause)} | ${c.count} | ${pct(c.share)} | ${mdCell(c.fix ?? c.suggestedFix ?? '')} |`,
			);
	}
	const trend = trends(input);
	if (trend.length) {
		out.push(
			'',
			`## Trends (last ${trend[0].values.length} runs)`,
			'',
			'| metric | trend | latest | change |',
			'| --- | --- | ---: | ---: |',
		);
		for (const t of trend) {
			const l = trendLine(t);
			out.push(`| ${mdCell(t.metric)} | \`${l.spark}\` | ${l.last} | ${l.delta || '—'} |`);
		}
	}
	const worst = worstRows(input.rows, input.maxWorstRows ?? 10);
	if (worst.length) {
		out.push('', '## Worst rows', '');
		for (const w of worst) {
			out.push(
				`### ${mdText(w.id)}`,
				'',
				`**Request:** ${mdText(w.request)}`,
				'',
				`**Response:** ${mdText(w.response)}`,
				'',
			);
			for (const f of w.failures)
				out.push(`- **${mdCell(f.metric)}** ${mdText(f.value)}: ${mdText(f.reason)}`);
			out.push('');
		}
	}
	return `${out.join('\n').trimEnd()}\n`;
}

function markdownGate(gate: GateResult): string[] {
	const lines = [
		`## Regression gate: ${gate.regressed ? '**REGRESSED**' : 'OK'}`,
		'',
		`_${mdText(gate.rule)}_ (alpha ${gate.alpha})`,
		'',
		'| metric | baseline | current | delta | p (Holm) | test | verdict |',
		'| --- | ---: | ---: | ---: | ---: | --- | --- |',
	];
	for (const r of gate.table) {
		lines.push(
			`| ${mdCell(r.metric)} | ${fmt(r.baseline)} | ${fmt(r.current)} | ${fmtDelta(r.delta)} | ${fmtP(r.pAdjusted)} | ${r.test} | ${r.verdict} |`,
		);
	}
	return lines;
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
	if (reg.length) title = `Eval regression: ${reg.map((r) => r.metric).join(', ')}`;
	else if (top) title = `Eval failures: ${top.count} rows fail first on ${top.cause}`;
	else title = `Eval report: ${input.title ?? 'RAG evaluation'}`;
	const labels = ['rag-eval'];
	if (reg.length) labels.push('regression');
	if (top) labels.push(`root-cause:${top.cause}`.replace(/[^A-Za-z0-9:_-]/g, '-').slice(0, 50));
	return {
		title: truncate(redactSecrets(title).replace(/\s+/g, ' '), 200),
		body: markdownReport(input),
		labels,
	};
}

// ---------------------------------------------------------------------------------------------
// HTML

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

const h = (text: string): string => escapeHtml(redactSecrets(text));

const VERDICT_COLOURS: Record<string, string> = {
	regressed: '#c62828',
	improved: '#2e7d32',
	ok: '#455a64',
	missing_in_baseline: '#ef6c00',
	missing_in_current: '#ef6c00',
	insufficient_data: '#757575',
};

/** Horizontal bar chart of root causes as inline SVG (no fonts, scripts or external assets). */
export function rootCauseChart(causes: readonly ReportRootCause[]): string {
	if (!causes.length) return '<p class="muted">No root-cause data.</p>';
	const barH = 26;
	const labelW = 220;
	const chartW = 440;
	const height = causes.length * (barH + 8) + 10;
	const max = Math.max(...causes.map((c) => c.count), 1);
	const bars = causes
		.map((c, i) => {
			const y = 5 + i * (barH + 8);
			const w = Math.max(2, (c.count / max) * chartW);
			const colour = c.cause === 'pass' ? '#43a047' : '#e53935';
			return (
				`<text x="${labelW - 8}" y="${y + barH / 2 + 5}" text-anchor="end">${h(truncate(c.cause, 30))}</text>` +
				`<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH}" rx="3" fill="${colour}"><title>${h(c.cause)}: ${c.count}</title></rect>` +
				`<text x="${labelW + w + 6}" y="${y + barH / 2 + 5}">${c.count} (${pct(c.share)})</text>`
			);
		})
		.join('');
	const width = labelW + chartW + 110;
	return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Root causes" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">${bars}</svg>`;
}

/** Self-contained HTML report: summary, root-cause chart, regressions and worst rows. */
export function htmlReport(input: ReportInput): string {
	const title = headline(input);
	const url = safeUrl(input.runUrl);
	const metricRows = metricEntries(input.summary)
		.map(
			([name, m]) =>
				`<tr><td>${h(name)}</td><td class="num">${fmt(m.value)}</td><td>${m.ci ? `${fmt(m.ci.low)}–${fmt(m.ci.high)}` : '—'}</td><td class="num">${m.measured}</td><td class="num">${m.notApplicable ?? 0}</td><td class="num">${m.errored ?? 0}</td></tr>`,
		)
		.join('\n');
	const gate = input.gate;
	const gateHtml = gate
		? `<section><h2>Regression gate: <span class="badge" style="background:${gate.regressed ? VERDICT_COLOURS.regressed : VERDICT_COLOURS.improved}">${gate.regressed ? 'REGRESSED' : 'OK'}</span></h2>
<p class="muted">${h(gate.rule)} Alpha ${gate.alpha}.</p>
<table><thead><tr><th>metric</th><th>baseline</th><th>current</th><th>delta</th><th>p (Holm)</th><th>test</th><th>verdict</th></tr></thead><tbody>
${gate.table.map((r) => `<tr><td>${h(r.metric)}</td><td class="num">${fmt(r.baseline)}</td><td class="num">${fmt(r.current)}</td><td class="num">${fmtDelta(r.delta)}</td><td class="num">${fmtP(r.pAdjusted)}</td><td>${h(r.test)}</td><td><span class="badge" style="background:${VERDICT_COLOURS[r.verdict]}">${h(r.verdict)}</span></td></tr>`).join('\n')}
</tbody></table></section>`
		: '';
	const worst = worstRows(input.rows, input.maxWorstRows ?? 10);
	const worstHtml = worst.length
		? `<section><h2>Worst rows</h2>${worst
				.map(
					(w) =>
						`<article><h3>${h(w.id)}</h3><p><b>Request:</b> ${h(w.request)}</p><p><b>Response:</b> ${h(w.response)}</p><ul>${w.failures
							.map(
								(f) =>
									`<li><code>${h(f.metric)}</code> <span class="badge" style="background:${f.errored ? '#757575' : VERDICT_COLOURS.regressed}">${h(f.value)}</span> ${h(f.reason)}</li>`,
							)
							.join('')}</ul></article>`,
				)
				.join('\n')}</section>`
		: '';
	const causes = input.summary.rootCauses ?? [];
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#212121;background:#fafafa}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:15px;margin:0 0 6px}
table{border-collapse:collapse;background:#fff;width:100%;max-width:1100px}
th,td{border:1px solid #e0e0e0;padding:6px 10px;text-align:left;font-size:13px;vertical-align:top;word-break:break-word}
th{background:#eceff1}.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{color:#fff;border-radius:4px;padding:1px 7px;font-size:12px;white-space:nowrap}
.muted{color:#616161;font-size:13px}article{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:10px 14px;margin:10px 0;max-width:1072px}
article p{margin:4px 0;font-size:13px}article li{font-size:13px;margin:3px 0}code{background:#eceff1;padding:0 4px;border-radius:3px}
</style></head>
<body>
<h1>${h(title)}</h1>
${url ? `<p class="muted"><a href="${escapeHtml(url)}">Open the run</a></p>` : ''}
${gateHtml}
<section><h2>Metrics</h2>
<table><thead><tr><th>metric</th><th>value</th><th>95% CI</th><th>measured</th><th>not applicable</th><th>errored</th></tr></thead><tbody>
${metricRows}
</tbody></table></section>
<section><h2>Root causes</h2>${rootCauseChart(causes)}</section>
${trendsHtml(input)}
${worstHtml}
</body></html>
`;
}

// Trends section: one small chart per metric; empty without history.
function trendsHtml(input: ReportInput): string {
	const trend = trends(input);
	if (!trend.length) return '';
	return `<section><h2>Trends (last ${trend[0].values.length} runs)</h2>${trendChartSvg(trend, h)}</section>`;
}

// ---------------------------------------------------------------------------------------------
// JUnit

// XML 1.0 forbids most control characters even when escaped, so they are dropped.
function xml(text: string): string {
	return redactSecrets(text)
		.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');
}

interface JUnitCase {
	name: string;
	classname: string;
	outcome: 'pass' | 'failure' | 'error' | 'skipped';
	message: string;
	detail: string;
}

/**
 * JUnit XML for CI: one testsuite per metric, one testcase per row (failure = the metric failed,
 * error = the judge errored, skipped = not applicable); without rows, one testcase per metric.
 * A gate result adds a `regression-gate` suite with one testcase per metric.
 */
export function junitReport(input: ReportInput): string {
	const suites = new Map<string, JUnitCase[]>();
	const add = (suite: string, c: JUnitCase): void => {
		const list = suites.get(suite) ?? [];
		list.push(c);
		suites.set(suite, list);
	};
	if (input.rows?.length) {
		input.rows.forEach((row, index) => {
			// Computed once per row, not once per metric.
			const id =
				row.request_id === undefined || row.request_id === null
					? `row ${index + 1}`
					: displayText(row.request_id, 200);
			for (const [metric, s] of Object.entries(row.eval ?? {})) {
				if (!s) continue;
				const value = typeof s.value === 'boolean' ? (s.value ? 'yes' : 'no') : fmt(s.value);
				const outcome =
					s.status === 'error'
						? 'error'
						: s.status === 'not_applicable'
							? 'skipped'
							: s.pass === false
								? 'failure'
								: 'pass';
				add(metric, {
					name: id,
					classname: `rag-eval.${metric}`,
					outcome,
					message:
						outcome === 'error'
							? displayText(s.error ?? 'judge error', 500)
							: `${metric} = ${value}${s.threshold !== undefined ? ` (threshold ${s.threshold})` : ''}`,
					detail: displayText(s.reason ?? '', 4000),
				});
			}
		});
	} else {
		for (const [name, m] of metricEntries(input.summary)) {
			add(name, {
				name: 'aggregate',
				classname: `rag-eval.${name}`,
				outcome: m.measured > 0 ? 'pass' : 'skipped',
				message: `${name} = ${fmt(m.value)} over ${m.measured} rows`,
				detail: '',
			});
		}
	}
	for (const r of input.gate?.table ?? []) {
		add('regression-gate', {
			name: r.metric,
			classname: 'rag-eval.regression-gate',
			outcome:
				r.verdict === 'regressed'
					? 'failure'
					: r.verdict === 'insufficient_data'
						? 'skipped'
						: 'pass',
			message: `${r.verdict}: ${fmt(r.baseline)} -> ${fmt(r.current)} (p=${fmtP(r.pAdjusted)}, ${r.test})`,
			detail: r.note,
		});
	}
	let total = 0;
	let failures = 0;
	let errors = 0;
	let skipped = 0;
	const body: string[] = [];
	for (const [suite, cases] of suites) {
		const f = cases.filter((c) => c.outcome === 'failure').length;
		const e = cases.filter((c) => c.outcome === 'error').length;
		const s = cases.filter((c) => c.outcome === 'skipped').length;
		total += cases.length;
		failures += f;
		errors += e;
		skipped += s;
		body.push(
			`  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${f}" errors="${e}" skipped="${s}">`,
		);
		for (const c of cases) {
			const open = `    <testcase name="${xml(c.name)}" classname="${xml(c.classname)}"`;
			if (c.outcome === 'pass') {
				body.push(`${open}/>`);
				continue;
			}
			const tag = c.outcome;
			const inner =
				tag === 'skipped'
					? `<skipped message="${xml(c.message)}"/>`
					: `<${tag} message="${xml(c.message)}" type="${tag === 'error' ? 'JudgeError' : 'EvalFailure'}">${xml(c.detail)}</${tag}>`;
			body.push(`${open}>${inner}</testcase>`);
		}
		body.push('  </testsuite>');
	}
	return [
		'<?xml version="1.0" encoding="UTF-8"?>',
		`<testsuites name="${xml(input.title ?? 'rag-eval')}" tests="${total}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
		...body,
		'</testsuites>',
		'',
	].join('\n');
}
