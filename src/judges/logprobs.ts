/**
 * Probability-weighted scores for rating judges (G-Eval, Liu et al. 2023: the score is the sum of
 * each possible score times its probability; DeepEval does the same from the score token's top
 * log-probabilities). The sampled score's token is found in the reply's log-probabilities, its
 * alternatives that are valid scores on the judge's scale are renormalised to sum to 1, and their
 * weighted mean is the row's value, with the standard deviation as the spread. When the reply
 * carries no log-probabilities, or the score token cannot be found, the sampled score stays and
 * the Score says why.
 */
import type { Scale } from '../core/types';
import type { TokenLogprob } from './model';

/** How many alternatives per token are asked for (OpenAI allows up to 20). */
export const TOP_LOGPROBS = 10;

/** The scales whose scores are a few integers, where weighting by probability means something. */
export function weightable(scale: Pick<Scale, 'kind' | 'min' | 'max'>): boolean {
	return (
		(scale.kind === 'likert' || scale.kind === 'severity') &&
		Number.isInteger(scale.min) &&
		Number.isInteger(scale.max) &&
		scale.max - scale.min <= 10
	);
}

/** What `details.weighting` says about a probability-weighted score (or why there is none). */
export type Weighting =
	| {
			method: 'logprobs';
			/** The score the model wrote. */
			sampled: number;
			/** Renormalised probability of each valid score seen among the alternatives. */
			probabilities: Record<string, number>;
			/** Probability the alternatives gave valid scores before renormalising (0-1). */
			mass: number;
			/** Standard deviation of the score under those probabilities. */
			spread: number;
	  }
	| { method: 'sampled'; sampled: number; note: string };

const INTEGER = /^\d+$/;

function scoreOf(token: string, scale: Pick<Scale, 'min' | 'max'>): number | undefined {
	const t = token.trim().replace(/^"|"$/g, '');
	if (!INTEGER.test(t)) return undefined;
	const v = Number(t);
	return v >= scale.min && v <= scale.max ? v : undefined;
}

/**
 * The reply token that wrote the sampled score: the last token whose text is the score and whose
 * preceding text ends a JSON key (`:`) or an opening tag (`>`), optionally with a quote. The
 * judges write the reason first and the score last, so the last such token is the score's.
 */
function scoreToken(tokens: ReadonlyArray<TokenLogprob>, sampled: number): number {
	let before = '';
	let found = -1;
	tokens.forEach((t, i) => {
		if (t.token.trim().replace(/^"|"$/g, '') === String(sampled)) {
			const lead = (before + t.token.slice(0, t.token.indexOf(String(sampled)))).replace(
				/[\s"]+$/,
				'',
			);
			if (lead.endsWith(':') || lead.endsWith('>')) found = i;
		}
		before += t.token;
	});
	return found;
}

/**
 * The probability-weighted score of a reply whose sampled score is `sampled`, or the sampled
 * score with a note when the reply's log-probabilities cannot give one.
 */
export function weightedScore(
	tokens: ReadonlyArray<TokenLogprob> | null | undefined,
	sampled: number,
	scale: Pick<Scale, 'min' | 'max'>,
): { value: number; weighting: Weighting } {
	const keep = (note: string) => ({
		value: sampled,
		weighting: { method: 'sampled' as const, sampled, note },
	});
	if (!tokens || tokens.length === 0)
		return keep('the model returned no log-probabilities; the sampled score is kept');
	const at = scoreToken(tokens, sampled);
	if (at < 0)
		return keep(
			"the score token was not found in the reply's log-probabilities; the sampled score is kept",
		);
	const token = tokens[at];
	const raw = new Map<number, number>();
	const add = (text: string, logprob: number) => {
		const v = scoreOf(text, scale);
		if (v === undefined || !Number.isFinite(logprob)) return;
		// " 4" and "4" are one score: their probabilities add up.
		raw.set(v, (raw.get(v) ?? 0) + Math.exp(logprob));
	};
	const alternatives =
		token.top.length > 0 ? token.top : [{ token: token.token, logprob: token.logprob }];
	for (const a of alternatives) add(a.token, a.logprob);
	// The sampled token itself is a valid score even when the alternatives list leaves it out.
	if (!raw.has(sampled)) add(token.token, token.logprob);
	const mass = [...raw.values()].reduce((a, b) => a + b, 0);
	if (!(mass > 0))
		return keep("no valid score among the score token's alternatives; the sampled score is kept");
	const probabilities: Record<string, number> = {};
	let mean = 0;
	for (const [v, p] of [...raw.entries()].sort((a, b) => a[0] - b[0])) {
		probabilities[String(v)] = p / mass;
		mean += (v * p) / mass;
	}
	let variance = 0;
	for (const [v, p] of raw) variance += (p / mass) * (v - mean) ** 2;
	return {
		value: mean,
		weighting: {
			method: 'logprobs',
			sampled,
			probabilities,
			mass: Math.min(1, mass),
			spread: Math.sqrt(variance),
		},
	};
}
