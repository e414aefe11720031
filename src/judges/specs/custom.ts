/**
 * Custom judge (seed 001: "any customer-defined LLM judge"): the user names it, writes a
 * criterion or a whole prompt with `{placeholders}` naming record fields, and picks the output:
 * yes/no, a 1-5 scale, or named choices mapped to scores in 0-1. A per-chunk retrieval mode asks
 * the yes/no question of each retrieved chunk and gives `retrieval/llm_judged/{name}/precision`
 * (seed 001). Scores carry the user's name as their metric, so the aggregate derives seed 001's
 * run-metric names for it, and the root cause takes it after every declared slot ("custom judges
 * last"). `customJudge` is the template the node and docs show; `customJudgeDecl` builds the
 * declaration one node run uses.
 */
import { z } from 'zod';
import type { InputDecl, Scale } from '../../core/types';
import { judgeOutput } from '../output';
import { reasonText } from '../parse';
import { placeholderProblems, placeholdersOf } from '../prompt';
import type { JudgeDecl, JudgeOutput } from '../types';
import { expectedFactsInput, expectedResponseInput } from './agent';
import { chunkFanOut } from './chunkRelevance';
import {
	BINARY,
	LIKERT,
	contextInput,
	historyInput,
	likertOutput,
	requestInput,
	responseInput,
	yesNoOutput,
	type LikertVerdict,
	type YesNoVerdict,
} from './common';

/** What a custom judge answers. */
export type CustomOutputKind = 'yes_no' | 'scale' | 'choices';

/** A named answer and the score (0-1) it maps to. */
export interface CustomChoice {
	name: string;
	score: number;
}

/** Everything a user sets on a custom judge. */
export interface CustomJudgeConfig {
	/** Score key and metric name, e.g. `tone`; run metrics are named after it. */
	name: string;
	/** What to check, in the user's words; used when no full prompt is given. */
	criterion?: string;
	/** A whole prompt with `{placeholders}`; replaces the criterion template. */
	prompt?: { system?: string; user?: string };
	output: CustomOutputKind;
	choices?: CustomChoice[];
	/** Ask the yes/no question of each retrieved chunk (yes/no only). */
	perChunk?: boolean;
}

const UNIT: Scale = { kind: 'unit', min: 0, max: 1 };

/** Every record field a custom prompt may name (all optional until the prompt uses them). */
export function customInputs(): InputDecl[] {
	return [
		requestInput(false),
		{ ...responseInput, required: false },
		{ ...contextInput(false), needsContent: false },
		expectedResponseInput,
		expectedFactsInput,
		{
			name: 'guidelines',
			displayName: 'Guidelines',
			field: 'guidelines',
			kind: 'json',
			required: false,
			blankIsMissing: true,
			description: 'Guidelines for this row: a list or a named map of lists',
		},
		historyInput,
	];
}

const CRITERION_SYSTEM = [
	'You judge an answer produced by an AI application against one criterion, stated below.',
	'Read the inputs, reason about the criterion, then give your verdict.',
	'Criterion: {criterion}',
].join('\n');
const CRITERION_USER = 'Request:\n{request}\n\nAnswer to judge:\n{response}';
const CHUNK_USER = 'Request:\n{request}\n\nRetrieved chunk:\n{retrieved_context}';

/** Parsed output of a named-choices judge. */
interface ChoiceVerdict {
	reason: string;
	choice: string;
}

function choicesOutput(name: string, choices: CustomChoice[]): JudgeOutput<ChoiceVerdict> {
	const names = choices.map((c) => c.name);
	return judgeOutput(
		name,
		z.object({
			reason: reasonText().describe('why the choice was made, citing the inputs'),
			// A choice in another case or with spaces around is the choice, not a parse error.
			choice: z.preprocess(
				(v) =>
					typeof v === 'string'
						? (names.find((n) => n.toLowerCase() === v.trim().toLowerCase()) ?? v)
						: v,
				z.enum(names as [string, ...string[]]),
			),
		}),
	);
}

/** Problems with a configuration; empty when a declaration can be built from it. */
export function customJudgeProblems(config: CustomJudgeConfig, reserved: string[] = []): string[] {
	const problems: string[] = [];
	if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(config.name))
		problems.push(
			`name "${config.name}" must start with a letter and use letters, digits and _ only`,
		);
	if (reserved.includes(config.name))
		problems.push(`name "${config.name}" is a built-in judge or metric id: choose another name`);
	const hasPrompt = !!(config.prompt?.system?.trim() || config.prompt?.user?.trim());
	if (!hasPrompt && !config.criterion?.trim()) problems.push('write a criterion or a prompt');
	if (config.output === 'choices') {
		const c = config.choices ?? [];
		if (c.length < 2) problems.push('choices: give at least two');
		if (new Set(c.map((x) => x.name.toLowerCase())).size !== c.length)
			problems.push('choices: names must be distinct');
		for (const x of c) {
			if (!x.name.trim()) problems.push('choices: a choice has no name');
			if (!(x.score >= 0 && x.score <= 1))
				problems.push(`choices: the score of "${x.name}" must be within 0-1`);
		}
	}
	if (config.perChunk && config.output !== 'yes_no')
		problems.push('per-chunk mode needs the yes/no output');
	return problems;
}

/**
 * The declaration of one custom judge. Inputs its prompt names become required (a row without
 * them is not applicable); throws with every problem when the configuration is unusable.
 */
export function customJudgeDecl(config: CustomJudgeConfig, reserved: string[] = []): JudgeDecl {
	const problems = customJudgeProblems(config, reserved);
	const criterion = config.criterion?.trim() ?? '';
	const system = config.prompt?.system?.trim()
		? config.prompt.system
		: CRITERION_SYSTEM.replace(
				'{criterion}',
				criterion.replace(/[{}]/g, (b) => `\\${b}`),
			);
	const user = config.prompt?.user?.trim()
		? config.prompt.user
		: config.perChunk
			? CHUNK_USER
			: CRITERION_USER;
	const used = new Set([...placeholdersOf(system), ...placeholdersOf(user)]);
	const inputs = customInputs()
		.filter((i) => used.has(i.field))
		.map((i) => ({ ...i, required: true }));
	if (config.perChunk && !used.has('retrieved_context'))
		problems.push('per-chunk mode: the prompt must include {retrieved_context}');
	if (inputs.length === 0) problems.push('the prompt names no field to judge, e.g. {response}');
	problems.push(...placeholderProblems({ inputs, params: [] }, { system, user }));
	if (problems.length > 0) throw new Error(`Custom judge "${config.name}": ${problems.join('; ')}`);

	const base = {
		id: config.name,
		version: '1',
		displayName: config.name,
		description: `Custom judge ${config.name}`,
		reference: 'Custom judge (seed 001: customer-defined LLM judges come last in the root cause)',
		inputs,
		params: [],
		prompt: { system, user },
	};
	// Each kind is declared with its verdict type, so the mappers are checked against the output.
	if (config.output === 'scale') {
		const scale: JudgeDecl<LikertVerdict> = {
			...base,
			scale: LIKERT,
			threshold: { default: 3, direction: 'higher' },
			output: likertOutput(`custom_${config.name}`.slice(0, 64)),
			toValue: (p) => p.score,
			toReason: (p) => p.reason,
		};
		return scale;
	}
	if (config.output === 'choices') {
		const choices = config.choices ?? [];
		const named: JudgeDecl<ChoiceVerdict> = {
			...base,
			scale: UNIT,
			threshold: { default: 0.5, direction: 'higher' },
			output: choicesOutput(`custom_${config.name}`.slice(0, 64), choices),
			toValue: (p) => choices.find((c) => c.name === p.choice)?.score ?? NaN,
			toReason: (p) => p.reason,
			toDetails: (p) => ({ choice: p.choice }),
		};
		return named;
	}
	const decl: JudgeDecl<YesNoVerdict> = {
		...base,
		scale: config.perChunk ? UNIT : BINARY,
		threshold: { default: config.perChunk ? 0.5 : 1, direction: 'higher' },
		output: yesNoOutput(`custom_${config.name}`.slice(0, 64)),
		toValue: (p) => p.verdict === 'yes',
		toReason: (p) => p.reason,
	};
	if (config.perChunk) decl.fanOut = chunkFanOut(() => decl);
	return decl;
}

/** The custom judge template (criterion, yes/no): what the node shows and the docs list. */
export const customJudge: JudgeDecl = {
	...customJudgeDecl({
		name: 'custom_judge',
		criterion: 'The response must be polite and professional.',
		output: 'yes_no',
	}),
	displayName: 'Custom Judge',
	description:
		'Your own criterion or prompt with {placeholders}; yes/no, a 1-5 scale or named choices; optionally per retrieved chunk',
	// Custom judges come last (seed 001): built-in judges take orders below this one.
	order: 1000,
};
