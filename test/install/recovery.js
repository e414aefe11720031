#!/usr/bin/env node
// Proves that the n8n install (scripts/n8n-install.js) recovers, in seconds, without installing
// n8n: each case runs ensureN8n in a temporary RAG_EVAL_CACHE with a stand-in npm
// (test/install/fake-npm.js) that writes a small stand-in n8n tree, and reads what it did.
//   fresh install, then cached           damaged: marked complete but n8n-nodes-base missing
//   killed mid-way, then run again       finished npm stage, marker missing: resumed, no npm
//   stalled once: stopped and retried    stalled twice: gives up and says why
// The real install is the same code with the real npm (run by `npm start` and the E2E tests).
// Ends with `N passed, N failed`; exit 1 on any failure.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const n8n = require('../../scripts/n8n-install');
const { writeFakeN8n } = require('./fake-n8n');

const DRIVER = path.join(__dirname, 'driver.js');
const NODE_DIR = path.resolve(n8n.node24BinDir(), '..', '..', '..');
const NODE_VERSION = spawnSync(path.join(n8n.node24BinDir(), 'node'), ['-v'], {
	encoding: 'utf8',
}).stdout.trim();
const WANT = n8n.installId(n8n.N8N_VERSION, NODE_VERSION);
const roots = [];

/** A temporary cache with the real Node 24 linked in (nothing is downloaded). */
function tempCache() {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-install-check-'));
	roots.push(root);
	fs.symlinkSync(NODE_DIR, path.join(root, path.basename(NODE_DIR)));
	const dir = path.join(root, `n8n-${n8n.N8N_VERSION}`);
	return { root, dir, counter: path.join(root, 'npm-calls'), signal: path.join(root, 'partial') };
}

function envFor(c) {
	return {
		...process.env,
		RAG_EVAL_CACHE: c.root,
		FAKE_NPM_COUNTER: c.counter,
		FAKE_NPM_SIGNAL: c.signal,
	};
}

function drive(c, mode, stallMs) {
	const r = spawnSync(process.execPath, [DRIVER, mode, ...(stallMs ? [String(stallMs)] : [])], {
		env: envFor(c),
		encoding: 'utf8',
	});
	return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

const npmCalls = (c) => (fs.existsSync(c.counter) ? Number(fs.readFileSync(c.counter, 'utf8')) : 0);
const marked = (c) => fs.existsSync(path.join(c.dir, n8n.MARKER));

function expect(cond, what, out) {
	if (!cond) throw new Error(`${what}\n--- output:\n${out}`);
}

const cases = [];
const test = (name, fn) => cases.push({ name, fn });

test('a fresh install is marked complete only after its check; the next run uses it as it is', () => {
	const c = tempCache();
	const first = drive(c, 'complete');
	expect(first.status === 0, `exit ${first.status}`, first.out);
	expect(/installing n8n@/.test(first.out), 'no "installing" line', first.out);
	expect(
		/n8n --version -> /.test(first.out),
		'n8n --version was not run before marking',
		first.out,
	);
	expect(marked(c), 'no marker', first.out);
	expect(fs.readFileSync(path.join(c.dir, n8n.MARKER), 'utf8').trim() === WANT, 'wrong marker', '');
	const again = drive(c, 'complete');
	expect(
		again.status === 0 && /already installed .*\(cached; checked\)/.test(again.out),
		'not cached',
		again.out,
	);
	expect(npmCalls(c) === 1, `npm ran ${npmCalls(c)} times`, again.out);
});

test('damaged: a marker with node_modules/n8n but no n8n-nodes-base is detected, removed and reinstalled', () => {
	const c = tempCache();
	fs.mkdirSync(path.join(c.dir, 'node_modules', 'n8n'), { recursive: true });
	fs.writeFileSync(
		path.join(c.dir, 'node_modules', 'n8n', 'package.json'),
		JSON.stringify({ name: 'n8n', version: n8n.N8N_VERSION }),
	);
	fs.writeFileSync(path.join(c.dir, 'left-by-the-damaged-install'), 'x');
	fs.writeFileSync(path.join(c.dir, n8n.MARKER), `${WANT}\n`);
	const r = drive(c, 'complete');
	expect(r.status === 0, `exit ${r.status}`, r.out);
	expect(
		/is damaged \(.*cannot resolve n8n-nodes-base.*\): removing it and reinstalling/.test(r.out),
		'no "damaged ... removing it and reinstalling" naming n8n-nodes-base',
		r.out,
	);
	expect(
		!fs.existsSync(path.join(c.dir, 'left-by-the-damaged-install')),
		'folder not removed first',
		r.out,
	);
	expect(marked(c) && npmCalls(c) === 1, 'not reinstalled and marked', r.out);
});

test('an install killed mid-way (no marker, partial node_modules) is redone cleanly on the next run', async () => {
	const c = tempCache();
	// The driver leads its own process group, so the kill takes it and its npm, as a closed
	// terminal or a killed CI job would.
	const child = spawn(process.execPath, [DRIVER, 'partial-then-hang'], {
		env: envFor(c),
		detached: true,
		stdio: 'ignore',
	});
	const exited = new Promise((r) => child.once('exit', r));
	for (let i = 0; !fs.existsSync(c.signal); i++) {
		if (child.exitCode !== null) throw new Error('the driver exited before npm was half-way');
		if (i > 1200) throw new Error('npm never got half-way (2 minutes)');
		await new Promise((r) => setTimeout(r, 100));
	}
	process.kill(-child.pid, 'SIGKILL');
	await exited;
	expect(!marked(c), 'marked after a kill', '');
	expect(
		fs.existsSync(path.join(c.dir, 'node_modules', 'n8n', 'package.json')),
		'no partial tree',
		'',
	);
	expect(fs.existsSync(`${c.dir}.lock`), 'the killed install left no lock to take over', '');
	const r = drive(c, 'complete');
	expect(r.status === 0, `exit ${r.status}`, r.out);
	expect(
		/taking over the install lock of pid \d+, which is gone/.test(r.out),
		'stale lock not taken over',
		r.out,
	);
	expect(
		/is damaged \(node_modules\/n8n is there but the install never finished.*\): removing it and reinstalling/.test(
			r.out,
		),
		'interrupted install not called damaged',
		r.out,
	);
	expect(marked(c) && !fs.existsSync(`${c.dir}.lock`), 'not marked, or lock left', r.out);
});

test('an install whose npm stage finished resumes from the native builds, without npm', () => {
	const c = tempCache();
	expect(drive(c, 'complete').status === 0, 'first install failed', '');
	fs.rmSync(path.join(c.dir, n8n.MARKER));
	const r = drive(c, 'complete');
	expect(
		r.status === 0 && /resuming the n8n install .*npm install had finished/.test(r.out),
		'not resumed',
		r.out,
	);
	expect(npmCalls(c) === 1 && marked(c), `npm ran ${npmCalls(c)} times`, r.out);
});

test('a stalled npm (no output, CPU or I/O) is stopped, said so, and retried once', () => {
	const c = tempCache();
	const r = drive(c, 'stall-first', 4000);
	expect(r.status === 0, `exit ${r.status}`, r.out);
	expect(
		/npm install n8n: no progress for 4 s .*stopping it/.test(r.out),
		'no stall message',
		r.out,
	);
	expect(/npm install n8n: retrying once/.test(r.out), 'no retry', r.out);
	expect(npmCalls(c) === 2 && marked(c), `npm ran ${npmCalls(c)} times`, r.out);
});

test('an npm that stalls twice fails with the reason, unmarked; the next run installs', () => {
	const c = tempCache();
	const r = drive(c, 'stall-always', 4000);
	expect(r.status === 1, `exit ${r.status}`, r.out);
	expect(/stalled twice .*RAG_EVAL_INSTALL_STALL_MINUTES/.test(r.out), 'no "stalled twice"', r.out);
	expect(!marked(c) && npmCalls(c) === 2, 'marked, or not retried once', r.out);
	const next = drive(c, 'complete');
	expect(next.status === 0 && marked(c), 'the next run did not recover', next.out);
});

test('writeFakeN8n stand-in is what the check accepts (guards the cases above)', () => {
	const c = tempCache();
	writeFakeN8n(c.dir, n8n.N8N_VERSION);
	const check = n8n.checkInstall(c.dir, n8n.node24Env(), { full: true });
	expect(check.problems.length === 0 && !check.error, JSON.stringify(check), '');
});

async function main() {
	let passed = 0;
	let failed = 0;
	for (const { name, fn } of cases) {
		const t = Date.now();
		try {
			await fn();
			passed++;
			console.log(`ok   ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
		} catch (e) {
			failed++;
			console.log(`FAIL ${name}: ${e.message}`);
		}
	}
	for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
	console.log(`${passed} passed, ${failed} failed`);
	process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
	console.error(e);
	console.log('0 passed, 1 failed');
	process.exit(1);
});
