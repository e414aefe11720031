// Real n8n executes Manual Trigger -> Eval Dataset -> BLEU from the installed package: the node
// scores must equal the library's own BLEU on the same pairs, and rows the dataset cannot score
// must be routed or flagged, never scored 0.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

module.exports = [
	{
		name: 'tiny: Eval Dataset -> BLEU runs in real n8n and matches the library',
		workflowId: 'e2eTinyBleu000001',
		check(run, { out, dist }) {
			const rows = out(run, 'Eval Dataset', 0);
			const invalid = out(run, 'Eval Dataset', 1);
			assert.equal(
				rows.length + invalid.length,
				4,
				'every dataset row leaves the Eval Dataset node',
			);
			assert.ok(rows.length >= 3, `expected the three rows with a response, got ${rows.length}`);
			const scored = out(run, 'BLEU', 0);
			assert.equal(scored.length, rows.length, 'rows in = rows out');
			const { bleuScore } = require(path.join(dist, 'src', 'index.js'));
			for (const item of scored) {
				const s = item.eval && item.eval.bleu;
				assert.ok(s, `row ${item.row} carries eval.bleu`);
				if (item.expected_response) {
					assert.equal(s.status, 'ok');
					assert.ok(Math.abs(s.value - bleuScore(item.response, item.expected_response)) < 1e-9);
					assert.equal(s.pass, s.value >= 0.5);
				} else {
					assert.equal(s.status, 'not_applicable', 'a row without ground truth is not applicable');
					assert.equal(s.value, null);
				}
			}
			const identical = scored.find((i) => i.response === i.expected_response);
			assert.ok(
				identical && Math.abs(identical.eval.bleu.value - 1) < 1e-12,
				'identical pair scores 1',
			);
		},
	},
];
