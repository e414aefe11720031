import { similarity } from '../../src/judges/specs/quality';
import { judgeNodeClass } from '../shared/judgeNode';

/** The similarity judge as an n8n node; everything about it is declared in src/judges/specs/quality.ts. */
export class JudgeSimilarity extends judgeNodeClass(similarity) {}
