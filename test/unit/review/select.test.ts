import type { Score } from '../../../src/core/types';
import { queuedKeys, rowFingerprint, selectForReview, type ReviewRow } from '../../../src/review';
import { createRng } from '../../../src/stats/random';

const yesNo = (metric: string, value: boolean): Score => ({
	metric,
	value,
	scale: { kind: 'binary', min: 0, max: 1 },
	direction: 'higher',
	pass: value,
	status: 'ok',
	reason: `${metric} says ${value}`,
	signature: `judge:${metric}@1`,
});
const rating = (metric: string, value: number, threshold = 3): Score => ({
	metric,
	value,
	scale: { kind: 'likert', min: 1, max: 5 },
	threshold,
	direction: 'higher',
	pass: value >= threshold,
	status: 'ok',
	signature: `judge:${metric}@1`,
});
const row = (id: string, evals: Record<string, Score>, response = `answer ${id}`): ReviewRow => ({
	request_id: id,
	request: `question ${id}`,
	response,
	eval: evals,
});

describe('selectForReview', () => {
	it('queues every failing row, disagreeing judges and scores near a threshold, with reasons', () => {
		const rows = [
			row('fail', { g: yesNo('g', false), r: yesNo('r', false) }),
			row('split', { g: yesNo('g', true), r: yesNo('r', false) }),
			row('far', { c: rating('c', 5), f: rating('f', 3, 2) }),
			row('edge', { c: rating('c', 3) }),
			row('clear', { g: yesNo('g', true), c: rating('c', 5) }),
			row('unscored', {
				g: { ...yesNo('g', true), status: 'error', value: null, pass: null },
			}),
		];
		const s = selectForReview(rows, { passingShare: 0 });
		const by = Object.fromEntries(s.decisions.map((d) => [d.requestId, d]));
		expect(by.fail).toMatchObject({ queued: true, reasons: ['fail'] });
		expect(by.split).toMatchObject({ queued: true, reasons: ['fail', 'judges_disagree'] });
		// 5 of 5 against 3 of 5 (threshold 2): both pass, half a scale apart.
		expect(by.far).toMatchObject({ queued: true, reasons: ['judges_disagree'] });
		expect(by.edge).toMatchObject({ queued: true, reasons: ['near_threshold'] });
		expect(by.clear).toMatchObject({ queued: false, reasons: ['not_sampled'] });
		expect(by.unscored).toMatchObject({ queued: false, reasons: ['not_scored'] });
		expect(s.decisions).toHaveLength(rows.length);
		expect(s.queued).toBe(4);
		expect(s.counts.fail).toBe(2);
	});

	it('draws a seeded share of passing rows: same seed same rows, other seed other rows', () => {
		const rows = Array.from({ length: 400 }, (_, i) => row(`p${i}`, { g: yesNo('g', true) }));
		const a = selectForReview(rows, { passingShare: 0.2, seed: 7, maxRows: 1000 });
		const b = selectForReview([...rows].reverse(), { passingShare: 0.2, seed: 7, maxRows: 1000 });
		const c = selectForReview(rows, { passingShare: 0.2, seed: 8, maxRows: 1000 });
		const ids = (x: typeof a) =>
			x.decisions
				.filter((d) => d.queued)
				.map((d) => d.requestId)
				.sort();
		expect(ids(a)).toEqual(ids(b)); // order of rows does not matter
		expect(ids(a)).not.toEqual(ids(c));
		expect(a.queued).toBeGreaterThan(50);
		expect(a.queued).toBeLessThan(110);
		expect(a.decisions.filter((d) => d.queued).every((d) => d.reasons[0] === 'sample')).toBe(true);
	});

	it('caps per run, failures first; rows over the cap leave with cap_reached', () => {
		const rows = [
			...Array.from({ length: 5 }, (_, i) => row(`ok${i}`, { c: rating('c', 3) })),
			...Array.from({ length: 5 }, (_, i) => row(`bad${i}`, { g: yesNo('g', false) })),
		];
		const s = selectForReview(rows, { maxRows: 6, passingShare: 1 });
		const queued = s.decisions.filter((d) => d.queued);
		expect(queued).toHaveLength(6);
		expect(queued.filter((d) => d.reasons[0] === 'fail')).toHaveLength(5);
		const capped = s.decisions.filter((d) => d.reasons[0] === 'cap_reached');
		expect(capped).toHaveLength(4);
		expect(capped.every((d) => d.reasons[1] === 'near_threshold')).toBe(true);
	});

	it('never queues a row twice: by request id, by content, within a run and across runs', () => {
		const r = createRng(3);
		const runs = Array.from({ length: 6 }, (_, night) =>
			Array.from({ length: 60 }, (_, i) => {
				const id = `q${Math.floor(r() * 80)}`;
				// Some nights the same content comes back under a new id.
				const sameContentNewId = r() < 0.1;
				return {
					request_id: sameContentNewId ? `n${night}-${i}` : id,
					request: `question ${id}`,
					response: `answer ${id}`,
					eval: { g: yesNo('g', r() < 0.6) },
				} as ReviewRow;
			}),
		);
		const store: Record<string, unknown>[] = [];
		const seenIds = new Set<string>();
		const seenPrints = new Set<string>();
		for (const rows of runs) {
			const keys = queuedKeys(store);
			const s = selectForReview(rows, {
				passingShare: 0.5,
				maxRows: 15,
				queuedRequestIds: keys.requestIds,
				queuedFingerprints: keys.fingerprints,
			});
			for (const d of s.decisions.filter((x) => x.queued)) {
				expect(seenPrints.has(d.fingerprint)).toBe(false);
				expect(d.requestId !== null && seenIds.has(d.requestId)).toBe(false);
				seenPrints.add(d.fingerprint);
				seenIds.add(d.requestId!);
				store.push({ request_id: d.requestId, fingerprint: d.fingerprint });
			}
			expect(s.decisions.every((d) => d.reasons.length > 0 && d.note)).toBe(true);
		}
		expect(store.length).toBeGreaterThan(20);
	});

	it('the fingerprint ignores key order and ids, and sees any content change', () => {
		const a = { request_id: 'x', request: { query: 'q', k: 1 }, response: 'r' };
		const b = { response: 'r', request: { k: 1, query: 'q' }, request_id: 'y' };
		expect(rowFingerprint(a)).toBe(rowFingerprint(b));
		expect(rowFingerprint({ ...a, response: 'r2' })).not.toBe(rowFingerprint(a));
		expect(rowFingerprint(a)).toMatch(/^[0-9a-f]{32}$/);
	});
});
