/**
 * Issue 44 item 2 on the real engine: a row not judged shows where people look. Every scoring
 * node (through the one item loop) gets an execution hint naming how many rows were not scored or
 * errored and why, commonest reason first; Eval Aggregate says "nothing judged" (no pass rate)
 * when no row got a verdict. Rows also carry each verdict first (Score Up Front).
 */
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, type EngineRun } from '../support/engine';
import { faults, startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const NO_MODEL =
	'no judge model configured: add a RAG Eval LLM API credential or connect a Chat Model';

function hintsOf(
	r: EngineRun,
	node: string,
): { type?: string; location?: string; message: string }[] {
	return r.run.data.resultData.runData[node][0].hints ?? [];
}

const rows = (n: number, text: (i: number) => string = (i) => `question ${i + 1}`) =>
	Array.from({ length: n }, (_, i) => ({
		json: {
			request_id: `q${i + 1}`,
			request: text(i),
			response: `answer ${i + 1}`,
			retrieved_context: [{ content: `context ${i + 1}` }],
		},
	}));

describe('rows not scored show on the node', () => {
	it('no judge model: each judge says "3 of 3 rows not scored" and the aggregate "nothing judged"', async () => {
		const r = await runWorkflow(
			chain(
				{ name: 'Eval Dataset', type: 'evalDataset', parameters: { source: 'items' } },
				{ name: 'Groundedness', type: 'judgeGroundedness' },
				{ name: 'Safety', type: 'judgeSafety' },
				{ name: 'Content Safety', type: 'evalContentSafety' },
				{
					name: 'Eval Aggregate',
					type: 'evalAggregate',
					parameters: { output: 'summary', options: { bootstrapResamples: 0 } },
				},
			),
			{ startItems: rows(3) },
		);
		expect(r.run.status).toBe('success');
		for (const node of ['Groundedness', 'Safety'])
			expect(hintsOf(r, node)).toEqual([
				{ type: 'warning', location: 'outputPane', message: `3 of 3 rows not scored: ${NO_MODEL}` },
			]);
		// Four harm categories per row, one reason: each row counts once.
		const [safetyHint] = hintsOf(r, 'Content Safety');
		expect(safetyHint.message).toMatch(/^3 of 3 rows not scored: [^;]+$/);

		// The verdict is the row's first column, null beside the full Score when not scored.
		const [row] = r.output('Safety');
		expect(Object.keys(row).slice(0, 4)).toEqual([
			'groundedness',
			'groundedness_pass',
			'safety',
			'safety_pass',
		]);
		expect(row).toMatchObject({ groundedness: null, groundedness_pass: null, safety: null });
		expect((row.eval as Record<string, Score>).safety).toMatchObject({
			status: 'not_applicable',
			reason: NO_MODEL,
		});
		expect(Object.keys(row).pop()).toBe('source');

		const [summary] = r.output('Eval Aggregate');
		const overall = summary.overall as IDataObject;
		expect(overall.passRate).toEqual({ count: 0, of: 3, note: 'nothing judged' });
		expect(summary.status).toBe('incomplete');
		const scores = summary.scores as Record<string, IDataObject>;
		expect(scores.groundedness).toMatchObject({
			display: 'nothing scored',
			line: 'nothing scored — 0 of 3 rows scored, 3 not applicable',
		});
		expect(scores.groundedness).not.toHaveProperty('value');
		const [aggHint] = hintsOf(r, 'Eval Aggregate');
		expect(aggHint).toMatchObject({ type: 'warning', location: 'outputPane' });
		expect(aggHint.message.split('\n')).toEqual(
			expect.arrayContaining([
				'Nothing judged: none of the 3 rows got a verdict, so the summary has no pass rate',
				'groundedness: nothing scored — 0 of 3 rows scored, 3 not applicable',
				'safety: nothing scored — 0 of 3 rows scored, 3 not applicable',
			]),
		);
	});

	it('a metric node: rows without ground truth and a malformed one, counted by reason', async () => {
		const start = [
			{ request_id: 'a', response: 'Tokyo', expected_response: 'Tokyo' },
			{ request_id: 'b', response: 'Paris' },
			{ request_id: 'c', response: 'Rome' },
			{ request_id: 'd', response: 'Oslo', expected_response: 42 },
			{ request_id: 'e', response: 'Lima', expected_response: 'Lima' },
		].map((json) => ({ json }));
		const r = await runWorkflow(chain({ name: 'F1', type: 'evalF1Score' }), { startItems: start });
		const out = r.output('F1');
		const f1 = out.map((x) => (x.eval as Record<string, Score>).f1_score);
		expect(f1.map((s) => s.status)).toEqual([
			'ok',
			'not_applicable',
			'not_applicable',
			'error',
			'ok',
		]);
		expect(hintsOf(r, 'F1').map((h) => h.message)).toEqual([
			`2 of 5 rows not scored: ${f1[1].reason}`,
			'1 of 5 rows errored: expected_response: expected text, got number',
		]);
		// The row keeps its labelled error; the hint names the fault once, without the row.
		expect(f1[3].error).toBe(
			'row 4 (request_id "d"): expected_response: expected text, got number',
		);
		expect(out[0]).toMatchObject({ f1_score: 1, f1_score_pass: true });
		// No hint when every row was scored.
		const clean = await runWorkflow(chain({ name: 'F1', type: 'evalF1Score' }), {
			startItems: [start[0], start[4]],
		});
		expect(hintsOf(clean, 'F1')).toEqual([]);
	});

	it('Cost & Latency without a budget: rows not scored by design are an info, rows without figures a warning', async () => {
		const [withFigures, without] = rows(2);
		withFigures.json = {
			...withFigures.json,
			total_token_count: 120,
			latency_seconds: 1.5,
		} as never;
		const r = await runWorkflow(chain({ name: 'Cost', type: 'evalCostLatency' }), {
			startItems: [withFigures, without],
		});
		expect(r.output('Cost')[0]).toMatchObject({ total_token_count: 120, latency_seconds: 1.5 });
		expect(hintsOf(r, 'Cost')).toEqual([
			{
				type: 'warning',
				location: 'outputPane',
				message: '1 of 2 rows not scored: no trace and no token, latency or cost fields on the row',
			},
			{
				type: 'info',
				location: 'outputPane',
				message: '1 of 2 rows not scored: no budget set (max tokens, max latency or max cost)',
			},
		]);
	});

	describe('a judge whose model fails some rows', () => {
		let server: OpenAIServer;
		beforeEach(async () => {
			server = await startOpenAIServer();
			server.setDefault((req) => {
				const text = JSON.stringify(req.messages);
				if (text.includes('[down]')) return faults.unavailable();
				if (text.includes('[odd]')) return { content: 'I would rather not say.' };
				return { json: { reason: 'Every claim is in the context.', score: 5 } };
			});
		});
		afterEach(async () => {
			server.assertNoUnexpected();
			await server.close();
		});

		it('"3 of 19 rows errored", the commonest reason first with its count', async () => {
			const marks: Record<number, string> = { 3: ' [down]', 9: ' [odd]', 14: ' [down]' };
			const r = await runWorkflow(
				chain({
					name: 'Groundedness',
					type: 'judgeGroundedness',
					parameters: { options: { concurrency: 1, maxRetries: 0 } },
					credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
				}),
				{
					startItems: rows(19, (i) => `question ${i + 1}${marks[i] ?? ''}`),
					credentials: {
						ragEvalLlmApi: {
							provider: 'compatible',
							baseUrl: server.baseUrl,
							apiKey: 'sk-test-notices-00000000000',
							model: 'judge-model',
						},
					},
				},
			);
			const scores = r
				.output('Groundedness')
				.map((x) => (x.eval as Record<string, Score>).groundedness);
			const errors = scores.filter((s) => s.status === 'error');
			expect(errors).toHaveLength(3);
			const strip = (e?: string) => (e ?? '').replace(/^row \d+ \(request_id "q\d+"\): /, '');
			const [down, odd] = [strip(scores[3].error), strip(scores[9].error)];
			expect(strip(scores[14].error)).toBe(down);
			expect(down).not.toBe(odd);
			const hints = hintsOf(r, 'Groundedness');
			expect(hints).toHaveLength(1);
			expect(hints[0]).toMatchObject({ type: 'warning', location: 'outputPane' });
			expect(hints[0].message).toBe(`3 of 19 rows errored: ${down} (2 rows); ${odd} (1 row)`);
		});
	});

	describe('Score Up Front', () => {
		const start = [{ json: { request_id: 'a', response: 'Tokyo', expected_response: 'Tokyo' } }];

		it('Score Object Only keeps the row as before: no verdict columns', async () => {
			const r = await runWorkflow(
				chain({
					name: 'F1',
					type: 'evalF1Score',
					parameters: { options: { outputFormat: 'score' } },
				}),
				{ startItems: start },
			);
			const [row] = r.output('F1');
			expect(Object.keys(row)).toEqual(['request_id', 'response', 'expected_response', 'eval']);
		});

		it('never overwrites a field of the row: a Result Key named like one gets no columns', async () => {
			const r = await runWorkflow(
				chain({
					name: 'F1',
					type: 'evalF1Score',
					parameters: { options: { resultKey: 'response' } },
				}),
				{ startItems: start },
			);
			const [row] = r.output('F1');
			expect(row.response).toBe('Tokyo');
			expect(row).not.toHaveProperty('response_pass');
			expect((row.eval as Record<string, Score>).response).toMatchObject({ value: 1 });
		});
	});
});
