#!/usr/bin/env node
// E2E suite for the "Bootstrap a golden set from your docs" example on a real `n8n start`
// (2.41.1) with the local judge server: Draft Questions (through a webhook added in front of it)
// creates the drafts Data Table, generates up to 12 checked questions of every kind from the
// bundled documents and stores every kept one as a draft citing real chunks; run again, it stores no
// draft twice and, with the verdict cache warm, calls the model no more. A reviewer answers the
// review form over HTTP (approve, approve with a corrected question, reject); Promote Approved
// appends only the approved drafts to the golden set, marked generated with the reviewer, once.
// Run by scripts/e2e.js (registered in test/e2e/generator.spec.js); prints `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const n8n = require('../../scripts/n8n-install');
const ev = require('../../scripts/n8n-evaluations');

const REPO = n8n.REPO;
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'e2e-bootstrap');
const OWNER = { email: 'owner@rag-eval.local', password: 'E2e-bootstrap-1' };
const DRAFT_HOOK = 'rag-eval-bootstrap-e2e-draft';
const PROMOTE_HOOK = 'rag-eval-bootstrap-e2e-promote';
const MIX = { single_fact: 4, reasoning: 2, multi_chunk: 2, conversational: 2, unanswerable: 2 };

function log(msg) {
	process.stdout.write(`[bootstrap] ${msg}\n`);
}

/** The example with the judge credential, and webhooks in front of its two manual triggers. */
function exampleWorkflow(cred) {
	const wf = n8n.withCredential(
		JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'bootstrap-golden-set.workflow.json'), 'utf8'),
		),
		cred,
	);
	const hook = (k, name, p, to) => {
		wf.nodes.push({
			id: `e2e00000-0000-4000-8000-00000000b00${k}`,
			name,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 200 + 400 * k],
			webhookId: `e2e00000-0000-4000-8000-0000000b00a${k}`,
			parameters: {
				httpMethod: 'POST',
				path: p,
				responseMode: 'lastNode',
				responseData: 'noData',
				options: {},
			},
		});
		wf.connections[name] = { main: [[{ node: to, type: 'main', index: 0 }]] };
	};
	hook(1, 'E2E Draft', DRAFT_HOOK, 'Drafts Table');
	hook(2, 'E2E Promote', PROMOTE_HOOK, 'Golden Set Table');
	return wf;
}

// Values of an HTML attribute back to text (the form page escapes them).
const unescape = (s) =>
	s
		.replace(/&quot;/g, '"')
		.replace(/&#x27;|&#39;/g, "'")
		.replace(/&#x3D;/g, '=')
		.replace(/&#x60;/g, '`')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&amp;/g, '&');

/** The fields of a rendered form page: label text -> field id, and hidden values by id. */
function pageFields(html) {
	const labels = new Map();
	for (const m of html.matchAll(
		/<label class=['"]form-label[^'"]*['"](?: for=['"](field-\d+)['"])?>([^<]*)<\/label>/g,
	)) {
		const id = m[1] ?? html.slice(m.index).match(/id=['"]option\d+_(field-\d+)['"]/)?.[1];
		if (id) labels.set(unescape(m[2]).trim(), id);
	}
	const hidden = new Map();
	for (const m of html.matchAll(
		/<input type="hidden" id="(field-\d+)" name="field-\d+" value="([^"]*)"/g,
	))
		hidden.set(m[1], unescape(m[2]));
	return { labels, hidden };
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

/** The page a Form submission leads to (as n8n's form page script polls for it), or null. */
async function nextPage(base, waitingUrl) {
	const url = new URL(waitingUrl.replace(/^https?:\/\/[^/]+/, base));
	const status = new URL(url);
	status.pathname += '/n8n-execution-status';
	for (let tries = 0; tries < 240; tries++) {
		const text = (await (await fetch(status)).text()).trim();
		if (text === 'form-waiting') return (await fetch(url)).text();
		if (text === 'success') return null;
		if (['canceled', 'crashed', 'error', 'null'].includes(text))
			throw new Error(`the review execution ended: ${text}`);
		await sleep(250);
	}
	throw new Error(`no form page after ${waitingUrl}`);
}

async function main() {
	let passed = 0;
	const failed = [];
	const check = async (name, fn) => {
		try {
			await fn();
			passed++;
			log(`ok   ${name}`);
		} catch (e) {
			failed.push(name);
			log(`FAIL ${name}: ${e.stack || e}`);
		}
	};
	await n8n.ensureN8n();
	n8n.buildIfStale();
	const lib = require(path.join(REPO, 'dist', 'src', 'index.js'));
	fs.rmSync(ARTIFACTS, { recursive: true, force: true });
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	const userFolder = path.join(ARTIFACTS, 'n8n-user');
	n8n.installPackage(userFolder, n8n.packPackage(path.join(ARTIFACTS, 'pack')));
	const judge = await n8n.spawnJudgeServer();
	const judgeCalls = async () =>
		(await fetch(new URL('/__stats', judge.url)).then((r) => r.json())).chat;
	const bcrypt = require(path.join(n8n.n8nDir(), 'node_modules', 'bcryptjs'));
	const port = await n8n.freePort();
	const base = `http://127.0.0.1:${port}`;
	const env = n8n.n8nEnv(userFolder, {
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_EDITOR_BASE_URL: base,
		WEBHOOK_URL: `${base}/`,
		N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Eval',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(OWNER.password, 10),
	});
	const cred = {
		id: 'ragEvalJudgeLocal1',
		name: 'Judge model (local test server)',
		type: 'ragEvalLlmApi',
		data: {
			provider: 'compatible',
			apiKey: 'e2e-test-key',
			baseUrl: judge.url,
			model: 'e2e-judge',
		},
	};
	const credFile = path.join(ARTIFACTS, 'credentials.json');
	fs.writeFileSync(credFile, JSON.stringify([cred]), { mode: 0o600 });
	let r = await n8n.runN8n(['import:credentials', `--input=${credFile}`], env);
	fs.rmSync(credFile, { force: true });
	if (r.status !== 0) throw new Error(`import:credentials failed: ${r.stderr}`);
	const wf = exampleWorkflow(cred);
	const importDir = path.join(ARTIFACTS, 'import');
	fs.mkdirSync(importDir, { recursive: true });
	fs.writeFileSync(path.join(importDir, `${wf.id}.json`), JSON.stringify(wf));
	r = await n8n.runN8n(['import:workflow', '--separate', `--input=${importDir}`], env);
	if (r.status !== 0) throw new Error(`import:workflow failed: ${r.stdout}\n${r.stderr}`);
	r = await n8n.runN8n(['publish:workflow', `--id=${wf.id}`], { ...env, N8N_LOG_LEVEL: 'info' });
	if (r.status !== 0 || /Error/.test(r.stdout + r.stderr))
		throw new Error(`publishing ${wf.id} failed:\n${r.stdout}\n${r.stderr}`);

	const logFile = fs.openSync(path.join(ARTIFACTS, 'n8n-server.log'), 'w');
	const server = spawn('node', [n8n.n8nBin(), 'start'], {
		env,
		stdio: ['ignore', logFile, logFile],
	});
	try {
		const deadline = Date.now() + 240000;
		for (;;) {
			if (server.exitCode !== null) throw new Error(`n8n start exited with ${server.exitCode}`);
			const ok = await fetch(`${base}/healthz/readiness`).then(
				(x) => x.ok,
				() => false,
			);
			if (ok) break;
			if (Date.now() > deadline) throw new Error('n8n start did not become ready');
			await sleep(1000);
		}
		// Published workflows are activated after n8n reports ready: wait until both webhooks
		// and the form answer (a GET on a POST webhook says so once it is registered).
		for (const p of [`webhook/${DRAFT_HOOK}`, `webhook/${PROMOTE_HOOK}`, 'form/rag-eval-drafts']) {
			for (let tries = 0; ; tries++) {
				const text = await fetch(`${base}/${p}`).then((x) => x.text());
				if (!/is not registered\./.test(text) || /Did you mean/.test(text)) break;
				if (tries > 120) throw new Error(`${p} was never registered: ${text.slice(0, 300)}`);
				await sleep(1000);
			}
		}
		const session = await ev.restSession(base, OWNER.email, OWNER.password);
		const tableRows = async (name) => {
			const project = await session.get('/projects/personal');
			const list = await session.get(
				`/projects/${project.id}/data-tables?filter=${encodeURIComponent(JSON.stringify({ name }))}`,
			);
			const t = (list.data ?? list).find((x) => x.name === name);
			assert.ok(t, `Data Table ${name} exists`);
			const out = [];
			for (let skip = 0; ; skip += 100) {
				const page = await session.get(
					`/projects/${project.id}/data-tables/${t.id}/rows?take=100&skip=${skip}`,
				);
				const data = page.data ?? page;
				out.push(...data);
				if (data.length < 100) return out;
			}
		};
		// The latest stored execution of the example that ran `node`, from n8n's execution store.
		const { parse } = require(path.join(n8n.n8nDir(), 'node_modules', 'flatted'));
		const latestRun = async (node) => {
			const list = await session.get(
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: wf.id }))}&limit=100`,
			);
			const runs = (list.results ?? list.data ?? list)
				.filter((e) => e.status === 'success')
				.sort((a, b) => Number(b.id) - Number(a.id));
			for (const e of runs) {
				const x = await session.get(`/executions/${e.id}`);
				const data = typeof x.data === 'string' ? parse(x.data) : x.data;
				if (data?.resultData?.runData?.[node]) return data;
			}
			return null;
		};
		const outputOf = (data, node, k) =>
			(data.resultData.runData[node]?.[0]?.data?.main?.[k] ?? []).map((i) => i.json);
		const post = async (hook) => {
			const res = await fetch(`${base}/webhook/${hook}`, { method: 'POST' });
			const text = await res.text();
			assert.equal(res.status, 200, text.slice(0, 1000));
			return text;
		};
		const docs = new Map(
			fs
				.readdirSync(path.join(REPO, 'examples', 'datasets', 'golden-docs'))
				.map((f) => [
					`docs/${f}`,
					fs.readFileSync(path.join(REPO, 'examples', 'datasets', 'golden-docs', f), 'utf8'),
				]),
		);

		let drafts = [];
		let calls = 0;
		await check(
			'Draft Questions creates the drafts table and stores every kept draft (up to 12, every kind), each citing real chunks of the documents',
			async () => {
				const before = await judgeCalls();
				await post(DRAFT_HOOK);
				calls = (await judgeCalls()) - before;
				drafts = await tableRows('rag-eval-golden-drafts');
				fs.writeFileSync(path.join(ARTIFACTS, 'drafts.json'), JSON.stringify(drafts, null, 2));
				// The local judge server's groundedness verdicts on text without its score marker are
				// a stable hash of the prompt, so a few drafts fail their check: every kept row is
				// stored, every dropped one says why, and no kind gets more than its share.
				const run = await latestRun('Eval Set Generator');
				assert.ok(run, 'the draft execution was stored');
				const rows = outputOf(run, 'Eval Set Generator', 0);
				const dropped = outputOf(run, 'Eval Set Generator', 1);
				fs.writeFileSync(path.join(ARTIFACTS, 'dropped.json'), JSON.stringify(dropped, null, 2));
				log(`${rows.length} drafts kept, ${dropped.length} dropped, ${calls} model calls`);
				assert.deepEqual(
					drafts.map((d) => d.request_id).sort(),
					rows.map((x) => x.request_id).sort(),
				);
				assert.ok(drafts.length >= 8 && drafts.length <= 12, `${drafts.length} drafts`);
				for (const x of dropped) assert.match(x.error, /^slot \d+ \(/);
				const kinds = {};
				for (const d of drafts) {
					kinds[d.kind] = (kinds[d.kind] || 0) + 1;
					assert.equal(d.status, 'draft');
					assert.match(d.request_id, /^gen-[0-9a-f]{12}$/);
					assert.match(d.generator, /^generator:eval_set_generator@1\|model:e2e-judge\|/);
					const ctx = JSON.parse(d.expected_retrieved_context);
					if (d.kind === 'unanswerable') {
						assert.deepEqual(ctx, []);
						assert.match(d.expected_response, /^The documents do not answer this question\./);
						continue;
					}
					assert.ok(JSON.parse(d.expected_facts).length > 0);
					assert.ok(ctx.length >= 1);
					for (const c of ctx) {
						assert.ok(docs.has(c.doc_uri), `${c.doc_uri} is a bundled document`);
						const text = docs.get(c.doc_uri).replace(/\r\n?/g, '\n');
						assert.ok(
							text.includes(c.content),
							`${d.request_id}: cites a real chunk of ${c.doc_uri}`,
						);
					}
					if (d.kind === 'conversational') assert.equal(JSON.parse(d.history).length, 2);
				}
				for (const [k, n] of Object.entries(kinds)) assert.ok(n <= MIX[k], `${k}: ${n}`);
				assert.equal(Object.keys(kinds).length, 5, 'every kind is drafted');
				assert.equal(
					new Set(drafts.map((d) => d.fingerprint)).size,
					drafts.length,
					'no draft twice',
				);
				for (let a = 0; a < drafts.length; a++)
					for (let b = a + 1; b < drafts.length; b++)
						assert.ok(lib.questionSimilarity(drafts[a].request, drafts[b].request) < 0.8);
				assert.ok(calls >= 24, `one generator and one check call per draft (${calls} calls)`);
			},
		);

		await check(
			'run again: no draft is stored twice, and the warm verdict cache makes no call',
			async () => {
				const before = await judgeCalls();
				await post(DRAFT_HOOK);
				assert.equal((await judgeCalls()) - before, 0, 'no new model call');
				const again = await tableRows('rag-eval-golden-drafts');
				assert.equal(again.length, drafts.length);
			},
		);

		// The reviewer: approves the first draft, approves the second with a corrected question,
		// rejects the third, and leaves the rest for later.
		const decided = new Map();
		await check('a reviewer decides three drafts on the review form over HTTP', async () => {
			for (let k = 0; k < 3; k++) {
				const first = new FormData();
				first.append('field-0', 'rita');
				const posted = await fetch(`${base}/form/rag-eval-drafts`, { method: 'POST', body: first });
				const body = await posted.json();
				assert.ok(body.formWaitingUrl, JSON.stringify(body));
				const url = body.formWaitingUrl.replace(/^https?:\/\/[^/]+/, base);
				const html = (await nextPage(base, url)) ?? '';
				if (k === 0) fs.writeFileSync(path.join(ARTIFACTS, 'draft-page.html'), html);
				assert.ok(html.includes('Save my decision'), 'the review page shows');
				const { labels, hidden } = pageFields(html);
				const id = (label) => {
					const f = labels.get(label);
					assert.ok(f, `field "${label}" among ${[...labels.keys()].join(' | ')}`);
					return f;
				};
				const [, requestId] = [...hidden.entries()].find(([, v]) => /^gen-/.test(v)) ?? [];
				assert.ok(requestId, 'the page carries the draft id');
				const draft = drafts.find((d) => d.request_id === requestId);
				assert.ok(draft, `${requestId} is a stored draft`);
				assert.ok(
					html.includes(draft.request.replace(/&/g, '&amp;').replace(/'/g, '&#39;').slice(0, 20)) ||
						html.includes(draft.request.slice(0, 20)),
					'the page shows the question',
				);
				const form = new FormData();
				for (const [f, v] of hidden) form.append(f, v);
				form.append(
					id('Keep this question in the golden set?'),
					JSON.stringify([k === 2 ? 'reject' : 'approve']),
				);
				form.append(
					id('Corrected question (optional)'),
					k === 1 ? 'Corrected: how long do refunds take?' : '',
				);
				form.append(id('Corrected expected facts, one per line (optional)'), '');
				const saved = await fetch(url, { method: 'POST', body: form });
				const savedText = await saved.text();
				assert.equal(saved.status, 200, savedText.slice(0, 500));
				const next = JSON.parse(savedText);
				const thanks = next.formWaitingUrl ? await nextPage(base, next.formWaitingUrl) : savedText;
				assert.match(thanks ?? '', /Saved: thank you/);
				decided.set(requestId, k);
			}
			const rows = await tableRows('rag-eval-golden-drafts');
			const by = new Map(rows.map((x) => [x.request_id, x]));
			for (const [id, k] of decided) {
				assert.equal(by.get(id).status, k === 2 ? 'rejected' : 'approved');
				assert.equal(by.get(id).reviewer, 'rita');
				if (k === 1) assert.equal(by.get(id).request, 'Corrected: how long do refunds take?');
			}
			assert.equal(rows.filter((x) => x.status === 'draft').length, drafts.length - 3);
		});

		await check(
			'Promote Approved appends only the approved drafts to the golden set, marked generated with the reviewer; promoting again adds none',
			async () => {
				await post(PROMOTE_HOOK);
				const golden = await tableRows('rag-eval-golden-set');
				fs.writeFileSync(path.join(ARTIFACTS, 'golden.json'), JSON.stringify(golden, null, 2));
				const approved = [...decided].filter(([, k]) => k !== 2).map(([id]) => id);
				assert.deepEqual(golden.map((g) => g.request_id).sort(), approved.sort());
				for (const g of golden) {
					assert.match(g.source, /^generated \(generator:eval_set_generator@1\|/);
					assert.equal(g.reviewer, 'rita');
					const k = decided.get(g.request_id);
					if (k === 1) assert.equal(g.request, 'Corrected: how long do refunds take?');
				}
				await post(PROMOTE_HOOK);
				assert.equal((await tableRows('rag-eval-golden-set')).length, approved.length);
				const rows = await tableRows('rag-eval-golden-drafts');
				assert.equal(rows.filter((x) => x.status === 'promoted').length, approved.length);
				assert.equal(rows.filter((x) => x.status === 'rejected').length, 1);
			},
		);
	} finally {
		server.kill('SIGTERM');
		judge.child.kill();
	}
	process.stdout.write(`${passed} passed, ${failed.length} failed\n`);
	process.exitCode = failed.length ? 1 : 0;
}

main().catch((e) => {
	log(e.stack || String(e));
	process.stdout.write('0 passed, 1 failed\n');
	process.exitCode = 1;
});
