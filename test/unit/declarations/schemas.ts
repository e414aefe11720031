/**
 * Every JSON schema the package sends as `response_format`, keyed by where it comes from: the
 * registry's judges, the chunk-relevance batched call, the custom judge's output kinds and the
 * safety LLM judges (every harm category set). judge-schemas.test.ts compares them with the
 * schemas recorded in fixtures/judge-json-schemas.json (the hand-written ones, before the JSON
 * schemas were derived from the zod schemas).
 */
import { judgeRegistry } from '../../../src/judges/registry';
import { chunkRelevance } from '../../../src/judges/specs/chunkRelevance';
import { customJudgeDecl, type CustomJudgeConfig } from '../../../src/judges/specs/custom';
import type { JudgeDecl } from '../../../src/judges/types';
import { HARM_CATEGORIES, type HarmCategory } from '../../../src/safety/levels';
import {
	harmJudgeDecl,
	indirectAttackJudge,
	protectedMaterialJudge,
} from '../../../src/safety/llm';

/** What one declaration sends: the schema's name and the schema. */
export interface SentSchema {
	name: string;
	jsonSchema: Record<string, unknown>;
}

const CUSTOM: Record<string, CustomJudgeConfig> = {
	yes_no: { name: 'tone', criterion: 'Polite.', output: 'yes_no' },
	scale: { name: 'tone', criterion: 'Polite.', output: 'scale' },
	choices: {
		name: 'tone',
		criterion: 'Polite.',
		output: 'choices',
		choices: [
			{ name: 'Polite', score: 1 },
			{ name: 'Neutral', score: 0.5 },
			{ name: 'Rude', score: 0 },
		],
	},
	per_chunk: { name: 'on_topic', criterion: 'On topic.', output: 'yes_no', perChunk: true },
};

/** The batched chunk-relevance declaration for a row of `n` chunks (built by its fan-out). */
function batchedChunkDecl(n: number): JudgeDecl {
	const context = Array.from({ length: n }, (_, i) => ({ content: `chunk ${i + 1}` }));
	const calls = chunkRelevance.fanOut!.split({ request: 'q', context }, { chunkMode: 'batched' });
	if (!Array.isArray(calls) || calls.length !== 1 || !calls[0].decl)
		throw new Error('chunk relevance no longer builds one batched call');
	return calls[0].decl;
}

/** Every non-empty subset of the harm categories, in their order. */
function harmSubsets(): HarmCategory[][] {
	const out: HarmCategory[][] = [];
	for (let mask = 1; mask < 1 << HARM_CATEGORIES.length; mask++)
		out.push(HARM_CATEGORIES.filter((_, i) => mask & (1 << i)));
	return out;
}

/** Every schema sent, by key (`judge/<id>`, `custom/<kind>`, `safety/...`). */
export function sentSchemas(): Record<string, SentSchema> {
	const out: Record<string, SentSchema> = {};
	const put = (key: string, decl: Pick<JudgeDecl, 'output'>): void => {
		out[key] = { name: decl.output.name, jsonSchema: decl.output.jsonSchema };
	};
	for (const d of judgeRegistry) put(`judge/${d.id}`, d);
	for (const n of [1, 3]) put(`judge/chunk_relevance/batched/${n}`, batchedChunkDecl(n));
	for (const [kind, config] of Object.entries(CUSTOM))
		put(`custom/${kind}`, customJudgeDecl(config));
	for (const cats of harmSubsets()) put(`safety/harms/${cats.join('+')}`, harmJudgeDecl(cats));
	put('safety/protected_material', protectedMaterialJudge);
	put('safety/indirect_attack', indirectAttackJudge);
	return out;
}
