// A stand-in for the n8n install tree: the packages scripts/n8n-install.js checks, small and
// without native code. sqlite3's main throws unless its binding file exists (as the real one
// does when unbuilt); an empty stand-in binding counts as built.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const PARTS = {
	n8n: (v) => ({
		'package.json': { name: 'n8n', version: v, main: 'index.js', bin: { n8n: './bin/n8n' } },
		'index.js': 'module.exports = {};\n',
		'bin/n8n': `#!/usr/bin/env node\nconsole.log(${JSON.stringify(v)});\n`,
	}),
	'n8n-core': (v) => ({
		'package.json': { name: 'n8n-core', version: v, main: 'dist/index' },
		'dist/index.js': 'module.exports = {};\n',
	}),
	'n8n-nodes-base': (v) => ({
		'package.json': { name: 'n8n-nodes-base', version: v, main: 'index.js' },
		'index.js': 'module.exports = {};\n',
	}),
	'n8n-workflow': () => ({
		'package.json': { name: 'n8n-workflow', version: '2.41.0', main: 'dist/cjs/index.js' },
		'dist/cjs/index.js': 'module.exports = {};\n',
	}),
	sqlite3: () => ({
		'package.json': { name: 'sqlite3', version: '5.1.7', main: './lib/sqlite3' },
		'lib/sqlite3.js':
			"const p = require('node:path').join(__dirname, '..', 'build', 'Release', 'node_sqlite3.node');\n" +
			"if (!require('node:fs').existsSync(p)) throw new Error('Could not locate the bindings file ' + p);\n" +
			'module.exports = {};\n',
		'build/Release/node_sqlite3.node': '',
	}),
	'isolated-vm': () => ({
		'package.json': { name: 'isolated-vm', version: '7.0.1', main: 'isolated-vm.js' },
		'isolated-vm.js': 'exports.Isolate = class { dispose() {} };\n',
	}),
};

/** Writes the stand-in packages into `<dir>/node_modules`, leaving out those in `omit`. */
function writeFakeN8n(dir, version, { omit = [] } = {}) {
	for (const [name, files] of Object.entries(PARTS)) {
		if (omit.includes(name)) continue;
		for (const [rel, content] of Object.entries(files(version))) {
			const file = path.join(dir, 'node_modules', name, rel);
			fs.mkdirSync(path.dirname(file), { recursive: true });
			fs.writeFileSync(
				file,
				typeof content === 'string' ? content : JSON.stringify(content, null, 2),
			);
		}
	}
}

module.exports = { writeFakeN8n, PARTS };
