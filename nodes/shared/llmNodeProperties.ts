/**
 * Properties every LLM-calling node declares alike, worded for what the node calls the model for:
 * the Model parameter, the Mode option (the node's run, or Estimate Only) with the spend options,
 * and the advice when the provider rejects the calls for good.
 */
import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { spendOptions } from './llmOptions';

/**
 * "Model": `role` says what the model does ("Model to judge with", "Red-team model"); `shown`,
 * when the parameter only applies to some settings (its displayOptions).
 */
export function modelProperty(
	role: string,
	shown?: INodeProperties['displayOptions'],
): INodeProperties {
	return {
		displayName: 'Model',
		name: 'model',
		type: 'string',
		default: '',
		// n8n's placeholders are fixed text (they cannot read the chosen credential), so this one
		// names no model: any name here would be wrong for most credentials.
		placeholder: "Empty: the credential's default model",
		...(shown ? { displayOptions: shown } : {}),
		description: `${role}. Empty uses the credential's default model; a connected Chat Model uses its own.`,
	};
}

/**
 * The spend options with Mode worded for the node: its own run (`run`, the default) or
 * Estimate Only (`estimate` says what an estimate yields), and Mode's `description`.
 */
export function spendOptionsWithRun(
	run: INodePropertyOptions,
	estimate: string,
	description: string,
): INodeProperties[] {
	return spendOptions.map((p) =>
		p.name === 'runMode'
			? {
					...p,
					default: run.value,
					options: [run, { name: 'Estimate Only', value: 'estimate', description: estimate }],
					description,
				}
			: p,
	);
}

/** The advice of a node whose `model` ("The judge model") rejected the calls for good. */
export function modelRejectedAdvice(model: string): string {
	return `${model} rejected the calls in a way no retry can fix (key, model name, quota or endpoint). Check the RAG Eval LLM API credential and the Model parameter.`;
}

/** The judge nodes' Max Tokens: a ceiling on each reply, sent only when set. */
export const maxTokensOption: INodeProperties = {
	displayName: 'Max Tokens',
	name: 'maxTokens',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0 },
	description:
		"Most tokens a judge reply may have (sent as max_tokens); 0 = not sent, the server's default. Raise it when replies are cut off (finish reason length).",
};

/** Max Tokens from the node's Options: a positive whole number, else not sent. */
export function maxTokensOf(options: IDataObject): number | undefined {
	const v = options.maxTokens;
	return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : undefined;
}
