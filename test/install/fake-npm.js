#!/usr/bin/env node
// Stands in for `npm install n8n@<version>` in the recovery checks (run in the install folder):
//   complete           writes the stand-in n8n tree and exits 0
//   partial-then-hang  writes part of it, touches $FAKE_NPM_SIGNAL, then blocks (to be killed)
//   stall-first        blocks silently on its first call (a stalled install), completes after
//   stall-always       blocks silently, every time
// Each call is counted in $FAKE_NPM_COUNTER.
'use strict';

const fs = require('node:fs');
const { writeFakeN8n } = require('./fake-n8n');

const mode = process.argv[2];
const version = process.env.N8N_VERSION || '2.41.1';
const counter = process.env.FAKE_NPM_COUNTER;
const calls = counter && fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0;
if (counter) fs.writeFileSync(counter, String(calls + 1));

// Blocks this thread for good: no CPU, no output, no I/O (a hung download looks like this).
const block = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);

if (mode === 'complete' || (mode === 'stall-first' && calls > 0)) {
	console.log(`added 3 packages (stand-in for n8n@${version})`);
	writeFakeN8n(process.cwd(), version);
} else if (mode === 'partial-then-hang') {
	writeFakeN8n(process.cwd(), version, { omit: ['n8n-nodes-base', 'sqlite3', 'isolated-vm'] });
	fs.writeFileSync(process.env.FAKE_NPM_SIGNAL, 'partial\n');
	block();
} else if (mode === 'stall-first' || mode === 'stall-always') {
	block();
} else {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
