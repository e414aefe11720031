/**
 * The Eval Set Generator as a library: documents -> chunks -> a seeded plan of question slots ->
 * one generator call per slot -> checks -> near-duplicate filter -> rows in the Databricks
 * evaluation-set schema (seed 002), every one marked `metadata.source: generated` with the
 * generator's signature. Every slot ends as a row or as an invalid entry saying why. Calls go
 * through the judges' runtime (runJudge: cache, governor, spend limit, structured output).
 */
import { createHash } from 'node:crypto';
import { okScore } from '../core/score';
import type { Score } from '../core/types';
import type { JudgeContext } from '../judges/context';
import { callKey } from '../judges/model';
import { promptHash } from '../judges/prompt';
import { runJudge } from '../judges/run';
import { groundednessVerdict } from '../judges/specs/groundedness';
import { isSpendStopped } from '../judges/spend';
import {
	chunkDocuments,
	chunkOptions,
	type Chunk,
	type ChunkOptions,
	type SourceDocument,
} from './chunk';
import { NearDuplicateFilter } from './dedupe';
import { kindCounts, Planner, type KindMix, type Slot } from './plan';
import {
	answerableFromPassages,
	answerableWithoutDocuments,
	GENERATORS,
	QUESTION_KINDS,
	type GeneratedQuestion,
	type QuestionKind,
} from './prompts';

export const GENERATOR_ID = 'eval_set_generator';
export const GENERATOR_VERSION = '1';
/** The key under `eval` of the check a kept row passed. */
export const CHECK_KEY = 'generation_check';
/** Expected responses of unanswerable rows start with this sentence. */
export const NO_ANSWER = 'The documents do not answer this question.';

/** Options of one generator run. */
export interface GeneratorOptions {
	/** Rows wanted. */
	rows: number;
	mix: KindMix;
	seed: number;
	chunk?: Partial<ChunkOptions>;
	language?: string;
	persona?: string;
	/** `facts` (default; Databricks recommends them) or `response`: which one rows carry. */
	expectedOutput?: 'facts' | 'response';
	/** Drop questions general knowledge answers without the documents (one more call per row). */
	requireDocuments?: boolean;
	/** Questions at least this similar (character trigram Jaccard, 0-1) to a kept one are dropped. */
	duplicateThreshold?: number;
	/** Extra planning rounds that replace dropped rows; default 1. */
	topUpRounds?: number;
	/** Questions already in the golden set: new ones too similar to them are dropped too. */
	existingQuestions?: ReadonlyArray<{ id: string; text: string }>;
	/** Slots generated at once (the governor enforces the real cap); default from the governor. */
	width?: number;
}

export const DEFAULT_DUPLICATE_THRESHOLD = 0.8;

/** A generated row, or a slot that produced none and why. */
export interface GeneratedRow {
	json: Record<string, unknown>;
	/** Input items of the documents the row was written from. */
	itemIndexes: number[];
}

export interface GeneratorInvalidRow {
	json: Record<string, unknown>;
	itemIndexes: number[];
}

export interface GeneratorResult {
	rows: GeneratedRow[];
	invalid: GeneratorInvalidRow[];
	chunks: number;
	slots: number;
	/** Rows kept by kind. */
	kept: Record<QuestionKind, number>;
	/** Rows asked for by kind. */
	wanted: Record<QuestionKind, number>;
	signature: string;
}

/** Hash of every prompt the generator may send, for the signature. */
export function generatorPromptHash(): string {
	const parts = [
		...QUESTION_KINDS.map((k) => promptHash(GENERATORS[k].prompt)),
		promptHash(answerableFromPassages.prompt),
		promptHash(answerableWithoutDocuments.prompt),
		promptHash(groundednessVerdict.prompt),
	];
	return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 12);
}

/** `generator:eval_set_generator@1|model:..|temp:..|prompt:..|seed:..|chunk:size/overlap`. */
export function generatorSignature(o: {
	model: string;
	temperature?: number;
	seed: number;
	chunk?: Partial<ChunkOptions>;
}): string {
	const c = chunkOptions(o.chunk);
	return [
		`generator:${GENERATOR_ID}@${GENERATOR_VERSION}`,
		`model:${o.model}`,
		`temp:${o.temperature ?? 0}`,
		`prompt:${generatorPromptHash()}`,
		`seed:${o.seed}`,
		`chunk:${c.size}/${c.overlap}`,
	].join('|');
}

/** Why a generated question cannot be a row (its shape), or null. */
export function questionProblem(
	q: GeneratedQuestion,
	kind: QuestionKind,
	given: ReadonlyArray<string>,
	expectedOutput: 'facts' | 'response',
): string | null {
	if (q.question.trim() === '') return 'the reply has an empty question';
	if (
		kind === 'conversational' &&
		(q.opening_question.trim() === '' || q.opening_answer.trim() === '')
	) {
		return 'a conversational question came without its opening question and answer';
	}
	if (kind === 'unanswerable') return null;
	const facts = q.expected_facts.filter((f) => f.trim() !== '');
	if (expectedOutput === 'facts' && facts.length === 0) return 'the reply lists no expected facts';
	if (expectedOutput === 'response' && q.expected_response.trim() === '')
		return 'the reply has no expected response';
	const cited = q.cited_sources.map((s) => s.trim()).filter(Boolean);
	if (cited.length === 0) return 'the reply cites no source chunk';
	const unknown = cited.filter((s) => !resolveCitation(s, given));
	if (unknown.length > 0) {
		return `the reply cites ${unknown.map((s) => JSON.stringify(s)).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not among the chunks it was given (${given.join(', ')})`;
	}
	if (kind === 'multi_chunk' && new Set(cited.map((s) => resolveCitation(s, given))).size < 2) {
		return 'a multi-chunk question cites only one chunk';
	}
	return null;
}

/** The chunk id a citation names: the id itself, or the `[docN]` label of the N-th passage. */
export function resolveCitation(cited: string, given: ReadonlyArray<string>): string | undefined {
	const s = cited
		.trim()
		.replace(/^\[|\]$/g, '')
		.replace(/^source:\s*/i, '');
	if (given.includes(s)) return s;
	const m = /^doc(\d+)$/i.exec(s);
	if (m && Number(m[1]) >= 1 && Number(m[1]) <= given.length) return given[Number(m[1]) - 1];
	return undefined;
}

function answerText(q: GeneratedQuestion, expectedOutput: 'facts' | 'response'): string {
	const facts = q.expected_facts.filter((f) => f.trim() !== '');
	return expectedOutput === 'facts' && facts.length
		? facts.map((f) => `- ${f}`).join('\n')
		: q.expected_response;
}

/** One slot's outcome before the duplicate filter. */
type SlotOutcome =
	| {
			ok: true;
			slot: Slot;
			q: GeneratedQuestion;
			cited: Chunk[];
			check: Score;
			scores: Record<string, Score>;
	  }
	| {
			ok: false;
			slot: Slot;
			stage: string;
			reason: string;
			q?: GeneratedQuestion;
			modelAnswered: boolean;
			spendStopped: boolean;
	  };

/** Runs the generator over documents. Never throws for a slot: failures are invalid rows. */
export async function generateEvalSet(
	docs: ReadonlyArray<SourceDocument>,
	options: GeneratorOptions,
	ctx: JudgeContext,
): Promise<GeneratorResult> {
	const chunks = chunkDocuments(docs, options.chunk);
	const byId = new Map(chunks.map((c) => [c.id, c]));
	const expectedOutput = options.expectedOutput ?? 'facts';
	const model = ctx.model ?? ctx.source.defaultModel;
	const signature = generatorSignature({
		model,
		temperature: ctx.temperature,
		seed: options.seed,
		chunk: options.chunk,
	});
	const wanted = kindCounts(options.rows, options.mix);
	const kept = Object.fromEntries(QUESTION_KINDS.map((k) => [k, 0])) as Record<
		QuestionKind,
		number
	>;
	const planner = new Planner(chunks, options.seed);
	const filter = new NearDuplicateFilter(options.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD);
	for (const e of options.existingQuestions ?? []) filter.seed(e.id, e.text);
	const rows: GeneratedRow[] = [];
	const invalid: GeneratorInvalidRow[] = [];
	const genCtx: JudgeContext = {
		...ctx,
		params: {
			...(options.language?.trim() ? { language: options.language.trim() } : {}),
			...(options.persona?.trim() ? { persona: options.persona.trim() } : {}),
		},
	};
	// Checks are verdicts: always at temperature 0, without the generator's params.
	const checkCtx: JudgeContext = { ...ctx, temperature: 0, params: {} };
	const itemsOf = (ids: ReadonlyArray<string>): number[] => [
		...new Set(
			ids.map((id) => byId.get(id)?.itemIndex).filter((i): i is number => i !== undefined),
		),
	];
	const metaBase = (slot: Slot) => ({
		kind: slot.kind,
		slot: slot.slot,
		round: slot.round,
		variant: slot.variant,
		chunk_ids: slot.chunkIds,
		seed: options.seed,
		language: options.language?.trim() || null,
		persona: options.persona?.trim() || null,
	});

	const runSlot = async (slot: Slot): Promise<SlotOutcome> => {
		const passages = slot.chunkIds.map((id) => ({ doc_uri: id, content: byId.get(id)!.content }));
		const fail = (
			stage: string,
			reason: string,
			extra: Partial<{ q: GeneratedQuestion; modelAnswered: boolean; spendStopped: boolean }> = {},
		): SlotOutcome => ({
			ok: false,
			slot,
			stage,
			reason,
			modelAnswered: true,
			spendStopped: false,
			...extra,
		});
		const gen = await runJudge(
			GENERATORS[slot.kind],
			{ passages },
			{ ...genCtx, params: { ...genCtx.params, variant: slot.variant } },
		);
		if (gen.status !== 'ok') {
			return fail('generate', gen.error ?? gen.reason ?? 'no question generated', {
				modelAnswered: false,
				spendStopped: isSpendStopped(gen),
			});
		}
		const q = (gen.details?.generated ?? undefined) as GeneratedQuestion | undefined;
		if (!q) return fail('generate', 'the reply carried no question');
		const problem = questionProblem(q, slot.kind, slot.chunkIds, expectedOutput);
		if (problem) return fail('validate', problem, { q });
		const scores: Record<string, Score> = { generate: gen };
		if (slot.kind === 'unanswerable') {
			const s = await runJudge(answerableFromPassages, { request: q.question, passages }, checkCtx);
			scores.answerable = s;
			if (s.status !== 'ok')
				return fail('check', `the unanswerable check failed: ${s.error ?? s.reason}`, {
					q,
					spendStopped: isSpendStopped(s),
				});
			if (s.value === true)
				return fail(
					'check',
					`marked unanswerable, but the chunks it was written from answer it: ${s.reason}`,
					{ q },
				);
			const check = okScore(
				{
					metric: 'generation_unanswerable',
					scale: { kind: 'binary', min: 0, max: 1 },
					threshold: 1,
					direction: 'higher',
					signature: s.signature,
				},
				true,
				{
					reason: `the chunks do not answer it: ${s.reason}`,
					usage: s.usage,
					model: s.model,
				},
			);
			return { ok: true, slot, q, cited: [], check, scores };
		}
		const ids = [
			...new Set(
				q.cited_sources
					.map((c) => resolveCitation(c, slot.chunkIds))
					.filter((c): c is string => !!c),
			),
		];
		const cited = ids.map((id) => byId.get(id)!);
		const context = cited.map((c) => ({ doc_uri: c.docUri, content: c.content }));
		const request =
			slot.kind === 'conversational' ? `${q.opening_question}\n${q.question}` : q.question;
		const response =
			slot.kind === 'conversational'
				? `${q.opening_answer}\n${answerText(q, expectedOutput)}`
				: answerText(q, expectedOutput);
		const g = await runJudge(
			groundednessVerdict,
			{ request, retrieved_context: context, response },
			checkCtx,
		);
		scores.groundedness = g;
		if (g.status !== 'ok')
			return fail('check', `the groundedness check failed: ${g.error ?? g.reason}`, {
				q,
				spendStopped: isSpendStopped(g),
			});
		if (g.value !== true)
			return fail(
				'check',
				`the expected ${expectedOutput === 'facts' ? 'facts are' : 'response is'} not supported by the cited chunks (${ids.join(', ')}): ${g.reason}`,
				{ q },
			);
		if (options.requireDocuments) {
			const cb = await runJudge(
				answerableWithoutDocuments,
				{ request, response: answerText(q, expectedOutput) },
				checkCtx,
			);
			scores.closed_book = cb;
			if (cb.status !== 'ok')
				return fail('check', `the needs-documents check failed: ${cb.error ?? cb.reason}`, {
					q,
					spendStopped: isSpendStopped(cb),
				});
			if (cb.value === true)
				return fail('check', `answerable without the documents: ${cb.reason}`, { q });
		}
		return { ok: true, slot, q, cited, check: g, scores };
	};

	const width = Math.max(
		1,
		options.width ?? ctx.governor.maxConcurrencyFor(callKey(ctx.source, ctx.model)) * 2,
	);
	let slotsRun = 0;
	let shortfall = { ...wanted };
	const rounds = 1 + Math.max(0, Math.floor(options.topUpRounds ?? 1));
	for (let r = 0; r < rounds; r++) {
		const slots = planner.plan(shortfall);
		if (slots.length === 0) break;
		slotsRun += slots.length;
		const outcomes = new Array<SlotOutcome>(slots.length);
		let next = 0;
		const worker = async (): Promise<void> => {
			while (next < slots.length) {
				const i = next++;
				outcomes[i] = await runSlot(slots[i]);
			}
		};
		await Promise.all(Array.from({ length: Math.min(width, slots.length) }, worker));
		let answered = false;
		let stopped = false;
		for (const o of outcomes) {
			answered ||= o.ok || o.modelAnswered;
			stopped ||= !o.ok && o.spendStopped;
			const base = metaBase(o.slot);
			if (!o.ok) {
				invalid.push({
					json: invalidJson(o.slot, o.stage, o.reason, o.q, signature, base),
					itemIndexes: itemsOf(o.slot.chunkIds),
				});
				continue;
			}
			const requestId = `gen-${createHash('sha256').update(`${signature}|${o.slot.slot}|${o.q.question}`).digest('hex').slice(0, 12)}`;
			const text =
				o.slot.kind === 'conversational' ? `${o.q.opening_question} ${o.q.question}` : o.q.question;
			const dup = filter.check(requestId, text);
			if (dup) {
				invalid.push({
					json: invalidJson(
						o.slot,
						'duplicate',
						`near-duplicate of ${dup.of} (similarity ${dup.similarity.toFixed(2)} >= ${filter.threshold})`,
						o.q,
						signature,
						base,
					),
					itemIndexes: itemsOf(o.slot.chunkIds),
				});
				continue;
			}
			kept[o.slot.kind]++;
			rows.push({
				json: rowJson(o, requestId, expectedOutput, signature, base),
				itemIndexes: itemsOf(o.slot.chunkIds),
			});
		}
		shortfall = Object.fromEntries(
			QUESTION_KINDS.map((k) => [k, Math.max(0, wanted[k] - kept[k])]),
		) as Record<QuestionKind, number>;
		// No top-up when nothing is missing, the model answered nothing, or the spend limit stopped it.
		if (!answered || stopped || QUESTION_KINDS.every((k) => shortfall[k] === 0)) break;
	}
	return { rows, invalid, chunks: chunks.length, slots: slotsRun, kept, wanted, signature };
}

function invalidJson(
	slot: Slot,
	stage: string,
	reason: string,
	q: GeneratedQuestion | undefined,
	signature: string,
	base: Record<string, unknown>,
): Record<string, unknown> {
	return {
		error: `slot ${slot.slot} (${slot.kind}, ${slot.chunkIds.join(' + ')}): ${reason}`,
		generation: { ...base, stage, reason, ...(q ? { draft: q } : {}) },
		metadata: { source: 'generated', generator: signature },
	};
}

function rowJson(
	o: Extract<SlotOutcome, { ok: true }>,
	requestId: string,
	expectedOutput: 'facts' | 'response',
	signature: string,
	base: Record<string, unknown>,
): Record<string, unknown> {
	const { q, slot } = o;
	const row: Record<string, unknown> = { request_id: requestId, request: q.question };
	if (slot.kind === 'conversational') {
		row.history = [
			{ role: 'user', content: q.opening_question },
			{ role: 'assistant', content: q.opening_answer },
		];
	}
	if (slot.kind === 'unanswerable') {
		const why = q.expected_response.trim();
		row.expected_response = why && why !== NO_ANSWER ? `${NO_ANSWER} ${why}` : NO_ANSWER;
	} else if (expectedOutput === 'facts')
		row.expected_facts = q.expected_facts.filter((f) => f.trim() !== '');
	else row.expected_response = q.expected_response.trim();
	row.expected_retrieved_context = o.cited.map((c) => ({ doc_uri: c.docUri, content: c.content }));
	row.eval = { [CHECK_KEY]: o.check };
	const checks: Record<string, unknown> = {};
	for (const [k, s] of Object.entries(o.scores)) {
		if (k === 'generate') continue;
		checks[k] = { value: s.value, reason: s.reason, cached: s.cached ?? false };
	}
	row.metadata = {
		source: 'generated',
		generator: signature,
		generation: {
			...base,
			cited_chunk_ids: o.cited.map((c) => c.id),
			answerable: slot.kind !== 'unanswerable',
			review_status: 'draft',
			checks,
		},
	};
	return row;
}

/** Passages a slot sends (for the estimate). */
export function slotPassages(
	slot: Slot,
	byId: ReadonlyMap<string, Chunk>,
): { doc_uri: string; content: string }[] {
	return slot.chunkIds.map((id) => ({ doc_uri: id, content: byId.get(id)!.content }));
}
