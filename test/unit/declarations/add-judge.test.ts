/**
 * Declare once: a judge written in one file (test/support/extra-judge.ts) appears in the router's
 * outputs, the root-cause order, the aggregate's run-metric names and directions, the gate's
 * direction, the node description and the README tables, with no other edit.
 */
import { aggregate } from '../../../src/aggregate';
import type { EvaluatorFacts, MetricDecl } from '../../../src/core/types';
import { evaluatorTables } from '../../../src/docs/tables';
import { compareRuns } from '../../../src/gate';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import { judgeRegistry, validateJudge } from '../../../src/judges/registry';
import { runJudge } from '../../../src/judges/run';
import type { JudgeDecl } from '../../../src/judges/types';
import { metricRegistry } from '../../../src/metrics/registry';
import { evaluatorProblems, evaluatorRegistry } from '../../../src/registry';
import {
	decideRootCause,
	defaultOrder,
	routerOutputIndex,
	routerOutputNames,
	suggestedFixFor,
} from '../../../src/rootcause';
import { judgeDescription } from '../../../nodes/shared/judgeNode';
import { verbosity } from '../../support/extra-judge';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server';

const decl: JudgeDecl = verbosity;
const registry: EvaluatorFacts[] = [...evaluatorRegistry, decl];

describe('a judge added by one declaration', () => {
	let server: OpenAIServer;
	beforeAll(async () => {
		server = await startOpenAIServer();
	});
	afterAll(async () => {
		await server.close();
	});

	it('is a valid declaration alongside the package registry', () => {
		expect(validateJudge(decl)).toEqual([]);
		expect(evaluatorProblems(registry)).toEqual([]);
	});

	it('gets its own router output at the end, and a place in the order it ranks in', () => {
		const before = routerOutputNames();
		const after = routerOutputNames(registry);
		expect(after.slice(0, before.length)).toEqual(before);
		expect(after[after.length - 1]).toBe('verbosity');
		expect(defaultOrder('withoutGroundTruth', registry)).toContain('verbosity');
		expect(defaultOrder('withGroundTruth', registry)).not.toContain('verbosity');
		expect(suggestedFixFor('verbosity', registry)).toBe(decl.rootCause!.fix);
	});

	it('scores through the runtime, routes, aggregates under its names and gates by its direction', async () => {
		const source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
		const governor = new Governor({ backoffBaseMs: 1, timeoutMs: 2000 });
		const rows = async (scores: number[]) => {
			const out: Record<string, unknown>[] = [];
			for (const [i, v] of scores.entries()) {
				server.script({ json: { reason: `verbosity ${v}`, score: v } });
				const row = { request_id: `q${i}`, request: 'Opening hours?', response: 'Nine to five.' };
				const score = await runJudge(decl, row, { source, governor });
				out.push({ ...row, eval: { verbosity: score } });
			}
			return out;
		};
		const tonight = await rows([5, 4, 5, 2]);
		const lastNight = await rows([1, 2, 1, 2]);
		const s0 = (tonight[0].eval as Record<string, { direction: string; pass: boolean }>).verbosity;
		expect(s0).toMatchObject({ direction: 'lower', pass: false });

		// Routing: the failing rows leave on the new slot's output.
		const verdict = decideRootCause(tonight[0], undefined, registry);
		expect(verdict).toMatchObject({ overall: 'fail', rootCause: 'verbosity' });
		expect(routerOutputNames(registry)[routerOutputIndex(verdict, registry)]).toBe('verbosity');

		// Aggregate: its Databricks run metric, with its direction, and its root cause.
		const current = aggregate(tonight, { registry, bootstrapResamples: 0 });
		const baseline = aggregate(lastNight, { registry, bootstrapResamples: 0 });
		const name = 'response/llm_judged/verbosity/rating/average';
		expect(current.metrics[name]).toMatchObject({ value: 4, direction: 'lower', measured: 4 });
		expect(current.rootCauses[0]).toMatchObject({ cause: 'verbosity', count: 3 });
		expect(current.rootCauses[0].suggestedFix).toBe(decl.rootCause!.fix);

		// Gate: higher verbosity is worse, as declared; no guess from the name.
		const gate = compareRuns(current, baseline, { defaultTolerance: 0.5 });
		const row = gate.table.find((t) => t.metric === name);
		expect(row).toMatchObject({ direction: 'lower', verdict: 'regressed' });
	});

	it('gets its node description and README rows', () => {
		const node = judgeDescription(decl);
		expect(node.name).toBe('judgeVerbosity');
		expect(node.properties.map((p) => p.name)).toEqual(
			expect.arrayContaining(['request', 'response', 'threshold', 'options']),
		);
		const tables = evaluatorTables(metricRegistry as MetricDecl[], [...judgeRegistry, decl]);
		expect(tables).toContain('**Verbosity Judge**');
		expect(tables).toContain('`response/llm_judged/verbosity/rating/average`');
		// Rank 5 without ground truth: after the three Tool Calls slots, the five agent-judge slots
		// and the seed's four judges, 13th.
		expect(tables).toMatch(/\| \d+ \| `verbosity` \| after the order \| #13 \| `verbosity` \|/);
	});
});
