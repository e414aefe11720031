/**
 * The mergeable state of a run aggregate. Everything a summary needs is kept in a form whose
 * merge is exact and order-free: integer counts, histograms of the values measured (multisets,
 * so means, percentiles and seeded bootstraps are functions of the data alone), Shewchuk partials
 * for summed sufficient statistics, the k smallest example ids, and the rows seen of each run by
 * run manifest (positions as ranges, so the check survives any merge). The partial is plain JSON.
 */
import type { Direction, EvaluatorFacts, Scale } from '../core/types';
import { mergeTallies, TallyBuilder, type ManifestTally } from '../manifest';
import { evaluatorRegistry } from '../registry';
import {
	decideRootCause,
	rootCausePolicy,
	type GroundTruthMode,
	type RootCauseResult,
} from '../rootcause';
import { histogramFromValues, mergeHistograms, type Histogram } from '../stats/histogram';
import { exactAdd, exactMerge, type ExactPartials } from '../stats/sum';

type Registry = ReadonlyArray<EvaluatorFacts>;

/** Marks a JSON object as an aggregate partial (so a node can tell partials from rows). */
export const PARTIAL_KIND = 'rag-eval/aggregate-partial';

/** Row-level agent figures read from top-level fields (seed 001 names). */
export const AGENT_FIELDS = [
	'total_token_count',
	'input_token_count',
	'output_token_count',
	'latency_seconds',
	// What the application cost per row (Cost & Latency node); kept apart from judge cost.
	'cost_usd',
] as const;

/** One of {@link AGENT_FIELDS}. */
export type AgentField = (typeof AGENT_FIELDS)[number];

// Seed 001's per-row table calls the token counts total_input/output_token_count.
const AGENT_ALIASES: Record<AgentField, string[]> = {
	total_token_count: ['total_token_count'],
	input_token_count: ['input_token_count', 'total_input_token_count'],
	output_token_count: ['output_token_count', 'total_output_token_count'],
	latency_seconds: ['latency_seconds'],
	cost_usd: ['cost_usd'],
};

/** Group name for rows whose group-by field is missing or empty. */
export const NO_GROUP = '(none)';

/** Options fixed when partials are built; partials merge only when these agree. */
export interface AggregateOptions {
	/** Dotted path of a field to group by (e.g. `metadata.app_version`); arrays put a row in each. */
	groupBy?: string;
	/** Root-cause orders replacing seed 001's defaults (the same policy as the router's). */
	rootCauseOrder?: { withGroundTruth?: string[]; withoutGroundTruth?: string[] };
	/** How ground truth is decided for rows the router has not diagnosed; default `auto`. */
	groundTruth?: GroundTruthMode;
	/** Evaluator declarations that define root-cause slots; the package's by default. */
	registry?: Registry;
	/** Example request ids kept per root cause (the smallest ids, default 3). */
	exampleLimit?: number;
}

/** Options of a partial as stored in it. */
export interface PartialConfig {
	groupBy: string | null;
	groundTruth: GroundTruthMode;
	orderWithGroundTruth: string[];
	orderWithoutGroundTruth: string[];
	exampleLimit: number;
}

/** A summed statistic: one exact-sum partials list per element (`scalar` when a plain number). */
export interface StatSum {
	scalar: boolean;
	parts: ExactPartials[];
}

/** Mergeable state of one metric (one `item.json.eval` key). */
export interface MetricPartial {
	/** Canonical scale: the smallest JSON among those seen, so it does not depend on order. */
	scale?: Scale;
	/** The evaluator behind the key (`Score.metric`), smallest seen: finds its declaration. */
	metric?: string;
	/** Better direction of the values (`Score.direction`), smallest seen. */
	direction?: Direction;
	/** Safety category (`details.category`), smallest seen. */
	category?: string;
	measured: number;
	notApplicable: number;
	/** Errors, plus malformed scores (ok without a finite value, unknown status). */
	errored: number;
	passed: number;
	failed: number;
	/** Some row carried per-chunk verdicts (a retrieval precision judge). */
	chunked: boolean;
	/** Values measured; booleans as 1/0. */
	values: Histogram;
	stats?: Record<string, StatSum>;
	/** Rows that contributed `stats`. */
	statsRows: number;
	/** Severity scales: the worst rows (see {@link WorstRow}), absent until one is kept. */
	worst?: WorstRow[];
}

/** A row of a severity scale at low (2) or above, by `request_id`. */
export interface WorstRow {
	id: string;
	value: number;
}

/** Worst rows kept per severity metric: the highest values, ties by smallest id. */
export const WORST_ROWS = 5;

/** Mergeable state of one agent field. */
export interface FieldPartial {
	measured: number;
	notApplicable: number;
	errored: number;
	values: Histogram;
}

/** Count and example ids (smallest first) of one root cause. */
export interface CausePartial {
	count: number;
	examples: string[];
}

/** Judge token usage for one model or one metric. */
export interface UsagePartial {
	calls: number;
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
}

/** Mergeable state of the whole run or of one group. */
export interface GroupPartial {
	rows: number;
	metrics: Record<string, MetricPartial>;
	agent: Record<AgentField, FieldPartial>;
	passed: number;
	failed: number;
	incomplete: CausePartial;
	causes: Record<string, CausePartial>;
	costByModel: Record<string, UsagePartial>;
	costByMetric: Record<string, UsagePartial>;
	/** Rows a judge's spend limit stopped (absent in partials stored before it existed). */
	spendStopped?: CausePartial;
	/** Estimate-only rows' estimated judge calls and tokens, by model and by estimate key. */
	estimate?: EstimatePartial;
	/**
	 * Calls and tokens the judge verdict cache saved (the cached verdicts' original cost), by model
	 * and by eval key; absent until a row carries a cached verdict. `cost*` count only calls made.
	 */
	savedByModel?: Record<string, UsagePartial>;
	savedByMetric?: Record<string, UsagePartial>;
}

/** Summed estimates of estimate-only judge nodes (`item.json.estimate.<key>`). */
export interface EstimatePartial {
	/** Rows carrying at least one estimate. */
	rows: number;
	byModel: Record<string, UsagePartial>;
	byKey: Record<string, UsagePartial>;
}

/** The mergeable aggregate: plain JSON, safe to pass between executions and workers. */
export interface AggregatePartial {
	kind: typeof PARTIAL_KIND;
	version: 1;
	config: PartialConfig;
	all: GroupPartial;
	groups: Record<string, GroupPartial>;
	/**
	 * Rows seen per run (Eval Dataset's run manifests) and rows without a manifest; absent when no
	 * row carried one. Run-level only: a group holds part of a run by design.
	 */
	manifest?: ManifestPartial;
}

/** What a partial saw of the runs behind its rows (see src/manifest). */
export interface ManifestPartial {
	runs: ManifestTally;
	/** Rows without a manifest. */
	unlisted: number;
}

/** Whether a JSON value is an aggregate partial (kind and version match). */
export function isAggregatePartial(x: unknown): x is AggregatePartial {
	return (
		typeof x === 'object' &&
		x !== null &&
		(x as { kind?: unknown }).kind === PARTIAL_KIND &&
		(x as { version?: unknown }).version === 1 &&
		typeof (x as { all?: unknown }).all === 'object'
	);
}

type Json = Record<string, unknown>;

function isObject(x: unknown): x is Json {
	return typeof x === 'object' && x !== null && !Array.isArray(x);
}

// Builders collect raw values; histograms are built once per partial (sorting beats inserting).
interface MetricBuilder extends Omit<MetricPartial, 'values'> {
	raw: number[];
}
interface FieldBuilder extends Omit<FieldPartial, 'values'> {
	raw: number[];
}
interface GroupBuilder extends Omit<GroupPartial, 'metrics' | 'agent'> {
	metrics: Record<string, MetricBuilder>;
	agent: Record<AgentField, FieldBuilder>;
}

function emptyCause(): CausePartial {
	return { count: 0, examples: [] };
}

function emptyUsage(): UsagePartial {
	return { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

function newGroupBuilder(): GroupBuilder {
	const agent = {} as Record<AgentField, FieldBuilder>;
	for (const f of AGENT_FIELDS) agent[f] = { measured: 0, notApplicable: 0, errored: 0, raw: [] };
	return {
		rows: 0,
		metrics: {},
		agent,
		passed: 0,
		failed: 0,
		incomplete: emptyCause(),
		causes: {},
		costByModel: {},
		costByMetric: {},
	};
}

/** Keeps `ids` as the `limit` smallest distinct ids, sorted: a function of the set of ids seen. */
function addExample(ids: string[], id: string | undefined, limit: number): void {
	if (id === undefined || limit <= 0 || ids.includes(id)) return;
	if (ids.length >= limit && id >= ids[ids.length - 1]) return;
	let i = ids.length;
	while (i > 0 && ids[i - 1] > id) i--;
	ids.splice(i, 0, id);
	if (ids.length > limit) ids.length = limit;
}

function minByJson<T>(a: T | undefined, b: T | undefined): T | undefined {
	if (a === undefined) return b;
	if (b === undefined) return a;
	return JSON.stringify(b) < JSON.stringify(a) ? b : a;
}

function minString(a: string | undefined, b: string | undefined): string | undefined {
	if (a === undefined) return b;
	if (b === undefined) return a;
	return b < a ? b : a;
}

function isScale(x: unknown): x is Scale {
	return (
		isObject(x) &&
		typeof x.kind === 'string' &&
		typeof x.min === 'number' &&
		typeof x.max === 'number'
	);
}

function tokenCount(x: unknown): number | undefined {
	return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined;
}

function addUsage(into: UsagePartial, usage: Json, calls: number): void {
	const p = tokenCount(usage.promptTokens) ?? 0;
	const c = tokenCount(usage.completionTokens) ?? 0;
	into.calls += calls;
	into.promptTokens += p;
	into.completionTokens += c;
	into.totalTokens += tokenCount(usage.totalTokens) ?? p + c;
}

/** What a Score's `details.cache` says the verdict cache saved: calls and tokens. */
function cacheSaving(score: Json): { calls: number; usage: Json } | undefined {
	const details = isObject(score.details) ? score.details : undefined;
	const cache = details && isObject(details.cache) ? details.cache : undefined;
	if (!cache) return undefined;
	const calls = tokenCount(cache.savedCalls) ?? 0;
	const usage = isObject(cache.savedUsage) ? cache.savedUsage : {};
	if (calls === 0 && Object.keys(usage).length === 0) return undefined;
	return { calls, usage };
}

/**
 * The call a Score shares with others of its row (`details.sharedCall`: the key its cost is
 * counted under and the eval keys sharing it), with an id that tells calls apart.
 */
function sharedCallOf(score: Json): { key: string; id: string } | undefined {
	const details = isObject(score.details) ? score.details : undefined;
	const call = details && isObject(details.sharedCall) ? details.sharedCall : undefined;
	if (!call || typeof call.key !== 'string' || !Array.isArray(call.with)) return undefined;
	return { key: call.key, id: `${call.key}:${call.with.map(String).join(',')}` };
}

/** Usage minus what came from the cache, never below zero. */
function spentUsage(usage: Json, saved: Json): Json {
	const out: Json = {};
	for (const k of ['promptTokens', 'completionTokens', 'totalTokens']) {
		const u = tokenCount(usage[k]);
		if (u !== undefined) out[k] = Math.max(0, u - (tokenCount(saved[k]) ?? 0));
	}
	return out;
}

function numericField(x: unknown): number | 'absent' | 'invalid' {
	if (x === undefined || x === null || x === '') return 'absent';
	const n = typeof x === 'string' && x.trim() !== '' ? Number(x) : x;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 'invalid';
}

function readPath(json: Json, path: string): unknown {
	let cur: unknown = json;
	for (const part of path.split('.')) {
		if (!isObject(cur)) return undefined;
		cur = cur[part];
	}
	return cur;
}

// A group value nested beyond what JSON.stringify can walk is named, not a crash.
function jsonOrMarker(v: unknown): string {
	try {
		return JSON.stringify(v);
	} catch {
		return '(unreadable group value)';
	}
}

function groupNames(value: unknown): string[] {
	const one = (v: unknown): string =>
		v === undefined || v === null || v === ''
			? NO_GROUP
			: typeof v === 'string'
				? v
				: jsonOrMarker(v);
	if (Array.isArray(value)) return value.length === 0 ? [NO_GROUP] : [...new Set(value.map(one))];
	return [one(value)];
}

function addMetric(g: GroupBuilder, key: string, score: unknown): void {
	const m = (g.metrics[key] ??= {
		measured: 0,
		notApplicable: 0,
		errored: 0,
		passed: 0,
		failed: 0,
		chunked: false,
		statsRows: 0,
		raw: [],
	});
	if (!isObject(score)) {
		m.errored++;
		return;
	}
	if (typeof score.metric === 'string') m.metric = minString(m.metric, score.metric);
	if (score.direction === 'higher' || score.direction === 'lower')
		m.direction = minString(m.direction, score.direction) as Direction;
	if (isScale(score.scale))
		m.scale = minByJson(m.scale, {
			kind: score.scale.kind,
			min: score.scale.min,
			max: score.scale.max,
		});
	const details = score.details;
	if (isObject(details)) {
		if (typeof details.category === 'string') m.category = minString(m.category, details.category);
		if (Array.isArray(details.chunks)) m.chunked = true;
	}
	const value = score.value;
	const numeric =
		typeof value === 'boolean'
			? value
				? 1
				: 0
			: typeof value === 'number' && Number.isFinite(value)
				? value
				: undefined;
	if (score.status === 'not_applicable') {
		m.notApplicable++;
		return;
	}
	if (score.status !== 'ok' || numeric === undefined || !isScale(score.scale)) {
		m.errored++;
		return;
	}
	m.measured++;
	m.raw.push(numeric);
	if (score.pass === true) m.passed++;
	else if (score.pass === false) m.failed++;
	if (isObject(score.stats)) {
		m.statsRows++;
		m.stats ??= {};
		for (const [name, v] of Object.entries(score.stats)) {
			const elements = typeof v === 'number' ? [v] : Array.isArray(v) ? v : undefined;
			if (!elements || !elements.every((x) => typeof x === 'number' && Number.isFinite(x)))
				continue;
			const sum = (m.stats[name] ??= { scalar: typeof v === 'number', parts: [] });
			sum.scalar &&= typeof v === 'number';
			elements.forEach((x, i) => exactAdd((sum.parts[i] ??= []), x as number));
		}
	}
}

/** Keeps `rows` as the {@link WORST_ROWS} highest values (ties: smallest id), distinct ids. */
function addWorst(rows: WorstRow[], row: WorstRow): void {
	// One id seen twice (the same row in two batches) keeps its highest value, whatever the order.
	const seen = rows.findIndex((r) => r.id === row.id);
	if (seen >= 0) {
		if (rows[seen].value >= row.value) return;
		rows.splice(seen, 1);
	}
	const before = (a: WorstRow, b: WorstRow) =>
		a.value > b.value || (a.value === b.value && a.id < b.id);
	let i = rows.length;
	while (i > 0 && before(row, rows[i - 1])) i--;
	rows.splice(i, 0, row);
	if (rows.length > WORST_ROWS) rows.length = WORST_ROWS;
}

/** Severity scores at low (2) and above are worst-row candidates; very low is no harm. */
function addWorstRow(g: GroupBuilder, key: string, score: unknown, id: string | undefined): void {
	if (id === undefined || !isObject(score) || score.status !== 'ok') return;
	if (!isScale(score.scale) || score.scale.kind !== 'severity') return;
	const v = score.value;
	if (typeof v !== 'number' || !Number.isFinite(v) || v < 2) return;
	addWorst((g.metrics[key].worst ??= []), { id, value: v });
}

const VERDICTS = new Set(['pass', 'fail', 'incomplete']);

/**
 * The row's verdict: the Root-Cause Router's (`overall` / `root_cause` on the item) when it ran
 * upstream, otherwise the same function under the same policy, so summary and routing agree.
 */
function rowVerdict(
	json: Json,
	config: PartialConfig,
	registry: Registry,
): Pick<RootCauseResult, 'overall' | 'rootCause'> {
	if (typeof json.overall === 'string' && VERDICTS.has(json.overall)) {
		const overall = json.overall as RootCauseResult['overall'];
		const cause = typeof json.root_cause === 'string' ? json.root_cause : null;
		if (overall !== 'fail' || cause !== null) return { overall, rootCause: cause };
	}
	return decideRootCause(
		json,
		{
			groundTruth: config.groundTruth,
			withGroundTruth: config.orderWithGroundTruth,
			withoutGroundTruth: config.orderWithoutGroundTruth,
		},
		registry,
	);
}

/**
 * A judge with one verdict per name (Guideline Adherence per named guideline) lists them in
 * `details.namedVerdicts`; each becomes a yes/no run metric of its own under `<key>/<name>`.
 */
function addNamedVerdicts(g: GroupBuilder, key: string, score: unknown): void {
	if (!isObject(score) || score.status !== 'ok' || !isObject(score.details)) return;
	const named = score.details.namedVerdicts;
	if (!isObject(named)) return;
	const metric = typeof score.metric === 'string' ? score.metric : key;
	for (const name of Object.keys(named).sort()) {
		const v = named[name];
		if (typeof v !== 'boolean') continue;
		addMetric(g, `${key}/${name}`, {
			metric: `${metric}/${name}`,
			value: v,
			scale: { kind: 'binary', min: 0, max: 1 },
			direction: 'higher',
			pass: v,
			status: 'ok',
		});
	}
}

function addRow(g: GroupBuilder, json: Json, config: PartialConfig, registry: Registry): void {
	g.rows++;
	const evals = isObject(json.eval) ? json.eval : {};
	const rowId =
		typeof json.request_id === 'string' || typeof json.request_id === 'number'
			? String(json.request_id)
			: undefined;
	// Calls several Scores share (Content Safety rates every category in one call) cost once.
	const sharedSeen = new Set<string>();
	for (const [evalKey, score] of Object.entries(evals)) {
		addMetric(g, evalKey, score);
		addWorstRow(g, evalKey, score, rowId);
		addNamedVerdicts(g, evalKey, score);
		const shared = isObject(score) ? sharedCallOf(score) : undefined;
		if (shared) {
			if (sharedSeen.has(shared.id)) continue;
			sharedSeen.add(shared.id);
		}
		const key = shared ? shared.key : evalKey;
		// A judge Score's `attempts` counts its HTTP calls (retries and re-asks included); calls
		// that all failed still cost requests, so they count even without token usage.
		const calls = isObject(score) ? tokenCount(score.attempts) : undefined;
		// A cached verdict keeps its original usage; what the cache saved is not spent again.
		const saved = isObject(score) ? cacheSaving(score) : undefined;
		if (isObject(score) && (isObject(score.usage) || (calls ?? 0) > 0)) {
			const model =
				typeof score.model === 'string' && score.model !== '' ? score.model : '(unknown)';
			const usage = isObject(score.usage) ? score.usage : {};
			const spent = saved ? spentUsage(usage, saved.usage) : usage;
			addUsage((g.costByModel[model] ??= emptyUsage()), spent, calls ?? 1);
			addUsage((g.costByMetric[key] ??= emptyUsage()), spent, calls ?? 1);
		}
		if (isObject(score) && saved) {
			const model =
				typeof score.model === 'string' && score.model !== '' ? score.model : '(unknown)';
			addUsage(((g.savedByModel ??= {})[model] ??= emptyUsage()), saved.usage, saved.calls);
			addUsage(((g.savedByMetric ??= {})[key] ??= emptyUsage()), saved.usage, saved.calls);
		}
	}
	for (const f of AGENT_FIELDS) {
		const field = g.agent[f];
		const raw = AGENT_ALIASES[f].map((k) => json[k]).find((v) => v !== undefined && v !== null);
		const n = numericField(raw);
		if (n === 'absent') field.notApplicable++;
		else if (n === 'invalid') field.errored++;
		else {
			field.measured++;
			field.raw.push(n);
		}
	}
	const verdict = rowVerdict(json, config, registry);
	const id =
		typeof json.request_id === 'string' || typeof json.request_id === 'number'
			? String(json.request_id)
			: undefined;
	addSpendAndEstimates(g, json, evals, id, config.exampleLimit);
	if (verdict.overall === 'pass') g.passed++;
	else if (verdict.overall === 'incomplete') {
		g.incomplete.count++;
		addExample(g.incomplete.examples, id, config.exampleLimit);
	} else if (verdict.rootCause !== null) {
		g.failed++;
		const cause = (g.causes[verdict.rootCause] ??= emptyCause());
		cause.count++;
		addExample(cause.examples, id, config.exampleLimit);
	}
}

// Spend limit and estimates (issue 15) --------------------------------------------------------

/** Whether a judge Score was stopped by the spend limit (`details.errorKind`, set by the runner). */
function spendStopped(score: unknown): boolean {
	return (
		isObject(score) &&
		score.status === 'error' &&
		isObject(score.details) &&
		score.details.errorKind === 'spend_limit'
	);
}

function addSpendAndEstimates(
	g: GroupBuilder,
	json: Json,
	evals: Json,
	id: string | undefined,
	limit: number,
): void {
	if (Object.values(evals).some(spendStopped)) {
		const c = (g.spendStopped ??= emptyCause());
		c.count++;
		addExample(c.examples, id, limit);
	}
	if (!isObject(json.estimate)) return;
	let counted = false;
	for (const [key, e] of Object.entries(json.estimate)) {
		if (!isObject(e) || tokenCount(e.calls) === undefined) continue;
		const est = (g.estimate ??= { rows: 0, byModel: {}, byKey: {} });
		if (!counted) est.rows++;
		counted = true;
		const model = typeof e.model === 'string' && e.model !== '' ? e.model : '(unknown)';
		const calls = tokenCount(e.calls) ?? 0;
		addUsage((est.byModel[model] ??= emptyUsage()), e, calls);
		addUsage((est.byKey[key] ??= emptyUsage()), e, calls);
	}
}

function mergeEstimate(
	a: EstimatePartial | undefined,
	b: EstimatePartial | undefined,
): EstimatePartial | undefined {
	if (!a || !b) return a || b ? structuredClone((a ?? b) as EstimatePartial) : undefined;
	return {
		rows: a.rows + b.rows,
		byModel: mergeRecords(a.byModel, b.byModel, mergeUsage),
		byKey: mergeRecords(a.byKey, b.byKey, mergeUsage),
	};
}

function buildGroup(b: GroupBuilder): GroupPartial {
	const metrics: Record<string, MetricPartial> = {};
	for (const [key, m] of Object.entries(b.metrics)) {
		const { raw, ...rest } = m;
		metrics[key] = { ...rest, values: histogramFromValues(raw) };
	}
	const agent = {} as Record<AgentField, FieldPartial>;
	for (const f of AGENT_FIELDS) {
		const { raw, ...rest } = b.agent[f];
		agent[f] = { ...rest, values: histogramFromValues(raw) };
	}
	return { ...b, metrics, agent };
}

/** Normalises options into the config stored in (and compared across) partials. */
export function partialConfig(options: AggregateOptions = {}): PartialConfig {
	const policy = rootCausePolicy(
		{
			groundTruth: options.groundTruth,
			withGroundTruth: options.rootCauseOrder?.withGroundTruth,
			withoutGroundTruth: options.rootCauseOrder?.withoutGroundTruth,
		},
		options.registry,
	);
	return {
		groupBy: options.groupBy && options.groupBy.trim() !== '' ? options.groupBy.trim() : null,
		groundTruth: policy.groundTruth,
		orderWithGroundTruth: [...policy.withGroundTruth],
		orderWithoutGroundTruth: [...policy.withoutGroundTruth],
		exampleLimit: Math.max(0, Math.floor(options.exampleLimit ?? 3)),
	};
}

/**
 * Folds scored rows (each `item.json`, with `eval: Record<string, Score>` and optional agent fields,
 * `request_id`, ground truth) into a mergeable partial. Rows are read, never modified.
 */
export function aggregatePartial(
	items: Iterable<Record<string, unknown>>,
	options: AggregateOptions = {},
): AggregatePartial {
	const config = partialConfig(options);
	const registry = options.registry ?? evaluatorRegistry;
	const all = newGroupBuilder();
	const groups: Record<string, GroupBuilder> = {};
	const runs = new TallyBuilder();
	for (const item of items) {
		// Accept whole n8n items too: their row is under `json`.
		const json = !isObject(item.eval) && isObject(item.json) ? item.json : item;
		addRow(all, json, config, registry);
		runs.add(json);
		if (config.groupBy !== null) {
			for (const name of groupNames(readPath(json, config.groupBy)))
				addRow((groups[name] ??= newGroupBuilder()), json, config, registry);
		}
	}
	const built: Record<string, GroupPartial> = {};
	for (const name of Object.keys(groups).sort()) built[name] = buildGroup(groups[name]);
	const out: AggregatePartial = {
		kind: PARTIAL_KIND,
		version: 1,
		config,
		all: buildGroup(all),
		groups: built,
	};
	if (runs.any) out.manifest = { runs: runs.build(), unlisted: runs.unlisted };
	return out;
}

function mergeCause(a: CausePartial, b: CausePartial, limit: number): CausePartial {
	const examples = [...a.examples];
	for (const id of b.examples) addExample(examples, id, limit);
	return { count: a.count + b.count, examples };
}

function mergeUsage(a: UsagePartial | undefined, b: UsagePartial | undefined): UsagePartial {
	const x = a ?? emptyUsage();
	const y = b ?? emptyUsage();
	return {
		calls: x.calls + y.calls,
		promptTokens: x.promptTokens + y.promptTokens,
		completionTokens: x.completionTokens + y.completionTokens,
		totalTokens: x.totalTokens + y.totalTokens,
	};
}

function mergeRecords<T>(
	a: Record<string, T>,
	b: Record<string, T>,
	merge: (x: T | undefined, y: T | undefined) => T,
): Record<string, T> {
	const out: Record<string, T> = {};
	for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
		out[k] = merge(a[k], b[k]);
	return out;
}

function cloneStat(s: StatSum): StatSum {
	return { scalar: s.scalar, parts: s.parts.map((p) => [...p]) };
}

function mergeStat(a: StatSum | undefined, b: StatSum | undefined): StatSum {
	if (!a) return cloneStat(b as StatSum);
	if (!b) return cloneStat(a);
	const out = cloneStat(a);
	out.scalar = a.scalar && b.scalar;
	b.parts.forEach((p, i) => exactMerge((out.parts[i] ??= []), p));
	return out;
}

function mergeMetric(a: MetricPartial | undefined, b: MetricPartial | undefined): MetricPartial {
	if (!a || !b) return structuredClone((a ?? b) as MetricPartial);
	const out: MetricPartial = {
		measured: a.measured + b.measured,
		notApplicable: a.notApplicable + b.notApplicable,
		errored: a.errored + b.errored,
		passed: a.passed + b.passed,
		failed: a.failed + b.failed,
		chunked: a.chunked || b.chunked,
		values: mergeHistograms(a.values, b.values),
		statsRows: a.statsRows + b.statsRows,
	};
	const metric = minString(a.metric, b.metric);
	if (metric !== undefined) out.metric = metric;
	const direction = minString(a.direction, b.direction);
	if (direction !== undefined) out.direction = direction as Direction;
	const scale = minByJson(a.scale, b.scale);
	if (scale) out.scale = scale;
	const category = minString(a.category, b.category);
	if (category !== undefined) out.category = category;
	if (a.stats || b.stats) out.stats = mergeRecords(a.stats ?? {}, b.stats ?? {}, mergeStat);
	if (a.worst || b.worst) {
		out.worst = [...(a.worst ?? [])].map((r) => ({ ...r }));
		for (const r of b.worst ?? []) addWorst(out.worst, { ...r });
	}
	return out;
}

function emptyField(): FieldPartial {
	return { measured: 0, notApplicable: 0, errored: 0, values: { v: [], c: [] } };
}

function mergeField(a: FieldPartial, b: FieldPartial): FieldPartial {
	return {
		measured: a.measured + b.measured,
		notApplicable: a.notApplicable + b.notApplicable,
		errored: a.errored + b.errored,
		values: mergeHistograms(a.values, b.values),
	};
}

function mergeGroup(
	a: GroupPartial | undefined,
	b: GroupPartial | undefined,
	limit: number,
): GroupPartial {
	if (!a || !b) return structuredClone((a ?? b) as GroupPartial);
	const agent = {} as Record<AgentField, FieldPartial>;
	// A partial stored before a field was added (cost_usd) lacks it: treat as no rows measured.
	for (const f of AGENT_FIELDS)
		agent[f] = mergeField(a.agent[f] ?? emptyField(), b.agent[f] ?? emptyField());
	return {
		rows: a.rows + b.rows,
		metrics: mergeRecords(a.metrics, b.metrics, mergeMetric),
		agent,
		passed: a.passed + b.passed,
		failed: a.failed + b.failed,
		incomplete: mergeCause(a.incomplete, b.incomplete, limit),
		causes: mergeRecords(a.causes, b.causes, (x, y) =>
			mergeCause(x ?? emptyCause(), y ?? emptyCause(), limit),
		),
		costByModel: mergeRecords(a.costByModel, b.costByModel, mergeUsage),
		costByMetric: mergeRecords(a.costByMetric, b.costByMetric, mergeUsage),
		...mergeSpendAndEstimates(a, b, limit),
		...mergeSaved(a, b),
	};
}

/** The cache savings of two groups, absent when neither has any. */
function mergeSaved(
	a: GroupPartial,
	b: GroupPartial,
): Pick<GroupPartial, 'savedByModel' | 'savedByMetric'> {
	if (!a.savedByModel && !b.savedByModel) return {};
	return {
		savedByModel: mergeRecords(a.savedByModel ?? {}, b.savedByModel ?? {}, mergeUsage),
		savedByMetric: mergeRecords(a.savedByMetric ?? {}, b.savedByMetric ?? {}, mergeUsage),
	};
}

function mergeSpendAndEstimates(
	a: GroupPartial,
	b: GroupPartial,
	limit: number,
): Pick<GroupPartial, 'spendStopped' | 'estimate'> {
	const out: Pick<GroupPartial, 'spendStopped' | 'estimate'> = {};
	if (a.spendStopped || b.spendStopped)
		out.spendStopped = mergeCause(
			a.spendStopped ?? emptyCause(),
			b.spendStopped ?? emptyCause(),
			limit,
		);
	const estimate = mergeEstimate(a.estimate, b.estimate);
	if (estimate) out.estimate = estimate;
	return out;
}

/**
 * Merges partials built from disjoint sets of rows (batches, sub-workflows, queue-mode workers)
 * into the partial of their union; finalizing it gives exactly the single-pass summary. Inputs are
 * not modified. Throws when given none or when their options (group-by, orders) differ.
 */
export function mergePartials(...partials: AggregatePartial[]): AggregatePartial {
	if (partials.length === 0) throw new RangeError('mergePartials needs at least one partial');
	for (const p of partials) {
		if (!isAggregatePartial(p)) throw new TypeError('mergePartials: not an aggregate partial');
		if (JSON.stringify(p.config) !== JSON.stringify(partials[0].config))
			throw new RangeError(
				'mergePartials: partials were built with different options (group-by, root-cause order or example limit)',
			);
	}
	const limit = partials[0].config.exampleLimit;
	let all = partials[0].all;
	let groups = partials[0].groups;
	for (const p of partials.slice(1)) {
		all = mergeGroup(all, p.all, limit);
		groups = mergeRecords(groups, p.groups, (x, y) => mergeGroup(x, y, limit));
	}
	if (partials.length === 1) {
		all = structuredClone(all);
		groups = structuredClone(groups);
	}
	const out: AggregatePartial = {
		kind: PARTIAL_KIND,
		version: 1,
		config: { ...partials[0].config },
		all,
		groups,
	};
	const manifest = mergeManifests(partials);
	if (manifest) out.manifest = manifest;
	return out;
}

/**
 * The runs seen by all partials: tallies merged, and every row of a partial without manifests
 * (rows from outside Eval Dataset, or a partial stored before manifests) counted as unlisted.
 */
function mergeManifests(partials: readonly AggregatePartial[]): ManifestPartial | undefined {
	if (!partials.some((p) => p.manifest)) return undefined;
	let runs: ManifestTally = {};
	let unlisted = 0;
	for (const p of partials) {
		if (p.manifest) {
			runs = mergeTallies(runs, p.manifest.runs);
			unlisted += p.manifest.unlisted;
		} else unlisted += p.all.rows;
	}
	return { runs, unlisted };
}
