/**
 * What a big verdict cache adds to a run, and whether its expired entries still go: a disk cache
 * folder of ENTRIES verdicts (default 100,000) stored over the last 8 days, so that with the
 * default TTL of 7 days one eighth of them has expired. A run is what two judge nodes do: ROWS rows
 * judged by Groundedness, its cache closed (which starts the sweep in the background, as a judge
 * node's close does), then by Relevance while the sweep runs, its cache closed; all misses (the
 * rows are new), against the local judge server (its own process, LATENCY ms a call, CONCURRENCY
 * calls in flight). Reference, measured in the same run: the same run on an empty folder. Rounds
 * alternate empty / big (each big round on a fresh copy of the folder), and the figures are
 * medians; the sweep's own time (until it finished, after the run) is printed apart, with what it
 * removed and what is left. `--legacy N` also times the previous sweep (cacache's verify) on a
 * cacache folder of N entries, one eighth expired.
 *
 *   npm run build && node bench/cache-sweep.bench.js   (ENTRIES=100000 ROWS=2000 LATENCY=50
 *   CONCURRENCY=32 ROUNDS=3)
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { printHeader, startJudgeServer } = require('./env');
const {
	diskBackend,
	diskSweepsDone,
	sweepDiskStore,
	VerdictCache,
} = require('../dist/src/judges/cache');
const { Governor } = require('../dist/src/judges/governor');
const { createOpenAIModelSource } = require('../dist/src/judges/model');
const { runJudges } = require('../dist/src/judges/run');
const { groundedness } = require('../dist/src/judges/specs/groundedness');
const { relevance } = require('../dist/src/judges/specs/relevance');
const { ragRows } = require('./ragtext');

const ENTRIES = Number(process.env.ENTRIES || 100000);
const ROWS = Number(process.env.ROWS || 2000);
const LATENCY = Number(process.env.LATENCY || 50);
const CONCURRENCY = Number(process.env.CONCURRENCY || 32);
const ROUNDS = Number(process.env.ROUNDS || 3);
const legacyAt = process.argv.indexOf('--legacy');
const LEGACY = legacyAt > -1 ? Number(process.argv[legacyAt + 1]) : 0;
const DAY = 24 * 3600 * 1000;
const TTL = 7 * DAY;
const SPAN = 8 * DAY;

printHeader({
	bench: `cache-sweep (${ENTRIES} cached verdicts, ${ROWS} rows x 2 judges, latency ${LATENCY} ms, concurrency ${CONCURRENCY})`,
	reference: 'the same run on an empty cache folder, same process, same server',
	figures: `cold rows (every call made and stored); ${ROUNDS} rounds alternating empty / big folder, medians`,
});

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

function countFiles(dir) {
	let n = 0;
	if (!fs.existsSync(dir)) return 0;
	for (const e of fs.readdirSync(dir, { withFileTypes: true }))
		n += e.isDirectory() ? countFiles(path.join(dir, e.name)) : 1;
	return n;
}

/** A folder of `n` verdicts stored evenly over the last 8 days (one eighth past the TTL). */
async function bigFolder(dir, n, now) {
	const value = JSON.stringify({
		format: 'rag-eval-verdict/1',
		key: 'x',
		value: 4,
		reason: 'The response is supported by the retrieved context. '.repeat(4),
		attempts: 1,
		usage: { promptTokens: 900, completionTokens: 60, totalTokens: 960 },
		storedAt: 0,
	});
	let clock = 0;
	const backend = diskBackend(dir, 0, { now: () => clock });
	for (let i = 0; i < n; i++) {
		clock = now - SPAN + Math.floor((i * SPAN) / n);
		await backend.set(`verdict:bench-${i}`, value, 0);
	}
	await backend.close();
}

(async () => {
	const rows = ragRows(ROWS * ROUNDS * 2, 8080, 'warm').map((r, i) => ({
		request: `${r.groundTruth.split('.')[0]} (${i})?`,
		response: r.response,
		retrieved_context: [{ doc_uri: `kb/${i}.md`, content: r.context }],
	}));
	const server = await startJudgeServer(['--latency', String(LATENCY)]);
	const source = createOpenAIModelSource({
		provider: 'compatible',
		baseUrl: server.baseUrl,
		model: 'judge-model',
	});
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-sweep-bench-'));
	try {
		const now = Date.now();
		const template = path.join(root, 'template');
		const t0 = Date.now();
		await bigFolder(template, ENTRIES, now);
		const expired = Math.ceil(ENTRIES / 8);
		console.log(
			`built a folder of ${countFiles(path.join(template, 'verdicts-v2'))} verdicts in ${secs(Date.now() - t0)} (${expired} or so older than the 7-day TTL)`,
		);

		/** One run (two judge nodes) on `dir`; the sweep is awaited only after the run is timed. */
		let batch = 0;
		async function run(dir) {
			const part = rows.slice(batch * ROWS, ++batch * ROWS);
			const c0 = process.cpuUsage();
			const t = process.hrtime.bigint();
			for (const decl of [groundedness, relevance]) {
				const cache = new VerdictCache(diskBackend(dir, TTL), TTL);
				const governor = new Governor({ concurrency: CONCURRENCY });
				const scores = await runJudges(decl, part, { source, governor, cache });
				for (const s of scores) if (s.status !== 'ok') throw new Error(s.error || s.reason);
				// A node's close: starts the sweep and returns.
				await cache.close();
			}
			const wallMs = Number(process.hrtime.bigint() - t) / 1e6;
			const c = process.cpuUsage(c0);
			const s0 = process.hrtime.bigint();
			await diskSweepsDone();
			const sweepMs = Number(process.hrtime.bigint() - s0) / 1e6;
			return { wallMs, cpuMs: (c.user + c.system) / 1000, sweepMs };
		}

		const empty = [];
		const big = [];
		let left;
		let sweptFrom = 0;
		for (let r = 0; r < ROUNDS; r++) {
			const e = path.join(root, `empty-${r}`);
			empty.push(await run(e));
			const b = path.join(root, `big-${r}`);
			execFileSync('cp', ['-a', template, b]);
			sweptFrom = Date.now();
			big.push(await run(b));
			left = countFiles(path.join(b, 'verdicts-v2'));
			fs.rmSync(b, { recursive: true, force: true });
			fs.rmSync(e, { recursive: true, force: true });
		}
		const m = (xs, k) => median(xs.map((x) => x[k]));
		console.log(
			`\n${'folder'.padEnd(26)}${'run wall'.padStart(10)}${'run CPU'.padStart(10)}${'sweep after the run'.padStart(22)}`,
		);
		for (const [name, xs] of [
			['empty (reference)', empty],
			[`${ENTRIES} verdicts`, big],
		])
			console.log(
				`${name.padEnd(26)}${secs(m(xs, 'wallMs')).padStart(10)}${secs(m(xs, 'cpuMs')).padStart(10)}${secs(m(xs, 'sweepMs')).padStart(22)}`,
			);
		const added = m(big, 'wallMs') - m(empty, 'wallMs');
		console.log(
			`\nthe ${ENTRIES}-verdict folder added ${secs(added)} of wall time and ${secs(m(big, 'cpuMs') - m(empty, 'cpuMs'))} of CPU to the run (per round: ${big
				.map((b, i) => secs(b.wallMs - empty[i].wallMs))
				.join(', ')}); goal under 1 s: ${added < 1000 ? 'met' : 'NOT met'}`,
		);
		// An hour's list is swept once its last entry is past the TTL: at the last round's sweep,
		// the verdicts of the hours that had ended more than 7 days before.
		const HOUR = 3600 * 1000;
		const sweepable = (at) => {
			let k = 0;
			for (let i = 0; i < ENTRIES; i++) {
				const t = now - SPAN + Math.floor((i * SPAN) / ENTRIES);
				if ((Math.floor(t / HOUR) + 1) * HOUR + TTL <= at) k++;
			}
			return k;
		};
		// Verdicts younger than the TTL when the sweep ended (on a slow machine more of the folder
		// has aged past it since it was built than the eighth it started with).
		const fresh = (at) => {
			let k = 0;
			for (let i = 0; i < ENTRIES; i++)
				if (now - SPAN + Math.floor((i * SPAN) / ENTRIES) + TTL > at) k++;
			return k;
		};
		const removed = ENTRIES + 2 * ROWS - left;
		const [lo, hi] = [sweepable(sweptFrom), sweepable(Date.now())];
		const freshNow = fresh(Date.now());
		const stillFresh = freshNow + 2 * ROWS;
		console.log(
			`after the last round's sweep: ${left} verdicts left of ${ENTRIES} + ${2 * ROWS} stored by the run, ${removed} removed; past the TTL at the time: ${ENTRIES - freshNow}, of which in hours wholly past it ${lo === hi ? lo : `${lo}-${hi}`} (an hour is swept once its last entry expired); younger than the TTL: ${stillFresh}: ${removed >= lo && removed <= hi && left >= stillFresh ? 'every wholly expired hour gone, every fresh verdict kept' : 'UNEXPECTED'}`,
		);
		// The next night's sweep on a swept folder reads only the hours that expired since: what a
		// nightly pays (the first sweep above removed one day of verdicts at once).
		const again = path.join(root, 'again');
		execFileSync('cp', ['-a', template, again]);
		await sweepDiskStore(again, TTL, { now: () => now });
		const s1 = process.hrtime.bigint();
		const second = await sweepDiskStore(again, TTL, { now: () => now + DAY });
		console.log(
			`the next day's sweep of that folder: ${secs(Number(process.hrtime.bigint() - s1) / 1e6)}, ${JSON.stringify(second)}`,
		);

		if (LEGACY > 0) {
			const cacache = require('cacache');
			const legacy = path.join(root, 'legacy');
			for (let i = 0; i < LEGACY; i++)
				await cacache.put(legacy, `verdict:legacy-${i}`, `{"storedAt":${i}}`, {
					time: now - SPAN + Math.floor((i * SPAN) / LEGACY),
				});
			// The previous sweep: cacache's verify with a TTL filter, as pruneDiskCache called it.
			const l0 = process.hrtime.bigint();
			const c0 = process.cpuUsage();
			await cacache.verify(legacy, { filter: (entry) => now - entry.time <= TTL });
			const c = process.cpuUsage(c0);
			console.log(
				`previous sweep (cacache verify) on ${LEGACY} entries: ${secs(Number(process.hrtime.bigint() - l0) / 1e6)} wall, ${secs((c.user + c.system) / 1000)} CPU, on the node's critical path`,
			);
		}
	} finally {
		server.close();
		fs.rmSync(root, { recursive: true, force: true });
	}
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
