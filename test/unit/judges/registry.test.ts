/**
 * Registry rules over every judge declaration, and that validation catches broken ones. The
 * expectations come from the registry itself and from what was released (fixtures under
 * test/unit/declarations/fixtures/), so declaring a judge edits no test here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { INodeType } from 'n8n-workflow';
import { placeholdersOf } from '../../../src/judges/prompt';
import { judgeRegistry, validateJudge, validateRegistry } from '../../../src/judges/registry';
import { groundedness } from '../../../src/judges/specs/groundedness';
import { judgeNodeName } from '../../../nodes/shared/judgeNode';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(ROOT, 'test/unit/declarations/fixtures');
/** The judges of the last release, in their order (README tables and node lists follow it). */
const RELEASED = JSON.parse(
	readFileSync(path.join(FIXTURES, 'released-judges.json'), 'utf8'),
) as string[];
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[] };
};

/** The n8n node name of every `nodes/Judge*` entry of package.json, loaded from its source. */
function judgeNodeNames(): Map<string, string> {
	const names = new Map<string, string>();
	for (const rel of pkg.n8n.nodes.filter((n) => /^dist\/nodes\/Judge/.test(n))) {
		const file = path.join(ROOT, rel.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const Cls = (require(file) as Record<string, new () => INodeType>)[
			path.basename(file, '.node.ts')
		];
		names.set(new Cls().description.name, rel);
	}
	return names;
}

describe('judgeRegistry', () => {
	it('keeps every released judge, in its released order, with unique ids, custom last', () => {
		const ids = judgeRegistry.map((d) => d.id);
		expect(new Set(ids).size).toBe(ids.length);
		// New judges may take any place; released ones keep theirs relative to each other.
		expect(ids.filter((id) => RELEASED.includes(id))).toEqual(RELEASED);
		expect(ids[ids.length - 1]).toBe('custom_judge');
	});

	it('has exactly one Judge node in package.json per judge, and no other Judge node', () => {
		const nodes = judgeNodeNames();
		const declared = judgeRegistry.map((d) => judgeNodeName(d.id));
		for (const name of declared) expect(nodes.has(name)).toBe(true);
		// Judge Agreement compares a judge's Scores with human labels; it is no judge itself.
		const others = [...nodes.keys()].filter((n) => !declared.includes(n));
		expect(others).toEqual(['judgeAgreement']);
		expect(nodes.size).toBe(declared.length + others.length);
	});

	it.each(judgeRegistry.map((d) => [d.id, d] as const))('%s is a valid declaration', (id, decl) => {
		expect(validateJudge(decl)).toEqual([]);
		expect(decl.description.length).toBeGreaterThan(10);
		expect(decl.reference.length).toBeGreaterThan(10);
		expect(decl.threshold.direction).toMatch(/^(higher|lower)$/);
		if (RELEASED.includes(id)) {
			// The released judges cite the seed they reproduce and keep their default thresholds.
			expect(decl.reference).toMatch(/seeds? 00\d/);
			expect(decl.threshold).toEqual({
				default: { binary: 1, likert: 3, unit: 0.5 }[decl.scale.kind as string],
				direction: 'higher',
			});
		}
		const schema = decl.output.jsonSchema as {
			required: string[];
			properties: Record<string, unknown>;
			additionalProperties: boolean;
		};
		// OpenAI strict mode: every property required, no extras
		expect(schema.required).toEqual(Object.keys(schema.properties));
		expect(schema.additionalProperties).toBe(false);
		const keys = Object.keys(schema.properties);
		// The reason comes before the verdict, which is the last property. (indexOf alone would
		// pass with no reason at all: -1 is less than anything.)
		expect(keys).toContain('reason');
		expect(['score', 'verdict']).toContain(keys[keys.length - 1]);
		expect(keys.indexOf('reason')).toBeLessThan(keys.length - 1);
		for (const input of decl.inputs)
			expect(placeholdersOf(decl.prompt.user)).toContain(input.field);
	});

	it('catches undeclared placeholders, unused inputs, duplicate ids and duplicate orders', () => {
		const broken = {
			...groundedness,
			prompt: { system: 'x {mystery}', user: '{response} {retrieved_context}' },
		};
		expect(validateJudge(broken)).toEqual([
			'groundedness: unknown placeholder {mystery}',
			'groundedness: the prompt does not include {request} (Query)',
		]);
		const doubled = {
			...groundedness,
			prompt: { ...groundedness.prompt, user: `${groundedness.prompt.user} {{response}}` },
		};
		expect(validateJudge(doubled)[0]).toMatch(/\{\{response\}\} uses double braces/);
		expect(() => validateRegistry([groundedness, groundedness])).toThrow(
			/duplicate judge id 'groundedness'/,
		);
		expect(() =>
			validateRegistry([groundedness, { ...groundedness, id: 'grounded_again' }]),
		).toThrow(/grounded_again: order 10 is already groundedness's/);
	});
});
