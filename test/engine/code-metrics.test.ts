/**
 * Code-based metrics on the real engine: n8n's own Code node (its JavaScript run by the harness's
 * stand-in for n8n's task runner, test/support/code-runner.ts) writes a Score per row under
 * `eval.<key>`, as Databricks' `@metric` functions do, and Eval Aggregate, the Root-Cause Router
 * and the Regression Gate treat it like one of ours: run metric, pass rate and coverage; a failing
 * yes/no code metric leaves on the router's Custom Judge output, as user judges do; the gate
 * honours the direction the Score states (fewer words is better).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { IDataObject, INode } from 'n8n-workflow';
import { aggregate } from '../../src/aggregate';
import type { Score } from '../../src/core/types';
import { routerOutputNames } from '../../src/rootcause';
import { runWorkflow, type WorkflowJson } from '../support/engine';

/** The Code node's JavaScript: the docs' own example (docs/nodes.md, "Code-based metrics"), run as written. */
const EXACT_MATCH_CODE = (() => {
	const readme = readFileSync(path.join(__dirname, '../../docs/nodes.md'), 'utf8');
	const section = readme.slice(readme.indexOf('### Code-based metrics'));
	const block = /```js\n([\s\S]*?)```/.exec(section);
	if (!block) throw new Error('docs/nodes.md: no js block under "Code-based metrics"');
	return block[1];
})();

const rows: IDataObject[] = [
	{ request_id: 'q1', response: 'Paris.', expected_response: 'paris' },
	{ request_id: 'q2', response: 'Tokyo', expected_response: 'Tokyo' },
	{ request_id: 'q3', response: '42', expected_response: '42' },
	{
		request_id: 'q4',
		response: 'It is probably Lyon, but I would check an atlas to be sure.',
		expected_response: 'Paris',
	},
	{
		request_id: 'q5',
		response: 'William Shakespeare wrote it in about 1600, or so they say.',
		expected_response: 'Shakespeare',
	},
	{ request_id: 'q6', response: 'Berlin', expected_response: 'Bonn' },
	// No expected response: exact match cannot be computed (not applicable, never a fail).
	{ request_id: 'q7', response: 'Blue.' },
	{ request_id: 'q8', response: 'Seven.' },
];

/** Last night: the same questions answered in one or two words, two of six exactly right. */
function baseline() {
	const score = (metric: string, value: boolean | number): Score =>
		typeof value === 'boolean'
			? {
					metric,
					value,
					pass: value,
					status: 'ok',
					scale: { kind: 'binary', min: 0, max: 1 },
					direction: 'higher',
					signature: 'code:exact_match@1|norm:lower-trim-punct',
				}
			: {
					metric,
					value,
					pass: value <= 8,
					status: 'ok',
					threshold: 8,
					scale: { kind: 'count', min: 0, max: 1000 },
					direction: 'lower',
					signature: 'code:answer_words@1|split:whitespace',
				};
	return aggregate(
		rows.map((r, i) => ({
			request_id: r.request_id,
			eval: {
				...(r.expected_response !== undefined ? { exact_match: score('exact_match', i < 2) } : {}),
				answer_words: score('answer_words', 1 + (i % 2)),
			},
		})),
	);
}

const node = (name: string, type: string, parameters: IDataObject, typeVersion = 1): INode => ({
	id: name,
	name,
	type,
	typeVersion,
	position: [0, 0],
	parameters: parameters as INode['parameters'],
});

function workflow(): WorkflowJson {
	return {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}),
			node(
				'Exact Match',
				'n8n-nodes-base.code',
				{ mode: 'runOnceForAllItems', language: 'javaScript', jsCode: EXACT_MATCH_CODE },
				2,
			),
			node('Eval Aggregate', 'n8n-nodes-rag-eval.evalAggregate', {
				output: 'summary',
				options: { bootstrapResamples: 0 },
			}),
			node('Regression Gate', 'n8n-nodes-rag-eval.regressionGate', {
				baseline: JSON.stringify(baseline()),
				defaultTolerance: 0.05,
				options: { minCoverage: 0 },
			}),
			node('Root-Cause Router', 'n8n-nodes-rag-eval.rootCauseRouter', {}),
		],
		connections: {
			Start: { main: [[{ node: 'Exact Match', type: 'main', index: 0 }]] },
			'Exact Match': {
				main: [
					[
						{ node: 'Eval Aggregate', type: 'main', index: 0 },
						{ node: 'Root-Cause Router', type: 'main', index: 0 },
					],
				],
			},
			'Eval Aggregate': { main: [[{ node: 'Regression Gate', type: 'main', index: 0 }]] },
		},
	};
}

describe('a Code node emitting Scores, treated like ours', () => {
	it('aggregates, routes and gates an exact-match metric computed in n8n Code', async () => {
		const r = await runWorkflow(workflow(), { startItems: rows.map((json) => ({ json })) });
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();

		// The Code node's items: a Score per metric under eval, in our shape.
		const scored = r.output('Exact Match');
		expect(scored).toHaveLength(rows.length);
		const em = (k: number) => (scored[k].eval as Record<string, Score>).exact_match;
		expect(scored.map((_, k) => em(k).value)).toEqual([
			true,
			true,
			true,
			false,
			false,
			false,
			null,
			null,
		]);
		expect(em(6)).toMatchObject({ status: 'not_applicable', pass: null });
		expect(r.items('Exact Match').map((x) => x.pairedItem)).toEqual(
			rows.map((_, k) => ({ item: k })),
		);

		// Eval Aggregate: its run metric, pass rate and coverage, as for a judge of ours.
		const [summary] = r.output('Eval Aggregate');
		const per = summary.perMetric as Record<string, IDataObject>;
		expect(per.exact_match).toMatchObject({
			measured: 6,
			notApplicable: 2,
			errored: 0,
			passRate: { value: 0.5, count: 3, of: 6 },
			direction: 'higher',
		});
		const runMetric = per.exact_match.runMetric as string;
		expect((summary.metrics as Record<string, IDataObject>)[runMetric]).toMatchObject({
			value: 0.5,
			measured: 6,
			notApplicable: 2,
		});
		expect(per.answer_words).toMatchObject({
			measured: 8,
			mean: { value: 3.75 },
			passRate: { value: 0.75, count: 6, of: 8 },
			direction: 'lower',
		});
		// Rows the metric could not score are not counted as judged.
		expect(summary.coverage).toMatchObject({ judged: 6, of: 8 });
		expect(summary.rootCauses).toEqual([
			expect.objectContaining({ cause: 'exact_match', count: 3, examples: ['q4', 'q5', 'q6'] }),
		]);

		// Root-Cause Router: a failing yes/no code metric leaves on Custom Judge, as user judges do.
		const names = routerOutputNames();
		const routed = (name: string) =>
			r.output('Root-Cause Router', names.indexOf(name)).map((x) => x.request_id);
		expect(routed('Pass')).toEqual(['q1', 'q2', 'q3']);
		expect(routed('Custom Judge')).toEqual(['q4', 'q5', 'q6']);
		expect(routed('Incomplete')).toEqual(['q7', 'q8']);
		expect(r.output('Root-Cause Router', names.indexOf('Custom Judge'))[0]).toMatchObject({
			overall: 'fail',
			root_cause: 'exact_match',
			root_cause_rationale: 'The response differs from the expected response.',
		});

		// Regression Gate: the direction the Score states is honoured. More words is worse for
		// answer_words (lower is better): regressed. A higher exact-match rate is not.
		expect(r.output('Regression Gate', 0)).toHaveLength(0);
		const [gated] = r.output('Regression Gate', 1);
		const table = (gated.gate as { table: IDataObject[] }).table;
		const line = (metric: string) => table.find((t) => t.metric === metric);
		expect(line('answer_words/mean')).toMatchObject({
			baseline: 1.5,
			current: 3.75,
			direction: 'lower',
			verdict: 'regressed',
		});
		expect(line(runMetric)).toMatchObject({ direction: 'higher', current: 0.5 });
		expect(line(runMetric)!.verdict).not.toBe('regressed');
		expect(table.filter((t) => t.verdict === 'regressed').map((t) => t.metric)).toEqual([
			'answer_words/mean',
		]);
	});
});
