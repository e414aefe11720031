import { agentGoalAccuracyWithoutReference } from '../../src/judges/specs/goalAccuracy';
import { judgeNodeClass } from '../shared/judgeNode';

/** The Agent Goal Accuracy (Without Reference) judge as an n8n node; everything about it is declared in src/judges/specs/goalAccuracy.ts. */
export class JudgeAgentGoalAccuracyWithoutReference extends judgeNodeClass(
	agentGoalAccuracyWithoutReference,
) {}
