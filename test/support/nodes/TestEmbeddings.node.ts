/**
 * A test-only Embeddings sub-node: supplies an object with LangChain's duck-typed
 * `embedDocuments` / `embedQuery` that calls the local OpenAI-compatible server over HTTP, as a
 * connected n8n Embeddings node would. It reports no token usage, like LangChain's classes.
 */
import {
	NodeConnectionTypes,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';

class HttpEmbeddings {
	readonly clientConfig: { baseURL: string };
	constructor(
		baseUrl: string,
		readonly model: string,
	) {
		this.clientConfig = { baseURL: baseUrl };
	}

	async embedDocuments(texts: string[]): Promise<number[][]> {
		const res = await fetch(`${this.clientConfig.baseURL}/embeddings`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ model: this.model, input: texts, encoding_format: 'float' }),
		});
		if (!res.ok) {
			const body = (await res.json()) as { error?: { message?: string } };
			throw Object.assign(new Error(body.error?.message ?? `status ${res.status}`), {
				status: res.status,
			});
		}
		const body = (await res.json()) as { data: { index: number; embedding: number[] }[] };
		return [...body.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
	}

	async embedQuery(text: string): Promise<number[]> {
		return (await this.embedDocuments([text]))[0];
	}
}

export class TestEmbeddings implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Embeddings',
		name: 'testEmbeddings',
		group: ['transform'],
		version: 1,
		description: 'Test-only embeddings backed by the local OpenAI-compatible server',
		defaults: { name: 'Test Embeddings' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiEmbedding],
		properties: [
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
			{ displayName: 'Model', name: 'model', type: 'string', default: 'duck-embedding' },
		],
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const baseUrl = this.getNodeParameter('baseUrl', itemIndex) as string;
		const model = this.getNodeParameter('model', itemIndex) as string;
		return { response: new HttpEmbeddings(baseUrl, model) };
	}
}
