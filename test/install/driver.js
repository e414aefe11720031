#!/usr/bin/env node
// One run of ensureN8n with the stand-in npm (test/install/fake-npm.js <mode>), in whatever
// RAG_EVAL_CACHE the caller set:   node driver.js <mode> [stallMs]
'use strict';

const path = require('node:path');
const n8n = require('../../scripts/n8n-install');

const [mode, stall] = process.argv.slice(2);
n8n
	.ensureN8n({
		installCommand: [process.execPath, path.join(__dirname, 'fake-npm.js'), mode],
		stallMs: stall ? Number(stall) : undefined,
	})
	.then(
		() => process.exit(0),
		(e) => {
			process.stderr.write(`${e.message}\n`);
			process.exit(1);
		},
	);
