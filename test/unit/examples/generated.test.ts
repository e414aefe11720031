/**
 * Every example workflow is what examples/generate.js writes: an edit made to a workflow file by
 * hand (or a generator change not run) would be lost, or shipped unseen, on the next run.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
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

	// n8n refuses to import a workflow whose nodes share an id (the generator's short-key ids drop
	// two hex digits, so two keys can meet): checked here rather than first at import in the E2E.
	it('give every node of a workflow its own id', () => {
		const dir = path.join(ROOT, 'examples');
		const files = fs.readdirSync(dir).filter((f) => f.endsWith('.workflow.json'));
		expect(files.length).toBeGreaterThan(10);
		for (const f of files) {
			const wf = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as {
				nodes: { id: string; name: string }[];
			};
			const seen = new Map<string, string>();
			for (const n of wf.nodes) {
				expect([f, n.name, seen.get(n.id)]).toEqual([f, n.name, undefined]);
				seen.set(n.id, n.name);
			}
		}
	});
});
