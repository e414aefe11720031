import { answerRelevancy } from '../../src/embeddings/answerRelevancy';
import { embeddingNodeClass } from '../shared/embeddingNode';

export class EvalAnswerRelevancy extends embeddingNodeClass(answerRelevancy) {}
