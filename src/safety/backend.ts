/**
 * The seam between the risk and safety evaluators and whatever answers them: our LLM judge, the
 * Azure AI Content Safety service, or the OpenAI moderation endpoint. Every backend gives the same
 * shapes, so the nodes, the aggregate and the jailbreak comparison never know which one ran.
 * A backend call throws `ModelCallError` (src/judges/errors.ts) on failure; it never returns a
 * made-up verdict. Calls go through the node's Governor (retries, rate limits, breaker, deadlines).
 */
import type { CacheInfo } from '../judges/cache';
import type { Usage } from '../core/types';
import type { Governor, RowClock } from '../judges/governor';
import type { HarmCategory, IndirectAttackCategory } from './levels';

/** Which service answered. */
export type SafetyBackendId = 'llm' | 'azure_content_safety' | 'openai_moderation';

/** What a backend can evaluate. */
export type SafetyCapability = 'harms' | 'protected_material' | 'attack_detection' | 'groundedness';

/** Bookkeeping of one backend evaluation (possibly several HTTP calls). */
export interface BackendCallInfo {
	backend: SafetyBackendId;
	/** Model or service version that answered (`gpt-4o-mini`, `text:analyze 2024-09-01`). */
	model?: string;
	usage?: Usage;
	/** HTTP calls made, retries included (0 when the verdict cache answered). */
	attempts: number;
	latencyMs: number;
	/** The judge verdict cache's say on this call (LLM backend with the cache on). */
	cache?: CacheInfo;
}

/** One harm category's verdict: an integer severity 0-7 and why. */
export interface HarmVerdict {
	severity: number;
	reason: string;
}

/** Everything one backend call needs besides its text. */
export interface SafetyCallOptions {
	governor: Governor;
	signal?: AbortSignal;
	clock?: RowClock;
	/** The row's identity for the circuit breaker (see the governor's `run`). */
	row?: string;
}

/** Harm analysis of one assistant reply. */
export interface HarmRequest {
	/** The reply judged. */
	response: string;
	/** The user turn it answers, as context only (a harmful question answered safely is safe). */
	request?: string;
	categories: ReadonlyArray<HarmCategory>;
}

/** Indirect-attack (XPIA) evaluation: did the reply follow an attack planted in the documents? */
export interface IndirectAttackRequest {
	request?: string;
	response: string;
	/** The retrieved documents; empty on query + response rows and conversations without them. */
	documents: ReadonlyArray<string>;
	/** Earlier turns, where a planted instruction may sit when there are no documents. */
	history?: ReadonlyArray<{ role: string; content: string }>;
}

/** XPIA categories of seed 000, when the attack succeeded (declared in levels.ts). */
export type { IndirectAttackCategory };

/** The seam every safety backend implements; unsupported capabilities are absent. */
export interface SafetyBackend {
	readonly id: SafetyBackendId;
	/** Governor key: endpoint + model/service, never a secret. */
	readonly key: string;
	readonly capabilities: ReadonlySet<SafetyCapability>;
	/** Severity 0-7 and reason for each requested category. */
	harms?(
		req: HarmRequest,
		opts: SafetyCallOptions,
	): Promise<{ verdicts: Record<HarmCategory, HarmVerdict>; info: BackendCallInfo }>;
	/** Whether the reply reproduces protected (copyrighted) text. */
	protectedMaterial?(
		req: { response: string; request?: string },
		opts: SafetyCallOptions,
	): Promise<{ detected: boolean; reason: string; info: BackendCallInfo }>;
	/**
	 * Attack detection only (Prompt Shields): whether an attack is present in the user prompt or in
	 * each document. Never a verdict on whether an attack succeeded.
	 */
	detectAttack?(
		req: { userPrompt: string; documents: ReadonlyArray<string> },
		opts: SafetyCallOptions,
	): Promise<{ userPromptAttack: boolean; documentAttacks: boolean[]; info: BackendCallInfo }>;
	/** Whether the reply followed an attack planted in the documents, and of which kind. */
	indirectAttack?(
		req: IndirectAttackRequest,
		opts: SafetyCallOptions,
	): Promise<{
		succeeded: boolean;
		category: IndirectAttackCategory | null;
		reason: string;
		info: BackendCallInfo;
	}>;
	/** Groundedness detection: share of the reply not grounded in the documents, with the spans. */
	groundedness?(
		req: { response: string; request?: string; documents: ReadonlyArray<string> },
		opts: SafetyCallOptions,
	): Promise<{
		ungrounded: boolean;
		ungroundedShare: number;
		spans: string[];
		info: BackendCallInfo;
	}>;
}
