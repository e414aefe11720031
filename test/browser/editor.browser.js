#!/usr/bin/env node
// The n8n editor as a new user meets it, in a real headless Chromium (Debian's /usr/bin/chromium
// via playwright-core) against an n8n started by our own launcher with no judge model: log in;
// in a new empty workflow and from a Manual Trigger's output "+", find every node of the package
// by its name and by the words people search with; run a judge without a model and read the
// "rows not scored" notice and the Score columns first in the output's Table view; open every
// example and fail on any node, note or text on top of another and any connection not drawn in
// view; fetch every node's output schema the way the editor does. The node list is the built
// package's (package.json n8n.nodes, read from dist/), never a list kept here. Screenshots go to
// test-artifacts/browser/ (passing ones also to docs/images/ with --update-docs), one per failure.
// Ends with `N passed, N failed`. docs/development.md, "The browser suite", says how to run it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..', '..');
const n8n = require(path.join(REPO, 'scripts', 'n8n-install.js'));
const { measureCanvas, layoutFaults, connectionsOf, overlaps } = require('./canvas');
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
		// A new user's first start: no judge model from the environment.
		const env = { ...process.env };
		for (const k of Object.keys(env))
			if (/^(OPENAI_|AZURE_OPENAI_)/.test(k) || k === 'RAG_EVAL_JUDGE_MODEL') delete env[k];
		const child = spawn(process.execPath, [path.join(REPO, 'scripts', 'start.js')], {
			env: {
				...env,
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

/**
 * The package's nodes as the editor gets them: from package.json `n8n.nodes`, each built class
 * in dist/ and the codex file the build wrote beside it.
 */
function packageNodes() {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	return pkg.n8n.nodes.map((rel) => {
		const file = path.join(REPO, rel);
		const Cls = require(file)[path.basename(file, '.node.js')];
		const d = new Cls().description;
		const codex = JSON.parse(fs.readFileSync(file.replace(/\.js$/, '.json'), 'utf8'));
		const versions = Array.isArray(d.version) ? d.version : [d.version];
		const param = (name) => d.properties.find((p) => p.name === name && Array.isArray(p.options));
		return {
			type: `${pkg.name}.${d.name}`,
			name: d.name,
			displayName: d.displayName,
			alias: codex.alias ?? [],
			versions,
			defaultVersion: d.defaultVersion ?? Math.max(...versions),
			resources: param('resource')?.options.map((o) => o.value) ?? [],
			operations: param('operation')?.options.map((o) => o.value) ?? [],
		};
	});
}

/** The schema paths the editor asks for: /schemas/<type>/<x.y.z>[/<resource>][/<operation>].json. */
function schemaPaths(node) {
	const out = [];
	for (const v of node.versions) {
		const version = String(v).split('.').concat(['0', '0']).slice(0, 3).join('.');
		for (const resource of node.resources.length ? node.resources : [undefined])
			for (const operation of node.operations.length ? node.operations : [undefined])
				out.push(
					`/schemas/${[node.type, version, resource, operation].filter(Boolean).join('/')}.json`,
				);
	}
	return out;
}

/** Words a new user searches with; each must list every node whose name or codex words hold it. */
const FAMILY_WORDS = ['eval', 'judge', 'metric', 'RAG', 'agent', 'groundedness', 'bleu'];

function expectedFor(word, nodes) {
	const w = word.toLowerCase();
	return nodes
		.filter(
			(n) =>
				n.displayName.toLowerCase().includes(w) || n.alias.some((a) => a.toLowerCase().includes(w)),
		)
		.map((n) => n.displayName);
}

const SEARCH_INPUT =
	'input[data-test-id="node-creator-search-bar"], [data-test-id="node-creator-search-bar"] input';

/** n8n's first search test: every character of the query, in order, somewhere in the text. */
function fuzzyHolds(query, text) {
	let i = 0;
	const q = query.toLowerCase();
	for (const ch of text.toLowerCase()) if (ch === q[i]) i++;
	return q.length > 0 && i === q.length;
}

/**
 * Types `query` into the open nodes panel and reads the result names until every expected name is
 * listed (the panel renders long result lists in steps) or 15 s pass. A list that still shows a
 * node of ours the query cannot match is the previous query's: it is read again, never counted.
 * Returns what is missing.
 */
async function searchPanel(page, query, expected, ours = []) {
	const search = page.locator(SEARCH_INPUT).first();
	await search.fill('');
	await search.fill(query);
	const cannotMatch = new Set(
		ours
			.filter((n) => ![n.displayName, ...n.alias].some((t) => fuzzyHolds(query, t)))
			.map((n) => n.displayName),
	);
	const deadline = Date.now() + 15000;
	let names = [];
	let missing = expected;
	let stale = [];
	do {
		await page.waitForTimeout(250);
		names = (await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts()).map(
			(n) => n.trim(),
		);
		stale = names.filter((n) => cannotMatch.has(n));
		missing = expected.filter((e) => !names.includes(e));
	} while ((missing.length > 0 || stale.length > 0) && Date.now() < deadline);
	if (stale.length > 0) missing = [...missing, ...stale.map((n) => `(the list still shows ${n})`)];
	return { names, missing };
}

async function waitForCanvasSettled(page) {
	// The editor zooms to fit on opening: measure once the transform stops changing.
	let prev = null;
	let m = null;
	for (let t = 0; t < 30; t++) {
		await page.waitForTimeout(400);
		m = await page.evaluate(measureCanvas);
		if (t >= 2 && m.transform === prev) break;
		prev = m.transform;
	}
	return m;
}

async function main() {
	ensureChromium();
	PORT = PORT || (await n8n.freePort());
	BASE = `http://localhost:${PORT}`;
	const home = path.join(ART, 'n8n-home');
	fs.rmSync(home, { recursive: true, force: true });
	const password = 'Browser-Test-Pass1';
	log('starting n8n through scripts/start.js (no judge model)');
	const server = await startN8n(home, password);
	const owner = JSON.parse(fs.readFileSync(path.join(home, 'owner.json'), 'utf8'));
	// After the launcher: it builds dist/ when the sources are newer.
	const nodes = packageNodes();
	const { chromium } = loadPlaywright();
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox'],
	});
	const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
	// Every output schema of ours the editor asks for while the suite runs.
	const schemaRequests = [];
	page.on('response', (r) => {
		const u = new URL(r.url());
		if (u.pathname.startsWith('/schemas/n8n-nodes-rag-eval.'))
			schemaRequests.push({ path: u.pathname, status: r.status() });
	});
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
			const slug = name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
			await shot(page, `failure-${failed.length}-${slug}`).catch(() => {});
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
		await test(`the built package has nodes to look for (${nodes.length})`, async () => {
			assert.ok(nodes.length > 0, 'package.json n8n.nodes lists the nodes');
			for (const n of nodes) assert.ok(n.displayName, `${n.type} has a display name`);
		});

		// 1. A new empty workflow: the nodes panel from the canvas's "+".
		const openFromNewWorkflow = async () => {
			await page.locator('[data-test-id="node-creator-plus-button"]').click();
			await page.locator(SEARCH_INPUT).first().waitFor({ timeout: 15000 });
		};
		await test('a new empty workflow opens with the nodes panel', async () => {
			await page.goto(`${BASE}/workflow/new`);
			await page.locator('[data-test-id="canvas-plus-button"]').waitFor({ timeout: 60000 });
			assert.equal(await page.locator('[data-test-id="canvas-node"]').count(), 0, 'no node yet');
			await openFromNewWorkflow();
		});
		const searchChecks = async (where, reopen) => {
			const ensureOpen = async () => {
				if (!(await page.locator(SEARCH_INPUT).first().isVisible())) await reopen();
			};
			for (const node of nodes) {
				await test(`${where}: searching "${node.displayName}" lists it`, async () => {
					await ensureOpen();
					const { names, missing } = await searchPanel(
						page,
						node.displayName,
						[node.displayName],
						nodes,
					);
					assert.deepEqual(missing, [], `not listed; the panel showed ${JSON.stringify(names)}`);
				});
			}
			for (const word of FAMILY_WORDS) {
				const expected = expectedFor(word, nodes);
				await test(`${where}: searching "${word}" lists the ${expected.length} nodes it names`, async () => {
					assert.ok(expected.length > 0, `no node of ours is found by "${word}"`);
					await ensureOpen();
					const { missing } = await searchPanel(page, word, expected, nodes);
					assert.deepEqual(missing, [], `missing from the results for "${word}"`);
					if (where === 'new workflow' && word === 'judge') await shot(page, 'new-workflow-search');
					if (where === 'Manual Trigger "+"' && word === 'metric')
						await shot(page, 'trigger-plus-search');
				});
			}
		};
		await searchChecks('new workflow', openFromNewWorkflow);
		await page.keyboard.press('Escape').catch(() => {});

		// 2. The output "+" of a non-AI node: the panel n8n filters hardest.
		const trigger = '[data-test-id="canvas-node"][data-node-type="n8n-nodes-base.manualTrigger"]';
		const openFromTriggerPlus = async () => {
			const node = page.locator(trigger).first();
			await node.hover();
			await node.locator('[data-test-id="canvas-handle-plus"]').first().click();
			await page.locator(SEARCH_INPUT).first().waitFor({ timeout: 15000 });
		};
		await test('a Manual Trigger added from the panel, its output "+" opens the panel', async () => {
			await page.goto(`${BASE}/workflow/new`);
			await page.locator('[data-test-id="canvas-plus-button"]').waitFor({ timeout: 60000 });
			await page.locator('[data-test-id="canvas-plus-button"]').click();
			const { missing } = await searchPanel(page, 'Manual Trigger', ['Manual Trigger']);
			assert.deepEqual(missing, [], 'the panel lists Manual Trigger');
			await page
				.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Manual Trigger$/ })
				.first()
				.click();
			await page.locator(trigger).first().waitFor({ timeout: 15000 });
			await page.keyboard.press('Escape').catch(() => {});
			await openFromTriggerPlus();
		});
		await searchChecks('Manual Trigger "+"', openFromTriggerPlus);
		await page.keyboard.press('Escape').catch(() => {});

		// 3. A judge run with no judge model, as a new user imports and runs it.
		const lib = require(path.join(REPO, 'dist', 'src', 'index.js'));
		const { judgeNodeName } = require(path.join(REPO, 'dist', 'nodes', 'shared', 'judgeNode.js'));
		const decl = [...lib.judgeRegistry]
			.sort((a, b) => a.order - b.order)
			.find((d) => nodes.some((n) => n.name === judgeNodeName(d.id)));
		const judgeNode = nodes.find((n) => decl && n.name === judgeNodeName(decl.id));
		const dataset = nodes.find((n) => n.name === 'evalDataset');
		const aggregate = nodes.find((n) => n.name === 'evalAggregate');
		const rows = fs
			.readFileSync(path.join(REPO, 'examples', 'datasets', 'rag-support-sample.jsonl'), 'utf8')
			.trim()
			.split('\n')
			.slice(0, 3);
		const judgeName = judgeNode ? judgeNode.displayName : 'Judge';
		let judgeRan = false;
		await test(`a judge without a model (${judgeName}) runs from a Manual Trigger and says its ${rows.length} rows are not scored`, async () => {
			assert.ok(
				judgeNode && dataset && aggregate,
				'the package has a judge, Eval Dataset and Eval Aggregate',
			);
			const wf = {
				name: 'A judge without a judge model',
				nodes: [
					{
						id: 'b0000000-0000-4000-8000-000000000001',
						name: 'Manual Trigger',
						type: 'n8n-nodes-base.manualTrigger',
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
					},
					{
						id: 'b0000000-0000-4000-8000-000000000002',
						name: 'Eval Dataset',
						type: dataset.type,
						typeVersion: dataset.defaultVersion,
						position: [240, 0],
						parameters: { source: 'text', text: rows.join('\n'), format: 'jsonl' },
					},
					{
						id: 'b0000000-0000-4000-8000-000000000003',
						name: judgeName,
						type: judgeNode.type,
						typeVersion: judgeNode.defaultVersion,
						position: [480, 0],
						parameters: {},
					},
					{
						id: 'b0000000-0000-4000-8000-000000000004',
						name: 'Eval Aggregate',
						type: aggregate.type,
						typeVersion: aggregate.defaultVersion,
						position: [840, 0],
						parameters: {},
					},
				],
				connections: {
					'Manual Trigger': { main: [[{ node: 'Eval Dataset', type: 'main', index: 0 }]] },
					'Eval Dataset': { main: [[{ node: judgeName, type: 'main', index: 0 }]] },
					[judgeName]: { main: [[{ node: 'Eval Aggregate', type: 'main', index: 0 }]] },
				},
				settings: { executionOrder: 'v1' },
			};
			const file = path.join(ART, 'judge-without-model.workflow.json');
			fs.mkdirSync(ART, { recursive: true });
			fs.writeFileSync(file, JSON.stringify(wf, null, 2));
			await page.goto(`${BASE}/workflow/new`);
			await page.locator('[data-test-id="canvas-plus-button"]').waitFor({ timeout: 60000 });
			// The workflow menu's "Import from File..." reads this input.
			await page.locator('[data-test-id="workflow-import-input"]').setInputFiles(file);
			const judgeOnCanvas = page.locator(
				`[data-test-id="canvas-node"][data-node-name="${judgeName}"]`,
			);
			await judgeOnCanvas.waitFor({ timeout: 30000 });
			await page.locator('[data-test-id="execute-workflow-button"]').click();
			await page
				.locator(
					`[data-test-id="canvas-node"][data-node-name="Eval Aggregate"] [data-test-id="canvas-node-status-success"]`,
				)
				.waitFor({ timeout: 120000 });
			judgeRan = true;
			await judgeOnCanvas.dblclick();
			const output = page.locator('[data-test-id="output-panel"]');
			await output.waitFor({ timeout: 15000 });
			const hint = output.locator('[data-test-id="node-hint"]').first();
			await hint.waitFor({ timeout: 15000 });
			const text = (await hint.innerText()).trim();
			const m = text.match(/^(\d+) of (\d+) rows not scored: no judge model configured/);
			assert.ok(m, `the output pane says the rows are not scored; it says ${JSON.stringify(text)}`);
			assert.deepEqual([Number(m[1]), Number(m[2])], [rows.length, rows.length], text);
		});
		await test(`the judge's output in Table view shows its Score first: ${decl?.id}, ${decl?.id}_pass`, async () => {
			assert.ok(judgeRan, 'the judge ran (previous check)');
			const output = page.locator('[data-test-id="output-panel"]');
			await output.locator('[data-test-id="radio-button-table"]').first().click();
			const headers = output.locator('table thead th');
			await headers.first().waitFor({ timeout: 15000 });
			const names = (await headers.allInnerTexts()).map((h) => h.trim()).filter(Boolean);
			assert.deepEqual(
				names.slice(0, 2),
				[decl.id, `${decl.id}_pass`],
				`columns: ${JSON.stringify(names)}`,
			);
			assert.ok(names.includes('source'), 'bookkeeping under source');
			const firstRow = (
				await output.locator('table tbody tr').first().locator('td').allInnerTexts()
			).map((c) => c.trim());
			assert.deepEqual(
				firstRow.slice(0, 2),
				['null', 'null'],
				'a row not scored has no value and no verdict',
			);
			assert.equal(
				await output.locator('table tbody tr').count(),
				rows.length,
				'every row leaves the judge',
			);
			await shot(page, 'judge-output-table');
		});
		await test('Eval Aggregate after the judge says nothing was judged', async () => {
			assert.ok(judgeRan, 'the judge ran (previous check)');
			await page.keyboard.press('Escape');
			await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden', timeout: 15000 });
			await page
				.locator('[data-test-id="canvas-node"][data-node-name="Eval Aggregate"]')
				.dblclick();
			const output = page.locator('[data-test-id="output-panel"]');
			await output.waitFor({ timeout: 15000 });
			await output.locator('[data-test-id="radio-button-json"]').first().click();
			await page.waitForTimeout(500);
			assert.match(await output.innerText(), /nothing judged/);
			await page.keyboard.press('Escape');
		});

		// 4. Every example at the editor's opening zoom.
		const examples = fs
			.readdirSync(path.join(REPO, 'examples'))
			.filter((f) => f.endsWith('.workflow.json'))
			.sort()
			.map((f) => JSON.parse(fs.readFileSync(path.join(REPO, 'examples', f), 'utf8')));
		for (const wf of examples) {
			let opened = false;
			await test(`example "${wf.name}" renders every node with its icon`, async () => {
				await page.goto(`${BASE}/workflow/${wf.id}`);
				const canvasNodes = page.locator('[data-test-id="canvas-node"]');
				await canvasNodes.first().waitFor({ timeout: 60000 });
				opened = true;
				// Sticky notes are drawn apart from the canvas nodes.
				const real = wf.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
				assert.equal(await canvasNodes.count(), real.length, 'one canvas node per workflow node');
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
			});
			await test(`example "${wf.name}": no node, note or text on another, every connection in view`, async () => {
				assert.ok(opened, 'the example opened (previous check)');
				// Measured at the opening zoom, before anything is hovered or moved.
				await page.mouse.move(1, 1);
				const measured = await waitForCanvasSettled(page);
				const byId = new Map(
					wf.nodes.map((n) => [
						n.id,
						{ name: n.name, sticky: n.type === 'n8n-nodes-base.stickyNote' },
					]),
				);
				assert.equal(
					measured.nodes.length,
					wf.nodes.length,
					'every node and note is on the canvas',
				);
				for (const n of measured.nodes) {
					assert.ok(byId.has(n.id), `canvas node ${n.id} is in the workflow`);
					assert.ok(n.body.w > 0 && n.body.h > 0, `"${byId.get(n.id).name}" has a box`);
					assert.equal(
						n.sticky,
						byId.get(n.id).sticky,
						`"${byId.get(n.id).name}" drawn as what it is`,
					);
				}
				const faults = layoutFaults(measured, byId, connectionsOf(wf));
				await shot(page, `workflow-${wf.id}`);
				assert.deepEqual(faults, [], `layout faults at ${measured.transform}`);
			});
		}

		// 5. The output schema of every node, at the paths the editor builds.
		for (const node of nodes) {
			const paths = schemaPaths(node);
			await test(`output schema of ${node.displayName}: ${paths.join(', ')} answer 200`, async () => {
				const answers = await page.evaluate(async (ps) => {
					const out = [];
					for (const p of ps) {
						const r = await fetch(p);
						let body = null;
						try {
							body = await r.json();
						} catch {
							// not JSON: reported by the status or the shape check
						}
						out.push({
							p,
							status: r.status,
							shaped: !!body && typeof body === 'object' && 'type' in body && 'properties' in body,
						});
					}
					return out;
				}, paths);
				for (const a of answers) {
					assert.equal(a.status, 200, `${a.p}`);
					assert.ok(a.shaped, `${a.p} is a schema the editor accepts (type and properties)`);
				}
			});
		}

		await test('a judge node opens with its parameters', async () => {
			const wf =
				examples.find((w) => w.id === 'ragEvalNightly001') ??
				examples.find((w) => w.nodes.some((n) => n.type.includes('.judge')));
			const judge = wf.nodes.find((n) => n.type.includes('.judge'));
			await page.goto(`${BASE}/workflow/${wf.id}`);
			const el = page.locator(`[data-test-id="canvas-node"][data-node-name="${judge.name}"]`);
			await el.waitFor({ timeout: 60000 });
			await page.waitForTimeout(1000);
			await el.dblclick();
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.waitFor({ timeout: 15000 });
			await page.waitForTimeout(1500);
			const text = await ndv.innerText();
			assert.match(text, /Threshold/);
			await shot(page, 'judge-parameters');
		});
		await test('every output schema of ours the editor asked for answered 200', async () => {
			// Opening a node whose parents have not run shows their schemas: the editor asks for them.
			assert.ok(schemaRequests.length > 0, 'the editor asked for at least one of our schemas');
			const bad = schemaRequests.filter((r) => r.status !== 200);
			assert.deepEqual(bad, [], `of ${schemaRequests.length} requests`);
		});
		await test('the layout check sees an overlap when there is one', async () => {
			// The geometry the example checks rely on, on boxes known to overlap and not to.
			assert.ok(overlaps({ x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 10, h: 10 }));
			assert.ok(!overlaps({ x: 0, y: 0, w: 10, h: 10 }, { x: 10, y: 0, w: 10, h: 10 }));
			const names = new Map([
				['a', { name: 'A', sticky: false }],
				['b', { name: 'B', sticky: false }],
				['n', { name: 'Note', sticky: true }],
			]);
			const faults = layoutFaults(
				{
					nodes: [
						{ id: 'a', sticky: false, body: { x: 0, y: 0, w: 50, h: 50 }, texts: [] },
						{ id: 'b', sticky: false, body: { x: 40, y: 10, w: 50, h: 50 }, texts: [] },
						{ id: 'n', sticky: true, body: { x: 80, y: 0, w: 100, h: 100 }, texts: [] },
					],
					edges: [],
					pane: { x: 0, y: 0, w: 1000, h: 1000 },
				},
				names,
				[['A', 'B']],
			);
			assert.deepEqual(faults, [
				'node "A" overlaps node "B"',
				'node "B" overlaps note "Note"',
				'connection "A" -> "B" is not drawn (0 of 1)',
			]);
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
