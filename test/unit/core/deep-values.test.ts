/**
 * Issue 10.1 beyond the loader: rows that reach a node without Eval Dataset (a Code node, an HTTP
 * Request) may nest 100,000 levels. Nothing recurses over them: inputs are refused by field,
 * reports render, and a group value is named.
 */
import { aggregate } from '../../../src/aggregate';
import { evaluateMetric } from '../../../src/core/evaluate';
import { coerceInput } from '../../../src/core/inputs';
import { Governor } from '../../../src/judges/governor';
import { createOpenAIModelSource } from '../../../src/judges/model';
import { runJudge } from '../../../src/judges/run';
import { groundedness } from '../../../src/judges/specs/groundedness';
import type { JudgeDecl } from '../../../src/judges/types';
import { bleuMetric } from '../../../src/metrics/bleu';
import { markdownReport } from '../../../src/report';
import { startOpenAIServer } from '../../support/openai-server';

function deep(levels: number, leaf: unknown = 'x'): unknown {
	let v: unknown = leaf;
	for (let i = 0; i < levels; i++) v = { content: v };
	return v;
}

describe('values nested 100,000 levels deep', () => {
	it('are a row error naming the field, for metrics and for every input kind', () => {
		const s = evaluateMetric(bleuMetric, { response: deep(100000), groundTruth: 'x' });
		expect(s).toMatchObject({ status: 'error', value: null });
		expect(s.error).toBe('response: nested deeper than 1000 levels');
		for (const kind of ['contexts', 'messages', 'texts', 'json'] as const) {
			expect(() => coerceInput({ kind, field: 'f' }, [deep(100000)])).toThrow(
				'f: nested deeper than 1000 levels',
			);
		}
		// A value at a normal depth is still read.
		expect(coerceInput({ kind: 'json', field: 'f' }, deep(10))).toEqual(deep(10));
	});

	it('never reach the judge model', async () => {
		const server = await startOpenAIServer();
		try {
			const source = createOpenAIModelSource({
				provider: 'compatible',
				baseUrl: server.baseUrl,
				model: 'judge-model',
			});
			const s = await runJudge(
				groundedness,
				{ request: 'q', response: 'a', retrieved_context: [deep(100000)] },
				{ source, governor: new Governor() },
			);
			expect(s.status).toBe('error');
			expect(s.error).toBe('retrieved_context: nested deeper than 1000 levels');
			expect(server.chatRequests()).toHaveLength(0);
		} finally {
			await server.close();
		}
	});

	it('render in reports and group in the aggregate', () => {
		const request = { messages: [{ role: 'user', content: deep(100000) }] };
		const failing = {
			metric: 'tone',
			value: false,
			scale: { kind: 'binary' as const, min: 0, max: 1 },
			pass: false,
			status: 'ok' as const,
			reason: 'curt',
			signature: 'tone',
		};
		const rows = [
			{
				request_id: 'q1',
				request,
				response: deep(100000),
				eval: { tone: failing },
				metadata: { g: deep(100000) },
			},
		];
		const md = markdownReport({ summary: { rows: 1, metrics: {} }, rows });
		// The worst row is shown (the transcript's last turn, its JSON cut short): nothing crashed.
		expect(md).toContain('### q1');
		expect(md).toContain('**Request:**');
		const s = aggregate(rows, { groupBy: 'metadata.g', bootstrapResamples: 0 });
		expect(Object.keys(s.groups ?? {})).toEqual(['(unreadable group value)']);
	});
});
