// The notice of rows a scoring node could not score (issue 44 item 2): counts per row, reasons
// commonest first without the row labels, at most three named.
import type { Score } from '../../../src/core/types';
import { unscoredNotices as notices } from '../../../src/core/unscored';

const unscoredNotices = (rows: Parameters<typeof notices>[0]) =>
	notices(rows).map((n) => n.message);

const base = { metric: 'm', scale: { kind: 'unit' as const, min: 0, max: 1 }, signature: 's' };
const ok: Score = { ...base, value: 1, pass: true, status: 'ok' };
const na = (reason: string): Score => ({
	...base,
	value: null,
	pass: null,
	status: 'not_applicable',
	reason,
});
const err = (error: string): Score => ({
	...base,
	value: null,
	pass: null,
	status: 'error',
	error,
});

describe('unscoredNotices', () => {
	it('says nothing when every row was scored', () => {
		expect(unscoredNotices([{ m: ok }, { m: ok }])).toEqual([]);
	});

	it('one shared reason is named alone; rows count once however many Scores share it', () => {
		const row = { a: na('no model'), b: na('no model') };
		expect(unscoredNotices([row, row, { a: ok, b: ok }])).toEqual([
			'2 of 3 rows not scored: no model',
		]);
	});

	it('errors lose their row labels, group by reason, commonest first, three at most', () => {
		const rows = [
			{ m: err('row 1 (request_id "a"): timeout') },
			{ m: err('row 2: timeout') },
			{ m: err('row 3: bad reply') },
			{ m: err('quota') },
			{ m: err('boom') },
			{ m: na('missing response') },
			{ m: ok },
		];
		expect(unscoredNotices(rows)).toEqual([
			'1 of 7 rows not scored: missing response',
			'5 of 7 rows errored: timeout (2 rows); bad reply (1 row); quota (1 row); and 1 other reason',
		]);
	});

	it('a row with an error and a not-applicable Score counts as errored only', () => {
		expect(unscoredNotices([{ a: err('x'), b: na('y') }])).toEqual(['1 of 1 rows errored: x']);
	});
});

describe('unscoredNotices kinds', () => {
	it('rows not applicable by design get a notice of their own, for the node to show as info', () => {
		const rows = [{ m: na('no budget') }, { m: na('no trace') }, { m: err('boom') }, { m: ok }];
		expect(notices(rows, (s) => s.reason === 'no budget')).toEqual([
			{ kind: 'not_scored', message: '1 of 4 rows not scored: no trace' },
			{ kind: 'by_design', message: '1 of 4 rows not scored: no budget' },
			{ kind: 'errored', message: '1 of 4 rows errored: boom' },
		]);
	});
});
