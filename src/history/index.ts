/**
 * Run history and trends: a compact record of earlier runs (run metrics only, never rows), the
 * per-metric series the reports draw, a sparkline for Slack and Markdown, an inline SVG chart for
 * the HTML report, and the median of the last K runs as a baseline for the Regression Gate.
 */

import { gateMetrics, type GateSummaryLike } from '../gate';

/** One run metric as history keeps it: the value, how many rows it measured, which way is better. */
export interface HistoryMetric {
	value: number | null;
	measured: number;
	direction?: 'higher' | 'lower';
}

/** One earlier run: when it ran, how many rows, its run metrics. */
export interface HistoryEntry {
	/** ISO timestamp of the run (optional; entries are read in array order, oldest first). */
	at?: string;
	rows?: number;
	metrics: Record<string, HistoryMetric | undefined>;
}

/** What {@link appendHistory} and {@link trendSeries} need of a summary (the aggregate's fits). */
export interface HistorySummaryLike {
	rows?: number;
	/** Per-metric statistics; their means and pass rates are kept as `<id>/mean`, `<id>/pass_rate`. */
	perMetric?: GateSummaryLike['perMetric'];
	/** Set on history entries; a summary has none. */
	at?: unknown;
	metrics: Record<
		string,
		| { value?: number | null; measured?: number; direction?: 'higher' | 'lower' | string }
		| undefined
	>;
}

/** Runs a history keeps by default: a month of nightly runs. */
export const DEFAULT_HISTORY_SIZE = 30;

function finite(v: unknown): number | null {
	return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Whether a value looks like a run summary or a history entry (an object with `metrics`). */
export function isHistoryLike(v: unknown): v is HistorySummaryLike {
	return (
		!!v &&
		typeof v === 'object' &&
		!Array.isArray(v) &&
		!!(v as { metrics?: unknown }).metrics &&
		typeof (v as { metrics?: unknown }).metrics === 'object'
	);
}

/**
 * A summary reduced to what history keeps: value, measured and direction of each run metric the
 * Regression Gate compares (run-level names plus each per-metric mean or pass rate no run-level
 * name covers). Metrics no row measured are left out.
 */
export function historyEntry(summary: HistorySummaryLike, at?: string): HistoryEntry {
	const metrics: Record<string, HistoryMetric> = {};
	const all = gateMetrics({
		metrics: summary.metrics as GateSummaryLike['metrics'],
		perMetric: summary.perMetric,
	});
	for (const [name, m] of Object.entries(all)) {
		if (!m || typeof m !== 'object') continue;
		const value = finite(m.value);
		const measured = finite(m.measured) ?? 0;
		if (value === null && measured === 0) continue;
		const entry: HistoryMetric = { value, measured };
		if (m.direction === 'higher' || m.direction === 'lower') entry.direction = m.direction;
		metrics[name] = entry;
	}
	const out: HistoryEntry = { metrics };
	if (at) out.at = at;
	if (finite(summary.rows) !== null) out.rows = summary.rows;
	return out;
}

/**
 * Appends one run to a history and keeps only the last `max` runs (default 30), oldest first.
 * Non-summary entries are dropped, rows and heavy fields never kept, the input is not mutated:
 * `staticData.history = appendHistory(staticData.history, $json, 30)` in a Code node.
 */
export function appendHistory(
	history: unknown,
	summary: HistorySummaryLike,
	max: number = DEFAULT_HISTORY_SIZE,
	at: string = new Date().toISOString(),
): HistoryEntry[] {
	const kept = normaliseHistory(history);
	kept.push(historyEntry(summary, at));
	const limit = Math.max(1, Math.floor(Number.isFinite(max) ? max : DEFAULT_HISTORY_SIZE));
	return kept.slice(-limit);
}

/** Any array of summaries or history entries as history entries; anything else is empty. */
export function normaliseHistory(history: unknown): HistoryEntry[] {
	if (!Array.isArray(history)) return [];
	return history
		.filter(isHistoryLike)
		.map((h) => historyEntry(h, typeof h.at === 'string' ? h.at : undefined));
}

/** One metric's values over the runs, oldest first; the last point is the current run. */
export interface TrendSeries {
	metric: string;
	values: (number | null)[];
	/** Timestamps of the points where known (same length as `values`). */
	at: (string | null)[];
	direction?: 'higher' | 'lower';
}

/**
 * The trend of each current metric over the last `runs` runs (earlier runs plus the current one,
 * default 30). Metrics absent from a run leave a gap (null). Metrics of the current run only.
 */
export function trendSeries(
	history: unknown,
	current: HistorySummaryLike,
	runs: number = DEFAULT_HISTORY_SIZE,
): TrendSeries[] {
	const limit = Math.max(2, Math.floor(Number.isFinite(runs) ? runs : DEFAULT_HISTORY_SIZE));
	const past = normaliseHistory(history).slice(-(limit - 1));
	const now = historyEntry(current);
	const series: TrendSeries[] = [];
	for (const name of Object.keys(now.metrics).sort((a, b) => a.localeCompare(b))) {
		const values = [...past.map((p) => p.metrics[name]?.value ?? null), now.metrics[name]!.value];
		if (values.filter((v) => v !== null).length < 2) continue;
		const direction =
			now.metrics[name]!.direction ??
			past.find((p) => p.metrics[name]?.direction)?.metrics[name]?.direction;
		series.push({
			metric: name,
			values,
			at: [...past.map((p) => p.at ?? null), null],
			...(direction ? { direction } : {}),
		});
	}
	return series;
}

const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/**
 * Sparkline of values, one character each (▁ lowest to █ highest, a space for a missing run);
 * a flat series is drawn at mid height so "no change" does not read as "at the bottom".
 */
export function sparkline(values: readonly (number | null)[]): string {
	const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
	if (!present.length) return '';
	const lo = Math.min(...present);
	const hi = Math.max(...present);
	return values
		.map((v) => {
			if (v === null || !Number.isFinite(v)) return ' ';
			if (hi === lo) return SPARKS[3];
			return SPARKS[Math.round(((v - lo) / (hi - lo)) * (SPARKS.length - 1))];
		})
		.join('');
}

/** Change of the last point against the previous run that has a value; null without one. */
export function lastChange(values: readonly (number | null)[]): number | null {
	const cur = values[values.length - 1];
	if (cur === null || cur === undefined) return null;
	for (let i = values.length - 2; i >= 0; i--) {
		const v = values[i];
		if (v !== null && v !== undefined) return cur - v;
	}
	return null;
}

function median(xs: number[]): number {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * A baseline summary whose metrics are the median of the last `k` runs of a history (default 7):
 * one noisy night then neither sets off nor hides a regression. `measured` is the median measured
 * count, so the gate's summary-only rate test keeps a realistic sample size. Metrics measured in
 * no run are left out; the result notes how many runs it used.
 */
export function medianBaseline(
	history: unknown,
	k = 7,
): { metrics: Record<string, HistoryMetric>; runs: number } {
	const runs = normaliseHistory(history).slice(-Math.max(1, Math.floor(k)));
	const names = new Set(runs.flatMap((r) => Object.keys(r.metrics)));
	const metrics: Record<string, HistoryMetric> = {};
	for (const name of names) {
		const points = runs
			.map((r) => r.metrics[name])
			.filter((m): m is HistoryMetric => !!m && m.value !== null && m.measured > 0);
		if (!points.length) continue;
		const entry: HistoryMetric = {
			value: median(points.map((p) => p.value as number)),
			measured: Math.round(median(points.map((p) => p.measured))),
		};
		const direction = points.find((p) => p.direction)?.direction;
		if (direction) entry.direction = direction;
		metrics[name] = entry;
	}
	return { metrics, runs: runs.length };
}

function fmt(v: number): string {
	return Number.isInteger(v) ? String(v) : v.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * Small-multiples line chart of each series as inline SVG: one panel per metric with its latest
 * value, min and max. `escape` must escape text for HTML (the report passes its escaper), so
 * metric names cannot break out of the SVG. No fonts, scripts or external assets.
 */
export function trendChartSvg(
	series: readonly TrendSeries[],
	escape: (text: string) => string,
): string {
	if (!series.length) return '';
	const panelW = 340;
	const panelH = 96;
	const cols = Math.min(3, series.length);
	const rowsN = Math.ceil(series.length / cols);
	const width = cols * panelW;
	const height = rowsN * panelH;
	const plotX = 10;
	const plotY = 24;
	const plotW = panelW - 30;
	const plotH = panelH - 44;
	const panels = series.map((s, i) => {
		const x0 = (i % cols) * panelW;
		const y0 = Math.floor(i / cols) * panelH;
		const present = s.values.filter((v): v is number => v !== null);
		const lo = Math.min(...present);
		const hi = Math.max(...present);
		const span = hi - lo || 1;
		const n = s.values.length;
		const px = (j: number): number => x0 + plotX + (n === 1 ? plotW : (j / (n - 1)) * plotW);
		const py = (v: number): number =>
			y0 + plotY + (hi === lo ? plotH / 2 : plotH - ((v - lo) / span) * plotH);
		// Gaps (runs without the metric) break the line into segments.
		const segments: string[] = [];
		let seg: string[] = [];
		s.values.forEach((v, j) => {
			if (v === null) {
				if (seg.length) segments.push(seg.join(' '));
				seg = [];
			} else seg.push(`${px(j).toFixed(1)},${py(v).toFixed(1)}`);
		});
		if (seg.length) segments.push(seg.join(' '));
		const last = s.values[n - 1];
		const delta = lastChange(s.values);
		const worse =
			delta !== null && delta !== 0 && (s.direction === 'lower' ? delta > 0 : delta < 0);
		const colour = worse ? '#c62828' : '#1565c0';
		const name = s.metric.length > 44 ? `…${s.metric.slice(-43)}` : s.metric;
		const title = `${s.metric}: ${s.values.map((v) => (v === null ? '—' : fmt(v))).join(', ')}`;
		return (
			`<g><title>${escape(title)}</title>` +
			`<rect x="${x0 + 2}" y="${y0 + 2}" width="${panelW - 4}" height="${panelH - 4}" rx="4" fill="#fff" stroke="#e0e0e0"/>` +
			`<text x="${x0 + plotX}" y="${y0 + 16}" font-size="11" fill="#424242">${escape(name)}</text>` +
			segments
				.map((p) =>
					p.includes(' ')
						? `<polyline points="${p}" fill="none" stroke="${colour}" stroke-width="1.6"/>`
						: `<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="1.8" fill="${colour}"/>`,
				)
				.join('') +
			(last !== null
				? `<circle cx="${px(n - 1).toFixed(1)}" cy="${py(last).toFixed(1)}" r="3" fill="${colour}"/>`
				: '') +
			`<text x="${x0 + plotX}" y="${y0 + panelH - 8}" font-size="10" fill="#757575">${n} runs · min ${fmt(lo)} · max ${fmt(hi)}</text>` +
			`<text x="${x0 + panelW - 12}" y="${y0 + 16}" font-size="12" text-anchor="end" fill="${colour}">${last === null ? '—' : fmt(last)}${delta !== null && delta !== 0 ? ` (${delta > 0 ? '+' : ''}${fmt(delta)})` : ''}</text></g>`
		);
	});
	return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Metric trends" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">${panels.join('')}</svg>`;
}

/** Which earlier run(s) the gate compares against. */
export type BaselineMode = 'last' | 'median';

/** A baseline chosen from history, with what it is made of (for the reports). */
export interface HistoryBaseline {
	baseline: GateSummaryLike;
	/** Runs the baseline was built from (0 when the history is empty). */
	runs: number;
	/** Plain-words description, e.g. `median of the last 7 runs`. */
	description: string;
}

/**
 * The baseline from a history of earlier run summaries (oldest first): `last` = the latest run,
 * `median` = each metric's median over the last `k` runs (default 7). A median baseline has no
 * rows, so the gate runs its summary-only tests (two-proportion z-test for rates, tolerance for
 * means); one unusually good or bad night no longer moves the bar.
 */
export function baselineFromHistory(
	history: unknown,
	mode: BaselineMode = 'last',
	k = 7,
): HistoryBaseline {
	const runs = normaliseHistory(history);
	if (!runs.length) return { baseline: { metrics: {} }, runs: 0, description: 'no earlier run' };
	if (mode === 'last') {
		return { baseline: runs[runs.length - 1], runs: 1, description: 'the last run' };
	}
	const m = medianBaseline(runs, k);
	return {
		baseline: { metrics: m.metrics },
		runs: m.runs,
		description: `median of the last ${m.runs} run${m.runs === 1 ? '' : 's'}`,
	};
}
