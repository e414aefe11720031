/**
 * Retrieval score (Azure AI Studio, seed 000, "Pontuação de recuperação"): how relevant the
 * retrieved documents are to the user's query, summarised over the conversation history.
 * The seed's steps: (1) split the query into intents; (2) for each intent, say whether it or its
 * answer is present in, or inferable from, the documents ("No" / "Yes, [doc1]..."); (3) the
 * fraction of intents answered "Yes", all intents weighing the same; (4) adjust to penalise
 * errors. Its rubric rates the document list 1-5 (1 none relevant, 5 one document or a
 * combination is ideal), reading each document's suitability in rank order.
 * Value (float 1-5, our reading of step 4): the mean of the intent coverage mapped to 1-5
 * (1 + 4 x fraction) and the model's ranking-aware rubric rating, so irrelevant or badly ranked
 * documents pull a fully covered query below 5, and full coverage lifts a harsh rating.
 */
import { z } from 'zod';
import { judgeOutput } from '../output';
import { likertInt, reasonText, yesNo } from '../parse';
import type { JudgeDecl } from '../types';
import { LIKERT, contextInput, historyInput, requestInput } from './common';

/** Parsed retrieval verdict. */
export interface RetrievalVerdict {
	intents: { intent: string; supported: 'yes' | 'no'; documents: string[] }[];
	documents: { id: string; relevance: number }[];
	reason: string;
	score: number;
}

/** Fraction of intents the documents support (step 3). */
export function intentCoverage(v: RetrievalVerdict): number {
	if (v.intents.length === 0) return 0;
	return v.intents.filter((i) => i.supported === 'yes').length / v.intents.length;
}

/** The float 1-5 value: mean of the coverage on 1-5 and the ranking-aware rating (step 4). */
export function retrievalValue(v: RetrievalVerdict): number {
	const coverage = 1 + 4 * intentCoverage(v);
	const value = (coverage + v.score) / 2;
	return Math.round(Math.min(5, Math.max(1, value)) * 1000) / 1000;
}

/** Azure retrieval score, float 1-5. */
export const retrieval: JudgeDecl<RetrievalVerdict> = {
	id: 'retrieval',
	order: 90,
	version: '1',
	displayName: 'Retrieval Score',
	description:
		'Rates 1-5 (float) how relevant the retrieved documents are to the query and its intents',
	reference:
		'Azure AI Studio retrieval score (seed 000): intents, per-intent support by the documents, fraction, penalty; ranking-aware 1-5 rubric',
	anchorNames: ['RetrievalEvaluator'],
	inputs: [requestInput(true), historyInput, contextInput(true)],
	params: [],
	scale: LIKERT,
	threshold: { default: 3, direction: 'higher' },
	rootCause: {
		slot: 'retrieval',
		output: 8,
		fix: 'The retrieved context ranks relevant passages poorly: tune the retriever, reranker and chunking.',
	},
	prompt: {
		system: [
			'You rate how well a list of retrieved documents serves a user question. Documents are listed in retrieval rank order and labelled [doc1], [doc2], ...',
			'Proceed step by step:',
			'1. Work out what the question really asks, using the chat history when the question is ambiguous, and split it into its separate intents (for "What do plan A and plan B cost?": "cost of plan A", "cost of plan B").',
			'2. For each intent, decide whether the intent or its answer is present in, or can be inferred from, the documents: "yes" with the labels of the documents that support it, or "no".',
			'3. Rate each document from 1 (unrelated) to 5 (answers the question) for this question.',
			'4. Give an overall rating of the document list from 1 to 5, where 1 means no document is relevant at all and 5 means one document, or a combination of a few, is ideal for answering. Relevant documents ranked high deserve more credit than relevant documents buried under irrelevant ones; an answer may come from one document or from several together.',
		].join('\n'),
		user: 'Question:\n{request}\n\nChat history:\n{history}\n\nRetrieved documents:\n{retrieved_context}',
	},
	output: judgeOutput(
		'retrieval',
		z.object({
			intents: z
				.array(
					z.object({
						intent: z.string(),
						supported: yesNo(),
						documents: z.array(z.string()),
					}),
				)
				.min(1)
				.describe('the intents of the question and whether the documents support each'),
			documents: z
				.array(z.object({ id: z.string(), relevance: likertInt(1, 5) }))
				.describe('each document label with its relevance from 1 to 5'),
			reason: reasonText().describe('overall reasoning about the document list'),
			score: likertInt(1, 5).describe('overall rating of the document list, 1 to 5'),
		}),
	),
	toValue: retrievalValue,
	toReason: (p) => p.reason,
	toDetails: (p) => ({
		intents: p.intents,
		intentCoverage: intentCoverage(p),
		documentRelevance: p.documents,
		rubricScore: p.score,
	}),
	notApplicable: (inputs) =>
		inputs.context === undefined ? 'no retrieved documents with content to rate' : null,
};
