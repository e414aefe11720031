/**
 * The spend and Estimate Only options of the embedding evaluators' nodes: the judges' Mode,
 * Spend Limit and Model Prices, with Mode worded for embeddings (Typical Reply Tokens only where
 * a judge call is made too).
 */
import type { INodeProperties } from 'n8n-workflow';
import type { EmbeddingMetricDecl } from '../../src/embeddings/types';
import { spendOptions } from './llmOptions';

const SPEND = new Set(['runMode', 'spendLimitUnit', 'spendLimit', 'modelPrices']);

/** Mode (Score / Estimate Only), Spend Limit Unit, Spend Limit, Model Prices (and Typical Reply Tokens). */
export function embeddingSpendOptions(decl: EmbeddingMetricDecl): INodeProperties[] {
	return spendOptions
		.filter((p) => SPEND.has(p.name) || (decl.usesJudge && p.name === 'replyTokens'))
		.map((p) =>
			p.name === 'runMode'
				? {
						...p,
						options: [
							{ name: 'Score', value: 'judge', description: 'Embed and score every row' },
							{
								name: 'Estimate Only',
								value: 'estimate',
								description: decl.usesJudge
									? 'Call nothing: count the question prompt and the texts to embed, and price the run (item.json.estimate)'
									: 'Call nothing: count the texts to embed and price them (item.json.estimate)',
							},
						],
						description:
							'Estimate Only prices a run before enabling it: rows leave with their estimated calls, tokens and USD under estimate.<result key>, never a score',
					}
				: p,
		);
}
