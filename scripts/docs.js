#!/usr/bin/env node
// Derives the README's node and library tables from the declarations (declare once): run after
// `npm run build`. `node scripts/docs.js --check` fails when the README is out of date.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lib = require(path.join(root, 'dist/src/index.js'));
const pkg = require(path.join(root, 'package.json'));

const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const pascal = (id) => id.split(/[_-]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');

function nodesTable() {
	const lines = [lib.evaluatorTables(lib.metricRegistry, lib.judgeRegistry, lib.safetyRegistry)];
	lines.push('', '### Pipeline nodes', '');
	lines.push('| node | what it does |', '| --- | --- |');
	for (const rel of pkg.n8n.nodes) {
		const Cls = require(path.join(root, rel))[path.basename(rel, '.node.js')];
		const d = new Cls().description;
		if (d.name.startsWith('eval') && lib.metricRegistry.some((m) => `eval${pascal(m.id)}` === d.name)) continue;
		if (d.name === 'evalRetrievalMetrics') continue; // listed with the metrics it computes
		if (d.name === 'evalRetrievalMetrics') continue;
		if (d.name.startsWith('judge') && d.name !== 'judgeAgreement') continue;
		lines.push(`| <a id="${d.name.toLowerCase()}"></a>**${esc(d.displayName)}** | ${esc(d.description)} |`);
	}
	return lines.join('\n');
}

function replaceBetween(text, marker, body) {
	const start = `<!-- ${marker}:start -->`;
	const end = `<!-- ${marker}:end -->`;
	const a = text.indexOf(start);
	const b = text.indexOf(end);
	if (a < 0 || b < 0) throw new Error(`README lacks the ${marker} markers`);
	return text.slice(0, a + start.length) + '\n' + body + '\n' + text.slice(b);
}

/**
 * The compact list on the README's front page: every node with its anchor (the node panel's
 * documentation links point at `#<node name>` on the package page, which shows the README) and
 * its one line, linking to the full tables in docs/nodes.md.
 */
function nodesList() {
	const lines = ['| node | what it does |', '| --- | --- |'];
	for (const rel of pkg.n8n.nodes) {
		const Cls = require(path.join(root, rel))[path.basename(rel, '.node.js')];
		const d = new Cls().description;
		lines.push(`| <a id="${d.name.toLowerCase()}"></a>**${esc(d.displayName)}** | ${esc(d.description)} |`);
	}
	return lines.join('\n');
}

// Where each generated block lives: the README before the docs split, docs/ pages after it.
const targets = [
	{ file: 'README.md', marker: 'nodes-table', body: nodesTable },
	{ file: 'docs/nodes.md', marker: 'nodes-table', body: nodesTable },
	{ file: 'README.md', marker: 'nodes-list', body: nodesList },
];
let stale = false;
let written = 0;
for (const t of targets) {
	const file = path.join(root, t.file);
	if (!fs.existsSync(file)) continue;
	const current = fs.readFileSync(file, 'utf8');
	if (!current.includes(`<!-- ${t.marker}:start -->`)) continue;
	// Node rows anchor only once per page: the full tables drop theirs where the list has them.
	let body = t.body();
	if (t.file !== 'README.md') body = body.replace(/<a id="[^"]+"><\/a>/g, '');
	const next = replaceBetween(current, t.marker, body);
	written++;
	if (next === current) continue;
	stale = true;
	if (!process.argv.includes('--check')) fs.writeFileSync(file, next);
}
if (written === 0) {
	console.error('no generated node tables found (README.md or docs/nodes.md markers)');
	process.exit(1);
}
if (process.argv.includes('--check')) {
	if (stale) {
		console.error('Node tables are out of date: run `npm run build && node scripts/docs.js`');
		process.exit(1);
	}
	console.log('README.md and docs/ node tables are up to date');
} else {
	console.log('node tables written from the registries');
}
