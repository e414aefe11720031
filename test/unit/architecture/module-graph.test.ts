/**
 * The shape of the code, checked from its sources: the evaluation core has no import circle and
 * no n8n import, the node helpers stay small, and every scoring node goes through the one item
 * loop (nodes/shared/scoreItems.ts), so pairedItem, row-error labels, output formats and routing
 * cannot drift apart between node kinds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

function tsFiles(dir: string): string[] {
	const out: string[] = [];
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) out.push(...tsFiles(p));
		else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
	}
	return out;
}

/** Specifiers of every static import and re-export, type-only ones included. */
export function importsOf(source: string): string[] {
	const specs: string[] = [];
	for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g))
		specs.push(m[1]);
	for (const m of source.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) specs.push(m[1]);
	return specs;
}

function resolveLocal(from: string, spec: string): string | undefined {
	if (!spec.startsWith('.')) return undefined;
	const base = path.resolve(path.dirname(from), spec);
	return [`${base}.ts`, path.join(base, 'index.ts')].find((c) => fs.existsSync(c));
}

/** The strongly connected components of more than one module (Tarjan), as relative paths. */
export function importCycles(graph: Map<string, string[]>): string[][] {
	let next = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (v: string): void => {
		index.set(v, next);
		low.set(v, next);
		next++;
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v) ?? []) {
			if (!index.has(w)) {
				visit(w);
				low.set(v, Math.min(low.get(v)!, low.get(w)!));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
		}
		if (low.get(v) === index.get(v)) {
			const scc: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				scc.push(w);
			} while (w !== v);
			const selfLoop = (graph.get(v) ?? []).includes(v);
			if (scc.length > 1 || selfLoop) cycles.push(scc.map((f) => path.relative(root, f)).sort());
		}
	};
	for (const v of graph.keys()) if (!index.has(v)) visit(v);
	return cycles;
}

function graphOf(dir: string): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const f of tsFiles(dir)) {
		const deps = importsOf(fs.readFileSync(f, 'utf8'))
			.map((s) => resolveLocal(f, s))
			.filter((d): d is string => d !== undefined);
		graph.set(f, [...new Set(deps)]);
	}
	return graph;
}

describe('module graph', () => {
	it('finds a circle when there is one (the check can fail)', () => {
		const a = path.join(root, 'a.ts');
		const b = path.join(root, 'b.ts');
		const c = path.join(root, 'c.ts');
		const g = new Map([
			[a, [b]],
			[b, [c]],
			[c, [a]],
		]);
		expect(importCycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
		expect(
			importCycles(
				new Map([
					[a, [b]],
					[b, []],
				]),
			),
		).toEqual([]);
		expect(importsOf("import type { X } from './x';\nexport { y } from '../y';")).toEqual([
			'./x',
			'../y',
		]);
	});

	it('src/ has no import circle, type-only imports included', () => {
		expect(importCycles(graphOf(path.join(root, 'src')))).toEqual([]);
	});

	it('nodes/ has no import circle', () => {
		expect(importCycles(graphOf(path.join(root, 'nodes')))).toEqual([]);
	});

	it('src/ imports nothing from n8n or from nodes/', () => {
		const offenders = tsFiles(path.join(root, 'src')).filter((f) =>
			importsOf(fs.readFileSync(f, 'utf8')).some(
				(s) => /^n8n-|^@n8n\//.test(s) || (s.startsWith('.') && s.includes('/nodes/')),
			),
		);
		expect(offenders.map((f) => path.relative(root, f))).toEqual([]);
	});

	it('no file in nodes/shared is over 400 lines', () => {
		const long = tsFiles(path.join(root, 'nodes/shared'))
			.map((f) => ({
				file: path.relative(root, f),
				lines: fs.readFileSync(f, 'utf8').split('\n').length,
			}))
			.filter((x) => x.lines > 400);
		expect(long).toEqual([]);
	});

	it('one item loop: only scoreItems writes Scores onto items and routes them', () => {
		const loop = path.join(root, 'nodes/shared/scoreItems.ts');
		const common = path.join(root, 'nodes/shared/common.ts');
		const callers = (name: string) =>
			tsFiles(path.join(root, 'nodes'))
				.filter((f) => f !== common && new RegExp(`\\b${name}\\(`).test(fs.readFileSync(f, 'utf8')))
				.map((f) => path.relative(root, f));
		expect(callers('withScore')).toEqual([path.relative(root, loop)]);
		expect(callers('routeScored')).toEqual([path.relative(root, loop)]);
		// Every node that writes Scores reaches the loop: directly, or through a shared factory.
		const scoring = tsFiles(path.join(root, 'nodes'))
			.filter((f) => f.endsWith('.node.ts'))
			.filter((f) =>
				/SCORING_OUTPUTS|NodeClass\(|CustomJudgeNode/.test(fs.readFileSync(f, 'utf8')),
			);
		expect(scoring.length).toBeGreaterThan(25);
		for (const f of scoring) {
			const text = fs.readFileSync(f, 'utf8');
			expect([
				f,
				/scoreItems|(judge|metric|metricFamily|safety|embedding)NodeClass\(|CustomJudgeNode/.test(text),
			]).toEqual([f, true]);
		}
	});
});
