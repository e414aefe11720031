#!/usr/bin/env node
// E2E suite for the "Bootstrap a golden set from your docs" example on a real `n8n start`
// (2.41.1) with the local judge server: Draft Questions (through a webhook added in front of it)
// creates the drafts Data Table, generates up to 12 checked questions of every kind from the
// bundled documents and stores every kept one as a draft citing real chunks; run again, it stores no
// draft twice and, with the verdict cache warm, calls the model no more. The review form is behind
// n8n User Auth: without a session no page opens, no run starts and no draft is decided, and a
// stranger holding a draft page's address can neither read nor answer it. The signed-in owner
// answers it over HTTP (approve, approve with a corrected question, reject; forged reviewer
// fields ignored); Promote Approved appends only the approved drafts to the golden set, marked
// generated with the owner's email as reviewer, once.
// Run by scripts/e2e.js (registered in test/e2e/generator.spec.js); prints `N passed, N failed`.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/n8n-install');
const ev = require('../../scripts/n8n-evaluations');
const {
	browser,
	dataTableRows,
	importAndPublish,
	nextPage,
	pageFields,
	prepareN8n,
	sleep,
	startN8n,
	suiteChecks,
	waitRegistered,
} = require('./support/running-n8n');

const REPO = n8n.REPO;
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'e2e-bootstrap');
const OWNER = { email: 'owner@rag-eval.local', password: 'E2e-bootstrap-1' };
const DRAFT_HOOK = 'rag-eval-bootstrap-e2e-draft';
const PROMOTE_HOOK = 'rag-eval-bootstrap-e2e-promote';
const FORGED = 'mallory@forged.example';
const MIX = { single_fact: 4, reasoning: 2, multi_chunk: 2, conversational: 2, unanswerable: 2 };

const { log, check, finish, run } = suiteChecks('bootstrap');

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

async function main() {
	const { env, base } = await prepareN8n(ARTIFACTS, OWNER);
	const lib = require(path.join(REPO, 'dist', 'src', 'index.js'));
	const judge = await n8n.spawnJudgeServer();
	const judgeCalls = async () =>
		(await fetch(new URL('/__stats', judge.url)).then((r) => r.json())).chat;
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
	const r = await n8n.runN8n(['import:credentials', `--input=${credFile}`], env);
	fs.rmSync(credFile, { force: true });
	if (r.status !== 0) throw new Error(`import:credentials failed: ${r.stderr}`);
	const wf = exampleWorkflow(cred);
	await importAndPublish(env, ARTIFACTS, [wf]);

	let server;
	try {
		server = await startN8n(env, base, ARTIFACTS);
		await waitRegistered(base, [
			`webhook/${DRAFT_HOOK}`,
			`webhook/${PROMOTE_HOOK}`,
			'form/rag-eval-drafts',
		]);
		const session = await ev.restSession(base, OWNER.email, OWNER.password);
		const tableRows = async (name) => {
			const project = await session.get('/projects/personal');
			const list = await session.get(
				`/projects/${project.id}/data-tables?filter=${encodeURIComponent(JSON.stringify({ name }))}`,
			);
			const t = (list.data ?? list).find((x) => x.name === name);
			assert.ok(t, `Data Table ${name} exists`);
			return dataTableRows(session, project.id, t.id);
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

		// The reviewer is the owner, signed in to n8n; a stranger has no session.
		const reviewer = await browser(base, OWNER);
		const stranger = await browser(base, OWNER, { signIn: false });
		const DRAFT_TEXT = /Start reviewing|Review generated questions|Save my decision|Source chunks/;
		// A reviewer field typed into a submission: never the draft's reviewer.
		const forge = (form) => {
			form.append('reviewer', 'mallory');
			form.append('user', JSON.stringify({ id: 'forged-id', email: FORGED }));
			form.append('field-99', FORGED);
			return form;
		};
		const draftsRuns = async () => {
			const list = await session.get(
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: wf.id }))}&limit=100`,
			);
			// Every execution of the workflow (fewer than 100 at the checks that count them).
			return typeof list.count === 'number'
				? list.count
				: (list.results ?? list.data ?? list).length;
		};

		await check(
			'without an n8n session the drafts page does not open, a post starts nothing, and no draft is decided',
			async () => {
				const before = await tableRows('rag-eval-golden-drafts');
				const runsBefore = await draftsRuns();
				const page = await stranger.send('/form/rag-eval-drafts');
				const pageText = await page.text();
				assert.equal(page.status, 302, pageText.slice(0, 300));
				assert.match(page.headers.get('location'), /\/oauth\/authorize\?/);
				const landed = await stranger.open('/form/rag-eval-drafts');
				assert.equal(new URL(landed.url).pathname, '/oauth/consent', landed.hops.join(' -> '));
				for (const text of [pageText, landed.text])
					assert.ok(
						!DRAFT_TEXT.test(text),
						`draft content without a session: ${text.slice(0, 300)}`,
					);
				for (const headers of [{}, { 'x-auth-token': 'forged' }]) {
					const posted = await stranger.send('/form/rag-eval-drafts', {
						method: 'POST',
						body: forge(new FormData()),
						headers,
					});
					assert.equal(posted.status, 401, (await posted.text()).slice(0, 300));
				}
				await sleep(2000);
				assert.equal(await draftsRuns(), runsBefore, 'no execution started');
				assert.deepEqual(
					await tableRows('rag-eval-golden-drafts'),
					before,
					'the drafts are unchanged',
				);
			},
		);

		// The reviewer: approves the first draft, approves the second with a corrected question,
		// rejects the third, and leaves the rest for later. The first draft's page is tried by a
		// stranger holding its address before the reviewer saves it.
		const decided = new Map();
		await check(
			'the signed-in reviewer decides three drafts over HTTP (forged reviewer fields ignored); a stranger with a page address can neither read nor answer it',
			async () => {
				for (let k = 0; k < 3; k++) {
					const start = await reviewer.open('/form/rag-eval-drafts');
					assert.equal(start.status, 200, start.hops.join(' -> '));
					assert.ok(!/Your name/.test(start.text), 'no name to type');
					const posted = await reviewer.submit(
						'/form/rag-eval-drafts',
						start.text,
						forge(new FormData()),
					);
					const body = await posted.json();
					assert.ok(body.formWaitingUrl, JSON.stringify(body));
					const url = body.formWaitingUrl.replace(/^https?:\/\/[^/]+/, base);
					const html = (await nextPage(base, url, reviewer.send)) ?? '';
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
						html.includes(
							draft.request.replace(/&/g, '&amp;').replace(/'/g, '&#39;').slice(0, 20),
						) || html.includes(draft.request.slice(0, 20)),
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
					forge(form);
					if (k === 0) {
						const before = await tableRows('rag-eval-golden-drafts');
						const page = await stranger.send(url);
						const text = await page.text();
						assert.equal(page.status, 302, text.slice(0, 300));
						assert.match(page.headers.get('location'), /^\/signin\?/);
						assert.ok(
							!DRAFT_TEXT.test(text) && !text.includes(requestId),
							'no draft without a session',
						);
						for (const headers of [{}, { 'x-auth-token': 'forged' }]) {
							const p = await stranger.send(url, { method: 'POST', body: form, headers });
							assert.equal(p.status, 401, (await p.text()).slice(0, 300));
						}
						await sleep(1500);
						assert.deepEqual(await tableRows('rag-eval-golden-drafts'), before, 'nothing decided');
					}
					const saved = await reviewer.submit(url, html, form);
					const savedText = await saved.text();
					assert.equal(saved.status, 200, savedText.slice(0, 500));
					const next = JSON.parse(savedText);
					const thanks = next.formWaitingUrl
						? await nextPage(base, next.formWaitingUrl, reviewer.send)
						: savedText;
					assert.match(thanks ?? '', /Saved: thank you/);
					decided.set(requestId, k);
				}
				const rows = await tableRows('rag-eval-golden-drafts');
				assert.ok(
					!JSON.stringify(rows).includes(FORGED) && !JSON.stringify(rows).includes('mallory'),
				);
				const by = new Map(rows.map((x) => [x.request_id, x]));
				for (const [id, k] of decided) {
					assert.equal(by.get(id).status, k === 2 ? 'rejected' : 'approved');
					assert.equal(by.get(id).reviewer, OWNER.email);
					if (k === 1) assert.equal(by.get(id).request, 'Corrected: how long do refunds take?');
				}
				assert.equal(rows.filter((x) => x.status === 'draft').length, drafts.length - 3);
			},
		);

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
					assert.equal(g.reviewer, OWNER.email);
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
		server?.kill('SIGTERM');
		judge.child.kill();
	}
	finish();
}

run(main);
