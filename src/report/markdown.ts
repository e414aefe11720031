/**
 * The Markdown report: headline, coverage and spend facts, the gate table, metrics, safety, root
 * causes, trends and worst rows with rationales. User text is escaped (no raw HTML, no pipes
 * breaking table cells).
 */

import type { GateResult } from '../gate';
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
	mdCell,
	mdText,
	pct,
	type ReportInput,
	runFacts,
	runVerdict,
	SAFETY_HEAD,
	scoredOf,
	safetyLines,
	safeUrl,
	trendLine,
	trends,
	unfitJudges,
	unmeasuredCount,
	worstRows,
} from './model';

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
		'| metric | value | 95% CI | rows scored | not applicable | errored |',
		'| --- | ---: | --- | ---: | ---: | ---: |',
	);
	for (const [name, m] of keyMetrics(input.summary)) {
		const ci = m.ci ? `${fmt(m.ci.low)}–${fmt(m.ci.high)}` : '—';
		out.push(
			`| ${mdCell(name)} | ${fmt(m.value)} | ${ci} | ${scoredOf(m, input.summary.rows)} | ${m.notApplicable ?? 0} | ${m.errored ?? 0} |`,
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
	const agreement = agreementLines(input.agreement);
	if (agreement.length) {
		out.push('', '## Judge agreement with reviewers', '', `| ${AGREEMENT_HEAD.join(' | ')} |`);
		out.push('| --- | --- | ---: | --- | ---: | ---: | ---: | --- |');
		for (const l of agreement)
			out.push(
				`| ${mdCell(l.judge)} | ${mdCell(l.version)} | ${l.n} | ${l.kappa} | ${l.accuracy} | ${l.fpr} | ${l.fnr} | ${l.verdict.replace('_', ' ')} |`,
			);
		for (const l of unfitJudges(input.agreement)) out.push('', `- ${mdText(l.message)}`);
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
			if (w.toolCalls.length) {
				out.push('', '**Failing tool calls:**', '');
				for (const c of w.toolCalls) out.push(`- ${mdText(c)}`);
			}
			out.push('');
		}
	}
	return `${out.join('\n').trimEnd()}\n`;
}

function markdownCoverage(input: ReportInput): string[] {
	const out: string[] = [];
	if (runVerdict(input) === 'INCOMPLETE') {
		const why = incompleteCount(input) === 0 ? manifestShort(input) : null;
		out.push(
			why
				? `> **INCOMPLETE**: ${mdText(why)}. This run is not green.`
				: `> **INCOMPLETE**: ${incompleteCount(input)} rows could not be judged. The figures below cover only the judged rows: this run is not green.`,
			'',
		);
		const errs = firstErrors(input);
		if (errs.length) out.push('First errors:', '', ...errs.map((e) => `- ${mdText(e)}`), '');
	}
	const facts = runFacts(input);
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
