import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { judgeAgreement, type AgreementRow } from '../../src/agreement';
import { reviewAgreement } from '../../src/review';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { allPaired, listParam } from '../shared/collect';

const HUMAN = '__human_label';

/** Detect: human labels that are all 1-5 compare on the 1-5 scale, anything else as yes/no. */
function scaleFromLabels(rows: AgreementRow[]): 'binary' | 'likert' | undefined {
	const labels = rows.map((r) => r[HUMAN]).filter((v) => v !== null && v !== undefined && v !== '');
	if (!labels.length) return undefined;
	const likert = labels.every(
		(v) => [1, 2, 3, 4, 5].includes(Number(v)) && String(v).trim() !== '',
	);
	return likert ? undefined : 'binary';
}

/**
 * Judge Agreement: how well a judge agrees with human labels on the same rows (Cohen's kappa with
 * an interval, accuracy, precision, recall, F1, false positive and negative rates, confusion
 * matrix, weighted kappa for 1-5 judges), the disagreeing rows, and whether it is fit to gate on.
 */
export class JudgeAgreement implements INodeType {
	static readonly search: NodeSearch = {
		families: ['judge', 'review'],
		words: ['agreement', 'kappa', 'calibration', 'human labels', 'accuracy'],
	};

	description: INodeTypeDescription = {
		displayName: 'Judge Agreement',
		name: 'judgeAgreement',
		icon: iconFor('agreement'),
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter.judge }}',
		description:
			'Measure an LLM judge against human labels: kappa, accuracy, F1, error rates and disagreements',
		defaults: { name: 'Judge Agreement' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		properties: [
			{
				displayName: 'Labels From',
				name: 'source',
				type: 'options',
				default: 'rows',
				options: [
					{
						name: 'Scored Rows with a Human Label',
						value: 'rows',
						description: 'One judge, rows carrying its Score and a human label',
					},
					{
						name: 'Review Labels (Data Table)',
						value: 'reviewLabels',
						description:
							'Rows of the labels Data Table (Review Labels -> Record Label): every judge labelled, all its versions together and each version',
					},
				],
			},
			{
				displayName: 'Judge',
				name: 'judge',
				type: 'string',
				default: 'groundedness',
				required: true,
				displayOptions: { show: { source: ['rows'] } },
				description: 'Key of the judge score under eval (e.g. groundedness, correctness)',
			},
			{
				displayName: 'Human Label',
				name: 'humanLabel',
				type: 'string',
				default: '={{ $json.human_label }}',
				displayOptions: { show: { source: ['rows'] } },
				description: 'The human verdict per row: yes/no, pass/fail, true/false, or 1-5',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Scale',
						name: 'scale',
						type: 'options',
						default: 'auto',
						options: [
							{ name: 'Detect', value: 'auto' },
							{ name: 'Yes / No', value: 'binary' },
							{ name: '1-5', value: 'likert' },
						],
					},
					{
						displayName: 'Pass Threshold (1-5)',
						name: 'passThreshold',
						type: 'number',
						default: 3,
					},
					{
						displayName: 'Minimum Kappa to Gate',
						name: 'minKappa',
						type: 'number',
						default: 0.6,
						typeOptions: { numberPrecision: 2 },
					},
					{ displayName: 'Minimum Rows to Gate', name: 'minRows', type: 'number', default: 30 },
					{
						displayName: 'Positive Labels',
						name: 'positiveLabels',
						type: 'string',
						default: '',
						placeholder: 'yes, pass, good',
						description:
							'Comma-separated human labels meaning "pass" (defaults cover yes/true/pass/1)',
					},
					{
						displayName: 'Negative Labels',
						name: 'negativeLabels',
						type: 'string',
						default: '',
						placeholder: 'no, fail, bad',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		if (this.getNodeParameter('source', 0, 'rows') === 'reviewLabels') {
			const result = reviewAgreement(
				items.map((i) => i.json),
				{
					minKappa: (o.minKappa as number | undefined) ?? undefined,
					minRows: (o.minRows as number | undefined) ?? undefined,
				},
			);
			return [[{ json: result as unknown as IDataObject, pairedItem: allPaired(items.length) }]];
		}
		const judge = (this.getNodeParameter('judge', 0) as string).trim();
		const rows: AgreementRow[] = items.map((item, i) => ({
			...item.json,
			[HUMAN]: this.getNodeParameter('humanLabel', i, null),
		}));
		const pos = listParam(o.positiveLabels);
		const neg = listParam(o.negativeLabels);
		let result;
		try {
			result = judgeAgreement(rows, {
				judge,
				humanField: HUMAN,
				scale: o.scale === 'binary' || o.scale === 'likert' ? o.scale : scaleFromLabels(rows),
				passThreshold: (o.passThreshold as number | undefined) ?? undefined,
				minKappa: (o.minKappa as number | undefined) ?? undefined,
				minRows: (o.minRows as number | undefined) ?? undefined,
				positiveLabels: pos.length ? pos : undefined,
				negativeLabels: neg.length ? neg : undefined,
			});
		} catch (e) {
			throw new NodeOperationError(this.getNode(), (e as Error).message, {
				description: `Check that rows carry eval.${judge} scores and a human label for each row.`,
			});
		}
		return [[{ json: result as unknown as IDataObject, pairedItem: allPaired(items.length) }]];
	}
}
