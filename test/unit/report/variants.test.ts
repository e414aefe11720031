import type { Score } from '../../../src/core/types';
import { variantsHtml, variantsJunit, variantsMarkdown, variantsSlack } from '../../../src/report';
import { compareVariants } from '../../../src/variants';

const likert = (metric: string, value: number): Score => ({
	metric,
	value,
	scale: { kind: 'likert', min: 1, max: 5 },
	threshold: 3,
	direction: 'higher',
	pass: value >= 3,
	status: 'ok',
	signature: `judge:${metric}@1`,
});

// 10 requests: "new" is better on groundedness; q0's request carries markup and a key.
const rows = Array.from({ length: 10 }, (_, i) =>
	['old', 'new'].map((variant) => ({
		request_id: `q${i}`,
		request:
			i === 0
				? 'What is <script>alert(1)</script> api_key=sk-live-abcdefghijklmnop1234?'
				: `Question ${i}`,
		variant,
		eval: {
			groundedness: likert('groundedness', variant === 'new' ? 5 : i < 8 ? 2 : 5),
			relevance: likert('relevance', 4),
		},
	})),
).flat();
const comparison = compareVariants(rows);

describe('variant comparison reports', () => {
	it('Markdown: the verdict line, the matrix with coverage, the rows that differ most', () => {
		const md = variantsMarkdown({ comparison });
		expect(md).toContain(
			'- new vs old: new better on groundedness (p 0.016), no difference on relevance; rows old 10/10, new 10/10 (alpha 0.05, Holm)',
		);
		expect(md).toMatch(
			/\| groundedness \| 2\.6 \[[\d.]+, [\d.]+\] \(10\/10\) \| 5 \[5, 5\] \(10\/10\) \|/,
		);
		expect(md).toContain('## Requests whose verdicts differ most');
		expect(md).not.toContain('sk-live-abcdefghijklmnop1234');
		expect(md).not.toContain('<script>');
		// No Cost & Latency scores: no cost section of dashes.
		expect(md).not.toContain('## Cost and latency');
	});
	it('HTML escapes user text and holds no script', () => {
		const html = variantsHtml({ comparison });
		expect(html).not.toContain('<script>');
		expect(html).toContain('&lt;script&gt;');
		expect(html).not.toContain('sk-live-abcdefghijklmnop1234');
	});
	it('Slack: the line and the matrix as blocks', () => {
		const s = variantsSlack({ comparison });
		expect(s.blocks[0]).toMatchObject({ type: 'header' });
		expect(JSON.stringify(s.blocks)).toContain('new better on groundedness');
	});
	it('JUnit: one case per metric, failing where a variant is worse than the baseline', () => {
		const xml = variantsJunit({ comparison });
		expect(xml).toContain('tests="2" failures="0" errors="0"');
		// With "new" as the baseline, "old" is the worse one: groundedness fails.
		const flipped = variantsJunit({ comparison: compareVariants(rows, { order: ['new'] }) });
		expect(flipped).toContain('tests="2" failures="1" errors="0"');
		expect(flipped).toContain('<failure message="old worse than new on groundedness">');
	});
});
