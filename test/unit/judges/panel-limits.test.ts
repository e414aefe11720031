/**
 * A panel's limits at library level: the spend limit reserves and charges each call at the model
 * it was gated for (a juror's), and panelFatal tells a rejected juror once, failing the run only
 * when the jurors left are below the quorum.
 */
import type { ChatRequest, ChatResult } from '../../../src/judges/model';
import { panelFatal } from '../../../src/judges/panel';
import { SpendLimit, SpendLimitError } from '../../../src/judges/spend';

// Output tokens only are priced, so a reservation is Max Tokens x the output price, whatever the
// prompt: 1000 tokens reserve $0.2 at the cheap model and $1 at the dear one.
const prices = {
	'cheap-model': { input: 0, output: 200 },
	'dear-model': { input: 0, output: 1000 },
};
const request: ChatRequest = {
	messages: [{ role: 'user', content: 'Is the answer relevant?' }],
	mode: 'text',
	temperature: 0,
	maxTokens: 1000,
};
const reply = (model: string): ChatResult =>
	({
		content: '{"verdict":"yes"}',
		model,
		usage: { promptTokens: 500, completionTokens: 500, totalTokens: 1000 },
	}) as unknown as ChatResult;

describe("SpendLimit prices each call at its juror's model", () => {
	const limit = (amount: number) =>
		SpendLimit.create({
			unit: 'usd',
			amount,
			model: 'cheap-model',
			models: ['cheap-model', 'dear-model'],
			prices,
		});

	it("admits the cheap juror's call and refuses the dear juror's that the node's price would admit", async () => {
		const spend = await limit(1);
		const cheap = spend.gate(request, 'cheap-model');
		expect(cheap.admit()).toBeUndefined();
		// 500 completion tokens at $200 per 1M: $0.1.
		cheap.settle(reply('cheap-model'));
		expect(spend.spent().usd).toBeCloseTo(0.1, 12);
		// $0.1 spent + the dear call's $1 passes $1; at the node's (cheap) price it would be $0.2.
		const refused = spend.gate(request, 'dear-model').admit();
		expect(refused?.kind).toBe('spend_limit');
		expect(refused?.message).toBe(
			'spend limit reached: $0.10 of $1.00 spent in this execution, and the next call (about $1.00) would pass it (option Spend Limit); not called',
		);
		expect(spend.spent().calls).toBe(1);
	});

	it("charges a reply whose model has no price at the gated juror's price, not the node's", async () => {
		const spend = await limit(2);
		const dear = spend.gate(request, 'dear-model');
		expect(dear.admit()).toBeUndefined();
		// 500 completion tokens at the dear $1000 per 1M: $0.5 (the node's cheap price: $0.1).
		dear.settle(reply('some-snapshot-without-a-price'));
		expect(spend.spent().usd).toBeCloseTo(0.5, 12);
	});

	it("fails before any call when a juror's model has no price, naming it", async () => {
		await expect(
			SpendLimit.create({
				unit: 'usd',
				amount: 1,
				model: 'cheap-model',
				models: ['cheap-model', 'other-model'],
				prices,
			}),
		).rejects.toThrow(
			new SpendLimitError(
				'spend limit in USD: no price for the judge model "other-model", so its spend cannot be counted. Add the model to Model Prices or set the limit in tokens.',
			),
		);
	});
});

describe('panelFatal', () => {
	const jurors = [{ label: 'juror a' }, { label: 'juror b' }, { label: 'juror c' }];
	const only =
		(errors: Record<number, string>) =>
		(i: number): string | undefined =>
			errors[i];

	it('says nothing when no juror was rejected', () => {
		expect(panelFatal(jurors, 2, only({}))).toBeUndefined();
	});

	it('one rejected juror of three with quorum 2: a notice, no failure', () => {
		const v = panelFatal(jurors, 2, only({ 0: 'authentication failed (401)' }))!;
		expect(v.failure).toBeUndefined();
		expect(v.left).toBe(2);
		expect(v.notice).toBe(
			'panel: 1 of 3 jurors was rejected and judged no further rows; the other 2 judged with the quorum of 2: juror a: authentication failed (401)',
		);
	});

	it('one rejected juror with the default quorum (every juror): the run fails, naming it', () => {
		const v = panelFatal(jurors, undefined, only({ 2: 'not found (404)' }))!;
		expect(v.notice).toBeUndefined();
		expect(v.failure).toBe(
			'panel: 1 of 3 jurors was rejected, leaving 2, below the quorum of 3: juror c: not found (404)',
		);
	});

	it('two rejected jurors with quorum 2: one juror left, the run fails naming both', () => {
		const v = panelFatal(jurors, 2, only({ 0: 'e1', 1: 'e2' }))!;
		expect(v.rejected.map((r) => r.label)).toEqual(['juror a', 'juror b']);
		expect(v.failure).toBe(
			'panel: 2 of 3 jurors were rejected, leaving 1, below the quorum of 2: juror a: e1; juror b: e2',
		);
	});
});
