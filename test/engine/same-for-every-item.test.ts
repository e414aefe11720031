/**
 * A parameter whose saved value holds no expression is the same for every item, so the item loop
 * reads it once (threshold, a metric's options and its option-typed params) instead of once a row:
 * in the n8n process each getNodeParameter call looks the node type up and validates the value.
 * Checked on the real engine: calls to getNodeParameter counted by name, and the same Scores as
 * with equivalent per-item expressions, which are still read per row and may differ by row.
 */
import { ExecuteContext } from 'n8n-core';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runWorkflow, singleNode } from '../support/engine';

const rows = Array.from({ length: 12 }, (_, i) => ({
	json: {
		response: `The cat sat on mat number ${i}.`,
		expected_response: 'The cat sat on the mat.',
		limit: i % 2 ? 0.9 : 0.1,
	} as IDataObject,
}));

/** Runs ROUGE with `parameters`, counting getNodeParameter calls by parameter name. */
async function rouge(parameters: INodeParameters) {
	const calls: Record<string, number> = {};
	// getNodeParameter is an arrow set in the constructor; it calls this method.
	const proto = ExecuteContext.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
	const original = proto._getNodeParameter;
	const spy = jest.spyOn(proto, '_getNodeParameter').mockImplementation(function (
		this: ExecuteContext,
		...args: unknown[]
	) {
		const name = String(args[0]);
		calls[name] = (calls[name] ?? 0) + 1;
		return original.apply(this, args);
	});
	try {
		const r = await runWorkflow(singleNode('n8n-nodes-rag-eval.evalRouge', parameters), {
			startItems: rows,
		});
		expect(r.nodeError('Node')).toBeUndefined();
		const scores = r.output('Node').map((o) => Object.values(o.eval as IDataObject)[0]);
		return { scores: scores as IDataObject[], calls };
	} finally {
		spy.mockRestore();
	}
}

describe('parameters without an expression are read once for all items', () => {
	it('threshold, options and an option-typed param: one read each, the same Scores', async () => {
		const fixed = await rouge({ threshold: 0.5, rougeType: 'rougeL', options: {} });
		expect(fixed.calls.threshold).toBe(1);
		expect(fixed.calls.options).toBeLessThanOrEqual(2);
		expect(fixed.calls.rougeType).toBe(1);
		const viaExpressions = await rouge({
			threshold: '={{ 0.5 }}',
			rougeType: '={{ "rougeL" }}',
			options: {},
		});
		expect(viaExpressions.calls.threshold).toBe(rows.length);
		expect(viaExpressions.calls.rougeType).toBe(rows.length);
		const strip = (s: IDataObject[]) => s.map(({ latencyMs: _l, ...rest }) => rest);
		expect(strip(fixed.scores)).toEqual(strip(viaExpressions.scores));
		expect(fixed.scores.every((s) => s.threshold === 0.5)).toBe(true);
	});

	it('an expression over the item is still read per row and may differ by row', async () => {
		const r = await rouge({ threshold: '={{ $json.limit }}' });
		expect(r.calls.threshold).toBe(rows.length);
		expect(r.scores.map((s) => s.threshold)).toEqual(rows.map((x) => x.json.limit));
	});
});
