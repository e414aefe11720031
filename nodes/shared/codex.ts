/**
 * The codex of every node: the categories and words n8n's nodes panel files and finds it by.
 * One declaration for the package; each node class only says which families it belongs to and
 * which names its anchors give it (`static search`), and the build writes the `.node.json` codex
 * file from {@link nodeCodex} (scripts/build.js).
 *
 * Why no "AI" category (docs/decisions.md, "Codex: found from every nodes panel"): in n8n 2.41
 * the panel's search drops every node whose categories include "AI" unless its AI subcategories
 * include "Root Nodes", whenever the canvas has no LangChain node, and always when the panel was
 * opened from a node's output "+" or a dropped connection. With "Development" only, our nodes are
 * never filtered out, rank by how well they match, and are listed with the app nodes too.
 */
import type { INodeType } from 'n8n-workflow';
import type { EvaluatorFacts } from '../../src/core/types';
import type { JsonSchema } from './outputSchema';

/** The families a node belongs to; each adds its words to the node's search aliases. */
export type NodeFamily =
	| 'metric'
	| 'judge'
	| 'safety'
	| 'red-team'
	| 'dataset'
	| 'run'
	| 'review'
	| 'monitoring';

/** What a node is found by besides its display name. */
export interface NodeSearch {
	families: NodeFamily[];
	/** The node's own words (what it does, in the words people search with). */
	words?: string[];
	/** What the anchors call it: class, function and scorer names (EvaluatorFacts.anchorNames). */
	anchors?: string[];
}

/**
 * A node class as the build reads it: n8n's constructor, what the node is found by, and the
 * output schema of a node whose output its declarations give (nodes/shared/outputSchema.ts).
 */
export type SearchableNodeClass = (new () => INodeType) & {
	readonly search: NodeSearch;
	readonly outputSchema?: JsonSchema;
};

/** The codex the build writes beside each node (`<Node>.node.json`), without its resources. */
export interface NodeCodex {
	categories: string[];
	subcategories: Record<string, string[]>;
	alias: string[];
}

/** The package's category in the nodes panel, and its subcategory there. */
export const CODEX_CATEGORIES = ['Development'];
export const CODEX_SUBCATEGORIES: Record<string, string[]> = { Development: ['RAG Evaluation'] };

/** Words every node of the package is found by: it evaluates LLM, RAG and agent apps. */
export const PACKAGE_WORDS = ['eval', 'evaluation', 'rag', 'llm', 'agent', 'rag evaluation'];

/** Words of each family. */
export const FAMILY_WORDS: Record<NodeFamily, string[]> = {
	metric: ['metric', 'score', 'scorer'],
	judge: ['judge', 'llm judge', 'llm-as-a-judge', 'metric', 'grader', 'scorer'],
	safety: ['safety', 'harm', 'risk', 'moderation', 'guardrail', 'metric'],
	'red-team': ['red team', 'red teaming', 'attack', 'jailbreak', 'adversarial', 'safety'],
	dataset: ['dataset', 'golden set', 'test set', 'eval set'],
	run: ['run', 'results', 'metrics'],
	review: ['review', 'human review', 'labels', 'annotation', 'feedback'],
	monitoring: ['monitoring', 'production', 'traces', 'observability'],
};

/**
 * The names an evaluator is searched by: its anchors' names, and its id as the anchors spell it
 * (`relevance_to_query`) and as words (`relevance to query`).
 */
export function evaluatorNames(
	facts: ReadonlyArray<Pick<EvaluatorFacts, 'id' | 'anchorNames'>>,
): string[] {
	return facts.flatMap((f) => [
		...(f.anchorNames ?? []),
		f.id,
		...(f.id.includes('_') ? [f.id.replace(/_/g, ' ')] : []),
	]);
}

/** The codex of a node: the package category, and every word it is found by, each once. */
export function nodeCodex(displayName: string, search: NodeSearch): NodeCodex {
	const words = [
		...PACKAGE_WORDS,
		...search.families.flatMap((f) => FAMILY_WORDS[f]),
		...(search.words ?? []),
		...(search.anchors ?? []),
		displayName,
	];
	const seen = new Set<string>();
	const alias: string[] = [];
	for (const w of words) {
		const key = w.toLowerCase();
		if (seen.has(key)) continue;
		seen.add(key);
		alias.push(w);
	}
	return {
		categories: [...CODEX_CATEGORIES],
		subcategories: Object.fromEntries(
			Object.entries(CODEX_SUBCATEGORIES).map(([k, v]) => [k, [...v]]),
		),
		alias,
	};
}
