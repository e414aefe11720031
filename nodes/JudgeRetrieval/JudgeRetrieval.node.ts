import { retrieval } from '../../src/judges/specs/retrieval';
import { judgeNodeClass } from '../shared/judgeNode';

/** The retrieval judge as an n8n node; everything about it is declared in src/judges/specs/retrieval.ts. */
export class JudgeRetrieval extends judgeNodeClass(retrieval) {}
