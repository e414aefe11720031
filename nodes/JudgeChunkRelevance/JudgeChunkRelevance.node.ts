import { chunkRelevance } from '../../src/judges/specs/chunkRelevance';
import { judgeNodeClass } from '../shared/judgeNode';

/** The chunk_relevance judge as an n8n node; everything about it is declared in src/judges/specs/chunkRelevance.ts. */
export class JudgeChunkRelevance extends judgeNodeClass(chunkRelevance) {}
