import { relevanceConversation } from '../../src/judges/specs/relevance';
import { judgeNodeClass } from '../shared/judgeNode';

/** The relevance_conversation judge as an n8n node; everything about it is declared in src/judges/specs/relevance.ts. */
export class JudgeRelevanceConversation extends judgeNodeClass(relevanceConversation) {}
