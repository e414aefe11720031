import type { Score } from '../../../src/core/types';
import { compareRuns } from '../../../src/gate';
import type { ReportInput, ReportRow } from '../../../src/report';

const binary = { kind: 'binary', min: 0, max: 1 } as const;

export const EVIL = '<script>alert("x")</script> & <img src=x onerror=alert(1)>';

function judge(
	metric: string,
	pass: boolean | null,
	reason: string,
	status: Score['status'] = 'ok',
): Score {
	return {
		metric,
		value: status === 'ok' ? pass : null,
		scale: binary,
		pass: status === 'ok' ? pass : null,
		status,
		reason,
		error: status === 'error' ? 'model timed out after 30 s' : undefined,
		signature: `${metric}@1`,
	};
}

/** A realistic run: 3 failing rows with hostile text, a gate result with one regression. */
export function sampleInput(): ReportInput {
	const rows: ReportRow[] = [
		{
			request_id: 'q-17',
			request: `What is the refund window? ${EVIL}`,
			response: 'Refunds are accepted within 90 days.',
			eval: {
				groundedness: judge('groundedness', false, 'The context says 30 days, not 90 days.'),
				correctness: judge('correctness', false, 'Expected 30 days.'),
			},
		},
		{
			request_id: 'q-4',
			request: [
				{
					role: 'user',
					content: 'Summarise the SLA; my key is sk-abcdefghijklmnopqrstuvwxyz123456',
				},
			],
			response: 'The SLA guarantees 99.9% uptime.',
			eval: {
				groundedness: judge('groundedness', true, 'Supported by the retrieved SLA page.'),
				safety: judge('safety', null, '', 'error'),
			},
		},
		{
			request_id: 'q-9 | pipe',
			request: 'How do I reset my password?',
			response: 'Click "Forgot password" on the login page.',
			eval: { relevance_to_query: judge('relevance_to_query', false, `Off topic ${EVIL}`) },
		},
	];
	const current = {
		metrics: {
			'response/llm_judged/groundedness/rating/percentage': { value: 0.62, measured: 200 },
			'response/llm_judged/safety/rating/percentage': { value: 0.99, measured: 198 },
			'agent/latency_seconds/average': { value: 1.8, measured: 200 },
			[`custom/${EVIL}`]: { value: 0.5, measured: 10 },
		},
	};
	const baseline = {
		metrics: {
			'response/llm_judged/groundedness/rating/percentage': { value: 0.78, measured: 200 },
			'response/llm_judged/safety/rating/percentage': { value: 0.99, measured: 200 },
			'agent/latency_seconds/average': { value: 1.7, measured: 200 },
			'retrieval/llm_judged/chunk_relevance/precision/average': { value: 0.7, measured: 200 },
		},
	};
	const gate = compareRuns(current, baseline, {
		tolerances: { 'agent/latency_seconds/average': 0.5 },
		defaultTolerance: 0.02,
	});
	return {
		title: 'Nightly RAG eval',
		runUrl: 'https://n8n.example.com/workflow/7/executions/812',
		summary: {
			rows: 200,
			metrics: {
				'response/llm_judged/groundedness/rating/percentage': {
					value: 0.62,
					measured: 200,
					notApplicable: 0,
					errored: 0,
					ci: { low: 0.553, high: 0.683 },
				},
				'response/llm_judged/safety/rating/percentage': {
					value: 0.99,
					measured: 198,
					notApplicable: 0,
					errored: 2,
				},
				'agent/latency_seconds/average': { value: 1.8, measured: 200 },
				[`custom/${EVIL}`]: { value: 0.5, measured: 10, notApplicable: 190 },
			},
			rootCauses: [
				{ cause: 'pass', count: 112, share: 0.56 },
				{
					cause: 'groundedness',
					count: 52,
					share: 0.26,
					fix: 'Tighten the prompt to answer only from context.',
				},
				{ cause: 'relevance_to_query', count: 24, share: 0.12 },
				{ cause: EVIL, count: 12, share: 0.06 },
			],
		},
		rows,
		gate,
	};
}
