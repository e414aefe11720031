import type { Score } from '../../../src/core/types';
import { aggregate, type AggregateSummary } from '../../../src/aggregate';
import { compareRuns, gateMetrics, type GateSummaryLike } from '../../../src/gate';
import {
	htmlReport,
	junitReport,
	markdownReport,
	slackMessage,
	type ReportSummaryLike,
} from '../../../src/report';

// Compile-time: the aggregate's summary is accepted by the gate and the reports as is.
const asGate = (s: AggregateSummary): GateSummaryLike => s;
const asReport = (s: AggregateSummary): ReportSummaryLike => s;

const bin = { kind: 'binary', min: 0, max: 1 } as const;
const unit = { kind: 'unit', min: 0, max: 1 } as const;

// 40 rows; `broken` rows lose groundedness and get a lower BLEU.
function run(broken: (i: number) => boolean): Record<string, unknown>[] {
	return Array.from({ length: 40 }, (_, i) => {
		const bad = broken(i);
		const g: Score = {
			// The package's yes/no groundedness, under a custom key: it keeps its Databricks name.
			metric: 'groundedness_verdict',
			value: !bad,
			scale: bin,
			pass: !bad,
			status: 'ok',
			reason: bad ? 'Claims 90 days; context says 30.' : 'Supported.',
			signature: 'groundedness@1',
		};
		const bleuValue = bad ? 0.1 + (i % 5) * 0.01 : 0.4 + (i % 5) * 0.01;
		const b: Score = {
			metric: 'bleu',
			value: bleuValue,
			scale: unit,
			threshold: 0.3,
			direction: 'higher',
			pass: bleuValue >= 0.3,
			status: 'ok',
			signature: 'bleu@1',
		};
		return {
			request_id: `q${i}`,
			request: `question ${i}`,
			response: `answer ${i}`,
			expected_response: 'x',
			eval: { groundedness: g, bleu: b },
		};
	});
}

describe('aggregate -> gate -> reports', () => {
	const baselineRows = run((i) => i % 10 === 0);
	const currentRows = run((i) => i % 10 === 0 || i % 4 === 1);
	const baseline = aggregate(baselineRows);
	const current = aggregate(currentRows);

	it('gate picks paired tests for both the run-level percentage and the per-metric BLEU mean', () => {
		const names = Object.keys(gateMetrics(current));
		expect(names).toContain('response/llm_judged/groundedness/rating/percentage');
		expect(names).toContain('bleu/mean');
		expect(names).not.toContain('groundedness/pass_rate');
		const gate = compareRuns(asGate(current), asGate(baseline), {
			currentRows,
			baselineRows,
			defaultTolerance: 0.05,
		});
		const by = Object.fromEntries(gate.table.map((t) => [t.metric, t]));
		const g = by['response/llm_judged/groundedness/rating/percentage'];
		// i % 4 === 1 and not i % 10 === 0 among 0..39: 10 rows flip pass -> fail, none back.
		expect(g.test).toBe('mcnemar-exact');
		expect(g.n).toBe(10);
		expect(g.pValue).toBeCloseTo(2 / 1024, 14);
		expect(g.baseline).toBeCloseTo(36 / 40, 14);
		expect(g.current).toBeCloseTo(26 / 40, 14);
		expect(g.verdict).toBe('regressed');
		const bleu = by['bleu/mean'];
		// 10 of 40 pairs changed, their |d| tied in pairs: few enough for the exact permutation
		// distribution (it was the normal approximation before the gate counted non-zero pairs).
		expect(bleu.test).toBe('wilcoxon-permutation');
		expect(bleu.n).toBe(10);
		expect(bleu.pValue).toBe(2 / 1024);
		expect(bleu.verdict).toBe('regressed');
		// Token and latency metrics have no measured rows on either side: reported, not dropped.
		expect(by['agent/latency_seconds/average'].verdict).toBe('insufficient_data');
		expect(gate.regressed).toBe(true);

		const failing = currentRows.filter((r) =>
			Object.values(r.eval as Record<string, Score>).some((s) => s.pass === false),
		);
		const input = { summary: asReport(current), rows: failing, gate, title: 'Pipeline' };
		expect(slackMessage(input).text).toContain(
			'regressed: bleu/mean, response/llm_judged/groundedness/rating/percentage',
		);
		expect(markdownReport(input)).toContain('| groundedness | 14 | 35.0% | The response asserts');
		expect(htmlReport(input)).toContain('Claims 90 days; context says 30.');
		expect(junitReport(input)).toContain(
			'<testsuite name="groundedness" tests="14" failures="14" errors="0" skipped="0">',
		);
	});
});
