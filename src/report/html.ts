/**
 * The HTML report: one self-contained page (no scripts, fonts or external assets; a strict
 * Content-Security-Policy) with the summary, gate, metrics, safety, an inline SVG root-cause
 * chart, trends and worst rows. All user text is HTML-escaped.
 */

import { trendChartSvg } from '../history';
import {
	AGREEMENT_HEAD,
	agreementLines,
	firstErrors,
	fmt,
	fmtDelta,
	fmtP,
	gateLines,
	headline,
	incompleteCount,
	keyMetrics,
	manifestShort,
	pct,
	redactSecrets,
	type ReportInput,
	type ReportRootCause,
	type ReportSummaryLike,
	runFacts,
	runVerdict,
	SAFETY_HEAD,
	scoredOf,
	safetyLines,
	safeUrl,
	trends,
	truncate,
	unfitJudges,
	unmeasuredCount,
	worstRows,
} from './model';

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

// Risk and safety section: one table row per harm category; empty without severity figures.
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

/** Self-contained HTML report: summary, root-cause chart, regressions and worst rows. */
export function htmlReport(input: ReportInput): string {
	const title = headline(input);
	const url = safeUrl(input.runUrl);
	const unmeasured = unmeasuredCount(input.summary);
	const metricRows = keyMetrics(input.summary)
		.map(
			([name, m]) =>
				`<tr><td>${h(name)}</td><td class="num">${fmt(m.value)}</td><td>${m.ci ? `${fmt(m.ci.low)}–${fmt(m.ci.high)}` : '—'}</td><td class="num">${scoredOf(m, input.summary.rows)}</td><td class="num">${m.notApplicable ?? 0}</td><td class="num">${m.errored ?? 0}</td></tr>`,
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
							.join(
								'',
							)}</ul>${w.toolCalls.length ? `<p><b>Failing tool calls:</b></p><ul class="calls">${w.toolCalls.map((c) => `<li><code>${h(c)}</code></li>`).join('')}</ul>` : ''}</article>`,
				)
				.join('\n')}</section>`
		: '';
	const causes = input.summary.rootCauses ?? [];
	const incompleteHtml =
		runVerdict(input) === 'INCOMPLETE'
			? `<section class="alert"><h2>INCOMPLETE: ${(() => {
					const why = incompleteCount(input) === 0 ? manifestShort(input) : null;
					return why ? h(why) : `${incompleteCount(input)} rows could not be judged`;
				})()}</h2><p>The figures below cover only the judged rows: this run is not green.</p>${(() => {
					const errs = firstErrors(input);
					return errs.length
						? `<p><b>First errors</b></p><ul>${errs.map((e) => `<li>${h(e)}</li>`).join('')}</ul>`
						: '';
				})()}</section>`
			: '';
	const facts = runFacts(input);
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
<table><thead><tr><th>metric</th><th>value</th><th>95% CI</th><th>rows scored</th><th>not applicable</th><th>errored</th></tr></thead><tbody>
${metricRows}
</tbody></table>${unmeasured ? `<p class="muted">${unmeasured} run metrics without measured rows are not listed.</p>` : ''}</section>
${safetyHtml(input.summary)}
<section><h2>Root causes</h2>${rootCauseChart(causes)}</section>
${trendsHtml(input)}
${agreementHtml(input)}
${worstHtml}
</body></html>
`;
}

// Judge agreement with reviewers: one line per judge and version; judges not fit named below.
function agreementHtml(input: ReportInput): string {
	const lines = agreementLines(input.agreement);
	if (!lines.length) return '';
	const rows = lines
		.map(
			(l) =>
				`<tr><td>${h(l.judge)}</td><td>${h(l.version)}</td><td class="num">${l.n}</td><td>${h(l.kappa)}</td><td class="num">${h(l.accuracy)}</td><td class="num">${h(l.fpr)}</td><td class="num">${h(l.fnr)}</td><td>${h(l.verdict.replace('_', ' '))}</td></tr>`,
		)
		.join('\n');
	const unfit = unfitJudges(input.agreement)
		.map((l) => `<li>${h(l.message)}</li>`)
		.join('');
	return `<section><h2>Judge agreement with reviewers</h2>
<table><thead><tr>${AGREEMENT_HEAD.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>
${rows}
</tbody></table>${unfit ? `<ul>${unfit}</ul>` : ''}</section>`;
}

// Trends section: one small chart per metric; empty without history.
function trendsHtml(input: ReportInput): string {
	const trend = trends(input);
	if (!trend.length) return '';
	return `<section><h2>Trends (last ${trend[0].values.length} runs)</h2>${trendChartSvg(trend, h)}</section>`;
}
