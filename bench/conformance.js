'use strict';
// The metric conformance vectors kept in the repository (test/fixtures/conformance, see its README).
const fs = require('fs');
const path = require('path');

const DIR = path.resolve(__dirname, '../test/fixtures/conformance');

/** Reads one JSONL file of the conformance folder. */
function readConformance(file) {
	return fs
		.readFileSync(path.join(DIR, file), 'utf8')
		.split('\n')
		.filter((l) => l.trim() !== '')
		.map((l) => JSON.parse(l));
}

module.exports = { CONFORMANCE_DIR: DIR, readConformance };
