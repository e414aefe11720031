/**
 * Judges register and become nodes without casts. The assignments below are checked by
 * `tsc -p tsconfig.test.json` (jest only transpiles): they stop compiling if `JudgeDecl<T>` no
 * longer widens to `JudgeDecl`, e.g. when a mapper is written as a function-typed property.
 */
import { judgeRegistry, validateRegistry } from '../../../src/judges/registry';
import { customJudgeDecl } from '../../../src/judges/specs/custom';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { relevanceConversationGt } from '../../../src/judges/specs/relevance';
import { retrieval } from '../../../src/judges/specs/retrieval';
import type { JudgeDecl } from '../../../src/judges/types';
import { harmJudgeDecl, indirectAttackJudge } from '../../../src/safety/llm';
import { judgeNodeClass } from '../../../nodes/shared/judgeNode';
import { verbosity } from '../../support/extra-judge';

// Declarations typed with their own verdicts, taken where any judge is expected.
const decls: JudgeDecl[] = [groundedness, relevanceConversationGt, retrieval, verbosity];
const safetyJudges: JudgeDecl[] = [harmJudgeDecl(['violence']), indirectAttackJudge];

// A node stub as every nodes/Judge*/ file writes it.
class JudgeRetrievalStub extends judgeNodeClass(retrieval) {}

describe('judge declarations without casts', () => {
	it('are judges, registry entries and node classes as declared', () => {
		expect(() => validateRegistry(decls)).not.toThrow();
		expect(safetyJudges.map((d) => d.id)).toEqual(['content_safety', 'indirect_attack']);
		expect(judgeRegistry).toContain(retrieval);
		expect(new JudgeRetrievalStub().description.name).toBe('judgeRetrieval');
		expect(
			customJudgeDecl({
				name: 'tone',
				criterion: 'Polite.',
				output: 'choices',
				choices: [
					{ name: 'a', score: 1 },
					{ name: 'b', score: 0 },
				],
			}).toValue({ reason: 'r', choice: 'b' }),
		).toBe(0);
	});
});
