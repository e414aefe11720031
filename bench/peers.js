'use strict';
/*
 * JavaScript peers for the metric bench, never dependencies of this package: they live in a cache
 * folder outside the repository (BENCH_PEERS_DIR, default ~/.cache/n8n-nodes-rag-eval/bench-peers),
 * installed from the npm registry on demand with `node bench/peers.js --install`. A bench skips
 * them, saying so, when they are absent.
 * - js-rouge: ROUGE-1/2 (`n`) and ROUGE-L (`l`), its defaults;
 * - promptfoo: its `bleu`, `gleu` and `rouge-n` assertions through the public
 *   `assertions.runAssertion` (how a promptfoo user scores a pair).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');
const { spawnSync } = require('node:child_process');

const PEERS = { 'js-rouge': '3.2.3', promptfoo: '0.123.1' };
const DIR =
	process.env.BENCH_PEERS_DIR || path.join(os.homedir(), '.cache/n8n-nodes-rag-eval/bench-peers');

/** The version in the package's own package.json (nested ones, e.g. dist/, have no name). */
function peerVersion(req, name) {
	let dir = path.dirname(req.resolve(name));
	for (;;) {
		const file = path.join(dir, 'package.json');
		if (fs.existsSync(file)) {
			const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
			if (pkg.name === name) return pkg.version;
		}
		if (path.dirname(dir) === dir) return 'unknown';
		dir = path.dirname(dir);
	}
}

/**
 * The installed peers as `{ name, version, metrics: { metric: async (response, groundTruth) =>
 * score } }`, plus the names missing; nothing is installed here.
 */
function loadPeers() {
	const found = [];
	const missing = [];
	const req = createRequire(path.join(DIR, 'package.json'));
	try {
		const rouge = req('js-rouge');
		found.push({
			name: 'js-rouge',
			version: peerVersion(req, 'js-rouge'),
			metrics: {
				rouge1: async (r, g) => rouge.n(r, g, { n: 1 }),
				rouge2: async (r, g) => rouge.n(r, g, { n: 2 }),
				rougeL: async (r, g) => rouge.l(r, g),
			},
		});
	} catch {
		missing.push('js-rouge');
	}
	try {
		process.env.PROMPTFOO_DISABLE_TELEMETRY ??= '1';
		process.env.PROMPTFOO_DISABLE_UPDATE ??= '1';
		const pf = req('promptfoo');
		const run = async (type, r, g) =>
			(
				await pf.assertions.runAssertion({
					assertion: { type, value: g, threshold: 0 },
					test: { vars: {} },
					providerResponse: { output: r },
				})
			).score;
		found.push({
			name: 'promptfoo',
			version: peerVersion(req, 'promptfoo'),
			metrics: {
				bleu: (r, g) => run('bleu', r, g),
				gleu: (r, g) => run('gleu', r, g),
				rouge1: (r, g) => run('rouge-n', r, g),
			},
		});
	} catch {
		missing.push('promptfoo');
	}
	return { dir: DIR, found, missing };
}

if (require.main === module && process.argv.includes('--install')) {
	fs.mkdirSync(DIR, { recursive: true });
	const specs = Object.entries(PEERS).map(([n, v]) => `${n}@${v}`);
	console.log(`installing ${specs.join(' ')} into ${DIR} (npm registry)`);
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const r = spawnSync(
		npm,
		['install', '--prefix', DIR, '--ignore-scripts', '--no-audit', '--no-fund', ...specs],
		{ stdio: 'inherit' },
	);
	process.exit(r.status ?? 1);
}

module.exports = { loadPeers, PEERS, PEERS_DIR: DIR };
