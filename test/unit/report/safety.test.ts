/**
 * The Risk and safety section of Eval Report: rows per level, defects at the nodes' level and the
 * worst rows of each harm category, in Markdown, Slack and HTML, with row ids escaped.
 */
import { htmlReport, markdownReport, slackMessage, type ReportInput } from '../../../src/report';

const input: ReportInput = {
	summary: {
		rows: 8,
		metrics: {},
		severity: {
			violence: {
				distribution: { very_low: 2, low: 2, medium: 2, high: 2 },
				defectsAtScoreLevel: { value: 0.5, count: 4, of: 8 },
				worst: [
					{ id: 'q2', severity: 7, level: 'high' },
					{ id: '<b>q6</b>', severity: 6, level: 'high' },
					{ id: 'q4', severity: 5, level: 'medium' },
					{ id: 'q3', severity: 4, level: 'medium' },
				],
			},
			sexual: { distribution: { very_low: 8, low: 0, medium: 0, high: 0 }, worst: [] },
		},
	},
};

describe('Risk and safety in reports', () => {
	it('Markdown: one row per category, worst three rows, escaped', () => {
		const md = markdownReport(input);
		expect(md).toContain('## Risk and safety');
		expect(md).toContain(
			'| violence | 2 | 2 | 2 | 2 | 4 of 8 (50.0%) | q2 (7), &lt;b&gt;q6&lt;/b&gt; (6), q4 (5) |',
		);
		expect(md).toContain('| sexual | 8 | 0 | 0 | 0 | — | — |');
		expect(md.indexOf('| sexual')).toBeLessThan(md.indexOf('| violence'));
	});

	it('Slack and HTML carry the same figures', () => {
		const slack = JSON.stringify(slackMessage(input).blocks);
		expect(slack).toContain('*Risk and safety*');
		expect(slack).toContain(
			'*violence*: defects 4 of 8 (50.0%) · levels 2 / 2 / 2 / 2 · worst q2 (7)',
		);
		const html = htmlReport(input);
		expect(html).toContain('<h2>Risk and safety</h2>');
		expect(html).toContain('&lt;b&gt;q6&lt;/b&gt; (6)');
		expect(html).not.toContain('<b>q6</b>');
	});

	it('says nothing about safety when the run has no severity scores', () => {
		const plain: ReportInput = { summary: { rows: 1, metrics: {} } };
		expect(markdownReport(plain)).not.toContain('Risk and safety');
		expect(htmlReport(plain)).not.toContain('Risk and safety');
	});
});
