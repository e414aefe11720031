#!/usr/bin/env node
// Runs every benchmark in bench/ against the built library (build first with `npm run build`).
// Each prints its own figures and ratios against a reference measured in the same run.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(__dirname, '../bench');
// `npm run bench -- metrics --quick`: the first argument picks benches by name, the rest go to them.
const only = process.argv[2];
const rest = process.argv.slice(3);
for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.bench.js')).sort()) {
	if (only && !f.includes(only)) continue;
	console.log(`\n== ${f}`);
	const r = spawnSync(process.execPath, ['--expose-gc', path.join(dir, f), ...rest], { stdio: 'inherit' });
	if (r.status !== 0) process.exitCode = 1;
}
