/**
 * Deterministic retrieval metrics over document URIs: Databricks `document_recall` (seed 001:
 * how many of the known relevant documents the retriever found, from
 * `expected_retrieved_context[].doc_uri`) and the usual ranking metrics precision@k, recall@k,
 * hit rate@k, MRR and NDCG@k, from `retrieved_context[].doc_uri` in rank order.
 * Conventions (as trec_eval / pytrec_eval): a URI retrieved twice counts once, at its first rank
 * (two chunks of one document are one document); a retrieved chunk without a URI occupies its rank
 * and is never relevant; precision@k divides by k even when fewer than k documents came back;
 * NDCG uses linear gain rel / log2(rank + 1) by default (exponential 2^rel - 1 on request, as Azure's
 * document-retrieval evaluator), binary relevance unless the expected context carries a `grade` (or
 * `relevance`), and its ideal ranking is the expected documents by grade. An empty
 * retrieval scores 0; a row without expected documents is not applicable.
 */
import type { ContextDoc } from '../core/inputs';
import type { InputDecl, MetricDecl, MetricResult, ParamDecl } from '../core/types';

/** A relevant document and its grade (1 when ungraded). */
export interface ExpectedDoc {
	uri: string;
	grade: number;
}

/** Retrieved URIs in rank order with repeats removed; `undefined` keeps a URI-less rank. */
export function rankedUris(retrieved: ReadonlyArray<string | undefined>): (string | undefined)[] {
	const seen = new Set<string>();
	const out: (string | undefined)[] = [];
	for (const u of retrieved) {
		if (u === undefined) out.push(undefined);
		else if (!seen.has(u)) {
			seen.add(u);
			out.push(u);
		}
	}
	return out;
}

function gradesOf(expected: ReadonlyArray<ExpectedDoc>): Map<string, number> {
	const m = new Map<string, number>();
	for (const e of expected) m.set(e.uri, Math.max(m.get(e.uri) ?? 0, e.grade));
	return m;
}

function relevantSet(expected: ReadonlyArray<ExpectedDoc>): Set<string> {
	return new Set([...gradesOf(expected)].filter(([, g]) => g > 0).map(([u]) => u));
}

function checkK(k: number): void {
	if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

function hitsAtK(retrieved: ReadonlyArray<string | undefined>, rel: Set<string>, k: number) {
	return rankedUris(retrieved)
		.slice(0, k)
		.filter((u) => u !== undefined && rel.has(u)).length;
}

/** Share of the expected documents found anywhere in the retrieval (Databricks document_recall). */
export function documentRecall(
	retrieved: ReadonlyArray<string | undefined>,
	expected: ReadonlyArray<ExpectedDoc>,
): number {
	const rel = relevantSet(expected);
	if (rel.size === 0) throw new RangeError('no relevant expected document');
	return hitsAtK(retrieved, rel, Infinity) / rel.size;
}

/** Relevant documents among the first k, divided by k. */
export function precisionAtK(
	retrieved: ReadonlyArray<string | undefined>,
	expected: ReadonlyArray<ExpectedDoc>,
	k: number,
): number {
	checkK(k);
	return hitsAtK(retrieved, relevantSet(expected), k) / k;
}

/** Share of the relevant documents found among the first k. */
export function recallAtK(
	retrieved: ReadonlyArray<string | undefined>,
	expected: ReadonlyArray<ExpectedDoc>,
	k: number,
): number {
	checkK(k);
	const rel = relevantSet(expected);
	if (rel.size === 0) throw new RangeError('no relevant expected document');
	return hitsAtK(retrieved, rel, k) / rel.size;
}

/** 1 when a relevant document is among the first k, else 0. */
export function hitRateAtK(
	retrieved: ReadonlyArray<string | undefined>,
	expected: ReadonlyArray<ExpectedDoc>,
	k: number,
): number {
	checkK(k);
	return hitsAtK(retrieved, relevantSet(expected), k) > 0 ? 1 : 0;
}

/** Reciprocal rank of the first relevant document (0 when none is retrieved). */
export function reciprocalRank(
	retrieved: ReadonlyArray<string | undefined>,
	expected: ReadonlyArray<ExpectedDoc>,
): number {
	const rel = relevantSet(expected);
	const i = rankedUris(retrieved).findIndex((u) => u !== undefined && rel.has(u));
	return i < 0 ? 0 : 1 / (i + 1);
}

/**
 * How a grade becomes gain in NDCG: `linear` (the grade itself, as trec_eval's ndcg_cut) or
 * `exponential` (2^grade - 1, as Azure AI Evaluation's DocumentRetrievalEvaluator computes
 * ndcg@3, after Burges et al. 2005). Binary relevance gives the same gains either way.
 */
export type NdcgGain = 'linear' | 'exponential';

const GAIN: Record<NdcgGain, (g: number) => number> = {
	linear: (g) => g,
	exponential: (g) => 2 ** g - 1,
};

/** NDCG@k: DCG of the ranking over DCG of the expected documents sorted by grade. */
export function ndcgAtK(
	retrieved: ReadonlyArray<string | undefined>,
	expected: ReadonlyArray<ExpectedDoc>,
	k: number,
	gain: NdcgGain = 'linear',
): number {
	checkK(k);
	const gainOf = GAIN[gain];
	if (gainOf === undefined) throw new RangeError(`gain must be linear or exponential, got ${gain}`);
	const grades = gradesOf(expected);
	let dcg = 0;
	rankedUris(retrieved)
		.slice(0, k)
		.forEach((u, i) => {
			const g = u === undefined ? 0 : (grades.get(u) ?? 0);
			dcg += gainOf(g) / Math.log2(i + 2);
		});
	const ideal = [...grades.values()]
		.filter((g) => g > 0)
		.sort((a, b) => b - a)
		.slice(0, k)
		.reduce((s, g, i) => s + gainOf(g) / Math.log2(i + 2), 0);
	if (ideal === 0) throw new RangeError('no relevant expected document');
	return dcg / ideal;
}

/**
 * Reads expected documents: strings are URIs; objects give `doc_uri` (or `id`, `url`) and an
 * optional non-negative `grade` (or `relevance`). Entries without a URI are skipped; throws when
 * none has one, naming the field.
 */
export function readExpectedDocs(v: unknown, field = 'expected_retrieved_context'): ExpectedDoc[] {
	let value = v;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value) as unknown;
		} catch {
			value = [value];
		}
	}
	if (!Array.isArray(value)) throw new TypeError(`${field}: expected a list of documents`);
	const out: ExpectedDoc[] = [];
	value.forEach((d, i) => {
		if (typeof d === 'string') {
			if (d.trim() !== '') out.push({ uri: d, grade: 1 });
			return;
		}
		if (!d || typeof d !== 'object') throw new TypeError(`${field}[${i}]: expected a document`);
		const o = d as Record<string, unknown>;
		const uri = o.doc_uri ?? o.id ?? o.url;
		if (uri === undefined || uri === null || uri === '') return;
		if (typeof uri !== 'string' && typeof uri !== 'number')
			throw new TypeError(`${field}[${i}].doc_uri: expected string`);
		const g = o.grade ?? o.relevance;
		if (g !== undefined && (typeof g !== 'number' || !Number.isFinite(g) || g < 0))
			throw new TypeError(`${field}[${i}].grade: expected a non-negative number`);
		out.push({ uri: String(uri), grade: g === undefined ? 1 : (g as number) });
	});
	if (out.length === 0)
		throw new TypeError(`${field}: no document has a doc_uri, so retrieval cannot be measured`);
	return out;
}

const retrievedInput: InputDecl = {
	name: 'retrieved',
	displayName: 'Retrieved Context',
	field: 'retrieved_context',
	kind: 'contexts',
	required: false,
	description:
		'Retrieved documents in rank order: a list of {doc_uri, content?}; missing or empty counts as nothing retrieved',
};

const expectedInput: InputDecl = {
	name: 'expected',
	displayName: 'Expected Retrieved Context',
	field: 'expected_retrieved_context',
	kind: 'json',
	required: true,
	blankIsMissing: true,
	description:
		'Documents that should be retrieved: a list of {doc_uri, grade?} or of URIs; none makes the row not applicable',
};

const kParam = {
	name: 'k',
	displayName: 'K',
	type: 'number' as const,
	default: 5,
	description: 'How many of the top-ranked documents count',
};

function args(inputs: Record<string, unknown>): [(string | undefined)[], ExpectedDoc[]] {
	const docs = (inputs.retrieved as ContextDoc[] | undefined) ?? [];
	return [docs.map((d) => d.doc_uri), readExpectedDocs(inputs.expected)];
}

function kOf(params: Record<string, unknown>): number {
	const k = params.k;
	if (typeof k !== 'number') throw new TypeError('k must be a number');
	return k;
}

function detailsOf(inputs: Record<string, unknown>, k?: number): Record<string, unknown> {
	const [ret, exp] = args(inputs);
	const rel = relevantSet(exp);
	const ranked = rankedUris(ret);
	return {
		...(k !== undefined ? { k } : {}),
		retrieved: ranked.length,
		expected: rel.size,
		found: ranked.filter((u) => u !== undefined && rel.has(u)),
	};
}

interface RetrievalMetricSpec {
	id: string;
	displayName: string;
	description: string;
	reference: string;
	anchorNames: string[];
	atK: boolean;
	/** Parameters beyond K (NDCG's gain). */
	params?: ParamDecl[];
	fn(
		retrieved: (string | undefined)[],
		expected: ExpectedDoc[],
		k: number,
		params: Record<string, unknown>,
	): number;
}

function retrievalMetric(spec: RetrievalMetricSpec, extra: Partial<MetricDecl> = {}): MetricDecl {
	return {
		id: spec.id,
		version: '1',
		displayName: spec.displayName,
		description: spec.description,
		reference: spec.reference,
		anchorNames: spec.anchorNames,
		inputs: [retrievedInput, expectedInput],
		params: [...(spec.atK ? [kParam] : []), ...(spec.params ?? [])],
		scale: { kind: 'unit', min: 0, max: 1 },
		threshold: { default: 0.5, direction: 'higher' },
		signatureParts: 'match:doc_uri|dedupe:first-rank',
		compute(inputs, params): MetricResult {
			const k = spec.atK ? kOf(params) : undefined;
			const [ret, exp] = args(inputs);
			return { value: spec.fn(ret, exp, k ?? Infinity, params), details: detailsOf(inputs, k) };
		},
		...extra,
	};
}

/** Databricks document_recall (seed 001). */
export const documentRecallMetric = retrievalMetric(
	{
		id: 'document_recall',
		displayName: 'Document Recall',
		description: 'Share of the expected documents (by doc_uri) that the retriever returned',
		reference:
			'Databricks Agent Evaluation document_recall (seed 001): retrieved_context and expected_retrieved_context[].doc_uri',
		anchorNames: ['document_recall'],
		atK: false,
		fn: (r, e) => documentRecall(r, e),
	},
	{
		rootCause: {
			slot: 'document_recall',
			output: 16,
			fix: 'Known relevant documents were not retrieved: raise top-k, tune the retriever or index, and verify the expected document URIs.',
		},
		databricks: {
			column: 'retrieval/ground_truth/document_recall',
			runMetric: 'retrieval/ground_truth/document_recall/average',
		},
	},
);

/** Precision@k. */
export const precisionAtKMetric = retrievalMetric({
	id: 'precision_at_k',
	displayName: 'Precision@K',
	description: 'Relevant documents among the top k retrieved, divided by k',
	reference: 'trec_eval P_k over doc_uri (binary relevance)',
	anchorNames: ['P_k', 'precision@k'],
	atK: true,
	fn: precisionAtK,
});

/** Recall@k. */
export const recallAtKMetric = retrievalMetric({
	id: 'recall_at_k',
	displayName: 'Recall@K',
	description: 'Share of the expected documents found among the top k retrieved',
	reference: 'trec_eval recall_k over doc_uri (binary relevance)',
	anchorNames: ['recall_k', 'recall@k'],
	atK: true,
	fn: recallAtK,
});

/** Hit rate@k. */
export const hitRateAtKMetric = retrievalMetric({
	id: 'hit_rate_at_k',
	displayName: 'Hit Rate@K',
	description: '1 when at least one expected document is among the top k retrieved, else 0',
	reference: 'hit rate (success@k) over doc_uri',
	anchorNames: ['success@k', 'hit rate'],
	atK: true,
	fn: hitRateAtK,
});

/** Mean reciprocal rank (per row: the reciprocal rank; the run mean is MRR). */
export const mrrMetric = retrievalMetric({
	id: 'mrr',
	displayName: 'MRR',
	description: 'Reciprocal rank of the first expected document retrieved (0 when none)',
	reference: 'trec_eval recip_rank over doc_uri; the run average is MRR',
	anchorNames: ['recip_rank', 'mean reciprocal rank'],
	atK: false,
	fn: (r, e) => reciprocalRank(r, e),
});

/** NDCG@k. */
export const ndcgAtKMetric = retrievalMetric({
	id: 'ndcg_at_k',
	displayName: 'NDCG@K',
	description:
		'Normalised discounted cumulative gain of the top k, graded when expected documents carry a grade',
	reference:
		'Jarvelin & Kekalainen 2002; trec_eval ndcg_cut_k (linear gain, log2 discount) over doc_uri',
	anchorNames: ['ndcg_cut_k', 'nDCG'],
	atK: true,
	params: [
		{
			name: 'gain',
			displayName: 'Gain',
			type: 'options',
			default: 'linear',
			options: [
				{ name: 'Linear', value: 'linear' },
				{ name: 'Exponential', value: 'exponential' },
			],
			description:
				"How a graded relevance label becomes gain: Linear uses the grade (trec_eval), Exponential 2^grade - 1 (Azure's document-retrieval evaluator, which also uses K = 3). Binary labels score the same either way.",
		},
	],
	fn: (r, e, k, params) => ndcgAtK(r, e, k, (params.gain ?? 'linear') as NdcgGain),
});

/** The retrieval metrics, in the order the Retrieval Metrics node offers them. */
export const retrievalMetrics: MetricDecl[] = [
	documentRecallMetric,
	precisionAtKMetric,
	recallAtKMetric,
	hitRateAtKMetric,
	mrrMetric,
	ndcgAtKMetric,
];
