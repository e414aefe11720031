/**
 * The report model every format renders: what the reports read of a run (`ReportInput`, the
 * summary, rows and gate shapes), the run verdict and first errors, and every helper more than one
 * format uses (secret redaction, display text, number formats, worst rows, key metrics, coverage,
 * spend and safety lines, trends, Markdown escaping). Imports no format file.
 */

import { coverageText, coverageTotal, percentText, roundText } from '../core/display';
import type { Score } from '../core/types';
import { SAME_RUN_REASON, type GateResult, type GateRowResult } from '../gate';
import { lastChange, sparkline, trendSeries, type TrendSeries } from '../history';
import { manifestProblems, type ManifestCheck } from '../manifest';

/** One run-level metric as the aggregate reports it. */
export interface ReportMetricLike {
	value?: number | null;
	measured: number;
	notApplicable?: number;
	errored?: number;
	/** Rows without this metric at all (the aggregate's coverage counts). */
	absent?: number;
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
	/** The aggregate's run-manifest check: rows missing, twice or conflicting. */
	manifest?: ManifestCheck | null;
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
	absent?: number;
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
	/**
	 * Who the Slack message alerts when the run is REGRESSED or INCOMPLETE: `here` (`<!here>`),
	 * `channel` (`<!channel>`) or nobody (default). Never on an OK run.
	 */
	mention?: 'here' | 'channel' | 'none';
	/** Judge Agreement on the review labels (per judge and version); judges below fitness are named. */
	agreement?: ReportAgreementLike;
}

/** What the reports read of Judge Agreement on review labels (`reviewAgreement`'s result). */
export interface ReportAgreementLike {
	labels: number;
	judges: readonly {
		judge: string;
		signature: string | null;
		result: {
			n: number;
			kappa: { kappa: number | null; ci: { low: number; high: number; level: number } | null };
			rates: {
				accuracy: number | null;
				falsePositiveRate: number | null;
				falseNegativeRate: number | null;
			};
			fitness: { verdict: 'fit' | 'not_fit' | 'insufficient_data'; message: string };
		};
	}[];
}

/** One agreement line as every report shows it. */
export interface AgreementLine {
	judge: string;
	/** The judge version, shortened; "all versions" for several together. */
	version: string;
	n: number;
	kappa: string;
	accuracy: string;
	fpr: string;
	fnr: string;
	verdict: 'fit' | 'not_fit' | 'insufficient_data';
	message: string;
}

/** Agreement lines, per judge then version, in the order the agreement lists them. */
export function agreementLines(a: ReportAgreementLike | undefined): AgreementLine[] {
	if (!a) return [];
	const rate = (v: number | null) => (v === null ? '—' : pct(v));
	return a.judges.map((j) => {
		const k = j.result.kappa;
		return {
			judge: j.judge,
			version: j.signature === null ? 'all versions' : truncate(j.signature, 80),
			n: j.result.n,
			kappa:
				k.kappa === null
					? '—'
					: `${k.kappa.toFixed(2)}${k.ci ? ` (${k.ci.low.toFixed(2)} to ${k.ci.high.toFixed(2)})` : ''}`,
			accuracy: rate(j.result.rates.accuracy),
			fpr: rate(j.result.rates.falsePositiveRate),
			fnr: rate(j.result.rates.falseNegativeRate),
			verdict: j.result.fitness.verdict,
			message: j.result.fitness.message,
		};
	});
}

/** Judges (per version) whose agreement with reviewers fell below the fitness rule. */
export function unfitJudges(a: ReportAgreementLike | undefined): AgreementLine[] {
	return agreementLines(a).filter((l) => l.verdict === 'not_fit');
}

export const AGREEMENT_HEAD = [
	'judge',
	'version',
	'labels',
	'kappa (95% CI)',
	'accuracy',
	'FPR',
	'FNR',
	'verdict',
];

// Trend series for the trends sections, this run last; empty without history.
export function trends(input: ReportInput): TrendSeries[] {
	if (!input.history?.length) return [];
	return trendSeries(input.history, input.summary, input.trendRuns ?? 30);
}

// One trend as a line: sparkline, latest value and change since the previous run.
export function trendLine(s: TrendSeries): { spark: string; last: string; delta: string } {
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

export function truncate(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, Math.max(0, max - 1))}…`;
}

// Requests may be a string, chat messages or any object (seed 002): show the last user turn.
export function displayText(value: unknown, max = 400): string {
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

export function fmt(v: number | null | undefined, digits = 3): string {
	return roundText(v, digits);
}

export function fmtP(p: number | null): string {
	if (p === null) return '—';
	return p < 0.0001 ? '<0.0001' : p.toFixed(4);
}

export function fmtDelta(d: number | null): string {
	if (d === null) return '—';
	return `${d > 0 ? '+' : ''}${fmt(d)}`;
}

export function pct(share: number): string {
	return percentText(share);
}

export function safeUrl(url: string | undefined): string | null {
	return url && /^https?:\/\/[^\s<>"']+$/i.test(url) ? url : null;
}

export interface WorstRow {
	id: string;
	request: string;
	response: string;
	failures: { metric: string; value: string; reason: string; errored: boolean }[];
	/** The row's failing tool calls, one line each (Tool Calls' details), in trajectory order. */
	toolCalls: string[];
}

/** Most failing tool calls listed per row; the rest are counted in one more line. */
export const MAX_FAILING_CALLS = 8;

type CallDetail = {
	position?: unknown;
	name?: unknown;
	arguments?: unknown;
	error?: unknown;
	times?: unknown;
	positions?: unknown;
	differences?: unknown;
};

const listOf = (v: unknown): CallDetail[] =>
	Array.isArray(v) ? v.filter((x): x is CallDetail => !!x && typeof x === 'object') : [];

function argsText(args: unknown): string {
	if (args === undefined) return '';
	return ` ${truncate(redactSecrets(safeJson(args).replace(/\s+/g, ' ')), 120)}`;
}

function differenceText(d: unknown): string {
	if (!d || typeof d !== 'object') return '';
	const { key, why, expected, actual } = d as Record<string, unknown>;
	const k = displayText(key, 60);
	if (why === 'missing') return `${k} missing (expected ${argsText(expected).trim()})`;
	if (why === 'unexpected') return `${k} not expected (got ${argsText(actual).trim()})`;
	return `${k} expected ${argsText(expected).trim()}, got ${argsText(actual).trim()}`;
}

/**
 * The failing tool calls of a row, from its Tool Calls Scores (`tool_call_match` details, else
 * `tool_call_errors` for rows without expected calls): calls that failed, calls with wrong
 * arguments (each key that differs), calls not expected, expected calls never made, and loops.
 * Arguments and errors are cut short and secrets redacted; tool results are never shown.
 */
export function failingToolCalls(row: ReportRow): string[] {
	const match = row.eval?.tool_call_match;
	const errors = row.eval?.tool_call_errors;
	const d = (match?.status === 'ok' ? match.details : undefined) ?? {};
	const failed = listOf(d.failed ?? (errors?.status === 'ok' ? errors.details?.failed : undefined));
	const lines: { at: number; text: string }[] = [];
	const pos = (c: CallDetail) => (typeof c.position === 'number' ? c.position : -1);
	const name = (c: CallDetail) => displayText(c.name, 80);
	for (const c of failed)
		lines.push({
			at: pos(c),
			text: `call ${pos(c)} ${name(c)} failed: ${displayText(c.error, 200)}`,
		});
	for (const c of listOf(d.wrongArguments))
		lines.push({
			at: pos(c),
			text: `call ${pos(c)} ${name(c)} wrong arguments: ${listOf(c.differences)
				.slice(0, 3)
				.map(differenceText)
				.join('; ')}`,
		});
	// A loop is one line: its extra calls are not listed again.
	const looped = new Set<number>();
	for (const c of listOf(d.repeated))
		if (Array.isArray(c.positions)) for (const p of c.positions) looped.add(Number(p));
	for (const c of listOf(d.extra))
		if (!looped.has(pos(c)))
			lines.push({
				at: pos(c),
				text: `call ${pos(c)} ${name(c)}${argsText(c.arguments)} not expected`,
			});
	for (const c of listOf(d.repeated)) {
		const at = Array.isArray(c.positions) ? c.positions.map(Number) : [];
		lines.push({
			at: at[0] ?? -1,
			text: `${name(c)}${argsText(c.arguments)} repeated ${Number(c.times)} times (calls ${at.join(', ')})`,
		});
	}
	const made = lines.sort((a, b) => a.at - b.at).map((l) => l.text);
	for (const c of listOf(d.missing))
		made.push(`${name(c)}${argsText(c.arguments)} expected, never called`);
	if (made.length <= MAX_FAILING_CALLS) return made;
	return [
		...made.slice(0, MAX_FAILING_CALLS),
		`and ${made.length - MAX_FAILING_CALLS} more failing calls`,
	];
}

/** Rows ranked worst first: most failed metrics, then most errored; ties keep input order. */
export function worstRows(rows: readonly ReportRow[] | undefined, limit: number): WorstRow[] {
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
		toolCalls: failingToolCalls(row),
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

export interface KeyMetric extends ReportMetricLike {
	passRate?: number;
	/** The rows behind the figure in words ("9 of 19 rows scored, 10 errored"): every format shows it. */
	coverage: string;
}

/**
 * The metrics worth a line in a chat message, named as the Regression Gate names them: run
 * metrics with a measured or errored row, then each per-metric id no run-metric name carries, as
 * `<id>/mean` (`<id>/pass_rate` for yes/no scales).
 */
export function keyMetrics(summary: ReportSummaryLike): [string, KeyMetric][] {
	const out: [string, KeyMetric][] = metricEntries(summary)
		.filter(([, m]) => m.measured > 0 || (m.errored ?? 0) > 0)
		.map(([name, m]) => [name, { ...m, coverage: coverageText(m, summary.rows) }]);
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
				...(m.absent !== undefined ? { absent: m.absent } : {}),
				...(!binary && m.passRate?.value !== undefined ? { passRate: m.passRate.value } : {}),
				coverage: coverageText(m, summary.rows),
			},
		]);
	}
	return out;
}

/** "9 of 19": a metric's scored rows of the rows it was due on, for table cells. */
export function scoredOf(m: ReportMetricLike, rows?: number): string {
	return `${m.measured} of ${coverageTotal(m, rows)}`;
}

// Run metrics that no row measured (agent latency when rows carry none) say nothing: tables
// name how many were left out instead of listing them.
export function unmeasuredCount(summary: ReportSummaryLike): number {
	return metricEntries(summary).filter(([, m]) => m.measured === 0 && !m.errored).length;
}

// Gate lines with no value on either side, likewise.
export function gateLines(gate: GateResult): { shown: GateRowResult[]; empty: number } {
	const shown = gate.table.filter(
		(r) => !(r.verdict === 'insufficient_data' && r.baseline === null && r.current === null),
	);
	return { shown, empty: gate.table.length - shown.length };
}

export function metricEntries(summary: ReportSummaryLike): [string, ReportMetricLike][] {
	return Object.entries(summary.metrics)
		.filter((e): e is [string, ReportMetricLike] => !!e[1])
		.sort(([a], [b]) => a.localeCompare(b));
}

export function regressions(gate: GateResult | undefined): GateRowResult[] {
	return gate ? gate.table.filter((r) => r.verdict === 'regressed') : [];
}

/** Verdict of a run as every report states it. */
export type RunVerdict = 'OK' | 'REGRESSED' | 'INCOMPLETE';

/** Rows that should have been judged and how many were; from the gate, else the summary. */
export interface CoverageFacts {
	judged: number;
	of: number;
	missing: number;
	share: number;
	minimum: number;
}

export function coverageFacts(input: ReportInput): CoverageFacts | null {
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

export function incompleteCount(input: ReportInput): number {
	return coverageFacts(input)?.missing ?? input.summary.incomplete?.count ?? 0;
}

/**
 * First error texts of rows that could not be judged, each naming its row and metric; an error
 * repeated on other rows (the same text but for the row number) is said once with their count.
 */
export function firstErrors(input: ReportInput, limit = 3): string[] {
	const errors = firstProblems(input, 'error', limit);
	if (errors.length > 0) return errors;
	const ids = input.summary.incomplete?.examples ?? [];
	if (ids.length === 0) return [];
	// No row errored, yet rows have no verdict: say why they could not be scored (no judge
	// model configured, inputs missing), from the rows themselves when they were passed.
	const unscored = firstProblems(input, 'not_applicable', limit);
	if (unscored.length > 0) return unscored.map((line) => `not scored: ${line}`);
	return [
		`rows ${ids.map((x) => displayText(x, 80)).join(', ')} have no verdict (pass the scored rows to the report to see their errors)`,
	];
}

/**
 * The first rows with a Score of one status, each naming its row and metric, with its error or
 * reason; the same text on other rows (but for the row number) is said once with their count.
 */
function firstProblems(
	input: ReportInput,
	status: 'error' | 'not_applicable',
	limit: number,
): string[] {
	const found: { line: string; more: number }[] = [];
	const byKey = new Map<string, { more: number }>();
	(input.rows ?? []).forEach((row, index) => {
		for (const [metric, s] of Object.entries(row.eval ?? {})) {
			if (!s || s.status !== status) continue;
			const said = status === 'error' ? (s.error ?? 'judge error') : (s.reason ?? 'not applicable');
			const text = displayText(said, 300);
			const key = `${metric}\u0000${text.replace(/^row \d+( \(request_id [^)]*\))?: /, '')}`;
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
	return found.map((f) => (f.more ? `${f.line} (and ${f.more} more rows)` : f.line));
}

// Manifest checks whose problems the reports state: the summary's (the gate's copy of it when a
// gate ran) and the gate's check of its Current Rows.
function failedManifests(input: ReportInput): [ManifestCheck, string][] {
	const out: [ManifestCheck, string][] = [];
	const summary = input.gate?.manifest ?? input.summary.manifest;
	if (summary && !summary.complete) out.push([summary, 'Eval Aggregate']);
	const rows = input.gate?.rowsManifest;
	if (rows && !rows.complete) out.push([rows, "the Regression Gate's Current Rows"]);
	return out;
}

/** Run-manifest problems in words: rows that never arrived, arrived twice, conflicting runs. */
export function manifestFacts(input: ReportInput): string[] {
	const out = failedManifests(input).flatMap(([m, where]) => manifestProblems(m, where));
	if (input.gate?.incompleteReasons?.includes(SAME_RUN_REASON)) out.push(SAME_RUN_REASON);
	return out;
}

/**
 * Why a run is incomplete in a few words, when the reason is its manifest rather than rows not
 * judged (rows arriving twice, a baseline that is the same run); null otherwise.
 */
export function manifestShort(input: ReportInput): string | null {
	for (const [m] of failedManifests(input)) {
		if (m.missing > 0) return `${m.missing} of ${m.expected} rows never arrived`;
		if (m.duplicates > 0) return `${m.duplicates} rows arrived twice`;
		if (m.conflicting > 0) return `${m.conflicting} runs with conflicting manifests`;
	}
	if (input.gate?.incompleteReasons?.includes(SAME_RUN_REASON)) return 'baseline is this same run';
	return null;
}

/** The facts under a report's headline: pass rate, coverage, manifest and spend, in that order. */
export function runFacts(input: ReportInput): string[] {
	return [
		passRateLine(input),
		coverageLine(input),
		...manifestFacts(input),
		...spendFacts(input),
	].filter((x): x is string => !!x);
}

export function headline(input: ReportInput): string {
	const rows = input.summary.rows;
	const base = `${input.title ?? 'RAG evaluation'}${rows !== undefined ? ` — ${rows} rows` : ''}`;
	const verdict = runVerdict(input);
	if (verdict === 'INCOMPLETE') {
		const c = coverageFacts(input);
		const why = incompleteCount(input) === 0 ? manifestShort(input) : null;
		if (why) return `${base}: INCOMPLETE (${why})`;
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
export function passRateLine(input: ReportInput): string | null {
	const o = input.summary.overall;
	const rate = overallRateText(o);
	if (!rate) return null;
	// Nothing judged says so itself: no "0 not judged" count beside it.
	const notJudged = o && o.pass + o.fail > 0 && o.incomplete ? ` · ${o.incomplete} not judged` : '';
	return `${rate}${notJudged}`;
}

/**
 * The run's pass rate in words, "Pass rate 42.1% (8 of 19 rows)", or "Nothing judged" when no row
 * got a verdict (never a pass rate of 0, which would read as every row failing); null without rows.
 */
export function overallRateText(o: ReportSummaryLike['overall']): string | null {
	if (!o?.passRate || o.passRate.of === 0) return null;
	const r = o.passRate;
	if (o.pass + o.fail === 0)
		return `Nothing judged: none of the ${r.of} row${r.of === 1 ? '' : 's'} got a verdict`;
	return `Pass rate ${pct(r.count / r.of)} (${r.count} of ${r.of} rows)`;
}

export function coverageLine(input: ReportInput): string | null {
	const c = coverageFacts(input);
	if (!c) return null;
	return `Coverage ${pct(c.share)} (${c.judged} of ${c.of} rows judged; minimum ${pct(c.minimum)})`;
}

// Spend limit and estimates (issue 15): plain sentences, escaped by each format.
export function spendFacts(input: ReportInput): string[] {
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

// ---------------------------------------------------------------------------------------------
// Risk and safety (issue 12): one line per harm category

/** One safety category as the reports show it. */
export interface SafetyLine {
	category: string;
	counts: [number, number, number, number];
	defects: string;
	worst: string;
}

export function safetyLines(summary: ReportSummaryLike): SafetyLine[] {
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

export const SAFETY_HEAD = [
	'category',
	'very low 0-1',
	'low 2-3',
	'medium 4-5',
	'high 6-7',
	'defects',
	'worst rows',
];

// ---------------------------------------------------------------------------------------------
// Markdown escaping (the Markdown report and the tickets)

// Table cells: no raw HTML, no pipes breaking columns, no newlines.
export function mdCell(text: string): string {
	return mdText(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function mdText(text: string): string {
	return neutraliseMentions(
		redactSecrets(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
	);
}

/**
 * Markdown that GitHub would turn into notifications or links, made inert: `@user` and
 * `@org/team` mentions and `#12` / `owner/repo#12` references get a zero-width space after the
 * sign, so row text (a user's question, a judge's reason) copied into a nightly ticket never pings
 * anyone or cross-links an issue. The text reads the same.
 */
export function neutraliseMentions(text: string): string {
	return text
		.replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, '$1@\u200b')
		.replace(/(^|[^&])#(?=\d)/g, '$1#\u200b')
		.replace(/\b(GH-)(?=\d)/gi, '$1\u200b');
}
