import { factCheck } from '../../src/judges/specs/factCheck';
import { judgeNodeClass } from '../shared/judgeNode';

/**
 * The fact_check judge (Spring AI FactCheckingEvaluator) as an n8n node; declared in
 * src/judges/specs/factCheck.ts, whose Mode option says what the MiniCheck mode gives up.
 */
export class JudgeFactCheck extends judgeNodeClass(factCheck) {}
