import { toolCallAccuracy } from '../../src/judges/specs/azureAgent';
import { judgeNodeClass } from '../shared/judgeNode';

/** The Tool Call Accuracy judge as an n8n node; everything about it is declared in src/judges/specs/azureAgent.ts. */
export class JudgeToolCallAccuracy extends judgeNodeClass(toolCallAccuracy) {}
