/**
 * The credentials each safety node offers, and when n8n shows them: only while a Backend (or the
 * Indirect Attack node's Attack Detector) that reads the credential is picked.
 */
import { safetyDescription } from '../../../nodes/shared/safetyNode';

describe('safety node credentials', () => {
	it('Content Safety: the LLM credential for the LLM judge and OpenAI moderation, Azure for Azure', () => {
		expect(safetyDescription('content_safety').credentials).toEqual([
			{
				name: 'ragEvalLlmApi',
				required: false,
				testedBy: 'ragEvalLlmApiTest',
				displayOptions: { show: { backend: ['llm', 'openai_moderation'] } },
			},
			{
				name: 'azureContentSafetyApi',
				required: false,
				displayOptions: { show: { backend: ['azure_content_safety'] } },
			},
		]);
	});

	it('Protected Material: each credential with its backend', () => {
		expect(safetyDescription('protected_material').credentials).toEqual([
			{
				name: 'ragEvalLlmApi',
				required: false,
				testedBy: 'ragEvalLlmApiTest',
				displayOptions: { show: { backend: ['llm'] } },
			},
			{
				name: 'azureContentSafetyApi',
				required: false,
				displayOptions: { show: { backend: ['azure_content_safety'] } },
			},
		]);
	});

	it('Indirect Attack: the Azure credential follows the Attack Detector, not the Backend', () => {
		const d = safetyDescription('indirect_attack');
		expect(d.credentials).toEqual([
			{
				name: 'ragEvalLlmApi',
				required: false,
				testedBy: 'ragEvalLlmApiTest',
				displayOptions: { show: { backend: ['llm'] } },
			},
			{
				name: 'azureContentSafetyApi',
				required: false,
				displayOptions: { show: { attackDetector: ['azure_content_safety'] } },
			},
		]);
		// Every parameter a credential's displayOptions names exists on the node.
		const names = new Set(d.properties.map((p) => p.name));
		for (const c of d.credentials ?? [])
			for (const k of Object.keys(c.displayOptions?.show ?? {})) expect(names.has(k)).toBe(true);
	});
});
