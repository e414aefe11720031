/**
 * What `npm publish` would upload, read from `npm pack --dry-run --json` on the built package: only
 * what runs in n8n (dist/ without source maps, the README, LICENSE and package.json), every file the
 * package.json's n8n section, `main` and `types` name, and runtime dependencies that the shipped
 * code really requires, with ranges that cannot move under a user to a new major or a tag.
 * Prints the tarball's size. Needs the build (`npm run build`), as `bash scripts/dev.sh test` does
 * before jest.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	version: string;
	main: string;
	types: string;
	repository?: { type?: string; url?: string };
	bugs?: { url?: string };
	homepage?: string;
	dependencies: Record<string, string>;
	peerDependencies?: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};

interface PackEntry {
	path: string;
	size: number;
}
interface Pack {
	size: number;
	unpackedSize: number;
	entryCount: number;
	files: PackEntry[];
}

/**
 * What may ship, each with why: the compiled code and its type declarations (the library's
 * `types`), the JSON n8n reads beside each node (codex, output schemas) and the runtime data under
 * src/ (tokenizer parameters, character classes), the node icons, and the licence notice of the
 * bundled data. Anything else (tests, fixtures, sources, maps, examples, scripts) is a defect.
 */
const ALLOWED: { what: string; test: (p: string) => boolean }[] = [
	{
		what: 'package.json, README, LICENSE',
		test: (p) => /^(package\.json|README\.md|LICENSE)$/.test(p),
	},
	{ what: 'compiled code', test: (p) => /^dist\/.+\.js$/.test(p) },
	{ what: 'type declarations', test: (p) => /^dist\/.+\.d\.ts$/.test(p) },
	{ what: 'codex, output schemas, runtime data', test: (p) => /^dist\/.+\.json$/.test(p) },
	{ what: 'node icons', test: (p) => /^dist\/(nodes|credentials)\/.+\.svg$/.test(p) },
	{ what: 'data licence notice', test: (p) => /^dist\/src\/.+\/NOTICE$/.test(p) },
];
/** Paths that are never runtime, whatever their extension. */
const NEVER = /(^|\/)(test|tests|__tests__|fixtures|examples|bench|scripts|coverage)\//;

let pack: Pack;
beforeAll(() => {
	if (!existsSync(path.join(ROOT, pkg.main)))
		throw new Error(`${pkg.main} is missing: build first (npm run build)`);
	const r = spawnSync(
		'npm',
		['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'],
		{
			cwd: ROOT,
			encoding: 'utf8',
			timeout: 120000,
		},
	);
	if (r.status !== 0) throw new Error(`npm pack --dry-run failed (exit ${r.status}): ${r.stderr}`);
	pack = (JSON.parse(r.stdout) as Pack[])[0];
	const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
	console.log(
		`${pkg.name}@${pkg.version} tarball: ${kib(pack.size)} packed, ${kib(pack.unpackedSize)} unpacked, ${pack.entryCount} files`,
	);
});

describe('the published tarball', () => {
	it('holds only what runs', () => {
		const stray = pack.files
			.map((f) => f.path)
			.filter((p) => NEVER.test(p) || !ALLOWED.some((a) => a.test(p)));
		expect(stray).toEqual([]);
		// Nothing of the TypeScript sources but their declarations, and no source maps: the maps
		// point at .ts files the tarball does not hold.
		expect(pack.files.filter((f) => /\.ts$/.test(f.path) && !/\.d\.ts$/.test(f.path))).toEqual([]);
		expect(pack.files.filter((f) => f.path.endsWith('.map'))).toEqual([]);
	});

	it('holds every file the package.json names, and each node its codex and icon', () => {
		const have = new Set(pack.files.map((f) => f.path));
		const named = [pkg.main, pkg.types, ...pkg.n8n.nodes, ...pkg.n8n.credentials];
		expect(named.filter((p) => !have.has(p))).toEqual([]);
		for (const node of pkg.n8n.nodes) {
			const codex = node.replace(/\.js$/, '.json');
			expect(have.has(codex) ? codex : `missing ${codex}`).toBe(codex);
			const dir = path.posix.dirname(node);
			expect([...have].some((p) => path.posix.dirname(p) === dir && p.endsWith('.svg'))).toBe(true);
		}
		for (const required of ['README.md', 'LICENSE', 'package.json'])
			expect(have.has(required) ? required : `missing ${required}`).toBe(required);
	});
});

describe('the runtime dependencies', () => {
	/** Bare module names the shipped code requires (require, require.resolve, dynamic import). */
	function requiredPackages(): Set<string> {
		const found = new Set<string>();
		const builtin = new Set(builtinModules);
		for (const f of pack.files.filter((e) => e.path.endsWith('.js'))) {
			const text = readFileSync(path.join(ROOT, f.path), 'utf8');
			for (const m of text.matchAll(/require(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g)) {
				const id = m[1];
				if (id.startsWith('.') || id.startsWith('node:') || builtin.has(id.split('/')[0])) continue;
				found.add(id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);
			}
		}
		return found;
	}

	it('are exactly what the shipped code requires, besides the n8n-workflow peer', () => {
		const required = requiredPackages();
		const declared = new Set(Object.keys(pkg.dependencies));
		const peers = new Set(Object.keys(pkg.peerDependencies ?? {}));
		// Required but not declared: a user's install would fail to load the node.
		expect([...required].filter((d) => !declared.has(d) && !peers.has(d)).sort()).toEqual([]);
		// Declared but never required: weight every user installs for nothing.
		expect([...declared].filter((d) => !required.has(d)).sort()).toEqual([]);
		// n8n's own packages come from the n8n that loads the node, never a copy of our own.
		expect([...declared].filter((d) => /^(n8n-|@n8n\/)/.test(d))).toEqual([]);
		expect(peers.has('n8n-workflow')).toBe(true);
	});

	it('take ranges that stay within one major version (or one exact version)', () => {
		const bad = Object.entries(pkg.dependencies).filter(
			([, range]) => !/^[~^]?\d+\.\d+\.\d+$/.test(range) || /^\^0\./.test(range),
		);
		expect(bad).toEqual([]);
	});
});

describe('the package.json a registry shows', () => {
	it('names its repository, where to report bugs and its homepage', () => {
		expect(pkg.repository?.type).toBe('git');
		const repo = pkg.repository?.url ?? '';
		expect(repo).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
		const web = repo.replace(/^git\+/, '').replace(/\.git$/, '');
		// npm's provenance check compares the repository with the GitHub repository that published.
		expect(pkg.bugs?.url).toBe(`${web}/issues`);
		expect(pkg.homepage).toBe(`${web}#readme`);
	});
});
