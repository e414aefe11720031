/**
 * The launcher keeps the examples' judge panels only where their model names exist: on OpenAI, or
 * as OPENAI_PANEL_MODELS lists them; on another server (Ollama, Azure) the judges judge alone and
 * the launcher says how to make a panel there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Wf {
	nodes: { name: string; parameters: { options?: Record<string, unknown> } }[];
}
interface Start {
	judgeModelFromEnv(env: NodeJS.ProcessEnv): { credential: unknown };
	panelModelsFromEnv(
		env: NodeJS.ProcessEnv,
		cred: unknown,
	): { models: string[] | undefined; note?: string };
	withPanelModels(wf: Wf, models: string[] | undefined): Wf;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const start = require('../../../scripts/start') as Start;
const nightly = JSON.parse(
	fs.readFileSync(
		path.join(__dirname, '../../../examples/nightly-rag-evaluation.workflow.json'),
		'utf8',
	),
) as Wf;
const panelOf = (wf: Wf) => wf.nodes.find((n) => n.name === 'Groundedness')!.parameters.options;

describe('the launcher on judge panels', () => {
	const choose = (env: NodeJS.ProcessEnv) =>
		start.panelModelsFromEnv(env, start.judgeModelFromEnv(env).credential);

	it('keeps the nightly panel of OpenAI models on OpenAI, and without a model', () => {
		expect(panelOf(nightly)).toEqual({ panelModels: 'gpt-4o-mini, gpt-4.1-mini' });
		for (const env of [{ OPENAI_API_KEY: 'sk-x' }, {}]) {
			const { models, note } = choose(env);
			expect([models, note]).toEqual([undefined, undefined]);
			expect(start.withPanelModels(nightly, models)).toBe(nightly);
		}
	});

	it('leaves it out on another server and says how to make one', () => {
		const { models, note } = choose({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
		expect(models).toEqual([]);
		expect(note).toMatch(/judge alone; set OPENAI_PANEL_MODELS=model-a,model-b for a panel/);
		const w = start.withPanelModels(nightly, models);
		expect(panelOf(w)).toEqual({});
		// The example itself is not changed.
		expect(panelOf(nightly)).toEqual({ panelModels: 'gpt-4o-mini, gpt-4.1-mini' });
	});

	it('takes OPENAI_PANEL_MODELS wherever the judges run', () => {
		const env = {
			OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
			OPENAI_PANEL_MODELS: ' llama3.1, mistral ,,qwen2.5',
		};
		const { models, note } = choose(env);
		expect(models).toEqual(['llama3.1', 'mistral', 'qwen2.5']);
		expect(note).toBe('judge panels: llama3.1, mistral, qwen2.5 (from OPENAI_PANEL_MODELS)');
		expect(panelOf(start.withPanelModels(nightly, models))).toEqual({
			panelModels: 'llama3.1, mistral, qwen2.5',
		});
	});
});
