/**
 * Conversations judged per turn (Azure's conversation format, seed 000): every assistant turn of
 * a conversation gets its own score, folded by the judge's turn rule (src/core/turns.ts: ratings
 * the mean; severities and yes/no the worst turn, so yes only when every turn is yes), and the per-turn scores are kept in `details.turns`.
 * The transcript is the row's `history` (earlier turns) plus its `request` and `response`. Only
 * the last turn has the row's retrieved context and ground truth, so a judge that reads context or
 * ground truth judges earlier turns only when they carry their own (`turn_contexts`, or the context
 * the record keeps on each assistant turn of `history`), and reports them not applicable otherwise
 * rather than rating them without documents.
 */
import { coerceInput, InputError, type ChatTurn, type ContextDoc } from '../core/inputs';
import { conversationTurns, foldTurns, turnRuleOf } from '../core/turns';
import { errorScore, notApplicableScore, okScore, scoreBase } from '../core/score';
import type { Score, TurnRule } from '../core/types';
import { foldScoreCalls } from '../core/usage';
import { judgeSignature, runJudge, type JudgeContext } from './run';
import { spendStopDetails } from './spend';
import type { JudgeDecl } from './types';

const TURN_ONLY = new Set(['retrieved_context', 'expected_response', 'expected_facts']);

/**
 * The context each earlier exchange cited, in the order of {@link conversationTurns}: the
 * `context` the record keeps on an assistant turn, or undefined where it has none (or a bad one).
 */
export function historyContexts(raw: unknown): (ContextDoc[] | undefined)[] {
	if (!Array.isArray(raw)) return [];
	const out: (ContextDoc[] | undefined)[] = [];
	let afterUser = false;
	raw.forEach((m, i) => {
		if (m === null || typeof m !== 'object') return;
		const { role, context } = m as { role?: unknown; context?: unknown };
		if (role === 'user') afterUser = true;
		else if (role === 'assistant' && afterUser) {
			afterUser = false;
			let docs: ContextDoc[] | undefined;
			if (Array.isArray(context) && context.length > 0) {
				try {
					docs = coerceInput(
						{ kind: 'contexts', field: `history[${i}].context` },
						context,
					) as ContextDoc[];
				} catch (e) {
					if (!(e instanceof InputError)) throw e;
				}
			}
			out.push(docs);
		}
	});
	return out;
}

/** A judge call's context with the run's turn rule, when it overrides the declaration's. */
export interface TurnContext extends JudgeContext {
	/**
	 * How this run folds the turns: the node's choice (Every Assistant Turn (Worst) on a 1-5 judge,
	 * so a 5 and a 2 fail as 2 instead of passing as 3.5); the declaration's rule when absent.
	 */
	turnRule?: TurnRule;
}

/**
 * Judges every assistant turn of the row's conversation and folds the turn scores into one by the
 * run's or the declaration's turn rule, named in the signature (`turns:every:worst`).
 * A row without earlier assistant turns is judged once, as `runJudge` would. Never throws.
 */
export async function runEveryTurn(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: TurnContext,
): Promise<Score> {
	const model = ctx.model ?? ctx.source.defaultModel;
	const rule = ctx.turnRule ?? turnRuleOf(decl);
	const base = (m: string) =>
		scoreBase(
			decl,
			decl.id,
			`${judgeSignature(decl, { model: m, temperature: ctx.temperature, promptOverride: ctx.promptOverride, scoreFrom: ctx.scoreFrom })}|turns:every:${rule}`,
			ctx.threshold,
		);
	const rawHistory = inputs.history;
	let history: ChatTurn[] = [];
	try {
		if (rawHistory !== undefined && rawHistory !== null && rawHistory !== '')
			history = coerceInput({ kind: 'messages', field: 'history' }, rawHistory) as ChatTurn[];
	} catch (e) {
		if (e instanceof InputError) return errorScore(base(model), e.message);
		throw e;
	}
	const earlier = conversationTurns(history);
	if (earlier.length === 0) return runJudge(decl, inputs, ctx);
	const request = inputs.request;
	const response = inputs.response;
	if (typeof request !== 'string' || typeof response !== 'string')
		return runJudge(decl, inputs, ctx);
	// A turn's own documents: `turn_contexts`, else the context the record keeps on each earlier
	// assistant turn (Azure's per-turn citations, `history[i].context`).
	const perTurnContexts = Array.isArray(inputs.turn_contexts)
		? (inputs.turn_contexts as unknown[])
		: historyContexts(rawHistory);
	const reads = new Set(decl.inputs.map((i) => i.field));
	const turns = [...earlier, { request, response, history }];
	const started = Date.now();
	const scores = await Promise.all(
		turns.map((t, k): Promise<Score> => {
			const last = k === turns.length - 1;
			if (last) return runJudge(decl, { ...inputs, request, response, history }, ctx);
			const own = perTurnContexts[k] as ContextDoc[] | undefined;
			const missing = [...TURN_ONLY].filter(
				(f) => reads.has(f) && !(f === 'retrieved_context' && own !== undefined),
			);
			if (missing.length > 0) {
				return Promise.resolve(
					notApplicableScore(
						base(model),
						`turn ${k + 1}: only the last turn has ${missing.join(', ')}`,
					),
				);
			}
			const row: Record<string, unknown> = { request: t.request, response: t.response };
			row.history = t.history;
			if (own !== undefined) row.retrieved_context = own;
			for (const p of decl.params) if (inputs[p.name] !== undefined) row[p.name] = inputs[p.name];
			return runJudge(decl, row, ctx);
		}),
	);
	const folded = foldScoreCalls(scores);
	const answered = folded.model ?? model;
	const details = {
		turnRule: rule,
		turns: scores.map((s, k) => ({
			turn: k + 1,
			status: s.status,
			value: s.value,
			...(s.reason !== undefined ? { reason: s.reason } : {}),
			...(s.error !== undefined ? { error: s.error } : {}),
		})),
	};
	// The row's cache summary over its turns (hits, misses, what the cached turns saved).
	const cache = folded.cache;
	const extras = {
		usage: folded.usage,
		attempts: folded.attempts,
		model: answered,
		latencyMs: Date.now() - started,
		details: cache ? { ...details, cache } : details,
	};
	const failed = scores.findIndex((s) => s.status === 'error');
	if (failed >= 0)
		return errorScore(base(answered), `turn ${failed + 1}: ${scores[failed].error ?? ''}`, {
			...extras,
			details: { ...details, ...spendStopDetails(scores) },
		});
	const ok = scores.filter((s) => s.status === 'ok');
	if (ok.length === 0)
		return notApplicableScore(
			base(answered),
			scores[scores.length - 1].reason ?? 'no turn judged',
			extras,
		);
	const values = ok.map((s) => s.value as number | boolean);
	const { value, turn } = foldTurns(values, rule, decl.threshold.direction);
	const by =
		rule === 'mean'
			? 'the mean'
			: `the ${rule} turn, turn ${scores.indexOf(ok[turn ?? ok.length - 1]) + 1}`;
	const reason = `${ok.length} of ${turns.length} turns judged: ${ok
		.map((s) => `turn ${scores.indexOf(s) + 1} ${String(s.value)}`)
		.join(
			', ',
		)}; the row takes ${by}. Last turn: ${scores[scores.length - 1].reason ?? 'not judged'}`;
	const score = okScore(base(answered), value, { ...extras, reason });
	if (cache?.hit && score.status === 'ok') score.cached = true;
	return score;
}

export { conversationTurns, type ConversationTurn } from '../core/turns';
