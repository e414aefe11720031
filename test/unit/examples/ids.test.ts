/**
 * Every id inside an example workflow is its own: node ids, and the ids n8n keys assignments by
 * (the Evaluation node's Set Metrics, Set / Edit Fields). Two assignments with one id make n8n's
 * editor treat them as one (the Evaluations-tab example once gave all its metrics one id).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const dir = path.resolve(__dirname, '../../../examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.workflow.json'));

/** The ids of every assignment (entries of an `assignments` list) below a value. */
function ids(value: unknown, at: string, out: { id: string; at: string }[] = []) {
	if (Array.isArray(value)) value.forEach((v, i) => ids(v, `${at}[${i}]`, out));
	else if (value && typeof value === 'object') {
		for (const [k, v] of Object.entries(value)) {
			if (k === 'assignments' && Array.isArray(v))
				v.forEach((a: { id?: unknown }, i) => {
					if (typeof a?.id === 'string') out.push({ id: a.id, at: `${at}.assignments[${i}]` });
				});
			else ids(v, `${at}.${k}`, out);
		}
	}
	return out;
}

describe('example workflow ids', () => {
	it.each(files)('%s: node and assignment ids are unique', (file) => {
		const wf = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
			nodes: { id: string; parameters?: unknown }[];
		};
		const found = [
			...wf.nodes.map((n, i) => ({ id: n.id, at: `nodes[${i}]` })),
			...ids(wf.nodes, 'nodes'),
		];
		const seen = new Map<string, string>();
		const twice = found.filter(({ id, at }) => {
			const first = seen.get(id);
			seen.set(id, first ?? at);
			return first !== undefined;
		});
		expect(twice).toEqual([]);
		expect(found.length).toBeGreaterThan(0);
	});

	it('the Evaluations-tab example sets several metrics, each with its own id', () => {
		const wf = JSON.parse(readFileSync(path.join(dir, 'evaluations-tab.workflow.json'), 'utf8'));
		const setMetrics = (wf.nodes as { name: string; parameters: Record<string, unknown> }[]).find(
			(n) => n.name === 'Set Metrics',
		);
		const assignments = ids(setMetrics?.parameters, 'Set Metrics');
		expect(assignments.length).toBeGreaterThan(1);
		expect(new Set(assignments.map((a) => a.id)).size).toBe(assignments.length);
	});
});
