import { htmlReport, markdownReport, slackMessage } from '../../../src/report';
import { reviewAgreement } from '../../../src/review';

// Labels of two versions of one judge: version 1 agrees with reviewers, version 2 never does.
function labels(): Record<string, unknown>[] {
	const out: Record<string, unknown>[] = [];
	for (const [sig, agree] of [
		['judge:g@1', true],
		['judge:g@2', false],
	] as const) {
		for (let i = 0; i < 40; i++) {
			const judge = i % 2 === 0;
			const human = agree ? judge : !judge;
			out.push({
				request_id: `${sig}-${i}`,
				fingerprint: `${sig}-${i}`,
				reviewer: 'ana',
				reviewed_at: sig.endsWith('1') ? '2026-11-01' : '2026-11-02',
				judges: JSON.stringify({
					'<b>g</b>': {
						metric: 'g',
						value: judge,
						pass: judge,
						scale: { kind: 'binary', min: 0, max: 1 },
						status: 'ok',
						signature: sig,
					},
				}),
				labels: JSON.stringify({ '<b>g</b>': human ? 'yes' : 'no' }),
			});
		}
	}
	return out;
}

describe('reports: judge agreement with reviewers', () => {
	const agreement = reviewAgreement(labels());
	const input = { summary: { metrics: {} }, agreement };

	it('Slack names the judge version below the fitness rule, in blocks and in the fallback', () => {
		const m = slackMessage(input);
		const text = JSON.stringify(m.blocks);
		expect(text).toContain('below the agreement rule');
		expect(text).toContain('judge:g@2');
		expect(m.text).toContain('judges below the agreement rule: &lt;b&gt;g&lt;/b&gt;');
		// The fit version is listed, not named as unfit.
		const warning = m.blocks.find((b) => JSON.stringify(b).includes('below the agreement rule'));
		expect(JSON.stringify(warning)).not.toContain('judge:g@1');
	});

	it('Markdown and HTML list every version with kappa, accuracy, FPR and FNR, escaped', () => {
		const md = markdownReport(input);
		expect(md).toContain('## Judge agreement with reviewers');
		expect(md).toContain(
			'| &lt;b&gt;g&lt;/b&gt; | judge:g@1 | 40 | 1.00 (1.00 to 1.00) | 100.0% | 0.0% | 0.0% | fit |',
		);
		const html = htmlReport(input);
		expect(html).toContain('Judge agreement with reviewers');
		expect(html).not.toContain('<b>g</b>');
		expect(html).toContain('not fit');
	});

	it('no agreement, no section', () => {
		expect(markdownReport({ summary: { metrics: {} } })).not.toContain('Judge agreement');
	});
});
