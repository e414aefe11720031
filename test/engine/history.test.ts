/**
 * Run history through the real engine: Eval Report draws trends from its Run History option or
 * from a `history` array on an input item; Regression Gate compares against the median of the
 * last K runs of a history.
 */
import { runWorkflow, singleNode } from '../support/engine';

const GROUND = 'response/llm_judged/groundedness/rating/percentage';
const run = (value: number, measured = 400) => ({
	rows: measured,
	metrics: { [GROUND]: { value, measured } },
});
const HISTORY = [run(0.9), run(0.91), run(0.9), run(0.89), run(0.8)];

describe('Eval Report with run history', () => {
	test('the Run History option adds trends to Markdown, Slack and the HTML report', async () => {
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalReport', {
				formats: ['markdown', 'slack', 'html'],
				options: { history: JSON.stringify(HISTORY), trendRuns: 4 },
			}),
			{ startItems: [{ json: run(0.82) }] },
		);
		expect(r.nodeError('Node')).toBeUndefined();
		const [out] = r.items('Node');
		expect(out.json.markdown).toContain('## Trends (last 4 runs)');
		expect(JSON.stringify(out.json.slack)).toContain('Trends (last 4 runs)');
		const html = Buffer.from(out.binary!.html.data, 'base64').toString('utf8');
		expect(html).toContain('<h2>Trends (last 4 runs)</h2><svg');
	});

	test('a history array on an input item is used; a non-array option is a clear error', async () => {
		const ok = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalReport', { formats: ['markdown'] }),
			{ startItems: [{ json: { ...run(0.82), history: HISTORY } }] },
		);
		expect(ok.output('Node')[0].markdown).toContain('## Trends (last 6 runs)');
		const bad = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalReport', {
				formats: ['markdown'],
				options: { history: '{"metrics":{}}' },
			}),
			{ startItems: [{ json: run(0.82) }] },
		);
		expect(bad.nodeError('Node')).toMatch(/Run History must be an array/);
	});
});

describe('Regression Gate against the median of the last K runs', () => {
	test('a drop hidden by one bad night regresses against the median', async () => {
		const gate = (options: Record<string, string | number>) =>
			runWorkflow(
				singleNode('n8n-nodes-rag-eval.regressionGate', {
					baseline: JSON.stringify(HISTORY[HISTORY.length - 1]),
					defaultTolerance: 0.02,
					options,
				}),
				{ startItems: [{ json: run(0.82) }] },
			);
		const last = await gate({});
		expect(last.output('Node', 0)).toHaveLength(1);
		expect(last.output('Node', 0)[0].baselineSource).toBe('the baseline summary');
		const median = await gate({
			compareAgainst: 'median',
			history: JSON.stringify(HISTORY),
			medianRuns: 5,
		});
		expect(median.output('Node', 0)).toHaveLength(0);
		const [out] = median.output('Node', 1);
		expect(out.baselineSource).toBe('median of the last 5 runs');
		expect(out.baselineFound).toBe(true);
		const row = (out.gate as { table: { metric: string; baseline: number }[] }).table[0];
		expect(row).toMatchObject({ metric: GROUND, baseline: 0.9 });
	});
});
