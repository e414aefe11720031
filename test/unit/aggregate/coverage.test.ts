// Issue 10.6: a pass rate cannot hide missing rows. The pass rate is over every row that should
// have been judged, coverage sits beside it, and below the minimum the run is `incomplete` in the
// summary, the gate and every report.
import type { Scale, Score } from '../../../src/core/types';
import {
	aggregate,
	aggregatePartial,
	finalizeAggregate,
	mergePartials,
	minCoverageFromPercent,
} from '../../../src/aggregate';
import { compareRuns, summaryCoverage } from '../../../src/gate';
import {
	firstErrors,
	htmlReport,
	junitReport,
	markdownReport,
	runVerdict,
	slackMessage,
	ticketPayload,
} from '../../../src/report';

const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };
const UNIT: Scale = { kind: 'unit', min: 0, max: 1 };

const ok = (metric: string, value: number): Score => ({
	metric,
	value,
	scale: LIKERT,
	threshold: 3,
	pass: value >= 3,
	status: 'ok',
	signature: metric,
});
const down = (metric: string, i: number): Score => ({
	metric,
	value: null,
	scale: LIKERT,
	pass: null,
	status: 'error',
	error: `judge model unavailable: 503 Service Unavailable (row ${i + 1}, request_id q${i})`,
	signature: metric,
});

// 19 rows, the judge down on 10 of them: the 9 judged rows all pass.
function rows(errored: number, total = 19): Record<string, unknown>[] {
	return Array.from({ length: total }, (_, i) => ({
		request_id: `q${i}`,
		request: `question ${i}`,
		response: `answer ${i}`,
		eval: { groundedness: i < errored ? down('groundedness', i) : ok('groundedness', 5) },
	}));
}

describe('aggregate coverage', () => {
	it('10 of 19 rows with judge errors: pass rate 9/19, not 9/9, and the run is incomplete', () => {
		const s = aggregate(rows(10), { bootstrapResamples: 0 });
		expect(s.overall).toMatchObject({ pass: 9, fail: 0, incomplete: 10 });
		expect(s.overall.passRate).toMatchObject({ count: 9, of: 19, value: 9 / 19 });
		expect(s.overall.judgedPassRate).toMatchObject({ count: 9, of: 9, value: 1 });
		expect(s.coverage).toEqual({
			judged: 9,
			of: 19,
			share: 9 / 19,
			minimum: 0.95,
			basis: 'verdicts',
		});
		expect(s.status).toBe('incomplete');
		expect(s.incomplete.examples.length).toBeGreaterThan(0);
	});

	it('the minimum decides: 18 of 19 judged is complete at 90% and incomplete at 95%', () => {
		expect(aggregate(rows(1), { bootstrapResamples: 0 }).status).toBe('incomplete');
		expect(aggregate(rows(1), { bootstrapResamples: 0, minCoverage: 0.9 }).status).toBe('complete');
		expect(aggregate(rows(0), { bootstrapResamples: 0 })).toMatchObject({
			status: 'complete',
			coverage: { judged: 19, of: 19, share: 1 },
		});
	});

	it('a run with no rows is incomplete: nothing vouches for it', () => {
		const s = aggregate([], { bootstrapResamples: 0 });
		expect(s.coverage).toMatchObject({ judged: 0, of: 0, share: 0 });
		expect(s.status).toBe('incomplete');
		expect(aggregate([], { minCoverage: 0 }).status).toBe('complete');
	});

	it('judges that were not applicable on every row (no model) leave the run incomplete', () => {
		const na: Score = {
			metric: 'groundedness',
			value: null,
			scale: LIKERT,
			pass: null,
			status: 'not_applicable',
			signature: 'g',
		};
		const s = aggregate([{ eval: { groundedness: na } }, { eval: { groundedness: na } }]);
		expect(s.coverage).toMatchObject({ judged: 0, of: 2, basis: 'verdicts' });
		expect(s.status).toBe('incomplete');
	});

	it('runs of deterministic metrics only count rows with a score (no judge verdicts exist)', () => {
		const f1 = (v: number | null): Score => ({
			metric: 'f1_score',
			value: v,
			scale: UNIT,
			threshold: 0.5,
			pass: v === null ? null : v >= 0.5,
			status: v === null ? 'error' : 'ok',
			...(v === null ? { error: 'row 3: response is not text' } : {}),
			signature: 'f1',
		});
		const data = [0.9, 0.2, null, 0.7].map((v) => ({ eval: { f1_score: f1(v) } }));
		const s = aggregate(data, { bootstrapResamples: 0 });
		expect(s.coverage).toEqual({ judged: 3, of: 4, share: 0.75, minimum: 0.95, basis: 'scores' });
		expect(s.status).toBe('incomplete');
		expect(aggregate(data.slice(0, 2)).status).toBe('complete');
	});

	it('merged partials give the same coverage as one pass', () => {
		const all = rows(10);
		const merged = finalizeAggregate(
			mergePartials(aggregatePartial(all.slice(0, 7)), aggregatePartial(all.slice(7))),
			{ bootstrapResamples: 0 },
		);
		const one = aggregate(all, { bootstrapResamples: 0 });
		expect(merged.coverage).toEqual(one.coverage);
		expect(merged.overall).toEqual(one.overall);
	});

	it('Minimum Coverage given in percent: empty means default, out of range says so', () => {
		expect(minCoverageFromPercent(undefined)).toBeUndefined();
		expect(minCoverageFromPercent('')).toBeUndefined();
		expect(minCoverageFromPercent(95)).toBe(0.95);
		expect(minCoverageFromPercent('80')).toBe(0.8);
		expect(() => minCoverageFromPercent(120)).toThrow(/0 to 100, got 120/);
		expect(() => minCoverageFromPercent('abc')).toThrow(/got abc/);
		expect(() => aggregate([], { minCoverage: 2 })).toThrow(RangeError);
	});
});

describe('gate coverage', () => {
	const baseline = aggregate(rows(0), { bootstrapResamples: 0 });

	it('an incomplete run is incomplete, never ok, even when no metric regressed', () => {
		const current = aggregate(rows(10), { bootstrapResamples: 0 });
		const r = compareRuns(current, baseline);
		expect(r.counts.regressed).toBe(0);
		expect(r).toMatchObject({ status: 'incomplete', incomplete: true, regressed: false });
		expect(r.coverage).toEqual({ judged: 9, of: 19, share: 9 / 19, minimum: 0.95, missing: 10 });
		expect(compareRuns(current, baseline, { minCoverage: 0.4 }).status).toBe('ok');
	});

	it('incomplete outranks regressed', () => {
		const worse = rows(2).map((r, i) =>
			i >= 2 ? { ...r, eval: { groundedness: ok('groundedness', 1) } } : r,
		);
		const r = compareRuns(aggregate(worse, { bootstrapResamples: 0 }), baseline, {
			currentRows: worse as never,
		});
		expect(r.regressed).toBe(true);
		expect(r.status).toBe('incomplete');
		expect(compareRuns(aggregate(worse), baseline, { minCoverage: 0.5 }).status).toBe('regressed');
	});

	it('coverage comes from `overall` when a summary has no `coverage`, and is not enforced without either', () => {
		expect(summaryCoverage({ metrics: {}, overall: { pass: 3, fail: 1, incomplete: 4 } })).toEqual({
			judged: 4,
			of: 8,
			share: 0.5,
			minimum: 0.95,
			missing: 4,
		});
		const r = compareRuns({ metrics: {} }, { metrics: {} });
		expect(r).toMatchObject({ status: 'ok', coverage: null, incomplete: false });
	});
});

describe('reports of an incomplete run', () => {
	const data = rows(10);
	const summary = aggregate(data, { bootstrapResamples: 0 });
	const baseline = aggregate(rows(0), { bootstrapResamples: 0 });
	const gate = compareRuns(summary, baseline);
	const input = {
		summary,
		gate,
		rows: data as never,
		title: 'Nightly',
		runUrl: 'https://n8n.example.com/workflow/1/executions/7',
	};

	it('the verdict is INCOMPLETE with the summary alone, and with the gate', () => {
		expect(runVerdict({ summary })).toBe('INCOMPLETE');
		expect(runVerdict(input)).toBe('INCOMPLETE');
		expect(runVerdict({ summary: baseline })).toBeNull();
		expect(runVerdict({ summary: baseline, gate: compareRuns(baseline, baseline) })).toBe('OK');
	});

	it('first errors name row and metric, each distinct message once', () => {
		const errs = firstErrors(input);
		expect(errs.length).toBe(3);
		expect(errs[0]).toBe(
			'q0 groundedness: judge model unavailable: 503 Service Unavailable (row 1, request_id q0)',
		);
		// The same error on many rows (only the row number differs) is said once, with the count.
		const same = data.map((r, i) => ({
			...r,
			eval: { g: { ...down('g', i), error: `row ${i + 1}: judge model unavailable: 503` } },
		}));
		expect(firstErrors({ summary, rows: same.slice(0, 10) as never })).toEqual([
			'q0 g: row 1: judge model unavailable: 503 (and 9 more rows)',
		]);
		// Without rows the ids of the first incomplete rows stand in.
		expect(firstErrors({ summary })[0]).toMatch(/^rows q0, q1, q2 have no verdict/);
	});

	it('Slack: headline, fallback text and status say INCOMPLETE with the count; never green', () => {
		const m = slackMessage(input);
		const all = JSON.stringify(m);
		expect(m.blocks[0]).toMatchObject({
			type: 'header',
			text: { text: 'Nightly — 19 rows: INCOMPLETE (10 of 19 rows not judged)' },
		});
		expect(m.text).toMatch(
			/^Nightly — 19 rows: INCOMPLETE \(10 of 19 rows not judged\) — first error: q0 groundedness: judge model unavailable/,
		);
		expect(all).toContain(
			':warning: *Incomplete*: 10 of 19 rows could not be judged (coverage 47.4%, minimum 95.0%)',
		);
		expect(all).toContain('Pass rate 47.4% (9 of 19 rows) · 10 not judged');
		expect(all).toContain('503 Service Unavailable');
		expect(all).not.toContain('large_green_circle');
		expect(all).not.toMatch(/\*OK\*/);
	});

	it('Markdown, HTML, ticket and JUnit say INCOMPLETE too', () => {
		const md = markdownReport(input);
		expect(md.split('\n')[0]).toBe('# Nightly — 19 rows: INCOMPLETE (10 of 19 rows not judged)');
		expect(md).toContain('> **INCOMPLETE**: 10 rows could not be judged.');
		expect(md).toContain('## Regression gate: **INCOMPLETE**');
		// Key metrics by the gate's names; metrics nobody measured are counted, not listed.
		expect(md).toMatch(/\| groundedness\/mean \| 5 \| — \| 9 of 19 \| 0 \| 10 \|/);
		expect(md).not.toContain('| agent/latency_seconds/average');
		// 5 agent fields (tokens in, out, total, latency, app cost) x average, p50, p90, p99.
		expect(md).toContain('_20 run metrics without measured rows are not listed._');
		expect(md).toContain('_20 metrics without a value on either side are not listed._');
		const html = htmlReport(input);
		expect(html).toContain('<h2>INCOMPLETE: 10 rows could not be judged</h2>');
		expect(html).toContain('q0 groundedness: judge model unavailable');
		expect(ticketPayload(input)).toMatchObject({
			title: 'Eval incomplete: 10 rows could not be judged',
			labels: ['rag-eval', 'incomplete'],
		});
		const xml = junitReport(input);
		expect(xml).toContain(
			'<testcase name="rows judged" classname="rag-eval.coverage"><failure message="9 of 19 rows judged (47.4%; minimum 95.0%)"',
		);
		const complete = junitReport({ summary: baseline });
		expect(complete).toContain('<testcase name="rows judged" classname="rag-eval.coverage"/>');
	});

	it('a complete run with a passing gate is OK with coverage beside the pass rate', () => {
		const m = slackMessage({ summary: baseline, gate: compareRuns(baseline, baseline) });
		const all = JSON.stringify(m);
		expect(m.text).toMatch(/: OK$/);
		expect(all).toContain('Pass rate 100.0% (19 of 19 rows)');
		expect(all).toContain('Coverage 100.0% (19 of 19 rows judged; minimum 95.0%)');
	});
});
