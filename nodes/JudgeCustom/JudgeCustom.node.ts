import { CustomJudgeNode } from '../shared/customJudgeNode';

/** The Custom Judge as an n8n node; its settings build the declaration of src/judges/specs/custom.ts. */
export class JudgeCustom extends CustomJudgeNode {}
