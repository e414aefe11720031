/**
 * Adaptive concurrency across the judge nodes of one execution on the real engine: the first node
 * raises its calls in flight from Concurrency towards Max Concurrency while the model's latency
 * holds, and the next node calling the same endpoint and model starts there instead of at its own
 * Concurrency. In-flight requests are counted at the server, per node (by the judge's system
 * prompt); nothing is timed. A Max Concurrency of 0 keeps an OpenAI-compatible server fixed.
 */
import type { INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow } from '../support/engine';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server';

const rows = (n: number) =>
	Array.from({ length: n }, (_, i) => ({
		request_id: `q${i}`,
		request: `Question ${i}?`,
		response: `Answer ${i}, complete.`,
	}));

const JUDGES = [
	['Coherence', 'judgeCoherence', 'rate the coherence'],
	['Fluency', 'judgeFluency', 'rate the fluency'],
] as const;

describe('adaptive concurrency across the judge nodes of one execution', () => {
	let server: OpenAIServer;
	/** Per node: the in-flight count (of all nodes) when each of its requests arrived. */
	let arrivals: Record<string, number[]>;
	beforeEach(async () => {
		server = await startOpenAIServer();
		arrivals = Object.fromEntries(JUDGES.map(([n]) => [n, []]));
		let inFlight = 0;
		server.setDefault(async (req) => {
			const system = req.messages?.[0]?.content ?? '';
			const node = JUDGES.find(([, , phrase]) => system.includes(phrase))?.[0];
			if (!node) throw new Error(`request from no known judge: ${system.slice(0, 80)}`);
			arrivals[node].push(++inFlight);
			await new Promise((r) => setTimeout(r, 60));
			inFlight--;
			return { json: { reason: 'Clear.', score: 4 } };
		});
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});

	const run = (options: INodeParameters, n: number) =>
		runWorkflow(
			chain(
				...JUDGES.map(([name, type]) => ({
					name,
					type,
					parameters: { options: { cache: false, ...options } },
					credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
				})),
			),
			{
				startItems: rows(n).map((json) => ({ json })),
				credentials: {
					ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
				},
			},
		);

	it('the second node starts at the limit the first one reached, not at its own Concurrency', async () => {
		const r = await run({ concurrency: 2, maxConcurrency: 10 }, 200);
		expect(r.run.status).toBe('success');
		for (const [name] of JUDGES) {
			const scores = r
				.output(name)
				.map((j) => (j.eval as Record<string, Score>)[name.toLowerCase()]);
			expect(scores).toHaveLength(200);
			for (const s of scores) expect(s).toMatchObject({ status: 'ok', value: 4 });
		}
		const [first, second] = JUDGES.map(([n]) => arrivals[n]);
		// The first node started two at a time and rose to the ceiling, never past it.
		expect(Math.max(...first.slice(0, 4))).toBe(2);
		expect(Math.max(...first)).toBe(10);
		// The second node's first ten requests were in flight together.
		expect(Math.max(...second.slice(0, 10))).toBe(10);
		expect(Math.max(...second)).toBeLessThanOrEqual(10);
	});

	it('Max Concurrency 0 (by provider) keeps an OpenAI-compatible server at Concurrency', async () => {
		const r = await run({ concurrency: 3 }, 60);
		expect(r.run.status).toBe('success');
		for (const [name] of JUDGES) expect(Math.max(...arrivals[name])).toBe(3);
	});
});
