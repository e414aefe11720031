/**
 * Human review on the real engine: Review Queue picks rows (every row leaves on one output with
 * its reason, never a row twice across runs), Review Labels builds the Form node's fields and
 * turns submissions (as n8n's Form node returns them) into label rows, Judge Agreement reads the
 * labels per judge version, Eval Report names the judge below the fitness rule, and corrections
 * are promoted to golden rows without duplicates.
 */
import {
	tryToParseJsonToFormFields,
	type IDataObject,
	type INodeExecutionData,
} from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { reviewAgreement } from '../../src/review';
import { createRng } from '../../src/stats/random';
import { chain, runWorkflow, singleNode } from '../support/engine';

const HOSTILE =
	'<script>alert(1)</script><img src=x onerror=alert(2)> {{ $env.N8N_ENCRYPTION_KEY }} $&';

const signedIn = (name: string) => ({
	id: `u-${name}`,
	email: `${name}@example.com`,
	firstName: name,
	lastName: 'Reviewer',
});

const verdict = (value: boolean, signature: string): Score => ({
	metric: 'groundedness',
	value,
	scale: { kind: 'binary', min: 0, max: 1 },
	direction: 'higher',
	pass: value,
	status: 'ok',
	reason: `grounded? ${value} ${HOSTILE}`,
	signature,
});
const rating = (value: number): Score => ({
	metric: 'relevance',
	value,
	scale: { kind: 'likert', min: 1, max: 5 },
	threshold: 3,
	direction: 'higher',
	pass: value >= 3,
	status: 'ok',
	reason: `relevance ${value}`,
	signature: 'judge:relevance@1',
});

function scoredRows(night: number, signature: string): INodeExecutionData[] {
	const r = createRng(100 + night);
	return Array.from({ length: 60 }, (_, i) => ({
		json: {
			request_id: `q${i}`,
			request: `Question ${i} ${HOSTILE}`,
			response: `Answer ${i} night ${night}`,
			retrieved_context: [{ doc_uri: `kb/${i}`, content: `Chunk ${i} ${'x'.repeat(i * 20)}` }],
			eval: {
				groundedness: verdict(r() < 0.7, signature),
				relevance: rating(1 + Math.floor(r() * 5)),
			},
		} as unknown as IDataObject,
	}));
}

const queueParams = (alreadyQueued: unknown[] = []) => ({
	maxRows: 25,
	passingShare: 0.3,
	seed: 5,
	alreadyQueued: JSON.stringify(alreadyQueued),
});

describe('Review Queue on the engine', () => {
	it('every row leaves once, with its reason; failing rows first; the next run queues none again', async () => {
		const first = await runWorkflow(singleNode('n8n-nodes-rag-eval.reviewQueue', queueParams()), {
			startItems: scoredRows(1, 'judge:groundedness@1'),
		});
		const queued = first.items('Node', 0);
		const not = first.items('Node', 1);
		expect(queued.length + not.length).toBe(60);
		expect(queued).toHaveLength(25);
		const seen = [...queued, ...not]
			.map((i) => (i.pairedItem as { item: number }).item)
			.sort((a, b) => a - b);
		expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i));
		for (const i of [...queued, ...not]) {
			const review = i.json.review as IDataObject;
			expect((review.reasons as string[]).length).toBeGreaterThan(0);
			expect(typeof review.note).toBe('string');
		}
		// Failures outrank the rest when the cap bites.
		const failingNotQueued = not.filter((i) =>
			(i.json.review as { reasons: string[] }).reasons.includes('fail'),
		);
		const sampledQueued = queued.filter(
			(i) => (i.json.review as { reasons: string[] }).reasons[0] === 'sample',
		);
		expect(failingNotQueued.length === 0 || sampledQueued.length === 0).toBe(true);

		// Night 2: the labels table holds night 1's queued rows; none is queued again.
		const table = queued.map((i) => ({
			request_id: (i.json.review as IDataObject).request_id,
			fingerprint: (i.json.review as IDataObject).fingerprint,
		}));
		const second = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.reviewQueue', queueParams(table)),
			{
				startItems: scoredRows(2, 'judge:groundedness@2'),
			},
		);
		const again = second.output('Node', 0).map((j) => (j.review as IDataObject).request_id);
		expect(again.length).toBeGreaterThan(0);
		for (const id of again) expect(table.map((t) => t.request_id)).not.toContain(id);
		expect(
			second
				.output('Node', 1)
				.filter((j) => (j.review as { reasons: string[] }).reasons[0] === 'already_queued'),
		).toHaveLength(25);
	});

	it('runs with Remember in Workflow Static Data on (n8n keeps static data for active workflows only)', async () => {
		const wf = singleNode('n8n-nodes-rag-eval.reviewQueue', { ...queueParams(), remember: true });
		const run = await runWorkflow(wf, { startItems: scoredRows(1, 's') });
		expect(run.output('Node', 0)).toHaveLength(25);
		// The harness gives each run fresh static data; the node wrote into this run's.
		expect(run.nodeError('Node')).toBeUndefined();
	});
});

describe('review form, labels, agreement, report and golden set on the engine', () => {
	it('runs the loop end to end', async () => {
		// 1. Queue night 1 and build each queued row's review page.
		const pages = await runWorkflow(
			chain(
				{
					name: 'Review Queue',
					type: 'reviewQueue',
					parameters: { ...queueParams(), maxRows: 40, passingShare: 1 },
				},
				{ name: 'Review Form', type: 'reviewLabels', parameters: { operation: 'form' } },
			),
			{ startItems: [...scoredRows(1, 'judge:groundedness@1')] },
		);
		const forms = pages.output('Review Form');
		expect(forms).toHaveLength(40);
		for (const f of forms) {
			const form = f.review_form as { fieldsJson: string; css: string };
			// n8n's own parser of the Form node's JSON fields accepts them.
			const fields = tryToParseJsonToFormFields(form.fieldsJson) as unknown as IDataObject[];
			expect(fields[0].fieldType).toBe('html');
			expect(String(fields[0].html)).not.toMatch(/<script|<img|\{\{|\$/);
			expect(String(fields[0].html)).toContain('&lt;script&gt;');
			expect(fields.map((x) => x.fieldName)).toEqual(
				expect.arrayContaining(['verdict__groundedness', 'verdict__relevance', 'review_row']),
			);
			// No name to type: the reviewer is the signed-in n8n user.
			expect(fields.map((x) => x.fieldName)).not.toContain('reviewer');
		}

		// 2. Reviewers answer, as the Form node returns a submission: values by fieldName.
		const r = createRng(9);
		const submissions: INodeExecutionData[] = forms.map((f, i) => {
			const fields = tryToParseJsonToFormFields(
				(f.review_form as { fieldsJson: string }).fieldsJson,
			) as unknown as IDataObject[];
			const hidden = Object.fromEntries(
				fields.filter((x) => x.fieldType === 'hiddenField').map((x) => [x.fieldName, x.fieldValue]),
			);
			const judge = ((f.eval as IDataObject).groundedness as Score).value as boolean;
			const agrees = r() < 0.85;
			return {
				json: {
					review_page: null,
					verdict__groundedness: agrees === judge ? 'yes' : 'no',
					verdict__relevance: String(1 + Math.floor(r() * 5)),
					context_correct: i % 3 === 0 ? 'yes' : null,
					corrected_answer: i % 4 === 0 ? `Corrected answer ${i}` : '',
					expected_facts: i % 5 === 0 ? `fact ${i}\nfact ${i}b` : '',
					...hidden,
					// What n8n's Form node adds after the fields under n8n User Auth.
					user: signedIn(i % 2 ? 'ana' : 'bo'),
					submittedAt: '2026-12-01T10:00:00.000+00:00',
					formMode: 'production',
				},
			};
		});
		const labelled = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.reviewLabels', { operation: 'label' }),
			{ startItems: submissions },
		);
		const labels = labelled.output('Node');
		expect(labels).toHaveLength(40);
		expect(labels[0]).toMatchObject({
			reviewer: 'bo@example.com',
			reviewer_id: 'u-bo',
			request_id: forms[0].request_id,
		});
		expect(JSON.parse(labels[0].judges as string).groundedness.signature).toBe(
			'judge:groundedness@1',
		);

		// 3. Agreement on the labels (plus older labels of another judge version).
		const old = labels.map((l, i) => ({
			...l,
			request_id: `old-${i}`,
			fingerprint: `old-${i}`,
			reviewed_at: '2026-11-01T10:00:00.000Z',
			judges: (l.judges as string).replace(/judge:groundedness@1/g, 'judge:groundedness@0'),
			// The old version agreed with nobody: its verdicts were the reviewers' opposite.
			labels: JSON.stringify({
				groundedness: JSON.parse(l.judges as string).groundedness.value ? 'no' : 'yes',
			}),
		}));
		const all = [...old, ...labels].map((json) => ({ json }));
		const agreementRun = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.judgeAgreement', { source: 'reviewLabels' }),
			{ startItems: all },
		);
		const agreement = agreementRun.output('Node')[0];
		const expected = reviewAgreement(all.map((i) => i.json));
		expect(agreement).toEqual(JSON.parse(JSON.stringify(expected)));
		const old0 = expected.judges.find((j) => j.signature === 'judge:groundedness@0')!;
		expect(old0.result.rates.accuracy).toBe(0);
		expect(old0.result.kappa.kappa!).toBeLessThan(0);
		expect(old0.result.fitness.verdict).toBe('not_fit');
		const v1 = expected.judges.find((j) => j.signature === 'judge:groundedness@1')!;
		expect(v1.result.n).toBe(40);

		// 4. The report names the judge below the fitness rule.
		const summary = { rows: 60, metrics: {} };
		const report = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalReport', { formats: ['slack', 'markdown'] }),
			{ startItems: [{ json: summary }, { json: agreement }] },
		);
		const out = report.output('Node')[0];
		const slack = JSON.stringify(out.slack);
		expect(slack).toContain('below the agreement rule');
		expect(slack).toContain('judge:groundedness@0');
		expect(String(out.markdown)).toContain('## Judge agreement with reviewers');

		// 5. Corrections become golden rows, once, and not the ones the dataset has.
		const promote = async (existing: unknown[]) =>
			(
				await runWorkflow(
					singleNode('n8n-nodes-rag-eval.reviewLabels', {
						operation: 'promote',
						output: 'objects',
						existing: JSON.stringify(existing),
					}),
					{ startItems: labels.map((json) => ({ json })) },
				)
			).output('Node');
		const golden = await promote([{ request_id: labels[0].request_id }]);
		const corrected = labels.filter((l) => l.corrected_answer || l.expected_facts);
		expect(golden).toHaveLength(corrected.length - 1);
		for (const g of golden) {
			expect(g.source).toBe('human_review');
			expect('expected_response' in g || 'expected_facts' in g).toBe(true);
			expect('expected_response' in g && 'expected_facts' in g).toBe(false);
		}
		expect(await promote([...golden, { request_id: labels[0].request_id }])).toHaveLength(0);
	});
});

describe('Record Label: the reviewer is the signed-in n8n user', () => {
	// Three submissions of one page as n8n's Form node returns them: signed in (with a forged
	// typed reviewer besides), not signed in, and a text field posing as the user.
	async function submissions(): Promise<IDataObject[]> {
		const run = await runWorkflow(
			singleNode('n8n-nodes-rag-eval.reviewLabels', {
				operation: 'form',
				row: '={{ $json }}',
				reviewer: 'ana@example.com',
			}),
			{ startItems: scoredRows(1, 'judge:groundedness@1').slice(0, 3) },
		);
		return run.output('Node').map((f, i) => {
			const fields = tryToParseJsonToFormFields(
				(f.review_form as { fieldsJson: string }).fieldsJson,
			) as unknown as IDataObject[];
			const hidden = Object.fromEntries(
				fields.filter((x) => x.fieldType === 'hiddenField').map((x) => [x.fieldName, x.fieldValue]),
			);
			return {
				verdict__groundedness: 'yes',
				verdict__relevance: '3',
				reviewer: 'mallory',
				...hidden,
				formMode: 'production',
				...(i === 0 ? { user: signedIn('ana') } : i === 2 ? { user: 'mallory@example.com' } : {}),
			};
		});
	}
	const label = (parameters: IDataObject, items: IDataObject[], onFail = false) => {
		const wf = singleNode('n8n-nodes-rag-eval.reviewLabels', { operation: 'label', ...parameters });
		if (onFail) wf.nodes.find((n) => n.name === 'Node')!.continueOnFail = true;
		return runWorkflow(wf, { startItems: items.map((json) => ({ json })) });
	};

	it('a signed-in submission is labelled with the user; a forged typed reviewer is ignored', async () => {
		const [ok] = await submissions();
		const run = await label({}, [ok]);
		expect(run.nodeError('Node')).toBeUndefined();
		expect(run.output('Node')).toEqual([
			expect.objectContaining({ reviewer: 'ana@example.com', reviewer_id: 'u-ana' }),
		]);
		expect(JSON.stringify(run.output('Node'))).not.toContain('mallory');
	});

	it('no signed-in user: the node fails naming the row and the field, and labels nothing', async () => {
		const subs = await submissions();
		for (const k of [1, 2]) {
			const run = await label({}, [subs[0], subs[k]]);
			expect(run.nodeError('Node')).toMatch(
				new RegExp(
					`^row 2 \\(request_id q${k}\\): user: the submission carries no signed-in n8n user`,
				),
			);
			expect(run.output('Node')).toEqual([]);
		}
	});

	it('Continue On Fail: every item leaves, the refused one with its error and no label', async () => {
		const subs = await submissions();
		const run = await label({}, subs, true);
		const out = run.output('Node');
		expect(out).toHaveLength(3);
		expect(run.items('Node').map((i) => (i.pairedItem as { item: number }).item)).toEqual([
			0, 1, 2,
		]);
		expect(out[0]).toMatchObject({ reviewer: 'ana@example.com', reviewer_id: 'u-ana' });
		expect(out[0].error).toBeUndefined();
		for (const [i, o] of [
			[1, out[1]],
			[2, out[2]],
		] as const) {
			expect(o.error).toMatch(new RegExp(`^row ${i + 1} \\(request_id q${i}\\): user: `));
			expect(o.labels).toBeUndefined();
		}
	});

	it('Accept Typed Reviewer Name (Basic Auth): the typed name, with no reviewer_id; a user still wins', async () => {
		const subs = await submissions();
		const run = await label({ acceptTypedReviewer: true }, subs.slice(0, 2));
		expect(run.nodeError('Node')).toBeUndefined();
		expect(run.output('Node')).toEqual([
			expect.objectContaining({ reviewer: 'ana@example.com', reviewer_id: 'u-ana' }),
			expect.objectContaining({ reviewer: 'mallory', reviewer_id: '' }),
		]);
	});
});
