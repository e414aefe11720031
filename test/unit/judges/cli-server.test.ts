/** The standalone judge server answers every registry judge validly and deterministically. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import { judgeRegistry } from '../../../src/judges/registry';
import { runJudge } from '../../../src/judges/run';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cli = require('../../support/openai-server-cli.js') as {
	startJudgeServer(o?: { latencyMs?: number; rate429?: number; retryAfter?: string }): Promise<{
		baseUrl: string;
		stats: { chat: number; rateLimited: number };
		close(): Promise<void>;
	}>;
};

const row = {
	request: 'What does the warranty cover?',
	response: 'It covers parts and labour for two years.',
	retrieved_context: [
		{ doc_uri: 'kb/warranty', content: 'Parts and labour are covered for two years.' },
	],
	expected_response: 'Parts and labour, two years.',
	history: [{ role: 'user', content: 'Hello' }],
	guidelines: ['The response must be brief'],
	// What an agent did, for the agent judges (Tool Call Accuracy needs calls and definitions).
	tool_calls: [{ name: 'warranty_lookup', arguments: { product: 'kettle' }, result: '2 years' }],
	tool_definitions: [{ name: 'warranty_lookup', description: 'Warranty terms of a product' }],
	expected_outcome: 'The customer knows the warranty terms.',
	// Two variants' answers, for the Pairwise Judge.
	response_a: 'Two years of parts and labour.',
	response_b: 'Parts only, for one year.',
};

describe('openai-server-cli', () => {
	it('gives every judge a valid score, honours [[score=N]] and is stable across calls', async () => {
		const server = await cli.startJudgeServer();
		try {
			const source = createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			});
			const governor = new Governor();
			for (const decl of judgeRegistry) {
				const a = await runJudge(decl, row, { source, governor });
				const b = await runJudge(decl, row, { source, governor });
				expect(a.status).toBe('ok');
				expect(b.value).toEqual(a.value);
				const marked = await runJudge(
					decl,
					// The marker in every text a judge may read (retrieval does not read the response).
					{
						...row,
						request: `${row.request} [[score=2]]`,
						response: `${row.response} [[score=2]]`,
					},
					{ source, governor },
				);
				if (decl.scale.kind === 'binary') expect(marked.value).toBe(false);
				// Pairwise: without a [[prefer]] marker in either answer the stand-in says tie in
				// both orders (markers are tested below).
				else if (decl.id === 'pairwise') {
					expect(marked.value).toBe(0.5);
					expect(marked.details).toMatchObject({ positionConsistent: true, winner: 'tie' });
				}
				// Chunk relevance: the one chunk is judged "no", so the precision is 0.
				else if (decl.scale.kind === 'unit') expect(marked.value).toBe(0);
				else if (decl.id === 'retrieval')
					expect(marked.value).toBe(1.5); // coverage 0 -> 1, rubric 2
				else expect(marked.value).toBe(2);
			}
		} finally {
			await server.close();
		}
	});

	it('answers exactly the configured fraction of calls with 429 and the runtime loses no row', async () => {
		const server = await cli.startJudgeServer({ rate429: 0.25, retryAfter: '0.01' });
		try {
			const source = createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			});
			const governor = new Governor({ concurrency: 4 });
			const decl = judgeRegistry[0];
			const scores = await Promise.all(
				Array.from({ length: 12 }, () => runJudge(decl, row, { source, governor })),
			);
			expect(scores.every((s) => s.status === 'ok')).toBe(true);
			expect(server.stats.rateLimited).toBe(Math.floor(server.stats.chat * 0.25));
		} finally {
			await server.close();
		}
	});

	it('makes an agent call the tools its user turn names, each once in order, then answer', async () => {
		const server = await cli.startJudgeServer();
		try {
			const client = new OpenAI({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
			const fn = (name: string) => ({
				type: 'function' as const,
				function: {
					name,
					parameters: { type: 'object', properties: { input: { type: 'string' } } },
				},
			});
			const tools = [fn('Look_Up_Order'), fn('Knowledge_Base')];
			const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
				{
					role: 'user',
					content: 'Where is order 12345? [[tool:knowledge base]] [[tool:Look Up Order]]',
				},
			];
			const names: string[] = [];
			for (let turn = 0; turn < 4; turn++) {
				const r = await client.chat.completions.create({ model: 'm', messages, tools });
				const msg = r.choices[0].message;
				if (!msg.tool_calls?.length) {
					expect(r.choices[0].finish_reason).toBe('stop');
					expect(typeof msg.content).toBe('string');
					break;
				}
				expect(r.choices[0].finish_reason).toBe('tool_calls');
				const call = msg.tool_calls[0] as {
					id: string;
					function: { name: string; arguments: string };
				};
				names.push(call.function.name);
				// The query argument is the user's words without the markers.
				expect(JSON.parse(call.function.arguments)).toEqual({ input: 'Where is order 12345?' });
				messages.push(msg, { role: 'tool', tool_call_id: call.id, content: 'result' });
			}
			expect(names).toEqual(['Knowledge_Base', 'Look_Up_Order']);
			// Without a marker, or without tools, the reply is the usual judge JSON.
			const plain = await client.chat.completions.create({
				model: 'm',
				messages: [{ role: 'user', content: 'Hello' }],
				tools,
			});
			expect(plain.choices[0].message.tool_calls ?? []).toHaveLength(0);
			expect(() => JSON.parse(plain.choices[0].message.content ?? '')).not.toThrow();
		} finally {
			await server.close();
		}
	});

	it('plays a scripted trajectory: the given arguments, repeats, then the answer; bad JSON is a 400', async () => {
		const server = await cli.startJudgeServer();
		try {
			const client = new OpenAI({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
			const tools = [
				{
					type: 'function' as const,
					function: {
						name: 'Look_Up_Order',
						parameters: { type: 'object', properties: { order_number: { type: 'string' } } },
					},
				},
			];
			const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
				{
					role: 'user',
					content:
						'Where is 10234? [[call:Look Up Order {"order_number":"10234"}]] [[call:Look Up Order {"order_number":"10234"}]] [[call:look_up_order]]',
				},
			];
			const args: unknown[] = [];
			for (let turn = 0; turn < 5; turn++) {
				const r = await client.chat.completions.create({ model: 'm', messages, tools });
				const msg = r.choices[0].message;
				if (!msg.tool_calls?.length) break;
				const call = msg.tool_calls[0] as { id: string; function: { arguments: string } };
				args.push(JSON.parse(call.function.arguments));
				messages.push(msg, { role: 'tool', tool_call_id: call.id, content: '{}' });
			}
			// The same call twice (a loop), then one with arguments filled from the schema.
			expect(args).toEqual([
				{ order_number: '10234' },
				{ order_number: '10234' },
				{ order_number: 'Deterministic test judge: rated 3 for order_number.' },
			]);
			const bad = await client.chat.completions
				.create({
					model: 'm',
					messages: [{ role: 'user', content: 'x [[call:Look Up Order {order: 1}]]' }],
					tools,
				})
				.then(
					() => null,
					(e: { status?: number }) => e.status,
				);
			expect(bad).toBe(400);
		} finally {
			await server.close();
		}
	});

	it('answers each model its scripted reply and plays pairwise verdicts from [[prefer]] and [[first-slot]]', async () => {
		const server = await cli.startJudgeServer();
		try {
			const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-local' });
			const question =
				'How long do refunds take? <<reply:model-x Fourteen days. ((groundedness=5)) ((prefer))>> <<reply:model-y About two weeks.>>';
			const ask = async (model: string) =>
				(
					await client.chat.completions.create({
						model,
						messages: [{ role: 'user', content: question }],
					})
				).choices[0].message.content;
			expect(await ask('model-x')).toBe('Fourteen days. [[groundedness=5]] [[prefer]]');
			expect(await ask('model-y')).toBe('About two weeks.');
			// A model the question does not script gets the usual filled reply.
			expect(JSON.parse(String(await ask('model-z')))).toHaveProperty('score');

			const decl = judgeRegistry.find((d) => d.id === 'pairwise')!;
			const source = createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			});
			const governor = new Governor();
			const judge = (values: Record<string, unknown>) =>
				runJudge(
					decl,
					{ ...row, ...values },
					{ source, governor, params: { criterion: 'overall' } },
				);
			// B holds [[prefer]]: B better in both orders (A's value 0), consistent.
			const b = await judge({ response_b: 'Parts only. [[prefer]]' });
			expect([b.value, (b.details as Record<string, unknown>).positionConsistent]).toEqual([
				0,
				true,
			]);
			const a = await judge({ response_a: 'Two years. [[prefer]]' });
			expect(a.value).toBe(1);
			// A judge biased to the first slot: "first" in both orders is a flip, counted a tie.
			const biased = await judge({
				request: `${row.request} [[first-slot]]`,
				response_a: 'Two years. [[prefer]]',
			});
			expect(biased.value).toBe(0.5);
			expect(biased.details).toMatchObject({ positionConsistent: false, flipped: true });
		} finally {
			await server.close();
		}
	});

	it('answers embeddings: deterministic, unit length, nearer for texts sharing words', async () => {
		const server = await cli.startJudgeServer();
		try {
			const client = new OpenAI({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
			const texts = [
				'returns within 30 days',
				'returns within 30 days',
				'returns of opened items',
				'support hours on saturday',
			];
			// The SDK asks for base64 by default and decodes it; floats when asked.
			const b64 = await client.embeddings.create({ model: 'e', input: texts });
			const floats = await client.embeddings.create({
				model: 'e',
				input: texts,
				encoding_format: 'float',
			});
			const v = b64.data.map((d) => d.embedding);
			expect(v).toHaveLength(4);
			for (let i = 0; i < 4; i++)
				floats.data[i].embedding.forEach((x, k) => expect(x).toBeCloseTo(v[i][k], 6));
			const dot = (a: number[], b: number[]) => a.reduce((s, x, k) => s + x * b[k], 0);
			for (const e of v) expect(dot(e, e)).toBeCloseTo(1, 5);
			expect(dot(v[0], v[1])).toBeCloseTo(1, 5);
			expect(dot(v[0], v[2])).toBeGreaterThan(dot(v[0], v[3]));
		} finally {
			await server.close();
		}
	});

	it('runs as a process and prints its base URL', async () => {
		const child = spawn(process.execPath, [join(__dirname, '../../support/openai-server-cli.js')], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		try {
			const line = await new Promise<string>((resolve) =>
				child.stdout.once('data', (d: Buffer) => resolve(d.toString())),
			);
			const url = /OPENAI_BASE_URL=(\S+)/.exec(line)?.[1];
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
			const res = await fetch(`${url}/models`);
			expect(((await res.json()) as { data: { id: string }[] }).data[0].id).toBe('judge-model');
		} finally {
			child.kill('SIGTERM');
		}
	});
});
