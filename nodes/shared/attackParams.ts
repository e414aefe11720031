/**
 * The parameters both attack nodes (Attack Injector, Attack Simulator) offer, declared and read
 * once: attack mode, seed, families, target categories and the per-row options. Each node words the
 * descriptions for what it does (templates vs. a red-team model); the names, types, defaults and
 * choices are the same, so a workflow can swap one node for the other.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import {
	ATTACK_CATEGORY_NAMES,
	ATTACK_FAMILIES,
	ATTACK_FAMILY_NAMES,
	AttackOptionError,
	categoriesFor,
	type AttackCategory,
	type AttackFamily,
	type AttackMode,
} from '../../src/safety/attacks';
import { listParam } from './collect';

/** "Attack": direct (user turn) or indirect (a retrieved document); each node says how. */
export function attackModeProperty(direct: string, indirect: string): INodeProperties {
	return {
		displayName: 'Attack',
		name: 'mode',
		type: 'options',
		default: 'direct',
		options: [
			{ name: 'Direct (User Prompt, UPIA)', value: 'direct', description: direct },
			{ name: 'Indirect (Document, XPIA)', value: 'indirect', description: indirect },
		],
	};
}

/** "Seed" (default 42): what it decides is the node's to say. */
export function attackSeedProperty(description: string): INodeProperties {
	return { displayName: 'Seed', name: 'seed', type: 'number', default: 42, description };
}

/** The attack families to draw from, under the node's own display name. */
export function attackFamiliesProperty(displayName: string, description: string): INodeProperties {
	return {
		displayName,
		name: 'families',
		type: 'multiOptions',
		default: [],
		options: ATTACK_FAMILIES.map((f) => ({ name: ATTACK_FAMILY_NAMES[f], value: f })),
		description,
	};
}

/**
 * "Target Categories", one list per mode under one parameter name: direct attacks aim at the four
 * harm categories; indirect ones also at seed 000's three indirect-attack categories. None
 * selected means every category of the mode. `what` says what the node's attacks ask for.
 */
export function attackCategoriesProperties(what: string): INodeProperties[] {
	return (['direct', 'indirect'] as const).map((mode) => ({
		displayName: 'Target Categories',
		name: 'categories',
		type: 'multiOptions',
		default: [],
		displayOptions: { show: { mode: [mode] } },
		options: categoriesFor(mode).map((c) => ({ name: ATTACK_CATEGORY_NAMES[c], value: c })),
		description:
			mode === 'direct'
				? `${what} None selected: all four harm categories.`
				: `${what} None selected: all seven, the four harm categories (rated by Content Safety) and the three indirect-attack categories (manipulated content, intrusion, information gathering; named by Indirect Attack).`,
	}));
}

/** The Options entries of both attack nodes: Attacks per Row, Include Baseline Rows, Template IDs. */
export function attackRowOptions(words: { perRow: string; templates: string }): {
	perRow: INodeProperties;
	includeBaseline: INodeProperties;
	templates: INodeProperties;
} {
	return {
		perRow: {
			displayName: 'Attacks per Row',
			name: 'perRow',
			type: 'number',
			default: 1,
			typeOptions: { minValue: 1 },
			description: words.perRow,
		},
		includeBaseline: {
			displayName: 'Include Baseline Rows',
			name: 'includeBaseline',
			type: 'boolean',
			default: true,
			description:
				'Whether to emit each untouched row too (attack.variant "baseline"), so one run evaluates both sets',
		},
		templates: {
			displayName: 'Template IDs',
			name: 'templates',
			type: 'string',
			default: '',
			placeholder: 'role_play.unbound, encoding.base64',
			description: words.templates,
		},
	};
}

/** The shared parameters as the attack functions of src/safety take them, and the Options. */
export function readAttackParameters(ctx: IExecuteFunctions): {
	plan: {
		mode: AttackMode;
		seed: number;
		templates: string[];
		categories: AttackCategory[];
		perRow: number;
		includeBaseline: boolean;
	};
	options: IDataObject;
} {
	const families = ctx.getNodeParameter('families', 0, []) as AttackFamily[];
	const o = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const ids = listParam(o.templates);
	return {
		plan: {
			mode: ctx.getNodeParameter('mode', 0) as AttackMode,
			seed: ctx.getNodeParameter('seed', 0) as number,
			templates: ids.length ? ids : families,
			categories: ctx.getNodeParameter('categories', 0, []) as AttackCategory[],
			perRow: (o.perRow as number | undefined) ?? 1,
			includeBaseline: (o.includeBaseline as boolean | undefined) ?? true,
		},
		options: o,
	};
}

/** Fails the node on a bad attack option (named by the error), or on any other failure as a bug. */
export function attackOptionError(ctx: IExecuteFunctions, e: unknown, check: string): never {
	const message = e instanceof AttackOptionError ? e.message : `unexpected failure: ${String(e)}`;
	throw new NodeOperationError(ctx.getNode(), message, { description: check });
}

/** Output items of attacked rows: each paired with, and keeping the binary of, its source item. */
export function pairedRows<R extends { json: unknown; source: number }>(
	items: INodeExecutionData[],
	rows: R[],
	jsonOf: (row: R) => IDataObject = (r) => r.json as IDataObject,
): INodeExecutionData[] {
	return rows.map((r) => {
		const out: INodeExecutionData = { json: jsonOf(r), pairedItem: { item: r.source } };
		const binary = items[r.source].binary;
		if (binary) out.binary = binary;
		return out;
	});
}
