/**
 * A test-only Chat Model sub-node: supplies an object with LangChain's duck-typed `invoke`
 * that calls the local OpenAI-compatible server over HTTP, as a connected n8n chat model would.
 */
import {
	NodeConnectionTypes,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';

class HttpChatModel {
	constructor(
		readonly baseUrl: string,
		readonly model: string,
	) {}

	async invoke(messages: [string, string][], options?: { signal?: AbortSignal }): Promise<unknown> {
		const roles: Record<string, string> = { system: 'system', human: 'user', ai: 'assistant' };
		const res = await fetch(`${this.baseUrl}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				model: this.model,
				messages: messages.map(([role, content]) => ({ role: roles[role] ?? role, content })),
			}),
			signal: options?.signal,
		});
		const body = (await res.json()) as {
			model: string;
			choices: { message: { content: string }; finish_reason: string }[];
			usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
		};
		return {
			content: body.choices[0].message.content,
			usage_metadata: {
				input_tokens: body.usage.prompt_tokens,
				output_tokens: body.usage.completion_tokens,
				total_tokens: body.usage.total_tokens,
			},
			response_metadata: { model_name: body.model, finish_reason: body.choices[0].finish_reason },
		};
	}
}

export class TestChatModel implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Chat Model',
		name: 'testChatModel',
		group: ['transform'],
		version: 1,
		description: 'Test-only chat model backed by the local OpenAI-compatible server',
		defaults: { name: 'Test Chat Model' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiLanguageModel],
		properties: [
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
			{ displayName: 'Model', name: 'model', type: 'string', default: 'duck-model' },
		],
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const baseUrl = this.getNodeParameter('baseUrl', itemIndex) as string;
		const model = this.getNodeParameter('model', itemIndex) as string;
		return { response: new HttpChatModel(baseUrl, model) };
	}
}
