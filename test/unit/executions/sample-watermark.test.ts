import {
	allocate,
	chooseSample,
	compareIds,
	keepOne,
	readState,
	sampleKey,
	settleWatermark,
	withPending,
	type Candidate,
} from '../../../src/executions';

const cands = (
	n: number,
	status = (i: number): string => (i % 10 === 0 ? 'error' : 'success'),
): Candidate[] =>
	Array.from({ length: n }, (_, i) => ({ id: String(1000 + i), status: status(i) }));

describe('sampling', () => {
	it('keys are in [0, 1), depend on seed and id only', () => {
		const k = sampleKey(42, '1001');
		expect(k).toBeGreaterThanOrEqual(0);
		expect(k).toBeLessThan(1);
		expect(sampleKey(42, '1001')).toBe(k);
		expect(sampleKey(43, '1001')).not.toBe(k);
	});

	it('a rate keeps about that share, the same one for the same seed', () => {
		const all = cands(10_000);
		const a = chooseSample(all, { mode: 'rate', rate: 10, seed: 7 });
		const b = chooseSample(all, { mode: 'rate', rate: 10, seed: 7 });
		const c = chooseSample(all, { mode: 'rate', rate: 10, seed: 8 });
		expect([...a]).toEqual([...b]);
		expect(a.size).toBeGreaterThan(900);
		expect(a.size).toBeLessThan(1100);
		expect([...a]).not.toEqual([...c]);
	});

	it('adding newer executions does not change the choice on older ones', () => {
		const old = cands(2000);
		const more = [...cands(3000)].reverse();
		const a = chooseSample(old, { mode: 'rate', rate: 25, seed: 1 });
		const b = chooseSample(more, { mode: 'rate', rate: 25, seed: 1 });
		for (const c of old) expect(b.has(c.id)).toBe(a.has(c.id));
		for (const c of old)
			expect(keepOne({ mode: 'rate', rate: 25, seed: 1 }, c.id)).toBe(a.has(c.id));
	});

	it('rate 0 keeps none, 100 keeps all; out-of-range rates are refused', () => {
		expect(chooseSample(cands(50), { mode: 'rate', rate: 0 }).size).toBe(0);
		expect(chooseSample(cands(50), { mode: 'rate', rate: 100 }).size).toBe(50);
		expect(() => chooseSample(cands(5), { mode: 'rate', rate: 150 })).toThrow(/0 to 100/);
		expect(() => chooseSample(cands(5), { mode: 'rate', rate: Number.NaN })).toThrow(/0 to 100/);
	});

	it('a fixed size keeps exactly that many (or all), reproducibly', () => {
		const all = cands(500);
		const a = chooseSample(all, { mode: 'fixed', size: 50, seed: 3 });
		expect(a.size).toBe(50);
		expect(
			[...chooseSample([...all].reverse(), { mode: 'fixed', size: 50, seed: 3 })].sort(),
		).toEqual([...a].sort());
		expect(chooseSample(cands(20), { mode: 'fixed', size: 50 }).size).toBe(20);
		expect(() => chooseSample(all, { mode: 'fixed', size: -1 })).toThrow(/Sample Size/);
	});

	it('stratified fixed: each status its share, rare statuses at least one', () => {
		// 1 error in 100.
		const all = cands(1000, (i) =>
			i % 100 === 0 ? 'error' : i % 250 === 1 ? 'crashed' : 'success',
		);
		const plain = chooseSample(all, { mode: 'fixed', size: 20, seed: 5 });
		const strat = chooseSample(all, { mode: 'fixed', size: 20, seed: 5, stratify: true });
		const count = (s: Set<string>, st: string): number =>
			all.filter((c) => s.has(c.id) && c.status === st).length;
		expect(strat.size).toBe(20);
		expect(count(strat, 'error')).toBe(1); // 20 * 10/1000 = 0.2 -> at least one
		expect(count(strat, 'crashed')).toBe(1);
		expect(count(strat, 'success')).toBe(18);
		expect(plain.size).toBe(20);
	});

	it('stratified rate: each status gets the rate of its own count, at least one', () => {
		const all = cands(1000, (i) => (i < 30 ? 'error' : 'success'));
		const s = chooseSample(all, { mode: 'rate', rate: 10, seed: 9, stratify: true });
		const errors = all.filter((c) => s.has(c.id) && c.status === 'error').length;
		expect(errors).toBe(3);
		expect(s.size).toBe(3 + 97);
		const few = chooseSample(
			cands(12, (i) => (i === 0 ? 'error' : 'success')),
			{ mode: 'rate', rate: 5, stratify: true },
		);
		expect(few.size).toBe(2);
	});

	it('allocate splits in proportion, never above a stratum, in total exactly', () => {
		const a = allocate(
			new Map([
				['success', 90],
				['error', 9],
				['crashed', 1],
			]),
			10,
		);
		expect([...a.values()].reduce((x, y) => x + y, 0)).toBe(10);
		expect(a.get('crashed')).toBe(1);
		expect(a.get('error')).toBeGreaterThanOrEqual(1);
		const b = allocate(
			new Map([
				['success', 3],
				['error', 2],
			]),
			10,
		);
		expect(b.get('success')).toBe(3);
		expect(b.get('error')).toBe(2);
	});
});

describe('watermark (two-phase)', () => {
	const at = new Date('2026-12-01T10:00:00Z');

	it('compares ids as integers of any length', () => {
		expect(compareIds('99', '100')).toBeLessThan(0);
		expect(compareIds('100', '100')).toBe(0);
		expect(compareIds('12345678901234567890', '9')).toBeGreaterThan(0);
	});

	it('a run writes its watermark as pending, never lower than the committed one', () => {
		const s = withPending({ lastId: '50' }, '80', 'exec-7', at);
		expect(s).toEqual({
			lastId: '50',
			pending: { lastId: '80', executionId: 'exec-7', at: at.toISOString() },
		});
		expect(withPending({ lastId: '50' }, '40', 'exec-7', at)).toEqual({ lastId: '50' });
		expect(withPending({ lastId: '50' }, undefined, 'exec-7', at)).toEqual({ lastId: '50' });
	});

	it('commits the pending watermark when the run that wrote it succeeded', async () => {
		const asked: string[] = [];
		const r = await settleWatermark(
			withPending({ lastId: '50' }, '80', 'exec-7', at),
			async (id) => {
				asked.push(id);
				return 'success';
			},
		);
		expect(asked).toEqual(['exec-7']);
		expect(r.outcome).toBe('committed');
		expect(r.state).toEqual({ lastId: '80', committedAt: at.toISOString() });
	});

	it('drops it when that run failed: the old watermark stays', async () => {
		for (const status of ['error', 'crashed', 'canceled']) {
			const r = await settleWatermark(
				withPending({ lastId: '50' }, '80', 'exec-7', at),
				async () => status,
			);
			expect(r.outcome).toBe('discarded');
			expect(r.state).toEqual({ lastId: '50' });
			expect(r.note).toContain(status);
		}
	});

	it('a run that is no longer stored counts as succeeded; one still running keeps it pending', async () => {
		const gone = await settleWatermark(withPending({}, '80', 'exec-7', at), async () => undefined);
		expect(gone.outcome).toBe('committed');
		expect(gone.state.lastId).toBe('80');
		const running = await settleWatermark(
			withPending({ lastId: '10' }, '80', 'exec-7', at),
			async () => 'running',
		);
		expect(running.outcome).toBe('kept-pending');
		expect(running.state.lastId).toBe('10');
	});

	it('no pending: nothing is asked', async () => {
		const r = await settleWatermark({ lastId: '5' }, async () => {
			throw new Error('must not be asked');
		});
		expect(r).toEqual({ state: { lastId: '5' }, outcome: 'none' });
	});

	it('malformed static data reads as no watermark', () => {
		expect(readState(undefined)).toEqual({});
		expect(readState({ lastId: 5, pending: { lastId: '1' } })).toEqual({});
		expect(readState({ lastId: '5', pending: { lastId: '9', executionId: 'e', at: 'x' } })).toEqual(
			{
				lastId: '5',
				pending: { lastId: '9', executionId: 'e', at: 'x' },
			},
		);
	});
});
