#!/usr/bin/env node
// `npm start`: one command from a fresh clone to the n8n editor with our nodes and the examples.
// Installs the pinned n8n once (cached in ~/.cache/n8n-nodes-rag-eval), installs the freshly
// built package into the local n8n's ~/.n8n/nodes the way Community Nodes does, creates the owner
// account from environment settings (password printed once, kept in .n8n-local/owner.json),
// says first whether the judges have a model and how to give one, creates the judge credential
// from OPENAI_API_KEY / OPENAI_BASE_URL / AZURE_OPENAI_* when set and the webhook token
// credential the example webhooks check (RAG_EVAL_WEBHOOK_TOKEN, or a generated token printed
// once and kept in .n8n-local/webhook-token.json), imports the example workflows and starts n8n
// with its embedded SQLite on http://localhost:5678; then creates the examples' Data Tables and a
// read-only public API key of the owner, kept in the "n8n API" credential the monitor example uses.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const n8n = require('./n8n-install');

const REPO = n8n.REPO;
const PORT = Number(process.env.N8N_PORT || 5678);
const HOME = process.env.RAG_EVAL_N8N_HOME || path.join(REPO, '.n8n-local');
const EXAMPLES = path.join(REPO, 'examples');

function log(msg) {
	process.stdout.write(`[start] ${msg}\n`);
}

// The owner is kept across starts; its password is shown the first time only.
function ownerAccount() {
	const file = path.join(HOME, 'owner.json');
	if (fs.existsSync(file)) return { ...JSON.parse(fs.readFileSync(file, 'utf8')), fresh: false };
	const owner = {
		email: process.env.RAG_EVAL_OWNER_EMAIL || 'owner@rag-eval.local',
		password:
			process.env.RAG_EVAL_OWNER_PASSWORD || `Eval-${crypto.randomBytes(9).toString('base64url')}1`,
	};
	fs.mkdirSync(HOME, { recursive: true });
	fs.writeFileSync(file, JSON.stringify(owner, null, 2), { mode: 0o600 });
	return { ...owner, fresh: true };
}

// The webhook token: RAG_EVAL_WEBHOOK_TOKEN when set, else the one generated on the first start,
// kept beside the owner's password and shown the first time only.
function webhookToken() {
	const fromEnv = process.env.RAG_EVAL_WEBHOOK_TOKEN;
	if (fromEnv) {
		if (fromEnv.length < 16 || /\s/.test(fromEnv))
			throw new Error(
				'RAG_EVAL_WEBHOOK_TOKEN must be at least 16 characters without spaces (for example: openssl rand -base64 24)',
			);
		return { token: fromEnv, source: 'env', fresh: false };
	}
	const file = path.join(HOME, 'webhook-token.json');
	if (fs.existsSync(file))
		return { token: JSON.parse(fs.readFileSync(file, 'utf8')).token, source: file, fresh: false };
	const token = crypto.randomBytes(24).toString('base64url');
	fs.mkdirSync(HOME, { recursive: true });
	fs.writeFileSync(file, JSON.stringify({ token }, null, 2), { mode: 0o600 });
	return { token, source: file, fresh: true };
}

// n8n takes a pre-hashed bcrypt password; use the bcryptjs copy n8n itself ships.
function bcryptHash(password) {
	const bcrypt = require(path.join(n8n.n8nDir(), 'node_modules', 'bcryptjs'));
	return bcrypt.hashSync(password, 10);
}

/**
 * The judge model the environment gives: `{ credential, source }`, or `{ credential: null,
 * problem? }` when none is configured (problem: an Azure setting is half given). In order:
 * OPENAI_BASE_URL (an OpenAI-compatible server such as Ollama), OPENAI_API_KEY (OpenAI), Azure
 * OpenAI (AZURE_OPENAI_API_KEY + AZURE_OPENAI_ENDPOINT + AZURE_OPENAI_DEPLOYMENT). OpenAI and
 * compatible servers also get n8n's own OpenAI credential for the examples' Chat Model nodes.
 */
function judgeModelFromEnv(env = process.env) {
	const apiKey = env.OPENAI_API_KEY;
	const baseUrl = env.OPENAI_BASE_URL;
	const model = env.OPENAI_MODEL || env.RAG_EVAL_JUDGE_MODEL || 'gpt-4o-mini';
	if (apiKey || baseUrl) {
		const data = baseUrl
			? { provider: 'compatible', apiKey: apiKey || 'not-needed', baseUrl, model }
			: { provider: 'openai', apiKey, model };
		return {
			source: baseUrl
				? `OpenAI-compatible server at ${baseUrl}, model ${model} (from OPENAI_BASE_URL)`
				: `OpenAI, model ${model} (from OPENAI_API_KEY)`,
			credential: {
				id: 'ragEvalJudgeFromEnv',
				name: `Judge model (${model})`,
				type: 'ragEvalLlmApi',
				data,
				chat: n8n.openAiCredential(apiKey || 'not-needed', baseUrl, model),
			},
		};
	}
	const azure = {
		AZURE_OPENAI_API_KEY: env.AZURE_OPENAI_API_KEY,
		AZURE_OPENAI_ENDPOINT: env.AZURE_OPENAI_ENDPOINT,
		AZURE_OPENAI_DEPLOYMENT: env.AZURE_OPENAI_DEPLOYMENT,
	};
	const given = Object.keys(azure).filter((k) => azure[k]);
	if (given.length === 0) return { credential: null };
	if (given.length < 3) {
		const missing = Object.keys(azure).filter((k) => !azure[k]);
		return {
			credential: null,
			problem: `${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} set but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not, so no Azure judge model was configured`,
		};
	}
	const deployment = azure.AZURE_OPENAI_DEPLOYMENT;
	return {
		source: `Azure OpenAI deployment ${deployment} at ${azure.AZURE_OPENAI_ENDPOINT} (from AZURE_OPENAI_*)`,
		credential: {
			id: 'ragEvalJudgeFromEnv',
			name: `Judge model (Azure ${deployment})`,
			type: 'ragEvalLlmApi',
			data: {
				provider: 'azure',
				apiKey: azure.AZURE_OPENAI_API_KEY,
				azureEndpoint: azure.AZURE_OPENAI_ENDPOINT,
				azureDeployment: deployment,
				apiVersion: env.AZURE_OPENAI_API_VERSION || env.OPENAI_API_VERSION || '2024-10-21',
				model: deployment,
			},
			// n8n's Azure Chat Model wants its own credential type: the examples' Chat Model nodes
			// are left for you to set.
			chat: null,
		},
	};
}

/** Judge credential from the environment, or null when no model is configured. */
function credentialFromEnv(env = process.env) {
	return judgeModelFromEnv(env).credential;
}

/**
 * What the launcher says first: which judge model the judges will use, or plainly that there is
 * none, what that does to a run, and the three ways to give one. Never prints a key.
 */
function judgeModelNotice(env = process.env) {
	const { credential, source, problem } = judgeModelFromEnv(env);
	if (credential) return [`judge model: ${source}; the example workflows' judge nodes use it.`];
	return [
		`judge model: NONE CONFIGURED${problem ? ` (${problem})` : ''}.`,
		'  Judge nodes (Groundedness, Relevance, Correctness, ...) need an LLM. Without one they score every',
		'  row "not_applicable: no judge model configured", so a run reports INCOMPLETE (the nightly example',
		'  posts it with @here); deterministic metrics (F1, ROUGE, retrieval metrics) run as usual.',
		'  Give one when you start, and the examples are wired to it:',
		'    OpenAI:        OPENAI_API_KEY=sk-... [OPENAI_MODEL=gpt-4o-mini] bash scripts/dev.sh start',
		'    Azure OpenAI:  AZURE_OPENAI_API_KEY=... AZURE_OPENAI_ENDPOINT=https://<resource>.openai.azure.com \\',
		'                   AZURE_OPENAI_DEPLOYMENT=<deployment> bash scripts/dev.sh start',
		'    local server:  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=llama3.1 bash scripts/dev.sh start',
		'                   (Ollama; vLLM, LM Studio and other OpenAI-compatible servers alike)',
		'  or in the editor: Credentials -> Add credential -> "RAG Eval LLM API", then pick it in each judge node.',
	];
}

function exampleWorkflows() {
	if (!fs.existsSync(EXAMPLES)) return [];
	return fs
		.readdirSync(EXAMPLES)
		.filter((f) => f.endsWith('.workflow.json'))
		.sort()
		.map((f) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), 'utf8')));
}

async function waitForHealth(url, child, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`n8n exited with code ${child.exitCode}`);
		try {
			const r = await fetch(`${url}/healthz/readiness`);
			if (r.ok) return;
		} catch {
			// not listening yet
		}
		await new Promise((r) => setTimeout(r, 1000));
	}
	throw new Error(`n8n did not become ready at ${url} within ${timeoutMs / 1000} s`);
}

/**
 * The "Evaluate in n8n's Evaluations tab" example reads a Data Table: create it from the bundled
 * dataset once (REST API, as the owner) and point the example's Evaluation Trigger at it. A
 * failure only costs this example, so it is logged, never fatal.
 */
async function setUpEvaluationsExample(base, owner) {
	const ev = require('./n8n-evaluations');
	try {
		const session = await ev.restSession(base, owner.email, owner.password);
		const table = await ev.ensureDataTable(session, ev.EVALUATIONS_EXAMPLE.table, ev.datasetRows());
		await ev.pointEvaluationTrigger(session, ev.EVALUATIONS_EXAMPLE.workflowId, table.id);
		log(
			`Data Table "${ev.EVALUATIONS_EXAMPLE.table}" ${table.created ? 'created from examples/datasets' : 'found'}; the Evaluations tab example reads it`,
		);
	} catch (e) {
		log(`could not set up the Evaluations tab example's Data Table: ${e.message}`);
	}
}

/**
 * The "Review and calibrate" example keeps queued rows and their labels in one Data Table and the
 * promoted golden rows in another (its Data Table nodes find them by name): create both, empty,
 * once. A failure only costs this example, so it is logged, never fatal.
 */
async function setUpReviewExample(base, owner) {
	const ev = require('./n8n-evaluations');
	try {
		const session = await ev.restSession(base, owner.email, owner.password);
		const t = await ev.ensureReviewTables(session);
		log(
			`Data Tables "${ev.REVIEW_EXAMPLE.labels}" (review queue and labels) and "${ev.REVIEW_EXAMPLE.golden}" (golden set) ${t.labels.created ? 'created' : 'found'}; the Review and calibrate example uses them`,
		);
	} catch (e) {
		log(`could not set up the review example's Data Tables: ${e.message}`);
	}
}

/**
 * The production-monitoring examples: a public API key of the owner (read-only scopes) in the
 * "n8n API" credential the monitor's Eval Executions node reads, that node pointed at it, and the
 * pushed-traces example's Data Table. Idempotent across starts; the key is never printed. A
 * failure only costs these examples, so it is logged, never fatal.
 */
async function setUpMonitorExamples(base, owner) {
	const ev = require('./n8n-evaluations');
	const m = ev.MONITOR_EXAMPLE;
	try {
		const session = await ev.restSession(base, owner.email, owner.password);
		const key = await ev.ensureMonitorApiKey(session, {
			apiBaseUrl: `http://localhost:${PORT}/api/v1`,
		});
		await ev.pointCredential(session, m.workflowId, m.credentialType, {
			id: key.credentialId,
			name: key.credentialName,
		});
		log(
			key.created === 'none'
				? `credential "${key.credentialName}" (public API key "${m.apiKeyLabel}") found; the monitor example reads executions with it`
				: `created a public API key "${m.apiKeyLabel}" (scopes ${m.apiKeyScopes.join(', ')}) and kept it in the credential "${key.credentialName}"; the monitor example reads executions with it (the key is not shown)`,
		);
	} catch (e) {
		log(`could not set up the monitor example's n8n API credential: ${e.message}`);
	}
	try {
		const session = await ev.restSession(base, owner.email, owner.password);
		const t = await ev.ensureTracesTable(session);
		log(
			`Data Table "${m.traces}" ${t.created ? 'created' : 'found'}; the pushed-traces example keeps its sampled traces there`,
		);
	} catch (e) {
		log(`could not set up the pushed-traces example's Data Table: ${e.message}`);
	}
}

async function main() {
	const t0 = Date.now();
	// First, before minutes of installing: whether the judges will have a model at all.
	const notice = judgeModelNotice();
	for (const line of notice) log(line);
	log('step 1/5: n8n (pinned 2.41.1, installed once into the cache)');
	await n8n.ensureN8n();
	log('step 2/5: build and install this package into the local n8n');
	n8n.buildIfStale();
	const userFolder = HOME;
	const tgz = n8n.packPackage(path.join(HOME, 'pack'));
	const pkg = n8n.installPackage(userFolder, tgz);
	log(`${pkg.name}@${pkg.version}: ${pkg.nodes.length} nodes`);

	const owner = ownerAccount();
	const env = n8n.n8nEnv(userFolder, {
		N8N_PORT: String(PORT),
		N8N_HOST: 'localhost',
		N8N_LISTEN_ADDRESS: process.env.N8N_LISTEN_ADDRESS || '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_PORT: process.env.N8N_RUNNERS_BROKER_PORT || String(await n8n.freePort()),
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Eval',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(owner.password),
		N8N_LOG_LEVEL:
			process.env.N8N_LOG_LEVEL && process.env.N8N_LOG_LEVEL !== 'silent'
				? process.env.N8N_LOG_LEVEL
				: 'info',
	});

	log('step 3/5: judge model and webhook token credentials');
	const cred = credentialFromEnv();
	const hook = webhookToken();
	const creds = [n8n.webhookCredential(hook.token)];
	if (cred) {
		const { chat, ...judgeCred } = cred;
		creds.push(judgeCred);
		if (chat) {
			const { model: chatModel, ...chatCred } = chat;
			void chatModel;
			creds.push(chatCred);
		}
	}
	{
		const file = path.join(HOME, 'credential.json');
		fs.writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
		const r = await n8n.runN8n(['import:credentials', `--input=${file}`], env);
		fs.rmSync(file, { force: true });
		if (r.status !== 0) throw new Error(`importing the credentials failed:\n${r.stderr}`);
	}
	log(
		`created credential "${n8n.WEBHOOK_CREDENTIAL.name}" (Header Auth, Authorization: Bearer <token>) for the example webhooks`,
	);
	if (cred) {
		log(
			`created credential "${cred.name}" (${cred.data.provider}${cred.data.baseUrl ? ` at ${cred.data.baseUrl}` : ''}${cred.data.azureEndpoint ? ` at ${cred.data.azureEndpoint}` : ''})`,
		);
	} else {
		log(
			'no judge model configured (see the first lines above): judge nodes will report "not_applicable: no judge model configured"; deterministic metrics run as usual',
		);
	}

	log('step 4/5: import the example workflows');
	const workflows = exampleWorkflows();
	const importDir = path.join(HOME, 'import');
	fs.rmSync(importDir, { recursive: true, force: true });
	fs.mkdirSync(importDir, { recursive: true });
	const panel = panelModelsFromEnv(env, cred);
	if (panel.note) log(`  ${panel.note}`);
	for (const wf of workflows) {
		const w = withPanelModels(cred ? n8n.withCredential(wf, cred, cred.chat) : wf, panel.models);
		fs.writeFileSync(path.join(importDir, `${wf.id}.json`), JSON.stringify(w, null, 2));
	}
	if (workflows.length) {
		const r = await n8n.runN8n(['import:workflow', '--separate', `--input=${importDir}`], env);
		if (r.status !== 0) throw new Error(`importing the examples failed:\n${r.stdout}\n${r.stderr}`);
		for (const wf of workflows) log(`  ${wf.name}`);
		await n8n.publishSubWorkflows(workflows, env);
	}

	log('step 5/5: start n8n');
	const child = spawn('node', [n8n.n8nBin(), 'start'], {
		env,
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	const stop = () => child.kill('SIGTERM');
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	const url = `http://localhost:${PORT}`;
	await waitForHealth(`http://127.0.0.1:${PORT}`, child, 180000);
	await setUpEvaluationsExample(`http://127.0.0.1:${PORT}`, owner);
	await setUpReviewExample(`http://127.0.0.1:${PORT}`, owner);
	await setUpMonitorExamples(`http://127.0.0.1:${PORT}`, owner);
	const first = workflows.find((w) => w.id === 'ragEvalNightly001') || workflows[0];
	const lines = [
		'',
		`n8n is ready at ${url}  (started in ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
		first ? `open the example "${first.name}": ${url}/workflow/${first.id}` : '',
		`log in as ${owner.email}`,
		cred
			? `judge model: ${cred.name}`
			: 'judge model: NONE (judges report not_applicable, runs INCOMPLETE): restart with OPENAI_API_KEY, AZURE_OPENAI_* or OPENAI_BASE_URL (see the first lines above)',
		owner.fresh
			? `password: ${owner.password}   (shown once; kept in ${path.relative(REPO, path.join(HOME, 'owner.json'))})`
			: `password: see ${path.relative(REPO, path.join(HOME, 'owner.json'))}`,
		hook.source === 'env'
			? 'webhook token: the value of RAG_EVAL_WEBHOOK_TOKEN'
			: hook.fresh
				? `webhook token: ${hook.token}   (shown once; kept in ${path.relative(REPO, hook.source)})`
				: `webhook token: see ${path.relative(REPO, hook.source)}`,
		`the example webhooks want the header "Authorization: Bearer <token>"; publish the CI gate, then: curl -H "Authorization: Bearer <token>" -H "content-type: application/json" -d '{"rows": [...]}' ${url}/webhook/rag-eval-ci`,
		'Ctrl+C stops n8n.',
		'',
	].filter((l) => l !== '');
	process.stdout.write(`\n${lines.map((l) => `  ${l}`).join('\n')}\n\n`);
	await new Promise((resolve) => child.on('exit', resolve));
}

/**
 * The models of the examples' judge panels (Options -> Panel Models) for the judge credential the
 * environment gives: OPENAI_PANEL_MODELS when set (comma-separated); on OpenAI the examples' own
 * (OpenAI model names); on another server or Azure none, since those names would not exist there
 * (the judge then judges alone, and the note says how to make a panel). `models: undefined` keeps
 * the examples' lists.
 */
function panelModelsFromEnv(env, cred) {
	const listed = (env.OPENAI_PANEL_MODELS || '')
		.split(',')
		.map((m) => m.trim())
		.filter(Boolean);
	if (listed.length)
		return {
			models: listed,
			note: `judge panels: ${listed.join(', ')} (from OPENAI_PANEL_MODELS)`,
		};
	if (!cred || cred.data?.provider === 'openai') return { models: undefined };
	return {
		models: [],
		note: "judge panels: the examples' OpenAI models are left out on this server, so their judges judge alone; set OPENAI_PANEL_MODELS=model-a,model-b for a panel",
	};
}

/** A copy of the workflow whose judges' Panel Models are `models` (undefined: unchanged). */
function withPanelModels(wf, models) {
	if (models === undefined) return wf;
	const copy = JSON.parse(JSON.stringify(wf));
	for (const node of copy.nodes) {
		const options = node.parameters?.options;
		if (options && typeof options.panelModels === 'string') {
			if (models.length) options.panelModels = models.join(', ');
			else delete options.panelModels;
		}
	}
	return copy;
}

module.exports = {
	judgeModelFromEnv,
	credentialFromEnv,
	judgeModelNotice,
	panelModelsFromEnv,
	withPanelModels,
};

if (require.main === module) {
	main().catch((e) => {
		process.stderr.write(`[start] ${e.stack || e}\n`);
		process.exit(1);
	});
}
