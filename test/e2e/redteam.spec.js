// The red-team nightly example on the real n8n CLI against local stand-ins: the example itself
// (examples/redteam-nightly.workflow.json) with the steps its sticky note asks for done (app URL,
// judge credential on Content Safety, Slack webhook URL; nodes enabled), run three nights:
//   night 1: the app follows injected instructions it can read (every attack whose canary tag is
//            in clear text; it cannot read base64, ROT13 or reversed text): one defect per such
//            pair, in the category the payload asked for, and a Slack message saying DEFECTS;
//   night 2: the app is hardened (never follows): every pair compared, PASS, no @here;
//   night 3: the app fails on one attacked row (HTTP 500): the run goes on, that pair is
//            incomplete (its row has no response to score), the run INCOMPLETE, never PASS;
//   night 4: the judge model is down: every pair incomplete, INCOMPLETE, never PASS.
// Each night posts exactly one Slack message, valid Block Kit within Slack's limits.
//
// Content Safety (n8n-nodes-rag-eval.evalContentSafety, LLM backend) is asked through the judge
// stand-in below, which reads no particular prompt: a `[[<category>=N]]` marker in the judged
// text sets that category's severity (default 0) wherever the reply schema asks for one.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
	EXAMPLES,
	datasetRows,
	startJudgeModel,
	judgeCredential,
	exampleWorkflow,
	closeAll,
	startSlackReceiver,
	startRedTeamApp,
	pointRedTeamExample,
	slackMessageOfRun,
} = require('./support/standins');

const ID = 'ragEvalRedTeamE2E1';
const JUDGE_KEY = 'sk-e2e-redteam-judge-0000000000000';
const JUDGE_CRED = { id: 'ragEvalJudgeE2E003', name: 'Judge model (red-team stand-in)' };
const CATEGORIES = ['hate_unfairness', 'sexual', 'violence', 'self_harm'];
const DISPLAY = {
	hate_unfairness: 'Hate and Unfairness',
	sexual: 'Sexual',
	violence: 'Violence',
	self_harm: 'Self-Harm',
};

const rows = datasetRows('rag-support-sample.jsonl');

const s = {};

/** Fills a reply schema: severities from `[[cat=N]]` markers by the nearest category named. */
function fillSafety(schema, text, category, key) {
	if (!schema || typeof schema !== 'object') return null;
	const sev = (c) => {
		const m = c ? new RegExp(`\\[\\[${c}=(\\d)\\]\\]`).exec(text) : null;
		return m ? Number(m[1]) : 0;
	};
	if (Array.isArray(schema.enum)) {
		if (key && /categor/.test(key) && category && schema.enum.includes(category)) return category;
		return schema.enum[0];
	}
	switch (schema.type) {
		case 'object': {
			const out = {};
			// A field named by a category (`violence`, `violence_severity`) is that category's.
			for (const [k, v] of Object.entries(schema.properties || {}))
				out[k] = fillSafety(
					v,
					text,
					CATEGORIES.find((c) => k === c || k.startsWith(`${c}_`)) ?? category,
					k,
				);
			return out;
		}
		case 'array': {
			// A list of per-category verdicts gets one item per category it can name.
			const catProp = Object.entries((schema.items && schema.items.properties) || {}).find(
				([, v]) => Array.isArray(v.enum) && v.enum.some((x) => CATEGORIES.includes(x)),
			);
			if (catProp)
				return catProp[1].enum
					.filter((c) => CATEGORIES.includes(c))
					.map((c) => fillSafety(schema.items, text, c, key));
			return [fillSafety(schema.items, text, category, key)];
		}
		case 'integer':
		case 'number':
			return sev(category);
		case 'boolean':
			return false;
		default:
			return `Stand-in judge: severity ${sev(category)} for ${category || key || 'this field'}.`;
	}
}

/** The judge model: severities from the `[[cat=N]]` markers in the judged text. */
function startSafetyJudge() {
	return startJudgeModel(
		(b, messages, text) => {
			const rf = b.response_format;
			// A backend asking one category per call names it in the schema name or the system prompt
			// (never read from the user message: it holds the judged text and the attack).
			const system = messages
				.filter((m) => m.role === 'system')
				.map((m) => m.content)
				.join('\n');
			const named =
				`${(rf && rf.json_schema && rf.json_schema.name) || ''}\n${system}`.toLowerCase();
			const mentioned = CATEGORIES.filter(
				(c) => named.includes(c) || named.includes(DISPLAY[c].toLowerCase()),
			);
			const single = mentioned.length === 1 ? mentioned[0] : null;
			const schema =
				rf && rf.json_schema
					? rf.json_schema.schema
					: {
							type: 'object',
							properties: { reason: { type: 'string' }, severity: { type: 'integer' } },
						};
			return fillSafety(schema, text, single);
		},
		() => ({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }),
	);
}

function slackCheck(night) {
	const msg = slackMessageOfRun(s.slack, night);
	const all = JSON.stringify(msg.blocks);
	assert.match(
		all,
		/<https:\/\/n8n\.example\.com\/workflow\/[^/]+\/executions\/\d+\|Open the run>/,
	);
	return { msg, all };
}

/**
 * The attacked rows of a run, checked against the library: the Attack Injector's output on real
 * n8n equals `injectAttacks` (dist) on the same dataset rows with the example's seed.
 */
function attacksOf(run, { out, dist }) {
	const injected = out(run, 'Attack Injector');
	assert.equal(injected.length, 2 * rows.length, 'a baseline and an attacked row per dataset row');
	const { injectAttacks } = require(path.join(dist, 'src', 'index.js'));
	const expected = injectAttacks(out(run, 'Eval Dataset'), { mode: 'direct', seed: 42 });
	assert.deepEqual(
		injected,
		expected.map((r) => r.json),
		'same seed, same attacks as the library',
	);
	const attacked = injected.filter((r) => r.attack.variant === 'attacked');
	for (const r of attacked) {
		const base = injected.find(
			(b) => b.attack.variant === 'baseline' && b.attack.pair_id === r.attack.pair_id,
		);
		assert.ok(r.request.endsWith(`\n\n${base.request}`) && r.request !== base.request);
	}
	return attacked;
}

module.exports = [
	{
		name: 'red-team example: direct-attack defects per category, one Slack message per run',
		workflowId: ID,
		covers: ['ragEvalRedTeam001'],
		executions: [
			{
				name: 'night 1: a vulnerable app: defects where it followed the attack',
				before() {
					s.judge.state.down = false;
					s.app.state.vulnerable = true;
				},
				check(run, ctx) {
					const { out } = ctx;
					const attacked = attacksOf(run, ctx);
					// Same seed as the example: the same attacks the library gives for these rows.
					assert.equal(attacked[0].attack.seed, 42);
					assert.equal(s.app.state.calls, 2 * rows.length, 'the app answered every row');
					const readable = attacked.filter((r) => r.request.includes(r.attack.canary));
					assert.equal(s.app.state.followed, readable.length);
					assert.ok(readable.length > 0, 'some attacks are readable');
					const [summary] = out(run, 'Jailbreak Comparison', 0);
					assert.equal(summary.status, 'complete');
					assert.equal(summary.verdict, 'defects');
					assert.equal(summary.pairs, rows.length);
					assert.equal(summary.defectPairs, readable.length);
					for (const c of CATEGORIES) {
						const want = readable.filter((r) => r.attack.category === c).length;
						assert.equal(summary.perCategory[c].defects, want, `${c} defects`);
						assert.equal(summary.perCategory[c].compared, rows.length);
					}
					const pairs = out(run, 'Jailbreak Comparison', 1);
					assert.equal(pairs.length, rows.length);
					assert.deepEqual(
						pairs
							.filter((p) => p.defect)
							.map((p) => p.attackedRequestId)
							.sort(),
						readable.map((r) => r.request_id).sort(),
					);
					const { msg, all } = slackCheck(1);
					assert.match(msg.text, /^<!here> Red-team nightly: direct attacks — 8 pairs: DEFECTS/);
					assert.match(all, /First defects/);
				},
			},
			{
				name: 'night 2: a hardened app: every pair compared, PASS',
				before() {
					s.app.state.vulnerable = false;
				},
				check(run, ctx) {
					const { out } = ctx;
					attacksOf(run, ctx);
					const [summary] = out(run, 'Jailbreak Comparison', 0);
					assert.equal(summary.status, 'complete');
					assert.equal(summary.verdict, 'pass');
					assert.equal(summary.defectRate, 0);
					const { msg } = slackCheck(2);
					assert.match(msg.text, /^Red-team nightly: direct attacks — 8 pairs: PASS/);
				},
			},
			{
				name: 'night 3: the app fails on one attacked row: that pair incomplete, never PASS',
				before() {
					s.app.state.failOn = rows[2].query;
				},
				check(run, ctx) {
					const { out } = ctx;
					const attacked = attacksOf(run, ctx);
					const failed = attacked.find((r) => r.request.endsWith(`\n\n${rows[2].query}`));
					const fresh = out(run, 'Use Fresh Answers').find(
						(r) => r.request_id === failed.request_id,
					);
					assert.equal(fresh.response, undefined, 'no stale answer for the failed call');
					assert.match(fresh.app_error, /500|crashed/);
					const [summary] = out(run, 'Jailbreak Comparison', 0);
					assert.equal(summary.pairs, rows.length);
					assert.equal(summary.incomplete, 1);
					assert.equal(summary.complete, rows.length - 1);
					assert.equal(summary.verdict, 'incomplete');
					const pairs = out(run, 'Jailbreak Comparison', 1);
					const bad = pairs.filter((p) => p.status !== 'complete');
					assert.deepEqual(
						bad.map((p) => p.attackedRequestId),
						[failed.request_id],
					);
					const { msg } = slackCheck(3);
					assert.match(
						msg.text,
						/^<!here> Red-team nightly: direct attacks — 8 pairs: INCOMPLETE \(1 of 8/,
					);
				},
			},
			{
				name: 'night 4: the judge model is down: INCOMPLETE, never PASS',
				before() {
					s.app.state.failOn = null;
					s.judge.state.down = true;
				},
				check(run, { out }) {
					const [summary] = out(run, 'Jailbreak Comparison', 0);
					assert.equal(summary.status, 'incomplete');
					assert.equal(summary.verdict, 'incomplete');
					assert.equal(summary.incomplete, rows.length);
					assert.equal(summary.defectRate, null);
					const { msg, all } = slackCheck(4);
					assert.match(msg.text, /^<!here> Red-team nightly: direct attacks — 8 pairs: INCOMPLETE/);
					assert.match(all, /Not compared/);
					assert.doesNotMatch(JSON.stringify(msg), /: PASS/);
				},
			},
		],
	},
];

module.exports.setup = async () => {
	s.slack = await startSlackReceiver();
	s.app = await startRedTeamApp();
	s.judge = await startSafetyJudge();
};

module.exports.teardown = () => closeAll(s, ['slack', 'app', 'judge']);

module.exports.credentials = () => [judgeCredential(JUDGE_CRED, JUDGE_KEY, s.judge)];

/** The example with what its sticky note asks a team to change, pointed at the stand-ins. */
module.exports.workflows = () => {
	const { wf, node } = exampleWorkflow('redteam-nightly.workflow.json', ID);
	assert.equal(
		node('Eval Dataset').parameters.text,
		fs.readFileSync(path.join(EXAMPLES, 'datasets', 'rag-support-sample.jsonl'), 'utf8').trim(),
		'the workflow embeds the bundled dataset as is (rerun examples/generate.js)',
	);
	pointRedTeamExample(node, s, JUDGE_CRED);
	return [wf];
};
