/**
 * Judge panels on the real engine: three Chat Model sub-nodes connected to one judge, each a
 * different model on the local OpenAI-compatible server with its own verdict script. The pooled
 * verdict, the disagreement, each juror's verdict and cost, the quorum, and the Review Queue
 * reason are read from the nodes' real outputs.
 */
import type { IConnections, IDataObject, INode } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { runWorkflow, workflowNode, type WorkflowJson } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

const JURORS = ['juror-a', 'juror-b', 'juror-c'];

/** Start -> Relevance to Query judge (three Chat Models, by model name) -> Review Queue. */
function panelWorkflow(options: IDataObject = {}, jurors = JURORS): WorkflowJson {
	const nodes: INode[] = [
		workflowNode('Start', 'n8n-nodes-base.manualTrigger'),
		workflowNode('Judge', 'n8n-nodes-rag-eval.judgeRelevanceToQuery', {
			options: { cache: false, ...options },
		}),
		workflowNode('Review Queue', 'n8n-nodes-rag-eval.reviewQueue', {
			maxRows: 10,
			passingShare: 0,
			seed: 1,
		}),
		...jurors.map((m) =>
			workflowNode(`Model ${m}`, 'test.chatModel', { baseUrl: server.baseUrl, model: m }),
		),
	];
	const connections: IConnections = {
		Start: { main: [[{ node: 'Judge', type: 'main', index: 0 }]] },
		Judge: { main: [[{ node: 'Review Queue', type: 'main', index: 0 }]] },
	};
	for (const m of jurors)
		connections[`Model ${m}`] = {
			ai_languageModel: [[{ node: 'Judge', type: 'ai_languageModel', index: 0 }]],
		};
	return { nodes, connections };
}

const row = {
	request_id: 'q1',
	request: 'What is the capital of Japan?',
	response: 'Tokyo is the capital of Japan.',
};

const yes = { json: { reason: 'It answers the question.', verdict: 'yes' } };
const no = { json: { reason: 'It talks about something else.', verdict: 'no' } };

function judged(r: Awaited<ReturnType<typeof runWorkflow>>): Score {
	const out = r.output('Judge');
	expect(out).toHaveLength(1);
	return (out[0].eval as Record<string, Score>).relevance_to_query;
}

interface JurorDetail {
	juror: string;
	model: string;
	status: string;
	value: boolean | null;
	signature: string;
	usage?: { totalTokens: number };
	error?: string;
}

describe('judge panels on the engine', () => {
	it('three jurors, one dissenting: the majority verdict, a disagreement of 1/3, every juror kept, and a Review Queue reason', async () => {
		server.scriptFor('juror-a', yes);
		server.scriptFor('juror-b', no);
		server.scriptFor('juror-c', yes);
		const r = await runWorkflow(panelWorkflow(), { startItems: [{ json: row }] });
		expect(r.nodeError('Judge')).toBeUndefined();
		const s = judged(r);
		expect(s.status).toBe('ok');
		expect(s.value).toBe(true);
		expect(s.pass).toBe(true);
		const panel = s.details!.panel as {
			pool: string;
			quorum: number;
			jurors: JurorDetail[];
			answered: number;
			disagreement: number;
			disagrees: boolean;
		};
		expect(panel.pool).toBe('majority');
		expect(panel.quorum).toBe(3);
		expect(panel.answered).toBe(3);
		// One of the three jurors is not with the pooled yes.
		expect(panel.disagreement).toBeCloseTo(1 / 3, 12);
		expect(panel.disagrees).toBe(true);
		const byModel = panel.jurors.slice().sort((a, b) => a.model.localeCompare(b.model));
		expect(byModel.map((j) => [j.model, j.value])).toEqual([
			['juror-a', true],
			['juror-b', false],
			['juror-c', true],
		]);
		// Each juror signs with its own model; the panel's signature names all three and the rule.
		for (const j of panel.jurors) expect(j.signature).toContain(`model:${j.model}|`);
		expect(s.signature).toContain('model:panel[juror-a+juror-b+juror-c]');
		expect(s.signature).toContain('|pool:majority|quorum:3');
		// The row's tokens are the jurors' tokens summed, each juror's own kept beside its verdict.
		const perJuror = panel.jurors.map((j) => j.usage!.totalTokens);
		expect(perJuror.every((t) => t > 0)).toBe(true);
		expect(s.usage!.totalTokens).toBe(perJuror.reduce((a, b) => a + b, 0));
		expect(s.attempts).toBe(3);
		expect(server.chatRequests().map((c) => c.model)).toEqual(
			expect.arrayContaining(['juror-a', 'juror-b', 'juror-c']),
		);
		expect(server.chatRequests()).toHaveLength(3);
		// A passing row whose jurors split is queued for review, for that reason alone.
		const queued = r.output('Review Queue', 0);
		expect(queued).toHaveLength(1);
		expect((queued[0].review as { reasons: string[] }).reasons).toEqual(['panel_disagrees']);
	});

	it('a unanimous panel is not a review reason', async () => {
		for (const m of JURORS) server.scriptFor(m, no);
		const r = await runWorkflow(panelWorkflow(), { startItems: [{ json: row }] });
		const s = judged(r);
		expect(s.value).toBe(false);
		expect(s.details!.panel).toMatchObject({ disagreement: 0, disagrees: false, answered: 3 });
		const queued = r.output('Review Queue', 0);
		expect((queued[0].review as { reasons: string[] }).reasons).toEqual(['fail']);
	});

	it('one juror failing: with quorum 2 the verdict says 2 of 3 answered; with quorum 3 the row is an error naming the juror', async () => {
		// Twice a reply that is not a verdict (the first and the re-ask): that juror's call fails.
		const broken = [{ content: 'I would rather not say.' }, { content: 'Still no.' }];
		server.scriptFor('juror-a', yes);
		server.scriptFor('juror-b', ...broken);
		server.scriptFor('juror-c', no);
		const two = await runWorkflow(panelWorkflow({ panelQuorum: 2 }), {
			startItems: [{ json: row }],
		});
		const s = judged(two);
		expect(s.status).toBe('ok');
		// One yes and one no: the tie takes the failing verdict.
		expect(s.value).toBe(false);
		expect(s.details!.panel).toMatchObject({ answered: 2, jurors: expect.any(Array), quorum: 2 });
		expect(s.reason).toContain('2 of 3 jurors answered');
		const failedJuror = (s.details!.panel as { jurors: JurorDetail[] }).jurors.find(
			(j) => j.model === 'juror-b',
		)!;
		expect(failedJuror).toMatchObject({ status: 'error', value: null });
		expect(failedJuror.error).toMatch(/could not parse the judge reply after one re-ask/);

		server.scriptFor('juror-a', yes);
		server.scriptFor('juror-b', ...broken);
		server.scriptFor('juror-c', yes);
		const three = await runWorkflow(panelWorkflow({ panelQuorum: 3 }), {
			startItems: [{ json: row }],
		});
		const e = judged(three);
		expect(e.status).toBe('error');
		expect(e.value).toBeNull();
		expect(e.pass).toBeNull();
		expect(e.error).toMatch(
			/row 1 \(request_id "q1"\): Relevance to Query: panel: 2 of 3 jurors answered, below the quorum of 3: chat model \(juror-b\): could not parse/,
		);
	});

	it('mean, median and worst pool ratings; the spread is recorded', async () => {
		const rating = (score: number) => ({ json: { reason: `rated ${score}`, score } });
		const coherence = (options: IDataObject): WorkflowJson => {
			const wf = panelWorkflow(options);
			wf.nodes[1] = workflowNode('Judge', 'n8n-nodes-rag-eval.judgeCoherence', {
				options: { cache: false, ...options },
			});
			return wf;
		};
		const results: Record<string, Score> = {};
		for (const pool of ['mean', 'median', 'worst']) {
			server.scriptFor('juror-a', rating(5));
			server.scriptFor('juror-b', rating(2));
			server.scriptFor('juror-c', rating(4));
			const r = await runWorkflow(coherence({ panelPool: pool }), { startItems: [{ json: row }] });
			results[pool] = (r.output('Judge')[0].eval as Record<string, Score>).coherence;
		}
		expect(results.mean.value).toBeCloseTo(11 / 3, 12);
		expect(results.median.value).toBe(4);
		expect(results.worst.value).toBe(2);
		expect(results.worst.pass).toBe(false);
		// 5 and 2 lie 3 points apart on a 1-5 scale: at least half of it, so the panel disagrees.
		expect(results.mean.details!.panel).toMatchObject({ spread: 3, disagrees: true });
	});

	it("Estimate Only counts every juror's call and sends none", async () => {
		const r = await runWorkflow(panelWorkflow({ runMode: 'estimate' }), {
			startItems: [{ json: row }],
		});
		expect(r.nodeError('Judge')).toBeUndefined();
		const est = (r.output('Judge')[0].estimate as Record<string, { calls: number; status: string }>)
			.relevance_to_query;
		expect(est.status).toBe('estimated');
		expect(est.calls).toBe(3);
		expect(server.chatRequests()).toHaveLength(0);
	});
});
