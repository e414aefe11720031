/**
 * Groundedness answered by a service instead of the LLM judge (issue 12 item 5): Azure AI Content
 * Safety groundedness detection (seed 000 names it as the service version of groundedness). The
 * service returns the share of the reply it finds ungrounded (0-1) and the ungrounded spans; the
 * Score keeps the judge's own 1-5 scale (5 = grounded, 1 = ungrounded) through OUR rule below.
 */
import { singleScoreEvaluator, type Evaluator } from '../core/evaluator';
import { errorScore, okScore, scoreBase, signatureOf, type ScoreBase } from '../core/score';
import type { Score } from '../core/types';
import { ModelCallError } from '../judges/errors';
import type { Governor } from '../judges/governor';
import { readJudgeRow } from '../judges/row';
import type { JudgeDecl } from '../judges/types';
import type { SafetyBackend } from './backend';

/** Version of the share -> 1-5 rule, carried in the Score signature. */
export const GROUNDEDNESS_MAP_VERSION = 'quartiles-v1';

/**
 * Our rule from the ungrounded share to the 1-5 groundedness scale: nothing ungrounded -> 5;
 * otherwise one point off per started quarter, `5 - ceil(share x 4)`: (0, 0.25] -> 4,
 * (0.25, 0.5] -> 3, (0.5, 0.75] -> 2, (0.75, 1] -> 1. A detection with a share of 0 is 4.
 * Throws on a share outside 0-1.
 */
export function groundednessFromUngroundedShare(share: number, detected: boolean): number {
	if (typeof share !== 'number' || !Number.isFinite(share) || share < 0 || share > 1)
		throw new RangeError(`ungrounded share must be a number 0-1, got ${String(share)}`);
	if (share === 0) return detected ? 4 : 5;
	return 5 - Math.max(1, Math.ceil(share * 4));
}

/** Everything a service-backed groundedness row needs. */
export interface ServiceGroundednessContext {
	backend: SafetyBackend;
	governor: Governor;
	threshold?: number;
	signal?: AbortSignal;
	/** The row's identity for the circuit breaker (see the governor's `run`). */
	row?: string;
}

/** `judge:groundedness@1|backend:azure_content_safety|service:<op version>|map:quartiles-v1`. */
export function serviceGroundednessSignature(
	decl: JudgeDecl,
	backend: SafetyBackend,
	service: string,
): string {
	return signatureOf(
		'judge',
		decl,
		`backend:${backend.id}`,
		`service:${service}`,
		`map:${GROUNDEDNESS_MAP_VERSION}`,
	);
}

function quote(span: string): string {
	const s = span.replace(/\s+/g, ' ').trim();
	return `"${s.length > 200 ? `${s.slice(0, 199)}…` : s}"`;
}

/**
 * Scores one row's groundedness through the backend. Never throws: missing inputs are
 * not_applicable (no call), a failed call is an error Score naming the service, never a 0.
 */
export async function runServiceGroundedness(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: ServiceGroundednessContext,
): Promise<Score> {
	const started = Date.now();
	const base = (service: string): ScoreBase =>
		scoreBase(
			decl,
			decl.id,
			serviceGroundednessSignature(decl, ctx.backend, service),
			ctx.threshold,
		);
	const pending = base('text:detectGroundedness');
	if (!ctx.backend.groundedness) {
		return errorScore(
			pending,
			`${decl.displayName}: backend ${ctx.backend.id} has no groundedness detection`,
		);
	}
	try {
		const row = readJudgeRow(decl, inputs, pending);
		if ('score' in row) return row.score;
		const values = row.values;
		const docs = (values.context as Array<{ content?: string }>).map((d) => d.content ?? '');
		const request = typeof values.request === 'string' ? values.request : undefined;
		const out = await ctx.backend.groundedness(
			{ response: values.response as string, request, documents: docs },
			{ governor: ctx.governor, signal: ctx.signal, clock: {}, row: ctx.row },
		);
		const value = groundednessFromUngroundedShare(out.ungroundedShare, out.ungrounded);
		const pct = Math.round(out.ungroundedShare * 1000) / 10;
		const who =
			out.info.backend === 'azure_content_safety' ? 'Azure AI Content Safety' : out.info.backend;
		const reason =
			value === 5
				? `${who} groundedness detection: no ungrounded content in the reply (score 5 by our rule: 5 - ceil(ungrounded share x 4))`
				: `${who} groundedness detection: ${pct}% of the reply is ungrounded (score ${value} by our rule: 5 - ceil(ungrounded share x 4)). Ungrounded: ${out.spans.length > 0 ? out.spans.map(quote).join('; ') : '(the service named no spans)'}`;
		return okScore(base(out.info.model ?? 'text:detectGroundedness'), value, {
			reason,
			model: out.info.model,
			latencyMs: Date.now() - started,
			attempts: out.info.attempts,
			details: {
				backend: out.info.backend,
				ungroundedDetected: out.ungrounded,
				ungroundedPercentage: out.ungroundedShare,
				ungroundedSpans: out.spans,
			},
		});
	} catch (e) {
		const err = e instanceof ModelCallError ? e : undefined;
		return errorScore(
			pending,
			`${decl.displayName}: ${e instanceof Error ? e.message : String(e)}`,
			{
				latencyMs: Date.now() - started,
				attempts: err?.attempts ?? 0,
				details: err
					? { backend: ctx.backend.id, errorKind: err.kind, fatal: err.fatal }
					: { backend: ctx.backend.id },
			},
		);
	}
}

/** Service-backed groundedness as an evaluator: its Score under the judge's id. */
export function serviceGroundednessEvaluator(
	decl: JudgeDecl,
): Evaluator<ServiceGroundednessContext> {
	return singleScoreEvaluator(decl, (values, ctx) => runServiceGroundedness(decl, values, ctx));
}
