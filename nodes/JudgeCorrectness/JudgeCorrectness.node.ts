import { correctness } from '../../src/judges/specs/correctness';
import { judgeNodeClass } from '../shared/judgeNode';

/** The correctness judge as an n8n node; everything about it is declared in src/judges/specs/correctness.ts. */
export class JudgeCorrectness extends judgeNodeClass(correctness) {}
