/** Jest runs TypeScript through ts-jest in transpile-only mode; `npm run typecheck` checks types. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The run's temp folder, removed at its end (test/support/tmp-run-setup.ts); each test file caches
	// judge verdicts in a folder of its own in there (test/support/cache-env.ts).
	globalSetup: '<rootDir>/test/support/tmp-run-setup.ts',
	globalTeardown: '<rootDir>/test/support/tmp-run-teardown.ts',
	setupFiles: ['<rootDir>/test/support/cache-env.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
	},
	testTimeout: 60000,
};
