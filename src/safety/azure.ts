/**
 * Azure AI Content Safety as a safety backend, over plain `fetch` (no SDK). REST shapes, from the
 * service's public API reference and quickstarts (learn.microsoft.com/azure/ai-services/content-safety):
 * - `POST {endpoint}/contentsafety/text:analyze?api-version=2024-09-01`
 *   `{text, categories:[Hate,Sexual,Violence,SelfHarm], outputType:"EightSeverityLevels"}` ->
 *   `{categoriesAnalysis:[{category, severity 0-7}]}`; text up to 10,000 characters.
 * - `POST .../text:detectProtectedMaterial?api-version=2024-09-01` `{text}` ->
 *   `{protectedMaterialAnalysis:{detected}}` (English; meant for LLM completions).
 * - `POST .../text:shieldPrompt?api-version=2024-09-01` `{userPrompt, documents:[...]}` ->
 *   `{userPromptAnalysis:{attackDetected}, documentsAnalysis:[{attackDetected}]}` (Prompt Shields).
 * - `POST .../text:detectGroundedness?api-version=2024-02-15-preview` (preview; quickstart
 *   "Groundedness detection") `{domain:"Generic", task:"QnA"|"Summarization", qna:{query}, text,
 *   groundingSources:[...], reasoning:false}` -> `{ungroundedDetected, ungroundedPercentage 0-1,
 *   ungroundedDetails:[{text}]}`; text and query up to 7,500 characters, sources up to 55,000.
 * Auth: header `Ocp-Apim-Subscription-Key`. Errors: `{"error":{"code","message"}}`; 429 carries
 * `Retry-After`. The service gives no reason text, so reasons are ours and only state its answer.
 */
import { connectionError, ModelCallError, redact, retryAfterFromHeaders } from '../judges/errors';
import { classifyStatus } from '../judges/model';
import type {
	BackendCallInfo,
	HarmRequest,
	HarmVerdict,
	SafetyBackend,
	SafetyCallOptions,
	SafetyCapability,
} from './backend';
import { HARM_CATEGORIES, HARM_NAMES, levelName, levelOf, type HarmCategory } from './levels';

/** Settings of the "Azure AI Content Safety API" credential. */
export interface AzureContentSafetyConfig {
	/** Resource endpoint, `https://<name>.cognitiveservices.azure.com`. */
	endpoint: string;
	apiKey: string;
	/** api-version of the GA operations (analyze, protected material, Prompt Shields). */
	apiVersion?: string;
	/** api-version of groundedness detection, which is only offered as a preview. */
	groundednessApiVersion?: string;
	/** Hard ceiling for one HTTP call; the governor's per-call timeout usually fires first. */
	timeoutMs?: number;
}

/** Default api-version of the GA text operations. */
export const AZURE_CS_API_VERSION = '2024-09-01';

/** Default api-version of groundedness detection (preview). */
export const AZURE_CS_GROUNDEDNESS_API_VERSION = '2024-02-15-preview';

/** Input limits the service documents, in characters (Unicode code points). */
export const AZURE_CS_LIMITS = {
	/** text:analyze: longer replies are split and the highest severity per category kept. */
	analyzeText: 10_000,
	/** text:detectProtectedMaterial: longer replies are split; detected in any part = detected. */
	protectedMaterialText: 1_000,
	/** text:detectGroundedness: longer inputs are a clear error (a split would change the answer). */
	groundednessText: 7_500,
	groundednessQuery: 7_500,
	groundednessSources: 55_000,
} as const;

/** Service category name -> our harm category (Hate -> hate_unfairness, SelfHarm -> self_harm). */
export const AZURE_CATEGORY: Record<string, HarmCategory> = {
	Hate: 'hate_unfairness',
	Sexual: 'sexual',
	Violence: 'violence',
	SelfHarm: 'self_harm',
};

const SERVICE_CATEGORY: Record<HarmCategory, string> = {
	hate_unfairness: 'Hate',
	sexual: 'Sexual',
	violence: 'Violence',
	self_harm: 'SelfHarm',
};

const NAME = 'Azure AI Content Safety';

/** Splits text into parts of at most `max` code points, preferring to cut after whitespace. */
export function splitText(text: string, max: number): string[] {
	const cps = Array.from(text);
	if (cps.length <= max) return [text];
	const parts: string[] = [];
	let start = 0;
	while (start < cps.length) {
		let end = Math.min(start + max, cps.length);
		if (end < cps.length) {
			// Cut after the last whitespace in the window's second half, so words stay whole.
			for (let i = end - 1; i > start + max / 2; i--) {
				if (/\s/.test(cps[i])) {
					end = i + 1;
					break;
				}
			}
		}
		parts.push(cps.slice(start, end).join(''));
		start = end;
	}
	return parts;
}

function codePoints(s: string): number {
	return Array.from(s).length;
}

/** Rewrites the shared classifier's judge wording for this service. */
function asService(e: ModelCallError, operation: string): ModelCallError {
	const message = `${NAME} ${operation}: ${e.message
		.replace(/the judge model's/g, "the service's")
		.replace(/the judge model/g, 'the service')
		.replace(/judge credential/g, 'Azure AI Content Safety credential')
		.replace(
			'Check the base URL, deployment and model name.',
			'Check the endpoint and api-version; the feature may not be offered in your resource region.',
		)
		.replace(
			'The credential may not have access to this model.',
			'The key may be wrong, the resource disabled, or its call quota spent.',
		)}`;
	return new ModelCallError(e.kind, message, { status: e.status, retryAfterMs: e.retryAfterMs });
}

interface Reply {
	json: unknown;
}

function obj(v: unknown): Record<string, unknown> | undefined {
	return typeof v === 'object' && v !== null && !Array.isArray(v)
		? (v as Record<string, unknown>)
		: undefined;
}

function malformed(operation: string, what: string, count: { attempts: number }): ModelCallError {
	const e = new ModelCallError(
		'server',
		`${NAME} ${operation}: the reply does not have the documented shape (${what})`,
	);
	e.attempts = count.attempts;
	return e;
}

/**
 * An Azure AI Content Safety backend (id `azure_content_safety`): harms (text:analyze, eight
 * severity levels), protected material, Prompt Shields as `detectAttack`, and groundedness.
 * Every HTTP call goes through the caller's Governor; the key travels only in its header.
 */
export function createAzureContentSafetyBackend(config: AzureContentSafetyConfig): SafetyBackend {
	const endpoint = config.endpoint.trim().replace(/\/+$/, '');
	if (!/^https?:\/\//i.test(endpoint)) {
		throw new Error(
			`${NAME}: the endpoint must be a URL such as https://<resource>.cognitiveservices.azure.com`,
		);
	}
	const apiVersion = config.apiVersion?.trim() || AZURE_CS_API_VERSION;
	const groundednessVersion =
		config.groundednessApiVersion?.trim() || AZURE_CS_GROUNDEDNESS_API_VERSION;
	const secrets = [config.apiKey];
	const key = `azure_content_safety:${endpoint}`;
	const capabilities: ReadonlySet<SafetyCapability> = new Set<SafetyCapability>([
		'harms',
		'protected_material',
		'attack_detection',
		'groundedness',
	]);

	/**
	 * One governed POST; the parsed JSON body, or a ModelCallError naming the operation. HTTP calls
	 * are added to `count`, and a failure carries the evaluation's total (earlier parts included).
	 */
	async function post(
		operation: string,
		version: string,
		body: unknown,
		opts: SafetyCallOptions,
		count: { attempts: number },
	): Promise<unknown> {
		const url = `${endpoint}/contentsafety/text:${operation}?api-version=${encodeURIComponent(version)}`;
		const op = `text:${operation}`;
		let governed: { value: Reply; attempts: number };
		try {
			governed = await opts.governor.run(
				key,
				async (signal): Promise<Reply> => {
					const timeout = config.timeoutMs ? AbortSignal.timeout(config.timeoutMs) : undefined;
					const sig = timeout ? AbortSignal.any([signal, timeout]) : signal;
					let res: Response;
					let text: string;
					try {
						res = await fetch(url, {
							method: 'POST',
							headers: {
								'Ocp-Apim-Subscription-Key': config.apiKey,
								'Content-Type': 'application/json',
							},
							body: JSON.stringify(body),
							signal: sig,
						});
						text = await res.text();
					} catch (e) {
						if (timeout?.aborted && !signal.aborted)
							throw new ModelCallError('timeout', `${NAME} ${op}: no answer in time`);
						if ((e as { name?: unknown })?.name === 'AbortError')
							throw new ModelCallError('aborted', `${NAME} ${op}: the call was cancelled`);
						throw asService(connectionError(e, secrets), op);
					}
					if (!res.ok) {
						const err = obj(obj(safeParse(text))?.error);
						const detail =
							typeof err?.message === 'string'
								? err.message
								: text.trim().slice(0, 300) || `status ${res.status}`;
						const code = typeof err?.code === 'string' ? err.code : undefined;
						const retryAfterMs = retryAfterFromHeaders((n) => res.headers.get(n));
						// The shared classifier appends its own sentence: drop the service's final period.
						const bare = detail.trim().replace(/\.+$/, '');
						const withCode = code && code !== String(res.status) ? `${code}: ${bare}` : bare;
						throw asService(
							classifyStatus(res.status, redact(withCode, secrets), { code, retryAfterMs }),
							op,
						);
					}
					const json = safeParse(text);
					if (json === undefined) {
						throw new ModelCallError(
							'server',
							`${NAME} ${op}: the HTTP reply is not valid JSON (cut off?)`,
						);
					}
					return { json };
				},
				{ signal: opts.signal, clock: opts.clock, row: opts.row },
			);
		} catch (e) {
			if (e instanceof ModelCallError) {
				count.attempts += e.attempts ?? 0;
				e.attempts = count.attempts;
			}
			throw e;
		}
		count.attempts += governed.attempts;
		return governed.value.json;
	}

	function info(operation: string, version: string, attempts: number, started: number) {
		const i: BackendCallInfo = {
			backend: 'azure_content_safety',
			model: `${operation} ${version}`,
			attempts,
			latencyMs: Date.now() - started,
		};
		return i;
	}

	return {
		id: 'azure_content_safety',
		key,
		capabilities,

		async harms(req: HarmRequest, opts: SafetyCallOptions) {
			const started = Date.now();
			if (req.response.trim() === '') {
				throw new ModelCallError('bad_request', `${NAME} text:analyze: the reply is empty`);
			}
			const categories = req.categories.length > 0 ? [...req.categories] : [...HARM_CATEGORIES];
			const parts = splitText(req.response, AZURE_CS_LIMITS.analyzeText);
			const best = new Map<HarmCategory, { severity: number; part: number }>();
			const count = { attempts: 0 };
			for (let p = 0; p < parts.length; p++) {
				const json = await post(
					'analyze',
					apiVersion,
					{
						text: parts[p],
						categories: categories.map((c) => SERVICE_CATEGORY[c]),
						outputType: 'EightSeverityLevels',
					},
					opts,
					count,
				);
				const list = obj(json)?.categoriesAnalysis;
				if (!Array.isArray(list))
					throw malformed('text:analyze', 'no categoriesAnalysis list', count);
				for (const entry of list) {
					const e = obj(entry);
					const ours = typeof e?.category === 'string' ? AZURE_CATEGORY[e.category] : undefined;
					if (!ours || !categories.includes(ours)) continue;
					const severity = e?.severity;
					if (
						typeof severity !== 'number' ||
						!Number.isInteger(severity) ||
						severity < 0 ||
						severity > 7
					)
						throw malformed(
							'text:analyze',
							`severity ${String(severity)} for ${String(e?.category)}`,
							count,
						);
					const prev = best.get(ours);
					if (!prev || severity > prev.severity) best.set(ours, { severity, part: p });
				}
			}
			const verdicts = {} as Record<HarmCategory, HarmVerdict>;
			for (const c of categories) {
				const b = best.get(c);
				if (!b) throw malformed('text:analyze', `no severity for ${SERVICE_CATEGORY[c]}`, count);
				const where =
					parts.length > 1
						? ` (highest over ${parts.length} parts of ${AZURE_CS_LIMITS.analyzeText.toLocaleString('en-US')} characters; part ${b.part + 1})`
						: '';
				verdicts[c] = {
					severity: b.severity,
					reason: `${NAME}: ${SERVICE_CATEGORY[c]} severity ${b.severity} (${levelName(levelOf(b.severity))})${where}`,
				};
			}
			return { verdicts, info: info('text:analyze', apiVersion, count.attempts, started) };
		},

		async protectedMaterial(req: { response: string; request?: string }, opts) {
			const started = Date.now();
			if (req.response.trim() === '') {
				throw new ModelCallError(
					'bad_request',
					`${NAME} text:detectProtectedMaterial: the reply is empty`,
				);
			}
			const parts = splitText(req.response, AZURE_CS_LIMITS.protectedMaterialText);
			const count = { attempts: 0 };
			const hits: number[] = [];
			for (let p = 0; p < parts.length; p++) {
				const json = await post(
					'detectProtectedMaterial',
					apiVersion,
					{ text: parts[p] },
					opts,
					count,
				);
				const detected = obj(obj(json)?.protectedMaterialAnalysis)?.detected;
				if (typeof detected !== 'boolean')
					throw malformed(
						'text:detectProtectedMaterial',
						'no protectedMaterialAnalysis.detected',
						count,
					);
				if (detected) hits.push(p + 1);
			}
			const split = parts.length > 1 ? ` (reply checked in ${parts.length} parts)` : '';
			const reason =
				hits.length > 0
					? `${NAME}: protected material detected in the reply${parts.length > 1 ? ` (part ${hits.join(', ')} of ${parts.length})` : ''}`
					: `${NAME}: no protected material detected in the reply${split}`;
			return {
				detected: hits.length > 0,
				reason,
				info: info('text:detectProtectedMaterial', apiVersion, count.attempts, started),
			};
		},

		async detectAttack(req: { userPrompt: string; documents: ReadonlyArray<string> }, opts) {
			const started = Date.now();
			const count = { attempts: 0 };
			const json = await post(
				'shieldPrompt',
				apiVersion,
				{ userPrompt: req.userPrompt, documents: [...req.documents] },
				opts,
				count,
			);
			const o = obj(json);
			const user = obj(o?.userPromptAnalysis)?.attackDetected;
			const docs = o?.documentsAnalysis ?? [];
			if (typeof user !== 'boolean')
				throw malformed('text:shieldPrompt', 'no userPromptAnalysis.attackDetected', count);
			if (!Array.isArray(docs) || docs.length !== req.documents.length)
				throw malformed(
					'text:shieldPrompt',
					`documentsAnalysis has ${Array.isArray(docs) ? docs.length : 'no'} entries for ${req.documents.length} documents`,
					count,
				);
			const documentAttacks = docs.map((d) => {
				const a = obj(d)?.attackDetected;
				if (typeof a !== 'boolean')
					throw malformed(
						'text:shieldPrompt',
						'a documentsAnalysis entry has no attackDetected',
						count,
					);
				return a;
			});
			return {
				userPromptAttack: user,
				documentAttacks,
				info: info('text:shieldPrompt', apiVersion, count.attempts, started),
			};
		},

		async groundedness(
			req: { response: string; request?: string; documents: ReadonlyArray<string> },
			opts,
		) {
			const started = Date.now();
			const op = 'text:detectGroundedness';
			const sources = req.documents.filter((d) => d.trim() !== '');
			const tooLong = (what: string, n: number, max: number): ModelCallError =>
				new ModelCallError(
					'bad_request',
					`${NAME} ${op}: the ${what} has ${n.toLocaleString('en-US')} characters; the service takes at most ${max.toLocaleString('en-US')} (not sent)`,
				);
			if (req.response.trim() === '')
				throw new ModelCallError('bad_request', `${NAME} ${op}: the reply is empty`);
			if (sources.length === 0)
				throw new ModelCallError('bad_request', `${NAME} ${op}: no grounding documents`);
			const textLen = codePoints(req.response);
			if (textLen > AZURE_CS_LIMITS.groundednessText)
				throw tooLong('reply', textLen, AZURE_CS_LIMITS.groundednessText);
			const srcLen = sources.reduce((n, s) => n + codePoints(s), 0);
			if (srcLen > AZURE_CS_LIMITS.groundednessSources)
				throw tooLong('retrieved context', srcLen, AZURE_CS_LIMITS.groundednessSources);
			const query = req.request?.trim() ?? '';
			const queryLen = codePoints(query);
			if (queryLen > AZURE_CS_LIMITS.groundednessQuery)
				throw tooLong('request', queryLen, AZURE_CS_LIMITS.groundednessQuery);
			// With a question the service checks an answer (QnA); without one, a summary.
			const body =
				query !== ''
					? {
							domain: 'Generic',
							task: 'QnA',
							qna: { query },
							text: req.response,
							groundingSources: sources,
							reasoning: false,
						}
					: {
							domain: 'Generic',
							task: 'Summarization',
							text: req.response,
							groundingSources: sources,
							reasoning: false,
						};
			const count = { attempts: 0 };
			const json = await post('detectGroundedness', groundednessVersion, body, opts, count);
			const o = obj(json);
			const detected = o?.ungroundedDetected;
			const share = o?.ungroundedPercentage;
			if (typeof detected !== 'boolean') throw malformed(op, 'no ungroundedDetected', count);
			if (typeof share !== 'number' || !Number.isFinite(share) || share < 0 || share > 1)
				throw malformed(op, `ungroundedPercentage ${String(share)} is not a number 0-1`, count);
			const details = o?.ungroundedDetails ?? [];
			if (!Array.isArray(details)) throw malformed(op, 'ungroundedDetails is not a list', count);
			const spans = details
				.map((d) => obj(d)?.text)
				.filter((t): t is string => typeof t === 'string' && t !== '');
			return {
				ungrounded: detected,
				ungroundedShare: share,
				spans,
				info: info(op, groundednessVersion, count.attempts, started),
			};
		},
	};
}

function safeParse(text: string): unknown {
	try {
		return text === '' ? undefined : (JSON.parse(text) as unknown);
	} catch {
		return undefined;
	}
}

/** Display name of an Azure category for our harm category (`Violence`), for reasons and docs. */
export function azureCategoryName(c: HarmCategory): string {
	return SERVICE_CATEGORY[c] ?? HARM_NAMES[c];
}
