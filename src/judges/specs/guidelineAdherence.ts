/**
 * Guideline adherence (Databricks Agent Evaluation, seed 002): does the response follow the
 * guidelines? Per-row `guidelines` (a list, or a named map of lists) plus global guidelines set in
 * the node (list or named map, as `global_guidelines` in the seed). One call per name (an unnamed
 * list is the name `guidelines`; a name in both row and global guidelines is judged once on the
 * union); the row is "no" when any name's guidelines are broken, and the rationale names it.
 * A guideline that does not apply to the request counts as followed.
 */
import { InputError } from '../../core/inputs';
import type { InputDecl } from '../../core/types';
import type { JudgeCall, JudgeDecl } from '../types';
import { BINARY, requestInput, responseInput, yesNoOutput, type YesNoVerdict } from './common';

/** Guidelines by name: an unnamed list is `{ guidelines: [...] }`. */
export type NamedGuidelines = Record<string, string[]>;

/** The name an unnamed guideline list is judged and reported under. */
export const UNNAMED_GUIDELINES = 'guidelines';

function parseMaybeJson(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	const t = v.trim();
	if (t.startsWith('[') || t.startsWith('{')) {
		try {
			return JSON.parse(t) as unknown;
		} catch {
			return v;
		}
	}
	return v;
}

function textList(v: unknown, field: string): string[] {
	if (typeof v === 'string') return v.trim() === '' ? [] : [v];
	if (!Array.isArray(v)) throw new InputError(field, 'expected a list of guidelines');
	return v.map((g, i) => {
		if (typeof g !== 'string')
			throw new InputError(`${field}[${i}]`, `expected text, got ${typeof g}`);
		return g;
	});
}

/**
 * Reads guidelines given as a list, a named map of lists, JSON text of either, or plain text
 * with one guideline per line. Empty lists are dropped; a wrong shape throws an InputError.
 */
export function readGuidelines(raw: unknown, field: string): NamedGuidelines {
	const v = parseMaybeJson(raw);
	if (v === undefined || v === null) return {};
	if (typeof v === 'string') {
		const lines = v
			.split(/\r?\n/)
			.map((l) => l.trim())
			.filter((l) => l !== '');
		return lines.length > 0 ? { [UNNAMED_GUIDELINES]: lines } : {};
	}
	if (Array.isArray(v)) {
		const list = textList(v, field);
		return list.length > 0 ? { [UNNAMED_GUIDELINES]: list } : {};
	}
	if (typeof v === 'object') {
		const out: NamedGuidelines = {};
		for (const [name, list] of Object.entries(v as Record<string, unknown>)) {
			const l = textList(list, `${field}.${name}`);
			if (l.length > 0) out[name] = l;
		}
		return out;
	}
	throw new InputError(field, `expected a list or a named map of guidelines, got ${typeof v}`);
}

/** Row and global guidelines merged by name, row guidelines first, duplicates dropped. */
export function mergeGuidelines(a: NamedGuidelines, b: NamedGuidelines): NamedGuidelines {
	const out: NamedGuidelines = {};
	for (const src of [a, b]) {
		for (const [name, list] of Object.entries(src)) {
			const seen = out[name] ?? [];
			for (const g of list) if (!seen.includes(g)) seen.push(g);
			out[name] = seen;
		}
	}
	return out;
}

const guidelinesInput: InputDecl = {
	name: 'guidelines',
	displayName: 'Guidelines',
	field: 'guidelines',
	kind: 'json',
	required: false,
	blankIsMissing: true,
	description: 'Guidelines for this row: a list of strings, or a named map of lists',
};

/** Databricks guideline_adherence. */
export const guidelineAdherence: JudgeDecl<YesNoVerdict> = {
	id: 'guideline_adherence',
	order: 150,
	version: '1',
	displayName: 'Guideline Adherence',
	description:
		'Says yes when the response follows every applicable guideline (per row and global), one verdict per named guideline',
	reference:
		'Databricks Agent Evaluation guideline_adherence (seed 002): request, response, guidelines (list or named map) and global_guidelines; yes/no with rationale',
	anchorNames: ['Guidelines', 'meets_guidelines'],
	inputs: [requestInput(false), responseInput, guidelinesInput],
	params: [
		{
			name: 'globalGuidelines',
			displayName: 'Global Guidelines',
			type: 'string',
			default: '',
			description:
				'Guidelines for every row: one per line, a JSON list, or a JSON map of name to list (e.g. {"english": ["The response must be in English"]})',
		},
	],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: {
		slot: 'guideline_adherence',
		output: 14,
		fix: 'The response breaks a stated guideline: state the guideline explicitly in the system prompt or add a post-generation check for it.',
	},
	databricks: {
		column: 'response/llm_judged/guideline_adherence/rating',
		rationaleColumn: 'response/llm_judged/guideline_adherence/rationale',
		runMetric: 'response/llm_judged/guideline_adherence/rating/percentage',
	},
	prompt: {
		system: [
			'You check whether an answer follows a set of guidelines.',
			'Answer "yes" when the answer follows every guideline that applies to this request; a guideline that does not apply to it counts as followed.',
			'Answer "no" when any applicable guideline is broken, and quote the broken guideline in your reason.',
		].join('\n'),
		user: 'Request:\n{request}\n\nGuidelines:\n{guidelines}\n\nAnswer to check:\n{response}',
	},
	output: yesNoOutput('guideline_adherence'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
	fanOut: {
		split(values, params) {
			const named = mergeGuidelines(
				readGuidelines(values.guidelines, 'guidelines'),
				readGuidelines(params.globalGuidelines, 'global guidelines'),
			);
			const names = Object.keys(named);
			if (names.length === 0)
				return {
					notApplicable: 'no guidelines: the row has none and no global guidelines are set',
				};
			return names.map(
				(name): JudgeCall => ({
					key: name,
					values: { ...values, guidelines: named[name].map((g, i) => `${i + 1}. ${g}`).join('\n') },
				}),
			);
		},
		fold(outcomes) {
			const perName: Record<string, { verdict: 'yes' | 'no'; reason: string }> = {};
			const broken: string[] = [];
			for (const o of outcomes) {
				const yes = o.score.value === true;
				perName[o.key] = { verdict: yes ? 'yes' : 'no', reason: o.score.reason ?? '' };
				if (!yes) broken.push(`${o.key}: ${o.score.reason ?? ''}`);
			}
			return {
				value: broken.length === 0,
				reason:
					broken.length === 0
						? `All ${outcomes.length} guideline set(s) followed.`
						: `Broken guideline set(s): ${broken.join(' | ')}`,
				// namedVerdicts: the aggregate reports each name as its own yes/no run metric.
				details: {
					guidelines: perName,
					namedVerdicts: Object.fromEntries(
						Object.entries(perName).map(([n, v]) => [n, v.verdict === 'yes']),
					),
				},
			};
		},
	},
};
