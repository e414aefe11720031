import { fluency } from '../../src/judges/specs/quality';
import { judgeNodeClass } from '../shared/judgeNode';

/** The fluency judge as an n8n node; everything about it is declared in src/judges/specs/quality.ts. */
export class JudgeFluency extends judgeNodeClass(fluency) {}
