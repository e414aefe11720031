import { runWorkflow } from '../support/engine';

describe('engine harness', () => {
	it('runs n8n base nodes through WorkflowExecute', async () => {
		const r = await runWorkflow(
			{
				nodes: [
					{
						id: '1',
						name: 'Start',
						type: 'n8n-nodes-base.manualTrigger',
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
					},
					{
						id: '2',
						name: 'Pass',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [200, 0],
						parameters: {},
					},
				],
				connections: { Start: { main: [[{ node: 'Pass', type: 'main', index: 0 }]] } },
			},
			{ startItems: [{ json: { a: 1 } }, { json: { a: 2 } }] },
		);
		expect(r.output('Pass')).toEqual([{ a: 1 }, { a: 2 }]);
	});
});
