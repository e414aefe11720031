import {
	bleuScore,
	f1Score,
	gleuScore,
	ROUGE_TYPES,
	rougeScore,
	sacreBleuSentence,
} from '../../../src/metrics';
import { loadRows, mismatch } from '../../support/conformance';

const rows = loadRows();

function collect(check: (row: (typeof rows)[number]) => (string | null)[]): string[] {
	const out: string[] = [];
	for (const row of rows) for (const m of check(row)) if (m) out.push(m);
	return out;
}

describe('conformance with the Azure / rouge_score / sacreBLEU reference values', () => {
	it('has the public vectors', () => {
		expect(rows.length).toBe(1006);
	});

	it('f1_score equals Azure on every row', () => {
		expect(
			collect((r) => [
				mismatch(r.id, 'f1', f1Score(r.response, r.ground_truth), r.expected.f1_score),
			]),
		).toEqual([]);
	});

	it('bleu_score equals Azure (nltk method4) on every row', () => {
		expect(
			collect((r) => [
				mismatch(r.id, 'bleu', bleuScore(r.response, r.ground_truth), r.expected.bleu_score),
			]),
		).toEqual([]);
	});

	it('gleu_score equals Azure on every row', () => {
		expect(
			collect((r) => [
				mismatch(r.id, 'gleu', gleuScore(r.response, r.ground_truth), r.expected.gleu_score),
			]),
		).toEqual([]);
	});

	it.each(ROUGE_TYPES.map((t) => [t]))('%s precision/recall/fmeasure equal rouge_score', (type) => {
		expect(
			collect((r) => {
				const got = rougeScore(r.response, r.ground_truth, type);
				const exp = r.expected[type];
				return (['precision', 'recall', 'fmeasure'] as const).map((k) =>
					mismatch(r.id, `${type}.${k}`, got[k], exp[k]),
				);
			}),
		).toEqual([]);
	});

	it('sacreBLEU sentence score and statistics equal sacrebleu 2.6.0', () => {
		expect(
			collect((r) => {
				const got = sacreBleuSentence(r.response, r.ground_truth);
				const exp = r.expected.sacrebleu_sentence;
				const out = [
					mismatch(r.id, 'score', got.score, exp.score),
					mismatch(r.id, 'bp', got.bp, exp.bp),
					mismatch(r.id, 'sys_len', got.sysLen, exp.sys_len),
					mismatch(r.id, 'ref_len', got.refLen, exp.ref_len),
				];
				for (let i = 0; i < 4; i++) {
					out.push(mismatch(r.id, `counts[${i}]`, got.counts[i], exp.counts[i]));
					out.push(mismatch(r.id, `totals[${i}]`, got.totals[i], exp.totals[i]));
					out.push(mismatch(r.id, `precisions[${i}]`, got.precisions[i], exp.precisions[i]));
				}
				return out;
			}),
		).toEqual([]);
	});
});
