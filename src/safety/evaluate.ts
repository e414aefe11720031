/**
 * Running a safety backend on one row and building its Scores. Inputs are read like every
 * evaluator's (missing -> not applicable, malformed -> the row's error naming the field, never
 * sent to a backend). A conversation is judged on every assistant turn (the transcript is
 * `history` plus the row's request and response, the reply not counted twice when `history`
 * already ends with it) and each category takes its worst turn. A backend failure makes the
 * affected category's Score an error; the other categories keep their verdicts.
 */
import { readRow as readInputRow, type ChatTurn, type ContextDoc } from '../core/inputs';
import {
	errorScore,
	notApplicableScore,
	okScore,
	scoreBase,
	signatureOf,
	type ScoreBase,
} from '../core/score';
import type { EvaluatorFacts, Score } from '../core/types';
import { foldCalls, type CacheInfo, type CallCost, type FoldedCalls } from '../core/usage';
import { foldTurns, rowExchanges, turnRuleOf } from '../core/turns';

export { rowExchanges } from '../core/turns';
import type {
	BackendCallInfo,
	HarmVerdict,
	SafetyBackend,
	SafetyBackendId,
	SafetyCallOptions,
} from './backend';
import {
	DEFAULT_DEFECT_LEVEL,
	HARM_CATEGORIES,
	HARM_NAMES,
	isSeverity,
	levelName,
	levelOf,
	passThresholdFor,
	type HarmCategory,
	type SeverityLevel,
} from './levels';
import { harmDecls, indirectAttackDecl, protectedMaterialDecl } from './specs';

/** How one row is evaluated: the backend, the call options and (harms) the categories and level. */
export interface SafetyRunOptions extends SafetyCallOptions {
	backend: SafetyBackend;
	/** Harm categories to rate; all four by default. */
	categories?: ReadonlyArray<HarmCategory>;
	/** Lowest level that is a defect; medium by default (seed 000). */
	defectLevel?: SeverityLevel;
	/** Conversations: every assistant turn (default) or only the row's own reply. */
	turns?: 'every' | 'last';
	/** Indirect attack only: a backend whose `detectAttack` reports attacks present (never success). */
	detector?: SafetyBackend;
}

/**
 * A backend that adds its own reproducibility parts to the Score signature (the LLM backend: its
 * temperature and prompt hash), beside the seam's required members.
 */
export interface SignedBackend extends SafetyBackend {
	/** Signature parts (`|temp:0|prompt:<hash>`) for an evaluation and, for harms, its categories. */
	signatureParts?(evaluator: string, categories?: ReadonlyArray<HarmCategory>): string;
}

function partsOf(
	backend: SafetyBackend,
	evaluator: string,
	categories?: ReadonlyArray<HarmCategory>,
): string {
	return (backend as SignedBackend).signatureParts?.(evaluator, categories) ?? '';
}

/** The Score signature of a safety evaluation: evaluator, backend and the model that answered. */
export function safetySignature(
	decl: Pick<EvaluatorFacts, 'id' | 'version'>,
	backend: SafetyBackendId,
	model?: string,
	extra = '',
): string {
	// `extra` comes with its own leading `|` (`|temp:0|prompt:<hash>|defect:medium`).
	return signatureOf('safety', decl, `backend:${backend}`, `model:${model ?? '-'}${extra}`);
}

/** Reads the row's inputs for a declaration; a Score for every key when it cannot be judged. */
function readRow(
	decl: EvaluatorFacts,
	inputs: Record<string, unknown>,
): { values: Record<string, unknown> } | { missing: string } | { error: string } {
	const read = readInputRow(decl.inputs, inputs);
	if (read.ok) return { values: read.values };
	return 'missing' in read ? { missing: read.reason } : { error: read.error.message };
}

function describe(e: unknown): string {
	return e instanceof Error ? e.message : String(e);
}

function sumInfo(infos: ReadonlyArray<CallCost | undefined>): FoldedCalls {
	// The row's cost and cache summary over its calls (turns): hits, misses and what hits saved.
	return foldCalls(infos);
}

/** Writes the row's cache summary into its Score; `cached` when every call was a hit. */
function withCache(score: Score, cache: CacheInfo | undefined): Score {
	if (!cache) return score;
	score.details = { ...(score.details ?? {}), cache };
	if (cache.hit && score.status === 'ok') score.cached = true;
	return score;
}

/**
 * The start every single-Score evaluator shares: its Score base (signed by the backend and, once
 * known, the model) and the row's values, or the Score that ends the row first (inputs missing:
 * not applicable; malformed: an error).
 */
function beginRow(
	decl: EvaluatorFacts,
	backend: SafetyBackend,
	inputs: Record<string, unknown>,
	details: Record<string, unknown>,
): { base: (model?: string) => ScoreBase } & (
	| { values: Record<string, unknown> }
	| { score: Score }
) {
	const base = (model?: string) =>
		scoreBase(decl, decl.id, safetySignature(decl, backend.id, model, partsOf(backend, decl.id)));
	const read = readRow(decl, inputs);
	if ('missing' in read)
		return { base, score: notApplicableScore(base(), read.missing, { details }) };
	if ('error' in read) return { base, score: errorScore(base(), read.error, { details }) };
	return { base, values: read.values };
}

/**
 * What a failed backend call cost before it gave up: the error's `cost` when the backend knows it
 * (the LLM backend: tokens and model of the calls made), else its attempts. A failed row's usage
 * and model are counted like a passing row's, so the run's spend is never undercounted.
 */
function costOf(e: unknown): CallCost {
	const err = e as { attempts?: unknown; cost?: CallCost } | null;
	if (err?.cost) return err.cost;
	return { attempts: typeof err?.attempts === 'number' ? err.attempts : 0 };
}

type TurnOutcome<T> =
	| { ok: true; value: T; info: BackendCallInfo }
	| { ok: false; error: string; cost: CallCost };

async function settle<T extends { info: BackendCallInfo }>(
	p: () => Promise<T>,
): Promise<TurnOutcome<T>> {
	try {
		const value = await p();
		return { ok: true, value, info: value.info };
	} catch (e) {
		return { ok: false, error: describe(e), cost: costOf(e) };
	}
}

/** The calls of a row, answered or failed, folded. */
function spent<T>(outcomes: ReadonlyArray<TurnOutcome<T>>): FoldedCalls {
	return sumInfo(outcomes.map((o) => (o.ok ? o.info : o.cost)));
}

function turnLabel(k: number, n: number): string {
	return n > 1 ? `turn ${k + 1}: ` : '';
}

/** The exchanges a row's harms or protected material are judged on: the last, or every turn. */
function exchangesToJudge(
	v: Record<string, unknown>,
	turns: 'last' | 'every' | undefined,
): { request?: string; response: string }[] {
	const request = v.request as string | undefined;
	const response = v.response as string;
	return turns === 'last'
		? [{ request, response }]
		: rowExchanges(v.history as ChatTurn[] | undefined, request, response);
}

/** What every backend call of a row shares: the governor, the cancel signal and the row clock. */
function callOptions(
	opts: Pick<SafetyCallOptions, 'governor' | 'signal' | 'clock' | 'row'>,
): SafetyCallOptions {
	return { governor: opts.governor, signal: opts.signal, clock: opts.clock, row: opts.row };
}

/**
 * Rates the harm categories of one row: one Score per requested category, keyed by category id.
 * Never throws: bad input, a missing backend capability and backend failures are error Scores.
 */
export async function evaluateHarms(
	inputs: Record<string, unknown>,
	opts: SafetyRunOptions,
): Promise<Record<string, Score>> {
	const categories = HARM_CATEGORIES.filter((c) =>
		(opts.categories ?? HARM_CATEGORIES).includes(c),
	);
	const level = opts.defectLevel ?? DEFAULT_DEFECT_LEVEL;
	const threshold = passThresholdFor(level);
	const backend = opts.backend;
	const base = (c: HarmCategory, model?: string): ScoreBase =>
		scoreBase(
			harmDecls[c],
			c,
			safetySignature(
				harmDecls[c],
				backend.id,
				model,
				`${partsOf(backend, 'harms', categories)}|defect:${level}`,
			),
			threshold,
		);
	const all = (make: (c: HarmCategory) => Score): Record<string, Score> =>
		Object.fromEntries(categories.map((c) => [c, make(c)]));
	const shared = { backend: backend.id, defectLevel: level, category: '' };
	const read = readRow(harmDecls.violence, inputs);
	if ('missing' in read)
		return all((c) =>
			notApplicableScore(base(c), read.missing, { details: { ...shared, category: c } }),
		);
	if ('error' in read)
		return all((c) => errorScore(base(c), read.error, { details: { ...shared, category: c } }));
	if (!backend.harms)
		return all((c) =>
			errorScore(base(c), `the ${backend.id} backend cannot rate harm categories`, {
				details: { ...shared, category: c },
			}),
		);
	const harms = backend.harms.bind(backend);
	const v = read.values;
	const exchanges = exchangesToJudge(v, opts.turns);
	const callOpts = callOptions(opts);
	const outcomes = await Promise.all(
		exchanges.map((x) =>
			settle(() => harms({ response: x.response, request: x.request, categories }, callOpts)),
		),
	);
	const info = spent(outcomes);
	const attempts = info.attempts;
	const n = exchanges.length;
	const out: Record<string, Score> = {};
	// One call (per turn) rates every category: each Score tells its cost, and names the call it
	// shares, so the aggregate counts that cost once per row (under `content_safety`).
	const sharedCall =
		categories.length > 1 ? { key: 'content_safety', with: [...categories] } : undefined;
	for (const c of categories) {
		const extras = { usage: info.usage, model: info.model, latencyMs: info.latencyMs, attempts };
		const perTurn: { turn: number; severity: number; reason: string }[] = [];
		let problem: string | undefined;
		outcomes.forEach((o, k) => {
			if (problem !== undefined) return;
			if (!o.ok) {
				problem = `${turnLabel(k, n)}${HARM_NAMES[c]}: ${o.error}`;
				return;
			}
			const verdict = (o.value.verdicts as Partial<Record<HarmCategory, HarmVerdict>>)[c];
			if (!verdict || !isSeverity(verdict.severity)) {
				problem = `${turnLabel(k, n)}${HARM_NAMES[c]}: the ${backend.id} backend gave no severity 0-7 (got ${JSON.stringify(verdict?.severity) ?? 'nothing'})`;
				return;
			}
			perTurn.push({ turn: k + 1, severity: verdict.severity, reason: verdict.reason });
		});
		const b = base(c, info.model);
		const call = sharedCall ? { sharedCall } : {};
		if (problem !== undefined) {
			out[c] = withCache(
				errorScore(b, problem, { ...extras, details: { ...shared, category: c, ...call } }),
				info.cache,
			);
			continue;
		}
		// The worst turn; the earliest of equally bad ones.
		const decl = harmDecls[c];
		const fold = foldTurns(
			perTurn.map((t) => t.severity),
			turnRuleOf(decl),
			decl.threshold.direction,
		);
		const worst = perTurn[fold.turn ?? perTurn.length - 1];
		const lv = levelOf(worst.severity);
		const details: Record<string, unknown> = {
			...shared,
			category: c,
			level: lv,
			levelName: levelName(lv),
			defectLevel: level,
			defect: worst.severity > threshold,
			...call,
		};
		if (n > 1) {
			details.turns = perTurn.map((t) => ({ turn: t.turn, severity: t.severity }));
			details.worstTurn = worst.turn;
		}
		const reason =
			n > 1 ? `Worst of ${n} turns is turn ${worst.turn}: ${worst.reason}` : worst.reason;
		out[c] = withCache(okScore(b, worst.severity, { ...extras, reason, details }), info.cache);
	}
	return out;
}

/**
 * Protected material on one row: true when any judged reply reproduces protected text. Never
 * throws; a backend failure is the row's error.
 */
export async function evaluateProtectedMaterial(
	inputs: Record<string, unknown>,
	opts: SafetyRunOptions,
): Promise<Score> {
	const backend = opts.backend;
	const details = { backend: backend.id };
	const row = beginRow(protectedMaterialDecl, backend, inputs, details);
	if ('score' in row) return row.score;
	const base = row.base;
	if (!backend.protectedMaterial)
		return errorScore(base(), `the ${backend.id} backend cannot check protected material`, {
			details,
		});
	const check = backend.protectedMaterial.bind(backend);
	const v = row.values;
	const exchanges = exchangesToJudge(v, opts.turns);
	const callOpts = callOptions(opts);
	const outcomes = await Promise.all(
		exchanges.map((x) =>
			settle(() => check({ response: x.response, request: x.request }, callOpts)),
		),
	);
	const info = spent(outcomes);
	const attempts = info.attempts;
	const extras = { usage: info.usage, model: info.model, latencyMs: info.latencyMs, attempts };
	const n = exchanges.length;
	const failed = outcomes.findIndex((o) => !o.ok);
	if (failed >= 0) {
		const o = outcomes[failed] as { ok: false; error: string };
		return withCache(
			errorScore(base(info.model), `${turnLabel(failed, n)}${o.error}`, { ...extras, details }),
			info.cache,
		);
	}
	const ok = outcomes as Array<
		Extract<TurnOutcome<{ detected: boolean; reason: string; info: BackendCallInfo }>, { ok: true }>
	>;
	const decl = protectedMaterialDecl;
	const fold = foldTurns(
		ok.map((o) => o.value.detected),
		turnRuleOf(decl),
		decl.threshold.direction,
	);
	const detected = fold.value === true;
	const shown = detected ? (fold.turn ?? n - 1) : n - 1;
	const reason = `${turnLabel(shown, n)}${ok[shown].value.reason}`;
	const d: Record<string, unknown> = { ...details };
	if (n > 1) d.turns = ok.map((o, k) => ({ turn: k + 1, detected: o.value.detected }));
	return withCache(
		okScore(base(info.model), detected, { ...extras, reason, details: d }),
		info.cache,
	);
}

/**
 * Indirect attack (XPIA) on one row: whether the reply followed an attack planted in its
 * documents, with the category when it did. An attack detector, when given, adds
 * `details.attack_detected` (an attack is present), which is never read as success. Only the
 * row's own reply is judged; its documents are optional (seed 000 lists the evaluator for query +
 * response rows and conversations too), and the earlier turns go to the judge as the conversation
 * it is given, where a planted instruction may sit when there are no documents.
 */
export async function evaluateIndirectAttack(
	inputs: Record<string, unknown>,
	opts: SafetyRunOptions,
): Promise<Score> {
	const backend = opts.backend;
	const details: Record<string, unknown> = { backend: backend.id };
	const row = beginRow(indirectAttackDecl, backend, inputs, details);
	if ('score' in row) return row.score;
	const base = row.base;
	if (!backend.indirectAttack)
		return errorScore(
			base(),
			`the ${backend.id} backend cannot judge whether an indirect attack succeeded`,
			{
				details,
			},
		);
	const judge = backend.indirectAttack.bind(backend);
	const v = row.values;
	const docs = ((v.context as ContextDoc[] | undefined) ?? []).map((d) => d.content ?? '');
	const history = v.history as ChatTurn[] | undefined;
	const request = v.request as string | undefined;
	const response = v.response as string;
	const callOpts = callOptions(opts);
	const detector = opts.detector;
	const [verdict, detected] = await Promise.all([
		settle(() => judge({ request, response, documents: docs, history }, callOpts)),
		detector?.detectAttack
			? settle(() =>
					detector.detectAttack!({ userPrompt: request ?? '', documents: docs }, callOpts),
				)
			: Promise.resolve(undefined),
	]);
	if (detected !== undefined) {
		details.detector = detector!.id;
		// The detector's calls are its own (another service): kept out of the verdict's model,
		// usage and attempts, so cost per model stays right.
		details.detectorAttempts = detected.ok ? detected.info.attempts : (detected.cost.attempts ?? 0);
		if (detected.ok) {
			details.attack_detected = detected.value.documentAttacks.some(Boolean);
			details.document_attacks = detected.value.documentAttacks;
			details.user_prompt_attack = detected.value.userPromptAttack;
			if (detected.info.model) details.detectorModel = detected.info.model;
		} else details.attackDetectionError = detected.error;
	} else if (detector)
		details.attackDetectionError = `the ${detector.id} backend cannot detect attacks`;
	const info = spent([verdict]);
	const attempts = info.attempts;
	const model = info.model;
	const extras = { usage: info.usage, model, latencyMs: info.latencyMs, attempts };
	if (!verdict.ok) return errorScore(base(model), verdict.error, { ...extras, details });
	details.category = verdict.value.succeeded ? verdict.value.category : null;
	return withCache(
		okScore(base(model), verdict.value.succeeded, {
			...extras,
			reason: verdict.value.reason,
			details,
		}),
		info.cache,
	);
}
