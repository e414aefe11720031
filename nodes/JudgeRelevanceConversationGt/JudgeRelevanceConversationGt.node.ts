import { relevanceConversationGt } from '../../src/judges/specs/relevance';
import { judgeNodeClass } from '../shared/judgeNode';

/** The relevance_conversation_gt judge as an n8n node; everything about it is declared in src/judges/specs/relevance.ts. */
export class JudgeRelevanceConversationGt extends judgeNodeClass(relevanceConversationGt) {}
