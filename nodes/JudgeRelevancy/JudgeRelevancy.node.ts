import { springRelevancy } from '../../src/judges/specs/springRelevancy';
import { judgeNodeClass } from '../shared/judgeNode';

/** The relevancy judge as an n8n node; everything about it is declared in src/judges/specs/springRelevancy.ts. */
export class JudgeRelevancy extends judgeNodeClass(springRelevancy) {}
