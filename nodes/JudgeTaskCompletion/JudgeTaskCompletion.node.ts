import { taskCompletion } from '../../src/judges/specs/azureAgent';
import { judgeNodeClass } from '../shared/judgeNode';

/** The Task Completion judge as an n8n node; everything about it is declared in src/judges/specs/azureAgent.ts. */
export class JudgeTaskCompletion extends judgeNodeClass(taskCompletion) {}
