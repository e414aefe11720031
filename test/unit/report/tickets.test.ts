// One ticket per root cause (issue 17): titles stable across nights, labels that find the open
// ticket again, a body with the suggested fix and the first failing rows, a comment with
// tonight's count and worst rows, and no closing on an incomplete run.
import type { Scale, Score } from '../../../src/core/types';
import { aggregate } from '../../../src/aggregate';
import { compareRuns } from '../../../src/gate';
import {
	causeLabel,
	slackMessage,
	ticketPlan,
	TICKET_LABEL,
	type ReportRow,
} from '../../../src/report';

const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };
const likert = (metric: string, value: number): Score => ({
	metric,
	value,
	scale: LIKERT,
	threshold: 3,
	pass: value >= 3,
	status: 'ok',
	reason: `${metric} rated ${value}`,
	signature: metric,
});
const errored = (metric: string): Score => ({
	metric,
	value: null,
	scale: LIKERT,
	pass: null,
	status: 'error',
	error: 'row 4: judge model unavailable: 503',
	signature: metric,
});

// Groundedness fails first on q1 and q2; relevance (a custom judge) on q3; q4 passes.
const ROWS: ReportRow[] = [
	{
		request_id: 'q1',
		request: 'Refund window?',
		response: 'Ninety days <b>',
		eval: { groundedness: likert('groundedness', 1), relevance: likert('relevance', 1) },
	},
	{
		request_id: 'q2',
		request: 'Ship abroad?',
		response: 'Yes, sk-abcdefghijklmnopqrstuv',
		eval: { groundedness: likert('groundedness', 2), relevance: likert('relevance', 5) },
	},
	{
		request_id: 'q3',
		request: 'Support hours?',
		response: 'We sell shoes.',
		eval: { groundedness: likert('groundedness', 5), relevance: likert('relevance', 2) },
	},
	{
		request_id: 'q4',
		request: 'Payment?',
		response: 'Visa.',
		eval: { groundedness: likert('groundedness', 5), relevance: likert('relevance', 5) },
	},
];

describe('ticketPlan', () => {
	const summary = aggregate(ROWS as Record<string, unknown>[], { bootstrapResamples: 0 });
	const plan = ticketPlan({
		summary,
		rows: ROWS,
		title: 'Nightly',
		runUrl: 'https://n8n.example.com/workflow/w/executions/9',
	});

	it('one ticket per failing cause, most rows first, with labels that find it again', () => {
		expect(plan.causes.map((c) => [c.cause, c.count, c.labels])).toEqual([
			['groundedness', 2, [TICKET_LABEL, 'root-cause:groundedness']],
			['relevance', 1, [TICKET_LABEL, 'root-cause:relevance']],
		]);
		expect(plan.causes[0].title).toBe('RAG eval: rows fail first on groundedness');
		expect(plan.canClose).toBe(true);
		expect(causeLabel('my custom/judge name that is far too long for a github label')).toBe(
			'root-cause:my-custom-judge-name-that-is-far-too-lo', // GitHub labels hold 50 characters
		);
	});

	it("the body has the count, the suggested fix and only that cause's rows, escaped and redacted", () => {
		const g = plan.causes[0].body;
		expect(g).toContain(
			'**Tonight:** 2 of 4 rows (50.0%) in [this run](https://n8n.example.com/workflow/w/executions/9).',
		);
		expect(g).toMatch(/\*\*Suggested fix:\*\* \S/);
		expect(g).toContain('- **q1**: Refund window?');
		expect(g).toContain('- **q2**: Ship abroad?');
		expect(g).not.toContain('q3');
		expect(g).toContain('Ninety days &lt;b&gt;');
		expect(g).not.toContain('sk-abcdefghijklmnopqrstuv');
		expect(plan.causes[1].body).toContain('- **q3**: Support hours?');
	});

	it("the comment says tonight's count and worst rows; the recovery comment links the run", () => {
		expect(plan.causes[0].comment).toMatch(
			/^\*\*Nightly\*\*: still failing on \*\*groundedness\*\*: 2 of 4 rows \(50\.0%\)/,
		);
		expect(plan.causes[0].comment).toContain('**Worst rows tonight:**');
		expect(plan.recoveredComment).toMatch(
			/^Recovered: no row failed first on this cause in \[this run\]\(https:\/\/n8n\.example\.com\/workflow\/w\/executions\/9\)\. Pass rate 25\.0% \(1 of 4 rows\)\./,
		);
	});

	it('an incomplete run files its causes but closes nothing', () => {
		const rows = [
			...ROWS,
			{
				request_id: 'q5',
				request: 'x',
				response: 'y',
				eval: { groundedness: errored('groundedness') },
			},
		];
		const s = aggregate(rows as Record<string, unknown>[], { bootstrapResamples: 0 });
		const p = ticketPlan({ summary: s, rows });
		expect(p.verdict).toBe('INCOMPLETE');
		expect(p.canClose).toBe(false);
		expect(p.causes.map((c) => c.cause)).toEqual(['groundedness', 'relevance']);
		expect(p.causes[0].comment).toContain('the run was INCOMPLETE (1 rows not judged)');
	});

	it("rows carrying the router's root_cause are grouped by it", () => {
		const rows = ROWS.map((r) => ({ ...r, root_cause: r.request_id === 'q4' ? null : 'safety' }));
		const s = {
			...summary,
			rootCauses: [{ cause: 'safety', count: 3, share: 0.75, suggestedFix: 'fix' }],
		};
		const [t] = ticketPlan({ summary: s, rows }).causes;
		expect(t.body).toContain('- **q1**');
		expect(t.body).toContain('- **q3**');
		expect(t.body).not.toContain('- **q4**');
	});
});

describe('Slack key metrics (nightly message)', () => {
	it('shows per-metric means named as the gate names them, with the change since the baseline', () => {
		const base = aggregate(
			ROWS.map((r) => ({
				...r,
				eval: { ...r.eval, groundedness: likert('groundedness', 5) },
			})) as Record<string, unknown>[],
			{ bootstrapResamples: 0 },
		);
		const cur = aggregate(ROWS as Record<string, unknown>[], { bootstrapResamples: 0 });
		const gate = compareRuns(cur, base, { minCoverage: 0 });
		const m = slackMessage({ summary: cur, gate });
		const fields = m.blocks.flatMap((b) => (b.type === 'section' && b.fields ? b.fields : []));
		const g = fields.find((f) => f.text.startsWith('*groundedness/mean*'));
		expect(g?.text).toBe(
			'*groundedness/mean*\n3.25 · -1.75 since baseline :red_circle: · 50.0% pass · 4 of 4 rows scored',
		);
		expect(fields.find((f) => f.text.startsWith('*relevance/mean*'))?.text).toMatch(
			/^\*relevance\/mean\*\n3\.25 · 0 since baseline · 50\.0% pass · 4 of 4 rows scored$/,
		);
		// Run metrics nobody measured (agent latency without latency fields) are left out.
		expect(fields.some((f) => f.text.includes('agent/'))).toBe(false);
	});
});
