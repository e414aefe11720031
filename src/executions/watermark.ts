/**
 * The watermark: the newest execution id already considered, kept in the monitoring workflow's
 * static data. n8n saves static data after every production execution, failed or not, so a new
 * watermark is stored as pending with the id of the execution that wrote it, and committed at the
 * start of the next run only if that execution succeeded; a failed run's pending watermark is
 * dropped, so its executions are read again.
 */

/** What the node keeps in static data. */
export interface WatermarkState {
	/** Newest execution id already considered (committed). */
	lastId?: string;
	/** When it was committed (ISO). */
	committedAt?: string;
	/** Written by a run, committed once that run is known to have succeeded. */
	pending?: { lastId: string; executionId: string; at: string };
}

/** Execution ids are increasing integers sent as text: compare them as numbers of any length. */
export function compareIds(a: string, b: string): number {
	const x = a.replace(/^0+(?=\d)/, '');
	const y = b.replace(/^0+(?=\d)/, '');
	const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
	if (numeric && x.length !== y.length) return x.length - y.length;
	return x < y ? -1 : x > y ? 1 : 0;
}

/** Statuses of a finished execution that did not succeed. */
const FAILED = new Set(['error', 'crashed', 'canceled']);

/** What {@link settleWatermark} decided, for the run's account. */
export interface Settled {
	state: WatermarkState;
	/** committed | discarded | kept-pending | none */
	outcome: 'committed' | 'discarded' | 'kept-pending' | 'none';
	note?: string;
}

/**
 * Commits or drops the pending watermark. `statusOf` asks the API for the status of the execution
 * that wrote it (`undefined`: n8n no longer has it).
 */
export async function settleWatermark(
	state: WatermarkState,
	statusOf: (executionId: string) => Promise<string | undefined>,
): Promise<Settled> {
	const p = state.pending;
	if (!p) return { state: { ...state }, outcome: 'none' };
	const status = await statusOf(p.executionId);
	const commit = (note?: string): Settled => ({
		state: {
			lastId:
				state.lastId !== undefined && compareIds(state.lastId, p.lastId) > 0
					? state.lastId
					: p.lastId,
			committedAt: p.at,
		},
		outcome: 'committed',
		...(note ? { note } : {}),
	});
	if (status === 'success') return commit();
	if (status === undefined)
		// n8n keeps failed executions by default; one that is gone succeeded and was not saved
		// (Save successful production executions: Do not save) or was pruned since.
		return commit(
			`the run that wrote watermark ${p.lastId} (execution ${p.executionId}) is no longer stored; taken as succeeded`,
		);
	if (FAILED.has(status)) {
		const rest: WatermarkState = { ...state };
		delete rest.pending;
		return {
			state: rest,
			outcome: 'discarded',
			note: `the previous run (execution ${p.executionId}) ended with status ${status}; its executions are read again`,
		};
	}
	// Still running or waiting: an overlapping run. Read from the committed watermark.
	return {
		state: { ...state },
		outcome: 'kept-pending',
		note: `the run that wrote watermark ${p.lastId} (execution ${p.executionId}) has not finished (${status}); reading from the committed watermark`,
	};
}

/** The state to store after a run that considered executions up to `newestId`. */
export function withPending(
	state: WatermarkState,
	newestId: string | undefined,
	executionId: string,
	now: Date,
): WatermarkState {
	if (newestId === undefined) return { ...state };
	const base = state.lastId;
	const pendingFloor = state.pending?.lastId;
	let lastId = newestId;
	for (const other of [base, pendingFloor])
		if (other !== undefined && compareIds(other, lastId) > 0) lastId = other;
	if (base !== undefined && compareIds(lastId, base) <= 0) return { ...state };
	return { ...state, pending: { lastId, executionId, at: now.toISOString() } };
}

/** Static data as read back: anything malformed counts as no watermark. */
export function readState(raw: unknown): WatermarkState {
	if (typeof raw !== 'object' || raw === null) return {};
	const r = raw as Record<string, unknown>;
	const out: WatermarkState = {};
	if (typeof r.lastId === 'string' && r.lastId !== '') out.lastId = r.lastId;
	if (typeof r.committedAt === 'string') out.committedAt = r.committedAt;
	const p = r.pending as Record<string, unknown> | undefined;
	if (
		p &&
		typeof p === 'object' &&
		typeof p.lastId === 'string' &&
		typeof p.executionId === 'string' &&
		typeof p.at === 'string'
	)
		out.pending = { lastId: p.lastId, executionId: p.executionId, at: p.at };
	return out;
}
