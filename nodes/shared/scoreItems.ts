/**
 * The one item loop of every scoring node (metrics, judges, service-backed judges, safety): read
 * the row's inputs and threshold per item, evaluate, fail the node on an error no retry can fix,
 * show rows not scored in the node's notices, label row errors, write each Score under `eval`
 * with its verdict columns first (the chosen output format), set pairedItem and route to Scored
 * or Pass / Fail / Not Scored. A node kind only says how a row is evaluated (a
 * {@link RowScorer}); everything else comes from here.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { labelRowError } from '../../src/core/score';
import type { EvaluatorFacts, Score } from '../../src/core/types';
import { unscoredNotices } from '../../src/core/unscored';
import type { Governor } from '../../src/judges/governor';
import {
	figureColumnFields,
	formatFields,
	readParam,
	readThreshold,
	routeScored,
	rowLabel,
	sameForEveryItem,
	throwIfFatal,
	throwIfPanelFatal,
	withScore,
	type OutputFormat,
	type PanelFatalCheck,
} from './common';

/** One item as the scorer sees it. */
export interface ItemRow {
	index: number;
	item: INodeExecutionData;
	/** The item's Threshold parameter, when the node has one and it was readable. */
	threshold?: number;
}

/** What a node kind supplies to the item loop. */
export interface RowScorer {
	/**
	 * Input parameters read for every item, by name (the declaration's inputs). An input with a
	 * record `field` whose parameter is still its default `={{ $json.<field> }}` is read from the
	 * item directly: the value n8n's expression engine would give, without a trip through it.
	 */
	inputs: ReadonlyArray<{ name: string; field?: string }>;
	/** Default of the per-item Threshold parameter; absent when the node has none (yes/no). */
	threshold?: number;
	/** The row's Scores, keyed by score key in output order. Resolves for every row, never throws. */
	evaluateRow(values: Record<string, unknown>, row: ItemRow): Promise<Record<string, Score>>;
	/** The row's Scores when its parameters could not be read (an expression failed). */
	unreadable(error: string, row: ItemRow): Record<string, Score>;
	/** The facts a score key's Databricks columns come from. */
	factsOf(key: string): Pick<EvaluatorFacts, 'databricks'>;
	/** Fields the row carries besides its Scores (Cost & Latency's token, latency and cost figures). */
	rowFields?(index: number): IDataObject;
	/** The Databricks per-row column of each of those fields, written too in the Databricks format. */
	figureColumns?: Readonly<Record<string, string>>;
	/** The flat-numbers columns of a Score, when the node has its own (safety). */
	flatFields?(key: string, score: Score): IDataObject;
	/**
	 * Fail the node on the governor's unfixable error for this key (bad key, model, quota). With
	 * `panel`, each juror's key instead: the node fails only when the rejected jurors leave fewer
	 * than the quorum, else it carries one notice naming them (src/judges/panel.ts panelFatal).
	 */
	fatal?: {
		governor: Governor;
		key: string | undefined;
		advice: string;
		panel?: PanelFatalCheck;
	};
	/**
	 * Replaces the scored items (estimate-only runs emit estimates, never scores); they are routed
	 * as rows that were not scored (Scored output, or Not Scored with the split).
	 */
	emit?(items: INodeExecutionData[], rows: Record<string, Score>[]): Promise<INodeExecutionData[]>;
	/** Releases what the execution opened (the verdict cache); called once every row is done. */
	close?(): Promise<void>;
	/**
	 * Not-applicable Scores the node gives by design (Cost & Latency without a budget, whose
	 * figures are still written): their rows are told as an info hint, not a warning.
	 */
	byDesign?(score: Score): boolean;
}

/** The Score a row is routed by: a failing one first, then an unscored one, else the first. */
export function routingScore(scores: ReadonlyArray<Score>): Score {
	return scores.find((s) => s.pass === false) ?? scores.find((s) => s.pass === null) ?? scores[0];
}

/** How one input is read: from the item's own field (untouched default) or through n8n. */
type InputRead = { name: string; field?: string };

/**
 * The inputs whose parameter is untouched: absent from the node's saved parameters (n8n leaves
 * defaults out) or still exactly `={{ $json.<field> }}`. Those resolve to `item.json[field]`,
 * whatever its type, undefined included (test/engine/default-fields.test.ts checks it against
 * n8n); any edited value or expression goes through n8n as before.
 */
function planInputs(ctx: IExecuteFunctions, scorer: RowScorer): InputRead[] {
	const saved = ctx.getNode().parameters ?? {};
	return scorer.inputs.map(({ name, field }) => {
		const raw = saved[name];
		const untouched = field !== undefined && (raw === undefined || raw === `={{ $json.${field} }}`);
		return untouched ? { name, field } : { name };
	});
}

/** The threshold of every item at once, when its parameter holds no expression; else undefined. */
function planThreshold(ctx: IExecuteFunctions, scorer: RowScorer, items: number) {
	if (scorer.threshold === undefined || items === 0 || !sameForEveryItem(ctx, 'threshold'))
		return undefined;
	return readThreshold(ctx, 0, scorer.threshold);
}

async function scoreRow(
	ctx: IExecuteFunctions,
	scorer: RowScorer,
	inputs: ReadonlyArray<InputRead>,
	threshold: ReturnType<typeof readThreshold> | undefined,
	item: INodeExecutionData,
	index: number,
): Promise<Record<string, Score>> {
	const row: ItemRow = { index, item };
	if (scorer.threshold !== undefined) {
		const t = threshold ?? readThreshold(ctx, index, scorer.threshold);
		if (!t.ok) return scorer.unreadable(t.error, row);
		row.threshold = t.value;
	}
	const values: Record<string, unknown> = {};
	for (const input of inputs) {
		if (input.field !== undefined) {
			values[input.name] = item.json[input.field];
			continue;
		}
		const r = readParam(ctx, input.name, index);
		if (!r.ok) return scorer.unreadable(r.error, row);
		values[input.name] = r.value;
	}
	return scorer.evaluateRow(values, row);
}

/** Runs a scorer over the node's items; every item leaves with its Scores. */
export async function scoreItems(
	ctx: IExecuteFunctions,
	scorer: RowScorer,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	let rows: Record<string, Score>[];
	try {
		const inputs = planInputs(ctx, scorer);
		const threshold = planThreshold(ctx, scorer, items.length);
		// Rows run concurrently; the governor caps the calls in flight.
		rows = await Promise.all(
			items.map((item, i) => scoreRow(ctx, scorer, inputs, threshold, item, i)),
		);
	} finally {
		await scorer.close?.();
	}
	if (scorer.emit) {
		const emitted = await scorer.emit(items, rows);
		return routeScored(
			ctx,
			emitted.map((item) => ({ item, score: { pass: null } as Score })),
		);
	}
	if (scorer.fatal) {
		const { governor, key, advice, panel } = scorer.fatal;
		if (panel) throwIfPanelFatal(ctx, governor, panel, advice);
		else throwIfFatal(ctx, governor, key, advice);
	}
	// Rows not scored show on the node (before their errors get row labels): a run without a judge
	// model must not look like success.
	for (const { kind, message } of unscoredNotices(rows, scorer.byDesign)) {
		const type = kind === 'by_design' ? 'info' : 'warning';
		if (type === 'warning') ctx.logger?.warn(`${ctx.getNode().name}: ${message}`);
		else ctx.logger?.info(`${ctx.getNode().name}: ${message}`);
		ctx.addExecutionHints?.({ message, type, location: 'outputPane' });
	}
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const format = (options.outputFormat as OutputFormat | undefined) ?? 'upfront';
	const resultKey = typeof options.resultKey === 'string' ? options.resultKey : '';
	const scored = items.map((item, i) => {
		const entries = Object.entries(rows[i]);
		const scores: Record<string, Score> = {};
		const front: IDataObject[] = [];
		for (const [own, s] of entries) {
			// Result Key renames the score of a single-score node.
			const key = resultKey && entries.length === 1 ? resultKey : own;
			// Only an error carries the row's label: no label is built for the other rows.
			scores[key] = s.status === 'error' ? labelRowError(s, rowLabel(item, i)) : s;
			const extra =
				format === 'flat' && scorer.flatFields
					? scorer.flatFields(key, scores[key])
					: formatFields(format, key, scores[key], scorer.factsOf(own));
			front.push(extra);
		}
		let fields = scorer.rowFields?.(i);
		if (fields && format === 'databricks')
			fields = { ...fields, ...figureColumnFields(fields, scorer.figureColumns) };
		const out = withScore(item, i, scores, front, { replace: format !== 'upfront', fields });
		return { item: out, score: routingScore(Object.values(scores)) };
	});
	return routeScored(ctx, scored);
}
