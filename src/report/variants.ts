/**
 * Reports of a variant comparison (src/variants): Markdown, a Slack Block Kit message, a
 * self-contained HTML page and JUnit XML, side by side over one model. Each shows the verdict
 * line of every pair of variants, a variants x metrics matrix (mean, interval, coverage), the
 * pairwise win rates, Bradley-Terry strengths, the judge's position consistency, cost and latency,
 * and the requests whose verdicts differ most. User text is escaped for its format and scrubbed
 * of anything shaped like a credential.
 */
import type { VariantComparison } from '../variants';
import { escapeHtml } from './html';
import { fmt, mdCell, redactSecrets, truncate } from './model';
import type { SlackBlock, SlackMessage } from './slack';

/** What a comparison report is given. */
export interface VariantsReportInput {
	comparison: VariantComparison;
	title?: string;
}

const p3 = (p: number | null | undefined): string =>
	p === null || p === undefined ? '—' : p < 0.001 ? '<0.001' : p.toPrecision(2);
const pc = (x: number | null | undefined): string =>
	x === null || x === undefined ? '—' : `${Math.round(x * 100)}%`;

function verdictText(r: { a: string; b: string; verdict: string }): string {
	if (r.verdict === 'b_better') return `${r.b} better`;
	if (r.verdict === 'a_better') return `${r.a} better`;
	return r.verdict.replace(/_/g, ' ');
}

/** The report's tables as plain cells, shared by every format. */
export interface VariantsModel {
	title: string;
	lines: string[];
	warnings: string[];
	matrix: { head: string[]; rows: string[][] };
	pairwise: { head: string[]; rows: string[][] };
	rankings: { criterion: string; head: string[]; rows: string[][] }[];
	health: { head: string[]; rows: string[][] };
	cost: { head: string[]; rows: string[][] };
	differ: { head: string[]; rows: string[][] };
	accounting: string;
}

/** The shared model of the comparison's reports. */
export function variantsModel(input: VariantsReportInput): VariantsModel {
	const c = input.comparison;
	const vs = c.variants;
	const pointVariants = vs.filter((v) => c.metrics.some((m) => m.byVariant[v]));
	const matrixRows = c.metrics.map((m) => [
		`${m.metric}${m.kind === 'proportion' ? ' (pass rate)' : ''}`,
		...pointVariants.map((v) => {
			const x = m.byVariant[v];
			if (!x || x.value === null)
				return `— (${x?.coverage.judged ?? 0}/${x?.coverage.of ?? c.requests})`;
			const iv = x.interval ? ` [${fmt(x.interval.low)}, ${fmt(x.interval.high)}]` : '';
			return `${fmt(x.value)}${iv} (${x.coverage.judged}/${x.coverage.of})`;
		}),
	]);
	const pairwiseRows = c.pairwise.map((r) => [
		r.criterion,
		`${r.b} vs ${r.a}`,
		`${r.losses}/${r.ties}/${r.wins}`,
		r.rate === null
			? '—'
			: `${pc(1 - r.rate)}${r.interval ? ` [${pc(1 - r.interval.high)}, ${pc(1 - r.interval.low)}]` : ''}`,
		p3(r.sign.pValue),
		p3(r.pAdjusted),
		String(r.positionInconsistent),
		`${r.coverage.judged}/${r.coverage.of}`,
		verdictText(r),
	]);
	const rankings = c.rankings.map((r) => ({
		criterion: r.criterion,
		head: ['variant', 'strength (log)', 'interval', ...r.variants.map((v) => `wins vs ${v}`)],
		rows: [...r.variants]
			.sort((x, y) => r.strengths[y].strength - r.strengths[x].strength)
			.map((v) => [
				v,
				fmt(r.strengths[v].strength),
				`[${fmt(r.strengths[v].low)}, ${fmt(r.strengths[v].high)}]`,
				...r.variants.map((w) => (v === w ? '—' : `${fmt(r.wins[v][w])}/${r.games[v][w]}`)),
			]),
	}));
	const healthRows = c.judgeHealth.map((h) => [
		h.criterion,
		h.models.join(', ') || '—',
		h.consistency === null ? '—' : `${pc(h.consistency)} (${h.consistent}/${h.judged})`,
		String(h.flipped),
		h.firstSlotShare === null ? '—' : `${pc(h.firstSlotShare)} (p ${p3(h.slotTest.pValue)})`,
	]);
	const costRows = vs
		.filter((v) => c.cost[v] && (c.cost[v].costUsd.n > 0 || c.cost[v].latencySeconds.n > 0))
		.map((v) => {
			const k = c.cost[v];
			const n = c.rows.byVariant[v] ?? 0;
			return [
				v,
				k.costUsd.mean === null ? '—' : `$${k.costUsd.mean.toPrecision(3)} (${k.costUsd.n}/${n})`,
				k.latencySeconds.mean === null
					? '—'
					: `${fmt(k.latencySeconds.mean, 2)} s (${k.latencySeconds.n}/${n})`,
			];
		});
	const metricNames = c.metrics.map((m) => m.metric);
	const differRows = c.disagreements.map((d) => [
		truncate(d.request ?? d.key, 80),
		...pointVariants.map(
			(v) =>
				metricNames
					.map((m) =>
						d.values[v]?.[m] === undefined || d.values[v]?.[m] === null
							? null
							: `${m} ${fmt(d.values[v][m])}`,
					)
					.filter(Boolean)
					.join(', ') || '—',
		),
	]);
	const accounting = `${c.rows.total} rows: ${c.rows.pointwise} pointwise, ${c.rows.pairwise} pairwise, ${c.unpaired.length} unpaired, ${c.duplicates.length} duplicated, ${c.unassigned.length} without a variant; ${c.requests} requests.`;
	return {
		title: input.title ?? `Variants: ${vs.join(', ')}`,
		lines: c.summary.map((s) => s.line),
		warnings: c.warnings,
		matrix: { head: ['metric', ...pointVariants], rows: matrixRows },
		pairwise: {
			head: [
				'criterion',
				'pair',
				'wins/ties/losses',
				'win rate',
				'p',
				'p (Holm)',
				'flipped',
				'coverage',
				'verdict',
			],
			rows: pairwiseRows,
		},
		rankings,
		health: {
			head: ['criterion', 'judge', 'position consistency', 'flipped', 'first slot picked'],
			rows: healthRows,
		},
		cost: { head: ['variant', 'cost per request', 'latency'], rows: costRows },
		differ: { head: ['request', ...pointVariants], rows: differRows },
		accounting,
	};
}

function mdTable(head: string[], rows: string[][]): string[] {
	return [
		`| ${head.map(mdCell).join(' | ')} |`,
		`| ${head.map(() => '---').join(' | ')} |`,
		...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`),
	];
}

/** The comparison as Markdown. */
export function variantsMarkdown(input: VariantsReportInput): string {
	const m = variantsModel(input);
	const out: string[] = [`# ${mdCell(m.title)}`, ''];
	for (const l of m.lines) out.push(`- ${mdCell(l)}`);
	out.push('', m.accounting);
	if (m.warnings.length)
		out.push('', '**Warnings**', '', ...m.warnings.map((w) => `- ${mdCell(w)}`));
	if (m.matrix.rows.length)
		out.push(
			'',
			'## Metrics (mean [interval] (judged/requests))',
			'',
			...mdTable(m.matrix.head, m.matrix.rows),
		);
	if (m.pairwise.rows.length)
		out.push(
			'',
			'## Pairwise (from the second-named side)',
			'',
			...mdTable(m.pairwise.head, m.pairwise.rows),
		);
	for (const r of m.rankings)
		out.push('', `## Bradley-Terry: ${mdCell(r.criterion)}`, '', ...mdTable(r.head, r.rows));
	if (m.health.rows.length)
		out.push('', '## Judge position consistency', '', ...mdTable(m.health.head, m.health.rows));
	if (m.cost.rows.length)
		out.push('', '## Cost and latency', '', ...mdTable(m.cost.head, m.cost.rows));
	if (m.differ.rows.length)
		out.push(
			'',
			'## Requests whose verdicts differ most',
			'',
			...mdTable(m.differ.head, m.differ.rows),
		);
	return `${out.join('\n')}\n`;
}

function slackText(text: string): string {
	return redactSecrets(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function codeTable(head: string[], rows: string[][]): string {
	const all = [head, ...rows];
	const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
	return all.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ')).join('\n');
}

/** The comparison as a Slack Block Kit message (with the plain `text` fallback). */
export function variantsSlack(input: VariantsReportInput): SlackMessage {
	const m = variantsModel(input);
	const blocks: SlackBlock[] = [
		{
			type: 'header',
			text: { type: 'plain_text', text: truncate(redactSecrets(m.title), 150), emoji: false },
		},
		{
			type: 'section',
			text: {
				type: 'mrkdwn',
				text: truncate(
					m.lines.map((l) => `• ${slackText(l)}`).join('\n') || 'Nothing to compare.',
					3000,
				),
			},
		},
	];
	if (m.matrix.rows.length)
		blocks.push({
			type: 'section',
			text: {
				type: 'mrkdwn',
				text: truncate(`\`\`\`${slackText(codeTable(m.matrix.head, m.matrix.rows))}\`\`\``, 3000),
			},
		});
	if (m.health.rows.length)
		blocks.push({
			type: 'section',
			text: {
				type: 'mrkdwn',
				text: truncate(
					`*Judge position consistency*\n${m.health.rows.map((r) => `• ${slackText(`${r[0]}: ${r[2]}, ${r[3]} flipped, first slot ${r[4]}`)}`).join('\n')}`,
					3000,
				),
			},
		});
	if (m.warnings.length)
		blocks.push({
			type: 'context',
			elements: [{ type: 'mrkdwn', text: truncate(m.warnings.map(slackText).join('\n'), 3000) }],
		});
	return { text: truncate(redactSecrets(`${m.title}: ${m.lines.join(' | ')}`), 3000), blocks };
}

function htmlTable(head: string[], rows: string[][]): string {
	const e = (t: string) => escapeHtml(redactSecrets(t));
	return `<table><thead><tr>${head.map((x) => `<th>${e(x)}</th>`).join('')}</tr></thead><tbody>${rows
		.map((r) => `<tr>${r.map((x) => `<td>${e(x)}</td>`).join('')}</tr>`)
		.join('')}</tbody></table>`;
}

/** The comparison as one self-contained HTML page (no scripts, no external assets). */
export function variantsHtml(input: VariantsReportInput): string {
	const m = variantsModel(input);
	const e = (t: string) => escapeHtml(redactSecrets(t));
	const section = (title: string, body: string) => `<h2>${e(title)}</h2>${body}`;
	const parts = [
		`<h1>${e(m.title)}</h1>`,
		`<ul>${m.lines.map((l) => `<li>${e(l)}</li>`).join('')}</ul>`,
		`<p>${e(m.accounting)}</p>`,
		m.warnings.length
			? `<ul class="warn">${m.warnings.map((w) => `<li>${e(w)}</li>`).join('')}</ul>`
			: '',
		m.matrix.rows.length
			? section(
					'Metrics: mean [interval] (judged/requests)',
					htmlTable(m.matrix.head, m.matrix.rows),
				)
			: '',
		m.pairwise.rows.length
			? section(
					'Pairwise (from the second-named side)',
					htmlTable(m.pairwise.head, m.pairwise.rows),
				)
			: '',
		...m.rankings.map((r) => section(`Bradley-Terry: ${r.criterion}`, htmlTable(r.head, r.rows))),
		m.health.rows.length
			? section('Judge position consistency', htmlTable(m.health.head, m.health.rows))
			: '',
		m.cost.rows.length ? section('Cost and latency', htmlTable(m.cost.head, m.cost.rows)) : '',
		m.differ.rows.length
			? section('Requests whose verdicts differ most', htmlTable(m.differ.head, m.differ.rows))
			: '',
	];
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>${e(m.title)}</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.warn{color:#c62828}</style></head><body>${parts.join('')}</body></html>`;
}

function xml(text: string): string {
	return redactSecrets(text)
		.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');
}

/**
 * JUnit XML: one testcase per metric and pairwise criterion. A case fails when a variant is
 * significantly worse than the baseline (the first variant) on it, is an error when a verdict
 * could not be reached for missing rows, and passes otherwise; its output is every pair's note.
 */
export function variantsJunit(input: VariantsReportInput): string {
	const c = input.comparison;
	const base = c.variants[0];
	const cases: string[] = [];
	let failures = 0;
	let errors = 0;
	const names = [
		...c.metrics.map((m) => ({
			name: m.metric,
			results: c.pairs.filter((p) => p.metric === m.metric),
		})),
		...[...new Set(c.pairwise.map((p) => p.criterion))].map((k) => ({
			name: `${k} (pairwise)`,
			results: c.pairwise.filter((p) => p.criterion === k),
		})),
	];
	for (const { name, results } of names) {
		const worse = results.filter(
			(r) =>
				(r.a === base && r.verdict === 'a_better') || (r.b === base && r.verdict === 'b_better'),
		);
		const incomplete = results.filter((r) => r.verdict === 'incomplete');
		const notes = results
			.map((r) => `${r.b} vs ${r.a}: ${verdictText(r)}. ${r.note}`.trim())
			.join('\n');
		let body = `<system-out>${xml(notes)}</system-out>`;
		if (worse.length) {
			failures++;
			const who = worse.map((r) => (r.a === base ? r.b : r.a)).join(', ');
			body = `<failure message="${xml(`${who} worse than ${base} on ${name}`)}">${xml(notes)}</failure>`;
		} else if (incomplete.length) {
			errors++;
			body = `<error message="${xml(`not decided on ${name}: verdicts missing`)}">${xml(notes)}</error>`;
		}
		cases.push(`<testcase classname="variants" name="${xml(name)}">${body}</testcase>`);
	}
	return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="compare-variants" tests="${cases.length}" failures="${failures}" errors="${errors}">${cases.join('')}</testsuite></testsuites>\n`;
}
