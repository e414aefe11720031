/**
 * Every example workflow is what examples/generate.js writes: an edit made to a workflow file by
 * hand (or a generator change not run) would be lost, or shipped unseen, on the next run.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

describe('example workflows', () => {
	it('are byte for byte what examples/generate.js writes', () => {
		const out = execFileSync(
			process.execPath,
			[path.join(ROOT, 'examples/generate.js'), '--check'],
			{
				cwd: ROOT,
				encoding: 'utf8',
			},
		);
		expect(out).toMatch(/example workflows are what examples\/generate\.js writes/);
	});
});
