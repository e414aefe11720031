#!/usr/bin/env node
// Build: compile TypeScript to dist/, then place beside every node and credential its SVG icons
// and codex file (the .node.json n8n reads for the node panel) and its output schemas, and copy
// runtime data files.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const pkg = require(path.join(root, 'package.json'));

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
	cwd: root,
	stdio: 'inherit',
});

// Runtime data under src/ (tokenizer parameters, character classes) travels with the code.
function copyAssets(fromDir, toDir) {
	if (!fs.existsSync(fromDir)) return;
	for (const entry of fs.readdirSync(fromDir, { withFileTypes: true })) {
		const from = path.join(fromDir, entry.name);
		const to = path.join(toDir, entry.name);
		if (entry.isDirectory()) copyAssets(from, to);
		else if (!entry.name.endsWith('.ts')) {
			fs.mkdirSync(toDir, { recursive: true });
			fs.copyFileSync(from, to);
		}
	}
}
copyAssets(path.join(root, 'src'), path.join(dist, 'src'));

/**
 * The README section a node's documentation link opens (the package page on npm shows the
 * README): its group on the front page, whose text and links never change when a node is added.
 */
function nodeGroup(name) {
	const lib = require(path.join(dist, 'src', 'index.js'));
	const pascal = (id) => id.split(/[_-]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
	const metrics = new Set(lib.metricRegistry.map((m) => `eval${pascal(m.id)}`));
	if (metrics.has(name) || name === 'evalRetrievalMetrics') return 'deterministic-metrics';
	if (name.startsWith('judge') && name !== 'judgeAgreement') return 'llm-judges';
	const safety = ['evalContentSafety', 'evalProtectedMaterial', 'evalIndirectAttack', 'evalAttackInjector', 'evalJailbreakComparison'];
	if (safety.includes(name)) return 'risk-and-safety';
	return 'pipeline-nodes';
}

/** A node version as n8n spells it in a schema path: 2 -> 2.0.0, 1.1 -> 1.1.0. */
function schemaVersion(v) {
	return String(v).split('.').concat(['0', '0']).slice(0, 3).join('.');
}

const icons = path.join(root, 'nodes', 'icons');
function copyIcon(ref, toDir) {
	for (const variant of [ref.light, ref.dark]) {
		if (!variant) continue;
		const file = variant.replace(/^file:/, '');
		fs.copyFileSync(path.join(icons, file), path.join(toDir, file));
	}
}

// The codex (category and search words) is declared once, in nodes/shared/codex.ts; each node
// class says what it is found by (its static `search`). Only the documentation link is added here.
const { nodeCodex } = require(path.join(dist, 'nodes', 'shared', 'codex.js'));
// The README as the homepage shows it (the repository page), without the homepage's own anchor.
const readmeUrl = pkg.homepage.replace(/#.*$/, '');

for (const rel of pkg.n8n.nodes) {
	const file = path.join(root, rel);
	const Cls = require(file)[path.basename(file, '.node.js')];
	const node = new Cls();
	const d = node.description;
	const dir = path.dirname(file);
	copyIcon(d.icon, dir);
	if (!Cls.search) throw new Error(`${rel}: the node class declares no static search (nodes/shared/codex.ts)`);
	const codex = {
		node: `${pkg.name}.${d.name}`,
		nodeVersion: '1.0',
		codexVersion: '1.0',
		...nodeCodex(d.displayName, Cls.search),
		resources: {
			primaryDocumentation: [{ url: `${readmeUrl}#${nodeGroup(d.name)}` }],
		},
	};
	fs.writeFileSync(file.replace(/\.js$/, '.json'), JSON.stringify(codex, null, '\t') + '\n');
	// The output schemas the editor shows before a run (nodes/shared/outputSchema.ts), served by
	// n8n from the node's folder: __schema__/v1.0.0.json and __schema__/v1.0.0/<operation>.json.
	// A metric, judge or safety node declares its schema (its class's static outputSchema); every
	// other node's is committed beside its source, written by test/engine/output-schemas.test.ts.
	const schemas = path.join(root, path.relative(dist, dir), '__schema__');
	if (Cls.outputSchema) {
		fs.mkdirSync(path.join(dir, '__schema__'), { recursive: true });
		fs.writeFileSync(path.join(dir, '__schema__', 'v1.0.0.json'), JSON.stringify(Cls.outputSchema, null, '\t') + '\n');
	} else if (fs.existsSync(schemas)) fs.cpSync(schemas, path.join(dir, '__schema__'), { recursive: true });
	else throw new Error(`${rel}: no output schema in ${path.relative(root, schemas)} (test/engine/output-schemas.test.ts writes it)`);
	// n8n asks for the schema of the node's own version (/schemas/<type>/2.0.0.json for Eval
	// Dataset v2, the version a new node gets). Our versions change defaults, not the output, so
	// every version a node declares is served the same schema.
	const versions = (Array.isArray(d.version) ? d.version : [d.version]).map(schemaVersion);
	for (const v of versions.filter((x) => x !== '1.0.0')) {
		const from = path.join(dir, '__schema__');
		fs.copyFileSync(path.join(from, 'v1.0.0.json'), path.join(from, `v${v}.json`));
		if (fs.existsSync(path.join(from, 'v1.0.0')))
			fs.cpSync(path.join(from, 'v1.0.0'), path.join(from, `v${v}`), { recursive: true });
	}
}
for (const rel of pkg.n8n.credentials) {
	const file = path.join(root, rel);
	const Cls = require(file)[path.basename(file, '.credentials.js')];
	const cred = new Cls();
	if (cred.icon) copyIcon(cred.icon, path.dirname(file));
}
console.log(`built ${pkg.n8n.nodes.length} nodes and ${pkg.n8n.credentials.length} credentials into dist/`);
