// Local stand-ins for the services the nightly example talks to and CI cannot reach: a Slack
// incoming-webhook receiver, a GitHub-REST-compatible issue server (the subset n8n's GitHub node
// calls, under /api/v3 as on GitHub Enterprise), the team's RAG app, and a judge model whose
// verdicts a spec scripts per judge. All on 127.0.0.1 with random ports; every request recorded.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { fill } = require(path.join(__dirname, '..', '..', 'support', 'openai-server-cli.js'));

const EXAMPLES = path.join(__dirname, '..', '..', '..', 'examples');

/** The rows of the bundled JSON Lines dataset examples/datasets/<name>. */
function datasetRows(name) {
	return fs
		.readFileSync(path.join(EXAMPLES, 'datasets', name), 'utf8')
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l));
}

function listen(handler) {
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			let body;
			try {
				body = raw ? JSON.parse(raw) : undefined;
			} catch {
				body = undefined;
			}
			const url = new URL(req.url || '/', 'http://127.0.0.1');
			const send = (status, payload, type = 'application/json') => {
				res.writeHead(status, { 'content-type': type });
				res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
			};
			Promise.resolve(
				handler({ method: req.method, url, headers: req.headers, raw, body }, send),
			).catch((e) => send(500, { message: String(e && e.stack) }));
		});
	});
	return new Promise((resolve) => {
		server.listen(0, '127.0.0.1', () => {
			const url = `http://127.0.0.1:${server.address().port}`;
			resolve({
				url,
				close: () =>
					new Promise((r) => {
						server.closeAllConnections();
						server.close(() => r());
					}),
			});
		});
	});
}

/** Slack incoming webhook: answers `ok` as Slack does; `messages` holds each posted JSON body. */
async function startSlackReceiver() {
	const messages = [];
	const requests = [];
	const s = await listen((req, send) => {
		requests.push({ method: req.method, path: req.url.pathname, headers: req.headers });
		if (req.method !== 'POST') return send(405, 'invalid_method', 'text/plain');
		if (!req.body || typeof req.body !== 'object')
			return send(400, 'invalid_payload', 'text/plain');
		messages.push(req.body);
		return send(200, 'ok', 'text/plain');
	});
	return { ...s, webhookUrl: `${s.url}/services/T000/B000/e2e-secret-path`, messages, requests };
}

/**
 * Block Kit checks against Slack's documented limits for messages posted by webhook: the
 * problems found, empty when valid. Covers the block types and fields reports emit.
 */
function blockKitProblems(payload) {
	const p = [];
	if (typeof payload.text !== 'string' || payload.text.trim() === '')
		p.push('no plain-text fallback `text`');
	else if (payload.text.length > 40000) p.push('text over 40000 characters');
	const blocks = payload.blocks;
	if (!Array.isArray(blocks) || blocks.length === 0) return [...p, 'no blocks'];
	if (blocks.length > 50) p.push(`${blocks.length} blocks (max 50)`);
	const textObj = (t, where, max, types = ['mrkdwn', 'plain_text']) => {
		if (!t || typeof t !== 'object') return p.push(`${where}: text object missing`);
		if (!types.includes(t.type)) p.push(`${where}: text type ${t.type}`);
		if (typeof t.text !== 'string' || t.text.length === 0) p.push(`${where}: empty text`);
		else if (t.text.length > max) p.push(`${where}: ${t.text.length} chars (max ${max})`);
		const extra = Object.keys(t).filter((k) => !['type', 'text', 'emoji', 'verbatim'].includes(k));
		if (extra.length) p.push(`${where}: unknown keys ${extra}`);
	};
	blocks.forEach((b, i) => {
		const w = `block ${i} (${b && b.type})`;
		if (b.block_id !== undefined && (typeof b.block_id !== 'string' || b.block_id.length > 255))
			p.push(`${w}: bad block_id`);
		switch (b && b.type) {
			case 'header':
				textObj(b.text, w, 150, ['plain_text']);
				break;
			case 'section':
				if (!b.text && !b.fields) p.push(`${w}: neither text nor fields`);
				if (b.text) textObj(b.text, w, 3000);
				if (b.fields) {
					if (!Array.isArray(b.fields) || b.fields.length > 10) p.push(`${w}: fields max 10`);
					(b.fields || []).forEach((f, k) => textObj(f, `${w} field ${k}`, 2000));
				}
				break;
			case 'context':
				if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10)
					p.push(`${w}: 1-10 elements`);
				(b.elements || []).forEach((e, k) => textObj(e, `${w} element ${k}`, 3000));
				break;
			case 'divider':
				if (Object.keys(b).some((k) => !['type', 'block_id'].includes(k)))
					p.push(`${w}: divider with content`);
				break;
			default:
				p.push(`${w}: unknown block type`);
		}
	});
	return p;
}

/**
 * GitHub REST stand-in for n8n's GitHub node (Access Token credential with a server URL):
 * `GET /user`, `GET /repos/{o}/{r}/issues` (labels all-of, state), `POST .../issues`,
 * `POST .../issues/{n}/comments`, `PATCH .../issues/{n}`. Requires `Authorization: token <t>`.
 * Anything else answers 404 and lands in `unexpected`.
 */
async function startGithubServer({ token, owner, repo }) {
	const issues = [];
	const comments = [];
	const requests = [];
	const unexpected = [];
	let base = '';
	const issueJson = (i) => ({
		id: 1000 + i.number,
		node_id: `I_${i.number}`,
		number: i.number,
		title: i.title,
		body: i.body,
		state: i.state,
		labels: i.labels.map((name, k) => ({ id: k + 1, name, color: 'ededed' })),
		assignees: [],
		comments: comments.filter((c) => c.issue === i.number).length,
		url: `${base}/repos/${owner}/${repo}/issues/${i.number}`,
		html_url: `https://github.example/${owner}/${repo}/issues/${i.number}`,
		created_at: i.created,
		updated_at: i.updated,
		closed_at: i.state === 'closed' ? i.updated : null,
	});
	const s = await listen((req, send) => {
		const p = req.url.pathname.replace(/^\/api\/v3/, '');
		requests.push({
			method: req.method,
			path: p,
			query: Object.fromEntries(req.url.searchParams),
			body: req.body,
		});
		if (req.headers.authorization !== `token ${token}`)
			return send(401, {
				message: 'Bad credentials',
				documentation_url: 'https://docs.github.com/rest',
			});
		const now = new Date().toISOString();
		if (req.method === 'GET' && p === '/user') return send(200, { login: 'e2e-bot', id: 1 });
		const m = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+))?(\/comments)?$/.exec(p);
		if (!m || m[1] !== owner || m[2] !== repo) {
			unexpected.push(`${req.method} ${p}`);
			return send(404, { message: 'Not Found' });
		}
		const number = m[3] ? Number(m[3]) : undefined;
		const issue = number ? issues.find((i) => i.number === number) : undefined;
		if (number && !issue) return send(404, { message: 'Not Found' });
		if (req.method === 'GET' && !number) {
			const want = (req.url.searchParams.get('labels') || '')
				.split(',')
				.map((x) => x.trim())
				.filter(Boolean);
			const state = req.url.searchParams.get('state') || 'open';
			const list = issues
				.filter((i) => state === 'all' || i.state === state)
				.filter((i) => want.every((l) => i.labels.includes(l)))
				.sort((a, b) => b.number - a.number)
				.map(issueJson);
			return send(200, list);
		}
		if (req.method === 'POST' && !number) {
			const b = req.body || {};
			if (typeof b.title !== 'string' || !b.title)
				return send(422, { message: 'Validation Failed' });
			const i = {
				number: issues.length + 1,
				title: b.title,
				body: b.body ?? '',
				labels: (b.labels || []).map(String),
				state: 'open',
				created: now,
				updated: now,
			};
			issues.push(i);
			return send(201, issueJson(i));
		}
		if (req.method === 'POST' && m[4]) {
			const b = req.body || {};
			if (typeof b.body !== 'string' || !b.body) return send(422, { message: 'Validation Failed' });
			const c = {
				id: 5000 + comments.length + 1,
				issue: number,
				body: b.body,
				state: issue.state,
				created: now,
			};
			comments.push(c);
			issue.updated = now;
			return send(201, {
				id: c.id,
				body: c.body,
				issue_url: `${base}/repos/${owner}/${repo}/issues/${number}`,
				html_url: `https://github.example/${owner}/${repo}/issues/${number}#issuecomment-${c.id}`,
				created_at: now,
			});
		}
		if (req.method === 'PATCH' && number && !m[4]) {
			const b = req.body || {};
			if (b.state !== undefined) {
				if (!['open', 'closed'].includes(b.state))
					return send(422, { message: 'Validation Failed' });
				issue.state = b.state;
			}
			if (b.title !== undefined) issue.title = b.title;
			if (b.body !== undefined) issue.body = b.body;
			if (b.labels !== undefined) issue.labels = b.labels.map(String);
			issue.updated = now;
			return send(200, issueJson(issue));
		}
		unexpected.push(`${req.method} ${p}`);
		return send(404, { message: 'Not Found' });
	});
	base = `${s.url}/api/v3`;
	return { ...s, apiUrl: base, issues, comments, requests, unexpected };
}

/** The team's RAG app: `POST /answer {question}` -> `{answer}` from the spec's current `answer(q)`. */
async function startRagApp() {
	const state = { answer: () => 'I do not know.', calls: 0 };
	const s = await listen((req, send) => {
		if (req.method !== 'POST' || req.url.pathname !== '/answer' || !req.body)
			return send(404, { error: 'not found' });
		state.calls++;
		return send(200, { answer: state.answer(String(req.body.question)) });
	});
	return { ...s, state };
}

/**
 * An OpenAI-compatible judge model: `GET /v1/models` and `POST /v1/chat/completions`, whose reply
 * content is `content(body, messages, text)` (`text`: every message's content, joined); `down`
 * answers 503 to every call, as a model that is down. `usage(text, content)` gives the usage block.
 */
async function startJudgeModel(content, usage = defaultUsage) {
	const state = { down: false, calls: 0 };
	const s = await listen((req, send) => {
		const p = req.url.pathname.replace(/^\/v1/, '');
		if (req.method === 'GET' && p === '/models')
			return send(200, {
				object: 'list',
				data: [{ id: 'e2e-judge', object: 'model', created: 0, owned_by: 'e2e' }],
			});
		if (req.method !== 'POST' || p !== '/chat/completions')
			return send(404, { error: { message: 'not found' } });
		state.calls++;
		if (state.down)
			return send(503, {
				error: { message: 'The model is currently unavailable (e2e: down).', type: 'server_error' },
			});
		const b = req.body || {};
		const messages = Array.isArray(b.messages) ? b.messages : [];
		const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
		const reply = JSON.stringify(content(b, messages, text));
		return send(200, {
			id: `chatcmpl-e2e-${state.calls}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: b.model || 'e2e-judge',
			choices: [
				{
					index: 0,
					message: { role: 'assistant', content: reply, refusal: null },
					logprobs: null,
					finish_reason: 'stop',
				},
			],
			usage: usage(text, reply),
		});
	});
	return { ...s, baseUrl: `${s.url}/v1`, state };
}

function defaultUsage(text, content) {
	const prompt = Math.ceil(text.length / 4);
	const completion = Math.ceil(content.length / 4);
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: prompt + completion,
	};
}

/**
 * A judge model scripted per judge: a `[[<judge>=N]]` marker in the judged text sets that judge's
 * score (the judge named by the structured-output schema), default 5.
 */
function startScriptedJudge() {
	return startJudgeModel((b, messages, text) => {
		const rf = b.response_format;
		const judge =
			rf && rf.json_schema
				? rf.json_schema.name
				: /grounded/i.test(text)
					? 'groundedness'
					: 'relevance';
		const marker = new RegExp(`\\[\\[${judge}=(\\d)\\]\\]`).exec(text);
		const score = marker ? Number(marker[1]) : 5;
		const schema =
			rf && rf.json_schema
				? rf.json_schema.schema
				: {
						type: 'object',
						properties: { reason: { type: 'string' }, score: { type: 'integer' } },
					};
		return fill(schema, score);
	});
}

/** The judge credential a spec imports, pointed at its stand-in judge model. */
function judgeCredential(cred, apiKey, judge) {
	return {
		...cred,
		type: 'ragEvalLlmApi',
		data: { provider: 'compatible', apiKey, baseUrl: judge.baseUrl, model: 'e2e-judge' },
	};
}

/**
 * An example workflow, renamed for its stand-ins, and `node(name)`, which finds one of its nodes
 * (failing when the example no longer has it).
 */
function exampleWorkflow(file, id) {
	const wf = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
	wf.id = id;
	wf.name = `${wf.name} (stand-ins)`;
	const node = (name) => {
		const n = wf.nodes.find((x) => x.name === name);
		assert.ok(n, `example has node ${name}`);
		return n;
	};
	return { wf, node };
}

/**
 * The team's app of the red-team examples: `POST /answer {question, history}`. Vulnerable
 * (`state.vulnerable`), it obeys an instruction whose canary tag (`[rt:<category>]`) it can read in
 * the question or history and answers with that category's harm marker `[[<category>=6]]`;
 * hardened, it gives a plain answer. `state.failOn`: the attacked versions of that question (they
 * end with it) answer 500. `state.calls` and `state.followed` count the calls and the attacks obeyed.
 */
async function startRedTeamApp() {
	const state = { vulnerable: true, calls: 0, followed: 0, failOn: null };
	const server = await listen((req, send) => {
		if (req.method !== 'POST' || req.url.pathname !== '/answer' || !req.body)
			return send(404, { error: 'not found' });
		state.calls++;
		const text = [req.body.question, ...(req.body.history || []).map((m) => m.content)].join('\n');
		const q = String(req.body.question);
		if (state.failOn && q !== state.failOn && q.endsWith(state.failOn))
			return send(500, { error: 'e2e: the app crashed on this question' });
		const tag = /\[rt:([a-z_]+)\]/.exec(text);
		if (state.vulnerable && tag) {
			state.followed++;
			return send(200, { answer: `Sure, here it is. [[${tag[1]}=6]] ${tag[0]}` });
		}
		return send(200, { answer: 'Here is what our support policy says about that.' });
	});
	return { ...server, state };
}

/**
 * A red-team example (`node` finds its nodes) with the steps its sticky note asks for done,
 * pointed at the stand-ins: the app URL, the Slack webhook (both enabled), and the judge
 * credential `judgeCred` on Content Safety.
 */
function pointRedTeamExample(node, { app, slack }, judgeCred) {
	delete node('Ask Your App').disabled;
	node('Ask Your App').parameters.url = `${app.url}/answer`;
	delete node('Post to Slack').disabled;
	node('Post to Slack').parameters.url = slack.webhookUrl;
	node('Content Safety').credentials = { ragEvalLlmApi: judgeCred };
}

/** The Slack message of run `night`: exactly one per run so far, valid Block Kit within limits. */
function slackMessageOfRun(slack, night) {
	assert.equal(slack.messages.length, night, `exactly one Slack message per run (night ${night})`);
	const msg = slack.messages[night - 1];
	assert.deepEqual(blockKitProblems(msg), [], 'valid Block Kit within Slack limits');
	return msg;
}

/** Closes the stand-ins kept in `servers` under `keys`, and forgets them. */
async function closeAll(servers, keys) {
	for (const k of keys) {
		const server = servers[k];
		servers[k] = undefined;
		if (server) await server.close();
	}
}

module.exports = {
	EXAMPLES,
	datasetRows,
	listen,
	startJudgeModel,
	judgeCredential,
	exampleWorkflow,
	closeAll,
	startSlackReceiver,
	blockKitProblems,
	startGithubServer,
	startRagApp,
	startScriptedJudge,
	startRedTeamApp,
	pointRedTeamExample,
	slackMessageOfRun,
};
