/**
 * Routing nodes on the real engine: the Root-Cause Router's outputs (a cause per judge, Custom
 * Judge, Incomplete), the Eval Dataset's de-duplication, seeded sampling and limit with every row
 * accounted for, and a metric node's `notScoredRoute` options.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { Score } from '../../src/core/types';
import { routerOutputNames, suggestedFixFor } from '../../src/rootcause';
import { runWorkflow, singleNode } from '../support/engine';

const likert = (metric: string, value: number, reason = `${metric} says ${value}`): Score => ({
	metric,
	value,
	scale: { kind: 'likert', min: 1, max: 5 },
	threshold: 3,
	direction: 'higher',
	pass: value >= 3,
	status: 'ok',
	reason,
	signature: `judge:${metric}@1`,
});
const errored = (metric: string, error: string): Score => ({
	metric,
	value: null,
	scale: { kind: 'likert', min: 1, max: 5 },
	pass: null,
	status: 'error',
	error,
	signature: `judge:${metric}@1`,
});
const verdict = (metric: string, value: boolean): Score => ({
	metric,
	value,
	scale: { kind: 'binary', min: 0, max: 1 },
	pass: value,
	status: 'ok',
	reason: `${metric} is ${value ? 'yes' : 'no'}`,
	signature: `judge:${metric}@1`,
});

describe('Root-Cause Router on the real engine', () => {
	// Fixed outputs: Pass, Incomplete, Custom Judge, then one per declared slot by position.
	const NAMES = routerOutputNames();
	const at = (name: string) => NAMES.indexOf(name);
	const rows: IDataObject[] = [
		{
			id: 'all-pass',
			expected_response: 'gt',
			eval: { groundedness: likert('groundedness', 5), coherence: likert('coherence', 4) },
		},
		{
			id: 'groundedness-fails',
			expected_response: 'gt',
			eval: { groundedness: likert('groundedness', 2), coherence: likert('coherence', 4) },
		},
		{
			id: 'coherence-fails',
			eval: { groundedness: likert('groundedness', 5), coherence: likert('coherence', 1) },
		},
		{
			id: 'error-before-failure',
			expected_response: 'gt',
			eval: {
				groundedness: errored('groundedness', 'row 4: judge timed out'),
				coherence: likert('coherence', 1),
			},
		},
		{
			id: 'only-error',
			eval: { relevance: errored('relevance', 'row 5: quota is exhausted') },
		},
		{
			id: 'custom-fails',
			eval: { groundedness: likert('groundedness', 5), tone: likert('tone', 1, 'Too curt.') },
		},
		{ id: 'nothing-judged' },
		{
			// The yes/no groundedness under a custom Result Key keeps its slot.
			id: 'result-key',
			eval: { my_grounding: verdict('groundedness_verdict', false) },
		},
	];

	it('sends errored judges to Incomplete, custom judges to Custom Judge, others to their slot', async () => {
		const r = await runWorkflow(singleNode('n8n-nodes-rag-eval.rootCauseRouter', {}), {
			startItems: rows.map((json) => ({ json })),
		});
		expect(r.nodeError('Node')).toBeUndefined();
		expect(NAMES.slice(0, 3)).toEqual(['Pass', 'Incomplete', 'Custom Judge']);
		expect(NAMES).toEqual(expect.arrayContaining(['groundedness', 'coherence', 'relevance']));
		expect(r.outputCount('Node')).toBe(NAMES.length);
		const ids = NAMES.map((_, k) => r.output('Node', k).map((x) => x.id));
		expect(ids).toEqual(
			NAMES.map((n) => {
				switch (n) {
					case 'Pass':
						return ['all-pass'];
					case 'groundedness':
						return ['groundedness-fails', 'result-key'];
					case 'coherence':
						return ['coherence-fails'];
					case 'Custom Judge':
						return ['custom-fails'];
					case 'Incomplete':
						return ['error-before-failure', 'only-error', 'nothing-judged'];
					default:
						return [];
				}
			}),
		);

		const [custom] = r.output('Node', at('Custom Judge'));
		expect(custom).toMatchObject({
			overall: 'fail',
			root_cause: 'tone',
			root_cause_rationale: 'Too curt.',
		});
		expect(custom.suggested_fix).toMatch(/custom judge "tone"/);
		const [coherent] = r.output('Node', at('coherence'));
		expect(coherent.suggested_fix).toBe(suggestedFixFor('coherence'));
		expect(coherent.suggested_fix).toMatch(/hard to follow/);

		const incomplete = r.output('Node', at('Incomplete'));
		for (const x of incomplete)
			expect(x).toMatchObject({ overall: 'incomplete', root_cause: null });
		// The rationale of an incomplete row is the judge's error, so the cause is readable.
		expect(incomplete.map((x) => x.root_cause_rationale)).toEqual([
			'row 4: judge timed out',
			'row 5: quota is exhausted',
			null,
		]);
		expect(String(incomplete[0].suggested_fix)).toMatch(/could not score/);

		const [pass] = r.output('Node', 0);
		expect(pass).toMatchObject({ overall: 'pass', root_cause: null, suggested_fix: null });
		// Lineage and the original fields survive routing.
		expect(r.items('Node', at('Incomplete')).map((i) => i.pairedItem)).toEqual([
			{ item: 3 },
			{ item: 4 },
			{ item: 6 },
		]);
		expect(r.output('Node', at('groundedness'))[0].expected_response).toBe('gt');
	});

	it('an edited order or ground-truth mode changes the cause, never the outputs', async () => {
		const both = {
			json: {
				id: 'both-fail',
				eval: { groundedness: likert('groundedness', 1), coherence: likert('coherence', 1) },
			},
		};
		const route = async (parameters: INodeParameters) => {
			const r = await runWorkflow(singleNode('n8n-nodes-rag-eval.rootCauseRouter', parameters), {
				startItems: [both],
			});
			expect(r.outputCount('Node')).toBe(NAMES.length);
			return NAMES.filter((_, k) => r.output('Node', k).length > 0);
		};
		expect(await route({})).toEqual(['groundedness']);
		expect(
			await route({
				groundTruth: 'yes',
				orderWithGroundTruth: 'coherence, groundedness',
				orderWithoutGroundTruth: 'groundedness',
			}),
		).toEqual(['coherence']);
		expect(await route({ groundTruth: 'no', orderWithoutGroundTruth: 'my_judge' })).toEqual([
			'groundedness',
		]);
	});
});

describe('Eval Dataset on the real engine: de-duplication, sampling, limit', () => {
	// 12 rows; rows 4 and 9 repeat row 1's request_id, row 7 repeats row 2's content.
	const input: IDataObject[] = Array.from({ length: 12 }, (_, i) => ({
		request_id: `q${i + 1}`,
		request: `question ${i + 1}`,
		response: `answer ${i + 1}`,
	}));
	input[3].request_id = 'q1';
	input[8].request_id = 'q1';
	input[6] = { ...input[1], request_id: 'q7' };
	// And one row that cannot be read at all.
	input[10] = { request_id: 'q11', request: 'question 11', response: 42 };

	const dataset = (options: INodeParameters) =>
		runWorkflow(singleNode('n8n-nodes-rag-eval.evalDataset', { source: 'items', options }), {
			startItems: input.map((json) => ({ json })),
		});

	it('sends later duplicates by request_id to Invalid, naming the row they repeat', async () => {
		const r = await dataset({ dedupe: 'request_id' });
		expect(r.nodeError('Node')).toBeUndefined();
		expect(r.output('Node', 0).map((x) => x.row)).toEqual([1, 2, 3, 5, 6, 7, 8, 10, 12]);
		const invalid = r.output('Node', 1);
		expect(invalid.map((x) => x.row)).toEqual([11, 4, 9]);
		expect(invalid[1]).toMatchObject({ path: 'request_id', error: 'row 4: duplicate of row 1' });
		expect(invalid[2].error).toBe('row 9: duplicate of row 1');
		expect(invalid[0].error).toMatch(/^row 11: response/);
		expect(r.items('Node', 1).map((i) => i.pairedItem)).toEqual([
			{ item: 10 },
			{ item: 3 },
			{ item: 8 },
		]);
	});

	it('de-duplicates by content regardless of request_id', async () => {
		const r = await dataset({ dedupe: 'content' });
		expect(r.output('Node', 1).map((x) => x.error)).toEqual([
			expect.stringMatching(/^row 11: /),
			'row 7: duplicate of row 2',
		]);
		expect(r.output('Node', 0)).toHaveLength(10);
	});

	it('draws the same seeded sample every time, a different one for another seed', async () => {
		const a = await dataset({ sampleSize: 4, sampleSeed: 7 });
		const b = await dataset({ sampleSize: 4, sampleSeed: 7 });
		const c = await dataset({ sampleSize: 4, sampleSeed: 8 });
		const rowsOf = (x: typeof a) => x.output('Node', 0).map((j) => j.row as number);
		expect(rowsOf(a)).toHaveLength(4);
		expect(rowsOf(b)).toEqual(rowsOf(a));
		expect(rowsOf(c)).toHaveLength(4);
		expect(rowsOf(c)).not.toEqual(rowsOf(a));
		// A sample keeps dataset order and draws only valid rows.
		expect([...rowsOf(a)].sort((p, q) => p - q)).toEqual(rowsOf(a));
		expect(rowsOf(a)).not.toContain(11);
		expect(new Set(rowsOf(a)).size).toBe(4);
	});

	it('accounts for every row: in = Rows + Invalid + excluded by limit and sample', async () => {
		const r = await dataset({ dedupe: 'request_id', sampleSize: 6, sampleSeed: 1, limit: 4 });
		const rows = r.output('Node', 0);
		const invalid = r.output('Node', 1);
		expect(rows).toHaveLength(4);
		expect(invalid.map((x) => x.row)).toEqual([11, 4, 9]);
		// 12 in: 3 invalid, 9 valid, of which the sample keeps 6 and the limit 4.
		expect(input.length - rows.length - invalid.length).toBe(5);
		const seen = [...rows, ...invalid].map((x) => x.row as number);
		expect(new Set(seen).size).toBe(seen.length);

		const limited = await dataset({ limit: 3 });
		expect(limited.output('Node', 0).map((x) => x.row)).toEqual([1, 2, 3]);
		expect(limited.output('Node', 1)).toHaveLength(1);
	});
});

describe('metric node: where rows that were not scored go', () => {
	const input = [
		{ response: 'the cat sat on the mat', expected_response: 'the cat sat on the mat' },
		{ response: 'dogs bark loudly', expected_response: 'the cat sat on the mat' },
		{ response: 'no ground truth here' },
		{ response: 17, expected_response: 'typed wrong' },
	];
	const run = (notScoredRoute: string) =>
		runWorkflow(
			singleNode('n8n-nodes-rag-eval.evalF1Score', {
				threshold: 0.5,
				splitOutputs: true,
				notScoredRoute,
			}),
			{ startItems: input.map((json) => ({ json })) },
		);
	const statusOf = (x: IDataObject) => (x.eval as Record<string, Score>).f1_score.status;

	it("'separate' gives them a third output", async () => {
		const r = await run('separate');
		expect(r.outputCount('Node')).toBe(3);
		expect(r.output('Node', 0).map((x) => x.response)).toEqual([input[0].response]);
		expect(r.output('Node', 1).map((x) => x.response)).toEqual([input[1].response]);
		expect(r.output('Node', 2).map(statusOf)).toEqual(['not_applicable', 'error']);
	});

	it("'pass' sends them to Pass, still flagged, with no third output", async () => {
		const r = await run('pass');
		expect(r.outputCount('Node')).toBe(2);
		const pass = r.output('Node', 0);
		expect(pass.map(statusOf)).toEqual(['ok', 'not_applicable', 'error']);
		expect(r.output('Node', 1).map((x) => x.response)).toEqual([input[1].response]);
		const err = (pass[2].eval as Record<string, Score>).f1_score;
		expect(err).toMatchObject({ value: null, pass: null });
		expect(err.error).toMatch(/^row 4: response/);
		expect(r.items('Node', 0).map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 2 },
			{ item: 3 },
		]);
	});

	it("'fail' sends them to Fail, still flagged, with no third output", async () => {
		const r = await run('fail');
		expect(r.outputCount('Node')).toBe(2);
		expect(r.output('Node', 0).map((x) => x.response)).toEqual([input[0].response]);
		expect(r.output('Node', 1).map(statusOf)).toEqual(['ok', 'not_applicable', 'error']);
		for (const x of r.output('Node', 1).slice(1))
			expect((x.eval as Record<string, Score>).f1_score.value).toBeNull();
	});
});

describe('a threshold that is not a number', () => {
	const input = [
		{ response: 'the cat sat', expected_response: 'the cat sat', t: 'high' },
		{ response: 'the cat sat', expected_response: 'the cat sat', t: '0.9' },
		{ response: 'the cat sat', expected_response: 'dogs', t: 0.5 },
	];
	const scoresOf = async (type: string, key: string) => {
		const r = await runWorkflow(singleNode(type, { threshold: '={{ $json.t }}' }), {
			startItems: input.map((json) => ({ json })),
		});
		expect(r.nodeError('Node')).toBeUndefined();
		return r.output('Node').map((x) => (x.eval as Record<string, Score>)[key]);
	};

	it('is a row error naming the row and the field on a metric node, never a silent fail', async () => {
		const [bad, numericText, ok] = await scoresOf('n8n-nodes-rag-eval.evalF1Score', 'f1_score');
		expect(bad).toMatchObject({ status: 'error', value: null, pass: null });
		expect(bad.error).toBe('row 1: threshold: expected a number, got "high"');
		// Text holding a number (as sheets and CSV columns deliver it) is read as that number.
		expect(numericText).toMatchObject({ status: 'ok', value: 1, pass: true, threshold: 0.9 });
		expect(ok).toMatchObject({ status: 'ok', value: 0, pass: false, threshold: 0.5 });
	});

	it('is a row error on a judge node before any model call', async () => {
		const [bad] = await scoresOf('n8n-nodes-rag-eval.judgeGroundedness', 'groundedness');
		expect(bad).toMatchObject({ status: 'error', value: null, pass: null });
		expect(bad.error).toBe('row 1: threshold: expected a number, got "high"');
	});
});
