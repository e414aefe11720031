/** Reports list the failing tool calls of each failing row, from the Tool Calls Scores. */
import { evaluateMetricScores } from '../../../src/core/evaluate';
import { toolCallsMetric } from '../../../src/metrics/toolcalls';
import {
	failingToolCalls,
	htmlReport,
	markdownReport,
	MAX_FAILING_CALLS,
	slackMessage,
} from '../../../src/report';
import type { ReportRow } from '../../../src/report/model';

const lookup = (n: string, extra: Record<string, unknown> = {}) => ({
	name: 'Look_Up_Order',
	arguments: { order_number: n },
	...extra,
});
const refund = (id: string, amount: number, extra: Record<string, unknown> = {}) => ({
	name: 'Refund_Order',
	arguments: { order_id: id, amount },
	...extra,
});

function scored(id: string, toolCalls: unknown, expectedToolCalls?: unknown): ReportRow {
	return {
		request_id: id,
		request: `question ${id}`,
		response: 'answer',
		eval: evaluateMetricScores(
			toolCallsMetric,
			{ toolCalls, expectedToolCalls },
			{ params: { argumentMatch: 'expected_keys' } },
		),
	};
}

const rows: ReportRow[] = [
	// Both calls right, the refund failed.
	scored(
		'failing-tool',
		[lookup('10234'), refund('ord_7f3a', 25, { error: 'Refund refused: order is shipped' })],
		[lookup('10234'), refund('ord_7f3a', 25)],
	),
	// A wrong tool: the expected lookup is missing, the search is extra.
	scored(
		'wrong-tool',
		[{ name: 'Search_Knowledge_Base', arguments: { query: 'order 10236' } }],
		[lookup('10236')],
	),
	// A wrong argument.
	scored('wrong-args', [lookup('10253')], [lookup('10235')]),
	// A loop.
	scored('loop', [lookup('10235'), lookup('10235'), lookup('10235')], [lookup('10235')]),
	// As expected: not a failing row.
	scored('fine', [lookup('10235')], [lookup('10235')]),
];

describe('reports: failing tool calls', () => {
	it('names each failing call with its position, arguments and why', () => {
		expect(failingToolCalls(rows[0])).toEqual([
			'call 1 Refund_Order failed: Refund refused: order is shipped',
		]);
		expect(failingToolCalls(rows[1])).toEqual([
			'call 0 Search_Knowledge_Base {"query":"order 10236"} not expected',
			'Look_Up_Order {"order_number":"10236"} expected, never called',
		]);
		expect(failingToolCalls(rows[2])).toEqual([
			'call 0 Look_Up_Order wrong arguments: order_number expected "10235", got "10253"',
		]);
		expect(failingToolCalls(rows[3])).toEqual([
			'Look_Up_Order {"order_number":"10235"} repeated 3 times (calls 0, 1, 2)',
		]);
		expect(failingToolCalls(rows[4])).toEqual([]);
	});

	it('reads failed calls from tool_call_errors on rows without expected calls', () => {
		const row = scored('no-golden', [lookup('1', { error: 'timeout' }), lookup('2')]);
		expect(row.eval?.tool_call_match?.status).toBe('not_applicable');
		expect(failingToolCalls(row)).toEqual(['call 0 Look_Up_Order failed: timeout']);
	});

	it('caps the list, redacts secrets and never shows tool results', () => {
		const calls = Array.from({ length: 12 }, (_, i) =>
			lookup(String(i), { error: `boom ${i}`, result: 'SECRET RESULT' }),
		);
		calls[0].arguments = { order_number: '0', api_key: 'sk-abcdefghijklmnopqrstuvwx' } as never;
		const row = scored('many', calls, []);
		const lines = failingToolCalls(row);
		expect(lines).toHaveLength(MAX_FAILING_CALLS + 1);
		expect(lines[MAX_FAILING_CALLS]).toBe(`and ${12 * 2 - MAX_FAILING_CALLS} more failing calls`);
		expect(lines.join('\n')).not.toContain('SECRET RESULT');
		expect(lines.join('\n')).not.toContain('sk-abcdefghijklmnopqrstuvwx');
	});

	const input = { summary: { metrics: {}, rows: rows.length }, rows, title: 'Agent run' };

	it('Markdown, HTML and Slack list them under each failing row', () => {
		const md = markdownReport(input);
		const from = md.indexOf('### failing-tool');
		const section = md.slice(from, md.indexOf('### ', from + 4));
		expect(section).toContain('**Failing tool calls:**');
		expect(section).toContain('- call 1 Refund_Order failed: Refund refused: order is shipped');
		expect(md).not.toContain('### fine');

		const html = htmlReport(input);
		expect(html).toContain(
			'<li><code>call 0 Look_Up_Order wrong arguments: order_number expected &quot;10235&quot;, got &quot;10253&quot;</code></li>',
		);

		const slack = JSON.stringify(slackMessage(input).blocks);
		expect(slack).toContain('_Failing tool calls:_');
		expect(slack).toContain('• Look_Up_Order {\\"order_number\\":\\"10235\\"} repeated 3 times');
	});
});
