/**
 * The Databricks agent judges, the Spring AI evaluators and the Custom Judge against the local
 * OpenAI-compatible server: rendered prompt contents, verdict parsing, rationale kept, per-chunk
 * and per-guideline fan-out, usage summed per row, MiniCheck's bare prompt.
 */
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource, type ModelSource } from '../../../src/judges/model';
import { runJudge, type JudgeContext } from '../../../src/judges/run';
import { chunkRelevance } from '../../../src/judges/specs/chunkRelevance';
import { contextSufficiency } from '../../../src/judges/specs/contextSufficiency';
import { correctness } from '../../../src/judges/specs/correctness';
import { customJudgeDecl } from '../../../src/judges/specs/custom';
import { bareYesNo, factCheck } from '../../../src/judges/specs/factCheck';
import {
	guidelineAdherence,
	mergeGuidelines,
	readGuidelines,
} from '../../../src/judges/specs/guidelineAdherence';
import { relevanceToQuery } from '../../../src/judges/specs/relevanceToQuery';
import { safety } from '../../../src/judges/specs/safety';
import { springRelevancy } from '../../../src/judges/specs/springRelevancy';
import type { JudgeDecl } from '../../../src/judges/types';
import { evaluatorRegistry } from '../../../src/registry';
import {
	startOpenAIServer,
	type OpenAIServer,
	type RecordedRequest,
} from '../../support/openai-server';

const usage = (p: number, c: number) => ({
	prompt_tokens: p,
	completion_tokens: c,
	total_tokens: p + c,
});
const userOf = (r: RecordedRequest): string =>
	r.messages?.find((m) => m.role === 'user')?.content ?? '';
const systemOf = (r: RecordedRequest): string =>
	r.messages?.find((m) => m.role === 'system')?.content ?? '';

describe('agent judges against the local server', () => {
	let server: OpenAIServer;
	let source: ModelSource;
	beforeEach(async () => {
		server = await startOpenAIServer();
		source = createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'judge-model',
		});
	});
	afterEach(async () => {
		server.assertNoUnexpected();
		await server.close();
	});
	const ctx = (extra: Partial<JudgeContext> = {}): JudgeContext => ({
		source,
		governor: new Governor({ backoffBaseMs: 1, timeoutMs: 2000, maxRetries: 0 }),
		...extra,
	});
	const run = (decl: JudgeDecl, row: Record<string, unknown>, extra?: Partial<JudgeContext>) =>
		runJudge(decl, row, ctx(extra));

	it('relevance_to_query: request and response in data blocks, yes/no parsed, rationale kept', async () => {
		server.script({ json: { reason: 'It answers the question.', verdict: 'Yes' } });
		const s = await run(relevanceToQuery, {
			request: 'What is MLflow?',
			response: 'MLflow is an open-source platform.',
		});
		expect(s).toMatchObject({
			metric: 'relevance_to_query',
			status: 'ok',
			value: true,
			pass: true,
			reason: 'It answers the question.',
		});
		const [req] = server.chatRequests();
		expect(userOf(req)).toMatch(/<data-[0-9a-f]{24} name="request">\nWhat is MLflow\?\n<\/data-/);
		expect(userOf(req)).toContain('MLflow is an open-source platform.');
		expect(systemOf(req)).toMatch(/addresses the request/);
	});

	it('safety: "no" is unsafe and fails; a missing response is not applicable without a call', async () => {
		server.script({ json: { reason: 'Threatens a person.', verdict: 'no' } });
		const s = await run(safety, { request: 'hi', response: 'I will hurt you.' });
		expect(s).toMatchObject({ value: false, pass: false, reason: 'Threatens a person.' });
		const na = await run(safety, { request: 'hi', response: '  ' });
		expect(na.status).toBe('not_applicable');
		expect(server.chatRequests()).toHaveLength(1);
	});

	it('correctness with expected facts lists the missing ones in the rationale and details', async () => {
		server.script({
			json: {
				facts: [
					{ fact: 'MLflow is open source', supported: 'yes' },
					{ fact: 'MLflow manages the ML lifecycle', supported: 'no' },
				],
				reason: 'The lifecycle is not mentioned.',
				verdict: 'no',
			},
		});
		const s = await run(correctness, {
			request: 'What is MLflow?',
			response: 'MLflow is an open-source platform.',
			expected_facts: ['MLflow is open source', 'MLflow manages the ML lifecycle'],
		});
		expect(s).toMatchObject({
			value: false,
			pass: false,
			reason: 'The lifecycle is not mentioned. Missing facts: MLflow manages the ML lifecycle.',
			details: { missingFacts: ['MLflow manages the ML lifecycle'] },
		});
		const user = userOf(server.chatRequests()[0]);
		expect(user).toContain('1. MLflow is open source\n2. MLflow manages the ML lifecycle');
		expect(user).toMatch(/name="expected_response">\n\(not provided\)/);
	});

	it('correctness refuses "yes" with a missing fact, re-asks once, then takes the corrected verdict', async () => {
		const facts = [{ fact: 'A', supported: 'no' }];
		server.script(
			{ json: { facts, reason: 'A is missing.', verdict: 'yes' } },
			{ json: { facts, reason: 'A is missing.', verdict: 'no' } },
		);
		const s = await run(correctness, { request: 'q', response: 'r', expected_facts: ['A'] });
		expect(s).toMatchObject({ status: 'ok', value: false });
		const second = server.chatRequests()[1];
		expect(second.messages?.at(-1)?.content).toMatch(/verdict must be "no"/);
	});

	it('correctness and context sufficiency need ground truth: not applicable without a call', async () => {
		const a = await run(correctness, { request: 'q', response: 'r' });
		const b = await run(contextSufficiency, {
			request: 'q',
			retrieved_context: [{ doc_uri: 'd', content: 'x' }],
		});
		for (const s of [a, b]) {
			expect(s.status).toBe('not_applicable');
			expect(s.reason).toMatch(/expected_response and expected_facts/);
		}
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('context sufficiency sends the context and expected response', async () => {
		server.script({ json: { facts: [], reason: 'The context has it.', verdict: 'yes' } });
		const s = await run(contextSufficiency, {
			request: 'When did the bridge open?',
			retrieved_context: [{ doc_uri: 'kb/b.md', content: 'Opened in 1932.' }],
			expected_response: '1932',
		});
		expect(s).toMatchObject({ value: true, pass: true, reason: 'The context has it.' });
		const user = userOf(server.chatRequests()[0]);
		expect(user).toContain('[doc1] (source: kb/b.md)\nOpened in 1932.');
		expect(user).toMatch(/name="expected_response">\n1932\n/);
	});

	const chunks = [
		{ doc_uri: 'kb/a.md', content: 'The bridge opened in 1932.' },
		{ doc_uri: 'kb/b.md', content: 'Cats are mammals.' },
		{ doc_uri: 'kb/c.md' },
		{ doc_uri: 'kb/d.md', content: 'The bridge is 1,149 m long.' },
	];

	it('chunk relevance per chunk: one call per chunk with text, precision, summed usage, details', async () => {
		server.setDefault((req) => {
			const relevant = /bridge/.test(userOf(req).split('Retrieved chunk:')[1] ?? '');
			return {
				json: {
					reason: relevant ? 'About the bridge.' : 'Off topic.',
					verdict: relevant ? 'yes' : 'no',
				},
				usage: usage(100, 10),
			};
		});
		const s = await run(chunkRelevance, {
			request: 'When did the bridge open?',
			retrieved_context: chunks,
		});
		expect(server.chatRequests()).toHaveLength(3);
		// Each call shows one chunk only.
		for (const r of server.chatRequests()) expect(userOf(r).match(/\[doc\d\]/g)).toHaveLength(1);
		expect(s).toMatchObject({
			metric: 'chunk_relevance',
			status: 'ok',
			value: 2 / 3,
			pass: true,
			threshold: 0.5,
			attempts: 3,
			usage: { promptTokens: 300, completionTokens: 30, totalTokens: 330 },
		});
		expect(s.reason).toBe(
			'2 of 3 judged chunks are relevant (chunk 1, chunk 4); 1 without content not judged.',
		);
		const details = s.details as { chunks: Array<Record<string, unknown>>; calls: unknown[] };
		expect(details.chunks.map((c) => c.relevant)).toEqual([true, false, null, true]);
		expect(details.chunks[2].reason).toMatch(/chunk 3 \(doc_uri kb\/c\.md\) has no content/);
		expect(details.calls).toHaveLength(4);
	});

	it('chunk relevance batched: one call for all chunks with text, a wrong count is re-asked', async () => {
		const verdict = (chunk: number, v: string) => ({ chunk, reason: `r${chunk}`, verdict: v });
		server.script(
			{ json: { chunks: [verdict(1, 'yes')] }, usage: usage(50, 5) },
			{
				json: { chunks: [verdict(1, 'yes'), verdict(2, 'no'), verdict(3, 'no')] },
				usage: usage(60, 6),
			},
		);
		const s = await run(
			chunkRelevance,
			{ request: 'When did the bridge open?', retrieved_context: chunks },
			{ params: { chunkMode: 'batched' } },
		);
		const reqs = server.chatRequests();
		expect(reqs).toHaveLength(2);
		expect(userOf(reqs[0]).match(/\[doc\d\]/g)).toEqual(['[doc1]', '[doc2]', '[doc3]']);
		expect(reqs[1].messages?.at(-1)?.content).toMatch(/exactly 3 chunk verdicts/);
		expect(s).toMatchObject({
			value: 1 / 3,
			usage: { promptTokens: 110, completionTokens: 11, totalTokens: 121 },
		});
		// The batched prompt is not the per-chunk one: the signature says so.
		expect(s.signature).toMatch(/^judge:chunk_relevance@1\|.*\|calls:chunk_relevance_batched$/);
		const details = s.details as { chunks: Array<Record<string, unknown>> };
		// Verdicts map back to the chunks with text; the content-less chunk stays unjudged.
		expect(details.chunks.map((c) => [c.doc_uri, c.relevant, c.reason])).toEqual([
			['kb/a.md', true, 'r1'],
			['kb/b.md', false, 'r2'],
			['kb/c.md', null, expect.stringMatching(/no content/)],
			['kb/d.md', false, 'r3'],
		]);
	});

	it('chunk relevance: a failed call makes the row an error naming the chunk, usage kept', async () => {
		server.setDefault((req) =>
			/Cats/.test(userOf(req))
				? { status: 400, error: { message: 'bad chunk' } }
				: { json: { reason: 'ok', verdict: 'yes' }, usage: usage(10, 1) },
		);
		const s = await run(chunkRelevance, {
			request: 'q',
			retrieved_context: chunks.filter((c) => c.content),
		});
		expect(s.status).toBe('error');
		expect(s.value).toBeNull();
		expect(s.error).toMatch(/^Chunk Relevance: chunk 2: .*bad chunk/);
		expect(s.usage?.totalTokens).toBe(22);
	});

	it('chunk relevance: only content-less chunks is not applicable, without a call', async () => {
		const s = await run(chunkRelevance, { request: 'q', retrieved_context: [{ doc_uri: 'x' }] });
		expect(s).toMatchObject({
			status: 'not_applicable',
			reason: 'no retrieved chunk has content to judge',
		});
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('guideline adherence: one call per name (row and global merged), "no" names the broken one', async () => {
		server.setDefault((req) => {
			const user = userOf(req);
			const broken = /must be in English/.test(user);
			return {
				json: {
					reason: broken ? 'The answer is in French.' : 'Followed.',
					verdict: broken ? 'no' : 'yes',
				},
				usage: usage(40, 4),
			};
		});
		const s = await run(
			guidelineAdherence,
			{
				request: 'Explain reduceByKey',
				response: 'reduceByKey agrège avant le shuffle.',
				guidelines: { clarity: ['The response must be clear'], tone: ['Be polite'] },
			},
			{
				params: {
					globalGuidelines:
						'{"english": ["The response must be in English"], "tone": ["Be polite", "No slang"]}',
				},
			},
		);
		const users = server.chatRequests().map(userOf);
		expect(users).toHaveLength(3);
		expect(users.find((u) => u.includes('Be polite'))).toContain('1. Be polite\n2. No slang');
		expect(s).toMatchObject({
			value: false,
			pass: false,
			usage: { totalTokens: 132 },
			details: {
				guidelines: {
					clarity: { verdict: 'yes' },
					tone: { verdict: 'yes' },
					english: { verdict: 'no', reason: 'The answer is in French.' },
				},
			},
		});
		expect(s.reason).toBe('Broken guideline set(s): english: The answer is in French.');
	});

	it('guideline adherence: no guidelines anywhere is not applicable; a malformed one is an error', async () => {
		const na = await run(guidelineAdherence, { request: 'q', response: 'r' });
		expect(na.status).toBe('not_applicable');
		const bad = await run(guidelineAdherence, {
			request: 'q',
			response: 'r',
			guidelines: { a: [3] },
		});
		expect(bad).toMatchObject({
			status: 'error',
			error: 'guidelines.a[0]: expected text, got number',
		});
		expect(server.chatRequests()).toHaveLength(0);
	});

	it('reads guidelines as lists, named maps, JSON text or lines', () => {
		expect(readGuidelines(['a', 'b'], 'g')).toEqual({ guidelines: ['a', 'b'] });
		expect(readGuidelines('a\n\n b ', 'g')).toEqual({ guidelines: ['a', 'b'] });
		expect(readGuidelines('{"x": ["a"], "y": []}', 'g')).toEqual({ x: ['a'] });
		expect(mergeGuidelines({ x: ['a'] }, { x: ['a', 'b'], y: ['c'] })).toEqual({
			x: ['a', 'b'],
			y: ['c'],
		});
	});

	it('Spring AI relevancy: query, context and response in the prompt', async () => {
		server.script({ json: { reason: 'In line with the context.', verdict: 'YES' } });
		const s = await run(springRelevancy, {
			request: 'What is the purpose of Carina?',
			retrieved_context: [{ content: 'Carina is a bike-sharing service.' }],
			response: 'Carina provides shared bikes.',
		});
		expect(s).toMatchObject({ metric: 'relevancy', value: true, pass: true });
		expect(userOf(server.chatRequests()[0])).toContain('Carina is a bike-sharing service.');
	});

	// Spring AI's own example: the document travels as userText with an empty dataList.
	const seedExample = {
		request:
			'The Earth is the third planet from the Sun and the only astronomical object known to harbor life.',
		retrieved_context: [],
		response: 'The Earth is the fourth planet from the Sun.',
	};

	it('fact check takes the request as the document when there is no context (the seed example)', async () => {
		server.script({ json: { reason: 'The document says third.', verdict: 'no' } });
		const s = await run(factCheck, seedExample);
		expect(s).toMatchObject({ metric: 'fact_check', value: false, pass: false });
		const user = userOf(server.chatRequests()[0]);
		expect(user).toMatch(/name="retrieved_context">\n\[doc1\]\nThe Earth is the third planet/);
		expect(user).toMatch(/name="request">\n\(not provided\)/);
		expect(user).toMatch(/name="response">\nThe Earth is the fourth planet/);
	});

	it('fact check with documentSource=context and no context is not applicable', async () => {
		const s = await run(factCheck, seedExample, { params: { documentSource: 'context' } });
		expect(s).toMatchObject({ status: 'not_applicable' });
		expect(s.reason).toMatch(/no document text/);
	});

	it('fact check MiniCheck mode: only "Document: ... Claim: ...", temperature 0, short reply, bare Yes/No', async () => {
		server.script({ content: 'No', usage: usage(30, 1) }, { content: 'Perhaps' });
		const s = await run(factCheck, seedExample, {
			params: { factCheckMode: 'minicheck' },
			temperature: 0.7,
		});
		const [req] = server.chatRequests();
		expect(req.messages).toEqual([
			{
				role: 'user',
				content:
					'Document: The Earth is the third planet from the Sun and the only astronomical object known to harbor life.\nClaim: The Earth is the fourth planet from the Sun.',
			},
		]);
		const body = req.body as Record<string, unknown>;
		expect(body.temperature).toBe(0);
		expect(body.max_tokens).toBe(5);
		expect(body.response_format).toBeUndefined();
		expect(s).toMatchObject({ value: false, pass: false, usage: { totalTokens: 31 } });
		expect(s.signature).toMatch(/\|calls:bare$/);
		const bad = await run(factCheck, seedExample, { params: { factCheckMode: 'minicheck' } });
		expect(bad.status).toBe('error');
		expect(bad.error).toMatch(/"Perhaps" is neither yes nor no/);
		expect([bareYesNo(' yes.'), bareYesNo('**No**'), bareYesNo('Yesterday')]).toEqual([
			true,
			false,
			null,
		]);
	});

	it('custom judge: criterion prompt, yes/no under the user name; a built-in name is refused', async () => {
		const tone = customJudgeDecl({
			name: 'tone',
			criterion: 'Be polite {or else}',
			output: 'yes_no',
		});
		server.script({ json: { reason: 'Rude.', verdict: 'no' } });
		const s = await runJudge(tone, { request: 'q', response: 'Go away.' }, ctx());
		expect(s).toMatchObject({
			metric: 'tone',
			value: false,
			pass: false,
			scale: { kind: 'binary' },
		});
		expect(systemOf(server.chatRequests()[0])).toContain('Criterion: Be polite {or else}');
		expect(() =>
			customJudgeDecl(
				{ name: 'safety', criterion: 'x', output: 'yes_no' },
				evaluatorRegistry.map((e) => e.id),
			),
		).toThrow(/built-in judge or metric id/);
		expect(() =>
			customJudgeDecl({ name: 'x', prompt: { user: '{nope}' }, output: 'yes_no' }),
		).toThrow(/unknown placeholder \{nope\}/);
	});

	it('custom judge: named choices map to scores; a whole prompt makes its fields required', async () => {
		const decl = customJudgeDecl({
			name: 'helpfulness',
			prompt: {
				system: 'Rate helpfulness.',
				user: 'Q: {request}\nA: {response}\nRef: {expected_response}',
			},
			output: 'choices',
			choices: [
				{ name: 'great', score: 1 },
				{ name: 'partial', score: 0.4 },
				{ name: 'useless', score: 0 },
			],
		});
		server.script({ json: { reason: 'Half of it.', choice: 'Partial' } });
		const s = await runJudge(
			decl,
			{ request: 'q', response: 'r', expected_response: 'ref' },
			ctx({ threshold: 0.5 }),
		);
		expect(s).toMatchObject({ value: 0.4, pass: false, details: { choice: 'partial' } });
		const na = await runJudge(decl, { request: 'q', response: 'r' }, ctx());
		expect(na).toMatchObject({ status: 'not_applicable', reason: 'missing expected_response' });
	});

	it('custom judge per chunk: precision over chunks with details.chunks', async () => {
		const decl = customJudgeDecl({
			name: 'freshness',
			criterion: 'The chunk must be about 2024.',
			output: 'yes_no',
			perChunk: true,
		});
		server.setDefault((req) => ({
			json: { reason: 'r', verdict: /2024/.test(userOf(req)) ? 'yes' : 'no' },
		}));
		const s = await runJudge(
			decl,
			{
				request: 'q',
				retrieved_context: [{ content: 'news 2024' }, { content: 'news 1999' }],
			},
			ctx(),
		);
		expect(s).toMatchObject({ metric: 'freshness', value: 0.5, scale: { kind: 'unit' } });
		expect((s.details as { chunks: unknown[] }).chunks).toHaveLength(2);
	});
});
