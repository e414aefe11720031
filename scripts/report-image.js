#!/usr/bin/env node
/**
 * Renders the README's report picture (docs/images/report.png): the nightly example's pipeline on
 * the bundled dataset (examples/datasets/rag-support-sample.jsonl) through the built library:
 * F1 and ROUGE-L, the Groundedness (yes/no) and Relevance judges against the local
 * OpenAI-compatible test server, Eval Aggregate, a Regression Gate against the median of earlier
 * nights and Eval Report's HTML, screenshotted by headless Chromium.
 *
 * The earlier nights are the same scored rows resampled (seeded, with replacement) and aggregated:
 * real summaries of this pipeline, varying as a small dataset varies night to night.
 *
 *   npm run build && node scripts/report-image.js [--out docs/images/report.png]
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const lib = require(path.join(ROOT, 'dist/src'));
const { startJudgeServer } = require(path.join(ROOT, 'test/support/openai-server-cli.js'));

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const outArg = process.argv.indexOf('--out');
const OUT = path.resolve(
	ROOT,
	outArg > -1 ? process.argv[outArg + 1] : path.join('docs', 'images', 'report.png'),
);

// mulberry32: a small seeded generator, so the picture is the same on every run.
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

async function main() {
	if (!fs.existsSync(CHROMIUM))
		throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
	const text = fs.readFileSync(
		path.join(ROOT, 'examples/datasets/rag-support-sample.jsonl'),
		'utf8',
	);
	const { records } = lib.loadDataset(text, { format: 'auto', schema: 'auto' });
	const server = await startJudgeServer({});
	try {
		const source = lib.createOpenAIModelSource({
			provider: 'compatible',
			baseUrl: server.baseUrl,
			model: 'gpt-4o-mini',
		});
		const governor = new lib.Governor({ concurrency: 4 });
		// Each declaration reads its inputs by name from the record's fields, as the nodes' defaults do.
		const inputsOf = (decl, r) => Object.fromEntries(decl.inputs.map((i) => [i.name, r[i.field]]));
		const judged = {};
		for (const decl of [lib.groundednessVerdict, lib.relevance]) {
			judged[decl.id] = await lib.runJudges(
				decl,
				records.map((r) => inputsOf(decl, r)),
				{ source, governor },
			);
		}
		const rows = records.map((r, i) => {
			const evals = {};
			for (const decl of [lib.f1ScoreMetric, lib.rougeMetric]) {
				const s = lib.evaluateMetric(decl, inputsOf(decl, r));
				evals[s.metric] = s;
			}
			for (const [id, scores] of Object.entries(judged)) evals[id] = scores[i];
			return { ...r, request_id: r.request_id ?? `support-${i + 1}`, eval: evals };
		});
		const summary = lib.aggregate(rows);
		const random = rng(20261130);
		const nights = 14;
		let history = [];
		for (let n = 0; n < nights; n++) {
			const sample = rows.map(() => rows[Math.floor(random() * rows.length)]);
			const at = new Date(Date.UTC(2026, 10, 16 + n, 2, 0, 0)).toISOString();
			history = lib.appendHistory(history, lib.aggregate(sample), 30, at);
		}
		const chosen = lib.baselineFromHistory(history, 'median', 7);
		const gate = lib.compareRuns(summary, chosen.baseline, { defaultTolerance: 0.02 });
		const html = lib.htmlReport({
			summary,
			gate,
			rows,
			history,
			title: 'Nightly RAG evaluation',
			runUrl: 'http://localhost:5678/workflow/ragEvalNightly001/executions/1',
		});
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-eval-report-image-'));
		try {
			const page = path.join(dir, 'report.html');
			fs.writeFileSync(page, html);
			const shot = path.join(dir, 'report.png');
			const run = spawnSync(
				CHROMIUM,
				[
					'--headless',
					'--no-sandbox',
					'--disable-gpu',
					'--no-first-run',
					'--disable-background-networking',
					'--disable-component-update',
					'--disable-sync',
					'--hide-scrollbars',
					`--user-data-dir=${path.join(dir, 'profile')}`,
					`--screenshot=${shot}`,
					'--window-size=1150,2300',
					`file://${page}`,
				],
				{ encoding: 'utf8', timeout: 120_000 },
			);
			if (!fs.existsSync(shot)) throw new Error(`Chromium wrote no screenshot: ${run.stderr}`);
			fs.mkdirSync(path.dirname(OUT), { recursive: true });
			fs.copyFileSync(shot, OUT);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
		console.log(
			`${path.relative(ROOT, OUT)}: ${rows.length} rows, ${server.stats.chat} judge calls, gate against the ${chosen.description}, ${Object.keys(summary.metrics).length} run metrics`,
		);
	} finally {
		await server.close();
	}
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
