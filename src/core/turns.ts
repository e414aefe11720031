/**
 * The one turn walker: a conversation's exchanges (every assistant turn that answers a user turn)
 * and the rule by which an evaluator folds its per-turn values into the row's value. Judges and
 * the safety evaluators walk turns with these functions; each evaluator's rule is explicit
 * (`turnRule` in its declaration) or follows from its scale.
 */
import type { ChatTurn } from './inputs';
import type { Direction, EvaluatorFacts, TurnRule } from './types';

/** One exchange of a conversation: a user turn, the assistant's reply and what came before. */
export interface ConversationTurn {
	request: string;
	response: string;
	history: ChatTurn[];
}

/**
 * The exchanges of a transcript, in order: every assistant turn that follows a user turn, with
 * the turns before that user turn as its history. System turns stay in the history.
 */
export function conversationTurns(transcript: ReadonlyArray<ChatTurn>): ConversationTurn[] {
	const out: ConversationTurn[] = [];
	let lastUser = -1;
	transcript.forEach((m, i) => {
		if (m.role === 'user') lastUser = i;
		else if (m.role === 'assistant' && lastUser >= 0) {
			out.push({
				request: transcript[lastUser].content,
				response: m.content,
				history: transcript.slice(0, lastUser),
			});
			lastUser = -1;
		}
	});
	return out;
}

/** One exchange to judge: the reply and, when known, the question it answers. */
export interface Exchange {
	request?: string;
	response: string;
}

/**
 * The exchanges of a row: every earlier assistant turn of `history`, then the row's own request
 * and response. When `history` already ends with that reply (some exports keep the whole
 * transcript there), the reply is judged once.
 */
export function rowExchanges(
	history: ReadonlyArray<ChatTurn> | undefined,
	request: string | undefined,
	response: string,
): Exchange[] {
	const earlier: Exchange[] = conversationTurns(history ?? []).map((t) => ({
		request: t.request,
		response: t.response,
	}));
	const last = earlier[earlier.length - 1];
	const lastTurn = history?.[history.length - 1];
	if (
		last !== undefined &&
		lastTurn?.role === 'assistant' &&
		last.response === response &&
		(request === undefined || last.request === request)
	)
		earlier.pop();
	return [...earlier, { request, response }];
}

/**
 * How an evaluator folds its turns when its declaration does not say: yes/no verdicts and
 * severities take the worst turn (one failing turn fails the conversation), ratings the mean.
 */
export function turnRuleOf(facts: Pick<EvaluatorFacts, 'scale' | 'turnRule'>): TurnRule {
	if (facts.turnRule) return facts.turnRule;
	return facts.scale.kind === 'binary' || facts.scale.kind === 'severity' ? 'worst' : 'mean';
}

/** Whether value `a` is worse than `b` for an evaluator whose better values lie in `direction`. */
function worse(a: number | boolean, b: number | boolean, direction: Direction): boolean {
	const x = Number(a);
	const y = Number(b);
	return direction === 'higher' ? x < y : x > y;
}

/**
 * The row's value from its turns' values (in turn order, at least one): `mean`, `last`, or
 * `worst` (the earliest of equally bad turns). `turn` is the index of the deciding turn, except
 * for the mean.
 */
export function foldTurns(
	values: ReadonlyArray<number | boolean>,
	rule: TurnRule,
	direction: Direction,
): { value: number | boolean; turn?: number } {
	if (values.length === 0) throw new RangeError('no turn to fold');
	if (rule === 'last') return { value: values[values.length - 1], turn: values.length - 1 };
	if (rule === 'mean') {
		const nums = values.map(Number);
		return { value: nums.reduce((a, b) => a + b, 0) / nums.length };
	}
	let turn = 0;
	values.forEach((v, k) => {
		if (worse(v, values[turn], direction)) turn = k;
	});
	return { value: values[turn], turn };
}
