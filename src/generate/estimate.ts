/**
 * The generator's cost estimate, made before any call: the seeded plan of the first round is
 * rendered through the real call path against a recording source (src/judges/estimate.ts), one
 * generator call per slot, and each slot's checks are rendered with its chunks and a placeholder
 * question and answer of typical length (the real ones do not exist yet). Counted with the
 * model's tokenizer and priced like the judges' Estimate Only mode. Re-asks of unusable replies
 * and top-up rounds after dropped rows are not in it.
 */
import type { Score } from '../core/types';
import type { PriceTable } from '../cost';
import type { JudgeContext } from '../judges/context';
import { estimateRow, recordingSource, runEstimate, type RunEstimate } from '../judges/estimate';
import type { ModelSource } from '../judges/model';
import { runJudge } from '../judges/run';
import { groundednessVerdict } from '../judges/specs/groundedness';
import { chunkDocuments, type SourceDocument } from './chunk';
import type { GeneratorOptions } from './generate';
import { kindCounts, Planner } from './plan';
import {
	answerableFromPassages,
	answerableWithoutDocuments,
	GENERATORS,
	QUESTION_KINDS,
	type QuestionKind,
} from './prompts';

// Stand-ins for text that does not exist before generation: about a typical question's and
// three short facts' length, so check calls are counted near their real size.
const PLACEHOLDER_QUESTION =
	'What does the policy say about the waiting period before the request can be approved?';
const PLACEHOLDER_ANSWER =
	'- The request is approved after a waiting period of fourteen days.\n- The applicant must attach the signed form.\n- Approval is confirmed by email to the account owner.';

/** The estimate of a generator run. */
export interface GeneratorEstimate extends RunEstimate {
	/** Calls by purpose. */
	byPurpose: { generate: number; groundedness: number; unanswerable: number; closedBook: number };
	/** Questions planned by kind. */
	planned: Record<QuestionKind, number>;
	chunks: number;
	note: string;
}

/** Calls, tokens and USD a generator run would make, without calling anything. */
export async function estimateGenerator(
	docs: ReadonlyArray<SourceDocument>,
	options: GeneratorOptions,
	ctx: Pick<JudgeContext, 'governor' | 'model' | 'temperature' | 'seed' | 'maxTokens'> & {
		source: Pick<ModelSource, 'key' | 'defaultModel'>;
	},
	prices: Readonly<PriceTable>,
	replyTokens?: number,
): Promise<GeneratorEstimate> {
	const model = ctx.model ?? ctx.source.defaultModel;
	const chunks = chunkDocuments(docs, options.chunk);
	const byId = new Map(chunks.map((c) => [c.id, c]));
	const planned = kindCounts(options.rows, options.mix);
	const slots = new Planner(chunks, options.seed).plan(planned);
	const rec = recordingSource(ctx.source);
	const base: JudgeContext = {
		source: rec.source,
		governor: ctx.governor,
		model: ctx.model,
		temperature: ctx.temperature,
		seed: ctx.seed,
		maxTokens: ctx.maxTokens,
	};
	const check: JudgeContext = { ...base, temperature: 0 };
	const byPurpose = { generate: 0, groundedness: 0, unanswerable: 0, closedBook: 0 };
	const scores: Score[] = [];
	const params = {
		...(options.language?.trim() ? { language: options.language.trim() } : {}),
		...(options.persona?.trim() ? { persona: options.persona.trim() } : {}),
	};
	for (const slot of slots) {
		const passages = slot.chunkIds.map((id) => ({ doc_uri: id, content: byId.get(id)!.content }));
		scores.push(
			await runJudge(
				GENERATORS[slot.kind],
				{ passages },
				{ ...base, params: { ...params, variant: slot.variant } },
			),
		);
		byPurpose.generate++;
		if (slot.kind === 'unanswerable') {
			scores.push(
				await runJudge(answerableFromPassages, { request: PLACEHOLDER_QUESTION, passages }, check),
			);
			byPurpose.unanswerable++;
			continue;
		}
		// The first chunk stands for the cited ones (a multi-chunk question cites both).
		const context = slot.chunkIds.map((id) => ({
			doc_uri: byId.get(id)!.docUri,
			content: byId.get(id)!.content,
		}));
		scores.push(
			await runJudge(
				groundednessVerdict,
				{ request: PLACEHOLDER_QUESTION, retrieved_context: context, response: PLACEHOLDER_ANSWER },
				check,
			),
		);
		byPurpose.groundedness++;
		if (options.requireDocuments) {
			scores.push(
				await runJudge(
					answerableWithoutDocuments,
					{ request: PLACEHOLDER_QUESTION, response: PLACEHOLDER_ANSWER },
					check,
				),
			);
			byPurpose.closedBook++;
		}
	}
	const row = await estimateRow(rec.requests, scores[0] ?? ({ status: 'ok' } as Score), {
		model,
		prices,
		replyTokens,
	});
	const run = runEstimate([row], model);
	return {
		...run,
		rows: options.rows,
		byPurpose,
		planned: Object.fromEntries(QUESTION_KINDS.map((k) => [k, planned[k]])) as Record<
			QuestionKind,
			number
		>,
		chunks: chunks.length,
		note: 'One generator call per planned question plus its checks, assuming every reply is usable and every row passes; re-asks of unusable replies and top-up rounds after dropped rows add calls. Check prompts are counted with placeholder questions and answers.',
	};
}
