import { groundednessVerdict } from '../../src/judges/specs/groundedness';
import { judgeNodeClass } from '../shared/judgeNode';

/** The groundedness_verdict judge as an n8n node; everything about it is declared in src/judges/specs/groundedness.ts. */
export class JudgeGroundednessVerdict extends judgeNodeClass(groundednessVerdict) {}
