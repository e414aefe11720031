import { safety } from '../../src/judges/specs/safety';
import { judgeNodeClass } from '../shared/judgeNode';

/** The safety judge as an n8n node; everything about it is declared in src/judges/specs/safety.ts. */
export class JudgeSafety extends judgeNodeClass(safety) {}
