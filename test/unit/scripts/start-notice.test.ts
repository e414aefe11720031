/**
 * The launcher (scripts/start.js) says first whether the judges have a model: which one when the
 * environment gives it (OpenAI, an OpenAI-compatible server, Azure OpenAI), else plainly that
 * there is none, what that does to a run, and the three ways to give one. Never a key.
 */
interface Credential {
	type: string;
	data: Record<string, string>;
	chat: { type: string } | null;
}
interface Start {
	judgeModelFromEnv(env: NodeJS.ProcessEnv): {
		credential: Credential | null;
		source?: string;
		problem?: string;
	};
	judgeModelNotice(env: NodeJS.ProcessEnv): string[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const start = require('../../../scripts/start') as Start;

describe('the launcher on the judge model', () => {
	it('without one it says so first: what happens (not_applicable, INCOMPLETE) and the three ways to give one', () => {
		const notice = start.judgeModelNotice({}).join('\n');
		expect(start.judgeModelFromEnv({}).credential).toBeNull();
		expect(notice).toMatch(/^judge model: NONE CONFIGURED\./);
		expect(notice).toMatch(/not_applicable: no judge model configured/);
		expect(notice).toMatch(/INCOMPLETE/);
		expect(notice).toMatch(/OPENAI_API_KEY=sk-\.\.\./);
		expect(notice).toMatch(/AZURE_OPENAI_API_KEY=.*AZURE_OPENAI_ENDPOINT=/);
		expect(notice).toMatch(/AZURE_OPENAI_DEPLOYMENT=/);
		expect(notice).toMatch(/OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:11434\/v1 OPENAI_MODEL=/);
		expect(notice).toMatch(/Ollama/);
		expect(notice).toMatch(/RAG Eval LLM API/);
	});

	it('an OpenAI key: the OpenAI judge and chat credentials, the model named, the key never shown', () => {
		const env = { OPENAI_API_KEY: 'sk-secret-123', OPENAI_MODEL: 'gpt-4.1-mini' };
		const { credential } = start.judgeModelFromEnv(env);
		expect(credential).toMatchObject({
			type: 'ragEvalLlmApi',
			data: { provider: 'openai', apiKey: 'sk-secret-123', model: 'gpt-4.1-mini' },
			chat: { type: 'openAiApi' },
		});
		const notice = start.judgeModelNotice(env);
		expect(notice).toEqual([
			"judge model: OpenAI, model gpt-4.1-mini (from OPENAI_API_KEY); the example workflows' judge nodes use it.",
		]);
		expect(notice.join('')).not.toContain('sk-secret-123');
	});

	it('a local OpenAI-compatible server (Ollama) needs no key', () => {
		const env = { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3.1' };
		expect(start.judgeModelFromEnv(env).credential?.data).toEqual({
			provider: 'compatible',
			apiKey: 'not-needed',
			baseUrl: 'http://127.0.0.1:11434/v1',
			model: 'llama3.1',
		});
		expect(start.judgeModelNotice(env)[0]).toMatch(
			/OpenAI-compatible server at http:\/\/127\.0\.0\.1:11434\/v1, model llama3\.1/,
		);
	});

	it('Azure OpenAI from AZURE_OPENAI_*: the judge credential (no chat credential); half the settings is said so', () => {
		const env = {
			AZURE_OPENAI_API_KEY: 'az-secret',
			AZURE_OPENAI_ENDPOINT: 'https://res.openai.azure.com',
			AZURE_OPENAI_DEPLOYMENT: 'judge-4o',
		};
		expect(start.judgeModelFromEnv(env).credential).toMatchObject({
			data: {
				provider: 'azure',
				apiKey: 'az-secret',
				azureEndpoint: 'https://res.openai.azure.com',
				azureDeployment: 'judge-4o',
				apiVersion: '2024-10-21',
			},
			chat: null,
		});
		expect(start.judgeModelNotice(env)[0]).toMatch(/Azure OpenAI deployment judge-4o/);
		const half = { AZURE_OPENAI_API_KEY: 'az-secret' };
		expect(start.judgeModelFromEnv(half).credential).toBeNull();
		expect(start.judgeModelNotice(half)[0]).toBe(
			'judge model: NONE CONFIGURED (AZURE_OPENAI_API_KEY is set but AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_DEPLOYMENT are not, so no Azure judge model was configured).',
		);
	});
});
