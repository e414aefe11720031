/**
 * Probability-weighted ratings on the real engine: a 1-5 judge on the credential asks the local
 * server for log-probabilities, and its score is the mean of the valid scores at the score token
 * weighted by their renormalised probabilities, computed here by hand; without log-probabilities
 * the sampled score stays, with a note.
 */
import type { IDataObject } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { chain, runWorkflow } from '../support/engine';
import { scoreTokenLogprobs, startOpenAIServer, type OpenAIServer } from '../support/openai-server';

let server: OpenAIServer;
beforeEach(async () => {
	server = await startOpenAIServer();
});
afterEach(async () => {
	server.assertNoUnexpected();
	await server.close();
});

const row = {
	request_id: 'q1',
	request: 'What is the capital of Japan?',
	response: 'Tokyo is the capital of Japan, and it is large.',
};

const credentials = () => ({
	ragEvalLlmApi: {
		provider: 'compatible',
		baseUrl: server.baseUrl,
		apiKey: 'sk-test-WEIGHTED-1',
		model: 'rater',
	},
});

function coherence(options: IDataObject) {
	return chain({
		name: 'Coherence',
		type: 'judgeCoherence',
		parameters: { options: { cache: false, ...options } },
		credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
	});
}

async function judge(options: IDataObject): Promise<Score> {
	const r = await runWorkflow(coherence(options), {
		startItems: [{ json: row }],
		credentials: credentials(),
	});
	expect(r.nodeError('Coherence')).toBeUndefined();
	const out = [...r.output('Coherence', 0), ...r.output('Coherence', 1)];
	expect(out).toHaveLength(1);
	return (out[0].eval as Record<string, Score>).coherence;
}

const reply = '{"reason":"Clear and ordered, one loose clause.","score":4}';

describe('probability-weighted ratings on the engine', () => {
	it('the score is the weighted mean of the valid score tokens, renormalised; the spread is recorded', async () => {
		// At the score token: 4 with 0.6, 3 with 0.25, 5 with 0.1, and 0.05 on a token that is no score.
		server.script({
			content: reply,
			logprobs: scoreTokenLogprobs(reply, { '4': 0.6, '3': 0.25, '5': 0.1, ' the': 0.05 }),
		});
		const s = await judge({ scoreFrom: 'weighted' });
		// Renormalised over the valid scores' 0.95: (4*0.6 + 3*0.25 + 5*0.1) / 0.95 = 3.65 / 0.95.
		const mean = 3.65 / 0.95;
		expect(s.status).toBe('ok');
		expect(s.value).toBeCloseTo(3.8421052631578947, 12);
		expect(s.value).toBeCloseTo(mean, 12);
		expect(s.pass).toBe(true);
		const w = s.details!.weighting as {
			method: string;
			sampled: number;
			probabilities: Record<string, number>;
			mass: number;
			spread: number;
		};
		expect(w.method).toBe('logprobs');
		expect(w.sampled).toBe(4);
		expect(w.mass).toBeCloseTo(0.95, 12);
		expect(w.probabilities['3']).toBeCloseTo(0.25 / 0.95, 12);
		expect(w.probabilities['4']).toBeCloseTo(0.6 / 0.95, 12);
		expect(w.probabilities['5']).toBeCloseTo(0.1 / 0.95, 12);
		// Variance: E[x^2] - mean^2 = (9*0.25 + 16*0.6 + 25*0.1) / 0.95 - mean^2.
		expect(w.spread).toBeCloseTo(Math.sqrt(14.35 / 0.95 - mean * mean), 12);
		expect(s.signature).toContain('|score:weighted');
		// The request asked for the log-probabilities.
		const body = server.chatRequests()[0].body as Record<string, unknown>;
		expect(body.logprobs).toBe(true);
		expect(body.top_logprobs).toBe(10);
	});

	it('without log-probabilities the sampled score stays, with a note', async () => {
		server.script({ content: reply });
		const s = await judge({ scoreFrom: 'weighted' });
		expect(s.value).toBe(4);
		expect(s.details!.weighting).toEqual({
			method: 'sampled',
			sampled: 4,
			note: 'the model returned no log-probabilities; the sampled score is kept',
		});
		expect(s.reason).toContain('the sampled score is kept');
	});

	it('the sampled score by default: no log-probabilities asked, the signature unchanged', async () => {
		server.script({ content: reply });
		const s = await judge({});
		expect(s.value).toBe(4);
		expect(s.details!.weighting).toBeUndefined();
		expect(s.signature).not.toContain('score:weighted');
		const body = server.chatRequests()[0].body as Record<string, unknown>;
		expect(body.logprobs).toBeUndefined();
	});

	it('Panel Models on the credential: each model a juror, scored by its own script', async () => {
		server.scriptFor('rater-a', { json: { reason: 'fine', score: 5 } });
		server.scriptFor('rater-b', { json: { reason: 'muddled', score: 2 } });
		const s = await judge({ panelModels: 'rater-a, rater-b', panelPool: 'median' });
		// The median of two is the mean of the middle two.
		expect(s.value).toBe(3.5);
		expect(s.details!.panel).toMatchObject({ answered: 2, spread: 3, disagrees: true });
		expect(
			server
				.chatRequests()
				.map((c) => c.model)
				.sort(),
		).toEqual(['rater-a', 'rater-b']);
	});

	it('repeated samples: the mean and spread of three samples, each its own call and cache entry', async () => {
		for (const score of [4, 3, 5]) server.script({ json: { reason: `rated ${score}`, score } });
		const options = { cache: true, samples: 3, temperature: 0.7 };
		const s = await judge(options);
		expect(s.value).toBe(4);
		const samples = s.details!.samples as { n: number; values: number[]; spread: number };
		expect(samples.n).toBe(3);
		expect(samples.values.slice().sort()).toEqual([3, 4, 5]);
		// Population standard deviation of 3, 4, 5: sqrt((1 + 0 + 1) / 3).
		expect(samples.spread).toBeCloseTo(Math.sqrt(2 / 3), 12);
		expect(s.signature).toContain('|samples:3');
		expect(s.attempts).toBe(3);
		expect(server.chatRequests()).toHaveLength(3);
		// A re-run answers every sample from the cache: no call.
		const again = await judge(options);
		expect(again.value).toBe(4);
		expect(again.cached).toBe(true);
		expect(server.chatRequests()).toHaveLength(3);
	});

	it('a failed sample makes the row an error naming it, never a mean of the rest', async () => {
		server.script(
			{ json: { reason: 'fine', score: 4 } },
			{ content: 'no verdict here' },
			{ content: 'still none' },
		);
		const s = await judge({ samples: 2, temperature: 0.7 });
		expect(s.status).toBe('error');
		expect(s.value).toBeNull();
		expect(s.error).toMatch(/Coherence: sample [12] of 2: could not parse the judge reply/);
	});
});
