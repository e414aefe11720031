#!/usr/bin/env node
// The n8n editor in a real headless Chromium (Debian's /usr/bin/chromium via playwright-core)
// against an n8n started by our own launcher: log in, open every example, check each node renders
// with its icon and none is unknown, find our nodes in the node panel, open a judge's parameters.
// Screenshots go to test-artifacts/browser/ (and docs/images/ with --update-docs).
// Ends with `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..', '..');
const n8n = require(path.join(REPO, 'scripts', 'n8n-install.js'));
const ART = path.join(REPO, 'test-artifacts', 'browser');
const DOCS = path.join(REPO, 'docs', 'images');
let PORT = Number(process.env.BROWSER_N8N_PORT || 0);
let BASE = '';
const UPDATE_DOCS = process.argv.includes('--update-docs');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function log(m) {
	process.stdout.write(`[browser] ${m}\n`);
}

// playwright-core from the project's devDependencies, else a cached copy from the npm registry.
function loadPlaywright() {
	try {
		return require('playwright-core');
	} catch {
		const dir = path.join(n8n.cacheRoot(), 'playwright');
		if (!fs.existsSync(path.join(dir, 'node_modules', 'playwright-core'))) {
			fs.mkdirSync(dir, { recursive: true });
			fs.writeFileSync(
				path.join(dir, 'package.json'),
				'{"name":"rag-eval-playwright","private":true}',
			);
			execFileSync(
				'npm',
				['install', '--no-audit', '--no-fund', '--loglevel=error', 'playwright-core@1'],
				{
					cwd: dir,
					env: n8n.node24Env(),
					stdio: 'inherit',
				},
			);
		}
		return require(path.join(dir, 'node_modules', 'playwright-core'));
	}
}

function startN8n(home, password) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [path.join(REPO, 'scripts', 'start.js')], {
			env: {
				...process.env,
				RAG_EVAL_N8N_HOME: home,
				N8N_PORT: String(PORT),
				RAG_EVAL_OWNER_PASSWORD: password,
				N8N_LOG_LEVEL: 'warn',
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let buf = '';
		const onData = (d) => {
			buf += d;
			if (buf.includes('n8n is ready')) resolve(child);
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		child.on('exit', (code) =>
			reject(new Error(`launcher exited (${code}):\n${buf.slice(-3000)}`)),
		);
		setTimeout(
			() => reject(new Error(`launcher not ready in time:\n${buf.slice(-3000)}`)),
			600000,
		).unref();
	});
}

async function shot(page, name) {
	fs.mkdirSync(ART, { recursive: true });
	const file = path.join(ART, `editor-${name}.png`);
	await page.screenshot({ path: file });
	// Only pictures of a passing check go to the README; failures stay in test-artifacts.
	if (UPDATE_DOCS && !name.startsWith('failure') && name !== 'signin') {
		fs.mkdirSync(DOCS, { recursive: true });
		fs.copyFileSync(file, path.join(DOCS, `editor-${name}.png`));
	}
	return file;
}

// Debian's chromium, installed with apt-get when missing (CI machines start without it).
function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return;
	log('installing chromium from Debian (apt-get)');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
}

async function main() {
	ensureChromium();
	PORT = PORT || (await n8n.freePort());
	BASE = `http://localhost:${PORT}`;
	const home = path.join(ART, 'n8n-home');
	fs.rmSync(home, { recursive: true, force: true });
	const password = 'Browser-Test-Pass1';
	log('starting n8n through scripts/start.js');
	const server = await startN8n(home, password);
	const owner = JSON.parse(fs.readFileSync(path.join(home, 'owner.json'), 'utf8'));
	const { chromium } = loadPlaywright();
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox'],
	});
	const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
	let passed = 0;
	const failed = [];
	const test = async (name, fn) => {
		try {
			await fn();
			passed++;
			log(`ok   ${name}`);
		} catch (e) {
			failed.push(name);
			log(`FAIL ${name}: ${e.stack || e}`);
			await shot(page, `failure-${failed.length}`).catch(() => {});
		}
	};
	try {
		await test('log in as the launcher-created owner', async () => {
			await page.goto(`${BASE}/signin`);
			await page
				.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
				.first()
				.fill(owner.email);
			await page.locator('input[type="password"]').first().fill(password);
			await shot(page, 'signin');
			await page.keyboard.press('Enter');
			await page.waitForURL((u) => !u.pathname.startsWith('/signin'), { timeout: 30000 });
		});
		const examples = fs
			.readdirSync(path.join(REPO, 'examples'))
			.filter((f) => f.endsWith('.workflow.json'))
			.map((f) => JSON.parse(fs.readFileSync(path.join(REPO, 'examples', f), 'utf8')));
		for (const wf of examples) {
			await test(`example "${wf.name}" renders every node with its icon`, async () => {
				await page.goto(`${BASE}/workflow/${wf.id}`);
				const nodes = page.locator('[data-test-id="canvas-node"]');
				await nodes.first().waitFor({ timeout: 60000 });
				await page.waitForTimeout(1500);
				// Sticky notes are drawn apart from the canvas nodes.
				const real = wf.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
				assert.equal(await nodes.count(), real.length, 'one canvas node per workflow node');
				for (const node of real) {
					const el = page.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`);
					assert.equal(await el.count(), 1, `node "${node.name}" on the canvas`);
					const icon = el.locator('img, svg').first();
					assert.equal(await icon.count(), 1, `node "${node.name}" has an icon`);
					if (node.type.startsWith('n8n-nodes-rag-eval.')) {
						const img = el.locator('img').first();
						assert.equal(await img.count(), 1, `our node "${node.name}" shows its SVG icon`);
						// On a busy machine an icon may still be loading: give it up to 20 s.
						let ok = false;
						for (let t = 0; t < 40 && !ok; t++) {
							ok = await img.evaluate((i) => i.complete && i.naturalWidth > 0);
							if (!ok) await page.waitForTimeout(500);
						}
						assert.ok(ok, `icon of "${node.name}" loaded`);
					}
				}
				// The editor's own node type list must know every node: an unknown type is what a
				// package that failed to load looks like.
				const known = await page.evaluate(async () =>
					(await (await fetch('/types/nodes.json')).json()).map((t) => t.name),
				);
				for (const node of wf.nodes)
					assert.ok(known.includes(node.type), `${node.type} is a known node type`);
				const body = await page.locator('body').innerText();
				assert.doesNotMatch(
					body,
					/install this node|node is not currently installed|unknown node/i,
				);
				await shot(page, `workflow-${wf.id}`);
			});
		}
		await test('node panel search finds our nodes', async () => {
			const wf = examples[0];
			await page.goto(`${BASE}/workflow/${wf.id}`);
			await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 60000 });
			await page.locator('[data-test-id="node-creator-plus-button"]').first().click();
			const search = page
				.locator('[data-test-id="node-creator-search-bar"] input, input[placeholder^="Search"]')
				.first();
			await search.waitFor({ timeout: 15000 });
			// Result names only: the panel echoes the query in its "No results for ..." text.
			const found = {};
			for (const q of ['Eval Dataset', 'BLEU', 'Groundedness']) {
				await search.fill(q);
				// Results render asynchronously: poll until ours shows up, or give up after 10 s.
				const deadline = Date.now() + 10000;
				do {
					await page.waitForTimeout(300);
					found[q] = await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
				} while (!found[q].some((n) => n.startsWith(q)) && Date.now() < deadline);
			}
			for (const [q, names] of Object.entries(found)) {
				assert.ok(
					names.some((n) => n.startsWith(q)),
					`searching "${q}" lists our node; got ${JSON.stringify(names)}`,
				);
			}
			await shot(page, 'node-panel-search');
			await page.keyboard.press('Escape');
		});
		await test('a judge node opens with its parameters', async () => {
			const wf =
				examples.find((w) => w.nodes.some((n) => n.type.includes('.judge'))) || examples[0];
			const judge = wf.nodes.find((n) => n.type.includes('.judge'));
			await page.goto(`${BASE}/workflow/${wf.id}`);
			const el = page.locator(`[data-test-id="canvas-node"][data-node-name="${judge.name}"]`);
			await el.waitFor({ timeout: 60000 });
			await el.dblclick();
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.waitFor({ timeout: 15000 });
			await page.waitForTimeout(1000);
			const text = await ndv.innerText();
			assert.match(text, /Threshold/);
			await shot(page, 'judge-parameters');
		});
	} finally {
		await browser.close();
		server.kill('SIGTERM');
		await new Promise((r) => (server.exitCode !== null ? r() : server.on('exit', r)));
	}
	process.stdout.write(`${passed} passed, ${failed.length} failed\n`);
	process.exitCode = failed.length ? 1 : 0;
}

main().catch((e) => {
	process.stderr.write(`[browser] ${e.stack || e}\n`);
	process.stdout.write('0 passed, 1 failed\n');
	process.exit(1);
});
