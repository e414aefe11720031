/**
 * Issue 44 item 6 on the real engine: Eval Dataset after a Manual Trigger. Version 2 (what the
 * editor adds now) starts on Pasted Text, so a new node runs after any trigger; version 1 (saved
 * workflows) still reads Incoming Items, and a trigger's empty item gets a notice saying where
 * rows can come from. Subtitles name the choice, not the stored value.
 */
import type { INodeTypeDescription } from 'n8n-workflow';
import { EvalAggregate } from '../../nodes/EvalAggregate/EvalAggregate.node';
import { EvalDataset } from '../../nodes/EvalDataset/EvalDataset.node';
import { runWorkflow, singleNode } from '../support/engine';

const TEXT = '{"request": "How long is the refund window?", "response": "30 days."}';

function atVersion(parameters: Record<string, unknown>, typeVersion: number) {
	const wf = singleNode('n8n-nodes-rag-eval.evalDataset', parameters as never);
	wf.nodes[1].typeVersion = typeVersion;
	return wf;
}

/** A subtitle expression as the editor evaluates it, for one parameter value. */
function subtitle(d: INodeTypeDescription, parameters: Record<string, unknown>): string {
	const expr = String(d.subtitle)
		.replace(/^=\{\{\s*/, '')
		.replace(/\s*\}\}$/, '');
	return new Function('$parameter', `return ${expr};`)(parameters) as string;
}

describe('Eval Dataset, first screen', () => {
	it('version 2 reads pasted text by default: a new node runs after a Manual Trigger', async () => {
		const d = new EvalDataset().description;
		expect(d.defaultVersion).toBe(2);
		const r = await runWorkflow(atVersion({ text: TEXT }, 2));
		expect(r.nodeError('Node')).toBeUndefined();
		expect(r.output('Node', 0).map((x) => x.request)).toEqual(['How long is the refund window?']);
	});

	it('version 2 with nothing pasted yet: an error that says what to paste', async () => {
		const r = await runWorkflow(atVersion({}, 2));
		expect(r.nodeError('Node')).toBe('No rows pasted yet');
		const error = r.run.data.resultData.runData.Node[0].error as { description?: string };
		expect(error.description).toMatch(/^Paste your rows into Dataset: /);
	});

	it("version 1 keeps Incoming Items: a trigger's empty item is one invalid row and a notice", async () => {
		const r = await runWorkflow(atVersion({}, 1));
		expect(r.output('Node', 0)).toEqual([]);
		expect(r.output('Node', 1)).toHaveLength(1);
		const hints = r.run.data.resultData.runData.Node[0].hints ?? [];
		expect(hints.map((h) => h.message)).toContainEqual(
			expect.stringMatching(/^The incoming items are empty \(a trigger sends one empty item\)/),
		);
		// Rows from items carry no such notice.
		const rows = await runWorkflow(atVersion({}, 1), {
			startItems: [{ json: { request: 'q', response: 'a' } }],
		});
		expect(
			(rows.run.data.resultData.runData.Node[0].hints ?? []).map((h) => h.message),
		).not.toContainEqual(expect.stringMatching(/^The incoming items are empty/));
	});

	it('subtitles name the choice, not its stored value', () => {
		const dataset = new EvalDataset().description;
		expect(subtitle(dataset, { source: 'text' })).toBe('from pasted text');
		expect(subtitle(dataset, { source: 'items' })).toBe('from incoming items');
		expect(subtitle(dataset, { source: 'binary' })).toBe('from a file');
		const aggregate = new EvalAggregate().description;
		expect(subtitle(aggregate, { output: 'summary' })).toBe('run summary');
		expect(subtitle(aggregate, { output: 'partial' })).toBe('partial to merge later');
	});

	it('the first notice is short', () => {
		const notices = new EvalDataset().description.properties.filter((p) => p.type === 'notice');
		expect(notices).toHaveLength(1);
		expect(notices[0].displayName.length).toBeLessThanOrEqual(140);
	});
});
