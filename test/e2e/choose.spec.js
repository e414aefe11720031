// The "Choose a model" example on real n8n: every question of the golden set answered by the app's
// Basic LLM Chain once per model (its OpenAI Chat Model takes the row's variant as its model, the
// local server answering each model its scripted reply), Cost & Latency reading each answer's own
// sub-execution, Groundedness and Relevance pointwise, the Pairwise Judge in both orders, Compare
// Variants and one Slack message.
//
// The script (test/support/openai-server-cli.js): gpt-4.1's answers are grounded (Groundedness 5,
// the others 3) and preferred by the pairwise judge; Relevance is 4 for every answer; on three
// questions the judge is biased to the first slot (`[[first-slot]]`: "first" in both orders).
// Every figure below is worked out by hand from it.
'use strict';
const assert = require('node:assert/strict');
const {
	blockKitProblems,
	closeAll,
	datasetRows,
	exampleWorkflow,
	startSlackReceiver,
} = require('./support/standins');

const SCRIPTED_ID = 'ragEvalChooseScript1';
const APP_ID = 'ragEvalChooseApp01';
const JUDGE_CRED = { id: 'ragEvalJudgeLocal1', name: 'Judge model (local test server)' };
const MODELS = ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1'];
const BEST = 'gpt-4.1';
const BIASED = new Set([2, 5, 8]);
const N = 12;
const s = {};

/** Twelve questions: the bundled eight, then the first four asked again in other words. */
function scriptedRows() {
	const sample = datasetRows('rag-support-sample.jsonl');
	const rows = [...sample, ...sample.slice(0, N - sample.length)].map((r, i) => {
		const query = i < sample.length ? r.query : `${r.query} (asked again)`;
		const replies = MODELS.map((m) =>
			m === BEST
				? `<<reply:${m} ${r.ground_truth} ((groundedness=5)) ((relevance=4)) ((prefer))>>`
				: `<<reply:${m} ${r.ground_truth} ((groundedness=3)) ((relevance=4))>>`,
		);
		const { response, ...rest } = r;
		void response;
		return {
			...rest,
			request_id: `q${i + 1}`,
			query: `${query} ${replies.join(' ')}${BIASED.has(i) ? ' [[first-slot]]' : ''}`,
		};
	});
	return rows;
}

/** Exact two-sided p of the signed-rank test when all n differences have one sign: 2 / 2^n. */
const signedRankAllOneSign = (n) => 2 / 2 ** n;
/** Exact two-sided sign test with every one of n decisive pairs for one side: 2 / 2^n. */
const signAllOneSide = (n) => 2 / 2 ** n;

const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a}, expected ${b}`);

/** What every run of the example shows, with or without a judge model. */
function checkPipeline(run, { out }, judge) {
	const rows = out(run, 'Eval Dataset', 0);
	const fanned = out(run, 'One Row per Model', 0);
	assert.equal(fanned.length, rows.length * MODELS.length, 'one row per question and model');
	assert.ok(
		fanned.every((r) => r.response === undefined),
		"the dataset's own answer is never judged",
	);
	const measured = out(run, 'Cost & Latency', 0);
	assert.equal(measured.length, fanned.length);
	for (const m of measured) {
		const c = m.eval.cost_latency;
		assert.equal(c.status, 'ok', `cost_latency: ${c.error || c.reason}`);
		assert.ok(m.total_input_token_count > 0 && m.total_output_token_count > 0, 'real tokens');
		assert.equal(typeof m.response, 'string', 'the app answered');
	}
	const paired = out(run, 'Pair Answers With Rows', 0);
	assert.equal(paired.length, fanned.length);
	paired.forEach((p, i) => {
		assert.equal(p.variant, fanned[i].variant, 'answers stay with their own row');
		assert.equal(p.request, fanned[i].request);
		assert.equal(p.response, measured[i].response);
	});
	const scored = out(run, 'Relevance', 0);
	assert.equal(scored.length, fanned.length, 'every answer leaves the judges');
	for (const item of scored)
		for (const key of ['groundedness', 'relevance'])
			assert.equal(
				item.eval[key].status,
				judge ? 'ok' : 'not_applicable',
				`${key}: ${item.eval[key].error || item.eval[key].reason}`,
			);
	const pairs = out(run, 'Pairwise Judge', 0);
	assert.equal(pairs.length, rows.length * 3, 'three pairs of models per question');
	for (const p of pairs)
		assert.equal(p.eval.pairwise.status, judge ? 'ok' : 'not_applicable', p.eval.pairwise.error);
	const [cmp] = out(run, 'Compare Variants', 0);
	assert.deepEqual(
		cmp.variants,
		MODELS,
		'variants in the order of the list, the first the baseline',
	);
	assert.equal(cmp.rows.total, fanned.length + pairs.length, 'every row reaches the comparison');
	assert.deepEqual(cmp.unpaired, []);
	assert.deepEqual(cmp.duplicates, []);
	assert.deepEqual(cmp.unassigned, []);
	assert.equal(cmp.summary.length, 3, 'one line per pair of models');
	// Cost per model from each answer's own run, priced by its own model.
	for (const v of MODELS) {
		const mine = measured.filter((m, i) => fanned[i].variant === v);
		const mean = mine.reduce((t, m) => t + m.cost_usd, 0) / mine.length;
		assert.equal(cmp.cost[v].costUsd.n, rows.length, `${v}: every answer costed`);
		near(cmp.cost[v].costUsd.mean, mean, `${v}: mean cost`);
	}
	const [report] = out(run, 'Eval Report', 0);
	return { rows, fanned, measured, cmp, report };
}

async function checkScripted(run, ctx) {
	const { measured, fanned, cmp, report } = checkPipeline(run, ctx, true);
	// Each answer is its own model's scripted reply, priced as that model (USD per 1M tokens,
	// input / output, the default price table).
	const PRICES = { 'gpt-4o-mini': [0.15, 0.6], 'gpt-4.1-mini': [0.4, 1.6], 'gpt-4.1': [2, 8] };
	measured.forEach((m, i) => {
		const v = fanned[i].variant;
		assert.match(m.response, new RegExp(`\\[\\[groundedness=${v === BEST ? 5 : 3}\\]\\]`));
		const [line, ...more] = m.eval.cost_latency.details.cost_lines;
		assert.deepEqual([line.model, line.priced_as, more.length], [v, v, 0], `row ${i}: its model`);
		const [pin, pout] = PRICES[v];
		near(
			m.cost_usd,
			(m.total_input_token_count * pin + m.total_output_token_count * pout) / 1e6,
			`row ${i}: cost`,
		);
	});
	const scored = ctx.out(run, 'Relevance', 0);
	for (const item of scored) {
		assert.equal(item.eval.groundedness.value, item.variant === BEST ? 5 : 3);
		assert.equal(item.eval.relevance.value, 4);
	}
	// Pairwise: the biased questions' pairs are position-inconsistent ties; gpt-4.1 wins the rest.
	for (const p of ctx.out(run, 'Pairwise Judge', 0)) {
		const sc = p.eval.pairwise;
		const i = Number(p.request_id.slice(1)) - 1;
		if (BIASED.has(i)) assert.deepEqual([sc.value, sc.details.positionConsistent], [0.5, false]);
		else if (p.variant_b === BEST)
			assert.deepEqual([sc.value, sc.details.positionConsistent], [0, true]);
		else assert.deepEqual([sc.value, sc.details.positionConsistent], [0.5, true]);
	}
	for (const base of ['gpt-4o-mini', 'gpt-4.1-mini']) {
		const g = cmp.pairs.find((r) => r.metric === 'groundedness' && r.a === base && r.b === BEST);
		assert.equal(g.pairs, N);
		near(g.difference, 2, `groundedness ${BEST} - ${base}`);
		near(g.pValue, signedRankAllOneSign(N), `signed-rank p ${base}`);
		assert.equal(g.verdict, 'b_better');
		// Holm over the comparison's 9 tests (2 metrics x 3 pairs, 3 pairwise): the two smallest
		// p-values (these) times 9 and 8, the larger of the two kept.
		near(g.pAdjusted, 9 * signedRankAllOneSign(N), `Holm-adjusted p ${base}`);
		const rel = cmp.pairs.find((r) => r.metric === 'relevance' && r.a === base && r.b === BEST);
		assert.equal(rel.verdict, 'no_difference');
		const pw = cmp.pairwise.find((r) => r.a === base && r.b === BEST);
		assert.deepEqual([pw.wins, pw.ties, pw.losses, pw.positionInconsistent], [0, 3, 9, 3]);
		near(pw.sign.pValue, signAllOneSide(9), `sign test p ${base}`);
		// Third and fourth smallest: times 7 and 6, the larger kept.
		near(pw.pAdjusted, 7 * signAllOneSide(9), `sign test Holm-adjusted p ${base}`);
		assert.equal(pw.verdict, 'b_better');
	}
	const minis = cmp.pairwise.find((r) => r.a === 'gpt-4o-mini' && r.b === 'gpt-4.1-mini');
	assert.deepEqual(
		[minis.wins, minis.ties, minis.losses, minis.verdict],
		[0, 12, 0, 'no_difference'],
	);
	// The judge's health: 27 of 36 pairs consistent; the three biased questions are named ties.
	const [health] = cmp.judgeHealth;
	assert.deepEqual([health.judged, health.consistent], [36, 27]);
	near(health.consistency, 0.75, 'position consistency');
	// Bradley-Terry: gpt-4.1 strongest, its interval above both others' strengths.
	const [rank] = cmp.rankings;
	for (const v of ['gpt-4o-mini', 'gpt-4.1-mini'])
		assert.ok(rank.strengths[BEST].low > rank.strengths[v].strength, `${BEST} above ${v}`);

	// One verdict line per pair: the better model on groundedness (pointwise and pairwise), no
	// difference on relevance, and the cost ratio of the mean costs.
	const ratio = (b, a) => cmp.cost[b].costUsd.mean / cmp.cost[a].costUsd.mean;
	const dearer = (b, a) => `${Math.round((ratio(b, a) - 1) * 100)}% dearer`;
	const lines = cmp.summary.map((x) => x.line);
	assert.match(
		lines[0],
		/^gpt-4\.1-mini vs gpt-4o-mini: no difference on groundedness, relevance, groundedness \(pairwise\)/,
	);
	for (const [line, base] of [
		[lines[1], 'gpt-4o-mini'],
		[lines[2], 'gpt-4.1-mini'],
	]) {
		assert.ok(line.startsWith(`${BEST} vs ${base}: ${BEST} better on groundedness (p 0.00`), line);
		assert.ok(line.includes(`${BEST} better on groundedness (pairwise) (p 0.0`), line);
		assert.ok(line.includes('no difference on relevance'), line);
		assert.ok(line.includes(dearer(BEST, base)), `${line}: ${dearer(BEST, base)}`);
		assert.ok(line.includes(`rows ${base} 12/12, ${BEST} 12/12`), line);
	}
	assert.ok(lines[0].includes(dearer('gpt-4.1-mini', 'gpt-4o-mini')), lines[0]);

	// The report: every line, the judge's position consistency and the flipped pairs.
	const md = report.markdown;
	for (const l of lines) assert.ok(md.includes(l), `Markdown has: ${l}`);
	assert.ok(md.includes('75% (27/36)'), 'position consistency in the report');
	assert.ok(md.includes('## Bradley-Terry: groundedness'), 'Bradley-Terry section');
	// The HTML page is the item's binary file, beside the Markdown.
	const html = run.data.resultData.runData['Eval Report'][0].data.main[0][0].binary?.html;
	assert.ok(html && html.mimeType === 'text/html' && html.bytes > 1000, 'HTML report written');
	// One Slack message for the run, valid Block Kit, with the verdict lines.
	assert.equal(s.slack.messages.length, 1, 'one Slack message per run');
	const msg = s.slack.messages[0];
	assert.deepEqual(blockKitProblems(msg), []);
	const text = JSON.stringify(msg.blocks);
	assert.ok(text.includes(`${BEST} better on groundedness`), 'Slack names the better model');
	assert.ok(text.includes(dearer(BEST, 'gpt-4o-mini')), 'Slack gives the cost difference');
}

module.exports = [
	{
		name: "example choose-a-model: three models answer through the app, judged pointwise and pairwise; Compare Variants names the better model, the cost, a tie for every flipped pair and the judge's position consistency",
		workflowId: SCRIPTED_ID,
		covers: ['ragEvalChooseModel1', APP_ID],
		check: checkScripted,
	},
	{
		name: 'example choose-a-model without a judge model: every answer measured and compared on cost, judges not applicable',
		workflowId: 'ragEvalChooseModel1N',
		check: (run, ctx) => {
			const { cmp } = checkPipeline(run, ctx, false);
			for (const r of cmp.pairs)
				assert.notEqual(r.verdict, 'b_better', 'nothing judged, nothing better');
			for (const r of cmp.pairwise) assert.notEqual(r.verdict, 'b_better');
		},
	},
];

module.exports.setup = async () => {
	s.slack = await startSlackReceiver();
};

module.exports.teardown = () => closeAll(s, ['slack']);

/** The example as a team switches it on (Slack enabled), its questions scripted per model. */
module.exports.workflows = () => {
	const { wf, node } = exampleWorkflow('choose-a-model.workflow.json', SCRIPTED_ID);
	node('Eval Dataset').parameters.text = scriptedRows()
		.map((row) => JSON.stringify(row))
		.join('\n');
	delete node('Post to Slack').disabled;
	node('Post to Slack').parameters.url = s.slack.webhookUrl;
	for (const n of wf.nodes.filter((x) => x.type.startsWith('n8n-nodes-rag-eval.judge')))
		n.credentials = { ragEvalLlmApi: JUDGE_CRED };
	return [wf];
};
