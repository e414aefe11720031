/**
 * The Slack report: a Block Kit message for n8n's Slack node (headline, gate verdict, key metrics,
 * safety, root causes, regressions, trends and worst rows) within Slack's documented limits, with
 * a plain-text fallback. User text is escaped for mrkdwn.
 */

import type { GateResult, GateRowResult } from '../gate';
import {
	agreementLines,
	coverageFacts,
	firstErrors,
	fmt,
	fmtDelta,
	fmtP,
	headline,
	incompleteCount,
	keyMetrics,
	manifestShort,
	pct,
	redactSecrets,
	regressions,
	type ReportInput,
	runFacts,
	runVerdict,
	safetyLines,
	safeUrl,
	trendLine,
	trends,
	truncate,
	unfitJudges,
	worstRows,
} from './model';

// Change since the baseline, from the gate table, per metric name.
function deltas(gate: GateResult | undefined): Map<string, GateRowResult> {
	return new Map((gate?.table ?? []).map((r) => [r.metric, r]));
}

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
	const verdict = runVerdict(input);
	// Slack notifies on a mention in a block people see; the top-level text is only the
	// notification fallback once blocks are present, so the mention goes in both.
	const alert =
		(verdict === 'INCOMPLETE' || verdict === 'REGRESSED') &&
		(input.mention === 'here' || input.mention === 'channel')
			? `<!${input.mention}> `
			: '';
	if (verdict === 'INCOMPLETE') {
		const c = coverageFacts(input);
		const errs = firstErrors(input);
		const why = incompleteCount(input) === 0 ? manifestShort(input) : null;
		const lines = [
			why
				? `${alert}:warning: *Incomplete*: ${slackText(why, 200)}. This run is not green.`
				: `${alert}:warning: *Incomplete*: ${c ? `${c.missing} of ${c.of}` : incompleteCount(input)} rows could not be judged${c ? ` (coverage ${pct(c.share)}, minimum ${pct(c.minimum)})` : ''}. The figures below cover only the judged rows: this run is not green.`,
		];
		if (errs.length)
			lines.push(`*First errors*\n${errs.map((e) => `• ${slackText(e, 400)}`).join('\n')}`);
		blocks.push({ type: 'section', text: slackMrkdwn(lines.join('\n')) });
	} else if (input.gate) {
		const reg = regressions(input.gate);
		const status = reg.length
			? `${alert}:red_circle: *Regressed* on ${reg.map((r) => `\`${slackText(r.metric, 200)}\``).join(', ')}`
			: ':large_green_circle: *OK*: no metric regressed against the baseline';
		blocks.push({ type: 'section', text: slackMrkdwn(status) });
	}
	const facts = runFacts(input);
	if (facts.length) blocks.push({ type: 'section', text: slackMrkdwn(facts.join('\n')) });
	// Judges whose agreement with reviewers fell below the fitness rule are named up front.
	const unfit = unfitJudges(input.agreement);
	if (unfit.length) {
		const lines = unfit.map(
			(l) =>
				`• \`${slackText(l.judge, 100)}\` (${slackText(l.version, 120)}): kappa ${slackText(l.kappa, 60)} on ${l.n} labels`,
		);
		blocks.push({
			type: 'section',
			text: slackMrkdwn(
				`:warning: *Judge${unfit.length > 1 ? 's' : ''} below the agreement rule with reviewers*: do not gate on ${unfit.length > 1 ? 'them' : 'it'} until the prompt or threshold is fixed\n${lines.join('\n')}`,
			),
		});
	}
	if (url)
		blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${url}|Open the run>` }] });

	// Key metrics only: names with no measured or errored row say nothing in a chat message. Each
	// carries its coverage, so a rate over the scored rows never reads as the run's.
	const change = deltas(input.gate);
	const fields = keyMetrics(input.summary).map(([name, m]) => {
		const d = change.get(name);
		const since =
			d && d.delta !== null
				? ` · ${fmtDelta(d.delta)} since baseline${d.verdict === 'regressed' ? ' :red_circle:' : ''}`
				: '';
		const passing = m.passRate !== undefined ? ` · ${pct(m.passRate)} pass` : '';
		return slackMrkdwn(
			`*${slackText(name, 300)}*\n${fmt(m.value)}${m.ci ? ` (${fmt(m.ci.low)}–${fmt(m.ci.high)})` : ''}${since}${passing} · ${m.coverage}`,
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

	const agreement = agreementLines(input.agreement);
	if (agreement.length) {
		const lines = agreement.map(
			(l) =>
				`• \`${slackText(l.judge, 100)}\` ${slackText(l.version, 120)}: kappa ${slackText(l.kappa, 60)} · accuracy ${l.accuracy} · FPR ${l.fpr} · FNR ${l.fnr} · ${l.n} labels · ${l.verdict === 'fit' ? 'fit' : l.verdict === 'not_fit' ? '*not fit*' : 'too few labels'}`,
		);
		blocks.push({
			type: 'section',
			text: slackMrkdwn(`*Judge agreement with reviewers*\n${lines.join('\n')}`),
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
			const calls = w.toolCalls.length
				? `\n_Failing tool calls:_\n${w.toolCalls.map((c) => `• ${slackText(truncate(c, 250))}`).join('\n')}`
				: '';
			blocks.push({
				type: 'section',
				text: slackMrkdwn(`*${slackText(w.id)}* — ${slackText(w.request, 300)}\n${fails}${calls}`),
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
	const unfitNames = unfit.map((l) => l.judge).filter((j, i, a) => a.indexOf(j) === i);
	const fallback = `${title}${reg2.length ? ` — regressed: ${reg2.join(', ')}` : ''}${unfitNames.length ? ` — judges below the agreement rule: ${unfitNames.join(', ')}` : ''}${errs.length ? ` — first error: ${errs[0]}` : ''}${url ? ` — ${url}` : ''}`;
	return { text: `${alert}${slackText(redactSecrets(fallback))}`, blocks };
}
