#!/usr/bin/env node
// Derives the node tables of docs/nodes.md from the declarations (declare once): run after
// `npm run build`. `node scripts/docs.js --check` fails when they are out of date.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lib = require(path.join(root, 'dist/src/index.js'));
const pkg = require(path.join(root, 'package.json'));

const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const pascal = (id) => id.split(/[_-]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');

function nodesTable() {
	const lines = [lib.evaluatorTables(lib.metricRegistry, lib.judgeRegistry, lib.safetyRegistry, lib.embeddingRegistry)];
	lines.push('', '### Pipeline nodes', '');
	lines.push('| node | what it does |', '| --- | --- |');
	for (const rel of pkg.n8n.nodes) {
		const Cls = require(path.join(root, rel))[path.basename(rel, '.node.js')];
		const d = new Cls().description;
		if (d.name.startsWith('eval') && lib.metricRegistry.some((m) => `eval${pascal(m.id)}` === d.name)) continue;
		if (d.name === 'evalRetrievalMetrics') continue; // listed with the metrics it computes
		if (lib.embeddingRegistry.some((m) => `eval${pascal(m.id)}` === d.name)) continue; // the embedding metrics' table
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

// Where each generated block lives: the README before the docs split, docs/ pages after it.
const targets = [
	{ file: 'README.md', marker: 'nodes-table', body: nodesTable },
	{ file: 'docs/nodes.md', marker: 'nodes-table', body: nodesTable },
];
let stale = false;
let written = 0;
for (const t of targets) {
	const file = path.join(root, t.file);
	if (!fs.existsSync(file)) continue;
	const current = fs.readFileSync(file, 'utf8');
	if (!current.includes(`<!-- ${t.marker}:start -->`)) continue;
	const next = replaceBetween(current, t.marker, t.body());
	written++;
	if (next === current) continue;
	stale = true;
	if (!process.argv.includes('--check')) fs.writeFileSync(file, next);
}
/**
 * Links between the README and docs/ pages: every relative link names a file that exists and,
 * with `#anchor`, a heading or `<a id>` on that page (GitHub's heading slugs). The README's split
 * into pages must not leave a reader at a dead end.
 */
function linkProblems() {
	const pages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
	const anchorsOf = new Map();
	const anchors = (file) => {
		if (!anchorsOf.has(file)) {
			const text = fs.readFileSync(path.join(root, file), 'utf8');
			const set = new Set();
			let inCode = false;
			for (const line of text.split('\n')) {
				if (line.startsWith('```')) inCode = !inCode;
				if (inCode) continue;
				const h = /^#{1,6} (.*)$/.exec(line);
				if (h) set.add(h[1].trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
				for (const m of line.matchAll(/<a id="([^"]+)"><\/a>/g)) set.add(m[1]);
			}
			anchorsOf.set(file, set);
		}
		return anchorsOf.get(file);
	};
	const problems = [];
	for (const page of pages) {
		const text = fs.readFileSync(path.join(root, page), 'utf8');
		let inCode = false;
		for (const line of text.split('\n')) {
			if (line.startsWith('```')) inCode = !inCode;
			if (inCode) continue;
			for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
				const target = m[1];
				if (/^[a-z]+:/.test(target)) continue;
				const [file, anchor] = target.split('#');
				const rel = file ? path.normalize(path.join(path.dirname(page), file)) : page;
				if (!fs.existsSync(path.join(root, rel))) {
					problems.push(`${page}: ${target}: no such file`);
					continue;
				}
				if (anchor && (rel === 'README.md' || rel.startsWith('docs/')) && rel.endsWith('.md') && !anchors(rel).has(anchor))
					problems.push(`${page}: ${target}: no such anchor`);
			}
		}
	}
	return problems;
}

const broken = linkProblems();
if (broken.length > 0) {
	console.error(`Broken links in README.md and docs/:\n${broken.join('\n')}`);
	if (process.argv.includes('--check')) process.exit(1);
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
