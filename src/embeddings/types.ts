/**
 * Declarations of the evaluators that read embeddings (Semantic Similarity, Answer Relevancy):
 * their facts like every metric's and judge's, and how a row is scored on the one runtime.
 */
import type { EvaluatorFacts, Score } from '../core/types';
import type { JudgeContext } from '../judges/context';
import type { EmbeddingContext } from './embed';

/** What an embedding evaluator scores a row with: the embedding context, threshold and params. */
export interface EmbeddingRowContext extends EmbeddingContext {
	threshold?: number;
	params?: Record<string, unknown>;
	/** The judge model's call context, for evaluators that also ask it (Answer Relevancy). */
	judge?: JudgeContext;
}

/** An evaluator over embeddings, declared once; the node, docs and registry derive from it. */
export interface EmbeddingMetricDecl extends EvaluatorFacts {
	/** Whether rows also need the judge model (a chat source), besides the embeddings. */
	usesJudge?: boolean;
	/** The Score's signature for the answering embedding model and the row's params. */
	signature(decl: EmbeddingMetricDecl, model: string, params: Record<string, unknown>): string;
	/**
	 * Estimate Only: stand-ins for the texts a row would embed that only a judge call writes
	 * (Answer Relevancy's questions), and what they stand for. Texts known before any call are
	 * recorded from the row's own run instead.
	 */
	estimateTexts?(
		values: Record<string, unknown>,
		params: Record<string, unknown>,
	): { texts: string[]; basis: string } | undefined;
	/** One row's Score; never rejects (a failed call is the row's error Score). */
	score(values: Record<string, unknown>, ctx: EmbeddingRowContext): Promise<Score>;
}
