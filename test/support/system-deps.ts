/**
 * Tests that need a system package (redis-server, chromium) run when it is there, are skipped
 * with the reason printed when it is missing on a developer's machine, and fail under CI, where
 * scripts/system-deps.sh must have installed it: CI never skips them.
 */
import { spawnSync } from 'node:child_process';

/** CI is set and not "false" / "0" (the rule scripts/system-deps.sh applies too). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
	const v = (env.CI ?? '').trim().toLowerCase();
	return v !== '' && v !== '0' && v !== 'false';
}

/** True when `command --version` runs (the program is on PATH). */
export function commandRuns(command: string, args: string[] = ['--version']): boolean {
	return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/**
 * `describe(name, fn)` when the dependency is available; otherwise a skipped block whose title
 * says why (and a warning on the console), or under CI a block whose one test fails with the
 * reason.
 */
export function describeWithSystemDep(
	name: string,
	dep: { available: boolean; missing: string },
	fn: () => void,
): void {
	if (dep.available) {
		describe(name, fn);
		return;
	}
	const why = `${dep.missing} (scripts/system-deps.sh installs it as root)`;
	if (isCi()) {
		describe(name, () => {
			it('has its system dependency (CI never skips it)', () => {
				throw new Error(`${why}; CI=${process.env.CI} does not allow skipping these tests.`);
			});
		});
		return;
	}
	console.warn(`Skipping "${name}": ${why}.`);
	describe.skip(`${name} [skipped: ${dep.missing}]`, fn);
}
