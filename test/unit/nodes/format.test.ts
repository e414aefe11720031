/** The Output Format option: Databricks columns and flat numbers derived from the declaration. */
import { formatFields } from '../../../nodes/shared/common';
import { errorScore, okScore, scoreBase } from '../../../src/core/score';
import { groundedness, groundednessVerdict } from '../../../src/judges/specs/groundedness';
import { bleuMetric } from '../../../src/metrics/bleu';

const verdict = (v: boolean) =>
	okScore(scoreBase(groundednessVerdict, 'groundedness_verdict', 'sig'), v, {
		reason: v ? 'All supported.' : 'The hours are not in the context.',
	});

describe('formatFields', () => {
	it('writes the Databricks rating as yes/no and the rationale, under the declared columns', () => {
		expect(
			formatFields('databricks', 'groundedness_verdict', verdict(false), groundednessVerdict),
		).toEqual({
			'response/llm_judged/groundedness/rating': 'no',
			'response/llm_judged/groundedness/rationale': 'The hours are not in the context.',
		});
	});

	it('writes flat numbers under the result key, yes/no as 1/0', () => {
		expect(formatFields('flat', 'faithful', verdict(true), groundednessVerdict)).toEqual({
			faithful: 1,
		});
		const likert = okScore(scoreBase(groundedness, 'groundedness', 'sig'), 4);
		expect(formatFields('flat', 'groundedness', likert, groundedness)).toEqual({ groundedness: 4 });
	});

	it('falls back to a flat number where Databricks has no column, and writes nothing for unscored rows', () => {
		const bleu = okScore(scoreBase(bleuMetric, 'bleu', 'sig'), 0.25);
		expect(formatFields('databricks', 'bleu', bleu, bleuMetric)).toEqual({ bleu: 0.25 });
		const failed = errorScore(scoreBase(bleuMetric, 'bleu', 'sig'), 'row 1: boom');
		expect(formatFields('flat', 'bleu', failed, bleuMetric)).toEqual({});
		expect(formatFields('score', 'bleu', bleu, bleuMetric)).toEqual({});
	});

	it('Score Up Front (the default): the value and pass, null for a row not scored', () => {
		const bleu = okScore(scoreBase(bleuMetric, 'bleu', 'sig'), 0.25);
		const failed = errorScore(scoreBase(bleuMetric, 'bleu', 'sig'), 'row 1: boom');
		expect(formatFields('upfront', 'bleu', bleu, bleuMetric)).toEqual({
			bleu: 0.25,
			bleu_pass: false,
		});
		expect(formatFields('upfront', 'bleu', failed, bleuMetric)).toEqual({
			bleu: null,
			bleu_pass: null,
		});
		expect(formatFields('upfront', 'faithful', verdict(true), groundednessVerdict)).toEqual({
			faithful: true,
			faithful_pass: true,
		});
	});
});
