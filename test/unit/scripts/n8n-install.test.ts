/**
 * The decisions of scripts/n8n-install.js on real folders: what an install folder holds
 * (inspectInstall), what to do about it (decide), the completeness check that runs before an
 * install is marked done (checkInstall, on a stand-in n8n tree), and the stall watch of
 * scripts/watched-run.js on a real stuck process. test/install/recovery.js runs the whole install
 * flow with a stand-in npm.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Inspection {
	state: string;
	reason: string;
}
interface Check {
	problems: string[];
	error?: string;
}
interface Install {
	N8N_VERSION: string;
	MARKER: string;
	NPM_DONE: string;
	inspectInstall(dir: string, o: { want: string }): Inspection;
	decide(i: Inspection, c?: Check): { action: string; reason: string };
	checkInstall(dir: string, env: NodeJS.ProcessEnv, o?: { full?: boolean }): Check;
	installId(version: string, node: string): string;
}
interface Watched {
	StallError: new (...a: unknown[]) => Error;
	runWatched(
		cmd: string,
		args: string[],
		o: { logFile: string; label: string; stallMs: number; say: (m: string) => void },
	): Promise<void>;
	treeActivity(pid: number): { pids: number[]; cpu: number; io: number; key: string };
}
/* eslint-disable @typescript-eslint/no-require-imports */
const install = require('../../../scripts/n8n-install') as Install;
const watched = require('../../../scripts/watched-run') as Watched;
const { writeFakeN8n } = require('../../install/fake-n8n') as {
	writeFakeN8n(dir: string, version: string, o?: { omit?: string[] }): void;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const V = install.N8N_VERSION;
const WANT = install.installId(V, process.version);
let root: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), 'n8n-install-test-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const put = (rel: string, text = '') => {
	mkdirSync(join(root, rel, '..'), { recursive: true });
	writeFileSync(join(root, rel), text);
};

describe('inspectInstall: what an install folder holds', () => {
	const state = () => install.inspectInstall(root, { want: WANT });

	it('no folder, or a folder without node_modules: not installed yet', () => {
		expect(install.inspectInstall(join(root, 'absent'), { want: WANT }).state).toBe('missing');
		put('package.json', '{}');
		expect(state().state).toBe('missing');
	});

	it('node_modules without the marker is an interrupted install: damaged', () => {
		put('node_modules/some-dep/package.json', '{}');
		expect(state()).toEqual({
			state: 'damaged',
			reason: 'node_modules is there without n8n (an npm install was interrupted)',
		});
		put('node_modules/n8n/package.json', JSON.stringify({ version: V }));
		expect(state().state).toBe('damaged');
		expect(state().reason).toMatch(/node_modules\/n8n is there but the install never finished/);
	});

	it('a finished npm stage for this version without the marker is resumed; for another, damaged', () => {
		put('node_modules/n8n/package.json', JSON.stringify({ version: V }));
		put(install.NPM_DONE, `n8n@${V}\n`);
		expect(state().state).toBe('npm-done');
		put(install.NPM_DONE, 'n8n@1.0.0\n');
		expect(state().state).toBe('damaged');
	});

	it('a marker for this n8n and Node: marked; for others: stale', () => {
		put(install.MARKER, `${WANT}\n`);
		expect(state().state).toBe('marked');
		put(install.MARKER, install.installId(V, 'v24.0.0'));
		expect(state()).toMatchObject({ state: 'stale', reason: expect.stringMatching(/v24\.0\.0/) });
	});
});

describe('decide: what to do about an install', () => {
	const at = (state: string) => ({ state, reason: `${state} reason` });
	const ok: Check = { problems: [] };
	const broken: Check = { problems: ['cannot resolve n8n-nodes-base (MODULE_NOT_FOUND)'] };

	it('install, reinstall (damaged), resume (npm done)', () => {
		expect(install.decide(at('missing')).action).toBe('install');
		expect(install.decide(at('damaged'))).toEqual({
			action: 'reinstall',
			reason: 'damaged reason',
		});
		expect(install.decide(at('npm-done')).action).toBe('resume');
	});

	it('a marked install is used only when its check passes; a failing check means damaged', () => {
		expect(install.decide(at('marked'), ok).action).toBe('use');
		const d = install.decide(at('marked'), broken);
		expect(d.action).toBe('reinstall');
		expect(d.reason).toMatch(/marked reason, but cannot resolve n8n-nodes-base/);
		expect(install.decide(at('stale'), ok).action).toBe('resume');
		expect(install.decide(at('stale'), broken).action).toBe('reinstall');
	});

	it('a check that could not finish never removes an install; a marked one needs its check', () => {
		expect(install.decide(at('marked'), { problems: [], error: 'timed out' })).toMatchObject({
			action: 'fail',
			reason: expect.stringMatching(/could not be checked: timed out/),
		});
		expect(() => install.decide(at('marked'))).toThrow(/needs its check/);
	});
});

describe('checkInstall: the completeness check before an install is marked done', () => {
	const check = (full = false) => install.checkInstall(root, process.env, { full });

	it('a tree with n8n, n8n-core, n8n-nodes-base, n8n-workflow, sqlite3 and isolated-vm passes, with n8n --version', () => {
		writeFakeN8n(root, V);
		expect(check(true)).toEqual({ problems: [] });
	});

	it('names what is missing or does not load', () => {
		writeFakeN8n(root, V, { omit: ['n8n-nodes-base', 'n8n-core'] });
		rmSync(join(root, 'node_modules/sqlite3/build'), { recursive: true });
		const { problems } = check();
		expect(problems).toEqual([
			'cannot resolve n8n-core (MODULE_NOT_FOUND)',
			'cannot resolve n8n-nodes-base (MODULE_NOT_FOUND)',
			expect.stringMatching(
				/^sqlite3's native binding does not load: Could not locate the bindings/,
			),
		]);
	});

	it('a wrong n8n version, or a `n8n --version` that fails, is a problem', () => {
		writeFakeN8n(root, '2.0.0');
		expect(check().problems).toEqual([`n8n is 2.0.0, not ${V}`]);
		writeFakeN8n(root, V);
		put('node_modules/n8n/bin/n8n', 'process.exit(3)');
		expect(check().problems).toEqual([]);
		expect(check(true).problems).toEqual([
			expect.stringMatching(/^n8n --version failed \(exit 3\)/),
		]);
	});
});

describe('runWatched: the stall watch', () => {
	it('stops a process that makes no progress and says so; its whole tree is gone', async () => {
		const lines: string[] = [];
		const tag = `stuck-${process.pid}-${Date.now()}`;
		// A parent whose child blocks for good: neither prints, reads, writes nor computes.
		const script = `require('node:child_process').spawn(process.execPath, ['-e', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0) // ${tag}'], { stdio: 'inherit' }); setInterval(() => {}, 1e9); // ${tag}`;
		const run = watched.runWatched(process.execPath, ['-e', script], {
			logFile: join(root, 'stuck.log'),
			label: 'stuck step',
			stallMs: 1500,
			say: (m) => lines.push(m),
		});
		await expect(run).rejects.toBeInstanceOf(watched.StallError);
		await expect(run).rejects.toThrow(/stuck step made no progress for 2 s/);
		expect(lines.join('\n')).toMatch(/stuck step: no progress for 2 s .*stopping it/);
		// Neither the parent nor its child is left running (SIGKILLed processes vanish once reaped).
		const running = () =>
			readdirSync('/proc')
				.filter((e) => /^\d+$/.test(e))
				.filter((e) => {
					try {
						const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
						if (/\) Z /.test(stat)) return false;
						return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(tag);
					} catch {
						return false;
					}
				});
		while (running().length > 0) await new Promise((r) => setTimeout(r, 50));
		expect(running()).toEqual([]);
	});

	it('a failing step rejects with its exit code and log tail', async () => {
		const run = watched.runWatched(
			process.execPath,
			['-e', "console.log('compiler said no'); process.exit(3)"],
			{ logFile: join(root, 'fail.log'), label: 'build', stallMs: 600000, say: () => undefined },
		);
		await expect(run).rejects.toThrow(/build failed \(exit 3\)[\s\S]*compiler said no/);
	});

	it('treeActivity sees a child process of the watched one', async () => {
		const parent = spawn(
			process.execPath,
			[
				'-e',
				"require('node:child_process').spawn('sleep', ['30'], { stdio: 'inherit' }); setInterval(() => {}, 1e9);",
			],
			{ stdio: ['ignore', 'pipe', 'inherit'] },
		);
		try {
			let pids: number[] = [];
			while (pids.length < 2) {
				await new Promise((r) => setTimeout(r, 50));
				pids = watched.treeActivity(parent.pid as number).pids;
			}
			expect(pids[0]).toBe(parent.pid);
			expect(pids).toHaveLength(2);
		} finally {
			const pids = watched.treeActivity(parent.pid as number).pids;
			for (const p of pids.reverse()) process.kill(p, 'SIGKILL');
		}
	});
});
