/**
 * One structured judge call on one row: the row is read once (missing -> not applicable,
 * malformed -> the row's error, never sent to the model), deterministic rubric cases and unusable
 * edited prompts are answered without a call, and otherwise the prompt is rendered with nonce
 * delimiters and asked through the structured-output ladder (json_schema -> json_object -> tagged
 * text -> one re-ask) behind the verdict cache, which wraps the model call and nothing else.
 * Fan-out calls (./fanout) and conversation turns (./turns) come through here too.
 */
import { errorScore, okScore, scoreBase, signatureOf, type ScoreBase } from '../core/score';
import { sumUsage } from '../core/usage';
import type { Score, Usage } from '../core/types';
import { cachedCall, structuredSettings, verdictKey, weightedFor } from './cache';
import type { JudgeContext } from './context';
import { ModelCallError } from './errors';
import type { RowClock } from './governor';
import {
	callKey,
	type ChatMessage,
	type ChatRequest,
	type ChatResult,
	type ModelSource,
	type ResponseMode,
} from './model';
import { weightedScore } from './logprobs';
import { bareYesNoReply, parseReply, truncate } from './parse';
import { readJudgeRow } from './row';
import {
	byTemplates,
	dataRule,
	placeholderProblems,
	promptHash,
	renderPrompt,
	type RenderedPrompt,
} from './prompt';
import type { JudgeDecl, JudgePrompt } from './types';

const MODE_ORDER: ResponseMode[] = ['json_schema', 'json_object', 'text'];
// One source object serves a whole dataset, so the first row's discovery is reused by the rest.
const modeCache = new WeakMap<ModelSource, ResponseMode>();

/** The prompt actually used: the declaration's default with any non-empty override applied. */
export function effectivePrompt(
	decl: JudgeDecl,
	override?: { system?: string; user?: string },
): JudgePrompt {
	return {
		system:
			override?.system && override.system.trim() !== '' ? override.system : decl.prompt.system,
		user: override?.user && override.user.trim() !== '' ? override.user : decl.prompt.user,
	};
}

/** `judge:<id>@<version>|model:<m>|temp:<t>|prompt:<sha256-12>`; never holds credentials. */
export function judgeSignature(
	decl: JudgeDecl,
	opts: {
		model: string;
		temperature?: number;
		promptOverride?: { system?: string; user?: string };
		scoreFrom?: 'sampled' | 'weighted';
	},
): string {
	const hash = promptHash(effectivePrompt(decl, opts.promptOverride));
	return signatureOf(
		'judge',
		decl,
		`model:${opts.model}`,
		`temp:${opts.temperature ?? 0}`,
		`prompt:${hash}`,
		// A weighted rating is another measurement than the sampled one: never compared as one.
		weightedFor(decl, opts) ? 'score:weighted' : undefined,
	);
}

function outputKeys(decl: JudgeDecl): string[] {
	const props = decl.output.jsonSchema.properties;
	return typeof props === 'object' && props !== null ? Object.keys(props) : [];
}

function describeProp(schema: unknown): string {
	const s = (schema ?? {}) as Record<string, unknown>;
	if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
	const desc = typeof s.description === 'string' ? ` (${s.description})` : '';
	if (s.type === 'array') return `a list${desc}`;
	return `${String(s.type ?? 'value')}${desc}`;
}

const instructions = new WeakMap<object, Map<ResponseMode, string>>();

/**
 * Output instructions derived from the schema, appended to every (even edited) system prompt:
 * built once per output schema and mode, as every row of a node asks for the same text.
 */
function formatInstruction(decl: JudgeDecl, mode: ResponseMode): string {
	let byMode = instructions.get(decl.output.jsonSchema);
	if (!byMode) instructions.set(decl.output.jsonSchema, (byMode = new Map()));
	let text = byMode.get(mode);
	if (text === undefined) byMode.set(mode, (text = buildInstruction(decl, mode)));
	return text;
}

function buildInstruction(decl: JudgeDecl, mode: ResponseMode): string {
	const props = (decl.output.jsonSchema.properties ?? {}) as Record<string, unknown>;
	const fields = Object.keys(props)
		.map((k) => `- ${k}: ${describeProp(props[k])}`)
		.join('\n');
	if (mode === 'text') {
		const tags = Object.keys(props)
			.map((k) => `<${k}>...</${k}>`)
			.join('');
		return `Reply with exactly these tags, in this order, and nothing else: ${tags}\nFields (lists as JSON arrays):\n${fields}`;
	}
	return `Reply with a single JSON object with these keys, in this order (write the reasoning before the verdict):\n${fields}`;
}

const problemMemo = new WeakMap<JudgeDecl, Map<string, Map<string, string[]>>>();

/** {@link placeholderProblems} of a declaration's prompt, once per distinct templates. */
function problemsOf(decl: JudgeDecl, prompt: JudgePrompt): string[] {
	let memo = problemMemo.get(decl);
	if (!memo) problemMemo.set(decl, (memo = new Map()));
	return byTemplates(memo, prompt, () => placeholderProblems(decl, prompt));
}

/** Problems with a model reply that are errors, not scores. */
function replyProblem(r: ChatResult): string | null {
	if (r.finishReason === 'content_filter') {
		return 'the provider content filter blocked the judge reply (finish_reason content_filter)';
	}
	if (r.refusal && r.refusal.trim() !== '')
		return `the judge model refused: ${truncate(r.refusal, 300)}`;
	if (r.finishReason === 'length') {
		return "the judge reply was cut off at the token limit (finish_reason length); raise the node's Max Tokens option (0 sends none: the server's default applies), or a connected Chat Model's own maximum";
	}
	// An empty reply is re-asked once like an unparseable one (parseReply names it).
	return null;
}

/**
 * Problems with an edited prompt: placeholders the judge does not declare, and required inputs
 * the prompt no longer shows the model. Empty when the override is usable.
 */
export function promptOverrideProblems(
	decl: JudgeDecl,
	override?: { system?: string; user?: string },
): string[] {
	return placeholderProblems(decl, effectivePrompt(decl, override));
}

/** The Score base of a judge under a context, signed with the model that answered. */
export function judgeBase(decl: JudgeDecl, ctx: JudgeContext, model: string): ScoreBase {
	const signature = judgeSignature(decl, {
		model,
		temperature: ctx.temperature ?? 0,
		promptOverride: ctx.promptOverride,
		scoreFrom: ctx.scoreFrom,
	});
	return scoreBase(decl, decl.id, signature, ctx.threshold);
}

/** The judge's params for one row: the context's, then the row's, then the declared default. */
export function judgeParams(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: Pick<JudgeContext, 'params'>,
): Record<string, unknown> {
	const params: Record<string, unknown> = {};
	for (const p of decl.params) params[p.name] = ctx.params?.[p.name] ?? inputs[p.name] ?? p.default;
	return params;
}

/**
 * Judges one row with one call of the declaration's prompt. Reads the row once; a call that can
 * be answered without the model never reaches the cache or the model. Never throws for a row.
 */
export async function judgeSingle(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: JudgeContext,
): Promise<Score> {
	const started = Date.now();
	const requestedModel = ctx.model ?? ctx.source.defaultModel;
	const sign = (model: string): ScoreBase => judgeBase(decl, ctx, model);

	const row = readJudgeRow(decl, inputs, sign(requestedModel));
	if ('score' in row) return row.score;
	const values = row.values;
	const fixed = decl.fixedResult?.(values) ?? null;
	if (fixed !== null) {
		// A deterministic answer costs nothing and is never cached.
		return okScore(sign(requestedModel), fixed.value, {
			reason: fixed.reason,
			attempts: 0,
			latencyMs: Date.now() - started,
			details: { fixedResult: true },
		});
	}
	const prompt = effectivePrompt(decl, ctx.promptOverride);
	const promptProblems = problemsOf(decl, prompt);
	if (promptProblems.length > 0) {
		return errorScore(
			sign(requestedModel),
			`${decl.displayName}: the edited prompt cannot be used: ${promptProblems.join('; ')}`,
		);
	}
	const params = judgeParams(decl, inputs, ctx);
	const rendered = renderPrompt(prompt, decl.inputs, values, params);
	const ask = () => askModel(decl, rendered, ctx, sign, started);
	if (!ctx.cache) return ask();
	return cachedCall(ctx.cache, verdictKey(decl, prompt, values, params, ctx), sign, ask);
}

/** The structured-output ladder for one rendered prompt: the model's verdict, or the row's error. */
async function askModel(
	decl: JudgeDecl,
	rendered: RenderedPrompt,
	ctx: JudgeContext,
	sign: (model: string) => ScoreBase,
	started: number,
): Promise<Score> {
	const requestedModel = ctx.model ?? ctx.source.defaultModel;
	const keys = outputKeys(decl);

	let usage: Usage | undefined;
	let attempts = 0;
	let model = requestedModel;
	let mode: ResponseMode =
		modeCache.get(ctx.source) ?? (ctx.source.supportsResponseFormat ? 'json_schema' : 'text');
	let reask: ChatMessage[] = [];
	let reasked = false;
	// One deadline across all of this row's calls (retries, format fallbacks, the re-ask).
	const clock: RowClock = {};
	const fail = (error: string, details: Record<string, unknown> = {}): Score =>
		errorScore(sign(model), `${decl.displayName}: ${error}`, {
			usage,
			model,
			latencyMs: Date.now() - started,
			attempts,
			details: { responseMode: mode, ...details },
		});

	for (;;) {
		const messages: ChatMessage[] = [
			{
				role: 'system',
				content: `${rendered.system}\n\n${dataRule(rendered.tag)}\n\n${formatInstruction(decl, mode)}`,
			},
			{ role: 'user', content: rendered.user },
			...reask,
		];
		let result: ChatResult;
		try {
			const request: ChatRequest = { messages, ...structuredSettings(decl, ctx, mode) };
			const governed = await ctx.governor.run(
				callKey(ctx.source, ctx.model),
				(signal) => ctx.source.chat({ ...request, signal }),
				{
					signal: ctx.signal,
					row: ctx.row,
					headersOf: (r) => r.headers,
					clock,
					gate: ctx.spend?.gate(request, requestedModel),
				},
			);
			attempts += governed.attempts;
			result = governed.value;
		} catch (e) {
			const err =
				e instanceof ModelCallError
					? e
					: new ModelCallError('bad_request', String((e as Error)?.message ?? e));
			attempts += err.attempts ?? 0;
			if (err.kind === 'response_format_unsupported' && mode !== 'text') {
				mode = MODE_ORDER[MODE_ORDER.indexOf(mode) + 1];
				modeCache.set(ctx.source, mode);
				continue;
			}
			return fail(err.message, { errorKind: err.kind, fatal: err.fatal });
		}
		usage = sumUsage(usage, result.usage ?? undefined);
		model = result.model || model;
		const problem = replyProblem(result);
		if (problem !== null) {
			return fail(problem, {
				finishReason: result.finishReason,
				rawReply: truncate(result.content),
			});
		}
		const parsed = parseReply(result.content, decl.output.schema, keys);
		if (parsed.ok) {
			let value = decl.toValue(parsed.value);
			let reason = decl.toReason(parsed.value);
			const weighted: Record<string, unknown> = {};
			if (weightedFor(decl, ctx) && typeof value === 'number') {
				const w = weightedScore(result.logprobs, value, decl.scale);
				value = w.value;
				weighted.weighting = w.weighting;
				if (w.weighting.method === 'sampled')
					reason = `${reason} (Weighting: ${w.weighting.note}.)`;
			}
			return okScore(sign(model), value, {
				reason,
				usage,
				model,
				latencyMs: Date.now() - started,
				attempts,
				details: { responseMode: mode, ...(decl.toDetails?.(parsed.value) ?? {}), ...weighted },
			});
		}
		const bare = decl.bareYesNo ? bareYesNoReply(result.content) : null;
		if (decl.bareYesNo && bare !== null) {
			const reply = result.content.trim();
			const rule = decl.bareYesNo;
			if (rule.verdict) {
				// The seed's own prompt asks for a bare YES/NO: the word is the verdict, without a reason.
				const verdict = rule.verdict(bare, reply);
				return okScore(sign(model), decl.toValue(verdict), {
					reason: decl.toReason(verdict),
					usage,
					model,
					latencyMs: Date.now() - started,
					attempts,
					details: { responseMode: mode, bareReply: reply },
				});
			}
			// A model that answers one word will not write the structured output when re-asked.
			return fail(
				`the model answered ${JSON.stringify(truncate(reply, 20))} where ${mode === 'text' ? 'a tagged' : 'a JSON'} verdict was asked${rule.advice ? `: ${rule.advice}` : ''}`,
				{ rawReply: truncate(result.content), bareYesNo: bare ? 'yes' : 'no' },
			);
		}
		if (reasked) {
			return fail(`could not parse the judge reply after one re-ask: ${parsed.error}`, {
				rawReply: truncate(result.content),
			});
		}
		reasked = true;
		reask = [
			// An empty assistant turn is rejected by some servers; the user turn says it was empty.
			...(result.content.trim() === ''
				? []
				: [{ role: 'assistant' as const, content: truncate(result.content, 4000) }]),
			{
				role: 'user',
				content: `Your reply could not be used: ${parsed.error}. Answer again with only the required format.`,
			},
		];
	}
}
