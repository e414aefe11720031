#!/usr/bin/env node
// E2E suite for the "Review and calibrate" example on a real `n8n start` (2.41.1): the launcher's
// Data Tables, the nightly rows queued through the example's Execute Workflow Trigger (twice: no
// row twice), the review form behind n8n User Auth (no session: no page, no run, no label; a
// member without access to the workflow: refused; a stranger holding a row page's address: it
// neither shows nor takes an answer), the signed-in owner answering it over HTTP one row a page
// (Form Trigger, then the Form node's waiting page, as the browser posts them, with forged
// reviewer fields that are ignored), the labels in the Data Table under the owner's email, the
// calibration's agreement figures equal to the library's on the same labels with the unfit judge
// version named in the Slack message, and corrections promoted to the golden-set table once.
// Run by scripts/e2e.js (registered in test/e2e/review.spec.js); prints `N passed, N failed`.
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
const ARTIFACTS = path.join(REPO, 'test-artifacts', 'e2e-review');
const OWNER = { email: 'owner@rag-eval.local', password: 'E2e-review-1' };
const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> {{ $env.HOME }}';
const ROWS_HOOK = 'rag-eval-review-e2e-rows';
const CALIBRATE_HOOK = 'rag-eval-review-e2e-calibrate';
const FORGED = 'mallory@forged.example';

const { log, check, finish, run } = suiteChecks('review');

const score = (metric, value, signature, extra = {}) => ({
	metric,
	value,
	scale:
		typeof value === 'boolean'
			? { kind: 'binary', min: 0, max: 1 }
			: { kind: 'likert', min: 1, max: 5 },
	direction: 'higher',
	pass: typeof value === 'boolean' ? value : value >= 3,
	status: 'ok',
	reason: `${metric} rationale ${HOSTILE}`,
	signature,
	...extra,
});

// One night of scored rows: groundedness (yes/no, the night's judge version) and relevance (1-5).
function night(n, signature) {
	return Array.from({ length: 40 }, (_, i) => ({
		request_id: `n${n}-q${i}`,
		request: `Question ${i} of night ${n} ${i === 0 ? HOSTILE : ''}`.trim(),
		response: `Answer ${i}`,
		retrieved_context: [{ doc_uri: `kb/${i}`, content: `Chunk ${i} ${'text '.repeat(80)}` }],
		eval: {
			groundedness: score('groundedness', i % 3 !== 0, signature),
			relevance: score('relevance', 1 + (i % 5), 'judge:relevance@1', { threshold: 3 }),
		},
	}));
}

/** The example plus a webhook in front of Calibrate, and a feeder that calls the example. */
function workflows() {
	const wf = JSON.parse(
		fs.readFileSync(path.join(REPO, 'examples', 'review-and-calibrate.workflow.json'), 'utf8'),
	);
	wf.nodes.push({
		id: 'e2e00000-0000-4000-8000-000000000001',
		name: 'E2E Calibrate',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 1040],
		webhookId: 'e2e00000-0000-4000-8000-0000000000a1',
		parameters: { httpMethod: 'POST', path: CALIBRATE_HOOK, options: {} },
	});
	wf.connections['E2E Calibrate'] = { main: [[{ node: 'Get Labels', type: 'main', index: 0 }]] };
	const feeder = {
		id: 'ragEvalReviewE2E01',
		name: 'E2E: the nightly run hands its rows to review',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'e2e00000-0000-4000-8000-000000000011',
				name: 'Nightly Rows',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'e2e00000-0000-4000-8000-0000000000a2',
				parameters: {
					httpMethod: 'POST',
					path: ROWS_HOOK,
					responseMode: 'lastNode',
					options: {},
				},
			},
			{
				id: 'e2e00000-0000-4000-8000-000000000012',
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: 'return $json.body.rows.map((json) => ({ json }));' },
			},
			// As the nightly example's "Queue Rows for Review" node, enabled and waiting.
			{
				id: 'e2e00000-0000-4000-8000-000000000013',
				name: 'Queue Rows for Review',
				type: 'n8n-nodes-base.executeWorkflow',
				typeVersion: 1.2,
				position: [440, 0],
				parameters: {
					source: 'database',
					workflowId: { __rl: true, mode: 'id', value: wf.id },
					mode: 'once',
					options: { waitForSubWorkflow: true },
				},
			},
		],
		connections: {
			'Nightly Rows': { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Queue Rows for Review', type: 'main', index: 0 }]] },
		},
	};
	return [wf, feeder];
}

async function main() {
	const { env, base } = await prepareN8n(ARTIFACTS, OWNER);
	const lib = require(path.join(REPO, 'dist', 'src', 'index.js'));
	await importAndPublish(env, ARTIFACTS, workflows());

	let server;
	try {
		server = await startN8n(env, base, ARTIFACTS);
		const session = await ev.restSession(base, OWNER.email, OWNER.password);
		let tables;
		const tableRows = (t) => dataTableRows(session, t.projectId, t.id);
		await check('the launcher creates the review and golden-set Data Tables, once', async () => {
			tables = await ev.ensureReviewTables(session);
			assert.equal(tables.labels.created, true);
			assert.equal(tables.golden.created, true);
			const again = await ev.ensureReviewTables(session);
			assert.equal(again.labels.id, tables.labels.id);
			assert.equal(again.golden.id, tables.golden.id);
		});

		const nights = [night(1, 'judge:groundedness@1'), night(2, 'judge:groundedness@2')];
		const sendRows = async (rows) => {
			const res = await fetch(`${base}/webhook/${ROWS_HOOK}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ rows }),
			});
			const text = await res.text();
			assert.equal(res.status, 200, text);
		};
		let expectedQueued = [];
		await check(
			'the nightly rows are queued (failures first, at most 20 a run); sent again, none is queued twice',
			async () => {
				// Night 1, night 2, then both again: a resend queues only rows the cap left out before.
				for (const rows of [...nights, ...nights]) {
					await sendRows(rows);
					const prior = expectedQueued.map((q) => ({
						request_id: q.requestId,
						fingerprint: q.fingerprint,
					}));
					const keys = lib.queuedKeys(prior);
					const sel = lib.selectForReview(rows, {
						maxRows: 20,
						passingShare: 0.1,
						seed: 1,
						queuedRequestIds: keys.requestIds,
						queuedFingerprints: keys.fingerprints,
					});
					const queued = sel.decisions.filter((d) => d.queued);
					assert.ok(queued.length <= 20);
					expectedQueued.push(...queued);
				}
				const stored = await tableRows(tables.labels);
				fs.writeFileSync(path.join(ARTIFACTS, 'queued.json'), JSON.stringify(stored, null, 2));
				assert.equal(stored.length, expectedQueued.length);
				assert.deepEqual(
					stored.map((s) => s.fingerprint).sort(),
					expectedQueued.map((q) => q.fingerprint).sort(),
				);
				assert.equal(new Set(stored.map((s) => s.request_id)).size, stored.length, 'no id twice');
				assert.equal(
					new Set(stored.map((s) => s.fingerprint)).size,
					stored.length,
					'no content twice',
				);
				assert.ok(stored.every((s) => s.status === 'queued' && s.row && s.queue_reasons));
				// Every failing row of both nights is queued by the end.
				const failing = nights
					.flat()
					.filter(
						(row) => row.eval.groundedness.pass === false || row.eval.relevance.pass === false,
					);
				const ids = new Set(stored.map((s) => s.request_id));
				for (const row of failing) assert.ok(ids.has(row.request_id), row.request_id);
			},
		);

		// The reviewer is the owner, signed in; a stranger has no n8n session; a member is signed in
		// but has no access to the workflow (Require Workflow Execute Permission).
		let reviewer = await browser(base, OWNER);
		const me = await reviewer.rest('GET', '/login');
		const stranger = await browser(base, OWNER, { signIn: false });
		await waitRegistered(base, ['form/rag-eval-review']);
		const reviewRuns = async () => {
			const list = await session.get(
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: 'ragEvalReview001' }))}&limit=100`,
			);
			// Every execution of the workflow (fewer than 100 at the checks that count them).
			return typeof list.count === 'number'
				? list.count
				: (list.results ?? list.data ?? list).length;
		};
		// Text only the review pages show: the start page's button and title, and row text.
		const REVIEW_TEXT =
			/Start reviewing|Review the judges|Save my review|Question \d+ of night|Chunk \d+ text/;
		// A reviewer field typed into a submission: never the label's reviewer.
		const forge = (form) => {
			form.append('reviewer', 'mallory');
			form.append('user', JSON.stringify({ id: 'forged-id', email: FORGED }));
			form.append('field-99', FORGED);
			return form;
		};

		await check(
			'without an n8n session the review page does not open, a post starts nothing, and no label is stored',
			async () => {
				const before = await tableRows(tables.labels);
				const runsBefore = await reviewRuns();
				const page = await stranger.send('/form/rag-eval-review');
				const pageText = await page.text();
				assert.equal(page.status, 302, pageText.slice(0, 300));
				assert.match(page.headers.get('location'), /\/oauth\/authorize\?/);
				// Followed as a browser would: it ends on n8n's consent page, which asks to sign in.
				const landed = await stranger.open('/form/rag-eval-review');
				assert.equal(new URL(landed.url).pathname, '/oauth/consent', landed.hops.join(' -> '));
				for (const text of [pageText, landed.text])
					assert.ok(
						!REVIEW_TEXT.test(text),
						`review content without a session: ${text.slice(0, 300)}`,
					);
				// The start page's post, with a forged reviewer, and with a made-up form token.
				for (const headers of [{}, { 'x-auth-token': 'forged' }]) {
					const posted = await stranger.send('/form/rag-eval-review', {
						method: 'POST',
						body: forge(new FormData()),
						headers,
					});
					const text = await posted.text();
					assert.equal(posted.status, 401, text.slice(0, 300));
					assert.ok(!/formWaitingUrl/.test(text));
				}
				await sleep(2000);
				assert.equal(await reviewRuns(), runsBefore, 'no execution started');
				assert.deepEqual(await tableRows(tables.labels), before, 'the label table is unchanged');
			},
		);

		await check(
			'a signed-in n8n user who may not run the workflow is refused the page (Require Workflow Execute Permission)',
			async () => {
				const member = { email: 'member@rag-eval.local', password: 'E2e-member-1' };
				const [invited] = await session.post('/invitations', [
					{ email: member.email, role: 'global:member' },
				]);
				const token = new URL(invited.user.inviteAcceptUrl).searchParams.get('token');
				const anon = await browser(base, member, { signIn: false });
				await anon.rest('POST', '/invitations/accept', {
					token,
					firstName: 'Member',
					lastName: 'Reviewer',
					password: member.password,
				});
				const runsBefore = await reviewRuns();
				const signedIn = await browser(base, member);
				const landed = await signedIn.open('/form/rag-eval-review');
				assert.equal(landed.status, 403, landed.hops.join(' -> '));
				assert.match(landed.text, /sufficient permissions/);
				assert.ok(!REVIEW_TEXT.test(landed.text));
				const posted = await signedIn.send('/form/rag-eval-review', {
					method: 'POST',
					body: forge(new FormData()),
				});
				assert.equal(posted.status, 401);
				await sleep(1000);
				assert.equal(await reviewRuns(), runsBefore, 'no execution started');
			},
		);

		// One review: the start page, then the row's page; `meddle(url, answers)` runs before the
		// reviewer saves (a stranger holding the page's address).
		const answers = new Map();
		async function reviewOne(k, meddle) {
			const start = await reviewer.open('/form/rag-eval-review');
			assert.equal(start.status, 200, start.hops.join(' -> '));
			assert.match(start.text, /Start reviewing/);
			assert.ok(!/Your name/.test(start.text), 'no name to type');
			const posted = await reviewer.submit(
				'/form/rag-eval-review',
				start.text,
				forge(new FormData()),
			);
			const body = await posted.json();
			assert.ok(body.formWaitingUrl, JSON.stringify(body));
			const url = body.formWaitingUrl.replace(/^https?:\/\/[^/]+/, base);
			const html = (await nextPage(base, url, reviewer.send)) ?? '';
			if (k === 0) fs.writeFileSync(path.join(ARTIFACTS, 'review-page.html'), html);
			assert.ok(html.includes('Save my review'), 'the review page shows');
			assert.ok(html.includes(OWNER.email), 'the page names the signed-in reviewer');
			// Hostile row text is shown as text, never as markup.
			assert.ok(!html.includes('<script>alert'), 'no live script from row text');
			assert.ok(!/<img src=x/i.test(html), 'no live img from row text');
			assert.ok(html.includes('&lt;script&gt;') || html.includes('&amp;lt;script&amp;gt;'));
			const { labels, hidden } = pageFields(html);
			assert.ok(!labels.has('Your name'), 'no name field on the row page');
			const id = (label) => {
				const f = labels.get(label);
				assert.ok(f, `field "${label}" among ${[...labels.keys()].join(' | ')}`);
				return f;
			};
			const rowField = [...hidden.entries()].find(([, v]) => /^[A-Za-z0-9+/=]{40,}$/.test(v));
			const row = JSON.parse(Buffer.from(rowField[1], 'base64').toString('utf8'));
			const judged = row.eval.groundedness.value;
			const v2 = row.eval.groundedness.signature.endsWith('@2');
			const human = v2 ? !judged : judged;
			const i = Number(row.request_id.split('-q')[1]);
			const form = new FormData();
			for (const [f, v] of hidden) form.append(f, v);
			form.append(
				id('groundedness: your verdict (yes = passes)'),
				JSON.stringify([human ? 'yes' : 'no']),
			);
			form.append(
				id('relevance: your rating (1 worst - 5 best)'),
				JSON.stringify([String(row.eval.relevance.value)]),
			);
			form.append(
				id('Were the retrieved chunks the right ones?'),
				JSON.stringify([i % 2 ? 'yes' : 'unsure']),
			);
			form.append(
				id('Corrected answer (optional)'),
				i % 4 === 0 ? `Corrected ${row.request_id}` : '',
			);
			form.append(
				id('Expected facts, one per line (optional)'),
				i % 5 === 0 ? `fact A\nfact B` : '',
			);
			forge(form);
			if (meddle) await meddle(url, form);
			const saved = await reviewer.submit(url, html, form);
			const savedText = await saved.text();
			assert.equal(saved.status, 200, savedText.slice(0, 500));
			const next = JSON.parse(savedText);
			const thanks = next.formWaitingUrl
				? await nextPage(base, next.formWaitingUrl, reviewer.send)
				: savedText;
			assert.match(thanks ?? '', /your review is saved/, 'the completion page');
			answers.set(row.request_id, { human, i });
		}

		await check(
			'a row page left open: a stranger with its address can neither read nor answer it; nothing is stored until the reviewer saves',
			async () => {
				await reviewOne(0, async (url, form) => {
					const before = await tableRows(tables.labels);
					const page = await stranger.send(url);
					const text = await page.text();
					assert.equal(page.status, 302, text.slice(0, 300));
					assert.match(page.headers.get('location'), /^\/signin\?/);
					assert.ok(!REVIEW_TEXT.test(text), 'no row text without a session');
					for (const headers of [{}, { 'x-auth-token': 'forged' }]) {
						const posted = await stranger.send(url, { method: 'POST', body: form, headers });
						assert.equal(posted.status, 401, (await posted.text()).slice(0, 300));
					}
					await sleep(1500);
					assert.deepEqual(await tableRows(tables.labels), before, 'the label table is unchanged');
				});
			},
		);

		// The reviewer: agrees with groundedness version 1, disagrees with every verdict of version
		// 2; corrects every fourth answer; lists facts for every fifth.
		await check(
			'the signed-in reviewer answers the review form over HTTP, one row a page, until none is left',
			async () => {
				for (let k = answers.size; k < expectedQueued.length; k++) {
					// n8n 2.41.1 sets a one-hour cookie per row page (n8n-form-auth-ex-<execution>, path
					// /form-waiting) and a browser sends them all on every page: past about 30 pages within
					// the hour the headers pass Node's 16 KB and n8n answers 431. The reviewer works in
					// sessions of 20 rows, each in a fresh browser (docs/security.md, Review pages).
					if (k % 20 === 0) reviewer = await browser(base, OWNER);
					await reviewOne(k);
				}
				// All reviewed: the page says so.
				const start = await reviewer.open('/form/rag-eval-review');
				const posted = await reviewer.submit('/form/rag-eval-review', start.text, new FormData());
				const j = await posted.json();
				const done = j.formWaitingUrl
					? await nextPage(base, j.formWaitingUrl, reviewer.send)
					: JSON.stringify(j);
				assert.match(done, /Nothing left to review/);
			},
		);

		let labels = [];
		await check(
			"the labels in the Data Table carry the signed-in reviewer's email and id (never a forged one), the time and the judge versions seen",
			async () => {
				labels = (await tableRows(tables.labels)).filter((l) => l.status === 'reviewed');
				fs.writeFileSync(path.join(ARTIFACTS, 'labels.json'), JSON.stringify(labels, null, 2));
				assert.equal(labels.length, expectedQueued.length);
				assert.ok(!JSON.stringify(labels).includes(FORGED), 'no forged reviewer anywhere');
				assert.ok(!JSON.stringify(labels).includes('mallory'), 'no typed reviewer anywhere');
				for (const l of labels) {
					assert.equal(l.reviewer, OWNER.email);
					assert.equal(l.reviewer_id, me.id);
					assert.ok(!Number.isNaN(Date.parse(l.reviewed_at)));
					const judges = JSON.parse(l.judges);
					assert.match(judges.groundedness.signature, /^judge:groundedness@[12]$/);
					const given = JSON.parse(l.labels);
					assert.equal(given.groundedness, answers.get(l.request_id).human ? 'yes' : 'no');
				}
			},
		);

		let execution;
		await check(
			'calibration: the agreement figures equal the library on the same labels; Slack names the unfit judge version',
			async () => {
				const res = await fetch(`${base}/webhook/${CALIBRATE_HOOK}`, { method: 'POST' });
				assert.equal(res.status, 200);
				// The run's node outputs, from n8n's execution store.
				const checked = new Set();
				for (let tries = 0; tries < 60 && !execution; tries++) {
					const list = await session.get(
						`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: 'ragEvalReview001' }))}&limit=100`,
					);
					const runs = (list.results ?? list.data ?? list).filter((e) => e.status === 'success');
					for (const e of runs) {
						if (checked.has(e.id)) continue;
						checked.add(e.id);
						if (await isCalibration(e.id)) break;
					}
					if (!execution) await new Promise((res2) => setTimeout(res2, 500));
				}
				assert.ok(execution, 'the calibration execution was stored');
				const agreement = out(execution, 'Judge Agreement')[0];
				const expected = lib.reviewAgreement(labels);
				assert.deepEqual(agreement, JSON.parse(JSON.stringify(expected)));
				const v2 = expected.judges.find((j) => j.signature === 'judge:groundedness@2');
				assert.equal(v2.result.fitness.verdict, 'not_fit');
				const v1 = expected.judges.find((j) => j.signature === 'judge:groundedness@1');
				assert.equal(v1.result.rates.accuracy, 1);
				const slack = JSON.stringify(out(execution, 'Eval Report')[0].slack);
				assert.match(slack, /below the agreement rule/);
				assert.match(slack, /judge:groundedness@2/);
			},
		);

		await check('corrections are appended to the golden-set Data Table once', async () => {
			const golden = await tableRows(tables.golden);
			fs.writeFileSync(path.join(ARTIFACTS, 'golden.json'), JSON.stringify(golden, null, 2));
			const corrected = labels.filter((l) => l.corrected_answer || l.expected_facts);
			assert.ok(corrected.length > 0);
			assert.equal(golden.length, corrected.length);
			for (const g of golden) {
				assert.equal(g.source, 'human_review');
				assert.ok(g.expected_response || g.expected_facts);
				assert.ok(!(g.expected_response && g.expected_facts));
			}
			const res = await fetch(`${base}/webhook/${CALIBRATE_HOOK}`, { method: 'POST' });
			assert.equal(res.status, 200);
			await new Promise((res2) => setTimeout(res2, 3000));
			assert.equal((await tableRows(tables.golden)).length, golden.length, 'nothing twice');
		});

		async function isCalibration(id) {
			const e = await session.get(`/executions/${id}`);
			const { parse } = require(path.join(n8n.n8nDir(), 'node_modules', 'flatted'));
			const data = typeof e.data === 'string' ? parse(e.data) : e.data;
			if (!data?.resultData?.runData?.['Judge Agreement']) return false;
			execution = data;
			return true;
		}
	} finally {
		server?.kill('SIGTERM');
	}
	finish();
}

function out(data, node) {
	const task = data.resultData.runData[node]?.[0];
	return (task?.data?.main?.[0] ?? []).map((i) => i.json);
}

run(main);
