import { execFileSync } from 'node:child_process';
import type { Score } from '../../../src/core/types';
import { tryToParseJsonToFormFields } from 'n8n-workflow';
import {
	reviewForm,
	reviewRowHtml,
	rowFingerprint,
	rowFromSubmission,
	verdictField,
	type ReviewRow,
} from '../../../src/review';

// n8n's own sanitiser of the Form node's HTML fields, as the form page applies it. It loads an
// ES module jest cannot transform, so it runs in a child Node process.
function sanitizeHtml(html: string): string {
	const script =
		"const { sanitizeHtml } = require('n8n-nodes-base/dist/nodes/Form/utils/utils');" +
		"let s = ''; process.stdin.on('data', (d) => (s += d)); process.stdin.on('end', () => process.stdout.write(sanitizeHtml(s)));";
	return execFileSync(process.execPath, ['-e', script], { input: html, encoding: 'utf8' });
}

const HOSTILE = [
	'<script>alert(1)</script>',
	'<img src=x onerror="alert(2)">',
	'"><svg onload=alert(3)>',
	'</pre></table><iframe src="https://evil.example"></iframe>',
	"javascript:alert('4')",
	"{{ $env.SECRET }} {{{html}}} $& $' $`",
	'&lt;b&gt;already escaped&lt;/b&gt;',
].join(' ');

const verdict = (value: boolean): Score => ({
	metric: 'groundedness',
	value,
	scale: { kind: 'binary', min: 0, max: 1 },
	direction: 'higher',
	pass: value,
	status: 'ok',
	reason: `rationale ${HOSTILE}`,
	signature: 'judge:groundedness@1',
});

const row: ReviewRow = {
	request_id: `id ${HOSTILE}`,
	request: [{ role: 'user', content: `question ${HOSTILE}` }],
	response: `answer ${HOSTILE}`,
	retrieved_context: [
		{ doc_uri: `doc ${HOSTILE}`, content: `chunk ${HOSTILE} ${'long text '.repeat(100)}` },
		'a short chunk',
	],
	eval: {
		groundedness: verdict(false),
		relevance: {
			metric: 'relevance',
			value: 4,
			scale: { kind: 'likert', min: 1, max: 5 },
			threshold: 3,
			direction: 'higher',
			pass: true,
			status: 'ok',
			reason: 'on topic',
			signature: 'judge:relevance@2',
		},
		rougeL: {
			metric: 'rougeL',
			value: 0.4,
			scale: { kind: 'unit', min: 0, max: 1 },
			threshold: 0.5,
			direction: 'higher',
			pass: false,
			status: 'ok',
			signature: 'metric:rouge@1',
		},
	},
};

describe('review form fields', () => {
	const form = reviewForm(row, { reviewer: 'ana' });

	it('one HTML block, a verdict per judge on its own scale, corrections, fingerprint; no name field', () => {
		expect(form.fields.map((f) => [f.fieldName, f.fieldType])).toEqual([
			['review_page', 'html'],
			[verdictField('groundedness'), 'radio'],
			[verdictField('relevance'), 'radio'],
			['context_correct', 'radio'],
			['corrected_answer', 'textarea'],
			['expected_facts', 'textarea'],
			['fingerprint', 'hiddenField'],
			['review_row', 'hiddenField'],
		]);
		// The reviewer (the signed-in user) is shown, not asked.
		expect(form.fields[0].html).toContain('<p><b>Reviewing as:</b> ana</p>');
		const opts = (name: string) =>
			form.fields.find((f) => f.fieldName === name)!.fieldOptions!.values.map((v) => v.option);
		expect(opts(verdictField('groundedness'))).toEqual(['yes', 'no', 'unsure']);
		expect(opts(verdictField('relevance'))).toEqual(['1', '2', '3', '4', '5', 'unsure']);
		expect(form.judges).toEqual([
			{ key: 'groundedness', scale: 'binary', signature: 'judge:groundedness@1' },
			{ key: 'relevance', scale: 'likert', signature: 'judge:relevance@2' },
		]);
		// The rougeL metric is shown, not asked.
		expect(form.fields[0].html).toContain('rougeL');
	});

	it('hostile row text is inert: escaped by us, and still only text after n8n sanitises it', () => {
		const html = form.fields[0].html!;
		for (const out of [html, sanitizeHtml(html)]) {
			// No tag but ours, and no attribute at all inside any tag.
			const tags = out.match(/<\/?[a-z][^>]*>/gi) ?? [];
			for (const tag of tags)
				expect(tag).toMatch(/^<\/?(p|b|i|code|h3|pre|table|thead|tbody|tr|th|td)>$/);
		}
		// Nothing a template engine or String.replace would expand survives our escaping.
		expect(html).not.toMatch(/\{\{|\$/);
		// Every occurrence is still visible to the reviewer, as text.
		expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
		expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
		expect(html).toContain('&amp;lt;b&amp;gt;already escaped');
		expect(sanitizeHtml(html)).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
		// The structure we emit survives the sanitiser: headings, pre boxes, the judges table.
		expect(sanitizeHtml(html).match(/<pre>/g)!.length).toBe(html.match(/<pre>/g)!.length);
	});

	it("n8n's Form node parser takes the fields JSON, and the row comes back from the submission", () => {
		expect(form.fieldsJson).not.toContain('$');
		const parsed = tryToParseJsonToFormFields(form.fieldsJson) as unknown as {
			fieldName: string;
			fieldValue?: string;
		}[];
		expect(parsed.map((f) => f.fieldName)).toEqual(form.fields.map((f) => f.fieldName));
		const hidden = parsed.find((f) => f.fieldName === 'review_row')!;
		const back = rowFromSubmission({ review_row: hidden.fieldValue })!;
		expect(rowFingerprint(back)).toBe(rowFingerprint(row));
		expect(back.eval!.groundedness!.reason).toBe(`rationale ${HOSTILE}`);
	});

	it('Ask Reviewer Name (Basic Auth set-ups) adds the name field, prefilled, instead of showing it', () => {
		const asked = reviewForm(row, { reviewer: 'ana', askReviewerName: true });
		const name = asked.fields.find((f) => f.fieldName === 'reviewer')!;
		expect(name).toMatchObject({ fieldType: 'text', requiredField: true, defaultValue: 'ana' });
		expect(asked.fields[0].html).not.toContain('Reviewing as');
		expect(reviewForm(row).fields.some((f) => f.fieldName === 'reviewer')).toBe(false);
		// A hostile name is text on the page.
		expect(reviewForm(row, { reviewer: '<b>x</b>' }).fields[0].html).toContain(
			'&lt;b&gt;x&lt;/b&gt;',
		);
	});

	it('long chunks get a preview and a scrolling box; short ones only the box', () => {
		const html = reviewRowHtml(row, { previewChars: 50 });
		expect(html).toMatch(/characters; the box scrolls/);
		expect(html).toContain('<pre>a short chunk</pre>');
	});
});
