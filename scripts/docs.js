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

const readmePath = path.join(root, 'README.md');
const current = fs.readFileSync(readmePath, 'utf8');
const next = replaceBetween(current, 'nodes-table', nodesTable());
if (process.argv.includes('--check')) {
	if (next !== current) {
		console.error('README.md node tables are out of date: run `npm run build && node scripts/docs.js`');
		process.exit(1);
	}
	console.log('README.md node tables are up to date');
} else {
	fs.writeFileSync(readmePath, next);
	console.log('README.md node tables written from the registries');
}
