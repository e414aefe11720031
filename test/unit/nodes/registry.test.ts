/**
 * Declare once: every metric and judge declaration has exactly one node, listed in package.json,
 * whose parameters are derived from the declaration (defaults map the canonical record fields).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { INodeProperties, INodeType } from 'n8n-workflow';
import { metricRegistry, retrievalMetrics } from '../../../src/metrics';
import type { MetricDecl } from '../../../src/core/types';
import { judgeRegistry } from '../../../src/judges';
import { metricNodeName } from '../../../nodes/shared/metricNode';
import { judgeNodeName } from '../../../nodes/shared/judgeNode';
import { safetyDescription } from '../../../nodes/shared/safetyNode';
import { embeddingNodeName } from '../../../nodes/shared/embeddingNode';
import { embeddingRegistry } from '../../../src/embeddings';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[] };
};

function loadNodes(): Map<string, INodeType> {
	const map = new Map<string, INodeType>();
	for (const rel of pkg.n8n.nodes) {
		const file = path.join(ROOT, rel.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const Cls = (require(file) as Record<string, new () => INodeType>)[
			path.basename(file, '.node.ts')
		];
		const node = new Cls();
		map.set(node.description.name, node);
	}
	return map;
}

// The retrieval metrics share one node with a Metric chooser; every other metric has its own.
const metricNode = (d: MetricDecl): string =>
	retrievalMetrics.includes(d) ? 'evalRetrievalMetrics' : metricNodeName(d.id);

describe('node registry', () => {
	const nodes = loadNodes();

	it('has one node per declared metric and judge, and no stray ones', () => {
		const declared = [
			...new Set([
				...metricRegistry.map(metricNode),
				...judgeRegistry.map((d) => judgeNodeName(d.id)),
				...embeddingRegistry.map((d) => embeddingNodeName(d.id)),
				// The risk and safety declarations (src/safety/specs.ts) share three nodes.
				...(['content_safety', 'protected_material', 'indirect_attack'] as const).map(
					(t) => safetyDescription(t).name,
				),
			]),
		];
		for (const name of declared) expect(nodes.has(name)).toBe(true);
		const scoring = [...nodes.keys()].filter(
			(n) =>
				/^(eval|judge)[A-Z]/.test(n) &&
				![
					'evalDataset',
					'evalAggregate',
					'evalReport',
					'judgeAgreement',
					'evalCostLatency',
					'evalAttackInjector',
					'evalAttackSimulator',
					'evalSetGenerator',
					'evalExecutions',
					'evalJailbreakComparison',
				].includes(n),
		);
		expect(scoring.sort()).toEqual([...declared].sort());
	});

	it.each([
		...metricRegistry.map((d) => [metricNode(d), d] as const),
		...judgeRegistry.map((d) => [judgeNodeName(d.id), d] as const),
		...embeddingRegistry.map((d) => [embeddingNodeName(d.id), d] as const),
	])('%s derives its inputs, threshold and outputs from its declaration', (name, decl) => {
		const desc = nodes.get(name)!.description;
		const props = new Map<string, INodeProperties>(desc.properties.map((p) => [p.name, p]));
		for (const input of decl.inputs) {
			expect(props.get(input.name)?.default).toBe(`={{ $json.${input.field} }}`);
		}
		// Yes/no verdicts pass by their value: no threshold field that would have no effect (the
		// Custom Judge shows one only for its 1-5 and named-choice outputs).
		if (decl.id === 'custom_judge')
			expect(desc.properties.find((p) => p.name === 'threshold')?.displayOptions).toEqual({
				show: { outputKind: ['scale'] },
			});
		else if (decl.scale.kind === 'binary') expect(props.has('threshold')).toBe(false);
		else expect(props.get('threshold')?.default).toBe(decl.threshold.default);
		expect(props.has('splitOutputs')).toBe(true);
		const options = props.get('options') as { options?: INodeProperties[] } | undefined;
		expect(options?.options?.some((o) => o.name === 'outputFormat')).toBe(true);
		expect(typeof desc.outputs).toBe('string');
		if (retrievalMetrics.some((m) => m.id === decl.id))
			expect(desc.properties[0].options).toContainEqual(
				expect.objectContaining({ value: decl.id, description: decl.description }),
			);
		else expect(desc.description).toBe(decl.description);
	});

	it('keeps unique node names and a description on every node', () => {
		expect(nodes.size).toBe(pkg.n8n.nodes.length);
		for (const n of nodes.values()) expect(n.description.description.length).toBeGreaterThan(10);
	});

	it('offers only the deterministic metrics as AI-agent tools ("... Tool" variants)', () => {
		const tools = [...nodes.values()]
			.filter((n) => n.description.usableAsTool)
			.map((n) => n.description.name)
			.sort();
		const metrics = [...new Set(metricRegistry.map(metricNode))].sort();
		expect(tools).toEqual(metrics);
	});
});
