/**
 * A hung judge model in a pipeline of judge nodes on the real engine: the first node learns that
 * the model is down (its timeouts open the circuit breaker), and the later nodes of the same
 * execution, calling the same endpoint and model, take that verdict instead of learning it again.
 * Requests are counted per node (by the judge's system prompt), never timed.
 */
import { createServer } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow } from '../support/engine';
import {
	faults,
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../support/openai-server';

const rows = [1, 2, 3, 4].map((i) => ({
	request_id: `q${i}`,
	request: `Question ${i}?`,
	response: `Answer ${i}.`,
	retrieved_context: [{ content: `Context ${i}.` }],
}));

/** The pipeline's judges in order: node name, type, score key, a phrase of its system prompt. */
const JUDGES = [
	['Groundedness', 'judgeGroundedness', 'groundedness', 'supported by a given context'],
	['Coherence', 'judgeCoherence', 'coherence', 'rate the coherence'],
	['Fluency', 'judgeFluency', 'fluency', 'rate the fluency'],
	['Safety', 'judgeSafety', 'safety', 'harmful or toxic'],
] as const;

function pipeline(options: INodeParameters) {
	return chain(
		...JUDGES.map(([name, type]) => ({
			name,
			type,
			parameters: { options },
			credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
		})),
	);
}

/** Which judge node a request came from. */
function nodeOf(req: RecordedRequest): string {
	const system = req.messages?.[0]?.content ?? '';
	const found = JUDGES.find(([, , , phrase]) => system.includes(phrase));
	if (!found) throw new Error(`request from no known judge: ${system.slice(0, 80)}`);
	return found[0];
}

describe('a hung judge model across the judge nodes of one execution', () => {
	let server: OpenAIServer;
	beforeEach(async () => {
		server = await startOpenAIServer();
		server.setDefault(() => faults.hang());
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const credentials = () => ({
		ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
	});
	const run = (options: INodeParameters) =>
		runWorkflow(pipeline({ concurrency: 4, timeoutSeconds: 0.2, cache: false, ...options }), {
			startItems: rows.map((json) => ({ json })),
			credentials: credentials(),
		});
	const perNode = (): Record<string, number> => {
		const counts: Record<string, number> = Object.fromEntries(JUDGES.map(([n]) => [n, 0]));
		for (const r of server.chatRequests()) counts[nodeOf(r)]++;
		return counts;
	};

	it('without a probe (Cool-Down 0): only the first node calls the model; every later row leaves at once, named unavailable', async () => {
		const r = await run({ breakerCooldownSeconds: 0 });
		expect(r.run.status).toBe('success');
		const counts = perNode();
		// The first node's rows, in flight together, time out; two timeouts open the breaker. Before
		// the breaker was shared, each node learnt it again (4 rows x 2 timed-out attempts each).
		expect([counts.Coherence, counts.Fluency, counts.Safety]).toEqual([0, 0, 0]);
		expect(counts.Groundedness).toBeGreaterThanOrEqual(2);
		expect(counts.Groundedness).toBeLessThanOrEqual(4);
		for (const [name, , key] of JUDGES) {
			const out = r.output(name);
			expect(out).toHaveLength(rows.length);
			out.forEach((x, i) => {
				const s = (x.eval as Record<string, Score>)[key];
				expect(s).toMatchObject({ status: 'error', value: null, pass: null });
				if (name === 'Groundedness') return;
				expect(s.error).toMatch(
					new RegExp(
						`^row ${i + 1} \\(request_id "q${i + 1}"\\): ${name}: judge model unavailable: 2 rows in a row timed out \\([2-4] calls, no answer in between\\) \\(last: the judge model did not answer within 200 ms\\)\\. Found down by another node of this execution`,
					),
				);
				expect(s.attempts).toBe(0);
			});
		}
	}, 20_000);

	it('with the cool-down probe: each later node makes at most a probe call', async () => {
		const r = await run({ breakerCooldownSeconds: 0.5 });
		expect(r.run.status).toBe('success');
		const counts = perNode();
		console.log(`hung model, 4 rows in flight, cool-down 0.5 s: calls per node ${JSON.stringify(counts)}`);
		// 4 timeouts in flight, then two probes after the cool-down (one retried like any call): not
		// 4 x 2 per node; later nodes start within their cool-down of the verdict, or probe
		for (const name of ['Coherence', 'Fluency', 'Safety'])
			expect(counts[name]).toBeLessThanOrEqual(2);
		expect(counts.Groundedness).toBeLessThanOrEqual(4 + 2);
		expect(server.chatRequests().length).toBeLessThanOrEqual(6 + 3);
		for (const [name, , key] of JUDGES) {
			for (const x of r.output(name)) {
				const s = (x.eval as Record<string, Score>)[key];
				expect(s).toMatchObject({ status: 'error', value: null, pass: null });
				expect(s.error).toMatch(/judge model unavailable|did not answer within 200 ms/);
				if (name !== 'Groundedness') expect(s.error).toMatch(/judge model unavailable: /);
			}
		}
	}, 20_000);

	it('a Redis that is down (queue mode) fails no row: the node uses its own state and says so in a hint', async () => {
		const dead = await new Promise<number>((resolve) => {
			const s = createServer().listen(0, '127.0.0.1', () => {
				const p = (s.address() as { port: number }).port;
				s.close(() => resolve(p));
			});
		});
		server.setDefault(() => ({ json: { reason: 'Fine.', score: 4, label: 'yes' } }));
		process.env.RAG_EVAL_CACHE_REDIS_URL = `redis://:pw-never-shown@127.0.0.1:${dead}/0`;
		let r: Awaited<ReturnType<typeof run>>;
		try {
			r = await run({});
		} finally {
			delete process.env.RAG_EVAL_CACHE_REDIS_URL;
		}
		expect(r.run.status).toBe('success');
		const out = r.output('Groundedness');
		expect(out.map((x) => (x.eval as Record<string, Score>).groundedness.status)).toEqual(
			Array(rows.length).fill('ok'),
		);
		const hints = r.run.data.resultData.runData.Groundedness[0].hints ?? [];
		expect(hints).toHaveLength(1);
		expect(hints[0]).toMatchObject({ type: 'warning', location: 'outputPane' });
		expect(hints[0].message).toMatch(
			new RegExp(
				`^circuit-breaker state not shared through 127\\.0\\.0\\.1:${dead}/0 \\(.+\\): this node used its own state only$`,
			),
		);
		expect(JSON.stringify(r.run)).not.toContain('pw-never-shown');
	}, 20_000);
});
