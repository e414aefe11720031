import {
	appendHistory,
	baselineFromHistory,
	medianBaseline,
	normaliseHistory,
	sparkline,
	trendChartSvg,
	trendSeries,
} from '../../../src/history';
import { compareRuns } from '../../../src/gate';
import { escapeHtml, htmlReport, markdownReport, slackMessage } from '../../../src/report';
import { EVIL } from './fixtures';

const GROUND = 'response/llm_judged/groundedness/rating/percentage';
const F1 = 'f1_score/mean';

function run(ground: number, f1: number | null, measured = 200) {
	return {
		rows: measured,
		metrics: {
			[GROUND]: { value: ground, measured, errored: 0, ci: { low: 0, high: 1 } },
			...(f1 === null ? {} : { [F1]: { value: f1, measured, direction: 'higher' as const } }),
		},
		rootCauses: [{ cause: 'groundedness', count: 3, share: 0.015 }],
		perMetric: { groundedness: { measured } },
	};
}

describe('appendHistory', () => {
	test('keeps run metrics only (value, measured, direction), the newest max runs, oldest first', () => {
		let history: unknown = undefined;
		for (let i = 0; i < 35; i++)
			history = appendHistory(history, run(0.8 + i / 1000, 0.5), 30, `2026-11-${i}`);
		const h = history as ReturnType<typeof appendHistory>;
		expect(h).toHaveLength(30);
		expect(h[0].at).toBe('2026-11-5');
		expect(h[29].at).toBe('2026-11-34');
		expect(h[29]).toEqual({
			at: '2026-11-34',
			rows: 200,
			metrics: {
				[GROUND]: { value: 0.8 + 34 / 1000, measured: 200 },
				[F1]: { value: 0.5, measured: 200, direction: 'higher' },
			},
		});
		// Root causes, CIs and per-metric blocks are not kept.
		expect(JSON.stringify(h)).not.toMatch(/rootCauses|perMetric|ci/);
	});

	test('keeps per-metric means and pass rates the gate compares; drops unmeasured metrics', () => {
		const [entry] = appendHistory([], {
			metrics: { 'agent/latency_seconds/average': { value: null, measured: 0 } },
			perMetric: {
				relevance: { measured: 8, scale: { kind: 'likert' }, mean: { value: 2.875 } },
				groundedness_verdict: {
					measured: 8,
					scale: { kind: 'binary' },
					passRate: { value: 0.625 },
				},
			},
		});
		expect(entry.metrics).toEqual({
			'relevance/mean': { value: 2.875, measured: 8 },
			'groundedness_verdict/pass_rate': { value: 0.625, measured: 8, direction: 'higher' },
		});
	});

	test('does not mutate its input, drops non-summaries and never keeps NaN', () => {
		const before = [run(0.9, 0.5), 'junk', null, { metrics: 3 }];
		const copy = JSON.parse(JSON.stringify(before));
		const out = appendHistory(before, { metrics: { [F1]: { value: NaN, measured: 4 } } }, 10, 't');
		expect(before).toEqual(copy);
		expect(out).toHaveLength(2);
		expect(out[1].metrics[F1]).toEqual({ value: null, measured: 4 });
	});
});

describe('sparkline and trendSeries', () => {
	test('maps the lowest value to ▁ and the highest to █, gaps to spaces, flat to mid height', () => {
		expect(sparkline([0, 0.5, 1])).toBe('▁▅█');
		expect(sparkline([1, null, 2])).toBe('▁ █');
		expect(sparkline([0.7, 0.7])).toBe('▄▄');
		expect(sparkline([])).toBe('');
	});

	test('series end with the current run, keep gaps and skip metrics with one point', () => {
		const history = [run(0.8, null), run(0.82, 0.5), run(0.85, 0.55)];
		const series = trendSeries(history, run(0.9, 0.6), 3);
		expect(series.map((s) => s.metric)).toEqual([F1, GROUND]);
		expect(series.find((s) => s.metric === GROUND)!.values).toEqual([0.82, 0.85, 0.9]);
		const all = trendSeries(history, run(0.9, 0.6), 30);
		expect(all.find((s) => s.metric === F1)!.values).toEqual([null, 0.5, 0.55, 0.6]);
		expect(trendSeries([], run(0.9, 0.6))).toEqual([]);
	});

	test('the SVG chart escapes metric names and draws one panel per metric', () => {
		const name = `evil ${EVIL}`;
		const svg = trendChartSvg(
			[{ metric: name, values: [0.1, null, 0.3, 0.2], at: [], direction: 'higher' }],
			escapeHtml,
		);
		expect(svg).not.toContain('<script');
		expect(svg).not.toContain('<img');
		expect(svg).toContain('&lt;script&gt;');
		// Two segments around the gap: a lone point and a polyline.
		expect(svg.match(/<polyline/g)).toHaveLength(1);
		expect(svg).toContain('(-0.1)');
		// A drop in a higher-is-better metric is drawn red.
		expect(svg).toContain('#c62828');
	});
});

describe('reports with history', () => {
	const history = [run(0.8, 0.5), run(0.85, 0.52), run(0.9, 0.55)];
	const input = { summary: run(0.7, 0.56), history, title: 'Nightly' };

	test('Markdown and Slack carry a trend line per metric; without history nothing changes', () => {
		const md = markdownReport(input);
		expect(md).toContain('## Trends (last 4 runs)');
		expect(md).toContain(`| ${GROUND} | \`▅▆█▁\` | 0.7 | -0.2 |`);
		const slack = slackMessage(input);
		const block = slack.blocks.find(
			(b) => b.type === 'section' && b.text?.text.startsWith('*Trends'),
		);
		expect(block).toBeDefined();
		expect(JSON.stringify(block)).toContain('▅▆█▁');
		expect(markdownReport({ summary: run(0.7, 0.56) })).not.toContain('Trends');
		expect(htmlReport({ summary: run(0.7, 0.56) })).not.toContain('Trends');
	});

	test('HTML embeds the chart inline and escapes hostile metric names', () => {
		const evil = { metrics: { [EVIL]: { value: 1, measured: 2 } } };
		const html = htmlReport({
			summary: evil,
			history: [{ metrics: { [EVIL]: { value: 0, measured: 2 } } }],
		});
		expect(html).toContain('<h2>Trends (last 2 runs)</h2><svg');
		expect(html).not.toMatch(/<script|<img/);
		expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
	});

	test('trendRuns limits the points shown', () => {
		expect(markdownReport({ ...input, trendRuns: 2 })).toContain('## Trends (last 2 runs)');
	});
});

describe('median of the last K runs as the gate baseline', () => {
	test('medianBaseline takes each metric median of value and measured over the last k runs', () => {
		const m = medianBaseline([run(0.1, 0.9), run(0.8, 0.5), run(0.9, 0.4), run(0.7, 0.6)], 3);
		expect(m.runs).toBe(3);
		expect(m.metrics[GROUND]).toEqual({ value: 0.8, measured: 200 });
		expect(m.metrics[F1]).toEqual({ value: 0.5, measured: 200, direction: 'higher' });
		expect(medianBaseline([run(0.8, 0.5), run(0.9, 0.6)], 7).metrics[GROUND].value).toBeCloseTo(
			0.85,
			12,
		);
	});

	test('one unusually bad night: against it a drop passes, against the median it regresses', () => {
		const history = [
			run(0.9, 0.5, 400),
			run(0.91, 0.5, 400),
			run(0.9, 0.5, 400),
			run(0.89, 0.5, 400),
			run(0.8, 0.5, 400),
		];
		const current = run(0.82, 0.5, 400);
		const last = baselineFromHistory(history, 'last');
		expect(last.description).toBe('the last run');
		expect(compareRuns(current, last.baseline).regressed).toBe(false);
		const median = baselineFromHistory(history, 'median', 5);
		expect(median.description).toBe('median of the last 5 runs');
		const gate = compareRuns(current, median.baseline);
		expect(gate.regressed).toBe(true);
		const row = gate.table.find((r) => r.metric === GROUND)!;
		expect(row.baseline).toBe(0.9);
		expect(row.test).toBe('two-proportion-z');
	});

	test('an empty history gives an empty baseline: every metric missing in the baseline', () => {
		const b = baselineFromHistory(undefined, 'median');
		expect(b.runs).toBe(0);
		const gate = compareRuns(run(0.8, 0.5), b.baseline);
		expect(gate.counts.missing_in_baseline).toBe(2);
		expect(normaliseHistory('nope')).toEqual([]);
	});
});
