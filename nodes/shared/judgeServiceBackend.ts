/**
 * The "Backend" option of judges a service can answer instead of the LLM (a declaration's
 * `serviceBackends`; today Groundedness via Azure AI Content Safety). Kept apart from
 * judgeNode.ts, which only calls `withServiceBackends` and `executeServiceJudge`.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { errorScore, scoreBase } from '../../src/core/score';
import type { JudgeDecl, JudgeServiceBackend } from '../../src/judges/types';
import {
	serviceGroundednessEvaluator,
	serviceGroundednessSignature,
} from '../../src/safety/azureGroundedness';
import type { SafetyBackend } from '../../src/safety/backend';
import { breakerRow } from './common';
import { nodeGovernor } from './nodeGovernor';
import { backendOptionsFor, lookupSafetyBackend, type SafetyBackendOption } from './safetyBackends';
import { scoreItems } from './scoreItems';

/** Which backend answers a judge node: the LLM judge or a service. */
export type JudgeBackend = 'llm' | JudgeServiceBackend;

/**
 * The service backends a judge can offer: the package's safety backends (one seam, one list,
 * ./safetyBackends.ts) that the declaration names and that serve groundedness detection.
 */
function serviceOptions(decl: JudgeDecl): SafetyBackendOption[] {
	const named = new Set<string>(decl.serviceBackends ?? []);
	return backendOptionsFor('groundedness').filter((o) => named.has(o.id));
}

/**
 * Adds the Backend option, the service credential (shown only for that backend) and a notice
 * to a judge's description; judges without `serviceBackends` are returned unchanged.
 */
export function withServiceBackends(
	decl: JudgeDecl,
	description: INodeTypeDescription,
): INodeTypeDescription {
	const services = serviceOptions(decl);
	if (services.length === 0) return description;
	const llmOnly = { show: { backend: ['llm'] } };
	const backend: INodeProperties = {
		displayName: 'Backend',
		name: 'backend',
		type: 'options',
		default: 'llm',
		options: [
			{
				name: 'LLM Judge',
				value: 'llm',
				description: 'Our prompt, answered by the RAG Eval LLM API credential or a Chat Model',
			},
			...services.map((s) => ({
				name: s.name,
				value: s.id,
				description: `Groundedness detection of ${s.name}: the share of the reply not grounded in the context, mapped to 1-5`,
			})),
		],
		description:
			'Who answers this judge. Every backend gives the same Score on the same 1-5 scale.',
	};
	const notice: INodeProperties = {
		displayName:
			'Sends the response, the retrieved context and the query to your Azure AI Content Safety resource (text:detectGroundedness, preview). Score = 5 - ceil(ungrounded share x 4); the reason lists the ungrounded spans. Prompt, model and temperature options do not apply; a connected Chat Model is not used.',
		name: 'azureNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { backend: ['azure_content_safety'] } },
	};
	const properties = description.properties.map((p) =>
		// The LLM's own notice and model field mean nothing to a service backend.
		p.name === 'notice' || p.name === 'model' ? { ...p, displayOptions: llmOnly } : p,
	);
	const credentials = [
		...(description.credentials ?? []).map((c) => ({ ...c, displayOptions: llmOnly })),
		...services
			.filter((s) => s.credential)
			.map((s) => ({
				name: s.credential!,
				required: true,
				displayOptions: { show: { backend: [s.id] } },
			})),
	];
	return { ...description, credentials, properties: [backend, notice, ...properties] };
}

/** The backend chosen on a node (LLM for judges without the option). */
export function judgeBackendOf(ctx: IExecuteFunctions, decl: JudgeDecl): JudgeBackend {
	const services = serviceOptions(decl);
	if (services.length === 0) return 'llm';
	const b = ctx.getNodeParameter('backend', 0, 'llm') as string;
	return services.some((s) => s.id === b) ? (b as JudgeServiceBackend) : 'llm';
}

/** Builds the chosen service backend through the safety backends' factories; fails the node if it cannot. */
async function serviceBackend(ctx: IExecuteFunctions, id: string): Promise<SafetyBackend> {
	const option = backendOptionsFor('groundedness').find((o) => o.id === id);
	const name = option?.name ?? id;
	const description = `Add an ${name} API credential (endpoint and key of your resource), or switch Backend to LLM Judge.`;
	const found = await lookupSafetyBackend(ctx, id, 'groundedness', { options: {} });
	if ('backend' in found) return found.backend;
	const message = 'error' in found ? found.error : `No ${name} credential`;
	throw new NodeOperationError(ctx.getNode(), message, { description });
}

/**
 * Executes a judge node through its service backend: the one item loop, Score shape, output
 * formats and Pass / Fail / Not Scored routing of every scoring node; one Governor per execution.
 */
export async function executeServiceJudge(
	this: IExecuteFunctions,
	decl: JudgeDecl,
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const backend = await serviceBackend(this, judgeBackendOf(this, decl));
	const { governor, close } = nodeGovernor(this, options);
	const signal = this.getExecutionCancelSignal?.();
	const evaluator = serviceGroundednessEvaluator(decl);
	const pending = serviceGroundednessSignature(decl, backend, 'text:detectGroundedness');
	return scoreItems(this, {
		inputs: decl.inputs,
		threshold: decl.threshold.default,
		factsOf: () => decl,
		unreadable: (error, row) => ({
			[decl.id]: errorScore(scoreBase(decl, decl.id, pending, row.threshold), error),
		}),
		evaluateRow: (values, { threshold, item, index }) =>
			evaluator.evaluateRow(values, {
				backend,
				governor,
				threshold,
				signal,
				row: breakerRow(item, index),
			}),
		fatal: {
			governor,
			key: backend.key,
			advice:
				'Azure AI Content Safety rejected the calls in a way no retry can fix (key, endpoint, api-version or quota). Check the Azure AI Content Safety API credential.',
		},
		close,
	});
}
