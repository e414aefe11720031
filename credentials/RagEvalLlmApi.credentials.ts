import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The judge model: OpenAI, Azure OpenAI, or any OpenAI-compatible server (Ollama, vLLM,
 * LM Studio, llama.cpp). The key is only ever handed to the `openai` SDK.
 */
export class RagEvalLlmApi implements ICredentialType {
	name = 'ragEvalLlmApi';

	displayName = 'RAG Eval LLM API';

	icon = { light: 'file:judge.svg', dark: 'file:judge.dark.svg' } as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-rag-eval#judge-model-credential';

	// Judge nodes call the model through the `openai` SDK; this header is for n8n's own
	// credential test request below (the nodes' richer `ragEvalLlmApiTest` runs first).
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
				'api-key': '={{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ $credentials.provider === "compatible" ? $credentials.baseUrl : $credentials.provider === "azure" ? $credentials.azureEndpoint.replace(/\\/$/, "") + "/openai" : ($credentials.openaiBaseUrl || "https://api.openai.com/v1") }}',
			url: '={{ $credentials.provider === "azure" ? "/models?api-version=" + $credentials.apiVersion : "/models" }}',
		},
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Provider',
			name: 'provider',
			type: 'options',
			default: 'openai',
			options: [
				{ name: 'OpenAI', value: 'openai' },
				{ name: 'Azure OpenAI', value: 'azure' },
				{
					name: 'OpenAI-Compatible Server',
					value: 'compatible',
					description:
						'Ollama, vLLM, LM Studio, llama.cpp server and other servers with /v1/chat/completions',
				},
			],
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Optional for local servers that do not check keys',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://127.0.0.1:11434/v1',
			placeholder: 'http://127.0.0.1:11434/v1',
			description: 'Address of the OpenAI-compatible API, including /v1',
			displayOptions: { show: { provider: ['compatible'] } },
		},
		{
			displayName: 'Base URL',
			name: 'openaiBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://api.openai.com/v1',
			description: 'Leave empty for the OpenAI API; set it for a proxy or gateway',
			displayOptions: { show: { provider: ['openai'] } },
		},
		{
			displayName: 'Organization ID',
			name: 'organization',
			type: 'string',
			default: '',
			displayOptions: { show: { provider: ['openai'] } },
		},
		{
			displayName: 'Azure Endpoint',
			name: 'azureEndpoint',
			type: 'string',
			default: '',
			placeholder: 'https://my-resource.openai.azure.com',
			displayOptions: { show: { provider: ['azure'] } },
		},
		{
			displayName: 'Deployment',
			name: 'azureDeployment',
			type: 'string',
			default: '',
			description: 'Name of the model deployment to call',
			displayOptions: { show: { provider: ['azure'] } },
		},
		{
			displayName: 'API Version',
			name: 'apiVersion',
			type: 'string',
			default: '2024-10-21',
			displayOptions: { show: { provider: ['azure'] } },
		},
		{
			displayName: 'Default Model',
			name: 'model',
			type: 'string',
			default: 'gpt-4o-mini',
			description: 'Model used by judge nodes unless a node overrides it',
		},
	];
}
