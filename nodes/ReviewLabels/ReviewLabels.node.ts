import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	goldenColumns,
	goldenJsonl,
	jsonColumn,
	labelFromSubmission,
	LabelError,
	promoteToGolden,
	REVIEW_FORM_CSS,
	requestIdOf,
	reviewForm,
	rowFromSubmission,
	type ReviewRow,
} from '../../src/review';
import type { NodeSearch } from '../shared/codex';
import { choiceSubtitle, iconFor } from '../shared/common';
import { allPaired, listParam, rowListOption } from '../shared/collect';

type Operation = 'form' | 'label' | 'promote';

// A row given as an object or as the JSON text a Data Table column holds.
function rowValue(v: unknown): ReviewRow | undefined {
	const r = jsonColumn<unknown>(v, undefined);
	return r && typeof r === 'object' && !Array.isArray(r) ? (r as ReviewRow) : undefined;
}

/**
 * Review Labels: the human-review steps between the Review Queue and Judge Agreement. Review Form
 * builds the fields of n8n's Form node for one row; Record Label turns the submitted form into a
 * label row for the labels Data Table (reviewer, time, the judge versions seen, the verdicts);
 * Promote to Golden Set turns labels with a corrected answer or expected facts into golden rows,
 * deduplicated against the team's dataset.
 */
export class ReviewLabels implements INodeType {
	static readonly search: NodeSearch = {
		families: ['review'],
		words: ['review form', 'record label', 'promote', 'golden set'],
	};

	description: INodeTypeDescription = {
		displayName: 'Review Labels',
		name: 'reviewLabels',
		icon: iconFor('agreement'),
		group: ['transform'],
		version: 1,
		subtitle: choiceSubtitle('operation', {
			form: 'review form',
			label: 'record a label',
			promote: 'promote to the golden set',
		}),
		description:
			"Human review: build the review form for a row, record the reviewer's label, promote corrections to the golden set",
		defaults: { name: 'Review Labels' },
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'form',
				options: [
					{
						name: 'Review Form',
						value: 'form',
						action: 'Build the review form of a row',
						description:
							'Adds review_form: the fields for a Form node (Define Form: Using JSON, Fields = {{ $json.review_form.fieldsJson }})',
					},
					{
						name: 'Record Label',
						value: 'label',
						action: 'Turn a submitted review form into a label row',
						description:
							"From the Form node's output: a label row with the signed-in reviewer, time, judge versions and verdicts",
					},
					{
						name: 'Promote to Golden Set',
						value: 'promote',
						action: 'Turn corrected labels into golden rows',
						description:
							'Labels with a corrected answer or expected facts become golden rows, deduplicated',
					},
				],
			},
			{
				displayName: 'Row',
				name: 'row',
				type: 'json',
				default: '={{ $json.row ?? $json.review?.row }}',
				displayOptions: { show: { operation: ['form'] } },
				description:
					'The row to review: an object or JSON text (the review.row the Review Queue writes, stored in the labels Data Table)',
			},
			{
				displayName: 'Judges',
				name: 'judges',
				type: 'string',
				default: '',
				placeholder: 'groundedness, relevance',
				displayOptions: { show: { operation: ['form'] } },
				description: 'Comma-separated judges to ask about; default every yes/no and 1-5 judge',
			},
			{
				displayName: 'Reviewer',
				name: 'reviewer',
				type: 'string',
				default: '',
				placeholder: "={{ $('Review Page').first().json.user.email }}",
				displayOptions: { show: { operation: ['form'] } },
				description:
					"Shown on the page as who is reviewing (the signed-in n8n user the Form Trigger's n8n User Auth adds as user); with Ask Reviewer Name, the name field's default. Display only: Record Label takes the reviewer from the submission's signed-in user.",
			},
			{
				displayName: 'Ask Reviewer Name',
				name: 'askReviewerName',
				type: 'boolean',
				default: false,
				displayOptions: { show: { operation: ['form'] } },
				description:
					'Whether to add a "Your name" field to the page, for a form behind Basic Auth where n8n knows no user (Record Label then needs Accept Typed Reviewer Name). Off: the reviewer is the signed-in n8n user.',
			},
			{
				displayName: 'Row',
				name: 'labelRow',
				type: 'json',
				default: '',
				displayOptions: { show: { operation: ['label'] } },
				description:
					'The reviewed row, when not carried by the form itself (the review form carries it in a hidden field)',
			},
			{
				displayName: 'Accept Typed Reviewer Name',
				name: 'acceptTypedReviewer',
				type: 'boolean',
				default: false,
				displayOptions: { show: { operation: ['label'] } },
				description:
					'Whether a submission without a signed-in n8n user is recorded under the name typed in its reviewer field (reviewer_id left empty). Only for a form behind Basic Auth: anyone who can post the form can type any name. Off: such a submission is refused, and the reviewer is always the user n8n User Auth signed in (a typed reviewer field is ignored).',
			},
			{
				displayName: 'Existing Dataset Rows',
				name: 'existing',
				type: 'json',
				default: '',
				placeholder: "={{ $('Get Golden Rows').all().map((item) => item.json) }}",
				displayOptions: { show: { operation: ['promote'] } },
				description: 'Rows of the golden set already: a request among them is not added again',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				default: 'columns',
				displayOptions: { show: { operation: ['promote'] } },
				options: [
					{
						name: 'Data Table Columns',
						value: 'columns',
						description: 'One item per golden row, object fields as JSON text',
					},
					{
						name: 'Objects',
						value: 'objects',
						description: 'One item per golden row, as the Databricks evaluation set has it',
					},
					{
						name: 'JSONL File',
						value: 'jsonl',
						description: 'One item with golden.jsonl as binary data, to download',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operation = this.getNodeParameter('operation', 0) as Operation;
		if (operation === 'promote') return [await promote(this, items)];
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			// The row an error names: its position, and its request id once known.
			let where = `row ${i + 1}`;
			try {
				if (operation === 'form') {
					const row = rowValue(this.getNodeParameter('row', i, undefined));
					if (!row) throw new LabelError('Row: no row to review (give an object or its JSON text)');
					const judges = listParam(this.getNodeParameter('judges', i, ''));
					const reviewer = String(this.getNodeParameter('reviewer', i, '') ?? '').trim();
					const form = reviewForm(row, {
						judges: judges.length ? judges : undefined,
						reviewer: reviewer || undefined,
						askReviewerName: this.getNodeParameter('askReviewerName', i, false) as boolean,
					});
					out.push({
						json: {
							...items[i].json,
							review_form: { ...form, css: REVIEW_FORM_CSS } as unknown as IDataObject,
						},
						pairedItem: { item: i },
					});
				} else {
					const submission = items[i].json as Record<string, unknown>;
					const row =
						rowValue(this.getNodeParameter('labelRow', i, '')) ?? rowFromSubmission(submission);
					if (!row)
						throw new LabelError(
							"no reviewed row: the submission lacks the review form's hidden row and Row is empty",
						);
					const id = requestIdOf(row);
					if (id !== null) where += ` (request_id ${id})`;
					const acceptTypedReviewer = this.getNodeParameter(
						'acceptTypedReviewer',
						i,
						false,
					) as boolean;
					out.push({
						json: labelFromSubmission(row, submission, new Date(), {
							acceptTypedReviewer,
						}) as unknown as IDataObject,
						pairedItem: { item: i },
					});
				}
			} catch (e) {
				if (!(e instanceof LabelError))
					throw new NodeOperationError(this.getNode(), e as Error, { itemIndex: i });
				const message = operation === 'label' ? `${where}: ${e.message}` : e.message;
				if (this.continueOnFail()) {
					out.push({ json: { ...items[i].json, error: message }, pairedItem: { item: i } });
					continue;
				}
				throw new NodeOperationError(this.getNode(), message, { itemIndex: i });
			}
		}
		return [out];
	}
}

async function promote(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const existing = rowListOption(
		ctx,
		'Existing Dataset Rows',
		ctx.getNodeParameter('existing', 0, ''),
		'the golden set rows',
		"Set it to an expression returning an array, e.g. {{ $('Get Golden Rows').all().map((item) => item.json) }}.",
	);
	const result = promoteToGolden(
		items.map((i) => i.json),
		((existing as unknown[] | undefined) ?? []).filter(
			(r): r is Record<string, unknown> => !!r && typeof r === 'object',
		),
	);
	const output = ctx.getNodeParameter('output', 0, 'columns') as 'columns' | 'objects' | 'jsonl';
	const paired = allPaired(items.length);
	if (output === 'jsonl') {
		const binary = await ctx.helpers.prepareBinaryData(
			Buffer.from(goldenJsonl(result.rows), 'utf8'),
			'golden.jsonl',
			'application/jsonl',
		);
		return [
			{
				json: {
					promoted: result.rows.length,
					skipped: result.skipped as unknown as IDataObject[],
					factsDropped: result.factsDropped,
				},
				binary: { data: binary },
				pairedItem: paired,
			},
		];
	}
	// Each golden row points at the label it came from.
	const indexOf = new Map<unknown, number>();
	items.forEach((it, i) =>
		indexOf.set(`${String(it.json.request_id)}\u0000${String(it.json.reviewed_at)}`, i),
	);
	return result.rows.map((row) => ({
		json: (output === 'columns' ? goldenColumns(row) : row) as unknown as IDataObject,
		pairedItem: { item: indexOf.get(`${row.request_id}\u0000${row.reviewed_at}`) ?? 0 },
	}));
}
