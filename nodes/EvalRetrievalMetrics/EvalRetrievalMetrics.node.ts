import { retrievalMetrics } from '../../src/metrics/retrieval';
import { metricFamilyNodeClass } from '../shared/metricFamilyNode';

/** Retrieval Metrics: document recall, precision/recall/hit rate@k, MRR and NDCG@k over doc_uri. */
export class EvalRetrievalMetrics extends metricFamilyNodeClass(
	'evalRetrievalMetrics',
	'Retrieval Metrics',
	'Document recall, precision@k, recall@k, hit rate@k, MRR and NDCG@k from retrieved and expected doc_uri',
	retrievalMetrics,
	['retrieval', 'retriever', 'search quality', 'ranking'],
) {}
