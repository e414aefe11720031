/** The standalone judge server answers every registry judge validly and deterministically. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
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
