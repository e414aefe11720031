// "Bootstrap a golden set from your docs": a team with documents but no golden set drafts one
// with the Eval Set Generator, people review every draft on a form page, and only the drafts a
// person approved reach the golden-set Data Table, marked as generated. Three entry points:
//
// - Draft Questions: the sample documents (examples/datasets/golden-docs/*.md; replace the
//   "Your Documents" node with a document loader, a vector store's documents or Read Files) ->
//   Eval Set Generator (12 checked questions of five kinds) -> Review Queue (every draft, never
//   one twice) -> the drafts Data Table, status "draft". Questions the generator dropped, and
//   why, are on its Invalid output.
// - Review Drafts (a Form): one draft a page; the reviewer approves or rejects it and may
//   correct the question or the expected facts.
// - Promote Approved: approved drafts not yet in the golden set are appended to it with
//   source "generated (<generator signature>)" and the signed-in reviewer's email, then marked promoted.
//
// Both Data Tables are created by the workflow when missing (Reuse Existing Tables).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const DRAFTS_TABLE = 'rag-eval-golden-drafts';
const GOLDEN_TABLE = 'rag-eval-golden-set';
const DRAFT_COLUMNS = [
	'request_id',
	'fingerprint',
	'status',
	'kind',
	'request',
	'history',
	'expected_facts',
	'expected_response',
	'expected_retrieved_context',
	'generator',
	'check',
	'queued_at',
	'reviewer',
	'reviewed_at',
];
// The golden-set columns of the review example (src/review/labels.ts GOLDEN_TABLE_COLUMNS).
const GOLDEN_COLUMNS = [
	'request_id',
	'request',
	'expected_response',
	'expected_facts',
	'expected_retrieved_context',
	'source',
	'reviewer',
	'reviewed_at',
];

function documents() {
	const dir = path.join(__dirname, '..', 'datasets', 'golden-docs');
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.md'))
		.sort()
		.map((f) => ({ doc_uri: `docs/${f}`, text: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

// The review page: the draft shown as escaped HTML (document text is data, never markup), the
// decision, optional corrections, and the draft's id in a hidden field.
const DRAFT_PAGE_CODE = `const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const parse = (s, fallback) => { try { return JSON.parse(s); } catch { return fallback; } };
const d = $json;
const facts = parse(d.expected_facts, []);
const context = parse(d.expected_retrieved_context, []);
const history = parse(d.history, []);
const html = [
  '<h3>' + esc(d.kind) + ' question</h3>',
  history.length ? '<p><b>Conversation so far</b></p><ul>' + history.map((m) => '<li>' + esc(m.role) + ': ' + esc(m.content) + '</li>').join('') + '</ul>' : '',
  '<p><b>Question</b><br>' + esc(d.request) + '</p>',
  facts.length ? '<p><b>Expected facts</b></p><ul>' + facts.map((f) => '<li>' + esc(f) + '</li>').join('') + '</ul>' : '',
  d.expected_response ? '<p><b>Expected response</b><br>' + esc(d.expected_response) + '</p>' : '',
  '<p><b>Source chunks</b></p>' + (context.length ? context.map((c) => '<p><i>' + esc(c.doc_uri) + '</i><br>' + esc(c.content) + '</p>').join('') : '<p>none: the documents should not answer this question</p>'),
  '<p><small>Generator check: ' + esc(d.check) + '</small></p>',
].join('');
const fields = [
  { fieldName: 'draft', fieldLabel: 'Draft', fieldType: 'html', html },
  { fieldName: 'decision', fieldLabel: 'Keep this question in the golden set?', fieldType: 'radio', requiredField: true, fieldOptions: { values: [{ option: 'approve' }, { option: 'reject' }] } },
  { fieldName: 'corrected_question', fieldLabel: 'Corrected question (optional)', fieldType: 'textarea', requiredField: false },
  { fieldName: 'corrected_facts', fieldLabel: 'Corrected expected facts, one per line (optional)', fieldType: 'textarea', requiredField: false },
  { fieldName: 'request_id', fieldLabel: 'request_id', fieldType: 'hiddenField', fieldValue: d.request_id },
];
return { json: { fieldsJson: JSON.stringify(fields), title: 'Review a generated question' } };`;

const DECISION_CODE = `const f = $json;
// The reviewer is the n8n user signed in to this page (n8n User Auth adds user after the form's
// fields); a decision without one is refused, never saved under a typed or missing name.
const u = f.user;
if (!u || typeof u !== 'object' || typeof u.id !== 'string' || !u.id || typeof u.email !== 'string' || !u.email)
  throw new Error('draft ' + f.request_id + ': user: the submission carries no signed-in n8n user (Review Drafts needs n8n User Auth with Include User in Output)');
const pick = (v) => (Array.isArray(v) ? v[0] : v);
const facts = String(f.corrected_facts ?? '').split('\\n').map((s) => s.trim()).filter(Boolean);
const out = {
  request_id: f.request_id,
  status: pick(f.decision) === 'approve' ? 'approved' : 'rejected',
  reviewer: u.email,
  reviewed_at: new Date().toISOString(),
};
if (String(f.corrected_question ?? '').trim()) out.request = String(f.corrected_question).trim();
if (facts.length) out.expected_facts = JSON.stringify(facts);
return { json: out };`;

// Approved drafts the golden set does not hold yet, as golden-set rows. A conversational draft's
// history goes into the request as Databricks chat messages.
const TO_GOLDEN_CODE = `const have = new Set($('Get Golden Set').all().map((i) => i.json.request_id).filter(Boolean));
const parse = (s, fallback) => { try { return JSON.parse(s); } catch { return fallback; } };
return $('Get Approved Drafts').all()
  .filter((i) => i.json.request_id && !have.has(i.json.request_id))
  .map(({ json: d }) => {
    const history = parse(d.history, []);
    return { json: {
      request_id: d.request_id,
      request: history.length ? JSON.stringify({ messages: [...history, { role: 'user', content: d.request }] }) : d.request,
      expected_response: d.expected_response || '',
      expected_facts: d.expected_facts || '',
      expected_retrieved_context: d.expected_retrieved_context || '[]',
      source: 'generated (' + d.generator + ')',
      reviewer: d.reviewer || '',
      reviewed_at: d.reviewed_at || '',
    } };
  });`;

module.exports = ({
	P,
	workflow,
	sticky,
	table,
	mapped,
	allRowsOf,
	itemsOf,
	reviewQueueNode,
	reviewStartForm,
	nextWithStatus,
	anythingToReview,
	formPage,
	formEnd,
	appendAll,
}) => {
	const createTable = (name, columns) => ({
		resource: 'table',
		operation: 'create',
		tableName: name,
		columns: { column: columns.map((c) => ({ name: c, type: 'string' })) },
		options: { createIfNotExists: true },
	});
	const byRequestId = (value) => ({
		conditions: [{ keyName: 'request_id', condition: 'eq', keyValue: value }],
	});
	const wf = workflow(
		'bootstrapgolden',
		'ragEvalBootstrap01',
		'RAG evaluation: bootstrap a golden set from your docs',
		[
			sticky(
				'how it works',
				[-40, -360],
				[760, 260],
				'## Bootstrap a golden set from your docs\n\n1. **Draft Questions**: the Eval Set Generator writes checked questions (single fact, reasoning, multi-chunk, conversational follow-up, unanswerable) from your documents, each citing its source chunks. Every draft goes to the drafts Data Table.\n2. **Review Drafts**: open the form (Production URL of *Review Drafts*) signed in to n8n (only users who may run this workflow); approve or reject one draft a page, correcting it if needed.\n3. **Promote Approved**: only approved drafts reach the golden set, with `source` = generated and the reviewer. Generated rows are never mixed in unreviewed.',
			),
			{ name: 'Draft Questions', type: 'n8n-nodes-base.manualTrigger', pos: [0, 0] },
			{
				name: 'Drafts Table',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [220, 0],
				params: createTable(DRAFTS_TABLE, DRAFT_COLUMNS),
				executeOnce: true,
			},
			{
				name: 'Your Documents',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [440, 0],
				params: {
					jsCode: `// Replace with your documents: one item per document, {doc_uri, text}, or a document loader.\nreturn ${JSON.stringify(documents(), null, 2)}.map((json) => ({ json }));`,
				},
				notes: 'Four sample help-centre pages; use your own',
			},
			{
				name: 'Eval Set Generator',
				type: `${P}.evalSetGenerator`,
				pos: [660, 0],
				params: {
					rows: 12,
					mix: 'single_fact=4, reasoning=2, multi_chunk=2, conversational=2, unanswerable=2',
					seed: 1,
					options: { chunkSize: 600, chunkOverlap: 80, persona: 'a customer of the bike shop' },
				},
			},
			{
				name: 'Dropped Questions',
				type: 'n8n-nodes-base.noOp',
				// The generator is drawn 224 wide (its Chat Model input).
				pos: [1020, 180],
				notes: 'Why each dropped question was dropped',
			},
			allRowsOf(
				'Get Drafts',
				[1020, 0],
				DRAFTS_TABLE,
				'Drafts queued before are never queued again',
			),
			itemsOf('Generated Rows', [1260, 0], 'Eval Set Generator'),
			{
				...reviewQueueNode([1500, 0], { maxRows: 100, passingShare: 1, known: 'Get Drafts' }),
				notes: 'Every generated draft, once',
			},
			{
				name: 'Add Drafts',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [1740, -80],
				params: {
					operation: 'insert',
					dataTableId: table(DRAFTS_TABLE),
					columns: mapped({
						request_id: '={{ $json.request_id }}',
						fingerprint: '={{ $json.review.fingerprint }}',
						status: 'draft',
						kind: '={{ $json.metadata.generation.kind }}',
						request: '={{ $json.request }}',
						history: "={{ $json.history ? JSON.stringify($json.history) : '' }}",
						expected_facts:
							"={{ $json.expected_facts ? JSON.stringify($json.expected_facts) : '' }}",
						expected_response: "={{ $json.expected_response ?? '' }}",
						expected_retrieved_context: '={{ JSON.stringify($json.expected_retrieved_context) }}',
						generator: '={{ $json.metadata.generator }}',
						check: '={{ $json.eval.generation_check.reason }}',
						queued_at: '={{ $now.toISO() }}',
					}),
				},
			},
			reviewStartForm('Review Drafts', [0, 400], 'b00757a9-901d-4e5e-9a11-5a3f1ab0d001', {
				formTitle: 'Review generated questions',
				formDescription:
					'One draft a page: is the question sensible, and do the source chunks support the expected facts?',
				path: 'rag-eval-drafts',
			}),
			nextWithStatus('Next Draft', [220, 400], DRAFTS_TABLE, 'draft'),
			anythingToReview([440, 400], 'has-draft', '={{ $json.request_id }}'),
			{
				name: 'Draft Page',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [660, 340],
				params: { mode: 'runOnceForEachItem', jsCode: DRAFT_PAGE_CODE },
			},
			formPage(
				'Review This Draft',
				[880, 340],
				'b00757a9-901d-4e5e-9a11-5a3f1ab0d002',
				'={{ $json.fieldsJson }}',
				{
					formTitle: '={{ $json.title }}',
					buttonLabel: 'Save my decision',
				},
			),
			{
				name: 'Decision',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [1100, 340],
				params: { mode: 'runOnceForEachItem', jsCode: DECISION_CODE },
			},
			{
				name: 'Save Decision',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [1320, 340],
				params: {
					operation: 'update',
					dataTableId: table(DRAFTS_TABLE),
					filters: byRequestId('={{ $json.request_id }}'),
					columns: {
						mappingMode: 'autoMapInputData',
						value: {},
						matchingColumns: [],
						schema: [],
					},
					options: {},
				},
			},
			formEnd(
				'Decision Saved',
				[1540, 340],
				'b00757a9-901d-4e5e-9a11-5a3f1ab0d003',
				'Saved: thank you',
				'Open the review page again for the next draft.',
			),
			formEnd(
				'Nothing to Review',
				[660, 520],
				'b00757a9-901d-4e5e-9a11-5a3f1ab0d004',
				'No drafts left to review',
				'Run Draft Questions for more.',
			),
			{ name: 'Promote Approved', type: 'n8n-nodes-base.manualTrigger', pos: [0, 760] },
			{
				name: 'Golden Set Table',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [220, 760],
				params: createTable(GOLDEN_TABLE, GOLDEN_COLUMNS),
				executeOnce: true,
			},
			{
				name: 'Get Approved Drafts',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [440, 760],
				params: {
					operation: 'get',
					dataTableId: table(DRAFTS_TABLE),
					filters: { conditions: [{ keyName: 'status', condition: 'eq', keyValue: 'approved' }] },
					returnAll: true,
				},
				executeOnce: true,
			},
			allRowsOf('Get Golden Set', [660, 760], GOLDEN_TABLE),
			{
				name: 'To Golden Rows',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [880, 760],
				params: { jsCode: TO_GOLDEN_CODE },
			},
			appendAll('Append to Golden Set', [1100, 760], GOLDEN_TABLE),
			{
				name: 'Mark Promoted',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [1320, 760],
				params: {
					operation: 'update',
					dataTableId: table(DRAFTS_TABLE),
					filters: byRequestId(
						"={{ $json.request_id ?? $('To Golden Rows').item.json.request_id }}",
					),
					columns: mapped({ status: 'promoted' }),
					options: {},
				},
			},
		],
		[
			['Draft Questions', 'Drafts Table'],
			['Drafts Table', 'Your Documents'],
			['Your Documents', 'Eval Set Generator'],
			['Eval Set Generator', 'Get Drafts', 0],
			['Eval Set Generator', 'Dropped Questions', 1],
			['Get Drafts', 'Generated Rows'],
			['Generated Rows', 'Review Queue'],
			['Review Queue', 'Add Drafts', 0],
			['Review Drafts', 'Next Draft'],
			['Next Draft', 'Anything to Review?'],
			['Anything to Review?', 'Draft Page', 0],
			['Anything to Review?', 'Nothing to Review', 1],
			['Draft Page', 'Review This Draft'],
			['Review This Draft', 'Decision'],
			['Decision', 'Save Decision'],
			['Save Decision', 'Decision Saved'],
			['Promote Approved', 'Golden Set Table'],
			['Golden Set Table', 'Get Approved Drafts'],
			['Get Approved Drafts', 'Get Golden Set'],
			['Get Golden Set', 'To Golden Rows'],
			['To Golden Rows', 'Append to Golden Set'],
			['Append to Golden Set', 'Mark Promoted'],
		],
	);
	return { 'bootstrap-golden-set': wf };
};
