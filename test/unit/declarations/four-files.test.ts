/**
 * Adding a judge touches four files: its spec, its node stub, package.json (n8n.nodes) and the
 * node tables the docs script regenerates (docs/nodes.md). Shown on a copy of the repository's
 * tracked files (a git repository of its own): declare test/support/extra-judge.ts's "verbosity"
 * there, build once, regenerate the tables, then git lists exactly those four paths as changed, and the built
 * package has the judge in its registries, a router output for its slot and a loadable node.
 */
import { execFileSync } from 'node:child_process';
import {
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

const SPEC = 'src/judges/specs/verbosity.ts';
const STUB = 'nodes/JudgeVerbosity/JudgeVerbosity.node.ts';
const NODE_ENTRY = 'dist/nodes/JudgeVerbosity/JudgeVerbosity.node.js';

/** Runs git in `cwd`, isolated from any repository the test itself runs in. */
function git(cwd: string, ...args: string[]): string {
	const env = { ...process.env };
	for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY'])
		delete env[k];
	return execFileSync(
		'git',
		[
			'-c',
			'user.name=test',
			'-c',
			'user.email=test@example.com',
			'-c',
			'commit.gpgsign=false',
			...args,
		],
		{ cwd, env, encoding: 'utf8' },
	);
}

function node(cwd: string, ...args: string[]): string {
	return execFileSync(process.execPath, args, { cwd, encoding: 'utf8' });
}

/** What the built copy registers, read by a plain Node process as n8n would load the package. */
const INSPECT = `
const lib = require('./dist/src/index.js');
const { JudgeVerbosity } = require('./${NODE_ENTRY}');
console.log(JSON.stringify({
	judges: lib.judgeRegistry.map((d) => d.id),
	evaluators: lib.evaluatorRegistry.map((e) => e.id),
	router: lib.routerOutputNames(),
	node: new JudgeVerbosity().description.name,
}));
`;

describe('declaring a judge', () => {
	let copy: string;
	beforeAll(() => {
		copy = mkdtempSync(path.join(tmpdir(), 'add-judge-'));
	});
	afterAll(() => {
		rmSync(copy, { recursive: true, force: true });
	});

	it('touches exactly its spec, its node stub, package.json and the generated docs/nodes.md', () => {
		// The repository's tracked files, as a repository of their own.
		const tracked = git(ROOT, 'ls-files', '-z').split('\0').filter(Boolean);
		for (const rel of tracked) {
			mkdirSync(path.dirname(path.join(copy, rel)), { recursive: true });
			copyFileSync(path.join(ROOT, rel), path.join(copy, rel));
		}
		git(copy, 'init', '-q');
		git(copy, 'add', '-A');
		git(copy, 'commit', '-q', '-m', 'the package before the judge');
		// The shared node_modules is the test's own scaffolding, not part of the change.
		symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(copy, 'node_modules'));
		writeFileSync(path.join(copy, '.git', 'info', 'exclude'), 'node_modules\n');

		// 1. The spec: the test judge's one file, its imports pointed at the specs folder.
		const spec = readFileSync(path.join(ROOT, 'test/support/extra-judge.ts'), 'utf8')
			.replaceAll("'../../src/judges/specs/common'", "'./common'")
			.replaceAll("'../../src/judges/types'", "'../types'");
		writeFileSync(path.join(copy, SPEC), spec);
		// 2. The node stub, as the README shows it: no cast.
		mkdirSync(path.dirname(path.join(copy, STUB)), { recursive: true });
		writeFileSync(
			path.join(copy, STUB),
			[
				"import { verbosity } from '../../src/judges/specs/verbosity';",
				"import { judgeNodeClass } from '../shared/judgeNode';",
				'',
				'/** The verbosity judge as an n8n node; everything about it is declared in its spec. */',
				'export class JudgeVerbosity extends judgeNodeClass(verbosity) {}',
				'',
			].join('\n'),
		);
		// 3. package.json: the node's path in n8n.nodes.
		const pkgPath = path.join(copy, 'package.json');
		const custom = '      "dist/nodes/JudgeCustom/JudgeCustom.node.js",\n';
		const pkg = readFileSync(pkgPath, 'utf8');
		expect(pkg).toContain(custom);
		writeFileSync(pkgPath, pkg.replace(custom, `      "${NODE_ENTRY}",\n${custom}`));
		// 4. One build, then the node tables (docs/nodes.md) from the built registries.
		node(copy, 'scripts/build.js');
		node(copy, 'scripts/docs.js');

		expect(git(copy, 'diff', '--name-only').trim().split('\n').sort()).toEqual([
			'docs/nodes.md',
			'package.json',
		]);
		// Porcelain lines are `XY path`: the two status columns may start with a space.
		const changed = git(copy, 'status', '--porcelain', '--untracked-files=all')
			.split('\n')
			.filter(Boolean)
			.map((l) => l.slice(3))
			.sort();
		expect(changed).toEqual(['docs/nodes.md', STUB, 'package.json', SPEC].sort());
		const readme = git(copy, 'diff', 'docs/nodes.md');
		expect(readme).toContain('**Verbosity Judge**');
		expect(readme).toContain('`response/llm_judged/verbosity/rating/average`');

		// The built package: registries, the router's new last output and the node class.
		const built = JSON.parse(node(copy, '-e', INSPECT)) as {
			judges: string[];
			evaluators: string[];
			router: string[];
			node: string;
		};
		// Registered in its order (950): after the built-in judges (the Pairwise Judge is 900), the custom judge last.
		// Judges ordered after it would sit between it and the custom judge.
		const at = built.judges.indexOf('verbosity');
		expect(at).toBeGreaterThan(built.judges.indexOf('pairwise'));
		expect(at).toBe(built.judges.length - 2);
		expect(built.judges[built.judges.length - 1]).toBe('custom_judge');
		expect(built.evaluators).toContain('verbosity');
		expect(built.router[built.router.length - 1]).toBe('verbosity');
		expect(built.node).toBe('judgeVerbosity');
	}, 240_000);
});
