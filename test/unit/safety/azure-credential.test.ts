/**
 * The Azure AI Content Safety credential: its test request, with the expressions evaluated as
 * plain JavaScript the way n8n resolves `={{ }}`, is one small call the local server accepts
 * (endpoint with or without a trailing slash, default and explicit api-version), and a wrong key
 * fails it. The key travels only in the authenticate header.
 */
import { AzureContentSafetyApi } from '../../../credentials/AzureContentSafetyApi.credentials';
import {
	azureReplies,
	startAzureContentSafetyServer,
	type AzureContentSafetyServer,
} from '../../support/azure-content-safety-server';

type Creds = Record<string, string>;

function evaluate(template: string, $credentials: Creds): string {
	const m = /^=\{\{([\s\S]*)\}\}$/.exec(template);
	if (!m) return template;
	return String(new Function('$credentials', `return (${m[1]});`)($credentials));
}

async function runTest(creds: Creds): Promise<number> {
	const cred = new AzureContentSafetyApi();
	const req = cred.test.request;
	const headers: Record<string, string> = {};
	for (const [k, v] of Object.entries(cred.authenticate.properties.headers ?? {}))
		headers[k] = evaluate(String(v), creds);
	const res = await fetch(`${evaluate(req.baseURL!, creds)}${evaluate(req.url!, creds)}`, {
		method: req.method,
		headers: { ...headers, 'content-type': 'application/json' },
		body: JSON.stringify(req.body),
	});
	return res.status;
}

describe('Azure AI Content Safety credential', () => {
	let server: AzureContentSafetyServer;
	beforeEach(async () => {
		server = await startAzureContentSafetyServer();
		server.setDefault('analyze', azureReplies.analyze());
	});
	afterEach(async () => {
		await server.close();
	});

	it('is named azureContentSafetyApi with endpoint, a password key and an optional api-version', () => {
		const cred = new AzureContentSafetyApi();
		expect(cred.name).toBe('azureContentSafetyApi');
		const byName = Object.fromEntries(cred.properties.map((p) => [p.name, p]));
		expect(Object.keys(byName)).toEqual(['endpoint', 'apiKey', 'apiVersion']);
		expect(byName.apiKey.typeOptions?.password).toBe(true);
		expect(byName.apiVersion.required).toBeFalsy();
	});

	it('its test request is one small text:analyze call the service accepts', async () => {
		expect(
			await runTest({ endpoint: `${server.endpoint}/`, apiKey: server.key, apiVersion: '' }),
		).toBe(200);
		expect(
			await runTest({ endpoint: server.endpoint, apiKey: server.key, apiVersion: '2023-10-01' }),
		).toBe(200);
		const [a, b] = server.requestsTo('analyze');
		expect(a.apiVersion).toBe('2024-09-01');
		expect(b.apiVersion).toBe('2023-10-01');
		expect(a.body).toEqual({
			text: 'credential check',
			categories: ['Hate'],
			outputType: 'EightSeverityLevels',
		});
		expect(a.headers['ocp-apim-subscription-key']).toBe(server.key);
		expect(a.path).toBe('/contentsafety/text:analyze');
		server.assertNoUnexpected();
	});

	it('fails with a wrong key', async () => {
		expect(await runTest({ endpoint: server.endpoint, apiKey: 'nope-1234', apiVersion: '' })).toBe(
			401,
		);
	});
});
