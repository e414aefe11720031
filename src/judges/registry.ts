/**
 * The LLM judges of the package, found at load in src/judges/specs/ (dist/src/judges/specs/ once
 * built): every judge declaration a spec module exports is registered, in the order its `order`
 * fact gives, so declaring a judge takes its spec file and no list to edit. The registry is
 * validated at load: unique ids and orders, every prompt placeholder declared, every declared
 * input used by the prompt. A broken declaration fails at import, not at the first row of a
 * user's workflow.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { placeholderProblems } from './prompt';
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
	if (decl.family === 'pairwise' && !decl.fanOut)
		problems.push(`${decl.id}: a pairwise judge asks in both orders, so it needs a fanOut`);
	if (decl.threshold.default < decl.scale.min || decl.threshold.default > decl.scale.max) {
		problems.push(`${decl.id}: default threshold outside the scale`);
	}
	return problems;
}

/** Throws with every problem found when the list is invalid (ids and declared orders unique). */
export function validateRegistry(decls: ReadonlyArray<JudgeDecl>): void {
	const problems: string[] = [];
	const seen = new Set<string>();
	const orders = new Map<number, string>();
	for (const d of decls) {
		if (seen.has(d.id)) problems.push(`duplicate judge id '${d.id}'`);
		seen.add(d.id);
		if (d.order !== undefined) {
			const taken = orders.get(d.order);
			if (taken !== undefined && taken !== d.id)
				problems.push(`${d.id}: order ${d.order} is already ${taken}'s`);
			orders.set(d.order, d.id);
		}
		problems.push(...validateJudge(d));
	}
	if (problems.length > 0) throw new Error(`Invalid judge registry:\n${problems.join('\n')}`);
}

/** The folder of the judge declarations, beside this module in src/ and in dist/. */
export const SPECS_DIR = path.join(__dirname, 'specs');

/**
 * Module names (without extension) in a folder: `.ts` under ts-jest, `.js` in dist/; never
 * declaration files or source maps. A name is loaded once even if both forms are present.
 */
function moduleNames(dir: string): string[] {
	const names = new Set<string>();
	for (const file of readdirSync(dir)) {
		const m = /^(.+)\.(ts|js)$/.exec(file);
		if (m && !file.endsWith('.d.ts')) names.add(m[1]);
	}
	return [...names].sort();
}

/** Whether a module export is a judge declaration (shared inputs, slots and helpers are not). */
function isJudgeDecl(v: unknown): v is JudgeDecl {
	if (typeof v !== 'object' || v === null) return false;
	const d = v as Partial<JudgeDecl>;
	return (
		typeof d.id === 'string' &&
		typeof d.prompt === 'object' &&
		typeof d.output === 'object' &&
		typeof d.toValue === 'function'
	);
}

/**
 * The judges exported by the modules of `dir`, sorted by their `order`, validated. Modules
 * exporting no judge (shared building blocks) are skipped; a judge exported under two names or
 * re-exported by another spec is registered once. Throws with every problem found.
 */
export function discoverJudges(dir: string = SPECS_DIR): JudgeDecl[] {
	const found = new Set<JudgeDecl>();
	const problems: string[] = [];
	for (const name of moduleNames(dir)) {
		// The specs are found by file name at load, so there is no static import to write; `require`
		// resolves `name` to its .ts (ts-jest) or .js (dist) module, the one static imports load.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(path.join(dir, name)) as Record<string, unknown>;
		for (const [key, value] of Object.entries(exported)) {
			if (!isJudgeDecl(value) || found.has(value)) continue;
			if (typeof value.order !== 'number' || !Number.isFinite(value.order))
				problems.push(`${name}.${key}: judge '${value.id}' declares no order`);
			found.add(value);
		}
	}
	if (problems.length > 0) throw new Error(`Invalid judge registry:\n${problems.join('\n')}`);
	const judges = [...found].sort((a, b) => (a.order as number) - (b.order as number));
	validateRegistry(judges);
	return judges;
}

/** Every LLM judge of the package, in display order (the custom judge template last). */
export const judgeRegistry: JudgeDecl[] = discoverJudges();

/** Looks a judge up by id. */
export function getJudge(id: string): JudgeDecl | undefined {
	return judgeRegistry.find((d) => d.id === id);
}
