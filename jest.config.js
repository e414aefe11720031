/** Jest runs TypeScript through ts-jest in transpile-only mode; `npm run typecheck` checks types. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
	},
	testTimeout: 60000,
};
