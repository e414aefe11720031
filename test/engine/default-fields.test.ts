/**
 * The item loop reads an input whose parameter is still its default `={{ $json.<field> }}` from
 * the item itself instead of through n8n's expression engine. Same results, checked on the real
 * engine: the values n8n resolves for such a parameter (string- and json-typed, every JSON type,
 * a missing field), and whole metric and judge nodes run with the default parameters and with an
 * equivalent edited expression (which takes n8n's path) give the same Scores and items.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runWorkflow, singleNode } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const VALUES: unknown[] = [
	undefined,
	null,
	'',
	'  ',
	'Paris is the capital.',
	0,
	3.5,
	true,
	[],
	['a', 'b'],
	{},
	{ a: [1, { b: null }] },
	'[1,2]',
	'{"x":1}',
	'=x',
	[{ doc_uri: 'a', content: 'Paris is in France.' }],
];
const items = (field: string) =>
	VALUES.map((v) => ({ json: (v === undefined ? {} : { [field]: v }) as IDataObject }));

/** Output items without the figures that differ between runs (latency). */
function stable(out: IDataObject[]): unknown {
	return JSON.parse(
		JSON.stringify(out, (k, v: unknown) =>
			k === 'latencyMs' || k === 'originalLatencyMs' ? 0 : v,
		),
	);
}

describe('untouched default field parameters', () => {
	it('n8n resolves `={{ $json.<field> }}` to the item field itself, for every type', async () => {
		const r = await runWorkflow(singleNode('test.paramProbe', {}), {
			startItems: items('response'),
		});
		expect(r.nodeError('Node')).toBeUndefined();
		const out = r.output('Node');
		VALUES.forEach((v, i) => {
			const expected = v === undefined ? '(undefined)' : v;
			expect([i, out[i].text]).toEqual([i, expected]);
			expect([i, out[i].doc]).toEqual([i, expected]);
		});
	});

	it('a metric node scores the same with the default and with an edited expression', async () => {
		const run = async (parameters: INodeParameters) => {
			const start = items('response').map((it, i) => ({
				json: {
					...it.json,
					expected_response: i % 2 ? 'Paris is the capital.' : ['x'],
				} as IDataObject,
			}));
			const r = await runWorkflow(singleNode('n8n-nodes-rag-eval.evalF1Score', parameters), {
				startItems: start,
			});
			expect(r.nodeError('Node')).toBeUndefined();
			return { out: r.output('Node'), start };
		};
		const direct = await run({});
		const viaN8n = await run({
			response: '={{ $json["response"] }}',
			groundTruth: '={{ $json["expected_response"] }}',
		});
		expect(stable(direct.out)).toEqual(stable(viaN8n.out));
		// Every kind of outcome is covered, so the comparison means something.
		const statuses = new Set(
			direct.out.map(
				(o) =>
					(o.eval as IDataObject).f1_score &&
					((o.eval as IDataObject).f1_score as IDataObject).status,
			),
		);
		expect([...statuses].sort()).toEqual(['error', 'not_applicable', 'ok']);
		// The rows' own fields leave as they came.
		direct.out.forEach((o, i) => expect(o.response).toEqual(direct.start[i].json.response));
	});

	describe('a judge node', () => {
		let server: OpenAIServer;
		beforeEach(async () => {
			server = await startOpenAIServer();
			server.setDefault(() => ({ json: { reason: 'On topic.', score: 4 } }));
		});
		afterEach(async () => {
			await server.close();
		});

		it('judges the same rows, with the same prompts, either way', async () => {
			const run = async (parameters: INodeParameters) => {
				const before = server.chatRequests().length;
				const wf = singleNode('n8n-nodes-rag-eval.judgeRelevance', {
					...parameters,
					options: { cache: false },
				});
				wf.nodes[1].credentials = { ragEvalLlmApi: { id: '1', name: 'Judge' } };
				const r = await runWorkflow(wf, {
					startItems: items('response').map((it) => ({
						json: {
							...it.json,
							request: 'What is the capital of France?',
							retrieved_context: [{ doc_uri: 'kb/1', content: 'Paris is the capital of France.' }],
						},
					})),
					credentials: {
						ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'm' },
					},
				});
				expect(r.nodeError('Node')).toBeUndefined();
				const prompts = server
					.chatRequests()
					.slice(before)
					.map((q) => JSON.stringify(q.messages).replace(/data-[0-9a-f]+/g, 'data-N'))
					.sort();
				return { out: r.output('Node'), prompts };
			};
			const direct = await run({});
			const viaN8n = await run({
				request: '={{ $json["request"] }}',
				context: '={{ $json["retrieved_context"] }}',
				response: '={{ $json["response"] }}',
			});
			expect(direct.prompts.length).toBeGreaterThan(3);
			expect(direct.prompts).toEqual(viaN8n.prompts);
			expect(stable(direct.out)).toEqual(stable(viaN8n.out));
		});
	});
});
