'use strict';
// Shared by the benches: the header each one prints (commit, Node, machine, reference, warm/cold),
// the probe for the Python reference, a check that dist/ is not older than src/, and the local
// scripted judge server.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function git(args) {
	const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
	return r.status === 0 ? r.stdout.trim() : null;
}

/** The commit the bench runs on, `+dirty` when tracked files differ from it. */
function commit() {
	if (process.env.BENCH_COMMIT) return process.env.BENCH_COMMIT;
	const sha = git(['rev-parse', '--short=12', 'HEAD']);
	if (sha === null) return 'unknown (not a git checkout)';
	const status = git(['status', '--porcelain', '--untracked-files=no']);
	return status ? `${sha}+dirty` : sha;
}

function newestMtime(dir) {
	let newest = 0;
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
	}
	return newest;
}

/** Stops with a clear message when dist/ is missing; warns when src/ changed after the build. */
function requireDist() {
	const dist = path.join(ROOT, 'dist/src');
	if (!fs.existsSync(dist)) {
		console.error('missing dist/src: run "npm run build" first');
		process.exit(1);
	}
	if (newestMtime(path.join(ROOT, 'src')) > newestMtime(dist)) {
		console.log(
			'warning: src/ is newer than dist/ (run "npm run build"): figures are for the old build',
		);
	}
}

/**
 * Prints the lines every bench starts with. `reference` names what the ratios are against and its
 * version; `figures` says whether they are warm or cold (and what that means here).
 */
function printHeader({ bench, reference, figures }) {
	requireDist();
	const cpu = os.cpus()[0];
	console.log(`bench: ${bench}`);
	console.log(
		`commit ${commit()}; node ${process.version}; ${os.platform()} ${os.arch()}, ` +
			`${os.availableParallelism()} cores${cpu ? ` (${cpu.model.trim()})` : ''}, load avg ${os
				.loadavg()
				.map((l) => l.toFixed(2))
				.join(' ')}`,
	);
	for (const r of [].concat(reference)) console.log(`reference: ${r}`);
	console.log(`figures: ${figures}`);
}

/**
 * The Python interpreter with nltk used as the reference ($PYTHON, else Debian's /usr/bin/python3):
 * `{ py, nltk, python }` with their versions, or `null` (and a printed reason) when nltk is missing.
 */
function pythonReference() {
	const py =
		process.env.PYTHON || (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
	const probe = spawnSync(
		py,
		['-c', 'import sys, nltk; print(nltk.__version__, sys.version.split()[0])'],
		{ encoding: 'utf8' },
	);
	if (probe.status !== 0) {
		console.log(
			`Python reference unavailable (${py} cannot import nltk; apt-get install python3-nltk): ours only.`,
		);
		return null;
	}
	const [nltk, python] = probe.stdout.trim().split(/\s+/);
	return { py, nltk, python };
}

/** Re-runs this script under `node --expose-gc` when `global.gc` is missing; true if it did. */
function reexecWithGc() {
	if (typeof global.gc === 'function') return false;
	const r = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], {
		stdio: 'inherit',
	});
	process.exitCode = r.status ?? 1;
	return true;
}

/**
 * Best rate (units/s) of `pass` over `repeat` windows of at least `window` s of wall time, after
 * one untimed pass: `{ wall, cpu }`, by wall clock and by this process's CPU time (user + system,
 * all threads, so V8's GC and compiler threads count against us). On a shared machine the CPU
 * figure is the one that does not depend on what else runs. A window over 3x `window` ends it.
 */
function timeWindows(pass, units, { window, repeat }) {
	pass();
	let wall = 0;
	let cpu = 0;
	for (let rep = 0; rep < repeat; rep++) {
		let n = 0;
		let dt = 0;
		const t0 = process.hrtime.bigint();
		const c0 = process.cpuUsage();
		do {
			pass();
			n += units;
			dt = Number(process.hrtime.bigint() - t0) / 1e9;
		} while (dt < window);
		const c = process.cpuUsage(c0);
		wall = Math.max(wall, n / dt);
		cpu = Math.max(cpu, n / ((c.user + c.system) / 1e6));
		if (dt > 3 * window) break;
	}
	return { wall, cpu };
}

/** mulberry32: a small seeded generator, so generated benchmark data is the same run to run. */
function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * The local scripted judge (test/support/openai-server-cli.js, CLI flags in `args`) in a process
 * of its own, so its CPU does not compete with the client's loop. Resolves with its base URL, the
 * process, `stats()` (its request counts) and `close()`.
 */
function startJudgeServer(args = []) {
	const cli = path.join(ROOT, 'test', 'support', 'openai-server-cli.js');
	const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
	return new Promise((resolve, reject) => {
		child.once('error', reject);
		child.stdout.once('data', (d) => {
			const baseUrl = /OPENAI_BASE_URL=(\S+)/.exec(d.toString())[1];
			resolve({
				baseUrl,
				child,
				stats: async () => (await fetch(baseUrl.replace(/\/v1$/, '/__stats'))).json(),
				close: () => child.kill('SIGTERM'),
			});
		});
	});
}

module.exports = {
	startJudgeServer,
	mulberry32,
	ROOT,
	commit,
	printHeader,
	pythonReference,
	requireDist,
	reexecWithGc,
	timeWindows,
};
