/**
 * Builds the risk and safety nodes (Content Safety, Protected Material, Indirect Attack) over the
 * library's safety evaluators (src/safety/evaluator.ts): a backend chosen per node, one Governor
 * per execution, every row leaving with its Scores (ok, not_applicable or error) through the one
 * item loop (./scoreItems) and, when split, on Pass / Fail / Not Scored.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeCredentialDescription,
	type INodeExecutionData,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { errorScore, notApplicableScore, scoreBase, type ScoreBase } from '../../src/core/score';
import type { Score } from '../../src/core/types';
import { openVerdictCache } from '../../src/judges/cache';
import type { SafetyBackend, SafetyBackendId } from '../../src/safety/backend';
import { safetySignature, type SafetyRunOptions } from '../../src/safety/evaluate';
import { safetyEvaluator, safetyFacts, type SafetyKind } from '../../src/safety/evaluator';
import {
	DEFAULT_DEFECT_LEVEL,
	DEFECT_LEVELS,
	HARM_CATEGORIES,
	HARM_NAMES,
	levelName,
	passThresholdFor,
	type HarmCategory,
	type SeverityLevel,
} from '../../src/safety/levels';
import {
	breakerRow,
	iconFor,
	outputFormatProperty,
	SCORING_OUTPUTS,
	splitProperties,
} from './common';
import {
	cacheOptions,
	cacheProperties,
	JUDGE_NODE_INPUTS,
	runtimeOptions,
	samplingOptions,
} from './llmOptions';
import { modelProperty } from './llmNodeProperties';
import { inputProperty, metricNodeName } from './metricNode';
import { nodeGovernor } from './nodeGovernor';
import {
	backendOptionsFor,
	lookupSafetyBackend,
	SAFETY_BACKEND_FACTORIES,
	type BackendLookup,
	type SafetyBackendSettings,
	type SafetyNodeKind,
} from './safetyBackends';
import { scoreItems } from './scoreItems';

/** The three safety nodes, one per safety evaluator. */
export type SafetyNodeType = SafetyKind;

/**
 * What a safety node shows besides its evaluator's facts: Protected Material and Indirect Attack
 * take name, display name and description from their declarations; Content Safety, which rates
 * four declared categories, names itself.
 */
function nodeFacts(type: SafetyNodeType): { displayName: string; description: string } {
	if (type !== 'content_safety') return safetyFacts(type);
	return {
		displayName: 'Content Safety',
		description:
			'Severity 0-7 of hate and unfairness, sexual, violent and self-harm content in each response, with a defect at the level you pick',
	};
}

const SUBTITLES: Record<SafetyNodeType, string> = {
	content_safety: '={{ "defect at " + ($parameter.defectLevel || "medium") + " and above" }}',
	protected_material: 'fails when protected material is found',
	indirect_attack: 'fails when a planted attack succeeded',
};

function backendProperty(kind: SafetyNodeKind): INodeProperties {
	return {
		displayName: 'Backend',
		name: 'backend',
		type: 'options',
		default: 'llm',
		options: backendOptionsFor(kind).map((o) => ({
			name: o.name,
			value: o.id,
			description: o.description,
		})),
		description: 'What answers the evaluation; every backend gives the same output shape',
	};
}

const categoriesProperty: INodeProperties = {
	displayName: 'Categories',
	name: 'categories',
	type: 'multiOptions',
	default: [...HARM_CATEGORIES],
	options: HARM_CATEGORIES.map((c) => ({ name: HARM_NAMES[c], value: c })),
	description: 'Harm categories to rate; each gets its own score under eval.<category>',
};

const defectLevelProperty: INodeProperties = {
	displayName: 'Defect Level',
	name: 'defectLevel',
	type: 'options',
	default: DEFAULT_DEFECT_LEVEL,
	options: DEFECT_LEVELS.map((l) => ({
		name: levelName(l),
		value: l,
		description: `Severity ${passThresholdFor(l) + 1} and above is a defect`,
	})),
	description:
		'Lowest severity level that counts as a defect (very low 0-1, low 2-3, medium 4-5, high 6-7). A row fails when any category reaches it.',
};

const detectorProperty: INodeProperties = {
	displayName: 'Attack Detector',
	name: 'attackDetector',
	type: 'options',
	default: 'none',
	options: [
		{ name: 'None', value: 'none' },
		...backendOptionsFor('detector').map((o) => ({
			name: o.name,
			value: o.id,
			description: 'Reports whether an attack is present in the documents (not whether it worked)',
		})),
	],
	description:
		'Also ask a detector whether the documents carry an attack; written as details.attack_detected, never read as success',
};

const turnsProperty: INodeProperties = {
	displayName: 'Conversation Turns',
	name: 'conversationTurns',
	type: 'options',
	default: 'every',
	options: [
		{
			name: 'Every Assistant Turn',
			value: 'every',
			description: 'Judge every reply of the conversation; the row takes the worst one',
		},
		{ name: 'Last Turn', value: 'last', description: "Judge only the row's own response" },
	],
	description: 'For rows with a conversation history',
};

/**
 * The credentials of the backends this package can build for a node, each shown only while a
 * Backend (or, on Indirect Attack, an Attack Detector) that reads it is picked.
 */
export function safetyCredentials(type: SafetyNodeType): INodeCredentialDescription[] {
	const uses = new Map<string, { backend: string[]; attackDetector: string[] }>();
	const add = (kind: SafetyNodeKind, param: 'backend' | 'attackDetector') => {
		for (const o of backendOptionsFor(kind)) {
			if (!o.credential || !SAFETY_BACKEND_FACTORIES[o.id]) continue;
			const u = uses.get(o.credential) ?? { backend: [], attackDetector: [] };
			u[param].push(o.id);
			uses.set(o.credential, u);
		}
	};
	add(type, 'backend');
	if (type === 'indirect_attack') add('detector', 'attackDetector');
	return [...uses].map(([name, u]) => {
		// n8n's `show` is an AND across parameters: a credential read by both a backend and a
		// detector stays always visible rather than hidden when only one of them is picked.
		const only =
			u.backend.length === 0
				? 'attackDetector'
				: u.attackDetector.length === 0
					? 'backend'
					: undefined;
		return {
			name,
			required: false,
			...(name === 'ragEvalLlmApi' ? { testedBy: 'ragEvalLlmApiTest' } : {}),
			...(only ? { displayOptions: { show: { [only]: u[only] } } } : {}),
		};
	});
}

/** The n8n description of a safety node. */
export function safetyDescription(type: SafetyNodeType): INodeTypeDescription {
	const facts = nodeFacts(type);
	const credentials = safetyCredentials(type);
	return {
		displayName: facts.displayName,
		name: metricNodeName(type),
		icon: iconFor('safety'),
		group: ['transform'],
		version: 1,
		subtitle: SUBTITLES[type],
		description: facts.description,
		defaults: { name: facts.displayName },
		inputs: JUDGE_NODE_INPUTS,
		outputs: SCORING_OUTPUTS as INodeTypeDescription['outputs'],
		credentials,
		properties: [
			{
				displayName:
					'The judged text is treated as hostile: with the LLM Judge it is fenced off as data in every prompt. Failures are reported per row, never scored.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			backendProperty(type),
			...safetyFacts(type).inputs.map(inputProperty),
			...(type === 'content_safety' ? [categoriesProperty, defectLevelProperty] : []),
			...(type === 'indirect_attack' ? [detectorProperty] : []),
			modelProperty('Model to judge with', { show: { backend: ['llm'] } }),
			...(type === 'content_safety'
				? [
						{
							displayName: 'Moderation Model',
							name: 'model',
							type: 'string' as const,
							default: '',
							placeholder: 'omni-moderation-latest',
							displayOptions: { show: { backend: ['openai_moderation'] } },
							description: 'Moderation model. Empty uses omni-moderation-latest.',
						},
					]
				: []),
			...splitProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					outputFormatProperty,
					...(type === 'indirect_attack' ? [] : [turnsProperty]),
					...samplingOptions('Backend calls', true),
					...runtimeOptions,
					...cacheProperties.map((p) => ({
						...p,
						description: `LLM Judge only. ${p.description}`,
					})),
				],
			},
		],
	};
}

/**
 * Azure-style flat columns of a harm Score: `<cat>` (level name), `<cat>_score`, `<cat>_reason`,
 * `<cat>_threshold` (the highest passing severity) and `<cat>_result` (pass / fail).
 */
export function harmFlatFields(key: string, score: Score): IDataObject {
	if (score.status !== 'ok' || typeof score.value !== 'number') return {};
	const d = score.details ?? {};
	return {
		[key]: typeof d.levelName === 'string' ? d.levelName : null,
		[`${key}_score`]: score.value,
		[`${key}_reason`]: score.reason ?? '',
		[`${key}_threshold`]: score.threshold ?? null,
		[`${key}_result`]: score.pass ? 'pass' : 'fail',
	};
}

/** Flat columns of a true/false safety Score: `<key>` (1/0), `<key>_label`, `<key>_reason` (+ category). */
export function labelFlatFields(key: string, score: Score): IDataObject {
	if (score.status !== 'ok' || typeof score.value !== 'boolean') return {};
	const out: IDataObject = {
		[key]: score.value ? 1 : 0,
		[`${key}_label`]: score.value,
		[`${key}_reason`]: score.reason ?? '',
	};
	if (score.details && 'category' in score.details)
		out[`${key}_category`] = (score.details.category as string | null) ?? null;
	return out;
}

function readDefectLevel(v: unknown): SeverityLevel | undefined {
	return (DEFECT_LEVELS as ReadonlyArray<unknown>).includes(v) ? (v as SeverityLevel) : undefined;
}

function readCategories(v: unknown): HarmCategory[] | undefined {
	if (!Array.isArray(v) || v.length === 0) return undefined;
	if (!v.every((c) => (HARM_CATEGORIES as ReadonlyArray<unknown>).includes(c))) return undefined;
	return v as HarmCategory[];
}

/** Execute a safety node over all items. */
export async function executeSafety(
	this: IExecuteFunctions,
	type: SafetyNodeType,
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const backendId = this.getNodeParameter('backend', 0, 'llm') as string;
	const model = (this.getNodeParameter('model', 0, '') as string) || undefined;
	const categoriesRaw = this.getNodeParameter('categories', 0, [...HARM_CATEGORIES]);
	const categories = type === 'content_safety' ? readCategories(categoriesRaw) : undefined;
	const levelRaw = this.getNodeParameter('defectLevel', 0, DEFAULT_DEFECT_LEVEL);
	const defectLevel = readDefectLevel(levelRaw);
	if (type === 'content_safety' && (!categories || !defectLevel)) {
		throw new NodeOperationError(
			this.getNode(),
			!categories
				? `Categories: pick at least one of ${HARM_CATEGORIES.join(', ')}`
				: `Defect Level: expected one of ${DEFECT_LEVELS.join(', ')}, got ${JSON.stringify(levelRaw)}`,
		);
	}
	// The verdict cache serves the LLM Judge backend (the services' own calls are not cached).
	const cache = backendId === 'llm' ? openVerdictCache(cacheOptions(options)) : undefined;
	const settings: SafetyBackendSettings = { model, options, cache };
	let found: BackendLookup;
	let detector: SafetyBackend | undefined;
	let detectorProblem: string | undefined;
	let ready = false;
	try {
		found = await lookupSafetyBackend(this, backendId, type, settings);
		if (type === 'indirect_attack') {
			const id = this.getNodeParameter('attackDetector', 0, 'none') as string;
			if (id !== 'none') {
				const d = await lookupSafetyBackend(this, id, 'detector', settings);
				if ('backend' in d) detector = d.backend;
				else detectorProblem = 'error' in d ? d.error : d.notConfigured;
			}
		}
		ready = true;
	} finally {
		// A failed lookup fails the node: the store it opened is released first.
		if (!ready) await cache?.close();
	}
	const backend = 'backend' in found ? found.backend : undefined;
	const evaluator = safetyEvaluator(type);
	const keys: string[] =
		type === 'content_safety' ? (categories as string[]) : [evaluator.facts.id];
	/** Every key of the row as the same unscored Score (no backend, bad parameter). */
	const unscored = (make: (base: ScoreBase) => Score): Record<string, Score> =>
		Object.fromEntries(
			keys.map((k) => {
				const decl = evaluator.factsOf(k);
				const t = type === 'content_safety' ? passThresholdFor(defectLevel!) : undefined;
				return [
					k,
					make(scoreBase(decl, k, safetySignature(decl, backendId as SafetyBackendId), t)),
				];
			}),
		);
	const { governor, close: closeGovernor } = nodeGovernor(this, options);
	const run: SafetyRunOptions | undefined = backend && {
		backend,
		governor,
		signal: this.getExecutionCancelSignal?.(),
		turns: options.conversationTurns === 'last' ? 'last' : 'every',
		...(categories ? { categories } : {}),
		...(defectLevel ? { defectLevel } : {}),
		...(detector ? { detector } : {}),
	};
	return scoreItems(this, {
		inputs: evaluator.facts.inputs,
		factsOf: (key) => evaluator.factsOf(key),
		flatFields: type === 'content_safety' ? harmFlatFields : labelFlatFields,
		unreadable: (error) => unscored((b) => errorScore(b, error)),
		evaluateRow: async (values, { item, index }) => {
			if ('error' in found) return unscored((b) => errorScore(b, found.error));
			if (!run) {
				const why = 'notConfigured' in found ? found.notConfigured : 'no backend';
				return unscored((b) => notApplicableScore(b, why));
			}
			const scores = await evaluator.evaluateRow(values, { ...run, row: breakerRow(item, index) });
			const score = scores[evaluator.facts.id];
			if (detectorProblem && score?.details) score.details.attackDetectionError = detectorProblem;
			return scores;
		},
		fatal: {
			governor,
			key: backend?.key,
			advice:
				'The backend rejected the calls in a way no retry can fix (key, model name, quota or endpoint). Check the credential and the Model parameter.',
		},
		close: async () => void (await Promise.all([cache?.close(), closeGovernor()])),
	});
}
