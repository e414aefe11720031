import {
	escapeHtml,
	htmlReport,
	junitReport,
	markdownReport,
	redactSecrets,
	rootCauseChart,
	SLACK_LIMITS,
	slackMessage,
	ticketPayload,
	type ReportInput,
	type SlackBlock,
} from '../../../src/report';
import { EVIL, sampleInput } from './fixtures';
import { parseXml, type XmlElement } from './xml-check';

// Every string of user-visible text a Slack message carries.
function slackTexts(blocks: SlackBlock[]): string[] {
	const out: string[] = [];
	for (const b of blocks) {
		if (b.type === 'header') out.push(b.text.text);
		if (b.type === 'section') {
			if (b.text) out.push(b.text.text);
			for (const f of b.fields ?? []) out.push(f.text);
		}
		if (b.type === 'context') for (const e of b.elements) out.push(e.text);
	}
	return out;
}

describe('redaction and escaping', () => {
	it('masks key-shaped strings', () => {
		expect(redactSecrets('key sk-abcdefghijklmnopqrstuvwxyz and more')).toBe(
			'key [redacted] and more',
		);
		expect(redactSecrets('Authorization: Bearer abcdef0123456789xyz')).toBe(
			'Authorization: [redacted]',
		);
		expect(redactSecrets('{"api_key": "hunter2hunter2"}')).toBe('{"api_key": "[redacted]"}');
		expect(redactSecrets('password=swordfish1')).toBe('password=[redacted]');
		expect(redactSecrets('plain text about keys')).toBe('plain text about keys');
	});

	it('escapes all five HTML specials', () => {
		expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
			'&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
		);
	});
});

describe('slackMessage', () => {
	it('builds a Block Kit message with gate status, metrics, causes, regressions and worst rows', () => {
		const input = sampleInput();
		const m = slackMessage(input);
		expect(m.blocks[0]).toMatchObject({ type: 'header' });
		expect(m.text).toContain('Nightly RAG eval');
		expect(m.text).toContain('REGRESSED');
		expect(m.text).toContain('response/llm_judged/groundedness/rating/percentage');
		const all = slackTexts(m.blocks).join('\n');
		expect(all).toContain(':red_circle: *Regressed*');
		expect(all).toContain('<https://n8n.example.com/workflow/7/executions/812|Open the run>');
		expect(all).toContain('*Root causes*');
		expect(all).toContain('52 rows (26.0%)');
		expect(all).toContain('0.78 → 0.62');
		expect(all).toContain('*q-17*');
		expect(all).toContain('The context says 30 days, not 90 days.');
		expect(all).toContain('model timed out');
	});

	it('escapes user text (no raw < or > from users) and never leaks keys', () => {
		const m = slackMessage(sampleInput());
		const all = slackTexts(m.blocks).join('\n');
		expect(all).not.toContain('<script>');
		expect(all).not.toContain('<img');
		expect(all).toContain('&lt;script&gt;alert("x")&lt;/script&gt; &amp; &lt;img');
		// The only raw angle brackets left are the link we built.
		expect(
			all.replace('<https://n8n.example.com/workflow/7/executions/812|Open the run>', ''),
		).not.toMatch(/[<>]/);
		expect(JSON.stringify(m)).not.toContain('sk-abcdefghijklmnopqrstuvwxyz');
	});

	it('stays within Slack limits on a huge run', () => {
		const input = sampleInput();
		const long = 'x'.repeat(5000) + EVIL;
		for (let i = 0; i < 300; i++)
			input.summary.metrics[`metric_${i}_${long.slice(0, 400)}`] = { value: i / 300, measured: 10 };
		input.summary.rootCauses = Array.from({ length: 200 }, (_, i) => ({
			cause: `cause ${i} ${long}`,
			count: 200 - i,
			share: 0.001,
			fix: long,
		}));
		input.rows = Array.from({ length: 80 }, (_, i) => ({
			request_id: `r${i}`,
			request: long,
			eval: {
				g: {
					metric: 'g',
					value: false,
					scale: { kind: 'binary', min: 0, max: 1 },
					pass: false,
					status: 'ok',
					reason: long,
					signature: 'g@1',
				},
			},
		}));
		input.maxWorstRows = 80;
		input.title = long;
		const m = slackMessage(input);
		expect(m.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
		expect(m.blocks[m.blocks.length - 1]).toMatchObject({ type: 'context' });
		expect(slackTexts(m.blocks).join('')).toContain('more blocks omitted');
		expect(m.text.length).toBeLessThanOrEqual(SLACK_LIMITS.text);
		for (const b of m.blocks) {
			if (b.type === 'header')
				expect(b.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
			if (b.type === 'section') {
				if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.text);
				expect((b.fields ?? []).length).toBeLessThanOrEqual(SLACK_LIMITS.fields);
				for (const f of b.fields ?? [])
					expect(f.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
			}
		}
	});

	it('says OK when the gate passed and omits absent sections', () => {
		const m = slackMessage({
			summary: { rows: 3, metrics: { f1: { value: 0.8, measured: 3 } } },
			gate: {
				status: 'ok',
				regressed: false,
				incomplete: false,
				coverage: null,
				table: [],
				counts: {
					ok: 0,
					regressed: 0,
					improved: 0,
					missing_in_baseline: 0,
					missing_in_current: 0,
					insufficient_data: 0,
				},
				alpha: 0.05,
				rule: 'r',
			},
		});
		const all = slackTexts(m.blocks).join('\n');
		expect(all).toContain(':large_green_circle: *OK*');
		expect(all).not.toContain('Root causes');
		expect(all).not.toContain('Worst rows');
		expect(m.text).toBe('RAG evaluation — 3 rows: OK');
	});
});

describe('markdownReport and ticketPayload', () => {
	it('renders tables with escaped cells and the gate verdicts', () => {
		const md = markdownReport(sampleInput());
		expect(md.startsWith('# Nightly RAG eval — 200 rows: REGRESSED (1 metric)')).toBe(true);
		expect(md).toContain('## Regression gate: **REGRESSED**');
		expect(md).toMatch(
			/\| response\/llm_judged\/groundedness\/rating\/percentage \| 0\.78 \| 0\.62 \| -0\.16 \| 0\.0010 \| two-proportion-z \| regressed \|/,
		);
		// 124/200 vs 156/200: z = -3.49, p = 0.00048; Holm over the 2 tested metrics doubles it.
		expect(md).toContain(
			'| retrieval/llm_judged/chunk_relevance/precision/average | 0.7 | — | — | — | none | missing_in_current |',
		);
		expect(md).toContain('| 0.553–0.683 |');
		expect(md).toContain('### q-9 | pipe');
		expect(md).toContain('- **groundedness** no: The context says 30 days, not 90 days.');
		expect(md).not.toContain('<script>');
		expect(md).toContain('&lt;script&gt;');
		expect(md).not.toContain('sk-abcdefghijklmnopqrstuvwxyz');
		expect(md).toContain('Summarise the SLA; my key is [redacted]');
		// Every table row keeps its header's column count despite pipes in user text.
		const cols = (l: string): number => l.split(/(?<!\\)\|/).length - 2;
		let header = 0;
		for (const [k, line] of md.split('\n').entries()) {
			if (!line.startsWith('|')) header = 0;
			else if (header === 0) header = cols(line);
			else expect([k, cols(line)]).toEqual([k, header]);
		}
		const piped = markdownReport({ summary: { metrics: { 'a|b': { value: 1, measured: 1 } } } });
		expect(piped).toContain('| a\\|b | 1 |');
	});

	it('ticket: title names the regressed metrics, labels carry the top cause', () => {
		const t = ticketPayload(sampleInput());
		expect(t.title).toBe('Eval regression: response/llm_judged/groundedness/rating/percentage');
		expect(t.labels).toEqual(['rag-eval', 'regression', 'root-cause:groundedness']);
		expect(t.body).toBe(markdownReport(sampleInput()));
		const noGate = { ...sampleInput(), gate: undefined };
		expect(ticketPayload(noGate).title).toBe('Eval failures: 52 rows fail first on groundedness');
	});
});

describe('htmlReport', () => {
	it('is self-contained: no scripts, no external resources, CSP set', () => {
		const html = htmlReport(sampleInput());
		expect(html).not.toMatch(/<script/i);
		expect(html).not.toMatch(/<img/i);
		// Event-handler attributes only matter inside real tags; user text has its < escaped.
		expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
		expect(html).not.toMatch(/(src|href)="(?!https:\/\/n8n\.example\.com)/i);
		expect(html).not.toMatch(/url\(|@import/);
		expect(html).toContain(`Content-Security-Policy" content="default-src 'none'`);
		expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
		expect(html).not.toContain('sk-abcdefghijklmnopqrstuvwxyz');
	});

	it('contains the summary, gate, chart and worst rows', () => {
		const html = htmlReport(sampleInput());
		expect(html).toContain('<title>Nightly RAG eval — 200 rows: REGRESSED (1 metric)</title>');
		expect(html).toContain('<td>agent/latency_seconds/average</td><td class="num">1.8</td>');
		expect(html).toContain('>REGRESSED</span>');
		expect((html.match(/<rect /g) ?? []).length).toBe(4);
		expect(html).toContain('The context says 30 days, not 90 days.');
		// Worst rows: q-17 (2 failures) before q-4 (1 error) and q-9 (1 failure)
		const order = ['<h3>q-17</h3>', '<h3>q-9 | pipe</h3>', '<h3>q-4</h3>'].map((s) =>
			html.indexOf(s),
		);
		expect(order.every((i) => i > 0)).toBe(true);
		expect(order[0]).toBeLessThan(order[1]);
	});

	it('drops non-http run URLs', () => {
		const input: ReportInput = { ...sampleInput(), runUrl: 'javascript:alert(1)' };
		expect(htmlReport(input)).not.toContain('javascript:');
		expect(htmlReport(input)).not.toContain('Open the run');
	});

	it('chart bars scale with counts', () => {
		const svg = rootCauseChart([
			{ cause: 'a', count: 10, share: 0.5 },
			{ cause: 'b', count: 5, share: 0.25 },
		]);
		const widths = [...svg.matchAll(/<rect [^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]));
		expect(widths[0]).toBeCloseTo(2 * widths[1], 5);
		expect(rootCauseChart([])).toContain('No root-cause data');
	});
});

describe('junitReport', () => {
	const find = (el: XmlElement, name: string): XmlElement[] => [
		...(el.name === name ? [el] : []),
		...el.children.flatMap((c) => find(c, name)),
	];

	it('is well-formed XML with one suite per metric and consistent counts', () => {
		const xml = junitReport(sampleInput());
		const root = parseXml(xml);
		expect(root.name).toBe('testsuites');
		const suites = find(root, 'testsuite');
		expect(suites.map((s) => s.attrs.name)).toEqual([
			'groundedness',
			'correctness',
			'safety',
			'relevance_to_query',
			'regression-gate',
		]);
		let tests = 0;
		let failures = 0;
		for (const s of suites) {
			const cases = find(s, 'testcase');
			expect(Number(s.attrs.tests)).toBe(cases.length);
			expect(Number(s.attrs.failures)).toBe(cases.filter((c) => find(c, 'failure').length).length);
			expect(Number(s.attrs.errors)).toBe(cases.filter((c) => find(c, 'error').length).length);
			tests += cases.length;
			failures += Number(s.attrs.failures);
		}
		expect(Number(root.attrs.tests)).toBe(tests);
		expect(Number(root.attrs.failures)).toBe(failures);
		const safety = suites.find((s) => s.attrs.name === 'safety')!;
		expect(find(safety, 'error')[0].attrs.message).toBe('model timed out after 30 s');
		const rel = find(suites.find((s) => s.attrs.name === 'relevance_to_query')!, 'failure')[0];
		// The hostile text survives as data, decoded back exactly.
		expect(rel.text).toBe(`Off topic ${EVIL}`);
		const gate = find(suites.find((s) => s.attrs.name === 'regression-gate')!, 'testcase');
		expect(gate.filter((c) => find(c, 'failure').length).map((c) => c.attrs.name)).toEqual([
			'response/llm_judged/groundedness/rating/percentage',
		]);
		expect(xml).not.toContain('sk-abcdefghijklmnopqrstuvwxyz');
	});

	it('strips characters XML forbids and falls back to one case per metric without rows', () => {
		const xml = junitReport({
			summary: {
				metrics: { 'bad\u0001name<&>': { value: 0.5, measured: 4 }, empty: { measured: 0 } },
			},
			title: 'ci "run"',
		});
		const root = parseXml(xml);
		expect(root.attrs.name).toBe('ci "run"');
		const suites = find(root, 'testsuite');
		expect(suites.map((s) => s.attrs.name)).toEqual(['bad' + 'name<&>', 'empty']);
		expect(Number(suites[1].attrs.skipped)).toBe(1);
		expect(xml).not.toContain('\u0001');
	});
});
