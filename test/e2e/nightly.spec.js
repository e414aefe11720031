// The nightly example as a team runs it, on the real n8n CLI against local stand-ins: the
// example itself (examples/nightly-rag-evaluation.workflow.json) with the steps its sticky notes
// ask for done (RAG app URL, Slack webhook URL, GitHub credential with a server URL as for
// GitHub Enterprise, owner and repository; nodes enabled), executed three nights in a row:
//   night 1: two causes fail (groundedness on 2 rows, relevance on 1): two issues are opened;
//   night 2: groundedness still fails, relevance recovered: a comment on the first issue, a
//            closing comment on the second and the second closed; no new issue;
//   night 3: groundedness fails on twice as many rows: the gate leaves on Regressed, the one
//            Slack message says REGRESSED and alerts the channel, the run still becomes the
//            baseline, and the open groundedness issue is commented;
//   night 4: the judge model is down: the one Slack message says INCOMPLETE, never green, and
//            no ticket is closed (the causes may hide in the rows that were not judged).
// Each night posts exactly one Slack message, valid Block Kit within Slack's limits, with a
// plain-text fallback.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
	EXAMPLES,
	judgeCredential,
	exampleWorkflow,
	closeAll,
	startSlackReceiver,
	blockKitProblems,
	startGithubServer,
	startRagApp,
	startScriptedJudge,
} = require('./support/standins');
const { slackPreviewHtml } = require('./support/slack-preview');

const ID = 'ragEvalNightlyE2E1';
const TOKEN = 'ghp_e2eStandInToken0000000000000000';
const OWNER = 'acme';
const REPO = 'rag-app';
const JUDGE_KEY = 'sk-e2e-scripted-judge-000000000000';
const GITHUB_CRED = { id: 'ragEvalGithubE2E01', name: 'GitHub (local stand-in)' };
const JUDGE_CRED = { id: 'ragEvalJudgeE2E002', name: 'Judge model (scripted stand-in)' };

const rows = fs
	.readFileSync(path.join(EXAMPLES, 'datasets', 'rag-support-sample.jsonl'), 'utf8')
	.trim()
	.split('\n')
	.map((l) => JSON.parse(l));
const questions = rows.map((r) => r.query);

const s = {};

function answers(markers) {
	return (question) => {
		const i = questions.indexOf(question);
		if (i < 0) return 'I do not know.';
		return `${rows[i].response}${markers[i] ? ` ${markers[i]}` : ''}`;
	};
}

function slackChecks(run, night) {
	assert.equal(
		s.slack.messages.length,
		night,
		`exactly one Slack message per run (night ${night})`,
	);
	const msg = s.slack.messages[night - 1];
	assert.deepEqual(blockKitProblems(msg), [], 'valid Block Kit within Slack limits');
	assert.ok(msg.text.length > 20, 'plain-text fallback present');
	const all = JSON.stringify(msg.blocks);
	// The link to the execution: the Run URL expression filled with this execution's id.
	assert.match(
		all,
		/<https:\/\/n8n\.example\.com\/workflow\/[^/]+\/executions\/\d+\|Open the run>/,
	);
	return { msg, all };
}

const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts', 'e2e');

// What the night posted and reported, for people to look at: the Slack message (JSON and an HTML
// preview) and the HTML report rebuilt by the package's htmlReport from this run's node outputs.
function saveArtifacts(run, night, { out, dist }) {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	const base = path.join(ARTIFACTS, `nightly-night-${night}`);
	const msg = s.slack.messages[night - 1];
	if (msg) {
		fs.writeFileSync(`${base}.slack.json`, JSON.stringify(msg, null, 2));
		fs.writeFileSync(`${base}.slack.html`, slackPreviewHtml(msg));
	}
	const gated = [0, 1, 2].flatMap((k) => out(run, 'Regression Gate', k))[0];
	const { htmlReport } = require(path.join(dist, 'src', 'index.js'));
	fs.writeFileSync(
		`${base}.report.html`,
		htmlReport({
			summary: gated.summary,
			gate: gated.gate,
			rows: out(run, 'Relevance'),
			title: 'Nightly RAG evaluation',
			runUrl: 'https://n8n.example.com/',
			maxWorstRows: 5,
		}),
	);
}

function ghOps() {
	return s.github.requests
		.filter((r) => r.method !== 'GET')
		.map((r) => `${r.method} ${r.path.replace(`/repos/${OWNER}/${REPO}`, '')}`);
}

module.exports = [
	{
		name: 'nightly example: one Slack message per run, one GitHub issue per root cause across nights',
		workflowId: ID,
		covers: ['ragEvalNightly001'],
		executions: [
			{
				name: 'night 1: two causes open two issues',
				before() {
					s.judge.state.down = false;
					s.rag.state.answer = answers({
						0: '[[groundedness=1]]',
						1: '[[groundedness=2]]',
						2: '[[relevance=2]]',
					});
					s.opsBefore = ghOps().length;
				},
				check(run, ctx) {
					const { out } = ctx;
					saveArtifacts(run, 1, ctx);
					assert.equal(s.rag.state.calls, rows.length, 'the RAG app answered every row');
					const [summary] = out(run, 'Eval Aggregate');
					assert.equal(summary.status, 'complete');
					assert.deepEqual(
						summary.rootCauses.map((c) => [c.cause, c.count]),
						[
							['groundedness', 2],
							['relevance', 1],
						],
					);
					assert.equal(out(run, 'Regression Gate', 0).length, 1, 'no baseline yet: OK');
					const { msg, all } = slackChecks(run, 1);
					assert.match(msg.blocks[0].text.text, /: OK$/);
					assert.match(all, /\*groundedness\*: 2 rows/);
					assert.match(all, /\*relevance\*: 1 rows/);
					assert.match(all, /Worst rows/);
					assert.match(all, /Pass rate 62\.5% \(5 of 8 rows\)/);

					assert.deepEqual(s.github.unexpected, []);
					assert.deepEqual(ghOps(), ['POST /issues', 'POST /issues']);
					const get = s.github.requests.find(
						(r) => r.method === 'GET' && r.path.endsWith('/issues'),
					);
					assert.equal(get.query.labels, 'rag-eval', 'issues looked up by the package label');
					assert.equal(get.query.state, 'open');
					assert.deepEqual(
						s.github.issues.map((i) => [i.number, i.state, i.labels]),
						[
							[1, 'open', ['rag-eval', 'root-cause:groundedness']],
							[2, 'open', ['rag-eval', 'root-cause:relevance']],
						],
					);
					const g = s.github.issues[0];
					assert.equal(g.title, 'RAG eval: rows fail first on groundedness');
					assert.match(g.body, /\*\*Suggested fix:\*\* \S/);
					assert.match(g.body, /\*\*First failing rows:\*\*/);
					assert.ok(g.body.includes(rows[0].query.slice(0, 30)), 'first failing row quoted');
					assert.match(g.body, /\*\*Tonight:\*\* 2 of 8 rows \(25\.0%\)/);
				},
			},
			{
				name: 'night 2: a persisting cause is commented, a recovered one closed',
				before() {
					s.rag.state.answer = answers({ 0: '[[groundedness=1]]', 1: '[[groundedness=2]]' });
					s.opsBefore = ghOps().length;
				},
				check(run, ctx) {
					const { out } = ctx;
					saveArtifacts(run, 2, ctx);
					const [summary] = out(run, 'Eval Aggregate');
					assert.deepEqual(
						summary.rootCauses.map((c) => c.cause),
						['groundedness'],
					);
					const { msg } = slackChecks(run, 2);
					assert.doesNotMatch(msg.blocks[0].text.text, /INCOMPLETE/);
					// Night 1 joined the history kept in static data: the report draws its trends.
					const [report] = out(run, 'Eval Report');
					assert.match(report.markdown, /## Trends \(last 2 runs\)/);
					assert.deepEqual(s.github.unexpected, []);
					assert.deepEqual(ghOps().slice(s.opsBefore), [
						'POST /issues/1/comments',
						'POST /issues/2/comments',
						'PATCH /issues/2',
					]);
					assert.equal(s.github.issues.length, 2, 'no new issue for a known cause');
					assert.deepEqual(
						s.github.issues.map((i) => i.state),
						['open', 'closed'],
					);
					const [comment, closing] = s.github.comments;
					assert.equal(comment.issue, 1);
					assert.match(comment.body, /still failing on \*\*groundedness\*\*: 2 of 8 rows/);
					assert.match(comment.body, /Worst rows tonight/);
					assert.equal(closing.issue, 2);
					assert.match(closing.body, /^Recovered: no row failed first on this cause/);
				},
			},
			{
				name: 'night 3: groundedness fails on twice the rows: REGRESSED, one alert, still the baseline',
				before() {
					s.rag.state.answer = answers({
						0: '[[groundedness=1]]',
						1: '[[groundedness=2]]',
						3: '[[groundedness=1]]',
						4: '[[groundedness=2]]',
					});
					s.opsBefore = ghOps().length;
				},
				check(run, ctx) {
					const { out } = ctx;
					saveArtifacts(run, 3, ctx);
					const [summary] = out(run, 'Eval Aggregate');
					assert.equal(summary.status, 'complete');
					assert.deepEqual(
						summary.rootCauses.map((c) => [c.cause, c.count]),
						[['groundedness', 4]],
					);
					assert.equal(out(run, 'Regression Gate', 0).length, 0, 'not OK');
					assert.equal(out(run, 'Regression Gate', 2).length, 0, 'not incomplete');
					const [gated] = out(run, 'Regression Gate', 1);
					assert.ok(gated, 'the gate leaves on Regressed');
					assert.equal(gated.gate.status, 'regressed');
					const regressed = gated.gate.table.filter((m) => m.verdict === 'regressed');
					assert.ok(regressed.length > 0);
					// Only groundedness got worse (4 rows rated 1-2 instead of 2; summaries without rows,
					// so the tolerance decides); relevance, unchanged, is not named.
					assert.deepEqual(
						regressed.map((m) => [m.metric, m.test, m.delta < 0]),
						[['groundedness/mean', 'tolerance-only', true]],
					);
					assert.ok(
						run.data.resultData.runData['Save as Baseline'],
						'a complete run is the baseline',
					);
					const { msg, all } = slackChecks(run, 3);
					assert.match(
						msg.blocks[0].text.text,
						new RegExp(
							`^Nightly RAG evaluation — 8 rows: REGRESSED \\(${regressed.length} metrics?\\)$`,
						),
					);
					assert.match(msg.text, /^<!here> Nightly RAG evaluation — 8 rows: REGRESSED/);
					assert.match(all, /<!here> :red_circle: \*Regressed\* on `[^`]*groundedness/);
					assert.match(all, /Pass rate 50\.0% \(4 of 8 rows\)/);
					assert.doesNotMatch(JSON.stringify(msg), /large_green_circle|INCOMPLETE/);
					// The known cause is commented, not opened again.
					assert.deepEqual(s.github.unexpected, []);
					assert.deepEqual(ghOps().slice(s.opsBefore), ['POST /issues/1/comments']);
					assert.equal(s.github.issues.length, 2, 'no new issue for a known cause');
					assert.match(
						s.github.comments.at(-1).body,
						/still failing on \*\*groundedness\*\*: 4 of 8 rows/,
					);
				},
			},
			{
				name: 'night 4: the judge model is down: INCOMPLETE, never green, nothing closed',
				before() {
					s.judge.state.down = true;
					s.opsBefore = ghOps().length;
				},
				check(run, ctx) {
					const { out } = ctx;
					saveArtifacts(run, 4, ctx);
					const [summary] = out(run, 'Eval Aggregate');
					assert.equal(summary.status, 'incomplete');
					assert.equal(summary.overall.incomplete, rows.length);
					assert.equal(out(run, 'Regression Gate', 0).length, 0);
					assert.equal(out(run, 'Regression Gate', 1).length, 0);
					assert.equal(out(run, 'Regression Gate', 2).length, 1, 'gate leaves on Incomplete');
					assert.ok(!run.data.resultData.runData['Save as Baseline'], 'not saved as baseline');
					const { msg, all } = slackChecks(run, 4);
					assert.equal(
						msg.blocks[0].text.text,
						'Nightly RAG evaluation — 8 rows: INCOMPLETE (8 of 8 rows not judged)',
					);
					assert.match(msg.text, /^<!here> Nightly RAG evaluation — 8 rows: INCOMPLETE/);
					assert.match(all, /First errors/);
					assert.match(all, /unavailable/);
					assert.doesNotMatch(JSON.stringify(msg), /large_green_circle|\*OK\*/);
					assert.deepEqual(ghOps().slice(s.opsBefore), [], 'no ticket opened, commented or closed');
					assert.equal(s.github.issues[0].state, 'open');
				},
			},
		],
	},
];

module.exports.setup = async () => {
	s.slack = await startSlackReceiver();
	s.github = await startGithubServer({ token: TOKEN, owner: OWNER, repo: REPO });
	s.rag = await startRagApp();
	s.judge = await startScriptedJudge();
};

module.exports.teardown = () => closeAll(s, ['slack', 'github', 'rag', 'judge']);

module.exports.credentials = () => [
	{
		...GITHUB_CRED,
		type: 'githubApi',
		data: { server: s.github.apiUrl, user: 'e2e-bot', accessToken: TOKEN },
	},
	judgeCredential(JUDGE_CRED, JUDGE_KEY, s.judge),
];

/** The example with what its sticky notes ask a team to change, pointed at the stand-ins. */
module.exports.workflows = () => {
	const { wf, node } = exampleWorkflow('nightly-rag-evaluation.workflow.json', ID);
	const enable = (name) => delete node(name).disabled;
	enable('Ask Your RAG App');
	node('Ask Your RAG App').parameters.url = `${s.rag.url}/answer`;
	enable('Post to Slack');
	node('Post to Slack').parameters.url = s.slack.webhookUrl;
	for (const n of wf.nodes.filter((x) => x.type === 'n8n-nodes-base.github')) {
		delete n.disabled;
		n.credentials = { githubApi: GITHUB_CRED };
		n.parameters.owner = { __rl: true, mode: 'name', value: OWNER };
		n.parameters.repository = { __rl: true, mode: 'name', value: REPO };
	}
	for (const n of wf.nodes.filter((x) => x.type.startsWith('n8n-nodes-rag-eval.judge'))) {
		n.credentials = { ragEvalLlmApi: JUDGE_CRED };
		// One retry keeps the night with the model down short; the default is for real models.
		n.parameters.options = { ...(n.parameters.options || {}), maxRetries: 1 };
	}
	assert.ok(node('Post to Slack (Slack node)').disabled, 'the Slack-node branch ships disabled');
	return [wf];
};
