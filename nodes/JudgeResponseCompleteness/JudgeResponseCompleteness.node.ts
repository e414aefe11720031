import { responseCompleteness } from '../../src/judges/specs/azureAgent';
import { judgeNodeClass } from '../shared/judgeNode';

/** The Response Completeness judge as an n8n node; everything about it is declared in src/judges/specs/azureAgent.ts. */
export class JudgeResponseCompleteness extends judgeNodeClass(responseCompleteness) {}
