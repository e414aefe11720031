/**
 * Semantic Similarity: the cosine of the embeddings of the response and the expected response.
 *
 * Reference behaviour matched:
 * - Ragas `SemanticSimilarity` (ragas/metrics/_answer_similarity.py): both texts embedded with the
 *   same model, score = cosine of the two vectors (Ragas normalises them and takes the dot
 *   product, which is the cosine); no rescaling.
 * - promptfoo `similar` assertion (src/assertions/similar.ts): the raw cosine of the two
 *   embeddings passes at or above the assertion's threshold, 0.75 when none is given. That is
 *   our default threshold.
 * - autoevals `EmbeddingSimilarity` (js/string.ts, py/autoevals/string.py): the cosine rescaled
 *   from a floor, `max(0, (cos - expectedMin) / (1 - expectedMin))` with `expectedMin = 0.7`,
 *   because the raw cosines of most embedding models rarely fall below about 0.7 even for
 *   unrelated texts. Our Rescaled mode is that formula; its floor is the Rescale Floor param.
 * A text whose vector has no length (all zeros) or two vectors of different lengths are the row's
 * error, never a score.
 */
import { errorScore, notApplicableScore, okScore, scoreBase, signatureOf } from '../core/score';
import { readRow } from '../core/inputs';
import type { ParamDecl } from '../core/types';
import { ModelCallError } from '../judges/errors';
import { groundTruthInput, responseInput } from '../judges/specs/common';
import { embedTexts } from './embed';
import type { EmbeddingMetricDecl } from './types';

/** The cosine of two vectors; undefined when either has no length. Throws on unequal lengths. */
export function cosine(a: ReadonlyArray<number>, b: ReadonlyArray<number>): number | undefined {
	if (a.length !== b.length)
		throw new Error(`the two vectors have different lengths (${a.length} and ${b.length})`);
	let dot = 0;
	let na = 0;
	let nb = 0;
	for (let i = 0; i < a.length; i++) {
		dot += a[i] * b[i];
		na += a[i] * a[i];
		nb += b[i] * b[i];
	}
	if (na === 0 || nb === 0) return undefined;
	// Rounding can take the cosine of two equal vectors a hair past 1.
	return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

/** autoevals' rescaling: `max(0, (cos - floor) / (1 - floor))`, so the floor maps to 0 and 1 to 1. */
export function rescaleCosine(cos: number, floor: number): number {
	if (!(floor < 1)) throw new Error(`the rescale floor must be below 1, got ${floor}`);
	return Math.max(0, (cos - floor) / (1 - floor));
}

/** The default floor of Rescaled mode: autoevals' `expectedMin`. */
export const DEFAULT_RESCALE_FLOOR = 0.7;

const scoreModeParam: ParamDecl = {
	name: 'scoreMode',
	displayName: 'Score',
	type: 'options',
	default: 'raw',
	options: [
		{ name: 'Raw Cosine (Ragas, promptfoo)', value: 'raw' },
		{ name: 'Rescaled From a Floor (autoevals)', value: 'rescaled' },
	],
	description:
		'Raw: the cosine of the two embeddings (-1 to 1). Rescaled: (cosine - floor) / (1 - floor), at least 0, as autoevals EmbeddingSimilarity scores it. The threshold applies to the chosen score.',
};

const floorParam: ParamDecl = {
	name: 'rescaleFloor',
	displayName: 'Rescale Floor',
	type: 'number',
	default: DEFAULT_RESCALE_FLOOR,
	description:
		"Rescaled mode: the raw cosine that maps to 0 (autoevals' expectedMin, 0.7: most models' cosines of unrelated texts sit near it)",
};

function modeOf(params: Record<string, unknown>): { mode: 'raw' | 'rescaled'; floor: number } {
	const mode = params.scoreMode === 'rescaled' ? 'rescaled' : 'raw';
	const f = params.rescaleFloor;
	return { mode, floor: typeof f === 'number' && Number.isFinite(f) ? f : DEFAULT_RESCALE_FLOOR };
}

/** `metric:semantic_similarity@1|embed:<model>|cos:raw` (or `cos:rescaled-from-0.7`). */
function similaritySignature(
	decl: EmbeddingMetricDecl,
	model: string,
	params: Record<string, unknown>,
): string {
	const { mode, floor } = modeOf(params);
	return signatureOf(
		'metric',
		decl,
		`embed:${model}`,
		mode === 'raw' ? 'cos:raw' : `cos:rescaled-from-${floor}`,
	);
}

/** Semantic Similarity, declared once: the node, docs table and registry come from it. */
export const semanticSimilarity: EmbeddingMetricDecl = {
	id: 'semantic_similarity',
	version: '1',
	displayName: 'Semantic Similarity',
	description:
		"Cosine similarity of the response's and the expected response's embeddings (a connected Embeddings node or the credential's /embeddings), raw or rescaled from a floor",
	reference:
		'Ragas SemanticSimilarity (raw cosine); promptfoo `similar` (raw cosine, default threshold 0.75, ours); autoevals EmbeddingSimilarity (Rescaled mode: max(0, (cos - 0.7) / (1 - 0.7)))',
	anchorNames: ['SemanticSimilarity', 'EmbeddingSimilarity', 'similar', 'embedding_similarity'],
	inputs: [
		responseInput,
		{ ...groundTruthInput, displayName: 'Expected Response', description: 'The reference answer' },
	],
	params: [scoreModeParam, floorParam],
	scale: { kind: 'unit', min: -1, max: 1 },
	threshold: { default: 0.75, direction: 'higher' },
	signature: similaritySignature,
	async score(values, ctx) {
		const params = ctx.params ?? {};
		const { mode, floor } = modeOf(params);
		const sign = (model: string) =>
			scoreBase(
				semanticSimilarity,
				semanticSimilarity.id,
				similaritySignature(semanticSimilarity, model, params),
				ctx.threshold,
			);
		const base = sign(ctx.source.model);
		const read = readRow(semanticSimilarity.inputs, values);
		if (!read.ok)
			return 'missing' in read
				? notApplicableScore(base, read.reason)
				: errorScore(base, read.error.message);
		if (mode === 'rescaled' && !(floor < 1))
			return errorScore(base, `Rescale Floor must be below 1, got ${floor}`);
		const response = read.values.response as string;
		const expected = read.values.expectedResponse as string;
		let embedded;
		try {
			embedded = await embedTexts([response, expected], ctx);
		} catch (e) {
			const err = e instanceof ModelCallError ? e : undefined;
			return errorScore(
				base,
				`Semantic Similarity: the embedding call failed: ${(e as Error).message}`,
				{
					attempts: err?.cost?.attempts,
					model: ctx.source.model,
					latencyMs: err?.cost?.latencyMs,
					details: {
						errorKind: err?.kind,
						...(err?.cost?.cache ? { cache: err.cost.cache } : {}),
					},
				},
			);
		}
		const [a, b] = embedded.vectors;
		const signed = sign(embedded.model);
		const extras = {
			usage: embedded.cost.usage,
			model: embedded.model,
			latencyMs: embedded.cost.latencyMs,
			attempts: embedded.cost.attempts,
		};
		let cos: number | undefined;
		try {
			cos = cosine(a, b);
		} catch (e) {
			return errorScore(signed, `Semantic Similarity: ${(e as Error).message}`, extras);
		}
		if (cos === undefined) {
			const which = Math.hypot(...a) === 0 ? 'response' : 'expected_response';
			return errorScore(
				signed,
				`Semantic Similarity: the embedding of ${which} is all zeros, so it has no direction to compare`,
				extras,
			);
		}
		const value = mode === 'raw' ? cos : rescaleCosine(cos, floor);
		const score = okScore(signed, value, {
			...extras,
			details: {
				cosine: cos,
				...(mode === 'rescaled' ? { rescaledFrom: floor } : {}),
				dimensions: a.length,
				...(embedded.usageEstimated ? { usageEstimated: true } : {}),
				...(embedded.cost.cache ? { cache: embedded.cost.cache } : {}),
			},
		});
		if (embedded.cost.cache?.hit) score.cached = true;
		return score;
	},
};
