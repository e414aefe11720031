/**
 * The review page: the field definitions n8n's Form node takes as JSON (Define Form: Using JSON;
 * the Wait node's "On Form Submitted" takes the same), built from one queued row. One row a page:
 * question, answer, retrieved chunks and the judges' verdicts with rationales in an HTML field, then
 * per judge the same question the judge answered (yes/no, or 1-5), an optional corrected answer,
 * expected facts and whether the retrieved chunks were the right ones.
 *
 * Every piece of row text is HTML-escaped here (n8n sanitises the HTML field again): hostile row
 * text is shown, never run. Long chunks show a preview and sit in a scrollable box (the CSS of
 * {@link REVIEW_FORM_CSS}); n8n's sanitiser keeps no <details>, so scrolling is the collapse.
 */

import type { Score } from '../core/types';
import { rowFingerprint, requestIdOf, storedRow, type ReviewRow } from './select';

/** Hidden field carrying the reviewed row (base64 of its JSON). */
export const ROW_FIELD = 'review_row';

/** The row a submission carries in its hidden field, or undefined. */
export function rowFromSubmission(submission: Record<string, unknown>): ReviewRow | undefined {
	const raw = submission[ROW_FIELD];
	if (typeof raw !== 'string' || !raw) return undefined;
	try {
		const row = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown;
		return row && typeof row === 'object' && !Array.isArray(row) ? (row as ReviewRow) : undefined;
	} catch {
		return undefined;
	}
}

/** One field as n8n's Form node reads it from JSON (Form node 2.4+: `fieldName` is the key). */
export interface FormFieldJson {
	fieldName: string;
	fieldLabel: string;
	fieldType: 'html' | 'radio' | 'dropdown' | 'textarea' | 'text' | 'hiddenField';
	requiredField?: boolean;
	fieldOptions?: { values: { option: string }[] };
	html?: string;
	placeholder?: string;
	defaultValue?: string;
	fieldValue?: string;
}

/** What a review page needs besides its fields. */
export interface ReviewForm {
	fields: FormFieldJson[];
	/**
	 * The fields as the JSON text for the Form node's Fields parameter (`={{ $json.review_form.fieldsJson }}`):
	 * `$` written as \u0024, because the Form node splices the resolved text into its raw
	 * parameter with String.replace, where `$&` or `$'` from row text would expand.
	 */
	fieldsJson: string;
	/** Plain page title (n8n escapes it). */
	title: string;
	/** Judges asked, in field order, with the scale each was asked on. */
	judges: { key: string; scale: 'binary' | 'likert'; signature: string }[];
}

/** Options of {@link reviewForm}. */
export interface ReviewFormOptions {
	/** Judges to ask about; default every ok yes/no or 1-5 Score on the row. */
	judges?: readonly string[];
	/** Characters of a chunk shown before its scrollable full text; default 300. */
	previewChars?: number;
	/**
	 * Who is reviewing (the signed-in n8n user's email): shown at the top of the page; with
	 * {@link askReviewerName}, the name field's default instead.
	 */
	reviewer?: string;
	/**
	 * Add a "Your name" field (`reviewer`) for forms behind Basic Auth, where n8n knows no user.
	 * Off by default: with n8n User Auth the reviewer is the signed-in user, never a typed name.
	 */
	askReviewerName?: boolean;
}

/** CSS for the Form node's Custom Form Styling: long text scrolls in a box. */
export const REVIEW_FORM_CSS =
	'pre{white-space:pre-wrap;word-break:break-word;max-height:12em;overflow:auto;background:#f5f5f5;padding:6px;border-radius:4px}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:4px;vertical-align:top;text-align:left}';

/** The answer the reviewer picks when they cannot tell: no label is recorded for that judge. */
export const UNSURE = 'unsure';

/** Field name of a judge's verdict. */
export const verdictField = (judge: string): string => `verdict__${judge}`;

/**
 * HTML-escape text so it renders as text whatever it contains: &, <, >, quotes and backticks, the
 * braces (no template engine down the line reads `{{ }}` in row text) and `$` (the Form node
 * splices the resolved JSON in with String.replace, where `$&` or `$'` in row text would expand).
 */
export function escapeReviewHtml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;')
		.replace(/`/g, '&#96;')
		.replace(/\{/g, '&#123;')
		.replace(/\}/g, '&#125;')
		.replace(/\$/g, '&#36;');
}

function asText(v: unknown): string {
	if (v === undefined || v === null) return '';
	if (typeof v === 'string') return v;
	try {
		return JSON.stringify(v, null, 1) ?? '';
	} catch {
		return String(v);
	}
}

// A request may be chat messages: show the conversation's turns as "role: content".
function requestText(request: unknown): string {
	const msgs = Array.isArray(request)
		? request
		: request &&
			  typeof request === 'object' &&
			  Array.isArray((request as { messages?: unknown }).messages)
			? (request as { messages: unknown[] }).messages
			: null;
	if (msgs) {
		return msgs
			.map((m) =>
				m && typeof m === 'object'
					? `${asText((m as { role?: unknown }).role)}: ${asText((m as { content?: unknown }).content)}`
					: asText(m),
			)
			.join('\n');
	}
	if (request && typeof request === 'object' && 'query' in request)
		return asText((request as { query: unknown }).query);
	return asText(request);
}

/** The retrieved chunks of a row as (source, text). */
export function chunksOf(context: unknown): { source: string; text: string }[] {
	const list = Array.isArray(context)
		? context
		: context === undefined || context === null
			? []
			: [context];
	return list.map((c, i) => {
		if (c && typeof c === 'object') {
			const o = c as Record<string, unknown>;
			return {
				source: asText(o.doc_uri ?? o.source ?? o.id ?? `chunk ${i + 1}`),
				text: asText(o.content ?? o.text ?? o.page_content ?? c),
			};
		}
		return { source: `chunk ${i + 1}`, text: asText(c) };
	});
}

/** The judges of a row a person can answer for: ok yes/no or 1-5 Scores. */
export function askableJudges(
	row: ReviewRow,
	only?: readonly string[],
): { key: string; score: Score; scale: 'binary' | 'likert' }[] {
	const out: { key: string; score: Score; scale: 'binary' | 'likert' }[] = [];
	for (const [key, s] of Object.entries(row.eval ?? {})) {
		if (!s || s.status !== 'ok' || (only && !only.includes(key))) continue;
		if (s.scale.kind === 'binary' || typeof s.value === 'boolean')
			out.push({ key, score: s, scale: 'binary' });
		else if (s.scale.kind === 'likert') out.push({ key, score: s, scale: 'likert' });
	}
	return out;
}

function verdictText(s: Score): string {
	if (typeof s.value === 'boolean') return s.value ? 'yes' : 'no';
	return `${s.value ?? '—'}${typeof s.threshold === 'number' ? ` (threshold ${s.threshold})` : ''}`;
}

/** The HTML block of one row: question, answer, chunks, judges' verdicts and rationales. */
export function reviewRowHtml(row: ReviewRow, options: ReviewFormOptions = {}): string {
	const preview = options.previewChars ?? 300;
	const e = (v: string) => escapeReviewHtml(v);
	const parts: string[] = [];
	const id = requestIdOf(row);
	if (options.reviewer && !options.askReviewerName)
		parts.push(`<p><b>Reviewing as:</b> ${e(options.reviewer)}</p>`);
	if (id !== null) parts.push(`<p><b>Request id:</b> <code>${e(id)}</code></p>`);
	parts.push(`<h3>Question</h3><pre>${e(requestText(row.request))}</pre>`);
	parts.push(`<h3>Answer</h3><pre>${e(asText(row.response))}</pre>`);
	const chunks = chunksOf(row.retrieved_context);
	if (chunks.length) {
		parts.push(`<h3>Retrieved chunks (${chunks.length})</h3>`);
		chunks.forEach((c, i) => {
			const long = c.text.length > preview;
			parts.push(
				`<p><b>${i + 1}. ${e(c.source)}</b>${long ? ` <i>(${c.text.length} characters; the box scrolls)</i>` : ''}</p>` +
					(long ? `<p>${e(c.text.slice(0, preview))}…</p>` : '') +
					`<pre>${e(c.text)}</pre>`,
			);
		});
	}
	const judges = askableJudges(row, options.judges);
	const others = Object.entries(row.eval ?? {}).filter(
		([k, s]) => s && !judges.some((j) => j.key === k),
	);
	if (judges.length || others.length) {
		parts.push(
			'<h3>What the judges said</h3><table><thead><tr><th>judge</th><th>verdict</th><th>rationale</th></tr></thead><tbody>',
		);
		for (const { key, score } of judges) {
			parts.push(
				`<tr><td><code>${e(key)}</code></td><td>${e(verdictText(score))}</td><td>${e(score.reason ?? '')}</td></tr>`,
			);
		}
		for (const [key, s] of others) {
			const v = s!.status === 'ok' ? verdictText(s!) : s!.status.replace('_', ' ');
			parts.push(
				`<tr><td><code>${e(key)}</code></td><td>${e(v)}</td><td>${e(s!.reason ?? s!.error ?? '')}</td></tr>`,
			);
		}
		parts.push('</tbody></table>');
	}
	return parts.join('\n');
}

/** The Form node fields of one row's review page. */
export function reviewForm(row: ReviewRow, options: ReviewFormOptions = {}): ReviewForm {
	const judges = askableJudges(row, options.judges);
	const fields: FormFieldJson[] = [
		{
			fieldName: 'review_page',
			fieldLabel: 'Row',
			fieldType: 'html',
			html: reviewRowHtml(row, options),
		},
	];
	for (const { key, scale } of judges) {
		const options_ = scale === 'binary' ? ['yes', 'no', UNSURE] : ['1', '2', '3', '4', '5', UNSURE];
		fields.push({
			fieldName: verdictField(key),
			fieldLabel:
				scale === 'binary'
					? `${key}: your verdict (yes = passes)`
					: `${key}: your rating (1 worst - 5 best)`,
			fieldType: 'radio',
			requiredField: true,
			fieldOptions: { values: options_.map((option) => ({ option })) },
		});
	}
	fields.push(
		{
			fieldName: 'context_correct',
			fieldLabel: 'Were the retrieved chunks the right ones?',
			fieldType: 'radio',
			requiredField: false,
			fieldOptions: { values: ['yes', 'no', UNSURE].map((option) => ({ option })) },
		},
		{
			fieldName: 'corrected_answer',
			fieldLabel: 'Corrected answer (optional)',
			fieldType: 'textarea',
			requiredField: false,
			placeholder: 'The answer the app should have given',
		},
		{
			fieldName: 'expected_facts',
			fieldLabel: 'Expected facts, one per line (optional)',
			fieldType: 'textarea',
			requiredField: false,
		},
		...(options.askReviewerName
			? [
					{
						fieldName: 'reviewer',
						fieldLabel: 'Your name',
						fieldType: 'text' as const,
						requiredField: true,
						...(options.reviewer ? { defaultValue: options.reviewer } : {}),
					},
				]
			: []),
		{
			fieldName: 'fingerprint',
			fieldLabel: 'fingerprint',
			fieldType: 'hiddenField',
			fieldValue: rowFingerprint(row),
		},
		// The row itself travels with the page, so the submission alone makes the label. Base64:
		// n8n rewrites < and > in non-HTML field values, which would change the row's content.
		{
			fieldName: ROW_FIELD,
			fieldLabel: ROW_FIELD,
			fieldType: 'hiddenField',
			fieldValue: Buffer.from(JSON.stringify(storedRow(row)), 'utf8').toString('base64'),
		},
	);
	const id = requestIdOf(row);
	return {
		fields,
		fieldsJson: JSON.stringify(fields).replace(/\$/g, '\\u0024'),
		title: id !== null ? `Review ${id.slice(0, 80)}` : 'Review a row',
		judges: judges.map(({ key, scale, score }) => ({ key, scale, signature: score.signature })),
	};
}
