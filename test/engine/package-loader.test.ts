/**
 * Loads the *built* package the way n8n does (n8n-core's PackageDirectoryLoader) and checks
 * that every node and credential listed in package.json is found, valid, with icons and codex.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { PackageDirectoryLoader, resolveOutputSchemaPath } from 'n8n-core';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
};

function ensureBuilt(): void {
	const stale = pkg.n8n.nodes.some((rel) => {
		const built = path.join(ROOT, rel);
		const source = path.join(ROOT, rel.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		return !existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs;
	});
	if (stale)
		execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.js')], {
			cwd: ROOT,
			stdio: 'pipe',
		});
}

describe('built package, loaded by n8n', () => {
	let loader: PackageDirectoryLoader;

	beforeAll(async () => {
		ensureBuilt();
		loader = new PackageDirectoryLoader(ROOT);
		await loader.loadAll();
	}, 240_000);

	it('finds every node package.json lists, and nothing else', () => {
		const expected = pkg.n8n.nodes.map((rel) => path.basename(rel, '.node.js'));
		const found = Object.values(loader.known.nodes).map((n) =>
			path.basename(n.sourcePath, '.node.js'),
		);
		expect(found.sort()).toEqual(expected.sort());
		expect(expected.length).toBeGreaterThan(0);
	});

	it('finds every credential package.json lists', () => {
		const found = Object.keys(loader.known.credentials).sort();
		expect(found.length).toBe(pkg.n8n.credentials.length);
		expect(found).toContain('ragEvalLlmApi');
	});

	it('gives every node a light and dark icon inside the package', () => {
		for (const t of loader.types.nodes) {
			const url = t.iconUrl as { light: string; dark: string } | undefined;
			expect(url).toBeDefined();
			for (const v of [url!.light, url!.dark]) {
				const rel = v.replace(`icons/${pkg.name}/`, '');
				expect(existsSync(path.join(ROOT, rel))).toBe(true);
				expect(readFileSync(path.join(ROOT, rel), 'utf8')).toMatch(/^<svg /);
			}
		}
	});

	// n8n 2.41's nodes panel drops nodes in the "AI" category from search unless they are AI root
	// nodes, in a workflow without LangChain nodes and from every output "+" (docs/decisions.md).
	it('files every node outside the "AI" category, found by its family words and its anchors names', () => {
		const { metricRegistry, judgeRegistry } = require('../../src/index') as {
			metricRegistry: { id: string; anchorNames?: string[] }[];
			judgeRegistry: { id: string; anchorNames?: string[] }[];
		};
		const anchorsById = new Map(
			[...metricRegistry, ...judgeRegistry].map((d) => [d.id, d.anchorNames ?? []]),
		);
		for (const t of loader.types.nodes) {
			expect(t.codex?.categories).toEqual(['Development']);
			expect(t.codex?.subcategories).toEqual({ Development: ['RAG Evaluation'] });
			const alias = (t.codex?.alias ?? []).map((a) => a.toLowerCase());
			for (const w of ['eval', 'evaluation', 'rag', 'llm', 'agent']) expect(alias).toContain(w);
			expect(alias).toContain(t.displayName.toLowerCase());
			if (t.name.startsWith('judge')) expect(alias).toContain('judge');
			if (
				t.group.includes('transform') &&
				t.name.match(/^eval(F1Score|Bleu|Gleu|Meteor|Rouge|Sacrebleu|RetrievalMetrics)$/)
			)
				expect(alias).toContain('metric');
		}
		// Every anchor name of every evaluator reaches the alias of the node that runs it.
		const allAliases = loader.types.nodes
			.flatMap((t) => t.codex?.alias ?? [])
			.map((a) => a.toLowerCase());
		for (const [id, names] of anchorsById) {
			if (id === 'custom_judge') continue;
			expect(allAliases).toContain(id);
			for (const n of names) expect(allAliases).toContain(n.toLowerCase());
		}
		const groundedness = loader.types.nodes.find((t) => t.name === 'judgeGroundedness');
		expect(groundedness?.codex?.alias).toEqual(
			expect.arrayContaining(['GroundednessEvaluator', 'groundedness', 'judge', 'metric']),
		);
	});

	// n8n serves GET /schemas/<package>.<node>/<version>.json from the file resolveSchema finds,
	// for the node's own version (Eval Dataset v2 asks for 2.0.0.json).
	it('ships an output schema n8n finds for every node and version, and one per Review Labels operation', () => {
		for (const [type, known] of Object.entries(loader.known.nodes)) {
			const nodeDir = path.dirname(path.join(ROOT, known.sourcePath.replace(ROOT, '')));
			const declared = (
				loader.getNode(type).type as { description: { version: number | number[] } }
			).description.version;
			for (const version of Array.isArray(declared) ? declared : [declared]) {
				const file = resolveOutputSchemaPath({ nodeDir, version });
				expect({ type, version, exists: file !== undefined && existsSync(file) }).toEqual({
					type,
					version,
					exists: true,
				});
			}
			const file = resolveOutputSchemaPath({ nodeDir, version: 1 });
			const schema = JSON.parse(readFileSync(file!, 'utf8')) as {
				type: string;
				properties: object;
			};
			expect(schema.type).toBe('object');
			expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
		}
		const labels = path.dirname(loader.known.nodes.reviewLabels.sourcePath);
		for (const operation of ['form', 'label', 'promote'])
			expect(existsSync(resolveOutputSchemaPath({ nodeDir: labels, version: 1, operation })!)).toBe(
				true,
			);
	});

	it('exposes the library from package.json main', () => {
		const main = path.join(
			ROOT,
			(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { main: string }).main,
		);
		const lib = require(main) as Record<string, unknown>;
		expect(typeof lib.loadDataset).toBe('function');
		expect(typeof lib.evaluateMetric).toBe('function');
	});
});
