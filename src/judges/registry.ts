/**
 * The explicit list of LLM judges, validated at load: unique ids, every prompt placeholder
 * declared, every declared input used by the prompt. A broken declaration fails at import, not
 * at the first row of a user's workflow.
 */
import { placeholderProblems } from './prompt';
import { coherence, fluency, similarity } from './specs/quality';
import { groundedness, groundednessVerdict } from './specs/groundedness';
import { relevance, relevanceConversation, relevanceConversationGt } from './specs/relevance';
import { retrieval } from './specs/retrieval';
import { chunkRelevance } from './specs/chunkRelevance';
import { contextSufficiency } from './specs/contextSufficiency';
import { correctness } from './specs/correctness';
import { customJudge } from './specs/custom';
import { factCheck } from './specs/factCheck';
import { guidelineAdherence } from './specs/guidelineAdherence';
import { relevanceToQuery } from './specs/relevanceToQuery';
import { safety } from './specs/safety';
import { springRelevancy } from './specs/springRelevancy';
import type { JudgeDecl } from './types';

/** Problems in one declaration; empty when valid. */
export function validateJudge(decl: JudgeDecl): string[] {
	const problems = placeholderProblems(decl, decl.prompt, true).map((p) => `${decl.id}: ${p}`);
	const inputNames = new Set(decl.inputs.map((i) => i.name));
	for (const p of decl.params) {
		if (inputNames.has(p.name))
			problems.push(`${decl.id}: '${p.name}' is both an input and a param`);
	}
	if (!/^[a-zA-Z0-9_-]{1,64}$/.test(decl.output.name)) {
		problems.push(`${decl.id}: output name '${decl.output.name}' is not a valid schema name`);
	}
	const props = decl.output.jsonSchema.properties as Record<string, unknown> | undefined;
	const keys = props ? Object.keys(props) : [];
	if (keys[0] !== 'reason' && !keys.slice(0, -1).includes('reason')) {
		problems.push(`${decl.id}: the output schema must ask for the reason before the verdict`);
	}
	if (decl.threshold.default < decl.scale.min || decl.threshold.default > decl.scale.max) {
		problems.push(`${decl.id}: default threshold outside the scale`);
	}
	return problems;
}

/** Throws with every problem found when the list is invalid. */
export function validateRegistry(decls: ReadonlyArray<JudgeDecl>): void {
	const problems: string[] = [];
	const seen = new Set<string>();
	for (const d of decls) {
		if (seen.has(d.id)) problems.push(`duplicate judge id '${d.id}'`);
		seen.add(d.id);
		problems.push(...validateJudge(d));
	}
	if (problems.length > 0) throw new Error(`Invalid judge registry:\n${problems.join('\n')}`);
}

/** Every LLM judge of the package, in display order. */
export const judgeRegistry: JudgeDecl[] = [
	groundedness,
	groundednessVerdict,
	relevance,
	relevanceConversation,
	relevanceConversationGt,
	coherence,
	fluency,
	similarity,
	retrieval,
	relevanceToQuery,
	safety,
	correctness,
	chunkRelevance,
	contextSufficiency,
	guidelineAdherence,
	springRelevancy,
	factCheck,
	// Custom judges come last (seed 001); the node builds one declaration per name from this template.
	customJudge,
];

validateRegistry(judgeRegistry);

/** Looks a judge up by id. */
export function getJudge(id: string): JudgeDecl | undefined {
	return judgeRegistry.find((d) => d.id === id);
}
