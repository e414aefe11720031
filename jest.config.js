/** Jest runs TypeScript through ts-jest in transpile-only mode; `npm run typecheck` checks types. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// Each test file caches judge verdicts in its own temp folder (test/support/cache-env.ts).
	setupFiles: ['<rootDir>/test/support/cache-env.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
	},
	testTimeout: 60000,
};
