import { agentGoalAccuracy } from '../../src/judges/specs/goalAccuracy';
import { judgeNodeClass } from '../shared/judgeNode';

/** The Agent Goal Accuracy judge as an n8n node; everything about it is declared in src/judges/specs/goalAccuracy.ts. */
export class JudgeAgentGoalAccuracy extends judgeNodeClass(agentGoalAccuracy) {}
