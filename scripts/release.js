#!/usr/bin/env node
// `npm run release -- <patch|minor|major|X.Y.Z> [--no-git]`: the one command that makes a release.
// Moves CHANGELOG.md's "## Unreleased" entries under "## X.Y.Z (YYYY-MM-DD)", sets the version in
// package.json and package-lock.json (npm version), commits both and tags vX.Y.Z. Pushing the tag
// (`git push --follow-tags`) starts .github/workflows/publish.yml, which publishes after the tests.
// Refuses an empty Unreleased section, a dirty work tree and a version that does not move up
// (the version package.json already has is taken once, for a first release never published).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..');
const CHANGELOG = path.join(REPO, 'CHANGELOG.md');
const UNRELEASED = '## Unreleased';

/** X.Y.Z after `bump` (patch, minor, major, or an explicit X.Y.Z) of `current`. */
function nextVersion(current, bump) {
	const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(current);
	if (!m) throw new Error(`package.json version "${current}" is not X.Y.Z`);
	const [maj, min, pat] = m.slice(1).map(Number);
	if (bump === 'patch') return `${maj}.${min}.${pat + 1}`;
	if (bump === 'minor') return `${maj}.${min + 1}.0`;
	if (bump === 'major') return `${maj + 1}.0.0`;
	if (/^\d+\.\d+\.\d+$/.test(bump)) return bump;
	throw new Error(`unknown bump "${bump}": patch, minor, major or X.Y.Z`);
}

/** The changelog with the Unreleased entries under a section of their own for `version`. */
function releaseChangelog(text, version, date) {
	const start = text.indexOf(`${UNRELEASED}\n`);
	if (start < 0) throw new Error(`CHANGELOG.md has no "${UNRELEASED}" section`);
	const bodyStart = start + UNRELEASED.length + 1;
	const next = text.indexOf('\n## ', bodyStart);
	const body = text.slice(bodyStart, next < 0 ? text.length : next + 1);
	if (!/^\s*[-*] /m.test(body))
		throw new Error('the Unreleased section of CHANGELOG.md lists nothing: nothing to release');
	if (new RegExp(`^## ${version.replace(/\./g, '\\.')} `, 'm').test(text))
		throw new Error(`CHANGELOG.md already has a section for ${version}`);
	return `${text.slice(0, bodyStart)}\n## ${version} (${date})\n${body.replace(/^\n+/, '\n')}${
		next < 0 ? '' : text.slice(next + 1)
	}`;
}

function compare(a, b) {
	const pa = a.split('.').map(Number);
	const pb = b.split('.').map(Number);
	for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
	return 0;
}

function main(argv) {
	const bump = argv.find((a) => !a.startsWith('--'));
	const git = !argv.includes('--no-git');
	if (!bump) throw new Error('usage: npm run release -- <patch|minor|major|X.Y.Z> [--no-git]');
	const run = (cmd, args) => execFileSync(cmd, args, { cwd: REPO, encoding: 'utf8' }).trim();
	if (git && run('git', ['status', '--porcelain', '--untracked-files=no']))
		throw new Error('the work tree has uncommitted changes: commit them first');
	const current = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
	const version = nextVersion(current, bump);
	const order = compare(version, current);
	if (order < 0) throw new Error(`${version} is below the current ${current}`);
	const date = new Date().toISOString().slice(0, 10);
	const text = releaseChangelog(fs.readFileSync(CHANGELOG, 'utf8'), version, date);
	if (order > 0) run('npm', ['version', version, '--no-git-tag-version', '--ignore-scripts']);
	fs.writeFileSync(CHANGELOG, text);
	if (git) {
		run('git', ['add', 'CHANGELOG.md', 'package.json', 'package-lock.json']);
		run('git', ['commit', '-m', `Release ${version}`]);
		run('git', ['tag', '-a', `v${version}`, '-m', `Release ${version}`]);
	}
	process.stdout.write(
		`${version}: CHANGELOG.md and package.json${git ? `, committed and tagged v${version}; push with: git push --follow-tags` : ' (not committed)'}\n`,
	);
}

module.exports = { nextVersion, releaseChangelog };

if (require.main === module) {
	try {
		main(process.argv.slice(2));
	} catch (e) {
		process.stderr.write(`[release] ${e.message}\n`);
		process.exit(1);
	}
}
