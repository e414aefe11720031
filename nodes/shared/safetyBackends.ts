/**
 * The safety backends a node can pick, declared once: the option list every safety node shows
 * (filtered by what the node needs) and the factories that build a backend for one execution.
 * Adding a backend is one line in {@link SAFETY_BACKEND_FACTORIES}; its option is already listed.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { SafetyBackend, SafetyBackendId } from '../../src/safety/backend';
import {
	createAzureContentSafetyBackend,
	type AzureContentSafetyConfig,
} from '../../src/safety/azure';
import type { VerdictCache } from '../../src/judges/cache';
import { createLlmSafetyBackend } from '../../src/safety/llm';
import { createOpenAIModerationBackend } from '../../src/safety/moderation';
import { LLM_CREDENTIAL, llmConfigFromCredential, resolveSource } from './llmOptions';

/** Credential type name of Azure AI Content Safety. */
export const AZURE_CS_CREDENTIAL = 'azureContentSafetyApi';

/** Map the Azure AI Content Safety credential onto the backend's configuration. */
export function azureConfigFromCredential(c: IDataObject): AzureContentSafetyConfig {
	const str = (v: unknown): string | undefined =>
		typeof v === 'string' && v.trim() ? v.trim() : undefined;
	return {
		endpoint: str(c.endpoint) ?? '',
		apiKey: str(c.apiKey) ?? '',
		apiVersion: str(c.apiVersion),
	};
}

/** What a safety node asks of a backend. */
export type SafetyNodeKind =
	| 'content_safety'
	| 'protected_material'
	| 'indirect_attack'
	| 'detector'
	/** Groundedness detection standing in for the Groundedness judge (its Backend option). */
	| 'groundedness';

/** One selectable backend: its option, the credential it reads and the nodes it can serve. */
export interface SafetyBackendOption {
	id: SafetyBackendId;
	name: string;
	description: string;
	/** Credential type the backend reads (shown on the node once the backend is available). */
	credential?: string;
	serves: ReadonlyArray<SafetyNodeKind>;
}

/** Every backend of the package, LLM judge first (the default). */
export const SAFETY_BACKEND_OPTIONS: ReadonlyArray<SafetyBackendOption> = [
	{
		id: 'llm',
		name: 'LLM Judge',
		description: 'Our judge prompts on the RAG Eval LLM API credential or the connected Chat Model',
		credential: LLM_CREDENTIAL,
		serves: ['content_safety', 'protected_material', 'indirect_attack'],
	},
	{
		id: 'azure_content_safety',
		name: 'Azure AI Content Safety',
		description: 'The Azure AI Content Safety service (its own credential: endpoint and key)',
		credential: AZURE_CS_CREDENTIAL,
		serves: ['content_safety', 'protected_material', 'detector', 'groundedness'],
	},
	{
		id: 'openai_moderation',
		name: 'OpenAI Moderation',
		description:
			'The OpenAI moderation endpoint on the RAG Eval LLM API credential (harm categories only)',
		credential: LLM_CREDENTIAL,
		serves: ['content_safety'],
	},
];

/** Node settings a factory may read (model, temperature, seed). */
export interface SafetyBackendSettings {
	model?: string;
	options: IDataObject;
	/** The judge verdict cache of this execution (LLM Judge backend only). */
	cache?: VerdictCache;
}

/**
 * Builds a backend for one execution, or undefined when nothing is configured (rows then leave
 * not applicable, as judge nodes do without a model).
 */
export type SafetyBackendFactory = (
	ctx: IExecuteFunctions,
	settings: SafetyBackendSettings,
) => Promise<SafetyBackend | undefined>;

/**
 * Builds a backend from a credential's fields, or undefined when the node has no such credential
 * (its rows then leave not applicable). For factories of credential-only backends.
 */
export async function withCredential(
	ctx: IExecuteFunctions,
	name: string,
	build: (data: IDataObject) => SafetyBackend,
): Promise<SafetyBackend | undefined> {
	let data: IDataObject | undefined;
	try {
		data = (await ctx.getCredentials(name)) as IDataObject;
	} catch {
		return undefined;
	}
	return data ? build(data) : undefined;
}

/** Factories by backend id; a listed option without a factory gives a clear per-row error. */
export const SAFETY_BACKEND_FACTORIES: Partial<Record<SafetyBackendId, SafetyBackendFactory>> = {
	llm: async (ctx, { model, options, cache }) => {
		const source = await resolveSource(ctx);
		if (!source) return undefined;
		const temperature = typeof options.temperature === 'number' ? options.temperature : 0;
		const seed = typeof options.seed === 'number' && options.seed !== 0 ? options.seed : undefined;
		return createLlmSafetyBackend({ source, model: model || undefined, temperature, seed, cache });
	},
	azure_content_safety: async (ctx) =>
		withCredential(ctx, AZURE_CS_CREDENTIAL, (c) =>
			createAzureContentSafetyBackend(azureConfigFromCredential(c)),
		),
	// The node's Model field names the moderation model here (default omni-moderation-latest).
	openai_moderation: async (ctx, { model }) =>
		withCredential(ctx, LLM_CREDENTIAL, (c) =>
			createOpenAIModerationBackend(llmConfigFromCredential(c), { model: model || undefined }),
		),
};

/** The options of a node kind, in declaration order. */
export function backendOptionsFor(kind: SafetyNodeKind): SafetyBackendOption[] {
	return SAFETY_BACKEND_OPTIONS.filter((o) => o.serves.includes(kind));
}

/** Outcome of looking a backend up: built, not configured, or unusable (with why). */
export type BackendLookup =
	| { backend: SafetyBackend }
	| { notConfigured: string }
	| { error: string };

/** Builds the chosen backend; an unknown or absent backend is an error naming it. */
export async function lookupSafetyBackend(
	ctx: IExecuteFunctions,
	id: string,
	kind: SafetyNodeKind,
	settings: SafetyBackendSettings,
): Promise<BackendLookup> {
	const option = SAFETY_BACKEND_OPTIONS.find((o) => o.id === id);
	if (!option) return { error: `unknown safety backend '${id}'` };
	if (!option.serves.includes(kind))
		return { error: `the ${option.name} backend (${id}) cannot serve this node` };
	const factory = SAFETY_BACKEND_FACTORIES[option.id];
	if (!factory)
		return {
			error: `the ${option.name} backend (${id}) is not available in this version of n8n-nodes-rag-eval; pick another backend`,
		};
	let backend: SafetyBackend | undefined;
	try {
		backend = await factory(ctx, settings);
	} catch (e) {
		// A credential the backend cannot use (Azure OpenAI for moderation): every row says why.
		return { error: e instanceof Error ? e.message : String(e) };
	}
	if (!backend)
		return {
			notConfigured: `no ${option.name} backend configured: add its credential${option.id === 'llm' ? ' (RAG Eval LLM API) or connect a Chat Model' : ''}`,
		};
	return { backend };
}
