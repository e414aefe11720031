/**
 * The root-cause policy parameters, shared by the Root-Cause Router and Eval Aggregate so both
 * decide a row's cause with the same ground-truth mode and orders (the defaults come from the
 * declarations' ranks, seed 001's two orders).
 */
import type { INodeProperties } from 'n8n-workflow';
import {
	defaultOrder,
	rootCausePolicy,
	type GroundTruthMode,
	type RootCausePolicy,
} from '../../src/rootcause';
import { listParam } from './collect';

const WITH_GT = defaultOrder('withGroundTruth').join(', ');
const WITHOUT_GT = defaultOrder('withoutGroundTruth').join(', ');

/** Ground-truth mode and the two orders, as node parameters. */
export const rootCauseProperties: INodeProperties[] = [
	{
		displayName: 'Has Ground Truth',
		name: 'groundTruth',
		type: 'options',
		default: 'auto',
		options: [
			{
				name: 'Detect per Row',
				value: 'auto',
				description: 'Yes when the row has expected_response (or ground_truth) or expected_facts',
			},
			{ name: 'Yes', value: 'yes' },
			{ name: 'No', value: 'no' },
		],
		description:
			'Which order applies: rows with ground truth are diagnosed differently from rows without',
	},
	{
		displayName: 'Order With Ground Truth',
		name: 'orderWithGroundTruth',
		type: 'string',
		default: WITH_GT,
		description:
			'Judges checked in this order; the first that failed is the root cause. Other judges, then custom judges, come after. Editing it never re-wires outputs.',
	},
	{
		displayName: 'Order Without Ground Truth',
		name: 'orderWithoutGroundTruth',
		type: 'string',
		default: WITHOUT_GT,
		description: 'Judges checked in this order when the row has no ground truth',
	},
];

/** The policy from parameter values (missing ones take the defaults). */
export function policyFromParams(values: {
	groundTruth?: unknown;
	orderWithGroundTruth?: unknown;
	orderWithoutGroundTruth?: unknown;
}): RootCausePolicy {
	const mode = values.groundTruth;
	return rootCausePolicy({
		groundTruth: mode === 'yes' || mode === 'no' ? (mode as GroundTruthMode) : 'auto',
		withGroundTruth:
			values.orderWithGroundTruth !== undefined
				? listParam(values.orderWithGroundTruth)
				: undefined,
		withoutGroundTruth:
			values.orderWithoutGroundTruth !== undefined
				? listParam(values.orderWithoutGroundTruth)
				: undefined,
	});
}
