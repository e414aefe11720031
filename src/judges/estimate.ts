/**
 * Estimate-only mode: every call a judge would make is rendered by the real code path (system
 * prompt, data rule, format instruction, user prompt; fan-out calls and conversation turns too)
 * and counted with the model family's BPE tokenizer (gpt-tokenizer, whose encodings ship in the
 * package) instead of being sent. The spend limit uses the same counts to reserve a call's cost.
 */
import { findPrice, tokenCost, type PriceTable } from '../cost';
import type { Score } from '../core/types';
import { ModelCallError } from './errors';
import {
	callKey,
	type ChatMessage,
	type ChatRequest,
	type ChatResult,
	type ModelSource,
} from './model';

/** The BPE encodings shipped for estimates: OpenAI's current (o200k) and previous (cl100k). */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Which encoding counts a model's tokens, and whether that count is only approximate. */
export interface TokenizerChoice {
	encoding: EncodingName;
	/** True for models outside the OpenAI families below: their own tokenizer is not shipped. */
	approximate: boolean;
}

/** Chat framing per message (`<|start|>role<|message|>...<|end|>`), as OpenAI's cookbook counts it. */
export const TOKENS_PER_MESSAGE = 3;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * Completion tokens assumed for one judge call when no max tokens is set: an allowance for a few
 * sentences of reasoning plus the verdict as JSON (the node's Typical Reply Tokens overrides it).
 */
export const DEFAULT_REPLY_TOKENS = 300;

const O200K = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)(\b|-|$)/;
const CL100K = /^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)(\b|-|$)/;

/**
 * The encoding for a model name (a provider prefix such as `openai/` is ignored): o200k for
 * gpt-4o, gpt-4.1, gpt-5 and the o-series; cl100k for gpt-4 and gpt-3.5; o200k, flagged
 * approximate, for every other model (Llama, Mistral, Claude, Azure deployment names...).
 */
export function encodingFor(model: string): TokenizerChoice {
	const name = model.trim().toLowerCase();
	const bare = name.slice(name.lastIndexOf('/') + 1);
	if (O200K.test(bare)) return { encoding: 'o200k_base', approximate: false };
	if (CL100K.test(bare)) return { encoding: 'cl100k_base', approximate: false };
	return { encoding: 'o200k_base', approximate: true };
}

/** A loaded BPE encoding: text to token ids. */
export interface Encoder {
	readonly name: EncodingName;
	encode(text: string): number[];
}

const encoders = new Map<EncodingName, Promise<Encoder>>();
// Special-token text inside judged data is ordinary text, never a control token (nor an error).
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/**
 * The tokenizer of an encoding, loaded once per process and only when an estimate or a spend
 * limit needs it (o200k's table is large).
 */
export function loadEncoder(encoding: EncodingName): Promise<Encoder> {
	let p = encoders.get(encoding);
	if (!p) {
		p = (
			encoding === 'o200k_base'
				? import('gpt-tokenizer/cjs/encoding/o200k_base')
				: import('gpt-tokenizer/cjs/encoding/cl100k_base')
		).then((m) => ({ name: encoding, encode: (text: string) => m.encode(text, NO_SPECIAL) }));
		encoders.set(encoding, p);
		p.catch(() => encoders.delete(encoding));
	}
	return p;
}

/** Tokens of a text; special-token strings in the text are counted as ordinary text. */
export function countTokens(encoder: Encoder, text: string): number {
	return encoder.encode(text).length;
}

/** Prompt tokens of a chat request: each message's role and content plus the chat framing. */
export function countChatTokens(encoder: Encoder, messages: ReadonlyArray<ChatMessage>): number {
	let n = REPLY_PRIMING_TOKENS;
	for (const m of messages)
		n += TOKENS_PER_MESSAGE + countTokens(encoder, m.role) + countTokens(encoder, m.content);
	return n;
}

/** Estimated tokens of one call. */
export interface CallEstimate {
	promptTokens: number;
	/** The call's max tokens when set, else the typical reply size. */
	completionTokens: number;
}

/**
 * Tokens of one chat request as it would be sent. A strict JSON schema is counted as its JSON
 * text (the provider's own framing of it is not published, so this part is approximate).
 */
export function estimateRequest(
	encoder: Encoder,
	request: Pick<ChatRequest, 'messages' | 'mode' | 'jsonSchema' | 'maxTokens'>,
	replyTokens: number = DEFAULT_REPLY_TOKENS,
): CallEstimate {
	let promptTokens = countChatTokens(encoder, request.messages);
	if (request.mode === 'json_schema' && request.jsonSchema)
		promptTokens += countTokens(encoder, JSON.stringify(request.jsonSchema.schema));
	return { promptTokens, completionTokens: request.maxTokens ?? replyTokens };
}

/** A row's estimate, written to `item.json.estimate.<result key>` (never under `eval`). */
export interface RowEstimate {
	/** `estimated` (calls counted; 0 for a row the rubric decides), or why it would not be judged. */
	status: 'estimated' | 'not_applicable' | 'error';
	model: string;
	encoding: EncodingName;
	approximate: boolean;
	calls: number;
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
	/** Absent when the model has no price in the table. */
	usd?: number;
	/** The price-table entry that priced the row. */
	pricedAs?: string;
	/** Where the completion figure comes from: the call's max tokens, or the typical reply size. */
	completionBasis: string;
	reason?: string;
	error?: string;
}

/** The estimate of a whole node execution (the sum over its rows). */
export interface RunEstimate {
	rows: number;
	calls: number;
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
	usd?: number;
	/** Set when `usd` is absent: the model has no price. */
	unpriced?: string;
	model: string;
	encoding: EncodingName;
	approximate: boolean;
}

/**
 * A model source that records every request of one row and answers none: the runner renders each
 * call exactly as for a real run, and the call fails with `not_called` (never retried or scored).
 */
export function recordingSource(base: Pick<ModelSource, 'key' | 'keyFor' | 'defaultModel'>): {
	source: ModelSource;
	requests: ChatRequest[];
} {
	const requests: ChatRequest[] = [];
	const source: ModelSource = {
		key: `estimate:${base.key}`,
		keyFor: (model) => `estimate:${callKey(base, model)}`,
		defaultModel: base.defaultModel,
		// Counted as the first structured attempt of a real run: the strict JSON schema mode.
		supportsResponseFormat: true,
		chat(request: ChatRequest): Promise<ChatResult> {
			requests.push(request);
			return Promise.reject(
				new ModelCallError('not_called', 'estimate only: the call was counted, not sent'),
			);
		},
	};
	return { source, requests };
}

/** Options of {@link estimateRow}. */
export interface EstimateOptions {
	model: string;
	prices: Readonly<PriceTable>;
	/** Completion tokens per call without max tokens (default {@link DEFAULT_REPLY_TOKENS}). */
	replyTokens?: number;
}

/**
 * A row's estimate from the requests its judge run recorded and the Score that run returned (a
 * not-applicable or bad row is reported as such; an error from the recording itself is not).
 */
export async function estimateRow(
	requests: ReadonlyArray<ChatRequest>,
	score: Score,
	opts: EstimateOptions,
): Promise<RowEstimate> {
	const choice = encodingFor(opts.model);
	const replyTokens = opts.replyTokens ?? DEFAULT_REPLY_TOKENS;
	const out: RowEstimate = {
		status: 'estimated',
		model: opts.model,
		...choice,
		calls: 0,
		promptTokens: 0,
		completionTokens: 0,
		totalTokens: 0,
		completionBasis: `max tokens of the call, else ${replyTokens} per call (typical reply)`,
	};
	if (requests.length === 0) {
		if (score.status === 'not_applicable') {
			out.status = 'not_applicable';
			out.reason = score.reason;
		} else if (score.status === 'error') {
			out.status = 'error';
			out.error = score.error;
		} else out.reason = 'decided without a model call';
	}
	if (requests.length > 0) {
		const encoder = await loadEncoder(choice.encoding);
		for (const r of requests) {
			const e = estimateRequest(encoder, r, replyTokens);
			out.calls++;
			out.promptTokens += e.promptTokens;
			out.completionTokens += e.completionTokens;
		}
	}
	out.totalTokens = out.promptTokens + out.completionTokens;
	const found = findPrice(opts.model, opts.prices);
	if (found) {
		out.usd = tokenCost(out.promptTokens, out.completionTokens, found.price);
		out.pricedAs = found.key;
	}
	return out;
}

/**
 * A panel row's estimate: each juror's calls counted with its model's tokenizer and priced at its
 * own model, then summed. `usd` only when every juror that would call has a price.
 */
export async function estimatePanelRow(
	jurors: ReadonlyArray<{
		/** The juror's model; absent: its source's default. */
		model?: string;
		source: Pick<ModelSource, 'defaultModel'>;
		requests: ReadonlyArray<ChatRequest>;
	}>,
	score: Score,
	opts: EstimateOptions,
): Promise<RowEstimate> {
	const models = jurors.map((j) => j.model ?? j.source.defaultModel);
	const each = await Promise.all(
		jurors.map((j, i) => estimateRow(j.requests, score, { ...opts, model: models[i] })),
	);
	const out: RowEstimate = { ...each[0], model: models.join('+') };
	out.approximate = each.some((e) => e.approximate);
	for (const k of ['calls', 'promptTokens', 'completionTokens', 'totalTokens'] as const)
		out[k] = each.reduce((sum, e) => sum + e[k], 0);
	delete out.usd;
	delete out.pricedAs;
	const calling = each.filter((e) => e.calls > 0);
	if (calling.length > 0 && calling.every((e) => e.usd !== undefined)) {
		out.usd = calling.reduce((sum, e) => sum + (e.usd ?? 0), 0);
		out.pricedAs = [...new Set(calling.map((e) => e.pricedAs))].join('+');
	}
	return out;
}

/** The run's estimate: the sum of its rows' (`usd` only when every row was priced). */
export function runEstimate(rows: ReadonlyArray<RowEstimate>, model: string): RunEstimate {
	const choice = encodingFor(model);
	const out: RunEstimate = {
		rows: rows.length,
		calls: 0,
		promptTokens: 0,
		completionTokens: 0,
		totalTokens: 0,
		model,
		...choice,
	};
	let usd = 0;
	let priced = true;
	for (const r of rows) {
		out.calls += r.calls;
		out.promptTokens += r.promptTokens;
		out.completionTokens += r.completionTokens;
		out.totalTokens += r.totalTokens;
		if (r.usd === undefined) priced = false;
		else usd += r.usd;
	}
	if (priced) out.usd = usd;
	else out.unpriced = `no price for model "${model}" (add it to Model Prices)`;
	return out;
}
