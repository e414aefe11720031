/**
 * Run-level aggregation: `aggregatePartial(items)` folds scored rows into a mergeable JSON partial,
 * `mergePartials(...partials)` combines batches, `finalizeAggregate(partial)` produces the summary.
 * `finalizeAggregate(mergePartials(aggregatePartial(a), aggregatePartial(b)))` equals
 * `finalizeAggregate(aggregatePartial([...a, ...b]))` exactly, percentiles, intervals and corpus
 * BLEU included.
 */
import { aggregatePartial, type AggregateOptions } from './partial';
import { finalizeAggregate, type AggregateSummary, type FinalizeOptions } from './summary';

export * from './partial';
export * from './summary';

/** One-pass convenience: the summary of `items` (the partial is built and finalized at once). */
export function aggregate(
	items: Iterable<Record<string, unknown>>,
	options: AggregateOptions & FinalizeOptions = {},
): AggregateSummary {
	return finalizeAggregate(aggregatePartial(items, options), options);
}
