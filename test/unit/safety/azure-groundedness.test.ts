/**
 * Groundedness answered by Azure AI Content Safety: our share -> 1-5 rule at its boundaries, and
 * the row runner (not applicable without a call, errors never scored) against the local server.
 */
import { Governor } from '../../../src/judges/governor';
import { groundedness } from '../../../src/judges/specs/groundedness';
import type { JudgeDecl } from '../../../src/judges/types';
import { createAzureContentSafetyBackend } from '../../../src/safety/azure';
import {
	groundednessFromUngroundedShare,
	runServiceGroundedness,
} from '../../../src/safety/azureGroundedness';
import {
	azureFaults,
	azureReplies,
	startAzureContentSafetyServer,
	type AzureContentSafetyServer,
} from '../../support/azure-content-safety-server';

describe('groundednessFromUngroundedShare (our rule: 5 - ceil(share x 4))', () => {
	it.each([
		[0, false, 5],
		[0, true, 4],
		[0.0001, true, 4],
		[0.25, true, 4],
		[0.2500001, true, 3],
		[0.5, true, 3],
		[0.5000001, true, 2],
		[0.75, true, 2],
		[0.7500001, true, 1],
		[1, true, 1],
	])('share %p (detected %p) -> %p', (share, detected, value) => {
		expect(groundednessFromUngroundedShare(share, detected)).toBe(value);
	});
	it('refuses a share outside 0-1', () => {
		for (const bad of [-0.1, 1.01, Number.NaN]) {
			expect(() => groundednessFromUngroundedShare(bad, true)).toThrow(RangeError);
		}
	});
});

describe('runServiceGroundedness', () => {
	let server: AzureContentSafetyServer;
	const decl = groundedness;
	beforeEach(async () => {
		server = await startAzureContentSafetyServer();
	});
	afterEach(async () => {
		await server.close();
	});
	const ctx = () => ({
		backend: createAzureContentSafetyBackend({ endpoint: server.endpoint, apiKey: server.key }),
		governor: new Governor({ maxRetries: 1, backoffBaseMs: 1 }),
	});

	it('scores a row on the 1-5 scale with the judge threshold and the spans in the reason', async () => {
		server.script('detectGroundedness', azureReplies.groundedness(0.3, ['owns the bank']));
		const s = await runServiceGroundedness(
			decl,
			{ response: 'She owns the bank.', retrieved_context: [{ content: 'She works at a bank.' }] },
			ctx(),
		);
		expect(s).toMatchObject({ status: 'ok', value: 3, pass: true, threshold: 3, attempts: 1 });
		expect(s.reason).toMatch(/30% of the reply is ungrounded .*Ungrounded: "owns the bank"$/);
		// No query: the service is asked to check a summary.
		expect(server.requestsTo('detectGroundedness')[0].body?.task).toBe('Summarization');
	});

	it('a row without context is not applicable and makes no call', async () => {
		const s = await runServiceGroundedness(decl, { response: 'x' }, ctx());
		expect(s).toMatchObject({ status: 'not_applicable', value: null, pass: null });
		expect(server.requests).toHaveLength(0);
	});

	it('a failed call is an error Score naming the service, never a value', async () => {
		server.setDefault('detectGroundedness', () => azureFaults.serverError());
		const s = await runServiceGroundedness(
			decl,
			{ response: 'a', retrieved_context: ['b'] },
			ctx(),
		);
		expect(s).toMatchObject({ status: 'error', value: null, pass: null, attempts: 2 });
		expect(s.error).toMatch(
			/^Groundedness: Azure AI Content Safety text:detectGroundedness: server error \(500\)/,
		);
		expect(s.signature).toMatch(/\|backend:azure_content_safety\|/);
	});
});
