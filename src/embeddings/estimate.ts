/**
 * Estimate Only for the embedding evaluators, as the judges offer it (../judges/estimate.ts): the
 * row runs through its evaluator with sources that record what would be sent and send nothing;
 * the embedding texts are counted with the embedding model's tokenizer (no chat framing, no
 * completion) and priced from the price table, and a judge call (Answer Relevancy's questions)
 * is counted as every judge call is.
 */
import { findPrice, tokenCost, type PriceTable } from '../cost';
import type { Score } from '../core/types';
import { ModelCallError } from '../judges/errors';
import {
	countTokens,
	encodingFor,
	estimateRow,
	loadEncoder,
	type EncodingName,
	type RowEstimate,
} from '../judges/estimate';
import type { ChatRequest } from '../judges/model';
import type { EmbeddingSource } from './source';

/** An embedding source that records the texts of each call and answers none. */
export function recordingEmbeddingSource(base: EmbeddingSource): {
	source: EmbeddingSource;
	texts: string[];
} {
	const texts: string[] = [];
	const source: EmbeddingSource = {
		key: `estimate:${base.key}`,
		endpoint: base.endpoint,
		model: base.model,
		settings: base.settings,
		reportsUsage: base.reportsUsage,
		embed(batch: string[]) {
			texts.push(...batch);
			return Promise.reject(
				new ModelCallError('not_called', 'estimate only: the call was counted, not sent'),
			);
		},
	};
	return { source, texts };
}

/** The embedding part of a row's estimate. */
export interface EmbeddingEstimate {
	model: string;
	encoding: EncodingName;
	approximate: boolean;
	texts: number;
	promptTokens: number;
	usd?: number;
	pricedAs?: string;
	/** Set when some texts are not known before the call (Answer Relevancy's questions). */
	basis?: string;
}

/** What {@link estimateEmbeddingRow} prices a row with. */
export interface EmbeddingEstimateOptions {
	embeddingModel: string;
	/** The judge model, for an evaluator that also asks one. */
	judgeModel?: string;
	prices: Readonly<PriceTable>;
	replyTokens?: number;
	/** Why some texts are stand-ins, for `embedding.basis`. */
	basis?: string;
}

/**
 * A row's estimate: its judge calls (if any) as the judges count them, plus one embedding call
 * of `texts` (none: the row would not be embedded, and its Score says why). `usd` is the sum of
 * both parts, absent when either model has no price.
 */
export async function estimateEmbeddingRow(
	judgeRequests: ReadonlyArray<ChatRequest>,
	texts: ReadonlyArray<string>,
	score: Score,
	opts: EmbeddingEstimateOptions,
): Promise<RowEstimate & { embedding?: EmbeddingEstimate }> {
	const judged = opts.judgeModel !== undefined;
	const out: RowEstimate & { embedding?: EmbeddingEstimate } = await estimateRow(
		judgeRequests,
		score,
		{
			model: opts.judgeModel ?? opts.embeddingModel,
			prices: opts.prices,
			replyTokens: opts.replyTokens,
		},
	);
	if (!judged) out.completionBasis = 'embedding calls have no completion tokens';
	if (texts.length === 0) return out;
	// The row's Score is the recording's "not called" error: the row would have been embedded.
	out.status = 'estimated';
	delete out.error;
	delete out.reason;
	const choice = encodingFor(opts.embeddingModel);
	const encoder = await loadEncoder(choice.encoding);
	const tokens = texts.reduce((n, t) => n + countTokens(encoder, t), 0);
	const embedding: EmbeddingEstimate = {
		model: opts.embeddingModel,
		...choice,
		texts: texts.length,
		promptTokens: tokens,
		...(opts.basis ? { basis: opts.basis } : {}),
	};
	const found = findPrice(opts.embeddingModel, opts.prices);
	if (found) {
		embedding.usd = tokenCost(tokens, 0, found.price);
		embedding.pricedAs = found.key;
	}
	out.calls += 1;
	out.promptTokens += tokens;
	out.totalTokens += tokens;
	if (!judged) {
		// The embedding model is the row's model: its price is the row's.
		out.encoding = choice.encoding;
		out.approximate = choice.approximate;
		if (embedding.usd !== undefined) {
			out.usd = embedding.usd;
			out.pricedAs = embedding.pricedAs;
		}
	} else if (out.usd !== undefined && embedding.usd !== undefined) out.usd += embedding.usd;
	else delete out.usd;
	out.embedding = embedding;
	return out;
}
