#!/usr/bin/env node
// The install paths of the README, as n8n users take them, on real n8n 2.41.1 and a local npm
// registry (test/registry/local-registry.js: verdaccio on 127.0.0.1 with the configured registry as
// uplink). The packed package is published to it, n8n starts with no package installed, and in
// headless Chromium (Debian's /usr/bin/chromium through playwright-core):
//   Settings -> Community Nodes -> Install, package name `n8n-nodes-rag-eval`, risk confirmation;
//   the nodes in the nodes panel; the CI gate example published and called, answering with scores;
//   a patch version published, offered by n8n as an update, applied; the package uninstalled.
// Then `npm install n8n-nodes-rag-eval` in a fresh ~/.n8n/nodes against the same registry, and
// `n8n execute` of a workflow with our nodes there. Screenshots: test-artifacts/registry/
// (failure-*.png on a failed check). Ends with `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync, execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..', '..');
const n8n = require(path.join(REPO, 'scripts', 'n8n-install.js'));
const { out, parseRun } = require(path.join(REPO, 'scripts', 'e2e.js'));
const reg = require('./local-registry');

const ART = path.join(REPO, 'test-artifacts', 'registry');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const NAME = PKG.name;
const CI_GATE = 'ragEvalCiGate0001';
const PASSWORD = 'Registry-Test-Pass1';
const EMAIL = 'owner@rag-eval.local';

function log(m) {
	process.stdout.write(`[registry] ${m}\n`);
}

/** The next patch version: the update the suite publishes. */
function nextPatch(version) {
	const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
	if (!m) throw new Error(`package.json version ${version} is not semver`);
	return `${m[1]}.${m[2]}.${Number(m[3]) + 1}`;
}

/** Our node type names, from the built nodes' own descriptions. */
function ourNodeTypes() {
	const names = new Set();
	for (const file of PKG.n8n.nodes)
		for (const Cls of Object.values(require(path.join(REPO, file))))
			if (typeof Cls === 'function') names.add(`${NAME}.${new Cls().description.name}`);
	return names;
}

// playwright-core from the devDependencies, as the editor suite loads it.
function loadPlaywright() {
	try {
		return require('playwright-core');
	} catch {
		return require(path.join(n8n.cacheRoot(), 'playwright', 'node_modules', 'playwright-core'));
	}
}

function bcryptHash(password) {
	return require(path.join(n8n.n8nDir(), 'node_modules', 'bcryptjs')).hashSync(password, 10);
}

/** `n8n start` with its state in `userFolder`; resolves once /healthz/readiness answers. */
async function startN8n(userFolder, extraEnv) {
	const port = await n8n.freePort();
	const env = n8n.n8nEnv(userFolder, {
		N8N_PORT: String(port),
		N8N_HOST: 'localhost',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: EMAIL,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Eval',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(PASSWORD),
		// debug: n8n logs each npm command it runs, which a failed install is read from.
		N8N_LOG_LEVEL: 'debug',
		...extraEnv,
	});
	const logFile = path.join(ART, `n8n-server-${path.basename(userFolder)}.log`);
	const fd = fs.openSync(logFile, 'w');
	const child = spawn('node', [n8n.n8nBin(), 'start'], { env, stdio: ['ignore', fd, fd] });
	const base = `http://localhost:${port}`;
	const deadline = Date.now() + 240000;
	for (;;) {
		if (child.exitCode !== null)
			throw new Error(`n8n start exited (${child.exitCode}); see ${path.relative(REPO, logFile)}`);
		const ok = await fetch(`http://127.0.0.1:${port}/healthz/readiness`).then(
			(r) => r.ok,
			() => false,
		);
		if (ok) break;
		if (Date.now() > deadline) throw new Error('n8n start: not ready within 240 s');
		await new Promise((r) => setTimeout(r, 1000));
	}
	const stop = async () => {
		if (child.exitCode === null) {
			child.kill('SIGTERM');
			await new Promise((r) => (child.exitCode !== null ? r() : child.on('exit', r)));
		}
		fs.closeSync(fd);
	};
	return { base, env, stop, logFile };
}

/** Polls `fn` until it returns a truthy value; its last error (or `what`) when time runs out. */
async function until(what, fn, { timeoutMs = 30000, everyMs = 500 } = {}) {
	const deadline = Date.now() + timeoutMs;
	let last;
	for (;;) {
		try {
			const v = await fn();
			if (v) return v;
		} catch (e) {
			last = e;
		}
		if (Date.now() > deadline)
			throw new Error(`${what} (waited ${timeoutMs / 1000} s)${last ? `: ${last.message}` : ''}`);
		await new Promise((r) => setTimeout(r, everyMs));
	}
}

function installedVersion(nodesDir) {
	const f = path.join(nodesDir, 'node_modules', NAME, 'package.json');
	return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')).version : null;
}

async function main() {
	const t0 = Date.now();
	if (!fs.existsSync(CHROMIUM))
		throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
	await n8n.ensureN8n();
	n8n.buildIfStale();
	fs.rmSync(ART, { recursive: true, force: true });
	fs.mkdirSync(ART, { recursive: true });
	const v1 = PKG.version;
	const v2 = nextPatch(v1);
	const types = ourNodeTypes();

	let passed = 0;
	const failed = [];
	let page = null;
	const shot = async (name) => {
		if (page) await page.screenshot({ path: path.join(ART, `${name}.png`) });
	};
	const test = async (name, fn) => {
		const s = Date.now();
		try {
			await fn();
			passed++;
			log(`ok   ${name} (${((Date.now() - s) / 1000).toFixed(0)} s)`);
			return true;
		} catch (e) {
			failed.push(name);
			log(`FAIL ${name}: ${e.stack || e}`);
			await shot(`failure-${failed.length}`).catch(() => {});
			return false;
		}
	};
	const cleanups = [];
	try {
		// The registry, and both versions of the package: v1 now, the patch when the update is due.
		const registry = await reg.startRegistry(path.join(ART, 'verdaccio'));
		cleanups.push(registry.close);
		const tgz = n8n.packPackage(path.join(ART, 'pack'));
		const patchDir = path.join(ART, 'pack', 'patch');
		fs.mkdirSync(patchDir, { recursive: true });
		execFileSync('tar', ['-xzf', tgz, '-C', patchDir, '--strip-components=1']);
		const patchPkg = JSON.parse(fs.readFileSync(path.join(patchDir, 'package.json'), 'utf8'));
		fs.writeFileSync(
			path.join(patchDir, 'package.json'),
			JSON.stringify({ ...patchPkg, version: v2 }, null, 2),
		);
		const published = await test(`publish ${NAME}@${v1} to the local registry`, async () => {
			registry.publish(tgz);
			const meta = await registry.packument(NAME);
			assert.deepEqual(Object.keys(meta.versions), [v1]);
			assert.equal(meta['dist-tags'].latest, v1);
		});
		if (!published) throw new Error('nothing to install without the published package');

		const defaultRegistry = reg.n8nDefaultRegistry();
		const front = await reg.startRegistryFront(
			path.join(ART, 'tls'),
			defaultRegistry,
			registry.url,
		);
		cleanups.push(front.close);

		// n8n as a user starts it, with no community package, the CI gate example and its webhook
		// credential imported (nodes of a package not yet installed are fine in an import).
		const userFolder = path.join(ART, 'n8n-user');
		const nodesDir = path.join(userFolder, '.n8n', 'nodes');
		const token = crypto.randomBytes(24).toString('base64url');
		const emptyNpmrc = path.join(ART, 'empty.npmrc');
		fs.writeFileSync(emptyNpmrc, '');
		const proxyEnv = {
			HTTPS_PROXY: front.url,
			https_proxy: front.url,
			HTTP_PROXY: front.url,
			http_proxy: front.url,
			NO_PROXY: 'localhost,127.0.0.1,::1',
			no_proxy: 'localhost,127.0.0.1,::1',
			NODE_EXTRA_CA_CERTS: front.ca,
			// npm as a stock install has it: the default registry, no ~/.npmrc of this machine, and a
			// cache of this run (the front's answers never reach the machine's npm cache).
			npm_config_registry: defaultRegistry,
			npm_config_userconfig: emptyNpmrc,
			npm_config_cache: path.join(ART, 'npm-cache'),
		};
		{
			const env = n8n.n8nEnv(userFolder);
			const credFile = path.join(ART, 'credentials.json');
			fs.writeFileSync(credFile, JSON.stringify([n8n.webhookCredential(token)]), { mode: 0o600 });
			const importDir = path.join(ART, 'import');
			fs.mkdirSync(importDir, { recursive: true });
			fs.copyFileSync(
				path.join(REPO, 'examples', 'ci-gate.workflow.json'),
				path.join(importDir, 'ci-gate.json'),
			);
			const a = await n8n.runN8n(['import:credentials', `--input=${credFile}`], env);
			fs.rmSync(credFile, { force: true });
			const b = await n8n.runN8n(['import:workflow', '--separate', `--input=${importDir}`], env);
			if (a.status !== 0 || b.status !== 0)
				throw new Error(`import failed: ${a.stderr.slice(-1500)} ${b.stderr.slice(-1500)}`);
		}
		const server = await startN8n(userFolder, proxyEnv);
		cleanups.push(server.stop);
		const base = server.base;
		log(`n8n at ${base}, community packages from ${new URL(defaultRegistry).host} (the front)`);

		const { chromium } = loadPlaywright();
		const browser = await chromium.launch({
			executablePath: CHROMIUM,
			headless: true,
			args: ['--no-sandbox'],
		});
		cleanups.push(() => browser.close());
		page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		page.setDefaultTimeout(30000);

		const login = await test('log in as the owner', async () => {
			await page.goto(`${base}/signin`);
			await page
				.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
				.first()
				.fill(EMAIL);
			await page.locator('input[type="password"]').first().fill(PASSWORD);
			await page.keyboard.press('Enter');
			await page.waitForURL((u) => !u.pathname.startsWith('/signin'), { timeout: 60000 });
		});
		if (!login) throw new Error('cannot go on without a session');

		const card = () =>
			page.locator('[data-test-id="community-package-card"]').filter({ hasText: NAME });
		const openCommunityNodes = async () => {
			await page.goto(`${base}/settings/community-nodes`);
			// The empty page's Install button, or the cards of installed packages.
			await page
				.locator('[data-test-id="community-package-card"], button:has-text("Install")')
				.first()
				.waitFor({ timeout: 60000 });
		};
		const knownTypes = () =>
			page.evaluate(async () =>
				(await (await fetch('/types/nodes.json', { cache: 'no-store' })).json()).map((t) => t.name),
			);

		const installed =
			await test(`Settings -> Community Nodes installs ${NAME} by name, after the risk confirmation`, async () => {
				await openCommunityNodes();
				await shot('1-community-nodes-empty');
				await until('the Install button of the empty page', async () => {
					await page
						.getByRole('button', { name: /install/i })
						.first()
						.click({ timeout: 5000 });
					return page.locator('[data-test-id="package-name-input"]').first().isVisible();
				});
				const nameInput = page.locator('[data-test-id="package-name-input"]').first();
				const field =
					(await nameInput.evaluate((el) => el.tagName)) === 'INPUT'
						? nameInput
						: nameInput.locator('input').first();
				await field.fill(NAME);
				const install = page.locator('[data-test-id="install-community-package-button"]').first();
				// n8n keeps the button disabled until the risks are confirmed.
				assert.equal(
					await install.isDisabled(),
					true,
					'Install is disabled before the risk confirmation',
				);
				await page.locator('[data-test-id="user-agreement-checkbox"]').first().click();
				await until(
					'Install enabled after the confirmation',
					async () => !(await install.isDisabled()),
				);
				await shot('2-install-modal');
				await install.click();
				// npm fetches the package and its dependencies through the local registry.
				await until(`a card for ${NAME}`, async () => card().first().isVisible(), {
					timeoutMs: 300000,
					everyMs: 1000,
				});
				const text = await card().first().innerText();
				assert.match(
					text,
					new RegExp(`v${v1.replace(/\./g, '\\.')}`),
					`card shows v${v1}: ${text}`,
				);
				assert.equal(installedVersion(nodesDir), v1, `${NAME}@${v1} in ${nodesDir}`);
				await shot('3-installed');
			});

		if (installed) {
			await test(`every node of ${NAME} is a known node type, and the nodes panel finds them`, async () => {
				const known = new Set(await knownTypes());
				const missing = [...types].filter((t) => !known.has(t));
				assert.deepEqual(missing, [], 'node types the editor does not know');
				await page.goto(`${base}/workflow/new`);
				await page
					.locator('[data-test-id="node-creator-plus-button"], [data-test-id="canvas-plus-button"]')
					.first()
					.click({ timeout: 60000 });
				const search = page
					.locator('[data-test-id="node-creator-search-bar"] input, input[placeholder^="Search"]')
					.first();
				await search.waitFor({ timeout: 15000 });
				for (const q of ['Eval Dataset', 'BLEU', 'Groundedness']) {
					await search.fill(q);
					await until(`the nodes panel lists "${q}"`, async () =>
						(await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts()).some(
							(n) => n.startsWith(q),
						),
					);
					if (q === 'Eval Dataset') await shot('4-nodes-panel');
				}
				await page.keyboard.press('Escape');
			});
		}

		// The CI gate example: published as the editor's Publish does, called as a CI job calls it.
		let session = null;
		const callGate = async () => {
			const rows = [
				{
					query: 'Refund window?',
					response: 'Refunds within 30 days.',
					ground_truth: 'Refunds are possible within 30 days.',
				},
				{
					query: 'Ship abroad?',
					response: 'We were founded in Berlin.',
					ground_truth: 'Yes, we ship to all EU countries.',
				},
			];
			const res = await until('the webhook answers', async () => {
				const r = await fetch(`${base}/webhook/rag-eval-ci`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
					body: JSON.stringify({ rows }),
					signal: AbortSignal.timeout(120000),
				});
				if (r.status === 404) return null;
				return r;
			});
			const body = await res.json();
			assert.equal(res.status, 200, JSON.stringify(body).slice(0, 1000));
			const { f1Score } = require(path.join(REPO, 'dist', 'src', 'index.js'));
			const want = rows.reduce((a, r) => a + f1Score(r.response, r.ground_truth), 0) / rows.length;
			assert.equal(body.rows, rows.length);
			assert.ok(Math.abs(body.f1_mean - want) < 1e-12, `f1_mean ${body.f1_mean}, library ${want}`);
			assert.equal(body.pass, false, 'the second row fails');
		};
		if (installed) {
			await test('the CI gate example runs with the installed nodes (published, called over HTTP)', async () => {
				const ev = require(path.join(REPO, 'scripts', 'n8n-evaluations.js'));
				session = await ev.restSession(`http://127.0.0.1:${new URL(base).port}`, EMAIL, PASSWORD);
				const wf = await session.get(`/workflows/${CI_GATE}`);
				await session.post(`/workflows/${CI_GATE}/activate`, { versionId: wf.versionId });
				await callGate();
			});
		}

		if (installed) {
			await test(`n8n offers ${v2} once it is published, and updates to it`, async () => {
				registry.publish(patchDir);
				await until(
					`the Update button on the card of ${NAME}`,
					async () => {
						await openCommunityNodes();
						await card().first().waitFor({ timeout: 15000 });
						return card()
							.first()
							.getByRole('button', { name: /update/i })
							.isVisible();
					},
					{ timeoutMs: 90000, everyMs: 2000 },
				);
				await shot('5-update-offered');
				await card()
					.first()
					.getByRole('button', { name: /update/i })
					.click();
				const confirm = page.getByRole('button', { name: /confirm update/i });
				await confirm.waitFor();
				// The confirmation names the workflows that use the package's nodes.
				await until('the update dialog lists the CI gate workflow', async () =>
					page.getByText('RAG evaluation: CI gate', { exact: false }).last().isVisible(),
				);
				await shot('6-update-confirm');
				await confirm.click();
				await until(
					`the card shows v${v2}`,
					async () => {
						const t = await card().first().innerText();
						return t.includes(`v${v2}`);
					},
					{ timeoutMs: 300000, everyMs: 1000 },
				);
				assert.equal(installedVersion(nodesDir), v2);
				await shot('7-updated');
				const known = new Set(await knownTypes());
				assert.deepEqual(
					[...types].filter((t) => !known.has(t)),
					[],
					'node types after the update',
				);
			});
			await test(`the CI gate example still runs after the update to ${v2}`, callGate);

			await test(`Settings -> Community Nodes uninstalls ${NAME}`, async () => {
				await openCommunityNodes();
				await card().first().waitFor();
				await card()
					.first()
					.locator('[data-test-id="action-toggle"], [data-test-id="action-toggle-button"], button')
					.last()
					.click();
				await page.getByText('Uninstall package', { exact: true }).first().click();
				const confirm = page.getByRole('button', { name: /confirm uninstall/i });
				await confirm.waitFor();
				await shot('8-uninstall-confirm');
				await confirm.click();
				await until('the card is gone', async () => (await card().count()) === 0, {
					timeoutMs: 120000,
					everyMs: 1000,
				});
				await shot('9-uninstalled');
				assert.equal(installedVersion(nodesDir), null, `${NAME} removed from ${nodesDir}`);
				const known = await knownTypes();
				assert.deepEqual(
					known.filter((t) => t.startsWith(`${NAME}.`)),
					[],
					'our node types are gone',
				);
			});
		}
		log(
			`registry front served ${front.served().length} requests; refused: ${front.refused().join(', ') || 'none'}`,
		);
		await test('n8n fetched the package only through the local registry', async () => {
			const served = front.served();
			assert.ok(
				served.some((s) => s.includes(`/${NAME}/-/${NAME}-${v1}.tgz`)),
				`the ${v1} tarball came from the local registry`,
			);
			assert.ok(
				served.some((s) => s.includes(`/${NAME}/-/${NAME}-${v2}.tgz`)),
				`the ${v2} tarball too`,
			);
		});
		await server.stop();

		// Why the front: pointed at the local registry by N8N_COMMUNITY_PACKAGES_REGISTRY, the
		// community edition refuses to install. Should n8n drop that licence check, this fails and
		// the suite can set the variable instead of routing the default registry's host.
		await test('N8N_COMMUNITY_PACKAGES_REGISTRY set to the local registry: n8n refuses it as unlicensed', async () => {
			const other = path.join(ART, 'n8n-user-custom-registry');
			const s = await startN8n(other, { N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url });
			try {
				const ev = require(path.join(REPO, 'scripts', 'n8n-evaluations.js'));
				const rest = await ev.restSession(
					`http://127.0.0.1:${new URL(s.base).port}`,
					EMAIL,
					PASSWORD,
				);
				const err = await rest.post('/community-packages', { name: NAME }).then(
					() => null,
					(e) => e,
				);
				assert.ok(err, 'the install was accepted');
				assert.match(err.message, /license does not allow/i);
				assert.equal(installedVersion(path.join(other, '.n8n', 'nodes')), null);
			} finally {
				await s.stop();
			}
		});

		// The other path of the README: npm install in ~/.n8n/nodes, then n8n picks it up.
		await test(`npm install ${NAME} in ~/.n8n/nodes, then n8n runs its nodes`, async () => {
			const home = path.join(ART, 'npm-path');
			const dir = path.join(home, '.n8n', 'nodes');
			fs.mkdirSync(dir, { recursive: true });
			// What n8n's first start writes there.
			fs.writeFileSync(
				path.join(dir, 'package.json'),
				JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
			);
			const r = spawnSync(
				'npm',
				[
					'install',
					NAME,
					`--registry=${registry.url}`,
					'--no-audit',
					'--no-fund',
					'--loglevel=error',
				],
				{
					cwd: dir,
					env: n8n.node24Env({
						npm_config_userconfig: emptyNpmrc,
						npm_config_cache: path.join(ART, 'npm-cache-2'),
					}),
					encoding: 'utf8',
				},
			);
			assert.equal(r.status, 0, `npm install failed: ${r.stderr.slice(-2000)}`);
			const latest = (await registry.packument(NAME))['dist-tags'].latest;
			assert.equal(installedVersion(dir), latest, `npm installs the latest version (${latest})`);
			// info: `n8n execute --rawOutput` prints the run data through its logger.
			const env = n8n.n8nEnv(home, {
				N8N_LOG_LEVEL: 'info',
				N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
			});
			const wfDir = path.join(ART, 'npm-path-import');
			fs.mkdirSync(wfDir, { recursive: true });
			const tiny = JSON.parse(
				fs.readFileSync(path.join(REPO, 'test', 'e2e', 'workflows', 'tiny-bleu.json'), 'utf8'),
			);
			const sample = fs
				.readFileSync(path.join(REPO, 'examples', 'datasets', 'rag-support-sample.jsonl'), 'utf8')
				.trim();
			for (const node of tiny.nodes)
				if (node.parameters.text === '__DATASET__') node.parameters.text = sample;
			fs.writeFileSync(path.join(wfDir, 'tiny.json'), JSON.stringify(tiny));
			const imp = await n8n.runN8n(['import:workflow', '--separate', `--input=${wfDir}`], env);
			assert.equal(imp.status, 0, imp.stderr.slice(-1500));
			const ex = await n8n.runN8n(['execute', '--id', tiny.id, '--rawOutput'], env, {
				timeoutMs: 240000,
			});
			fs.writeFileSync(
				path.join(ART, 'npm-path.out.txt'),
				`${ex.stdout}\n--- stderr\n${ex.stderr}`,
			);
			const run = parseRun(ex.stdout);
			assert.ok(
				run,
				`no run data (exit ${ex.status}); see test-artifacts/registry/npm-path.out.txt`,
			);
			assert.equal(run.data.resultData.error, undefined, JSON.stringify(run.data.resultData.error));
			const spec = require(path.join(REPO, 'test', 'e2e', 'tiny.spec.js'))[0];
			await spec.check(run, { out, dist: path.join(REPO, 'dist') });
		});
	} catch (e) {
		failed.push('setup');
		log(`FAIL setup: ${e.stack || e}`);
		await shot(`failure-setup`).catch(() => {});
	} finally {
		for (const c of cleanups.reverse())
			await Promise.resolve()
				.then(c)
				.catch(() => {});
	}
	log(
		`total ${((Date.now() - t0) / 1000).toFixed(0)} s; screenshots in ${path.relative(REPO, ART)}`,
	);
	process.stdout.write(`${passed} passed, ${failed.length} failed\n`);
	process.exitCode = failed.length ? 1 : 0;
}

main().catch((e) => {
	process.stderr.write(`[registry] ${e.stack || e}\n`);
	process.stdout.write('0 passed, 1 failed\n');
	process.exit(1);
});
