import {
	NodeConnectionTypes,
	NodeOperationError,
	type IBinaryKeyData,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import type { GateResult } from '../../src/gate';
import {
	htmlReport,
	junitReport,
	markdownReport,
	runVerdict,
	slackMessage,
	ticketPayload,
	ticketPlan,
	type ReportAgreementLike,
	type ReportInput,
	type ReportRow,
	type ReportSummaryLike,
	variantsHtml,
	variantsJunit,
	variantsMarkdown,
	variantsSlack,
} from '../../src/report';
import type { VariantComparison } from '../../src/variants';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { allPaired, jsonOption, rowListOption } from '../shared/collect';

type Part = 'slack' | 'markdown' | 'ticket' | 'tickets' | 'html' | 'junit';

function isSummary(v: unknown): v is ReportSummaryLike {
	return !!v && typeof v === 'object' && typeof (v as { metrics?: unknown }).metrics === 'object';
}

// The Run History option: an array of earlier summaries, or nothing when left empty.
function historyOption(ctx: IExecuteFunctions, raw: unknown): unknown[] | undefined {
	const value = jsonOption<unknown>(ctx, 'Run History', raw, 'the run history');
	if (value === undefined || value === null || value === '') return undefined;
	if (!Array.isArray(value)) {
		throw new NodeOperationError(ctx.getNode(), 'Run History must be an array of run summaries', {
			description:
				'Set it to an expression returning an array, e.g. {{ $json.history }}, oldest run first.',
		});
	}
	return value;
}

/**
 * Eval Report: from a run summary (and optionally a gate result and the failing rows) builds a
 * Slack message, Markdown, a ticket payload, one ticket per root cause, a self-contained HTML
 * report and JUnit XML. `verdict` on the output says OK, REGRESSED or INCOMPLETE.
 */
export class EvalReport implements INodeType {
	static readonly search: NodeSearch = {
		families: ['run'],
		words: ['report', 'slack', 'markdown', 'html', 'junit', 'ticket', 'verdict'],
	};

	description: INodeTypeDescription = {
		displayName: 'Eval Report',
		name: 'evalReport',
		icon: iconFor('report'),
		group: ['transform'],
		version: 1,
		subtitle: "={{ ($parameter.formats || []).join(', ') }}",
		description:
			'Turn an evaluation summary into a Slack message, Markdown, a ticket, an HTML report and JUnit XML',
		defaults: { name: 'Eval Report' },
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName:
					'Input: the item from Eval Aggregate or Regression Gate. Scored rows among the input items are used as the worst rows; an item from Judge Agreement on review labels adds the agreement section and names the judges below the fitness rule.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Title',
				name: 'title',
				type: 'string',
				default: 'Nightly RAG evaluation',
			},
			{
				displayName: 'Formats',
				name: 'formats',
				type: 'multiOptions',
				default: ['slack', 'markdown', 'ticket', 'html', 'junit'],
				options: [
					{ name: 'HTML Report (Binary)', value: 'html' },
					{ name: 'JUnit XML (Binary)', value: 'junit' },
					{ name: 'Markdown', value: 'markdown' },
					{ name: 'Slack Message', value: 'slack' },
					{ name: 'Ticket (GitHub / Jira / Linear)', value: 'ticket' },
					{
						name: 'Tickets per Root Cause',
						value: 'tickets',
						description:
							'One ticket per failing cause with labels to find it again, a comment for an open one and the comment that closes a recovered cause',
					},
				],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Run URL',
						name: 'runUrl',
						type: 'string',
						default: '',
						description: 'Link shown in the reports, e.g. the execution URL',
					},
					{
						displayName: 'Mention On Alert',
						name: 'mention',
						type: 'options',
						default: 'none',
						options: [
							{ name: 'Nobody', value: 'none' },
							{ name: '@here', value: 'here' },
							{ name: '@channel', value: 'channel' },
						],
						description:
							'Who the Slack message alerts when the run is REGRESSED or INCOMPLETE (in the message people see and in its notification text); an OK run alerts nobody',
					},
					{
						displayName: 'Scored Rows',
						name: 'rows',
						type: 'json',
						default: '',
						placeholder: "={{ $('Relevance').all().map((item) => item.json) }}",
						description:
							'Scored rows for worst rows, first errors and per-cause tickets, when they are not among the input items',
					},
					{ displayName: 'Worst Rows Shown', name: 'maxWorstRows', type: 'number', default: 10 },
					{
						displayName: 'HTML and JUnit Also as Text',
						name: 'textInJson',
						type: 'boolean',
						default: false,
						description:
							'Whether to also put the HTML report and JUnit XML as text in the JSON (html, junit), e.g. to return them from Respond to Webhook to a CI job',
					},
					{
						displayName: 'Run History',
						name: 'history',
						type: 'json',
						default: '',
						placeholder: '={{ $json.history }}',
						description:
							'Earlier run summaries, oldest first (e.g. the last 30 kept in workflow static data with appendHistory): adds a Trends section, an SVG chart in HTML and a sparkline per metric in Slack and Markdown. An input item with a "history" array works too.',
					},
					{
						displayName: 'Trend Runs',
						name: 'trendRuns',
						type: 'number',
						default: 30,
						typeOptions: { minValue: 2 },
						description: 'How many runs the trends show, this one included',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		let summary: ReportSummaryLike | undefined;
		let gate: GateResult | undefined;
		const rows: ReportRow[] = [];
		let itemHistory: unknown[] | undefined;
		let agreement: ReportAgreementLike | undefined;
		let comparison: VariantComparison | undefined;
		for (const item of items) {
			const j = item.json;
			// Compare Variants' comparison is reported on its own (src/report/variants.ts).
			if (j.kind === 'variantComparison' && Array.isArray(j.variants)) {
				comparison ??= j as unknown as VariantComparison;
				continue;
			}
			// Judge Agreement on review labels (Labels From: Review Labels) joins the report.
			if (j.kind === 'reviewAgreement' && Array.isArray(j.judges)) {
				agreement = j as unknown as ReportAgreementLike;
				continue;
			}
			if (Array.isArray(j.history) && !itemHistory) itemHistory = j.history as unknown[];
			if (j.gate && isSummary(j.summary)) {
				gate = j.gate as unknown as GateResult;
				summary = j.summary as unknown as ReportSummaryLike;
			} else if (isSummary(j) && !summary) summary = j;
			else if (j.eval && typeof j.eval === 'object') rows.push(j as unknown as ReportRow);
		}
		if (comparison) return reportVariants(this, comparison, items.length);
		// Judge Agreement alone (a calibration run) reports with an empty summary.
		if (!summary && agreement) summary = { metrics: {} };
		if (!summary) {
			throw new NodeOperationError(this.getNode(), 'No evaluation summary among the input items', {
				description: 'Connect Eval Aggregate (or Regression Gate) to this node.',
			});
		}
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		const extra = rowListOption(
			this,
			'Scored Rows',
			o.rows,
			'the scored rows',
			"Set Options -> Scored Rows to an expression returning an array, e.g. {{ $('Relevance').all().map((item) => item.json) }}.",
		);
		for (const r of (extra as unknown[] | undefined) ?? [])
			if (r && typeof r === 'object' && 'eval' in r) rows.push(r as ReportRow);
		const input: ReportInput = {
			summary,
			gate,
			rows,
			title: this.getNodeParameter('title', 0, 'Nightly RAG evaluation') as string,
			runUrl: (o.runUrl as string) || undefined,
			maxWorstRows: (o.maxWorstRows as number | undefined) ?? 10,
			history: historyOption(this, o.history) ?? itemHistory,
			trendRuns: (o.trendRuns as number | undefined) ?? 30,
			mention: o.mention === 'here' || o.mention === 'channel' ? o.mention : 'none',
			agreement,
		};
		const formats = this.getNodeParameter('formats', 0, []) as Part[];
		const json: IDataObject = {};
		const binary: IBinaryKeyData = {};
		if (formats.includes('slack')) json.slack = slackMessage(input) as unknown as IDataObject;
		if (formats.includes('markdown')) json.markdown = markdownReport(input);
		if (formats.includes('ticket')) json.ticket = ticketPayload(input) as unknown as IDataObject;
		if (formats.includes('tickets')) json.tickets = ticketPlan(input) as unknown as IDataObject;
		const asText = o.textInJson === true;
		if (formats.includes('html')) {
			const html = htmlReport(input);
			if (asText) json.html = html;
			binary.html = await this.helpers.prepareBinaryData(
				Buffer.from(html, 'utf8'),
				'eval-report.html',
				'text/html',
			);
		}
		if (formats.includes('junit')) {
			const xml = junitReport(input);
			if (asText) json.junit = xml;
			binary.junit = await this.helpers.prepareBinaryData(
				Buffer.from(xml, 'utf8'),
				'eval-junit.xml',
				'application/xml',
			);
		}
		json.verdict = runVerdict(input);
		json.regressed = gate ? gate.regressed : null;
		json.incomplete = json.verdict === 'INCOMPLETE';
		const out: INodeExecutionData = { json, pairedItem: allPaired(items.length) };
		if (Object.keys(binary).length) out.binary = binary;
		return [[out]];
	}
}

/** The report of a variant comparison in the chosen formats (tickets have no meaning there). */
async function reportVariants(
	ctx: IExecuteFunctions,
	comparison: VariantComparison,
	count: number,
): Promise<INodeExecutionData[][]> {
	const o = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const title = ctx.getNodeParameter('title', 0, 'Nightly RAG evaluation') as string;
	const input = {
		comparison,
		title: title === 'Nightly RAG evaluation' ? undefined : title,
	};
	const formats = ctx.getNodeParameter('formats', 0, []) as Part[];
	const json: IDataObject = {};
	const binary: IBinaryKeyData = {};
	if (formats.includes('slack')) json.slack = variantsSlack(input) as unknown as IDataObject;
	if (formats.includes('markdown')) json.markdown = variantsMarkdown(input);
	const asText = o.textInJson === true;
	if (formats.includes('html')) {
		const html = variantsHtml(input);
		if (asText) json.html = html;
		binary.html = await ctx.helpers.prepareBinaryData(
			Buffer.from(html, 'utf8'),
			'variants-report.html',
			'text/html',
		);
	}
	if (formats.includes('junit')) {
		const xml = variantsJunit(input);
		if (asText) json.junit = xml;
		binary.junit = await ctx.helpers.prepareBinaryData(
			Buffer.from(xml, 'utf8'),
			'variants-junit.xml',
			'application/xml',
		);
	}
	json.variants = comparison.summary.map((s) => s.line);
	json.incomplete =
		comparison.pairs.some((p) => p.verdict === 'incomplete') ||
		comparison.pairwise.some((p) => p.verdict === 'incomplete');
	const out: INodeExecutionData = { json, pairedItem: allPaired(count) };
	if (Object.keys(binary).length) out.binary = binary;
	return [[out]];
}
