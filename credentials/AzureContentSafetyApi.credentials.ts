import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * An Azure AI Content Safety resource: its endpoint and one of its keys, sent only in the
 * `Ocp-Apim-Subscription-Key` header. Used by the safety nodes and the Groundedness Judge.
 */
export class AzureContentSafetyApi implements ICredentialType {
	name = 'azureContentSafetyApi';

	displayName = 'Azure AI Content Safety API';

	icon = { light: 'file:judge.svg', dark: 'file:judge.dark.svg' } as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-rag-eval#safety-backends';

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: { 'Ocp-Apim-Subscription-Key': '={{$credentials.apiKey}}' },
		},
	};

	// One small text:analyze call (a short neutral text, one category): it proves the endpoint,
	// the key and the api-version together, and costs one text record.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.endpoint.replace(/\\/+$/, "") }}',
			url: '={{ "/contentsafety/text:analyze?api-version=" + ($credentials.apiVersion || "2024-09-01") }}',
			method: 'POST',
			body: { text: 'credential check', categories: ['Hate'], outputType: 'EightSeverityLevels' },
		},
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Endpoint',
			name: 'endpoint',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://my-resource.cognitiveservices.azure.com',
			description: 'The Content Safety resource endpoint (Azure portal: Keys and Endpoint)',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
		},
		{
			displayName: 'API Version',
			name: 'apiVersion',
			type: 'string',
			default: '',
			placeholder: '2024-09-01',
			description:
				'api-version of text analysis, protected material and Prompt Shields; empty uses 2024-09-01. Groundedness detection always uses its preview version, 2024-02-15-preview.',
		},
	];
}
