/**
 * A row's fault is not the model's: pathological rows (one whose call hangs, one the server always
 * answers with a 500) among healthy ones, in any position, through judge nodes on the real engine
 * against the local server. The breaker opens only on failures of distinct rows with no answer in
 * between, a later node knows the rows that failed on their own, a transient fault on the probe
 * does not condemn the model, one model failing never blocks another on the same credential, and
 * a server answering 429 "Retry-After: 0" forever costs a bounded number of calls.
 * Requests are counted (per node, per row), never timed.
 */
import type { INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow, type EngineRun } from '../support/engine';
import {
	faults,
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
	type ScriptedReply,
} from '../support/openai-server';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { rng } = require('../support/n8n-api-server-cli.js') as {
	rng: (seed: number) => () => number;
};

const N = 20;
const rows = Array.from({ length: N }, (_, i) => ({
	request_id: `q${i + 1}`,
	request: `Question ${i + 1}?`,
	response: `Answer number ${i + 1}.`,
	retrieved_context: [{ content: `Context ${i + 1}.` }],
}));
/** A verdict every judge of the pipeline accepts. */
const good: ScriptedReply = { json: { reason: 'Fine.', score: 4, label: 'yes' }, delayMs: 5 };

/** The pipeline's judges: node name, type, score key, a phrase of its system prompt. */
const JUDGES = [
	['Groundedness', 'judgeGroundedness', 'groundedness', 'supported by a given context'],
	['Coherence', 'judgeCoherence', 'coherence', 'rate the coherence'],
] as const;

/** The row (1-based) a request judges, read from the response it quotes. */
function rowOf(req: RecordedRequest): number {
	const m = /Answer number (\d+)\./.exec(req.messages?.[1]?.content ?? '');
	if (!m) throw new Error('a request without a row');
	return Number(m[1]);
}

function nodeOf(req: RecordedRequest): string {
	const system = req.messages?.[0]?.content ?? '';
	const found = JUDGES.find(([, , , phrase]) => system.includes(phrase));
	if (!found) throw new Error(`request from no known judge: ${system.slice(0, 80)}`);
	return found[0];
}

/** A seeded shuffle, so every order of the property test can be run again. */
function shuffled<T>(xs: T[], seed: number): T[] {
	const rand = rng(seed);
	const out = [...xs];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

const credentials = () => ({
	ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'judge-model' },
});
/**
 * Short timeouts and few retries keep a run short; the breaker's defaults are kept. 1 s: a local
 * reply takes milliseconds, but a loaded CI machine can hold one for hundreds of them.
 */
const FAST: INodeParameters = {
	timeoutSeconds: 1,
	maxRetries: 2,
	breakerCooldownSeconds: 0.5,
	cache: false,
};

function pipeline(
	options: INodeParameters,
	judges: ReadonlyArray<(typeof JUDGES)[number]> = JUDGES,
) {
	return chain(
		...judges.map(([name, type]) => ({
			name,
			type,
			parameters: { options },
			credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
		})),
	);
}

function run(order: typeof rows, options: INodeParameters = {}): Promise<EngineRun> {
	return runWorkflow(pipeline({ ...FAST, ...options }), {
		startItems: order.map((json) => ({ json })),
		credentials: credentials(),
	});
}

/** Per judge node: the request ids scored ok, and each errored row's error. */
function outcome(r: EngineRun) {
	return Object.fromEntries(
		JUDGES.map(([name, , key]) => {
			const out = r.output(name);
			expect(out).toHaveLength(N);
			const scores = out.map(
				(x) => [x.request_id as string, (x.eval as Record<string, Score>)[key]] as const,
			);
			return [
				name,
				{
					ok: scores
						.filter(([, s]) => s.status === 'ok')
						.map(([id]) => id)
						.sort(),
					errors: Object.fromEntries(
						scores.filter(([, s]) => s.status !== 'ok').map(([id, s]) => [id, s.error ?? '']),
					),
				},
			];
		}),
	);
}

/** Requests per row and per node. */
function callsOf(): { byRow: Map<number, number>; byNode: Record<string, number> } {
	const byRow = new Map<number, number>();
	const byNode: Record<string, number> = Object.fromEntries(JUDGES.map(([n]) => [n, 0]));
	for (const r of server.chatRequests()) {
		byRow.set(rowOf(r), (byRow.get(rowOf(r)) ?? 0) + 1);
		byNode[nodeOf(r)]++;
	}
	return { byRow, byNode };
}

const healthyBut = (...bad: number[]) =>
	rows
		.filter((_, i) => !bad.includes(i + 1))
		.map((r) => r.request_id)
		.sort();

describe('one pathological row first', () => {
	it('a row whose call hangs: every other row is judged on every node; it leaves with its own timeout', async () => {
		server.setDefault((req) => (rowOf(req) === 1 ? faults.hang() : good));
		const r = await run(rows);
		const o = outcome(r);
		for (const [name] of JUDGES) {
			expect(o[name].ok).toEqual(healthyBut(1));
			expect(o[name].errors.q1).toMatch(
				/did not answer within 1 s \(gave up after 2 timed-out attempts\)/,
			);
			expect(o[name].errors.q1).not.toMatch(/unavailable/);
		}
		const { byRow } = callsOf();
		// two attempts per node for the hung row (a healthy row may be retried on a loaded machine)
		expect(byRow.get(1)).toBe(2 * JUDGES.length);
		// no cool-down: the breaker never opened, so no node says it paused; each names its one
		// errored row
		for (const [name] of JUDGES) {
			const hints = (r.run.data.resultData.runData[name][0].hints ?? []).map((h) => h.message);
			expect(hints).toEqual([
				`1 of 20 rows errored: ${name}: the judge model did not answer within 1 s (gave up after 2 timed-out attempts)`,
			]);
		}
	}, 30_000);

	it('a row the server always answers with a 500: every other row is judged; it leaves after its own retries', async () => {
		server.setDefault((req) => (rowOf(req) === 1 ? faults.serverError() : good));
		// Max Retries at its default: one row's five failures are the breaker's threshold in calls
		const o = outcome(await run(rows, { maxRetries: 4 }));
		for (const [name] of JUDGES) {
			expect(o[name].ok).toEqual(healthyBut(1));
			expect(o[name].errors.q1).toMatch(/server error \(500\).*\(gave up after 5 attempts\)/);
		}
		expect(callsOf().byRow.get(1)).toBe(5 * JUDGES.length);
	}, 30_000);
});

describe('the probe', () => {
	it('a transient 503 on the first probe does not condemn the model: the second probe answers and every row is judged', async () => {
		let calls = 0;
		// Down for the first wave (8 calls in flight open the breaker at 5 rows), then the first probe
		// (call 9) fails too; from then on the model answers.
		server.setDefault(() => (++calls <= 9 ? faults.unavailable() : good));
		const r = await runWorkflow(pipeline({ ...FAST, maxRetries: 4 }, [JUDGES[0]]), {
			startItems: rows.map((json) => ({ json })),
			credentials: credentials(),
		});
		const scores = r
			.output('Groundedness')
			.map((x) => (x.eval as Record<string, Score>).groundedness);
		expect(scores.map((s) => s.status)).toEqual(Array(N).fill('ok'));
		// the cool-down and the resumption are told on the node
		const hints = (r.run.data.resultData.runData.Groundedness[0].hints ?? []).map((h) => h.message);
		expect(hints).toEqual([
			expect.stringMatching(
				/^judge model judge-model: 5 rows in a row failed \([5-8] calls, no answer in between\) \(last: server error \(503\).*\); calls paused for a 0\.5 s cool-down, then a probe$/,
			),
			'judge model judge-model: a probe call was answered: calls resume',
		]);
	}, 30_000);

	it('a model that is really down is learnt once: at most 10 requests for 60 rows, none from later nodes', async () => {
		server.setDefault(() => faults.serverError());
		const many = Array.from({ length: 60 }, (_, i) => ({
			json: { ...rows[i % N], request_id: `m${i + 1}`, response: `Answer number ${(i % N) + 1}.` },
		}));
		// a cool-down long enough that the later nodes start within it, even on a loaded machine
		const r = await runWorkflow(pipeline({ ...FAST, breakerCooldownSeconds: 2 }), {
			startItems: many,
			credentials: credentials(),
		});
		const { byNode } = callsOf();
		console.log(`model down: requests per node ${JSON.stringify(byNode)} for 60 rows`);
		expect(byNode.Groundedness).toBeLessThanOrEqual(8 + 2);
		expect(byNode.Coherence).toBe(0);
		for (const [name, , key] of JUDGES)
			for (const x of r.output(name))
				expect((x.eval as Record<string, Score>)[key].error).toMatch(
					/judge model unavailable: 5 rows in a row failed/,
				);
	}, 30_000);
});

describe('keyed on the model called', () => {
	it('two nodes on one credential: a failing model never blocks a healthy one', async () => {
		server.setDefault((req) => (req.model === 'broken-model' ? faults.serverError() : good));
		const wf = chain(
			...JUDGES.map(([name, type], i) => ({
				name,
				type,
				parameters: { model: i === 0 ? 'broken-model' : 'healthy-model', options: FAST },
				credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
			})),
		);
		const r = await runWorkflow(wf, {
			startItems: rows.map((json) => ({ json })),
			credentials: credentials(),
		});
		const o = outcome(r);
		expect(o.Groundedness.ok).toEqual([]);
		expect(Object.values(o.Groundedness.errors)).toEqual(
			Array(N).fill(expect.stringMatching(/judge model unavailable: 5 rows in a row failed/)),
		);
		// every row of the healthy model is judged by its own call
		expect(o.Coherence.ok).toEqual(healthyBut());
		expect(callsOf().byNode.Coherence).toBe(N);
	}, 30_000);
});

describe('a server pacing forever', () => {
	it('429 with Retry-After: 0 on every call, no deadlines: each row makes Max Rate-Limit Retries + 1 calls and names why', async () => {
		server.setDefault(() => faults.rateLimited(0));
		const r = await runWorkflow(
			pipeline({ ...FAST, maxRateLimitRetries: 3, rowDeadlineSeconds: 0, nodeDeadlineSeconds: 0 }, [
				JUDGES[0],
			]),
			{ startItems: rows.slice(0, 3).map((json) => ({ json })), credentials: credentials() },
		);
		const { byRow } = callsOf();
		console.log(`Retry-After: 0 forever: calls per row ${JSON.stringify([...byRow.values()])}`);
		expect([...byRow.values()]).toEqual([4, 4, 4]);
		for (const x of r.output('Groundedness')) {
			const s = (x.eval as Record<string, Score>).groundedness;
			expect(s).toMatchObject({ status: 'error', value: null, attempts: 4 });
			expect(s.error).toMatch(
				/rate limited \(429\).*\(gave up after 4 attempts: 3 waits the server asked for, then a rate limit past option Max Rate-Limit Retries \(3\)\)$/,
			);
		}
	}, 30_000);
});

describe('two pathological rows among twenty, in 20 orders', () => {
	it('the judged rows are the same whatever the order: the 18 healthy ones, on every node', async () => {
		// q4 hangs, q11 is always answered with a 500
		server.setDefault((req) => {
			const n = rowOf(req);
			return n === 4 ? faults.hang() : n === 11 ? faults.serverError() : good;
		});
		const seen = new Set<string>();
		for (let seed = 1; seed <= 20; seed++) {
			const o = outcome(await run(shuffled(rows, seed)));
			for (const [name] of JUDGES) {
				expect({ seed, node: name, ok: o[name].ok }).toEqual({
					seed,
					node: name,
					ok: healthyBut(4, 11),
				});
				expect(o[name].errors.q4).toMatch(/did not answer within 1 s/);
				expect(o[name].errors.q11).toMatch(/server error \(500\)/);
			}
			seen.add(JSON.stringify(o.Groundedness.ok));
		}
		expect(seen.size).toBe(1);
	}, 400_000);
});
