/**
 * `npm run release` (scripts/release.js): the changelog's Unreleased entries move under the new
 * version, the version is set in package.json and package-lock.json, committed and tagged; run for
 * real on a throwaway git repository holding a copy of the script.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/* eslint-disable @typescript-eslint/no-require-imports */
const release = require('../../../scripts/release') as {
	nextVersion(current: string, bump: string): string;
	releaseChangelog(text: string, version: string, date: string): string;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const LOG = `# Changelog\n\nIntro.\n\n## Unreleased\n\n- Fixed a thing.\n- Added another.\n\n## 0.1.0 (2026-01-02)\n\n- First.\n`;

describe('release: versions', () => {
	it('bumps patch, minor and major, or takes a version given', () => {
		expect(release.nextVersion('1.2.3', 'patch')).toBe('1.2.4');
		expect(release.nextVersion('1.2.3', 'minor')).toBe('1.3.0');
		expect(release.nextVersion('1.2.3', 'major')).toBe('2.0.0');
		expect(release.nextVersion('1.2.3', '1.5.0')).toBe('1.5.0');
		expect(() => release.nextVersion('1.2.3', 'huge')).toThrow(/unknown bump/);
	});
});

describe('release: the changelog', () => {
	it('moves the Unreleased entries under the version and leaves Unreleased empty', () => {
		const out = release.releaseChangelog(LOG, '0.2.0', '2026-03-04');
		expect(out).toBe(
			`# Changelog\n\nIntro.\n\n## Unreleased\n\n## 0.2.0 (2026-03-04)\n\n- Fixed a thing.\n- Added another.\n\n## 0.1.0 (2026-01-02)\n\n- First.\n`,
		);
	});
	it('refuses an empty Unreleased section and a version already there', () => {
		const empty = release.releaseChangelog(LOG, '0.2.0', '2026-03-04');
		expect(() => release.releaseChangelog(empty, '0.3.0', '2026-03-05')).toThrow(/lists nothing/);
		expect(() => release.releaseChangelog(LOG, '0.1.0', '2026-03-05')).toThrow(/already has/);
	});
});

describe('npm run release on a git repository', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'release-test-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('commits CHANGELOG.md, package.json and package-lock.json and tags vX.Y.Z', () => {
		mkdirSync(join(dir, 'scripts'));
		copyFileSync(join(__dirname, '../../../scripts/release.js'), join(dir, 'scripts/release.js'));
		const pkg = { name: 'release-probe', version: '0.1.0', private: true };
		writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
		writeFileSync(
			join(dir, 'package-lock.json'),
			JSON.stringify(
				{
					name: pkg.name,
					version: pkg.version,
					lockfileVersion: 3,
					requires: true,
					packages: { '': pkg },
				},
				null,
				2,
			) + '\n',
		);
		writeFileSync(join(dir, 'CHANGELOG.md'), LOG);
		const git = (...args: string[]) =>
			execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
				cwd: dir,
				encoding: 'utf8',
			}).trim();
		git('init', '-q');
		git('add', '.');
		git('commit', '-qm', 'start');
		const r = spawnSync(process.execPath, ['scripts/release.js', 'minor'], {
			cwd: dir,
			encoding: 'utf8',
			env: {
				...process.env,
				GIT_AUTHOR_NAME: 't',
				GIT_AUTHOR_EMAIL: 't@example.invalid',
				GIT_COMMITTER_NAME: 't',
				GIT_COMMITTER_EMAIL: 't@example.invalid',
			},
		});
		expect(r.stderr).toBe('');
		expect(r.status).toBe(0);
		expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version).toBe('0.2.0');
		const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
		expect([lock.version, lock.packages[''].version]).toEqual(['0.2.0', '0.2.0']);
		expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(
			/## Unreleased\n\n## 0\.2\.0 \(\d{4}-\d\d-\d\d\)\n\n- Fixed a thing\./,
		);
		expect(git('tag', '--list')).toBe('v0.2.0');
		expect(git('log', '-1', '--format=%s')).toBe('Release 0.2.0');
		expect(git('status', '--porcelain')).toBe('');
		// Nothing left to release: a second run refuses and changes nothing.
		const again = spawnSync(process.execPath, ['scripts/release.js', 'patch'], {
			cwd: dir,
			encoding: 'utf8',
		});
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(/lists nothing/);
		expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version).toBe('0.2.0');
	});
});
