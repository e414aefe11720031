import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { bleuScore, meteorScore, rougeScore } from '../../src/metrics';
import type { IDataObject } from 'n8n-workflow';
import { readWorkflow, runWorkflow } from '../support/engine';

const file = readFileSync(path.join(__dirname, 'fixtures/mixed.jsonl'));
const fileItem = {
	json: {},
	binary: {
		data: { data: file.toString('base64'), mimeType: 'application/jsonl', fileName: 'mixed.jsonl' },
	},
};

describe('Manual Trigger -> Eval Dataset -> BLEU -> ROUGE (split) -> METEOR', () => {
	it('loads a file with valid and invalid rows, scores and routes every row', async () => {
		const r = await runWorkflow(readWorkflow('engine/dataset-metrics.workflow.json'), {
			startItems: [fileItem],
		});
		for (const n of r.executedNodes()) expect(r.nodeError(n)).toBeUndefined();

		// 6 non-blank lines (line 5 is blank): 4 valid rows, a malformed line (3) and a wrong type (4).
		const rows = r.output('Eval Dataset', 0);
		const invalid = r.output('Eval Dataset', 1);
		expect(rows.map((x) => x.row)).toEqual([1, 2, 6, 7]);
		expect(invalid.map((x) => x.row)).toEqual([3, 4]);
		expect(invalid[0].error).toMatch(/^row 3: /);
		expect(invalid[1].error).toMatch(/^row 4: response/);
		expect(rows.length + invalid.length).toBe(6);
		expect(rows[0]).toMatchObject({
			request: 'What is the capital of Japan?',
			response: 'Tokyo is the capital of Japan.',
			expected_response: 'The capital of Japan is Tokyo.',
			retrieved_context: [{ content: 'Tokyo has been the capital of Japan since 1868.' }],
		});
		// The dataset fingerprint where the rows carry it: SHA-256 of how the file was read, then of
		// its bytes, on every row, invalid ones too, and in every row's run manifest.
		const how = 'o1:s4:reado2:s6:formats5:jsonls6:schemas5:azure\n';
		const fingerprint =
			'sha256:' +
			createHash('sha256').update(Buffer.from(how, 'utf16le')).update(file).digest('hex');
		// Valid rows keep it in their one bookkeeping field, source, the row's last.
		for (const x of invalid) expect(x.dataset_fingerprint).toBe(fingerprint);
		for (const x of rows) {
			const source = x.source as { fingerprint: string; run_manifest: IDataObject };
			expect(source.fingerprint).toBe(fingerprint);
			expect(source.run_manifest.dataset_fingerprint).toBe(fingerprint);
			expect(Object.keys(x).pop()).toBe('source');
		}

		// BLEU on every row: the conformance value for the first pair, and NA without ground truth.
		const bleu = r
			.output('BLEU')
			.map((x) => (x.eval as Record<string, { value: number | null; status: string }>).bleu);
		expect(bleu[0].value).toBe(0.22961813530951883);
		expect(bleu.map((b) => b.status)).toEqual(['ok', 'ok', 'ok', 'not_applicable']);
		for (let i = 0; i < 3; i++) {
			expect(bleu[i].value).toBe(
				bleuScore(rows[i].response as string, rows[i].expected_response as string),
			);
		}

		// ROUGE-L split: the three outputs partition the rows.
		const pass = r.output('ROUGE', 0);
		const fail = r.output('ROUGE', 1);
		const notScored = r.output('ROUGE', 2);
		expect(pass.length + fail.length + notScored.length).toBe(4);
		expect(notScored.map((x) => x.row)).toEqual([7]);
		for (const x of [...pass, ...fail]) {
			const s = (
				x.eval as Record<
					string,
					{ value: number; pass: boolean; details: { precision: number; recall: number } }
				>
			).rougeL;
			const ref = rougeScore(x.response as string, x.expected_response as string, 'rougeL');
			expect(s.value).toBe(ref.fmeasure);
			expect(s.details.precision).toBe(ref.precision);
			expect(s.pass).toBe(pass.includes(x));
		}
		expect(pass.map((x) => x.row)).toEqual([1]);

		// METEOR runs on the Pass branch only, after BLEU and ROUGE kept their scores.
		const met = r.output('METEOR Pass');
		expect(met.map((x) => x.row)).toEqual([1]);
		const e = met[0].eval as Record<string, { value: number }>;
		expect(e.meteor.value).toBe(0.9067055393586005);
		expect(e.meteor.value).toBe(
			meteorScore(rows[0].response as string, rows[0].expected_response as string),
		);
		expect(Object.keys(e).sort()).toEqual(['bleu', 'meteor', 'rougeL']);
		// Score Up Front: each node's value and pass first, in pipeline order, the full Scores after
		// the row's fields, and the bookkeeping (source) last.
		const keys = Object.keys(met[0]);
		expect(keys.slice(0, 6)).toEqual([
			'bleu',
			'bleu_pass',
			'rougeL',
			'rougeL_pass',
			'meteor',
			'meteor_pass',
		]);
		expect(met[0]).toMatchObject({ bleu: bleu[0].value, rougeL_pass: true, meteor: e.meteor.value });
		expect(keys.slice(-2)).toEqual(['eval', 'source']);

		// Lineage: every routed item points back at the item it came from.
		expect(r.items('ROUGE', 0)[0].pairedItem).toEqual({ item: 0 });
	});
});
