/**
 * Builds the risk and safety nodes (Content Safety, Protected Material, Indirect Attack) over the
 * library's safety evaluation: a backend chosen per node, one Governor per execution, every row
 * leaving with its Scores (ok, not_applicable or error) and, when split, on Pass / Fail / Not Scored.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeCredentialDescription,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { errorScore, labelRowError, notApplicableScore, scoreBase } from '../../src/core/score';
import type { EvaluatorFacts, Score } from '../../src/core/types';
import { openVerdictCache } from '../../src/judges/cache';
import { Governor } from '../../src/judges/governor';
import type { SafetyBackend, SafetyBackendId } from '../../src/safety/backend';
import {
	evaluateHarms,
	evaluateIndirectAttack,
	evaluateProtectedMaterial,
	safetySignature,
	type SafetyRunOptions,
} from '../../src/safety/evaluate';
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
import { harmDecls, indirectAttackDecl, protectedMaterialDecl } from '../../src/safety/specs';
import {
	formatFields,
	iconFor,
	outputFormatProperty,
	readParam,
	routeScored,
	rowLabel,
	SCORING_OUTPUTS,
	splitProperties,
	withScore,
	type OutputFormat,
	throwIfFatal,
} from './common';
import {
	cacheOptions,
	cacheProperties,
	JUDGE_NODE_INPUTS,
	ragEvalLlmApiTest,
	governorOptions,
	runtimeOptions,
} from './judgeNode';
import { inputProperty } from './metricNode';
import {
	backendOptionsFor,
	lookupSafetyBackend,
	SAFETY_BACKEND_FACTORIES,
	type SafetyBackendSettings,
	type SafetyNodeKind,
} from './safetyBackends';

/** The three safety nodes. */
export type SafetyNodeType = 'content_safety' | 'protected_material' | 'indirect_attack';

interface Spec {
	name: string;
	displayName: string;
	description: string;
	/** The declaration whose inputs the node shows. */
	decl: EvaluatorFacts;
	subtitle: string;
}

const SPECS: Record<SafetyNodeType, Spec> = {
	content_safety: {
		name: 'evalContentSafety',
		displayName: 'Content Safety',
		description:
			'Severity 0-7 of hate and unfairness, sexual, violent and self-harm content in each response, with a defect at the level you pick',
		decl: harmDecls.violence,
		subtitle: '={{ "defect at " + ($parameter.defectLevel || "medium") + " and above" }}',
	},
	protected_material: {
		name: 'evalProtectedMaterial',
		displayName: 'Protected Material',
		description:
			'Whether the response reproduces protected text such as song lyrics, recipes or articles',
		decl: protectedMaterialDecl,
		subtitle: 'fails when protected material is found',
	},
	indirect_attack: {
		name: 'evalIndirectAttack',
		displayName: 'Indirect Attack (XPIA)',
		description:
			'Whether the response followed an attack planted in the retrieved documents, and of which kind',
		decl: indirectAttackDecl,
		subtitle: 'fails when a planted attack succeeded',
	},
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
	const spec = SPECS[type];
	const credentials = safetyCredentials(type);
	return {
		displayName: spec.displayName,
		name: spec.name,
		icon: iconFor('safety'),
		group: ['transform'],
		version: 1,
		subtitle: spec.subtitle,
		description: spec.description,
		defaults: { name: spec.displayName },
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
			...spec.decl.inputs.map(inputProperty),
			...(type === 'content_safety' ? [categoriesProperty, defectLevelProperty] : []),
			...(type === 'indirect_attack' ? [detectorProperty] : []),
			{
				displayName: 'Model',
				name: 'model',
				type: 'string',
				default: '',
				placeholder: 'gpt-4o-mini',
				displayOptions: { show: { backend: ['llm'] } },
				description: "Model to judge with. Empty uses the credential's default model.",
			},
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
					{
						displayName: 'Temperature',
						name: 'temperature',
						type: 'number',
						default: 0,
						typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
						description: 'LLM Judge only',
					},
					{
						displayName: 'Seed',
						name: 'seed',
						type: 'number',
						default: 0,
						description: 'LLM Judge only: sampling seed where the server supports one (0 = none)',
					},
					{
						displayName: 'Concurrency',
						name: 'concurrency',
						type: 'number',
						default: 8,
						typeOptions: { minValue: 1, maxValue: 256 },
						description: 'Backend calls in flight at once for this node',
					},
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

/** The Score a row is routed by: a failing category first, then an unscored one, else a pass. */
export function routingScore(scores: ReadonlyArray<Score>): Score {
	return scores.find((s) => s.pass === false) ?? scores.find((s) => s.pass === null) ?? scores[0];
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
	// The verdict cache serves the LLM Judge backend (the services' own calls are not cached).
	const cache = backendId === 'llm' ? openVerdictCache(cacheOptions(options)) : undefined;
	try {
		return await executeWith.call(this, type, options, backendId, { model, options, cache });
	} finally {
		await cache?.close();
	}
}

async function executeWith(
	this: IExecuteFunctions,
	type: SafetyNodeType,
	options: IDataObject,
	backendId: string,
	settings: SafetyBackendSettings,
): Promise<INodeExecutionData[][]> {
	const spec = SPECS[type];
	const items = this.getInputData();
	const found = await lookupSafetyBackend(this, backendId, type, settings);
	const backend: SafetyBackend | undefined = 'backend' in found ? found.backend : undefined;
	let detector: SafetyBackend | undefined;
	let detectorProblem: string | undefined;
	if (type === 'indirect_attack') {
		const id = this.getNodeParameter('attackDetector', 0, 'none') as string;
		if (id !== 'none') {
			const d = await lookupSafetyBackend(this, id, 'detector', settings);
			if ('backend' in d) detector = d.backend;
			else detectorProblem = 'error' in d ? d.error : d.notConfigured;
		}
	}
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
	const governor = new Governor(governorOptions(options));
	const signal = this.getExecutionCancelSignal?.();
	const turns = options.conversationTurns === 'last' ? 'last' : 'every';
	const keys: string[] = type === 'content_safety' ? (categories as string[]) : [spec.decl.id];
	const declOf = (key: string): EvaluatorFacts =>
		type === 'content_safety' ? harmDecls[key as HarmCategory] : spec.decl;
	/** Every key of the row as the same unscored Score (no backend, bad parameter). */
	const unscored = (make: (base: ReturnType<typeof scoreBase>) => Score): Record<string, Score> =>
		Object.fromEntries(
			keys.map((k) => {
				const decl = declOf(k);
				const t = type === 'content_safety' ? passThresholdFor(defectLevel!) : undefined;
				return [
					k,
					make(scoreBase(decl, k, safetySignature(decl, backendId as SafetyBackendId), t)),
				];
			}),
		);

	const tasks = items.map(async (_item, i): Promise<Record<string, Score>> => {
		if ('error' in found) return unscored((b) => errorScore(b, found.error));
		if (!backend) {
			const why = 'notConfigured' in found ? found.notConfigured : 'no backend';
			return unscored((b) => notApplicableScore(b, why));
		}
		const raw: Record<string, unknown> = {};
		for (const input of spec.decl.inputs) {
			const r = readParam(this, input.name, i);
			if (!r.ok) {
				const error = r.error;
				return unscored((b) => errorScore(b, error));
			}
			raw[input.name] = r.value;
		}
		const run: SafetyRunOptions = {
			backend,
			governor,
			signal,
			turns,
			...(categories ? { categories } : {}),
			...(defectLevel ? { defectLevel } : {}),
			...(detector ? { detector } : {}),
		};
		if (type === 'content_safety') return evaluateHarms(raw, run);
		const score =
			type === 'protected_material'
				? await evaluateProtectedMaterial(raw, run)
				: await evaluateIndirectAttack(raw, run);
		if (detectorProblem && score.details) score.details.attackDetectionError = detectorProblem;
		return { [spec.decl.id]: score };
	});
	const rows = await Promise.all(tasks);

	throwIfFatal(
		this,
		governor,
		backend?.key,
		'The backend rejected the calls in a way no retry can fix (key, model name, quota or endpoint). Check the credential and the Model parameter.',
	);
	const format = (options.outputFormat as OutputFormat | undefined) ?? 'score';
	const scored = items.map((item, i) => {
		let out = item;
		const scores: Score[] = [];
		for (const key of keys) {
			const score = labelRowError(rows[i][key], rowLabel(item, i));
			scores.push(score);
			const extra =
				format !== 'flat'
					? formatFields(format, key, score, declOf(key))
					: type === 'content_safety'
						? harmFlatFields(key, score)
						: labelFlatFields(key, score);
			out = withScore(out, i, key, score, extra);
		}
		return { item: out, score: routingScore(scores) };
	});
	return routeScored(this, scored);
}

/** A node class for a safety node: n8n's loader needs one class per file, so each file extends this. */
export function safetyNodeClass(type: SafetyNodeType): new () => INodeType {
	return class implements INodeType {
		description = safetyDescription(type);
		methods = { credentialTest: { ragEvalLlmApiTest } };
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return executeSafety.call(this, type);
		}
	};
}
