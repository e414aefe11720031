import { semanticSimilarity } from '../../src/embeddings/similarity';
import { embeddingNodeClass } from '../shared/embeddingNode';

export class EvalSemanticSimilarity extends embeddingNodeClass(semanticSimilarity) {}
