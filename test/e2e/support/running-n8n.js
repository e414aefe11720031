// What the E2E suites that run a real `n8n start` of their own share (review, evaluations,
// bootstrap, monitor): the pass/fail bookkeeping and its closing line, a fresh user folder with the packed
// package and an owner managed by env, importing and publishing workflows, starting n8n and
// waiting for it and for its webhooks, reading a Data Table over REST, and answering n8n Form
// pages over HTTP as the browser does.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const n8n = require('../../../scripts/n8n-install');

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

/**
 * A suite's checks: `check(name, fn)` runs one and logs ok/FAIL under `[tag]`; `finish()` prints
 * the `N passed, N failed` line scripts/e2e.js reads and sets the exit code; `run(main)` runs the
 * suite, a crash of the suite itself counting as one failure.
 */
function suiteChecks(tag) {
	let passed = 0;
	const failed = [];
	const log = (msg) => process.stdout.write(`[${tag}] ${msg}\n`);
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
	const finish = () => {
		process.stdout.write(`${passed} passed, ${failed.length} failed\n`);
		process.exitCode = failed.length ? 1 : 0;
	};
	const run = (main) =>
		main().catch((e) => {
			log(e.stack || String(e));
			process.stdout.write('0 passed, 1 failed\n');
			process.exitCode = 1;
		});
	return { log, check, finish, run };
}

/**
 * A fresh `artifacts` folder with an n8n user folder holding the packed package (built first when
 * stale), and the env of an n8n on a free local port whose owner is `owner` (managed by env, so
 * no setup page). `webhooks`: the editor and webhook URLs point at that port (forms, webhooks).
 */
async function prepareN8n(artifacts, owner, { webhooks = true } = {}) {
	await n8n.ensureN8n();
	n8n.buildIfStale();
	fs.rmSync(artifacts, { recursive: true, force: true });
	fs.mkdirSync(artifacts, { recursive: true });
	const userFolder = path.join(artifacts, 'n8n-user');
	n8n.installPackage(userFolder, n8n.packPackage(path.join(artifacts, 'pack')));
	const bcrypt = require(path.join(n8n.n8nDir(), 'node_modules', 'bcryptjs'));
	const port = await n8n.freePort();
	const base = `http://127.0.0.1:${port}`;
	const env = n8n.n8nEnv(userFolder, {
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		...(webhooks ? { N8N_EDITOR_BASE_URL: base, WEBHOOK_URL: `${base}/` } : {}),
		N8N_RUNNERS_BROKER_PORT: String(await n8n.freePort()),
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Eval',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(owner.password, 10),
	});
	return { env, base, userFolder };
}

/** Imports the workflows `wfs` (each under its id) and publishes every one; fails on any error. */
async function importAndPublish(env, artifacts, wfs) {
	const importDir = path.join(artifacts, 'import');
	fs.mkdirSync(importDir, { recursive: true });
	for (const wf of wfs) fs.writeFileSync(path.join(importDir, `${wf.id}.json`), JSON.stringify(wf));
	let r = await n8n.runN8n(['import:workflow', '--separate', `--input=${importDir}`], env);
	if (r.status !== 0) throw new Error(`import:workflow failed: ${r.stdout}\n${r.stderr}`);
	for (const wf of wfs) {
		r = await n8n.runN8n(['publish:workflow', `--id=${wf.id}`], { ...env, N8N_LOG_LEVEL: 'info' });
		if (r.status !== 0 || /Error/.test(r.stdout + r.stderr))
			throw new Error(`publishing ${wf.id} failed:\n${r.stdout}\n${r.stderr}`);
	}
}

/**
 * `n8n start` with `env`, its output in <artifacts>/n8n-server.log, once it answers ready at
 * `base` (at most 4 minutes). The caller stops it (`server.kill('SIGTERM')`); if it never gets
 * ready it is stopped here.
 */
async function startN8n(env, base, artifacts) {
	const logFile = fs.openSync(path.join(artifacts, 'n8n-server.log'), 'w');
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
			if (ok) return server;
			if (Date.now() > deadline) throw new Error('n8n start did not become ready');
			await sleep(1000);
		}
	} catch (e) {
		server.kill('SIGTERM');
		throw e;
	}
}

/**
 * Waits until the webhook and form paths (`webhook/<path>`, `form/<path>`) answer: published
 * workflows are activated after n8n reports ready, and a GET on a POST webhook says whether it is
 * registered.
 */
async function waitRegistered(base, paths) {
	for (const p of paths) {
		for (let tries = 0; ; tries++) {
			// Not following redirects: a form behind n8n User Auth answers a registered path with
			// its sign-in redirect, an unregistered one with 404.
			const res = await fetch(`${base}/${p}`, { redirect: 'manual' });
			const text = await res.text();
			const missing =
				(/is not registered\./.test(text) && !/Did you mean/.test(text)) ||
				(p.startsWith('form/') && res.status === 404);
			if (!missing) break;
			if (tries > 120) throw new Error(`${p} was never registered: ${text.slice(0, 300)}`);
			await sleep(1000);
		}
	}
}

/** Every row of the Data Table `tableId` of project `projectId`, read 100 at a time over REST. */
async function dataTableRows(session, projectId, tableId) {
	const out = [];
	for (let skip = 0; ; skip += 100) {
		const page = await session.get(
			`/projects/${projectId}/data-tables/${tableId}/rows?take=100&skip=${skip}`,
		);
		const data = page.data ?? page;
		out.push(...data);
		if (data.length < 100) return out;
	}
}

// Values of an HTML attribute back to text (the form page escapes them).
const unescapeHtml = (s) =>
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
	// A text field's label names its input; a radio group's label comes before its options,
	// whose ids (option<i>_field-<n>) name the field.
	for (const m of html.matchAll(
		/<label class=['"]form-label[^'"]*['"](?: for=['"](field-\d+)['"])?>([^<]*)<\/label>/g,
	)) {
		const id = m[1] ?? html.slice(m.index).match(/id=['"]option\d+_(field-\d+)['"]/)?.[1];
		if (id) labels.set(unescapeHtml(m[2]).trim(), id);
	}
	const hidden = new Map();
	for (const m of html.matchAll(
		/<input type="hidden" id="(field-\d+)" name="field-\d+" value="([^"]*)"/g,
	))
		hidden.set(m[1], unescapeHtml(m[2]));
	return { labels, hidden };
}

/**
 * The page a Form submission leads to, as n8n's form page script gets it: poll the execution's
 * status at <waiting url>/n8n-execution-status until it waits on a form, then load that form
 * (loading it earlier hangs until the execution waits). Null when the execution just finished.
 * `send`: a signed-in {@link browser}'s, for the pages of a form behind n8n User Auth.
 */
async function nextPage(base, waitingUrl, send = fetch) {
	const url = new URL(waitingUrl.replace(/^https?:\/\/[^/]+/, base));
	const status = new URL(url);
	status.pathname += '/n8n-execution-status';
	for (let tries = 0; tries < 240; tries++) {
		const text = (await (await send(status.toString())).text()).trim();
		if (text === 'form-waiting') return (await send(url.toString())).text();
		if (text === 'success') return null;
		if (['canceled', 'crashed', 'error', 'null'].includes(text))
			throw new Error(`the review execution ended: ${text}`);
		await sleep(250);
	}
	throw new Error(`no form page after ${waitingUrl}`);
}

/**
 * A browser signed in to n8n as `user` (email, password): a cookie jar (names, values and paths
 * as n8n sets them) and a browser id, the two n8n's session cookie needs. `open(url)` loads a
 * page as a browser navigates, following redirects, and answering n8n's sign-in consent for a
 * Form Trigger with n8n User Auth as the user would (the page /oauth/consent asks once per user
 * and form; `/rest/consent/approve` is what its button posts). `send(url, init)` is one request
 * with the jar's cookies; `submit(url, html, body)` posts a form page as its own script does, from
 * a sandboxed page that sends no cookies, with the token the page holds (`x-auth-token`). `signIn: false` gives a browser with no session: its `open` stops at
 * the sign-in redirect or at the consent page (the editor app, which asks it to sign in).
 */
async function browser(base, user, { signIn = true } = {}) {
	const jar = new Map();
	const browserId = require('node:crypto').randomUUID();
	const cookieFor = (url) =>
		[...jar.entries()]
			.filter(([, c]) => new URL(url, base).pathname.startsWith(c.path))
			.map(([name, c]) => `${name}=${c.value}`)
			.join('; ');
	const keep = (res) => {
		for (const line of res.headers.getSetCookie?.() ?? []) {
			const [pair, ...attrs] = line.split(';').map((x) => x.trim());
			const eq = pair.indexOf('=');
			const name = pair.slice(0, eq);
			const value = pair.slice(eq + 1);
			const attr = (k) => attrs.find((a) => a.toLowerCase().startsWith(`${k}=`))?.split('=')[1];
			const gone =
				!value ||
				attr('max-age') === '0' ||
				(attr('expires') &&
					Date.parse(attrs.find((a) => /^expires=/i.test(a)).slice(8)) < Date.now());
			if (gone) jar.delete(name);
			else jar.set(name, { value, path: attr('path') ?? '/' });
		}
	};
	const send = async (url, { cookies = true, ...init } = {}) => {
		const abs = new URL(url, base).toString();
		const cookie = cookies ? cookieFor(abs) : '';
		const res = await fetch(abs, {
			redirect: 'manual',
			...init,
			headers: { 'browser-id': browserId, ...(cookie ? { cookie } : {}), ...(init.headers ?? {}) },
		});
		keep(res);
		return res;
	};
	const rest = async (method, url, body) => {
		const res = await send(`/rest${url}`, {
			method,
			headers: { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) {
			const err = new Error(`${method} /rest${url}: HTTP ${res.status} ${text.slice(0, 300)}`);
			Object.assign(err, { status: res.status, body: text });
			throw err;
		}
		const json = JSON.parse(text);
		return json && typeof json === 'object' && 'data' in json ? json.data : json;
	};
	if (signIn)
		await rest('POST', '/login', { emailOrLdapLoginId: user.email, password: user.password });
	/** Loads `url` as a navigation: { status, url, text, hops } of the last answer. */
	const open = async (url) => {
		const hops = [];
		let at = new URL(url, base).toString();
		for (let i = 0; i < 12; i++) {
			const res = await send(at);
			hops.push(`${res.status} ${new URL(at).pathname}`);
			const location = res.headers.get('location');
			if (res.status >= 300 && res.status < 400 && location) {
				await res.arrayBuffer();
				const next = new URL(location, at);
				if (next.pathname === '/signin')
					return { status: res.status, url: next.toString(), text: '', hops };
				if (next.pathname === '/oauth/consent') {
					// No session: the editor's consent page sends the visitor to sign in.
					if (!signIn) {
						const page = await send(next.toString());
						hops.push(`${page.status} ${next.pathname}`);
						return { status: page.status, url: next.toString(), text: await page.text(), hops };
					}
					// A user n8n refuses (Require Workflow Execute Permission) gets the consent page's
					// refusal: its status and message are the answer.
					let answer;
					try {
						const details = await rest('GET', '/consent/details');
						answer = details.autoApproved
							? details
							: await rest('POST', '/consent/approve', { approved: true, scopes: details.scopes });
					} catch (e) {
						if (!e.status) throw e;
						hops.push(`${e.status} /rest/consent`);
						return { status: e.status, url: next.toString(), text: e.body, hops };
					}
					at = new URL(answer.redirectUrl, base).toString();
					continue;
				}
				at = next.toString();
				continue;
			}
			return { status: res.status, url: at, text: await res.text(), hops };
		}
		throw new Error(`too many redirects: ${hops.join(' -> ')}`);
	};
	const submit = (url, html, body) =>
		send(url, {
			method: 'POST',
			body,
			cookies: false,
			headers: { 'x-auth-token': formAuthToken(html) },
		});
	return { send, open, rest, submit, cookies: () => [...jar.keys()] };
}

/** The form token a form page hands its own submit (n8n User Auth: the x-auth-token header). */
const formAuthToken = (html) => html.match(/const authToken = '([^']*)'/)?.[1] ?? '';

module.exports = {
	browser,
	formAuthToken,
	sleep,
	suiteChecks,
	prepareN8n,
	importAndPublish,
	startN8n,
	waitRegistered,
	dataTableRows,
	pageFields,
	nextPage,
};
