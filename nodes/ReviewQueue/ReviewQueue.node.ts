import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { queuedKeys, selectForReview, storedRow, type ReviewRow } from '../../src/review';
import type { NodeSearch } from '../shared/codex';
import { iconFor } from '../shared/common';
import { listParam, rowListOption } from '../shared/collect';

/** Static-data keys of the queued request ids and fingerprints, when the node remembers them. */
const MEMORY = 'reviewQueue';

/**
 * Review Queue: picks the rows of a scored run for people to review (every failing row, rows where
 * judges disagree or sit near a threshold, a seeded share of passing rows; capped, never a row
 * twice). Every input row leaves: on Queued with its reasons, or on Not Queued with why.
 */
export class ReviewQueue implements INodeType {
	static readonly search: NodeSearch = {
		families: ['review'],
		words: ['queue', 'human in the loop', 'sample for review'],
	};

	description: INodeTypeDescription = {
		displayName: 'Review Queue',
		name: 'reviewQueue',
		icon: iconFor('agreement'),
		group: ['transform'],
		version: 1,
		subtitle: '={{ "at most " + $parameter.maxRows + " rows" }}',
		description:
			'Pick scored rows for human review: failures, judge disagreements, near-threshold scores and a random share of passes, never a row twice',
		defaults: { name: 'Review Queue' },
		// Not an AI-agent tool: a pipeline step, not a check an agent runs on its answer (README, Nodes).
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: [
			{ type: NodeConnectionTypes.Main, displayName: 'Queued' },
			{ type: NodeConnectionTypes.Main, displayName: 'Not Queued' },
		],
		properties: [
			{
				displayName:
					'Input: scored rows (Scores under eval). Each row leaves with review.reasons and review.note, and review.row: the row as JSON text for the labels Data Table.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Max Rows per Run',
				name: 'maxRows',
				type: 'number',
				default: 50,
				typeOptions: { minValue: 0 },
			},
			{
				displayName: 'Share of Passing Rows',
				name: 'passingShare',
				type: 'number',
				default: 0.1,
				typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
				description:
					'Share of clearly passing rows drawn at random, so agreement is not measured on failures only',
			},
			{
				displayName: 'Seed',
				name: 'seed',
				type: 'number',
				default: 1,
				description: 'The same seed and rows always queue the same rows',
			},
			{
				displayName: 'Already Queued Rows',
				name: 'alreadyQueued',
				type: 'json',
				default: '',
				placeholder: "={{ $('Get Review Rows').all().map((item) => item.json) }}",
				description:
					'Rows of the labels Data Table (or any rows with request_id and fingerprint): their rows are never queued again',
			},
			{
				displayName: 'Remember Queued Rows in Workflow Static Data',
				name: 'remember',
				type: 'boolean',
				default: false,
				description:
					'Whether to also keep the queued request ids and fingerprints in the workflow static data (kept by active workflows only)',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Judges',
						name: 'judges',
						type: 'string',
						default: '',
						placeholder: 'groundedness, relevance',
						description: 'Comma-separated keys under eval to consider; default all',
					},
					{
						displayName: 'Near Threshold',
						name: 'nearThreshold',
						type: 'number',
						default: 0.1,
						typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
						description:
							'A score within this share of its scale from its threshold is near it (0.1: 0.4 on 1-5, 0.1 on 0-1)',
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const o = this.getNodeParameter('options', 0, {}) as IDataObject;
		const prior = rowListOption(
			this,
			'Already Queued Rows',
			this.getNodeParameter('alreadyQueued', 0, ''),
			'the labels Data Table rows',
			"Set it to an expression returning an array, e.g. {{ $('Get Review Rows').all().map((item) => item.json) }}.",
		);
		const keys = queuedKeys(
			((prior as unknown[] | undefined) ?? []).filter(
				(r): r is Record<string, unknown> => !!r && typeof r === 'object',
			),
		);
		const remember = this.getNodeParameter('remember', 0, false) as boolean;
		const memory = remember
			? (this.getWorkflowStaticData('node') as IDataObject & {
					[MEMORY]?: { requestIds: string[]; fingerprints: string[] };
				})
			: undefined;
		const remembered = memory?.[MEMORY] ?? { requestIds: [], fingerprints: [] };
		const judges = listParam(o.judges);
		const selection = selectForReview(
			items.map((i) => i.json as ReviewRow),
			{
				maxRows: this.getNodeParameter('maxRows', 0, 50) as number,
				passingShare: this.getNodeParameter('passingShare', 0, 0.1) as number,
				seed: this.getNodeParameter('seed', 0, 1) as number,
				nearThreshold: (o.nearThreshold as number | undefined) ?? undefined,
				judges: judges.length ? judges : undefined,
				queuedRequestIds: [...keys.requestIds, ...remembered.requestIds],
				queuedFingerprints: [...keys.fingerprints, ...remembered.fingerprints],
			},
		);
		const queued: INodeExecutionData[] = [];
		const notQueued: INodeExecutionData[] = [];
		for (const d of selection.decisions) {
			const item = items[d.index];
			const review: IDataObject = {
				queued: d.queued,
				reasons: d.reasons,
				note: d.note,
				request_id: d.requestId,
				fingerprint: d.fingerprint,
			};
			if (d.queued) review.row = JSON.stringify(storedRow(item.json as ReviewRow));
			const out: INodeExecutionData = {
				json: { ...item.json, review },
				pairedItem: { item: d.index },
			};
			if (item.binary) out.binary = item.binary;
			(d.queued ? queued : notQueued).push(out);
		}
		if (memory) {
			const ids = new Set(remembered.requestIds);
			const prints = new Set(remembered.fingerprints);
			for (const d of selection.decisions.filter((x) => x.queued)) {
				if (d.requestId !== null) ids.add(d.requestId);
				prints.add(d.fingerprint);
			}
			memory[MEMORY] = { requestIds: [...ids], fingerprints: [...prints] };
		}
		return [queued, notQueued];
	}
}
