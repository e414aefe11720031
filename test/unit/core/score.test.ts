/** The one Score builder: one pass rule, no threshold on yes/no, NaN never leaves as a value. */
import {
	errorScore,
	labelRowError,
	notApplicableScore,
	okScore,
	passes,
	scoreBase,
} from '../../../src/core/score';
import type { Scale } from '../../../src/core/types';

const LIKERT: Scale = { kind: 'likert', min: 1, max: 5 };
const BINARY: Scale = { kind: 'binary', min: 0, max: 1 };
const SEVERITY: Scale = { kind: 'severity', min: 0, max: 7 };

describe('passes', () => {
	it('numbers by threshold and direction, yes/no by the verdict', () => {
		expect(passes(3, 3, 'higher')).toBe(true);
		expect(passes(2.999, 3, 'higher')).toBe(false);
		expect(passes(4, 3, 'lower')).toBe(false);
		expect(passes(3, 3, 'lower')).toBe(true);
		expect(passes(true, undefined, 'higher')).toBe(true);
		expect(passes(false, undefined, 'higher')).toBe(false);
		// A yes on a lower-is-better verdict ("harmful?") fails.
		expect(passes(true, undefined, 'lower')).toBe(false);
	});
});

describe('scoreBase and the three outcomes', () => {
	it('drops the threshold of yes/no scales and keeps the declared default otherwise', () => {
		const yesNo = scoreBase(
			{ scale: BINARY, threshold: { default: 1, direction: 'higher' } },
			'v',
			's',
			0.2,
		);
		expect('threshold' in yesNo).toBe(false);
		const likert = scoreBase(
			{ scale: LIKERT, threshold: { default: 3, direction: 'higher' } },
			'g',
			's',
		);
		expect(likert.threshold).toBe(3);
		const sev = scoreBase(
			{ scale: SEVERITY, threshold: { default: 3, direction: 'lower' } },
			'h',
			's',
			5,
		);
		expect(okScore(sev, 4)).toMatchObject({
			value: 4,
			pass: true,
			status: 'ok',
			direction: 'lower',
		});
		expect(okScore(sev, 6).pass).toBe(false);
	});

	it('turns a non-finite value into an error, never a value', () => {
		const base = scoreBase(
			{ scale: LIKERT, threshold: { default: 3, direction: 'higher' } },
			'g',
			's',
		);
		expect(okScore(base, Number.NaN)).toMatchObject({
			value: null,
			pass: null,
			status: 'error',
			error: 'g produced a non-finite value; no score recorded',
		});
		expect(okScore(base, Infinity).status).toBe('error');
	});

	it('builds not-applicable and error scores with null value and pass, and labels rows once', () => {
		const base = scoreBase(
			{ scale: LIKERT, threshold: { default: 3, direction: 'higher' } },
			'g',
			's',
		);
		expect(notApplicableScore(base, 'missing response')).toMatchObject({
			value: null,
			pass: null,
			status: 'not_applicable',
			reason: 'missing response',
		});
		const e = errorScore(base, 'timeout', { attempts: 2 });
		expect(e).toMatchObject({
			value: null,
			pass: null,
			status: 'error',
			error: 'timeout',
			attempts: 2,
		});
		labelRowError(e, 'row 3 (request_id q7)');
		labelRowError(e, 'row 3 (request_id q7)');
		expect(e.error).toBe('row 3 (request_id q7): timeout');
	});
});
