/**
 * Spring AI's Evaluator contract (seed 003) over any declared judge:
 * `evaluate(judge, { userText, dataList, responseContent }, ctx)` resolves to
 * `{ pass, score, feedback, metadata }`, the fields of Spring AI's EvaluationResponse.
 *
 * The request maps onto our record: `userText` is the request, `dataList` the retrieved context
 * (strings, or documents carrying `text`, `content`, `page_content` or LangChain's `pageContent`),
 * `responseContent` the response; any other field a judge reads (an expected response,
 * guidelines) comes in `fields` under its record name. A judge that could not give a verdict
 * never resolves with a made-up score: an errored or not-applicable row rejects with an
 * {@link EvaluationError} that carries the Score and says why.
 */
import type { Score } from '../core/types';
import type { JudgeContext } from './context';
import { getJudge } from './registry';
import { runJudge } from './run';
import type { JudgeDecl } from './types';

/** Spring AI's EvaluationRequest, in our field names' camel case. */
export interface EvaluationRequest {
	/** The user's question (the record's `request`). */
	userText?: string;
	/** The data the answer was built from (the record's `retrieved_context`). */
	dataList?: ReadonlyArray<unknown>;
	/** The model's answer (the record's `response`). */
	responseContent?: string;
	/** Any other record field the judge reads, by record name (`expected_response`...). */
	fields?: Record<string, unknown>;
}

/** Spring AI's EvaluationResponse: the verdict, the score on the judge's scale, its rationale. */
export interface EvaluationResponse {
	pass: boolean;
	/** On the judge's own scale: 1 or 0 for a yes/no judge, 1-5 for a rating. */
	score: number;
	/** The judge's rationale. */
	feedback: string;
	/** The judge id, scale, threshold, model, usage, signature and details, and the whole Score. */
	metadata: EvaluationMetadata;
}

export interface EvaluationMetadata {
	judge: string;
	scale: Score['scale'];
	threshold?: number;
	direction?: Score['direction'];
	model?: string;
	usage?: Score['usage'];
	cached?: boolean;
	signature: string;
	details?: Record<string, unknown>;
	/** The Score as a node would have written it under `eval`. */
	result: Score;
}

/** A judge that gave no verdict: `score` is its error or not-applicable Score. */
export class EvaluationError extends Error {
	readonly score: Score;
	constructor(score: Score) {
		const why =
			score.status === 'error'
				? (score.error ?? 'the judge failed')
				: `not applicable: ${score.reason ?? 'the judge could not judge this request'}`;
		super(`${score.metric}: ${why}`);
		this.name = 'EvaluationError';
		this.score = score;
	}
}

/** The record a request stands for; dataList documents in LangChain JS shape are read too. */
export function evaluationRecord(request: EvaluationRequest): Record<string, unknown> {
	const record: Record<string, unknown> = { ...(request.fields ?? {}) };
	if (request.userText !== undefined) record.request = request.userText;
	if (request.responseContent !== undefined) record.response = request.responseContent;
	if (request.dataList !== undefined) {
		record.retrieved_context = request.dataList.map((d) => {
			if (d && typeof d === 'object' && !Array.isArray(d)) {
				const o = d as Record<string, unknown>;
				if (o.pageContent !== undefined && o.content === undefined && o.text === undefined) {
					const { pageContent, ...rest } = o;
					return { ...rest, content: pageContent };
				}
			}
			return d;
		});
	}
	return record;
}

/**
 * Judges one request with a declared judge (the declaration, or its id in the registry), in the
 * way of Spring AI's `Evaluator.evaluate`. The threshold is `ctx.threshold`, else the judge's
 * default; a yes/no judge passes by its verdict.
 */
export async function evaluate(
	judge: JudgeDecl | string,
	request: EvaluationRequest,
	ctx: JudgeContext,
): Promise<EvaluationResponse> {
	const decl = typeof judge === 'string' ? getJudge(judge) : judge;
	if (!decl) throw new Error(`evaluate: no judge with id "${String(judge)}"`);
	const binary = decl.scale.kind === 'binary';
	const threshold = binary ? undefined : (ctx.threshold ?? decl.threshold.default);
	const score = await runJudge(decl, evaluationRecord(request), { ...ctx, threshold });
	if (score.status !== 'ok' || score.value === null || score.pass === null)
		throw new EvaluationError(score);
	const value = typeof score.value === 'boolean' ? (score.value ? 1 : 0) : score.value;
	const metadata: EvaluationMetadata = {
		judge: decl.id,
		scale: score.scale,
		signature: score.signature,
		result: score,
	};
	if (score.threshold !== undefined) metadata.threshold = score.threshold;
	if (score.direction !== undefined) metadata.direction = score.direction;
	if (score.model !== undefined) metadata.model = score.model;
	if (score.usage !== undefined) metadata.usage = score.usage;
	if (score.cached !== undefined) metadata.cached = score.cached;
	if (score.details !== undefined) metadata.details = score.details;
	return { pass: score.pass, score: value, feedback: score.reason ?? '', metadata };
}
