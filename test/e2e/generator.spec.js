// The Eval Set Generator in real n8n (`n8n execute`), against the local judge server: 100
// documents -> 40 rows in the configured mix (16 single-fact, 8 reasoning, 8 multi-chunk, 4
// conversational, 4 unanswerable). Every kept row cites real chunks of the input documents, no
// two kept questions are near-duplicates above the threshold, every dropped question says why,
// and the Estimate Only node's call count is within 10% of the calls the server counted.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const WANT = { single_fact: 16, reasoning: 8, multi_chunk: 8, conversational: 4, unanswerable: 4 };
const THRESHOLD = 0.8;

let callsBefore = 0;

function checkRows(run, { out, dist }) {
	const lib = require(path.join(dist, 'src', 'index.js'));
	const docs = out(run, '100 Documents', 0);
	assert.equal(docs.length, 100);
	const byUri = new Map(docs.map((d) => [d.doc_uri, d.text]));
	const rows = out(run, 'Eval Set Generator', 0);
	const invalid = out(run, 'Eval Set Generator', 1);
	assert.equal(
		rows.length,
		40,
		`40 rows kept (${invalid.length} dropped: ${invalid.map((x) => x.error).join(' | ')})`,
	);
	const kinds = {};
	for (const r of rows) {
		const meta = r.metadata;
		assert.equal(meta.source, 'generated');
		assert.match(meta.generator, /^generator:eval_set_generator@1\|model:e2e-judge\|/);
		const g = meta.generation;
		kinds[g.kind] = (kinds[g.kind] || 0) + 1;
		assert.match(r.request_id, /^gen-[0-9a-f]{12}$/);
		const ctx = r.expected_retrieved_context;
		if (g.kind === 'unanswerable') {
			assert.deepEqual(ctx, [], `${r.request_id}: an unanswerable row cites nothing`);
			assert.match(r.expected_response, /^The documents do not answer this question\./);
			continue;
		}
		assert.ok(
			ctx.length >= (g.kind === 'multi_chunk' ? 2 : 1),
			`${r.request_id}: cites its chunks`,
		);
		for (const c of ctx) {
			assert.ok(byUri.has(c.doc_uri), `${r.request_id}: ${c.doc_uri} is an input document`);
			assert.ok(
				byUri.get(c.doc_uri).includes(c.content),
				`${r.request_id}: the cited content is a real chunk of ${c.doc_uri}`,
			);
		}
		for (const id of g.cited_chunk_ids) {
			assert.ok(byUri.has(id.replace(/#\d+$/, '')), `${id} names an input document's chunk`);
			assert.ok(
				g.chunk_ids.includes(id),
				`${id} is one of the chunks the question was written from`,
			);
		}
		assert.ok(r.expected_facts.length > 0);
		assert.equal(r.eval.generation_check.value, true, 'the groundedness check passed');
	}
	assert.deepEqual(kinds, WANT, 'the configured mix');
	const text = (r) => (r.history ? `${r.history[0].content} ${r.request}` : r.request);
	for (let a = 0; a < rows.length; a++) {
		for (let b = a + 1; b < rows.length; b++) {
			const s = lib.questionSimilarity(text(rows[a]), text(rows[b]));
			assert.ok(
				s < THRESHOLD,
				`near-duplicates kept: ${rows[a].request} / ${rows[b].request} (${s.toFixed(2)})`,
			);
		}
	}
	for (const x of invalid) {
		assert.match(x.error, /^slot \d+ \(/, 'a dropped question says which slot');
		assert.ok(x.generation.stage && x.generation.reason, 'and why');
		assert.equal(x.metadata.source, 'generated');
	}
	return { rows, invalid };
}

module.exports = [
	{
		name: 'generator: 100 documents -> 40 rows in the configured mix, each citing real chunks, no near-duplicates, estimate within 10% of the calls counted',
		workflowId: 'e2eGenerator00001',
		executions: [
			{
				async before(ctx) {
					callsBefore = ctx.judgeCalls ? await ctx.judgeCalls() : 0;
				},
				async check(run, ctx) {
					assert.ok(ctx.judgeCalls, 'the local judge server runs');
					const { invalid } = checkRows(run, ctx);
					const [est] = ctx.out(run, 'Estimate', 0);
					const e = est.estimate.eval_set_generator;
					assert.deepEqual(e.planned, WANT);
					assert.deepEqual(e.byPurpose, {
						generate: 40,
						groundedness: 36,
						unanswerable: 4,
						closedBook: 0,
					});
					const counted = (await ctx.judgeCalls()) - callsBefore;
					const off = Math.abs(counted - e.calls) / counted;
					process.stdout.write(
						`[generator] estimate ${e.calls} calls (${e.totalTokens} tokens), server counted ${counted}, ${invalid.length} dropped; off by ${(off * 100).toFixed(1)}%\n`,
					);
					assert.ok(off <= 0.1, `estimate ${e.calls} vs ${counted} counted calls`);
				},
			},
		],
	},
	{
		name: 'generator example bootstrap-golden-set: documents -> generator -> review form -> only approved drafts reach the golden set',
		workflowId: 'ragEvalBootstrap01',
		suite: path.join(__dirname, 'bootstrap.suite.js'),
	},
];
