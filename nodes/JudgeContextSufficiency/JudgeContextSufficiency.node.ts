import { contextSufficiency } from '../../src/judges/specs/contextSufficiency';
import { judgeNodeClass } from '../shared/judgeNode';

/** The context_sufficiency judge as an n8n node; everything about it is declared in src/judges/specs/contextSufficiency.ts. */
export class JudgeContextSufficiency extends judgeNodeClass(contextSufficiency) {}
