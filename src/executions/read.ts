/**
 * Reading a workflow's finished executions into eval rows: pages through `GET /executions`
 * (newest first) until the window's start, the watermark or Max Executions, filters by status,
 * samples (seeded), and converts page by page so no more than a page of raw execution JSON is
 * held at once. Samples decided per execution (all, or a rate of 50% and more) read the pages with
 * their data; smaller or stratified samples list the executions without data first and then fetch
 * only the chosen ones.
 */
import {
	MAX_PAGE,
	N8nApiError,
	type ApiExecution,
	type ExecutionPage,
	type N8nApiClient,
} from './client';
import {
	convertExecution,
	invalidExecution,
	PRUNED_HINT,
	type ConvertOptions,
	type InvalidExecution,
} from './convert';
import {
	chooseSample,
	decidesPerExecution,
	keepOne,
	rateFraction,
	type Candidate,
	type SamplingOptions,
} from './sample';
import { compareIds } from './watermark';

export type WindowMode = 'sinceLastRun' | 'lastHours' | 'all';

export interface ReadOptions {
	workflowId: string;
	/** Statuses to evaluate; empty = every finished status. */
	statuses: readonly string[];
	window: WindowMode;
	/** Hours back for lastHours, and for sinceLastRun's first run (no watermark yet). */
	hours: number;
	/** sinceLastRun: the newest execution id already considered. */
	afterId?: string;
	sampling: SamplingOptions;
	/** At most this many executions considered (newest first). */
	maxExecutions: number;
	/** Executions a page (1..250; default 250). */
	pageSize?: number;
	/** Executions fetched at once when the sample is fetched one by one (default 4). */
	concurrency?: number;
	convert: Omit<ConvertOptions, 'workflowId'>;
	now?: Date;
}

/** How the run went, for the output's account. */
export interface ReadStats {
	workflow_id: string;
	workflow_name?: string;
	window: WindowMode;
	/** What bounded the read: the watermark, the window's start, Max Executions or the last page. */
	stopped_at: 'watermark' | 'window' | 'max_executions' | 'end';
	/** Oldest execution id considered / the watermark the read started after. */
	after_id?: string;
	since?: string;
	/** Executions in the window with a chosen status (capped by Max Executions). */
	seen: number;
	sampled: number;
	converted: number;
	invalid: number;
	/** Executions in the window with other statuses (not evaluated, still behind the watermark). */
	other_status: number;
	pages: number;
	requests: number;
	bytes: number;
	/** Newest execution id considered: the next watermark. */
	newest_id?: string;
}

export interface ReadResult {
	rows: Record<string, unknown>[];
	invalid: InvalidExecution[];
	stats: ReadStats;
	/** Things the user should know (no executions, Max Executions reached...). */
	notices: string[];
}

const FINISHED = ['success', 'error', 'crashed', 'canceled'];

function validate(o: ReadOptions): void {
	if (!o.workflowId || o.workflowId.trim() === '')
		throw new RangeError('Workflow ID is empty: choose the workflow to monitor');
	if (!Number.isFinite(o.maxExecutions) || o.maxExecutions < 1)
		throw new RangeError(`Max Executions must be 1 or more, got ${String(o.maxExecutions)}`);
	if (
		(o.window === 'lastHours' || (o.window === 'sinceLastRun' && !o.afterId)) &&
		!(Number.isFinite(o.hours) && o.hours > 0)
	)
		throw new RangeError(`Hours must be above 0, got ${String(o.hours)}`);
	if (o.sampling.mode === 'rate') rateFraction(o.sampling.rate);
}

export async function readExecutions(client: N8nApiClient, o: ReadOptions): Promise<ReadResult> {
	validate(o);
	const now = o.now ?? new Date();
	const workflowId = o.workflowId.trim();
	const wf = await client.getWorkflow(workflowId);
	const statuses = new Set(o.statuses.length > 0 ? o.statuses : FINISHED);
	const serverStatus = statuses.size === 1 ? [...statuses][0] : undefined;
	const afterId = o.window === 'sinceLastRun' ? o.afterId : undefined;
	const since =
		o.window === 'lastHours' || (o.window === 'sinceLastRun' && afterId === undefined)
			? new Date(now.getTime() - o.hours * 3_600_000)
			: undefined;
	const convertOpts: ConvertOptions = { ...o.convert, workflowId };
	const perExecution =
		decidesPerExecution(o.sampling) &&
		(o.sampling.mode === 'all' || rateFraction(o.sampling.rate) >= 0.5);
	const pageSize = Math.max(1, Math.min(MAX_PAGE, Math.floor(o.pageSize ?? MAX_PAGE)));
	const max = Math.floor(o.maxExecutions);

	const stats: ReadStats = {
		workflow_id: workflowId,
		...(wf.name ? { workflow_name: wf.name } : {}),
		window: o.window,
		stopped_at: 'end',
		...(afterId !== undefined ? { after_id: afterId } : {}),
		...(since ? { since: since.toISOString() } : {}),
		seen: 0,
		sampled: 0,
		converted: 0,
		invalid: 0,
		other_status: 0,
		pages: 0,
		requests: 0,
		bytes: 0,
	};
	const rows: Record<string, unknown>[] = [];
	const invalid: InvalidExecution[] = [];
	const take = (e: ApiExecution): void => {
		const c = convertExecution(e, convertOpts);
		if (c.ok) rows.push(c.row);
		else invalid.push(c.invalid);
	};
	const candidates: Candidate[] = [];

	let cursor: string | undefined;
	let serverSince = true;
	paging: for (;;) {
		const query = {
			workflowId,
			status: serverStatus,
			includeData: perExecution,
			limit: pageSize,
			cursor,
			startedAfter: serverSince ? since?.toISOString() : undefined,
		};
		let page: ExecutionPage;
		try {
			page = await client.listExecutions(query);
		} catch (e) {
			// n8n before 2.x refuses query parameters it does not know: filter here instead.
			if (!(e instanceof N8nApiError && e.status === 400 && query.startedAfter)) throw e;
			serverSince = false;
			page = await client.listExecutions({ ...query, startedAfter: undefined });
		}
		stats.pages++;
		for (let i = 0; i < page.data.length; i++) {
			const e = page.data[i];
			const id = String(e.id);
			if (afterId !== undefined && compareIds(id, afterId) <= 0) {
				stats.stopped_at = 'watermark';
				break paging;
			}
			if (since && typeof e.startedAt === 'string' && Date.parse(e.startedAt) < since.getTime()) {
				stats.stopped_at = 'window';
				break paging;
			}
			const status = e.status ?? (e.finished === true ? 'success' : 'unknown');
			if (!statuses.has(status)) {
				// Not evaluated, but behind the watermark from now on like every execution read.
				if (stats.newest_id === undefined || compareIds(id, stats.newest_id) > 0)
					stats.newest_id = id;
				stats.other_status++;
				continue;
			}
			if (stats.seen >= max) {
				stats.stopped_at = 'max_executions';
				break paging;
			}
			if (stats.newest_id === undefined || compareIds(id, stats.newest_id) > 0)
				stats.newest_id = id;
			stats.seen++;
			if (perExecution) {
				if (keepOne(o.sampling, id)) {
					stats.sampled++;
					take(e);
				}
				// The page's raw JSON goes as soon as this loop leaves it.
				page.data[i] = undefined as unknown as ApiExecution;
			} else candidates.push({ id, status });
		}
		if (!page.nextCursor || page.data.length === 0) break;
		cursor = page.nextCursor;
	}

	if (!perExecution) {
		const chosen = chooseSample(candidates, o.sampling);
		const ids = candidates.filter((c) => chosen.has(c.id));
		stats.sampled = ids.length;
		const width = Math.max(1, Math.floor(o.concurrency ?? 4));
		let next = 0;
		await Promise.all(
			Array.from({ length: Math.min(width, ids.length) }, async () => {
				while (next < ids.length) {
					const c = ids[next++];
					const e = await client.getExecution(c.id, true);
					if (e) take(e);
					else
						invalid.push(
							invalidExecution(
								{ id: c.id, status: c.status },
								convertOpts,
								'pruned',
								'n8n deleted it between listing and reading (pruned or removed)',
								PRUNED_HINT,
							),
						);
				}
			}),
		);
	}

	// Oldest first, as the executions happened.
	const byId = (a: Record<string, unknown>, b: Record<string, unknown>): number =>
		compareIds(
			String((a.metadata as Record<string, unknown>).execution_id),
			String((b.metadata as Record<string, unknown>).execution_id),
		);
	rows.sort(byId);
	invalid.sort((a, b) => compareIds(a.execution_id, b.execution_id));
	stats.converted = rows.length;
	stats.invalid = invalid.length;
	stats.requests = client.requests;
	stats.bytes = client.bytes;

	const notices: string[] = [];
	const where =
		afterId !== undefined
			? `since execution ${afterId}`
			: since
				? `since ${since.toISOString()}`
				: 'at all';
	if (stats.seen === 0)
		notices.push(
			`No finished executions of workflow ${workflowId} with status ${[...statuses].join(' or ')} ${where}. If it ran, make sure n8n saves its executions (workflow Settings: Save successful production executions; or EXECUTIONS_DATA_SAVE_ON_SUCCESS=all).`,
		);
	if (stats.stopped_at === 'max_executions')
		notices.push(
			`Stopped at Max Executions (${max}): older executions ${where} were not read${o.window === 'sinceLastRun' ? ' and will not be, since the watermark moves past them; raise Max Executions or run more often' : ''}.`,
		);
	return { rows, invalid, stats, notices };
}
