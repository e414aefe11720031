import { intentResolution } from '../../src/judges/specs/azureAgent';
import { judgeNodeClass } from '../shared/judgeNode';

/** The Intent Resolution judge as an n8n node; everything about it is declared in src/judges/specs/azureAgent.ts. */
export class JudgeIntentResolution extends judgeNodeClass(intentResolution) {}
