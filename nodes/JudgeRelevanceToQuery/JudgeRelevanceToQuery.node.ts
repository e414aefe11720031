import { relevanceToQuery } from '../../src/judges/specs/relevanceToQuery';
import { judgeNodeClass } from '../shared/judgeNode';

/** The relevance_to_query judge as an n8n node; everything about it is declared in src/judges/specs/relevanceToQuery.ts. */
export class JudgeRelevanceToQuery extends judgeNodeClass(relevanceToQuery) {}
