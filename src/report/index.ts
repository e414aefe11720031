/**
 * Eval reports from a run summary, optional scored rows and an optional gate result: a Slack
 * Block Kit message, Markdown, a ticket payload, a self-contained HTML page and JUnit XML.
 * Every piece of user text (metric names, requests, responses, rationales, causes) is escaped for
 * its target format and scrubbed of anything shaped like a credential; rows contribute only
 * their id, request, response and scores, never other fields.
 */

import type { Score } from '../core/types';
import type { GateResult, GateRowResult } from '../gate';
import { decideRootCause, suggestedFixFor } from '../rootcause';
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
	/** `incomplete` when fewer rows were judged than the minimum coverage. */
	status?: 'complete' | 'incomplete';
	coverage?: { judged: number; of: number; share: number; minimum: number } | null;
	overall?: {
		pass: number;
		fail: number;
		incomplete: number;
		passRate?: { value?: number; count: number; of: number };
	} | null;
	/** Incomplete rows: `examples` are the first request ids. */
	incomplete?: { count: number; examples?: readonly string[] } | null;
	/** Per-metric figures (the aggregate's `perMetric`): key metrics without a run-level name. */
	perMetric?: Record<string, ReportPerMetricLike | undefined>;
	/** Per safety category (the aggregate's `severity`): levels, defects, worst rows. */
	severity?: Record<string, ReportSeverityLike | undefined>;
	/** Rows a judge's spend limit stopped (the aggregate's `spendLimit`). */
	spendLimit?: { stopped: number; examples?: readonly string[] } | null;
	/** What Estimate Only judge nodes expect the run to cost (the aggregate's `estimate`). */
	estimate?: {
		rows: number;
		calls: number;
		promptTokens: number;
		completionTokens: number;
		totalTokens: number;
		usd?: number;
		unpricedModels?: readonly string[];
	} | null;
}

/** What the reports read of one safety category of the aggregate's `severity`. */
export interface ReportSeverityLike {
	distribution: { very_low: number; low: number; medium: number; high: number };
	defectsAtScoreLevel?: { value?: number; count: number; of: number };
	worst?: readonly { id: string; severity: number; level?: string }[];
}

/** What the reports read of one `perMetric` entry. */
export interface ReportPerMetricLike {
	measured: number;
	errored?: number;
	notApplicable?: number;
	scale?: { kind: string };
	mean?: { value?: number; ci?: { low: number; high: number } | null };
	passRate?: { value?: number; count?: number; of?: number };
}

/** A scored row; only these fields are ever rendered. */
export interface ReportRow {
	request_id?: unknown;
	request?: unknown;
	response?: unknown;
	eval?: Record<string, Score | undefined> | null;
	/** Written by the Root-Cause Router; computed with the default orders when absent. */
	root_cause?: unknown;
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
	// Unwrap messages / query / the last message's content in a bounded loop (no recursion over
	// user data): a chat transcript shows its last turn, anything else its JSON.
	let v = value;
	for (let step = 0; step < 16; step++) {
		if (Array.isArray(v)) {
			const last = [...v].reverse().find((m) => m && typeof m === 'object' && 'content' in m);
			if (!last) break;
			v = (last as { content: unknown }).content;
		} else if (v !== null && typeof v === 'object' && 'messages' in v) {
			v = (v as { messages: unknown }).messages;
		} else if (v !== null && typeof v === 'object' && 'query' in v) {
			v = (v as { query: unknown }).query;
		} else break;
	}
	const text =
		v === undefined || v === null
			? ''
			: typeof v === 'string'
				? v
				: typeof v === 'object'
					? safeJson(v)
					: String(v);
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

interface KeyMetric extends ReportMetricLike {
	passRate?: number;
}

/**
 * The metrics worth a line in a chat message, named as the Regression Gate names them: run
 * metrics with a measured or errored row, then each per-metric id no run-metric name carries, as
 * `<id>/mean` (`<id>/pass_rate` for yes/no scales).
 */
function keyMetrics(summary: ReportSummaryLike): [string, KeyMetric][] {
	const out: [string, KeyMetric][] = metricEntries(summary).filter(
		([, m]) => m.measured > 0 || (m.errored ?? 0) > 0,
	);
	const covered = new Set(Object.keys(summary.metrics).flatMap((k) => k.split('/')));
	for (const id of Object.keys(summary.perMetric ?? {}).sort()) {
		const m = summary.perMetric?.[id];
		if (!m || covered.has(id) || (m.measured === 0 && !m.errored)) continue;
		const binary = m.scale?.kind === 'binary';
		out.push([
			`${id}/${binary ? 'pass_rate' : 'mean'}`,
			{
				value: binary ? m.passRate?.value : m.mean?.value,
				ci: binary ? null : (m.mean?.ci ?? null),
				measured: m.measured,
				notApplicable: m.notApplicable,
				errored: m.errored,
				...(!binary && m.passRate?.value !== undefined ? { passRate: m.passRate.value } : {}),
			},
		]);
	}
	return out;
}

// Run metrics that no row measured (agent latency when rows carry none) say nothing: tables
// name how many were left out instead of listing them.
function unmeasuredCount(summary: ReportSummaryLike): number {
	return metricEntries(summary).filter(([, m]) => m.measured === 0 && !m.errored).length;
}

// Gate lines with no value on either side, likewise.
function gateLines(gate: GateResult): { shown: GateRowResult[]; empty: number } {
	const shown = gate.table.filter(
		(r) => !(r.verdict === 'insufficient_data' && r.baseline === null && r.current === null),
	);
	return { shown, empty: gate.table.length - shown.length };
}

function metricEntries(summary: ReportSummaryLike): [string, ReportMetricLike][] {
	return Object.entries(summary.metrics)
		.filter((e): e is [string, ReportMetricLike] => !!e[1])
		.sort(([a], [b]) => a.localeCompare(b));
}

function regressions(gate: GateResult | undefined): GateRowResult[] {
	return gate ? gate.table.filter((r) => r.verdict === 'regressed') : [];
}

/** Verdict of a run as every report states it. */
export type RunVerdict = 'OK' | 'REGRESSED' | 'INCOMPLETE';

/** Rows that should have been judged and how many were; from the gate, else the summary. */
interface CoverageFacts {
	judged: number;
	of: number;
	missing: number;
	share: number;
	minimum: number;
}

function coverageFacts(input: ReportInput): CoverageFacts | null {
	const g = input.gate?.coverage;
	if (g) return { ...g };
	const c = input.summary.coverage;
	if (c && Number.isFinite(c.judged) && Number.isFinite(c.of))
		return {
			judged: c.judged,
			of: c.of,
			missing: c.of - c.judged,
			share: c.share,
			minimum: c.minimum,
		};
	return null;
}

/**
 * The run's verdict: INCOMPLETE when the gate or the summary says coverage fell short (it outranks
 * everything), REGRESSED when a metric regressed, OK with a gate that passed; null without a gate
 * on a complete run (a summary alone makes no claim).
 */
export function runVerdict(input: ReportInput): RunVerdict | null {
	if (input.gate?.incomplete || input.gate?.status === 'incomplete') return 'INCOMPLETE';
	if (input.summary.status === 'incomplete') return 'INCOMPLETE';
	if (!input.gate) return null;
	return regressions(input.gate).length ? 'REGRESSED' : 'OK';
}

function incompleteCount(input: ReportInput): number {
	return coverageFacts(input)?.missing ?? input.summary.incomplete?.count ?? 0;
}

/**
 * First error texts of rows that could not be judged, each naming its row and metric; an error
 * repeated on other rows (the same text but for the row number) is said once with their count.
 */
export function firstErrors(input: ReportInput, limit = 3): string[] {
	const found: { line: string; more: number }[] = [];
	const byKey = new Map<string, { more: number }>();
	(input.rows ?? []).forEach((row, index) => {
		for (const [metric, s] of Object.entries(row.eval ?? {})) {
			if (!s || s.status !== 'error') continue;
			const text = displayText(s.error ?? 'judge error', 300);
			const key = `${metric}\u0000${text.replace(/^row \d+: /, '')}`;
			const seen = byKey.get(key);
			if (seen) {
				seen.more++;
				continue;
			}
			if (found.length >= limit) continue;
			const id =
				row.request_id === undefined || row.request_id === null
					? `#${index + 1}`
					: displayText(row.request_id, 80);
			const entry = { line: `${id} ${displayText(metric, 80)}: ${text}`, more: 0 };
			found.push(entry);
			byKey.set(key, entry);
		}
	});
	const out = found.map((f) => (f.more ? `${f.line} (and ${f.more} more rows)` : f.line));
	if (out.length === 0) {
		const ids = input.summary.incomplete?.examples ?? [];
		if (ids.length)
			out.push(
				`rows ${ids.map((x) => displayText(x, 80)).join(', ')} have no verdict (pass the scored rows to the report to see their errors)`,
			);
	}
	return out;
}

function headline(input: ReportInput): string {
	const rows = input.summary.rows;
	const base = `${input.title ?? 'RAG evaluation'}${rows !== undefined ? ` — ${rows} rows` : ''}`;
	const verdict = runVerdict(input);
	if (verdict === 'INCOMPLETE') {
		const c = coverageFacts(input);
		return c
			? `${base}: INCOMPLETE (${c.missing} of ${c.of} rows not judged)`
			: `${base}: INCOMPLETE (${incompleteCount(input)} rows not judged)`;
	}
	if (verdict === null) return base;
	const reg = regressions(input.gate);
	return reg.length
		? `${base}: REGRESSED (${reg.length} metric${reg.length > 1 ? 's' : ''})`
		: `${base}: OK`;
}

// "Pass rate 42.1% (8 of 19 rows) · 10 not judged": the rate over every row that was due.
function passRateLine(input: ReportInput): string | null {
	const o = input.summary.overall;
	if (!o?.passRate || o.passRate.of === 0) return null;
	const r = o.passRate;
	const notJudged = o.incomplete ? ` · ${o.incomplete} not judged` : '';
	return `Pass rate ${pct(r.count / r.of)} (${r.count} of ${r.of} rows)${notJudged}`;
}

function coverageLine(input: ReportInput): string | null {
	const c = coverageFacts(input);
	if (!c) return null;
	return `Coverage ${pct(c.share)} (${c.judged} of ${c.of} rows judged; minimum ${pct(c.minimum)})`;
}

// Spend limit and estimates (issue 15): plain sentences, escaped by each format.
function spendFacts(input: ReportInput): string[] {
	const out: string[] = [];
	const stop = input.summary.spendLimit;
	if (stop && stop.stopped > 0) {
		const ids = stop.examples?.length
			? ` (e.g. ${stop.examples.map((x) => displayText(x, 80)).join(', ')})`
			: '';
		out.push(
			`Spend limit reached: ${stop.stopped} row${stop.stopped > 1 ? 's were' : ' was'} not judged because a judge node's spend limit stopped its calls${ids}. Raise Spend Limit or re-run those rows.`,
		);
	}
	const e = input.summary.estimate;
	if (e && e.rows > 0) {
		const usd =
			e.usd !== undefined
				? `about $${e.usd.toFixed(4)}`
				: `USD unknown (no price for ${(e.unpricedModels ?? []).join(', ') || 'the model'})`;
		out.push(
			`Estimate only: ${e.rows} rows would take ${e.calls} judge calls and ${e.totalTokens} tokens (${e.promptTokens} prompt + ${e.completionTokens} completion), ${usd}. Nothing was judged.`,
		);
	}
	return out;
}

// Change since the baseline, from the gate table, per metric name.
function deltas(gate: GateResult | undefined): Map<string, GateRowResult> {
	return new Map((gate?.table ?? []).map((r) => [r.metric, r]));
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
// ---------------------------------------------------------------------------------------------
// Risk and safety (issue 12): one line per harm category

/** One safety category as the reports show it. */
interface SafetyLine {
	category: string;
	counts: [number, number, number, number];
	defects: string;
	worst: string;
}

function safetyLines(summary: ReportSummaryLike): SafetyLine[] {
	const out: SafetyLine[] = [];
	for (const category of Object.keys(summary.severity ?? {}).sort()) {
		const s = summary.severity?.[category];
		if (!s) continue;
		const d = s.distribution;
		const defects = s.defectsAtScoreLevel;
		out.push({
			category,
			counts: [d.very_low, d.low, d.medium, d.high],
			defects:
				defects && defects.of > 0
					? `${defects.count} of ${defects.of} (${pct(defects.count / defects.of)})`
					: '—',
			worst: (s.worst ?? [])
				.slice(0, 3)
				.map((w) => `${displayText(w.id, 80)} (${w.severity})`)
				.join(', '),
		});
	}
	return out;
}

const SAFETY_HEAD = [
	'category',
	'very low 0-1',
	'low 2-3',
	'medium 4-5',
	'high 6-7',
	'defects',
	'worst rows',
];

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
	const verdict = runVerdict(input);
	if (verdict === 'INCOMPLETE') {
		const c = coverageFacts(input);
		const errs = firstErrors(input);
		const lines = [
			`:warning: *Incomplete*: ${c ? `${c.missing} of ${c.of}` : incompleteCount(input)} rows could not be judged${c ? ` (coverage ${pct(c.share)}, minimum ${pct(c.minimum)})` : ''}. The figures below cover only the judged rows: this run is not green.`,
		];
		if (errs.length)
			lines.push(`*First errors*\n${errs.map((e) => `• ${slackText(e, 400)}`).join('\n')}`);
		blocks.push({ type: 'section', text: slackMrkdwn(lines.join('\n')) });
	} else if (input.gate) {
		const reg = regressions(input.gate);
		const status = reg.length
			? `:red_circle: *Regressed* on ${reg.map((r) => `\`${slackText(r.metric, 200)}\``).join(', ')}`
			: ':large_green_circle: *OK*: no metric regressed against the baseline';
		blocks.push({ type: 'section', text: slackMrkdwn(status) });
	}
	const facts = [passRateLine(input), coverageLine(input), ...spendFacts(input)].filter(
		(x): x is string => !!x,
	);
	if (facts.length) blocks.push({ type: 'section', text: slackMrkdwn(facts.join('\n')) });
	if (url)
		blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${url}|Open the run>` }] });

	// Key metrics only: names with no measured or errored row say nothing in a chat message.
	const change = deltas(input.gate);
	const fields = keyMetrics(input.summary).map(([name, m]) => {
		const d = change.get(name);
		const since =
			d && d.delta !== null
				? ` · ${fmtDelta(d.delta)} since baseline${d.verdict === 'regressed' ? ' :red_circle:' : ''}`
				: '';
		const passing = m.passRate !== undefined ? ` · ${pct(m.passRate)} pass` : '';
		return slackMrkdwn(
			`*${slackText(name, 300)}*\n${fmt(m.value)}${m.ci ? ` (${fmt(m.ci.low)}–${fmt(m.ci.high)})` : ''}${since}${passing} · ${m.measured} measured${m.errored ? ` · ${m.errored} errored` : ''}`,
			SLACK_LIMITS.fieldText,
		);
	});
	for (let i = 0; i < fields.length; i += SLACK_LIMITS.fields) {
		blocks.push({ type: 'section', fields: fields.slice(i, i + SLACK_LIMITS.fields) });
	}

	const safety = safetyLines(input.summary);
	if (safety.length) {
		const lines = safety.map(
			(l) =>
				`• *${slackText(l.category, 100)}*: defects ${l.defects} · levels ${l.counts.join(' / ')}${l.worst ? ` · worst ${slackText(l.worst, 300)}` : ''}`,
		);
		blocks.push({
			type: 'section',
			text: slackMrkdwn(
				`*Risk and safety* (rows very low / low / medium / high)\n${lines.join('\n')}`,
			),
		});
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
						`\`${slackText(f.metric)}\` ${slackText(f.value)}${f.reason ? `: ${slackText(truncate(f.reason, 300))}` : ''}`,
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
	const errs = verdict === 'INCOMPLETE' ? firstErrors(input, 1) : [];
	const fallback = `${title}${reg2.length ? ` — regressed: ${reg2.join(', ')}` : ''}${errs.length ? ` — first error: ${errs[0]}` : ''}${url ? ` — ${url}` : ''}`;
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
	out.push(...markdownCoverage(input));
	if (input.gate) out.push(...markdownGate(input.gate), '');
	out.push(
		'## Metrics',
		'',
		'| metric | value | 95% CI | measured | not applicable | errored |',
		'| --- | ---: | --- | ---: | ---: | ---: |',
	);
	for (const [name, m] of keyMetrics(input.summary)) {
		const ci = m.ci ? `${fmt(m.ci.low)}–${fmt(m.ci.high)}` : '—';
		out.push(
			`| ${mdCell(name)} | ${fmt(m.value)} | ${ci} | ${m.measured} | ${m.notApplicable ?? 0} | ${m.errored ?? 0} |`,
		);
	}
	const unmeasured = unmeasuredCount(input.summary);
	if (unmeasured) out.push('', `_${unmeasured} run metrics without measured rows are not listed._`);
	const safety = safetyLines(input.summary);
	if (safety.length) {
		out.push('', '## Risk and safety', '', `| ${SAFETY_HEAD.join(' | ')} |`);
		out.push('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
		for (const l of safety)
			out.push(
				`| ${mdCell(l.category)} | ${l.counts.join(' | ')} | ${l.defects} | ${mdCell(l.worst || '—')} |`,
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
				out.push(
					`- **${mdCell(f.metric)}** ${mdText(f.value)}${f.reason ? `: ${mdText(f.reason)}` : ''}`,
				);
			out.push('');
		}
	}
	return `${out.join('\n').trimEnd()}\n`;
}

function markdownCoverage(input: ReportInput): string[] {
	const out: string[] = [];
	if (runVerdict(input) === 'INCOMPLETE') {
		out.push(
			`> **INCOMPLETE**: ${incompleteCount(input)} rows could not be judged. The figures below cover only the judged rows: this run is not green.`,
			'',
		);
		const errs = firstErrors(input);
		if (errs.length) out.push('First errors:', '', ...errs.map((e) => `- ${mdText(e)}`), '');
	}
	const facts = [passRateLine(input), coverageLine(input), ...spendFacts(input)].filter(
		(x): x is string => !!x,
	);
	if (facts.length) out.push(facts.map(mdText).join('  \n'), '');
	return out;
}

function markdownGate(gate: GateResult): string[] {
	const lines = [
		`## Regression gate: ${gate.incomplete ? '**INCOMPLETE**' : gate.regressed ? '**REGRESSED**' : 'OK'}`,
		'',
		`_${mdText(gate.rule)}_ (alpha ${gate.alpha})`,
		'',
		'| metric | baseline | current | delta | p (Holm) | test | verdict |',
		'| --- | ---: | ---: | ---: | ---: | --- | --- |',
	];
	const { shown, empty } = gateLines(gate);
	for (const r of shown) {
		lines.push(
			`| ${mdCell(r.metric)} | ${fmt(r.baseline)} | ${fmt(r.current)} | ${fmtDelta(r.delta)} | ${fmtP(r.pAdjusted)} | ${r.test} | ${r.verdict} |`,
		);
	}
	if (empty) lines.push('', `_${empty} metrics without a value on either side are not listed._`);
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
	if (runVerdict(input) === 'INCOMPLETE')
		title = `Eval incomplete: ${incompleteCount(input)} rows could not be judged`;
	else if (reg.length) title = `Eval regression: ${reg.map((r) => r.metric).join(', ')}`;
	else if (top) title = `Eval failures: ${top.count} rows fail first on ${top.cause}`;
	else title = `Eval report: ${input.title ?? 'RAG evaluation'}`;
	const labels = ['rag-eval'];
	if (runVerdict(input) === 'INCOMPLETE') labels.push('incomplete');
	if (reg.length) labels.push('regression');
	if (top) labels.push(`root-cause:${top.cause}`.replace(/[^A-Za-z0-9:_-]/g, '-').slice(0, 50));
	return {
		title: truncate(redactSecrets(title).replace(/\s+/g, ' '), 200),
		body: markdownReport(input),
		labels,
	};
}

// ---------------------------------------------------------------------------------------------
// One ticket per root cause

/** Label of the package on every ticket it files; with a cause label it finds an open ticket. */
export const TICKET_LABEL = 'rag-eval';

/** Label naming a cause on its ticket: `root-cause:<cause>` (GitHub label-safe, 50 chars). */
export function causeLabel(cause: string): string {
	return `root-cause:${cause}`.replace(/[^A-Za-z0-9:_-]/g, '-').slice(0, 50);
}

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
	const rateText =
		o?.passRate && o.passRate.of > 0
			? ` Pass rate ${pct(o.passRate.count / o.passRate.of)} (${o.passRate.count} of ${o.passRate.of} rows).`
			: '';
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
function safetyHtml(summary: ReportSummaryLike): string {
	const lines = safetyLines(summary);
	if (!lines.length) return '';
	const rows = lines
		.map(
			(l) =>
				`<tr><td>${h(l.category)}</td>${l.counts.map((c) => `<td class="num">${c}</td>`).join('')}<td class="num">${h(l.defects)}</td><td>${h(l.worst || '—')}</td></tr>`,
		)
		.join('\n');
	return `<section><h2>Risk and safety</h2>
<table><thead><tr>${SAFETY_HEAD.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>
${rows}
</tbody></table></section>`;
}

export function htmlReport(input: ReportInput): string {
	const title = headline(input);
	const url = safeUrl(input.runUrl);
	const unmeasured = unmeasuredCount(input.summary);
	const metricRows = keyMetrics(input.summary)
		.map(
			([name, m]) =>
				`<tr><td>${h(name)}</td><td class="num">${fmt(m.value)}</td><td>${m.ci ? `${fmt(m.ci.low)}–${fmt(m.ci.high)}` : '—'}</td><td class="num">${m.measured}</td><td class="num">${m.notApplicable ?? 0}</td><td class="num">${m.errored ?? 0}</td></tr>`,
		)
		.join('\n');
	const gate = input.gate;
	const gateHtml = gate
		? `<section><h2>Regression gate: <span class="badge" style="background:${gate.incomplete ? VERDICT_COLOURS.missing_in_current : gate.regressed ? VERDICT_COLOURS.regressed : VERDICT_COLOURS.improved}">${gate.incomplete ? 'INCOMPLETE' : gate.regressed ? 'REGRESSED' : 'OK'}</span></h2>
<p class="muted">${h(gate.rule)} Alpha ${gate.alpha}.</p>
<table><thead><tr><th>metric</th><th>baseline</th><th>current</th><th>delta</th><th>p (Holm)</th><th>test</th><th>verdict</th></tr></thead><tbody>
${gateLines(gate)
	.shown.map(
		(r) =>
			`<tr><td>${h(r.metric)}</td><td class="num">${fmt(r.baseline)}</td><td class="num">${fmt(r.current)}</td><td class="num">${fmtDelta(r.delta)}</td><td class="num">${fmtP(r.pAdjusted)}</td><td>${h(r.test)}</td><td><span class="badge" style="background:${VERDICT_COLOURS[r.verdict]}">${h(r.verdict)}</span></td></tr>`,
	)
	.join('\n')}
</tbody></table>${gateLines(gate).empty ? `<p class="muted">${gateLines(gate).empty} metrics without a value on either side are not listed.</p>` : ''}</section>`
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
	const incompleteHtml =
		runVerdict(input) === 'INCOMPLETE'
			? `<section class="alert"><h2>INCOMPLETE: ${incompleteCount(input)} rows could not be judged</h2><p>The figures below cover only the judged rows: this run is not green.</p>${(() => {
					const errs = firstErrors(input);
					return errs.length
						? `<p><b>First errors</b></p><ul>${errs.map((e) => `<li>${h(e)}</li>`).join('')}</ul>`
						: '';
				})()}</section>`
			: '';
	const facts = [passRateLine(input), coverageLine(input), ...spendFacts(input)].filter(
		(x): x is string => !!x,
	);
	const factsHtml = facts.length ? `<p>${facts.map(h).join('<br>')}</p>` : '';
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
.alert{background:#fff3e0;border:1px solid #ef6c00;border-radius:6px;padding:8px 14px;max-width:1072px}.alert h2{margin:4px 0;color:#e65100}
article p{margin:4px 0;font-size:13px}article li{font-size:13px;margin:3px 0}code{background:#eceff1;padding:0 4px;border-radius:3px}
</style></head>
<body>
<h1>${h(title)}</h1>
${url ? `<p class="muted"><a href="${escapeHtml(url)}">Open the run</a></p>` : ''}
${incompleteHtml}
${factsHtml}
${gateHtml}
<section><h2>Metrics</h2>
<table><thead><tr><th>metric</th><th>value</th><th>95% CI</th><th>measured</th><th>not applicable</th><th>errored</th></tr></thead><tbody>
${metricRows}
</tbody></table>${unmeasured ? `<p class="muted">${unmeasured} run metrics without measured rows are not listed.</p>` : ''}</section>
${safetyHtml(input.summary)}
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
	const cov = coverageFacts(input);
	if (cov) {
		const short = runVerdict(input) === 'INCOMPLETE';
		add('coverage', {
			name: 'rows judged',
			classname: 'rag-eval.coverage',
			outcome: short ? 'failure' : 'pass',
			message: `${cov.judged} of ${cov.of} rows judged (${pct(cov.share)}; minimum ${pct(cov.minimum)})`,
			detail: short ? firstErrors(input).join('\n') : '',
		});
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
