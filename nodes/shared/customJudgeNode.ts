/**
 * The Custom Judge node: its settings build a declaration (src/judges/specs/custom.ts) per run,
 * which the shared judge executor runs like any other judge.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { evaluatorRegistry } from '../../src/registry';
import {
	customInputs,
	customJudge,
	customJudgeDecl,
	type CustomJudgeConfig,
	type CustomOutputKind,
} from '../../src/judges/specs/custom';
import type { NodeSearch } from './codex';
import { executeJudge, judgeDescription, ragEvalLlmApiTest } from './judgeNode';
import { inputProperty } from './metricNode';

const configProperties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'judgeName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'tone',
		description:
			'Key of the score under eval and in run metrics (response/llm_judged/{name}/rating/percentage). Letters, digits and _.',
	},
	{
		displayName: 'Prompt Type',
		name: 'promptType',
		type: 'options',
		default: 'criterion',
		options: [
			{
				name: 'Criterion',
				value: 'criterion',
				description: 'Describe what to check; we write the prompt',
			},
			{
				name: 'Whole Prompt',
				value: 'prompt',
				description: 'Write system and user prompts with {placeholders}',
			},
		],
	},
	{
		displayName: 'Criterion',
		name: 'criterion',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		placeholder: 'The response must be polite and professional.',
		displayOptions: { show: { promptType: ['criterion'] } },
		description: 'What the judge checks, in your words; it sees the request and the response',
	},
	{
		displayName: 'System Prompt',
		name: 'customSystemPrompt',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		displayOptions: { show: { promptType: ['prompt'] } },
		description:
			'Instructions for the judge. Placeholders in single braces name record fields: {request}, {response}, {retrieved_context}, {expected_response}, {expected_facts}, {guidelines}, {history}. Output format instructions are added for you.',
	},
	{
		displayName: 'User Prompt',
		name: 'customUserPrompt',
		type: 'string',
		typeOptions: { rows: 6 },
		default: 'Request:\n{request}\n\nAnswer to judge:\n{response}',
		displayOptions: { show: { promptType: ['prompt'] } },
		description: 'The judged data; each placeholder is filled from the field mapped below',
	},
	{
		displayName: 'Output',
		name: 'outputKind',
		type: 'options',
		default: 'yes_no',
		options: [
			{ name: 'Yes / No', value: 'yes_no' },
			{ name: 'Scale 1-5', value: 'scale' },
			{ name: 'Named Choices', value: 'choices' },
		],
	},
	{
		displayName: 'Choices',
		name: 'choices',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add choice',
		displayOptions: { show: { outputKind: ['choices'] } },
		options: [
			{
				displayName: 'Choice',
				name: 'choice',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{
						displayName: 'Score',
						name: 'score',
						type: 'number',
						default: 1,
						typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
						description: 'Score (0-1) this choice maps to',
					},
				],
			},
		],
	},
	{
		displayName: 'Per Retrieved Chunk',
		name: 'perChunk',
		type: 'boolean',
		default: false,
		displayOptions: { show: { outputKind: ['yes_no'] } },
		description:
			'Whether to ask the question of each retrieved chunk; the value is the share of chunks answered yes (retrieval/llm_judged/{name}/precision)',
	},
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		default: 3,
		displayOptions: { show: { outputKind: ['scale'] } },
		description: 'A row passes when the rating is at least this value (1-5)',
	},
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		default: 0.5,
		typeOptions: { numberPrecision: 2 },
		displayOptions: { show: { outputKind: ['choices'] } },
		description: "A row passes when the chosen answer's score is at least this value (0-1)",
	},
];

function description(): INodeTypeDescription {
	const base = judgeDescription(customJudge);
	const inputNames = new Set(customInputs().map((i) => i.name));
	const rest = base.properties.filter((p) => !inputNames.has(p.name) && p.name !== 'notice');
	const options = rest.find((p) => p.name === 'options');
	if (options?.options) {
		// The prompt is set above; the template's prompt fields would only confuse.
		options.options = (options.options as INodeProperties[]).filter(
			(o) => o.name !== 'systemPrompt' && o.name !== 'userPrompt',
		);
	}
	return {
		...base,
		displayName: 'Custom Judge',
		subtitle: '={{ $parameter.judgeName }}',
		defaults: { name: 'Custom Judge' },
		properties: [
			{
				displayName:
					'Your own LLM judge. Uses the RAG Eval LLM API credential or the connected Chat Model. A failing custom judge is reported after every built-in judge in the root cause (the Custom Judge output of the Root-Cause Router).',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			...configProperties,
			...customInputs().map(inputProperty),
			...rest,
		],
	};
}

/** The Custom Judge node class: the user's criterion or prompt, yes/no, 1-5 or named choices. */
export class CustomJudgeNode implements INodeType {
	static readonly search: NodeSearch = {
		families: ['judge'],
		words: ['custom', 'criteria', 'rubric', 'prompt', 'custom metric'],
	};
	description = description();
	methods = { credentialTest: { ragEvalLlmApiTest } };
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const promptType = this.getNodeParameter('promptType', 0, 'criterion') as string;
		const output = this.getNodeParameter('outputKind', 0, 'yes_no') as CustomOutputKind;
		const choices = this.getNodeParameter('choices', 0, {}) as IDataObject;
		const config: CustomJudgeConfig = {
			name: (this.getNodeParameter('judgeName', 0, '') as string).trim(),
			output,
			criterion:
				promptType === 'criterion'
					? (this.getNodeParameter('criterion', 0, '') as string)
					: undefined,
			prompt:
				promptType === 'prompt'
					? {
							system: this.getNodeParameter('customSystemPrompt', 0, '') as string,
							user: this.getNodeParameter('customUserPrompt', 0, '') as string,
						}
					: undefined,
			choices: ((choices.choice as IDataObject[] | undefined) ?? []).map((c) => ({
				name: String(c.name ?? ''),
				score: Number(c.score),
			})),
			perChunk: output === 'yes_no' && (this.getNodeParameter('perChunk', 0, false) as boolean),
		};
		let decl;
		try {
			decl = customJudgeDecl(
				config,
				evaluatorRegistry.map((e) => e.id),
			);
		} catch (e) {
			throw new NodeOperationError(this.getNode(), (e as Error).message, {
				description:
					'Fix the judge settings: a name, a criterion or prompt whose {placeholders} are record fields, and for choices at least two names with scores in 0-1.',
			});
		}
		return executeJudge.call(this, decl);
	}
}
