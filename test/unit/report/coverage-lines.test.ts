// Issue 42 item 6: a per-metric figure never shows a rate without its coverage. 19 rows, a yes/no
// groundedness verdict scored on 9 (all yes) and errored on 10: every report's metric line says
// "9 of 19", not "9 of 9 = 100%" alone.
import type { Scale, Score } from '../../../src/core/types';
import { aggregate } from '../../../src/aggregate';
import {
	htmlReport,
	junitReport,
	markdownReport,
	slackMessage,
	type ReportRow,
} from '../../../src/report';

const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };
const RUN_METRIC = 'response/llm_judged/groundedness/rating/percentage';

function verdict(i: number): Score {
	const base = { metric: 'groundedness_verdict', scale: BINARY, signature: 'judge:gv' };
	return i < 9
		? { ...base, value: true, pass: true, status: 'ok', reason: 'Supported.' }
		: {
				...base,
				value: null,
				pass: null,
				status: 'error',
				error: `row ${i + 1}: judge model unavailable: 503`,
			};
}

const ROWS: ReportRow[] = Array.from({ length: 19 }, (_, i) => ({
	request_id: `q${i + 1}`,
	request: `question ${i + 1}`,
	response: `answer ${i + 1}`,
	eval: { groundedness_verdict: verdict(i) },
}));

const summary = aggregate(ROWS as Record<string, unknown>[], { bootstrapResamples: 0 });

describe('coverage on every per-metric figure (19 rows, 9 scored, 10 errored)', () => {
	it('the summary itself: 100% of the scored rows, with 9 of 19 beside it', () => {
		expect(summary.metrics[RUN_METRIC]).toMatchObject({ value: 1, measured: 9, errored: 10 });
		expect(summary.scores.groundedness_verdict.coverage).toBe('9 of 19 rows scored, 10 errored');
		expect(summary.scores.groundedness_verdict.line).toBe(
			'pass rate 100.0% (9 passed of 9 scored) — 9 of 19 rows scored, 10 errored',
		);
	});

	it('Slack: the metric field carries the coverage', () => {
		const fields = slackMessage({ summary }).blocks.flatMap((b) =>
			b.type === 'section' && b.fields ? b.fields : [],
		);
		const f = fields.find((x) => x.text.startsWith(`*${RUN_METRIC}*`));
		expect(f?.text).toBe(`*${RUN_METRIC}*\n1 (0.701–1) · 9 of 19 rows scored, 10 errored`);
	});

	it('Markdown and HTML: rows scored "9 of 19" beside the value, errored 10', () => {
		expect(markdownReport({ summary })).toContain(
			`| ${RUN_METRIC} | 1 | 0.701–1 | 9 of 19 | 0 | 10 |`,
		);
		expect(htmlReport({ summary })).toContain(
			'<td class="num">1</td><td>0.701–1</td><td class="num">9 of 19</td><td class="num">0</td><td class="num">10</td>',
		);
	});

	it('JUnit without rows: the aggregate test case names the coverage', () => {
		expect(junitReport({ summary })).toContain(
			`<system-out>${RUN_METRIC} = 1 (9 of 19 rows scored, 10 errored)</system-out>`,
		);
	});

	it('a run where nothing was judged reads "Nothing judged", never a pass rate of 0', () => {
		const none = aggregate(
			ROWS.map((r) => ({ ...r, eval: { groundedness_verdict: verdict(18) } })) as Record<
				string,
				unknown
			>[],
			{ bootstrapResamples: 0 },
		);
		expect(none.overall.passRate).toEqual({ count: 0, of: 19, note: 'nothing judged' });
		const md = markdownReport({ summary: none });
		expect(md).toContain('Nothing judged: none of the 19 rows got a verdict');
		expect(md).not.toMatch(/Pass rate 0\.0%/);
	});
});
