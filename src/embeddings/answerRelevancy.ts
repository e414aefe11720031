/**
 * Answer Relevancy: how well the response answers the request, measured by asking which question
 * the response answers.
 *
 * Reference behaviour matched: Ragas `ResponseRelevancy` / `answer_relevancy`
 * (ragas/metrics/collections/answer_relevancy/metric.py, v0.4): the judge model writes, from the
 * response alone, `strictness` (default 3) questions it answers, each with a `noncommittal` flag
 * (the answer is evasive or vague: "I don't know", "it depends"); the request and the generated
 * questions are embedded and the score is the mean cosine of each question's vector to the
 * request's, times 0 when every question is flagged noncommittal (`int(not all_noncommittal)`).
 * Ours differs in one way: the N questions come from one call asking for N different questions,
 * not N sampled calls, so a temperature-0 judge still gives N distinct questions and the row's
 * verdict is cached as one call (decisions.md). When every question is noncommittal the score is
 * 0 without embedding them (the product is 0 whatever the cosines). A reply with no usable
 * question is the row's error, never a 0.
 */
import { z } from 'zod';
import { readRow } from '../core/inputs';
import {
	errorScore,
	NO_JUDGE_MODEL,
	notApplicableScore,
	okScore,
	scoreBase,
	signatureOf,
} from '../core/score';
import type { ParamDecl, Score } from '../core/types';
import { foldCacheInfos, sumUsage, type CacheInfo } from '../core/usage';
import { ModelCallError } from '../judges/errors';
import { judgeOutput } from '../judges/output';
import { reasonText, yesNo } from '../judges/parse';
import { promptHash } from '../judges/prompt';
import { effectivePrompt, judgeSingle } from '../judges/single';
import { requestInput, responseInput } from '../judges/specs/common';
import type { JudgeDecl } from '../judges/types';
import { embedTexts } from './embed';
import { cosine } from './similarity';
import type { EmbeddingMetricDecl } from './types';

/** Ragas' default `strictness`: questions generated per answer. */
export const DEFAULT_QUESTION_COUNT = 3;
const MAX_QUESTIONS = 10;

const questionCountParam: ParamDecl = {
	name: 'questionCount',
	displayName: 'Questions',
	type: 'number',
	default: DEFAULT_QUESTION_COUNT,
	description: `How many questions the judge writes from the response (Ragas' strictness, 3 by default; 1-${MAX_QUESTIONS})`,
};

/** The generated questions as the judge returns them. */
interface Generated {
	reason: string;
	questions: { question: string; noncommittal: 'yes' | 'no' }[];
}

const PROMPT = {
	system: [
		'You read an answer someone gave and work out which question it answers.',
		'Write {questionCount} different questions, each one a question this answer would be a direct reply to, as the person who asked it would have put it. Vary the wording; keep to what the answer actually says.',
		'For each question also say whether the answer is noncommittal: "yes" when it evades, hedges or gives no real answer ("I don\'t know", "I cannot say", "it depends" without saying on what), "no" when it commits to an answer, even a short or wrong one.',
		'Do not judge whether the answer is true.',
	].join('\n'),
	user: 'Answer:\n{response}',
};

const generators = new Map<number, JudgeDecl<Generated>>();

/**
 * The question writer for `n` questions: a judge declaration run on the judge runtime (output
 * ladder, governor, spend limit, verdict cache), never registered as a node of its own.
 */
export function questionGenerator(n: number): JudgeDecl<Generated> {
	let decl = generators.get(n);
	if (decl) return decl;
	const output = judgeOutput(
		'answer_relevancy_questions',
		z.object({
			reason: reasonText().describe('what the answer says, in a sentence'),
			questions: z
				.array(
					z.object({
						question: z.string().describe('a question the answer replies to'),
						noncommittal: yesNo(),
					}),
				)
				.describe(`the questions, ${n} in all`),
		}),
	);
	decl = {
		id: 'answer_relevancy',
		version: '1',
		displayName: 'Answer Relevancy',
		description: 'Writes the questions an answer replies to',
		reference: 'Ragas ResponseRelevancy question generation',
		inputs: [responseInput],
		params: [questionCountParam],
		scale: { kind: 'count', min: 0, max: MAX_QUESTIONS },
		threshold: { default: 0, direction: 'higher' },
		prompt: PROMPT,
		output,
		toValue: (p) => p.questions.length,
		toReason: (p) => p.reason,
		toDetails: (p) => ({
			questions: p.questions.map((q) => ({
				question: q.question,
				noncommittal: q.noncommittal === 'yes',
			})),
		}),
	};
	generators.set(n, decl);
	return decl;
}

function countOf(params: Record<string, unknown>): number {
	const n = Number(params.questionCount);
	return Number.isInteger(n) && n >= 1 && n <= MAX_QUESTIONS ? n : DEFAULT_QUESTION_COUNT;
}

/** `judge:answer_relevancy@1|model:<m>|temp:<t>|prompt:<hash>|embed:<model>|n:<N>`. */
function relevancySignature(
	decl: EmbeddingMetricDecl,
	model: string,
	params: Record<string, unknown>,
	judge: { model: string; temperature?: number; promptOverride?: { system?: string } } = {
		model: 'none',
	},
): string {
	const n = countOf(params);
	const prompt = promptHash(effectivePrompt(questionGenerator(n), judge.promptOverride));
	return signatureOf(
		'judge',
		decl,
		`model:${judge.model}`,
		`temp:${judge.temperature ?? 0}`,
		`prompt:${prompt}`,
		`embed:${model}`,
		`n:${n}`,
	);
}

interface Question {
	question: string;
	noncommittal: boolean;
}

function questionsOf(score: Score): Question[] {
	const list = score.details?.questions;
	if (!Array.isArray(list)) return [];
	return list.filter(
		(q): q is Question =>
			typeof q === 'object' &&
			q !== null &&
			typeof (q as Question).question === 'string' &&
			(q as Question).question.trim() !== '',
	);
}

/** Answer Relevancy, declared once: node, docs table and registry come from it. */
export const answerRelevancy: EmbeddingMetricDecl = {
	id: 'answer_relevancy',
	version: '1',
	displayName: 'Answer Relevancy',
	description:
		"Mean cosine of the request's embedding to those of questions the judge model writes from the response (Ragas' method); 0 when every question finds the answer noncommittal",
	reference:
		"Ragas ResponseRelevancy: N = 3 questions generated from the response, each with a noncommittal flag; score = mean cosine to the request, times 0 when all are noncommittal. Default threshold 0.7 (promptfoo's answer-relevance example)",
	anchorNames: ['ResponseRelevancy', 'AnswerRelevancy', 'answer_relevancy', 'answer-relevance'],
	inputs: [requestInput(true), responseInput],
	params: [questionCountParam],
	scale: { kind: 'unit', min: -1, max: 1 },
	threshold: { default: 0.7, direction: 'higher' },
	usesJudge: true,
	signature: (decl, model, params) => relevancySignature(decl, model, params),
	// The questions are written by the judge call, so an estimate counts each at the request's
	// length (they are meant to read like it): the request plus N of them.
	estimateTexts(values, params) {
		const read = readRow(answerRelevancy.inputs, values);
		if (!read.ok) return undefined;
		const request = read.values.request as string;
		const n = countOf(params);
		return {
			texts: [request, ...Array.from({ length: n }, () => request)],
			basis: `the request, and the ${n} questions counted at the request's length (the judge writes them)`,
		};
	},
	async score(values, ctx) {
		const params = ctx.params ?? {};
		const n = countOf(params);
		const judge = ctx.judge;
		const judgeModel = judge ? (judge.model ?? judge.source.defaultModel) : 'none';
		const sign = (embedModel: string, model: string = judgeModel) =>
			scoreBase(
				answerRelevancy,
				answerRelevancy.id,
				relevancySignature(answerRelevancy, embedModel, params, {
					model,
					temperature: judge?.temperature,
					promptOverride: judge?.promptOverride,
				}),
				ctx.threshold,
			);
		const base = sign(ctx.source.model);
		const read = readRow(answerRelevancy.inputs, values);
		if (!read.ok)
			return 'missing' in read
				? notApplicableScore(base, read.reason)
				: errorScore(base, read.error.message);
		if (!judge) return notApplicableScore(base, NO_JUDGE_MODEL);
		const request = read.values.request as string;
		const gen = await judgeSingle(
			questionGenerator(n),
			{ response: read.values.response },
			{ ...judge, params: { questionCount: n } },
		);
		const genCache = gen.details?.cache as CacheInfo | undefined;
		const model = gen.model ?? judgeModel;
		if (gen.status !== 'ok') {
			return errorScore(
				sign(ctx.source.model, model),
				`Answer Relevancy: ${gen.error ?? gen.reason}`,
				{
					usage: gen.usage,
					attempts: gen.attempts,
					model,
					latencyMs: gen.latencyMs,
					details: { ...(gen.details ?? {}), step: 'questions' },
				},
			);
		}
		const questions = questionsOf(gen).slice(0, n);
		const judged = {
			usage: gen.usage,
			attempts: gen.attempts ?? 0,
			model,
			latencyMs: gen.latencyMs ?? 0,
		};
		if (questions.length === 0)
			return errorScore(
				sign(ctx.source.model, model),
				'Answer Relevancy: the judge model wrote no question from the response',
				{ ...judged, details: { step: 'questions', asked: n } },
			);
		if (questions.every((q) => q.noncommittal)) {
			const score = okScore(sign(ctx.source.model, model), 0, {
				...judged,
				reason:
					`Every generated question finds the answer noncommittal, so the score is 0 (Ragas' rule): ${gen.reason ?? ''}`.trim(),
				details: {
					questions,
					allNoncommittal: true,
					asked: n,
					...(genCache ? { cache: genCache } : {}),
				},
			});
			if (genCache?.hit) score.cached = true;
			return score;
		}
		let embedded;
		try {
			embedded = await embedTexts([request, ...questions.map((q) => q.question)], ctx);
		} catch (e) {
			const err = e instanceof ModelCallError ? e : undefined;
			return errorScore(
				sign(ctx.source.model, model),
				`Answer Relevancy: the embedding call failed: ${(e as Error).message}`,
				{
					...judged,
					attempts: judged.attempts + (err?.cost?.attempts ?? 0),
					details: { step: 'embeddings', errorKind: err?.kind, questions },
				},
			);
		}
		const [requestVector, ...questionVectors] = embedded.vectors;
		const signed = sign(embedded.model, model);
		const extras = {
			usage: sumUsage(gen.usage, embedded.cost.usage),
			attempts: judged.attempts + (embedded.cost.attempts ?? 0),
			model,
			latencyMs: judged.latencyMs + (embedded.cost.latencyMs ?? 0),
		};
		const cosines: number[] = [];
		for (let i = 0; i < questionVectors.length; i++) {
			let c: number | undefined;
			try {
				c = cosine(questionVectors[i], requestVector);
			} catch (e) {
				return errorScore(signed, `Answer Relevancy: ${(e as Error).message}`, extras);
			}
			if (c === undefined)
				return errorScore(
					signed,
					`Answer Relevancy: the embedding of ${Math.hypot(...requestVector) === 0 ? 'the request' : `generated question ${i + 1}`} is all zeros, so it has no direction to compare`,
					extras,
				);
			cosines.push(c);
		}
		const value = cosines.reduce((a, b) => a + b, 0) / cosines.length;
		const cache = foldCacheInfos([genCache, embedded.cost.cache]);
		const score = okScore(signed, value, {
			...extras,
			reason: `The answer reads as a reply to: ${questions.map((q) => `"${q.question}"`).join('; ')}. Mean cosine to the request ${value.toFixed(3)}.`,
			details: {
				questions: questions.map((q, i) => ({ ...q, cosine: cosines[i] })),
				asked: n,
				judgeUsage: gen.usage,
				embedding: {
					model: embedded.model,
					usage: embedded.cost.usage,
					...(embedded.usageEstimated ? { usageEstimated: true } : {}),
				},
				...(cache ? { cache } : {}),
			},
		});
		if (cache?.hit) score.cached = true;
		return score;
	},
};
