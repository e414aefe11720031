/**
 * Multi-call judges: a declaration's `fanOut` splits one row into calls (per chunk, per named
 * guideline, per conversation turn, or one batched call), each run by the ordinary single-call
 * path (same governor, prompt hardening, output ladder and parsing), and folds their verdicts
 * into one Score with every call's verdict in `details.calls` and usage and attempts summed.
 * Any failed call makes the row an error naming the call: a partial verdict is never a score.
 * Bare calls (MiniCheck) are also run here, so `run.ts` only dispatches. This module imports the
 * single-call path and never the dispatcher, so no runner has to be passed in.
 */
import { InputError } from '../core/inputs';
import { errorScore, notApplicableScore, okScore, type ScoreBase } from '../core/score';
import type { Score } from '../core/types';
import { foldScoreCalls } from '../core/usage';
import { bareKey, bareRequest, cachedCall } from './cache';
import type { JudgeContext } from './context';
import { ModelCallError } from './errors';
import { callKey, type ChatRequest } from './model';
import { truncate } from './parse';
import { readJudgeRow } from './row';
import { judgeBase, judgeParams, judgeSingle } from './single';
import { spendStopDetails } from './spend';
import type { BareCall, CallOutcome, JudgeCall, JudgeDecl } from './types';

/** What a call contributes to `details.calls`. */
function callDetail(o: CallOutcome): Record<string, unknown> {
	const s = o.score;
	const d: Record<string, unknown> = { key: o.key, status: s.status, value: s.value };
	if (s.reason !== undefined) d.reason = s.reason;
	if (s.error !== undefined) d.error = s.error;
	if (s.details) {
		const rest = Object.fromEntries(
			Object.entries(s.details).filter(([k]) => k !== 'responseMode' && k !== 'cache'),
		);
		if (Object.keys(rest).length > 0) d.details = rest;
	}
	if (s.cached) d.cached = true;
	return d;
}

/** One bare call: only the user message, temperature 0, a short reply read as yes or no. */
export async function runBareCall(
	decl: JudgeDecl,
	bare: BareCall,
	ctx: JudgeContext,
	base: (model: string) => ScoreBase,
): Promise<Score> {
	const started = Date.now();
	let model = ctx.model ?? ctx.source.defaultModel;
	let attempts = 0;
	try {
		const request: ChatRequest = {
			messages: [{ role: 'user', content: bare.user }],
			...bareRequest(bare, ctx),
		};
		const governed = await ctx.governor.run(
			callKey(ctx.source, ctx.model),
			(signal) => ctx.source.chat({ ...request, signal }),
			{
				signal: ctx.signal,
				row: ctx.row,
				headersOf: (r) => r.headers,
				gate: ctx.spend?.gate(request, ctx.model ?? ctx.source.defaultModel),
			},
		);
		attempts = governed.attempts;
		const r = governed.value;
		model = r.model || model;
		const extras = {
			usage: r.usage ?? undefined,
			model,
			attempts,
			latencyMs: Date.now() - started,
		};
		const verdict = bare.parse(r.content);
		if (verdict === null) {
			return errorScore(
				base(model),
				`${decl.displayName}: the reply ${JSON.stringify(truncate(r.content, 80))} is neither yes nor no`,
				{ ...extras, details: { responseMode: 'bare', rawReply: truncate(r.content) } },
			);
		}
		return okScore(base(model), verdict, {
			...extras,
			reason: `The fact-checking model answered ${JSON.stringify(r.content.trim())}.`,
			details: { responseMode: 'bare' },
		});
	} catch (e) {
		const err =
			e instanceof ModelCallError
				? e
				: new ModelCallError('bad_request', String((e as Error)?.message ?? e));
		return errorScore(base(model), `${decl.displayName}: ${err.message}`, {
			model,
			attempts: attempts + (err.attempts ?? 0),
			latencyMs: Date.now() - started,
			details: { responseMode: 'bare', errorKind: err.kind, fatal: err.fatal },
		});
	}
}

async function runCall(
	decl: JudgeDecl,
	call: JudgeCall,
	ctx: JudgeContext,
	base: (model: string) => ScoreBase,
): Promise<CallOutcome> {
	if (call.skip !== undefined)
		return { key: call.key, score: notApplicableScore(base('none'), call.skip) };
	const bare = call.bare;
	if (bare) {
		const run = () => runBareCall(decl, bare, ctx, base);
		if (!ctx.cache) return { key: call.key, score: await run() };
		return {
			key: call.key,
			score: await cachedCall(ctx.cache, bareKey(decl, bare, ctx), base, run),
		};
	}
	// An edited prompt replaces the judge's own prompt; a call with another prompt (batched) keeps it.
	const callCtx =
		call.decl && call.decl.prompt !== decl.prompt ? { ...ctx, promptOverride: undefined } : ctx;
	return { key: call.key, score: await judgeSingle(call.decl ?? decl, call.values, callCtx) };
}

/**
 * Judges one row of a fan-out declaration. Never throws: unreadable inputs are the row's error,
 * missing ones not applicable, a failed call the row's error naming that call.
 *
 * A param in its `auto` value ({@link BareYesNoRule.autoSwitch}, Fact Check's Auto mode) runs as
 * declared until a call's reply is a bare yes/no where JSON was asked: from then on the node run
 * (`ctx.run`) uses the switched value, and that row is judged again with it, its first call's cost
 * counted. Rows judged with the switched value say so in their signature and `details.autoSwitch`.
 */
export async function runFanOut(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: JudgeContext,
): Promise<Score> {
	if (!decl.fanOut) return judgeSingle(decl, inputs, ctx);
	const params = judgeParams(decl, inputs, ctx);
	const rule = decl.bareYesNo?.autoSwitch;
	if (!rule || params[rule.param] !== rule.auto)
		return (await fanOutOnce(decl, inputs, ctx, params)).score;
	const switchedParams = { ...params, [rule.param]: rule.to };
	const run = ctx.run;
	// Until the model has answered once, one row at a time probes it; the others wait and then
	// follow what it showed.
	let probe: (() => void) | undefined;
	while (run && !run.switched.has(decl.id) && !run.structured.has(decl.id)) {
		const pending = run.probes.get(decl.id);
		if (!pending) {
			run.probes.set(decl.id, new Promise<void>((done) => (probe = done)));
			break;
		}
		await pending;
	}
	const learned = run?.switched.get(decl.id);
	if (learned) {
		const { score } = await fanOutOnce(decl, inputs, ctx, switchedParams);
		return autoSwitched(score, rule, { ...learned, thisRow: false });
	}
	let first: { score: Score; outcomes: CallOutcome[] };
	let record: { param: string; value: string; reason: string } | undefined;
	try {
		first = await fanOutOnce(decl, inputs, ctx, params);
		const bare = first.outcomes.find((o) => o.score.details?.bareYesNo !== undefined);
		if (bare) {
			const reply = String(bare.score.details?.rawReply ?? '').trim();
			const why = `the model answered ${JSON.stringify(reply)} where a JSON verdict was asked`;
			record = { param: rule.param, value: rule.to, reason: why };
			if (run && !run.switched.has(decl.id)) run.switched.set(decl.id, record);
		} else if (first.outcomes.some((o) => o.score.status === 'ok')) run?.structured.add(decl.id);
	} finally {
		// Recorded before the waiting rows wake: they see the switch (or the structured answer).
		if (probe) {
			run?.probes.delete(decl.id);
			probe();
		}
	}
	if (!record) return first.score;
	const again = await fanOutOnce(decl, inputs, ctx, switchedParams);
	// The standard call that showed the switch was needed was paid for: it counts on this row.
	const cost = foldScoreCalls([first.score, again.score]);
	const score: Score = {
		...again.score,
		...(cost.usage ? { usage: cost.usage } : {}),
		attempts: cost.attempts,
	};
	return autoSwitched(score, rule, { ...record, thisRow: true });
}

/** Marks a row judged with an auto param's switched value: signature and `details.autoSwitch`. */
function autoSwitched(
	score: Score,
	rule: { param: string; auto: string; to: string },
	switched: { reason: string; thisRow: boolean },
): Score {
	return {
		...score,
		signature: `${score.signature}|${rule.param}:${rule.auto}>${rule.to}`,
		details: {
			...(score.details ?? {}),
			autoSwitch: {
				[rule.param]: rule.to,
				reason: switched.reason,
				// Whether this row's own reply made the switch (and was judged twice), or an earlier row's.
				switchedHere: switched.thisRow,
			},
		},
	};
}

/** One pass over a fan-out row with the given params: its Score and the calls' outcomes. */
async function fanOutOnce(
	decl: JudgeDecl,
	inputs: Record<string, unknown>,
	ctx: JudgeContext,
	params: Record<string, unknown>,
): Promise<{ score: Score; outcomes: CallOutcome[] }> {
	const started = Date.now();
	const requested = ctx.model ?? ctx.source.defaultModel;
	const fan = decl.fanOut!;
	let base = (m: string): ScoreBase => judgeBase(decl, ctx, m);
	const none = (score: Score) => ({ score, outcomes: [] });
	const row = readJudgeRow(decl, inputs, base(requested));
	if ('score' in row) return none(row.score);
	const values = row.values;
	let split: ReturnType<typeof fan.split>;
	try {
		split = fan.split(values, params);
	} catch (e) {
		// A malformed part of an input (a guideline that is not text) is the row's error.
		if (e instanceof InputError) return none(errorScore(base(requested), e.message));
		throw e;
	}
	if (!Array.isArray(split)) return none(notApplicableScore(base(requested), split.notApplicable));
	// Calls made with another prompt (batched) or none of ours (bare) are part of the signature.
	const variants = [
		...new Set(
			split.flatMap((c) =>
				c.bare ? ['bare'] : c.decl && c.decl.prompt !== decl.prompt ? [c.decl.output.name] : [],
			),
		),
	];
	const signed = base;
	base = (m: string): ScoreBase => {
		const b = signed(m);
		return variants.length > 0
			? { ...b, signature: `${b.signature}|calls:${variants.join('+')}` }
			: b;
	};

	const outcomes = await Promise.all(split.map((c) => runCall(decl, c, ctx, base)));
	const cost = foldScoreCalls(outcomes.map((o) => o.score));
	const model = cost.model ?? requested;
	const calls = outcomes.map(callDetail);
	const extras = {
		usage: cost.usage,
		model,
		attempts: cost.attempts,
		latencyMs: Date.now() - started,
	};
	// The row's cache summary: hits, misses and what the cached calls saved.
	const cache = cost.cache;
	const withCache = cache ? { cache } : {};
	const failed = outcomes.find((o) => o.score.status === 'error');
	if (failed) {
		const why = (failed.score.error ?? 'failed').replace(`${decl.displayName}: `, '');
		const n = outcomes.filter((o) => o.score.status === 'error').length;
		const score = errorScore(
			base(model),
			`${decl.displayName}: ${failed.key}: ${why}${n > 1 ? ` (${n} of ${outcomes.length} calls failed)` : ''}`,
			{
				...extras,
				details: { calls, ...withCache, ...spendStopDetails(outcomes.map((o) => o.score)) },
			},
		);
		return { score, outcomes };
	}
	const folded = fan.fold(outcomes, values, params);
	if ('notApplicable' in folded) {
		const score = notApplicableScore(base(model), folded.notApplicable, {
			...extras,
			details: { calls, ...withCache },
		});
		return { score, outcomes };
	}
	const score = okScore(base(model), folded.value, {
		...extras,
		reason: folded.reason,
		details: { calls, ...(folded.details ?? {}), ...withCache },
	});
	if (cache?.hit && score.status === 'ok') score.cached = true;
	return { score, outcomes };
}
