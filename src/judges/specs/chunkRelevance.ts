/**
 * Chunk relevance (Databricks Agent Evaluation, seed 001): is each retrieved chunk useful
 * (relevant) for answering the request? A verdict and rationale per chunk, and the row's
 * `chunk_relevance/precision` = relevant chunks / judged chunks. Databricks calls the judge once
 * per chunk (`per_chunk`, the default); `batched` asks for every verdict in one call per row
 * (fewer calls and tokens; measured in bench/chunk-relevance.bench.js). A chunk without text is
 * not judged: it is reported not applicable in the details and left out of the precision. The
 * root cause (no ground truth) fails this slot only when not one chunk is relevant (seed 001),
 * while the node's Pass/Fail uses the precision threshold (0.5 by default): both rules stay, and a
 * row where they differ says so in its reason and `details.rootCause` (src/core/score.ts
 * `withSlotNote`).
 */
import { z } from 'zod';
import type { ContextDoc } from '../../core/inputs';
import { judgeOutput } from '../output';
import { reasonText, yesNo } from '../parse';
import type { CallOutcome, FanOut, JudgeCall, JudgeDecl } from '../types';
import { chunksInput } from './agent';
import { requestInput, yesNoOutput, type YesNoVerdict } from './common';

/** How the chunks of a row are sent: one call each (Databricks) or all in one call. */
export type ChunkMode = 'per_chunk' | 'batched';

/** The verdict on one chunk, as kept in `details.chunks`. */
export interface ChunkVerdict {
	index: number;
	doc_uri?: string;
	relevant: boolean | null;
	reason: string;
}

interface BatchedVerdict {
	chunks: { chunk: number; reason: string; verdict: 'yes' | 'no' }[];
}

const batchedCache = new WeakMap<JudgeDecl, Map<number, JudgeDecl>>();

const PER_CHUNK_SYSTEM = [
	'You decide whether one retrieved chunk of text is relevant to a request: does it contain information that helps answer the request?',
	'Answer "yes" when the chunk holds at least part of what the request needs, and "no" when it does not, even if it is on a related topic.',
	'Judge only this chunk, not what other documents might say.',
].join('\n');

/** The batched call's declaration for a row with `n` chunks: exactly one verdict per chunk. */
function batchedDecl(parent: JudgeDecl, n: number): JudgeDecl {
	const byN = batchedCache.get(parent) ?? new Map<number, JudgeDecl>();
	batchedCache.set(parent, byN);
	const cached = byN.get(n);
	if (cached) return cached;
	const decl: JudgeDecl<BatchedVerdict> = {
		...parent,
		fanOut: undefined,
		// The batched reply is a list: a bare yes/no rule of the parent would not fit it.
		bareYesNo: undefined,
		prompt: {
			system: [
				'You decide, for each retrieved chunk of text labelled [doc1], [doc2], ..., whether it is relevant to a request: does it contain information that helps answer the request?',
				'A chunk is relevant when it holds at least part of what the request needs; a chunk on a related topic without that information is not.',
				'Judge every chunk on its own, in order, and return exactly one verdict per chunk with its number (1 for [doc1]).',
			].join('\n'),
			user: 'Request:\n{request}\n\nRetrieved chunks:\n{retrieved_context}',
		},
		output: judgeOutput(
			'chunk_relevance_batched',
			z.object({
				chunks: z
					.array(z.object({ chunk: z.number().int(), reason: reasonText(), verdict: yesNo() }))
					.length(n, { message: `expected exactly ${n} chunk verdicts` })
					.refine((l) => l.every((c, i) => c.chunk === i + 1), {
						message: 'chunk verdicts must be numbered 1, 2, ... in order',
					})
					.describe(`one verdict per chunk, ${n} in all, in order`),
			}),
		),
		toValue: (p) => p.chunks.every((c) => c.verdict === 'yes'),
		toReason: (p) => `${p.chunks.filter((c) => c.verdict === 'yes').length} of ${n} relevant`,
		toDetails: (p) => ({ verdicts: p.chunks }),
	};
	byN.set(n, decl);
	return decl;
}

function modeOf(params: Record<string, unknown>): ChunkMode {
	return params.chunkMode === 'batched' ? 'batched' : 'per_chunk';
}

/** Per-chunk fan-out over `context` (a chunk list) for any yes/no chunk judge. */
export function chunkFanOut(parent: () => JudgeDecl): FanOut {
	return {
		split(values, params) {
			const docs = values.context as ContextDoc[];
			const calls: JudgeCall[] = [];
			const judged: number[] = [];
			docs.forEach((doc, i) => {
				const key = `chunk ${i + 1}`;
				if (doc.content === undefined || doc.content.trim() === '') {
					calls.push({
						key,
						values: {},
						skip: `${key} (doc_uri ${doc.doc_uri ?? '?'}) has no content: its text is needed to judge it`,
					});
				} else {
					judged.push(i);
					if (modeOf(params) === 'per_chunk')
						calls.push({ key, values: { ...values, context: [doc] } });
				}
			});
			if (judged.length > 0 && modeOf(params) === 'batched') {
				calls.push({
					key: 'chunks',
					values: { ...values, context: judged.map((i) => docs[i]) },
					decl: batchedDecl(parent(), judged.length),
				});
			}
			return calls;
		},
		fold(outcomes, values) {
			const docs = values.context as ContextDoc[];
			const chunks = foldChunks(outcomes, docs);
			const judged = chunks.filter((c) => c.relevant !== null);
			if (judged.length === 0) {
				return { notApplicable: 'no retrieved chunk has content to judge' };
			}
			const relevant = judged.filter((c) => c.relevant === true);
			const names = relevant.map((c) => `chunk ${c.index + 1}`);
			const skipped = chunks.length - judged.length;
			return {
				value: relevant.length / judged.length,
				reason:
					`${relevant.length} of ${judged.length} judged chunks are relevant` +
					(names.length > 0 ? ` (${names.join(', ')})` : '') +
					(skipped > 0 ? `; ${skipped} without content not judged` : '') +
					'.',
				details: { chunks, relevant: relevant.length, judged: judged.length },
			};
		},
	};
}

/** Per-chunk verdicts from either mode's outcomes, in chunk order. */
function foldChunks(outcomes: CallOutcome[], docs: ContextDoc[]): ChunkVerdict[] {
	const out: ChunkVerdict[] = docs.map((d, index) => ({
		index,
		...(d.doc_uri !== undefined ? { doc_uri: d.doc_uri } : {}),
		relevant: null,
		reason: '',
	}));
	const judgedIdx = docs.flatMap((d, i) =>
		d.content !== undefined && d.content.trim() !== '' ? [i] : [],
	);
	for (const o of outcomes) {
		if (o.key === 'chunks') {
			const verdicts = (o.score.details?.verdicts ?? []) as BatchedVerdict['chunks'];
			verdicts.forEach((v, k) => {
				const c = out[judgedIdx[k]];
				c.relevant = v.verdict === 'yes';
				c.reason = v.reason;
			});
			continue;
		}
		const i = Number(o.key.slice('chunk '.length)) - 1;
		const c = out[i];
		if (o.score.status === 'ok') {
			c.relevant = o.score.value === true;
			c.reason = o.score.reason ?? '';
		} else c.reason = o.score.reason ?? 'not judged';
	}
	return out;
}

/** Databricks chunk_relevance. */
export const chunkRelevance: JudgeDecl<YesNoVerdict> = {
	id: 'chunk_relevance',
	order: 130,
	version: '1',
	displayName: 'Chunk Relevance',
	description:
		'Judges each retrieved chunk relevant or not to the request; the value is the share of relevant chunks',
	reference:
		'Databricks Agent Evaluation chunk_relevance (seed 001): request and retrieved_context, a yes/no and rationale per chunk, chunk_relevance/precision per row',
	anchorNames: ['RetrievalRelevance', 'is_context_relevant'],
	inputs: [requestInput(true), chunksInput],
	params: [
		{
			name: 'chunkMode',
			displayName: 'Calls',
			type: 'options',
			default: 'per_chunk',
			options: [
				{ name: 'One Call per Chunk (Databricks)', value: 'per_chunk' },
				{ name: 'One Batched Call per Row', value: 'batched' },
			],
			description:
				'One call per chunk judges each in isolation, as Databricks does; one batched call per row is cheaper (the edited prompt applies to per-chunk calls only)',
		},
	],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	rootCause: {
		slot: 'chunk_relevance',
		rank: { withoutGroundTruth: 1 },
		output: 10,
		fix: 'No retrieved chunk was relevant to the request: check the embedding model, chunking and metadata filters, and whether the corpus covers this question at all.',
		failsWhen: 'zero',
	},
	databricks: {
		column: 'retrieval/llm_judged/chunk_relevance/precision',
		// Seed 002's metric table.
		columnAliases: ['retrieval/llm_judged/chunk_relevance_precision'],
		runMetric: 'retrieval/llm_judged/chunk_relevance/precision/average',
	},
	prompt: {
		system: PER_CHUNK_SYSTEM,
		user: 'Request:\n{request}\n\nRetrieved chunk:\n{retrieved_context}',
	},
	output: yesNoOutput('chunk_relevance'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
	fanOut: chunkFanOut(() => chunkRelevance),
};
