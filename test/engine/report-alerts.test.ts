/**
 * Alerts that reach people, and only them, through the real engine (Eval Report node):
 * - a REGRESSED or INCOMPLETE run's Slack mention sits in a block people see, not only in the
 *   top-level text (which Slack shows only as the notification fallback once blocks exist);
 * - row text copied into GitHub tickets cannot ping `@user` / `@org/team` or cross-link `#12`;
 * - an INCOMPLETE report whose rows were passed names why they were not scored.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { compareRuns } from '../../src/gate';
import { runWorkflow, singleNode } from '../support/engine';

const GROUND = 'response/llm_judged/groundedness/rating/percentage';
const summary = (value: number) => ({
	rows: 400,
	metrics: { [GROUND]: { value, measured: 400, direction: 'higher' } },
});

type Block = { type: string; text?: { text: string } };

async function report(json: object | object[], options: INodeParameters = {}) {
	const r = await runWorkflow(
		singleNode('n8n-nodes-rag-eval.evalReport', {
			formats: ['slack', 'markdown', 'tickets'],
			options,
		}),
		{ startItems: (Array.isArray(json) ? json : [json]).map((j) => ({ json: j as IDataObject })) },
	);
	expect(r.nodeError('Node')).toBeUndefined();
	return r.output('Node')[0] as {
		slack: { text: string; blocks: Block[] };
		markdown: string;
		tickets: { open: { body: string }[] };
	};
}

describe('Eval Report alerts', () => {
	const gate = compareRuns(summary(0.8) as never, summary(0.9) as never, {
		defaultTolerance: 0.02,
	});

	test('REGRESSED: @here in the first section people see and in the fallback text', async () => {
		expect(gate.table[0]).toMatchObject({ verdict: 'regressed' });
		const { slack } = await report({ summary: summary(0.8), gate }, { mention: 'here' });
		expect(slack.text).toMatch(/^<!here> /);
		const firstSection = slack.blocks.find((b) => b.type === 'section');
		expect(firstSection?.text?.text).toMatch(/^<!here> :red_circle: \*Regressed\*/);
		// The header is plain text, where a mention would not notify: it is not put there.
		expect(slack.blocks[0].type).toBe('header');
	});

	test('Mention On Alert picks @channel or nobody; an OK run alerts nobody', async () => {
		const channel = await report({ summary: summary(0.8), gate }, { mention: 'channel' });
		expect(JSON.stringify(channel.slack.blocks)).toContain('<!channel> :red_circle:');
		const none = await report({ summary: summary(0.8), gate }, { mention: 'none' });
		expect(JSON.stringify(none.slack)).not.toMatch(/<!here>|<!channel>/);
		// Nobody unless asked: a node without the option alerts nobody.
		const plain = await report({ summary: summary(0.8), gate });
		expect(JSON.stringify(plain.slack)).not.toMatch(/<!here>|<!channel>/);
		const ok = compareRuns(summary(0.9) as never, summary(0.9) as never);
		const quiet = await report({ summary: summary(0.9), gate: ok }, { mention: 'here' });
		expect(JSON.stringify(quiet.slack)).not.toMatch(/<!here>|<!channel>/);
	});

	test('row text in tickets pings nobody and links no issue', async () => {
		const row = {
			request_id: 'q1',
			request: 'Ask @alice and @acme/oncall about #12 and acme/app#34 (mail bob@example.com)',
			response: 'See GH-7',
			eval: {
				groundedness: {
					metric: 'groundedness',
					value: 1,
					scale: { kind: 'likert', min: 1, max: 5 },
					threshold: 3,
					direction: 'higher',
					pass: false,
					status: 'ok',
					reason: 'cc @bob, duplicate of #99',
					signature: 'judge:groundedness@1',
				},
			},
		};
		const tickets = await report([
			{ rows: 1, metrics: {}, rootCauses: [{ cause: 'groundedness', count: 1 }] },
			row,
		]);
		const text = tickets.markdown + JSON.stringify(tickets.tickets);
		expect(text).toContain('alice'); // still readable...
		for (const ping of [/(^|[^\w\u200b])@alice/, /@acme\/oncall/, /@bob\b/, /(^|[^\u200b])#12\b/])
			expect(text).not.toMatch(ping);
		expect(text).not.toMatch(/app#34|#99|GH-7/);
		expect(text).toContain('@\u200balice');
		expect(text).toContain('bob@example.com'); // an e-mail address is not a mention
	});

	test('INCOMPLETE with rows passed: the first error says why they were not scored', async () => {
		const na = {
			metric: 'groundedness',
			value: null,
			scale: { kind: 'likert', min: 1, max: 5 },
			pass: null,
			status: 'not_applicable',
			reason:
				'no judge model configured: add a RAG Eval LLM API credential or connect a Chat Model',
			signature: 'judge:groundedness@1',
		};
		const incomplete = {
			rows: 2,
			metrics: {},
			status: 'incomplete',
			overall: { pass: 0, fail: 0, incomplete: 2 },
			incomplete: { count: 2, examples: ['q1', 'q2'] },
		};
		const rows = ['q1', 'q2'].map((id) => ({ request_id: id, eval: { groundedness: na } }));
		const { slack } = await report(incomplete, { rows: JSON.stringify(rows) });
		expect(slack.text).toMatch(/^Nightly/);
		expect(slack.text).toMatch(
			/first error: not scored: q1 groundedness: no judge model configured: add a RAG Eval LLM API credential/,
		);
		expect(slack.text).toContain('(and 1 more rows)');
		expect(slack.text).not.toMatch(/pass the scored rows to the report/);
	});
});
