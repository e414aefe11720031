/**
 * The judge registry finds its declarations in a folder of spec modules (src/judges/specs/ in the
 * package): modules load by name whatever their form, building blocks are skipped, the order
 * comes from each judge's `order`, and a judge without one, or two on the same order, fail.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { discoverJudges, judgeRegistry, SPECS_DIR } from '../../../src/judges/registry';

const QUALITY = path.resolve(__dirname, '../../../src/judges/specs/quality');

/** A folder of spec modules written as plain CommonJS, as they are in dist/. */
function specsFolder(files: Record<string, string>): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'judge-specs-'));
	for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
	return dir;
}

const judge = (id: string, order?: number): string =>
	`{ ...require(${JSON.stringify(QUALITY)}).coherence, id: ${JSON.stringify(id)}, order: ${order} }`;

describe('discoverJudges', () => {
	const dirs: string[] = [];
	afterAll(() => {
		for (const d of dirs) rmSync(d, { recursive: true, force: true });
	});
	const folder = (files: Record<string, string>): string => {
		const d = specsFolder(files);
		dirs.push(d);
		return d;
	};

	it('registers every exported judge once, by order, skipping building blocks and non-modules', () => {
		const dir = folder({
			'late.js': `exports.late = ${judge('late', 20)};`,
			// One judge under two names is one registry entry.
			'early.js': `const early = ${judge('early', 10)}; exports.early = early; exports.alias = early;`,
			'common.js': `exports.LIKERT = { kind: 'likert', min: 1, max: 5 }; exports.helper = () => 1;`,
			// Declaration files and source maps sit beside the .js in dist/: never loaded.
			'broken.d.ts': 'throw new Error("a .d.ts was loaded");',
			'late.js.map': 'throw new Error("a map was loaded");',
		});
		expect(discoverJudges(dir).map((d) => d.id)).toEqual(['early', 'late']);
	});

	it('fails on a judge without an order and on two judges with one order', () => {
		expect(() => discoverJudges(folder({ 'a.js': `exports.a = ${judge('a')};` }))).toThrow(
			/a\.a: judge 'a' declares no order/,
		);
		expect(() =>
			discoverJudges(
				folder({
					'a.js': `exports.a = ${judge('a', 5)};`,
					'b.js': `exports.b = ${judge('b', 5)};`,
				}),
			),
		).toThrow(/b: order 5 is already a's/);
	});

	it('is how the package registry is built: the same judges, in the same order', () => {
		expect(discoverJudges(SPECS_DIR)).toEqual(judgeRegistry);
		expect(judgeRegistry.map((d) => d.order)).toEqual(
			[...judgeRegistry.map((d) => d.order)].sort((a, b) => a! - b!),
		);
	});
});
