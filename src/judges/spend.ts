/**
 * The spend limit of one judge node execution, in tokens or USD (priced from the package's one
 * price table). Each HTTP attempt reserves its estimated cost before it is sent (prompt counted
 * with the model's tokenizer, reply = max tokens or the typical reply size); a call whose
 * reservation would take spent + reserved past the limit is not made, and from then on no call
 * is: every remaining row leaves with a `spend_limit` error. After a call the reservation is
 * replaced by the usage the server reported (the estimate when it reported none).
 *
 * With concurrency 1 the stop is deterministic: the first row whose next call would cross the
 * limit is stopped, and so is every row after it. With concurrency c, calls already in flight
 * finish and are counted; spending passes the limit only by what those (at most c) calls cost
 * beyond their estimates, i.e. replies longer than the typical size when no max tokens is set.
 *
 * A panel's jurors share the limit, and each juror's calls are reserved and charged at that
 * juror's own model (its tokenizer and its price), so a cheap and a dear juror are limited by
 * what each really costs.
 */
import { findPrice, type ModelPrice, type PriceTable } from '../cost';
import type { Score, Usage } from '../core/types';
import { ModelCallError } from './errors';
import {
	countTokens,
	DEFAULT_REPLY_TOKENS,
	encodingFor,
	estimateRequest,
	loadEncoder,
	type Encoder,
} from './estimate';
import type { CallGate } from './governor';
import type { ChatRequest, ChatResult } from './model';

/** What the limit counts: prompt + completion tokens, or USD from the price table. */
export type SpendUnit = 'tokens' | 'usd';

/** Settings of a spend limit. */
export interface SpendLimitOptions {
	unit: SpendUnit;
	/** The limit (> 0). */
	amount: number;
	/** The model the node calls: picks the tokenizer and, for USD, the price. */
	model: string;
	/**
	 * Every model the node's calls go to (a panel's jurors), each reserved and charged at its own
	 * tokenizer and price; default `[model]`. For USD each must have a price.
	 */
	models?: ReadonlyArray<string>;
	prices: Readonly<PriceTable>;
	/** Completion tokens reserved per call without max tokens (default 300). */
	replyTokens?: number;
}

/** A spend limit that cannot be enforced (no price for the model, a bad amount): no call is made. */
export class SpendLimitError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'SpendLimitError';
	}
}

/** Whether a Score is an error because the spend limit stopped (one of) its calls. */
export function isSpendStopped(score: Pick<Score, 'status' | 'details'>): boolean {
	if (score.status !== 'error' || !score.details) return false;
	if (score.details.errorKind === 'spend_limit') return true;
	// Fan-out calls and conversation turns keep their own details.
	const nested = [score.details.calls, score.details.turns];
	return nested.some(
		(list) =>
			Array.isArray(list) &&
			list.some((c) => {
				const d = (c as { details?: { errorKind?: unknown } } | null)?.details;
				return d?.errorKind === 'spend_limit';
			}),
	);
}

/** The details a folded (fan-out or per-turn) error carries when the spend limit stopped it. */
export function spendStopDetails(parts: ReadonlyArray<Score>): { errorKind?: 'spend_limit' } {
	return parts.some(isSpendStopped) ? { errorKind: 'spend_limit' } : {};
}

function fmt(n: number, unit: SpendUnit): string {
	return unit === 'usd' ? `$${n.toFixed(6).replace(/0{1,4}$/, '')}` : `${Math.round(n)} tokens`;
}

/** One node execution's spend limit; hand `gate(request)` to the governor for each call. */
export class SpendLimit {
	readonly unit: SpendUnit;
	readonly amount: number;
	private readonly model: string;
	private readonly price?: { key: string; price: ModelPrice };
	private readonly prices: Readonly<PriceTable>;
	private readonly replyTokens: number;
	private readonly encoder: Encoder;
	/** Tokenizers by encoding name, loaded for every model of `models`. */
	private readonly encoders: ReadonlyMap<string, Encoder>;
	private spentTokens = 0;
	private spentUsd = 0;
	private reserved = 0;
	private calls = 0;
	private stopped?: string;

	private constructor(
		opts: SpendLimitOptions,
		encoder: Encoder,
		encoders: ReadonlyMap<string, Encoder>,
	) {
		this.unit = opts.unit;
		this.amount = opts.amount;
		this.model = opts.model;
		this.prices = opts.prices;
		this.replyTokens = opts.replyTokens ?? DEFAULT_REPLY_TOKENS;
		this.price = findPrice(opts.model, opts.prices);
		this.encoder = encoder;
		this.encoders = encoders;
	}

	/**
	 * A spend limit for a node execution. Throws {@link SpendLimitError} before any call when the
	 * amount is not a positive number or a USD limit has no price for the model (for a panel, for
	 * any juror's model: a juror without a price could not be counted).
	 */
	static async create(opts: SpendLimitOptions): Promise<SpendLimit> {
		if (!(typeof opts.amount === 'number' && Number.isFinite(opts.amount) && opts.amount > 0))
			throw new SpendLimitError(
				`spend limit: the amount must be a positive number, got ${String(opts.amount)}`,
			);
		const models = opts.models && opts.models.length > 0 ? opts.models : [opts.model];
		const unpriced =
			opts.unit === 'usd' ? models.find((m) => !findPrice(m, opts.prices)) : undefined;
		if (unpriced !== undefined)
			throw new SpendLimitError(
				`spend limit in USD: no price for the judge model "${unpriced}", so its spend cannot be counted. Add the model to Model Prices or set the limit in tokens.`,
			);
		const encoding = encodingFor(opts.model).encoding;
		const encoders = new Map<string, Encoder>();
		for (const name of new Set([encoding, ...models.map((m) => encodingFor(m).encoding)]))
			encoders.set(name, await loadEncoder(name));
		return new SpendLimit(opts, encoders.get(encoding)!, encoders);
	}

	/** Spent so far in this execution (settled calls only), in tokens and, when priced, USD. */
	spent(): { tokens: number; usd?: number; calls: number } {
		return {
			tokens: this.spentTokens,
			...(this.price ? { usd: this.spentUsd } : {}),
			calls: this.calls,
		};
	}

	/** Whether the limit has stopped calls (every later call is refused too). */
	get reached(): boolean {
		return this.stopped !== undefined;
	}

	/**
	 * Admits and accounts one call of `request` (every attempt of it) under the limit, at the price
	 * and tokenizer of `model` (a panel juror's; default the node's model).
	 */
	gate(request: ChatRequest, model: string = this.model): CallGate<ChatResult> {
		const encoder = this.encoders.get(encodingFor(model).encoding) ?? this.encoder;
		return this.admitting(estimateRequest(encoder, request, this.replyTokens), model);
	}

	/**
	 * Admits and accounts one embedding call of `texts` to `model` (every attempt of it): prompt
	 * tokens only, priced by the embedding model's own entry in the price table.
	 */
	embeddingGate(
		texts: ReadonlyArray<string>,
		model: string,
	): CallGate<{ usage: Usage | null; model: string }> {
		let promptTokens = 0;
		for (const t of texts) promptTokens += countTokens(this.encoder, t);
		return this.admitting({ promptTokens, completionTokens: 0 }, model);
	}

	private admitting(
		estimate: { promptTokens: number; completionTokens: number },
		model: string,
	): CallGate<{ usage: Usage | null; model: string }> {
		let held = 0;
		return {
			admit: () => {
				if (this.stopped !== undefined)
					return new ModelCallError('spend_limit', `${this.stopped}; not called`);
				const cost = this.costOf(estimate.promptTokens, estimate.completionTokens, model).amount;
				const spent = this.unit === 'usd' ? this.spentUsd : this.spentTokens;
				if (spent + this.reserved + cost > this.amount) {
					this.stopped = `spend limit reached: ${fmt(spent, this.unit)} of ${fmt(this.amount, this.unit)} spent in this execution${this.reserved > 0 ? ` (${fmt(this.reserved, this.unit)} more in flight)` : ''}, and the next call (about ${fmt(cost, this.unit)}) would pass it (option Spend Limit)`;
					return new ModelCallError('spend_limit', `${this.stopped}; not called`);
				}
				held = cost;
				this.reserved += cost;
				return undefined;
			},
			settle: (value) => {
				this.reserved = Math.max(0, this.reserved - held);
				held = 0;
				if (value === undefined) return;
				this.calls++;
				const u: Usage | null = value.usage;
				const prompt = u ? u.promptTokens : estimate.promptTokens;
				const completion = u ? u.completionTokens : estimate.completionTokens;
				this.spentTokens += u ? u.totalTokens : prompt + completion;
				const usd = this.costOf(prompt, completion, value.model || model, model).usd;
				if (usd !== undefined) this.spentUsd += usd;
			},
		};
	}

	/**
	 * A call's cost in the limit's unit (and USD when priced), by `model`'s price (the answering
	 * model), else `gated`'s (the model the call was reserved for), else the node model's.
	 */
	private costOf(
		prompt: number,
		completion: number,
		model: string,
		gated: string = model,
	): { amount: number; usd?: number } {
		const price =
			findPrice(model, this.prices)?.price ??
			findPrice(gated, this.prices)?.price ??
			this.price?.price;
		const usd = price ? (prompt * price.input + completion * price.output) / 1e6 : undefined;
		return { amount: this.unit === 'usd' ? (usd ?? 0) : prompt + completion, usd };
	}
}
