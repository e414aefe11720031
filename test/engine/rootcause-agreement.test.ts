/**
 * Root cause is decided once per row: the Root-Cause Router's routing and Eval Aggregate's
 * root-cause table agree on every row, whether the aggregate runs after the router (it reads
 * `overall` / `root_cause` from the items) or on its own (it calls the same function with the
 * same policy). Also the Output Format option of scoring nodes on the real engine.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { routerOutputNames } from '../../src/rootcause';
import { createRng } from '../../src/stats/random';
import { runWorkflow, singleNode } from '../support/engine';

const likert = (metric: string, value: number): Score => ({
	metric,
	value,
	scale: { kind: 'likert', min: 1, max: 5 },
	threshold: 3,
	direction: 'higher',
	pass: value >= 3,
	status: 'ok',
	reason: `${metric}=${value}`,
	signature: metric,
});
const verdict = (metric: string, value: boolean): Score => ({
	metric,
	value,
	scale: { kind: 'binary', min: 0, max: 1 },
	direction: 'higher',
	pass: value,
	status: 'ok',
	reason: `${metric}:${value}`,
	signature: metric,
});
const errored = (metric: string): Score => ({
	metric,
	value: null,
	scale: { kind: 'likert', min: 1, max: 5 },
	direction: 'higher',
	pass: null,
	status: 'error',
	error: `${metric} timed out`,
	signature: metric,
});

// 60 rows mixing ground truth, several judges (one under a custom key), custom judges and errors.
function rows(): IDataObject[] {
	const r = createRng(7);
	const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
	return Array.from({ length: 60 }, (_, i) => {
		const evals: Record<string, Score> = {};
		if (r() < 0.8)
			evals.groundedness = pick([
				likert('groundedness', pick([1, 2, 4, 5])),
				errored('groundedness'),
			]);
		if (r() < 0.5) evals.grounded_yes_no = verdict('groundedness_verdict', r() < 0.7);
		if (r() < 0.7) evals.coherence = likert('coherence', pick([1, 3, 5]));
		if (r() < 0.6) evals.similarity = likert('similarity', pick([2, 4]));
		if (r() < 0.4) evals.tone = verdict('tone', r() < 0.6);
		if (r() < 0.1) evals.relevance = errored('relevance');
		const row: IDataObject = {
			request_id: `q${String(i).padStart(2, '0')}`,
			eval: evals as unknown as IDataObject,
		};
		if (r() < 0.5) row.expected_response = 'the reference';
		return row;
	}).concat([
		// Fixed rows so every kind of outcome occurs under every policy.
		{ request_id: 'z1', eval: { tone: verdict('tone', false) } as unknown as IDataObject },
		{ request_id: 'z2', eval: { relevance: errored('relevance') } as unknown as IDataObject },
		{ request_id: 'z3' },
	]);
}

describe('root cause decided once: router and aggregate agree', () => {
	const policies: INodeParameters[] = [
		{},
		{ groundTruth: 'yes', orderWithGroundTruth: 'similarity, coherence, groundedness' },
		{ groundTruth: 'no', orderWithoutGroundTruth: 'tone, coherence' },
	];

	it.each(policies.map((p) => [JSON.stringify(p), p]))('policy %s', async (_, policy) => {
		const input = rows().map((json) => ({ json }));
		const routed = await runWorkflow(singleNode('n8n-nodes-rag-eval.rootCauseRouter', policy), {
			startItems: input,
		});
		const names = routerOutputNames();
		const byRow = new Map<string, { overall: string; cause: string | null; output: string }>();
		names.forEach((name, k) => {
			for (const x of routed.output('Node', k))
				byRow.set(String(x.request_id), {
					overall: String(x.overall),
					cause: (x.root_cause as string | null) ?? null,
					output: name,
				});
		});
		expect(byRow.size).toBe(63);
		const counts = new Map<string, number>();
		for (const v of byRow.values())
			if (v.overall === 'fail') counts.set(v.cause!, (counts.get(v.cause!) ?? 0) + 1);
		// Some rows fail on declared slots, some on the custom judge, some are incomplete.
		expect(counts.size).toBeGreaterThanOrEqual(3);
		expect([...byRow.values()].some((v) => v.output === 'Custom Judge')).toBe(true);
		expect([...byRow.values()].some((v) => v.overall === 'incomplete')).toBe(true);

		const summaryOf = async (items: { json: IDataObject }[]) => {
			const agg = await runWorkflow(
				singleNode('n8n-nodes-rag-eval.evalAggregate', {
					output: 'summary',
					options: { bootstrapResamples: 0, exampleLimit: 100, ...policy },
				}),
				{ startItems: items },
			);
			expect(agg.nodeError('Node')).toBeUndefined();
			return agg.output('Node', 0)[0] as {
				overall: { pass: number; fail: number; incomplete: number };
				rootCauses: { cause: string; count: number; examples: string[] }[];
				incomplete: { count: number; examples: string[] };
			};
		};
		const afterRouter = await summaryOf(
			names.flatMap((_, k) => routed.output('Node', k)).map((json) => ({ json })),
		);
		const alone = await summaryOf(rows().map((json) => ({ json })));
		for (const s of [afterRouter, alone]) {
			const fromRows = [...byRow.values()];
			expect(s.overall).toMatchObject({
				pass: fromRows.filter((v) => v.overall === 'pass').length,
				fail: fromRows.filter((v) => v.overall === 'fail').length,
				incomplete: fromRows.filter((v) => v.overall === 'incomplete').length,
			});
			expect(Object.fromEntries(s.rootCauses.map((c) => [c.cause, c.count]))).toEqual(
				Object.fromEntries(counts),
			);
			// Each cause's example rows are exactly the rows the router sent there.
			for (const c of s.rootCauses)
				for (const id of c.examples) expect(byRow.get(id)?.cause).toBe(c.cause);
		}
	});
});

describe('Output Format on the real engine', () => {
	const row = {
		request_id: 'q1',
		request: 'When does the store open?',
		response: 'The store opens at nine.',
		expected_response: 'It opens at 9 am.',
	};

	it('adds flat numbers and keeps the Score', async () => {
		const r = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalF1Score', { options: { outputFormat: 'flat' } }),
			{ startItems: [{ json: row }, { json: { ...row, expected_response: null } }] },
		);
		const [scored, notScored] = r.output('Node', 0);
		const f1 = (scored.eval as Record<string, Score>).f1_score;
		expect(scored.f1_score).toBe(f1.value);
		expect(typeof scored.f1_score).toBe('number');
		// A row that was not scored gets no number (n8n's Set Metrics accepts numbers only).
		expect((notScored.eval as Record<string, Score>).f1_score.status).toBe('not_applicable');
		expect('f1_score' in notScored).toBe(false);
	});
});
