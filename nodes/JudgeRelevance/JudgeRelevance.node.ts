import { relevance } from '../../src/judges/specs/relevance';
import { judgeNodeClass } from '../shared/judgeNode';

/** The relevance judge as an n8n node; everything about it is declared in src/judges/specs/relevance.ts. */
export class JudgeRelevance extends judgeNodeClass(relevance) {}
