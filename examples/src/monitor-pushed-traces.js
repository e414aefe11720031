// Traces pushed by other apps (issue 29): an app instrumented with OpenTelemetry (GenAI or
// OpenInference attributes) or Langfuse posts its traces to an authenticated n8n webhook; a
// seeded share of them is kept in an n8n Data Table, and every night the new rows are read into
// canonical rows (Eval Dataset reads request, answer, retrieved context, tokens and latency from
// the `trace` column), judged by the same reference-free judges as the execution monitor,
// aggregated, reported to Slack and marked judged, so no trace is judged twice.
// `npm start` creates the Data Table; test/e2e/monitor.suite.js runs both halves on a real n8n.
'use strict';

const TRACES_ID = 'ragEvalTraces00001';
const TRACES_TABLE = 'rag-eval-pushed-traces';
const WEBHOOK_AUTH = {
	httpHeaderAuth: { id: 'ragEvalWebhookAuth', name: 'RAG eval webhook token' },
};
/** Share of posted traces kept (percent) and the seed of the sampling hash. */
const SAMPLE_PERCENT = 25;
const SAMPLE_SEED = 1;

module.exports = ({ P, workflow, sticky, table, mapped, referenceFreeJudges, slackWebhook }) => {
	const traces = workflow(
		'monitor-traces',
		TRACES_ID,
		'RAG monitoring: judge traces pushed by other apps',
		[
			{
				name: 'Traces In',
				type: 'n8n-nodes-base.webhook',
				v: 2,
				pos: [0, 0],
				webhookId: '9c2e4a17-5b3d-4f8e-a1c0-7d6b2e9f4a51',
				params: {
					httpMethod: 'POST',
					path: 'rag-eval-traces',
					authentication: 'headerAuth',
					responseMode: 'responseNode',
					options: {},
				},
				credentials: WEBHOOK_AUTH,
				notes:
					'POST an OTLP JSON export, {"trace": ...} or {"traces": [...]} with Authorization: Bearer <token>',
			},
			{
				name: 'Sample Traces',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [240, 0],
				params: { jsCode: sampleTracesCode() },
				notes: `Keeps a seeded ${SAMPLE_PERCENT}% of traces (by trace id)`,
			},
			{
				name: 'Accepted',
				type: 'n8n-nodes-base.respondToWebhook',
				v: 1.1,
				pos: [480, -120],
				params: {
					respondWith: 'json',
					responseBody: '={{ { received: $json.received, kept: $json.kept.length } }}',
					options: { responseCode: 202 },
				},
			},
			{
				name: 'Kept Traces',
				type: 'n8n-nodes-base.splitOut',
				pos: [480, 120],
				params: { fieldToSplitOut: 'kept', options: {} },
			},
			{
				name: 'Not Stored Yet',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [720, 120],
				params: {
					operation: 'rowNotExists',
					dataTableId: table(TRACES_TABLE),
					filters: {
						conditions: [
							{ keyName: 'trace_id', condition: 'eq', keyValue: '={{ $json.trace_id }}' },
						],
					},
				},
				notes: 'A trace posted again (a retry) is stored, and judged, once',
			},
			{
				name: 'Store Trace',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [960, 120],
				params: {
					operation: 'insert',
					dataTableId: table(TRACES_TABLE),
					columns: mapped({
						trace_id: '={{ $json.trace_id }}',
						trace: '={{ $json.trace }}',
						format: '={{ $json.format }}',
						received_at: '={{ $json.received_at }}',
						status: 'new',
					}),
				},
			},
			{
				name: 'Every Night',
				type: 'n8n-nodes-base.scheduleTrigger',
				v: 1.2,
				pos: [0, 400],
				params: { rule: { interval: [{ triggerAtHour: 3 }] } },
			},
			{ name: 'Run Now', type: 'n8n-nodes-base.manualTrigger', pos: [0, 580] },
			{
				name: 'New Traces',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [240, 490],
				params: {
					operation: 'get',
					dataTableId: table(TRACES_TABLE),
					filters: { conditions: [{ keyName: 'status', condition: 'eq', keyValue: 'new' }] },
					returnAll: true,
				},
				notes: 'Only rows not judged yet; none: the run ends here',
			},
			{
				name: 'Eval Dataset',
				type: `${P}.evalDataset`,
				pos: [480, 490],
				params: {
					source: 'items',
					schema: 'auto',
					mapping: { pairs: [{ from: 'trace_id', to: 'request_id' }] },
				},
				notes: 'Request, answer, context, tokens and latency from the trace column',
			},
			// The judges (drawn 224 wide, their Chat Model input) on the night's first row; the summary,
			// the report and the bookkeeping on a second row under it.
			...referenceFreeJudges([720, 490]),
			{
				name: 'Eval Aggregate',
				type: `${P}.evalAggregate`,
				pos: [480, 860],
				params: { output: 'summary', options: { minCoverage: 95 } },
			},
			{
				name: 'Eval Report',
				type: `${P}.evalReport`,
				pos: [720, 860],
				params: {
					title: 'Traces pushed by our apps',
					formats: ['slack', 'markdown'],
					options: {
						rows: "={{ $('Cost & Latency').all().map((item) => item.json) }}",
						runUrl:
							"={{ 'http://localhost:5678/workflow/' + $workflow.id + '/executions/' + $execution.id }}",
						maxWorstRows: 5,
						mention: 'here',
					},
				},
				notes: 'Change localhost:5678 in Options -> Run URL to your n8n address',
			},
			slackWebhook([960, 860], '={{ JSON.stringify($json.slack) }}'),
			{
				name: 'Judged Rows',
				type: 'n8n-nodes-base.code',
				v: 2,
				pos: [1200, 860],
				params: {
					jsCode: [
						'// Every row read tonight leaves the queue: judged, or invalid when its trace could not be read',
						"// (Eval Dataset's Invalid output says why). Marked after the report, so a run that fails",
						'// before it leaves the rows for the next night.',
						"const valid = new Set($('Eval Dataset').all(0).map((i) => i.json.request_id));",
						"return $('New Traces').all().map((i) => ({ json: { trace_id: i.json.trace_id, status: valid.has(i.json.trace_id) ? 'judged' : 'invalid' } }));",
					].join('\n'),
				},
			},
			{
				name: 'Mark Judged',
				type: 'n8n-nodes-base.dataTable',
				v: 1.1,
				pos: [1440, 860],
				params: {
					operation: 'update',
					dataTableId: table(TRACES_TABLE),
					filters: {
						conditions: [
							{ keyName: 'trace_id', condition: 'eq', keyValue: '={{ $json.trace_id }}' },
						],
					},
					columns: mapped({
						status: '={{ $json.status }}',
						judged_at: '={{ $now.toISO() }}',
						judged_in: '={{ $execution.id }}',
					}),
					options: {},
				},
			},
			sticky(
				'Pushed traces',
				[1200, -160],
				[980, 300],
				[
					'## Traces pushed by other apps',
					`Your app posts its traces here (OTLP JSON from an OpenTelemetry exporter, GenAI or OpenInference`,
					`attributes, or a Langfuse export). A seeded **${SAMPLE_PERCENT}%** is kept in the Data Table`,
					`"${TRACES_TABLE}" (\`npm start\` creates it); every night the new rows are judged like the`,
					'execution monitor and marked judged. **Change**: the judge-model credential, Run URL, the Slack',
					'webhook URL, the share in Sample Traces; then publish. Only the kept traces are stored.',
				].join('\n'),
			),
		],
		[
			['Traces In', 'Sample Traces'],
			['Sample Traces', 'Accepted'],
			['Sample Traces', 'Kept Traces'],
			['Kept Traces', 'Not Stored Yet'],
			['Not Stored Yet', 'Store Trace'],
			['Every Night', 'New Traces'],
			['Run Now', 'New Traces'],
			['New Traces', 'Eval Dataset'],
			['Eval Dataset', 'Groundedness'],
			['Groundedness', 'Relevance to Query'],
			['Relevance to Query', 'Safety'],
			['Safety', 'Content Safety'],
			['Content Safety', 'Cost & Latency'],
			['Cost & Latency', 'Eval Aggregate'],
			['Eval Aggregate', 'Eval Report'],
			['Eval Report', 'Post to Slack'],
			['Post to Slack', 'Judged Rows'],
			['Judged Rows', 'Mark Judged'],
		],
	);
	return { 'monitor-pushed-traces': traces };
};

/**
 * Code of "Sample Traces": the posted body as traces (an OTLP export is split by trace id; a
 * Langfuse export is one trace; {"traces": [...]} several), each kept when the FNV-1a hash of
 * `<seed>:<trace id>` falls under the share: the same trace is always kept or always dropped,
 * whichever app or retry posts it. One item out: { received, kept: [rows for the Data Table] }.
 */
function sampleTracesCode() {
	return `const SAMPLE_PERCENT = ${SAMPLE_PERCENT};
const SEED = ${SAMPLE_SEED};
// 32-bit FNV-1a: a stable hash without modules (the Code node has no crypto by default).
const fnv1a = (text) => {
	let h = 0x811c9dc5;
	for (const ch of new TextEncoder().encode(text)) h = Math.imul(h ^ ch, 0x01000193) >>> 0;
	return h;
};
const keep = (id) => fnv1a(SEED + ':' + id) / 2 ** 32 < SAMPLE_PERCENT / 100;
const body = $json.body;
const list = [];
const addOtlp = (doc) => {
	// One OTLP document per trace id, keeping each span's resource and scope.
	const byTrace = new Map();
	for (const rs of doc.resourceSpans ?? [])
		for (const ss of rs.scopeSpans ?? rs.instrumentationLibrarySpans ?? [])
			for (const span of ss.spans ?? []) {
				const id = String(span.traceId ?? '');
				if (!byTrace.has(id)) byTrace.set(id, new Map());
				const scopes = byTrace.get(id);
				const key = rs.resource ?? null;
				if (!scopes.has(key)) scopes.set(key, { resource: rs.resource, scopeSpans: [] });
				const r = scopes.get(key);
				let s = r.scopeSpans.find((x) => x.scope === ss.scope);
				if (!s) r.scopeSpans.push((s = { scope: ss.scope, spans: [] }));
				s.spans.push(span);
			}
	for (const [id, scopes] of byTrace) list.push({ id, format: 'otlp', trace: { resourceSpans: [...scopes.values()] } });
};
const add = (t) => {
	if (t && typeof t === 'object' && Array.isArray(t.resourceSpans)) return addOtlp(t);
	if (t && typeof t === 'object' && t.trace && Array.isArray(t.observations))
		return list.push({ id: String(t.trace.id ?? ''), format: 'langfuse', trace: t });
	if (Array.isArray(t) && t.length > 0)
		return list.push({ id: String(t[0].traceId ?? t[0].context?.trace_id ?? t[0]._spanContext?.traceId ?? t[0].spanContext?.traceId ?? ''), format: 'spans', trace: t });
	throw new Error('Not a trace: post an OTLP JSON export (resourceSpans), a Langfuse export (trace, observations) or a list of spans, alone or as {"traces": [...]}');
};
if (body && Array.isArray(body.traces)) body.traces.forEach(add);
else add(body && body.trace !== undefined && !Array.isArray(body.observations) ? body.trace : body);
const now = new Date().toISOString();
const kept = list
	.map((t) => ({ ...t, id: t.id || 'sha-' + fnv1a(JSON.stringify(t.trace)).toString(16) }))
	.filter((t) => keep(t.id))
	.map((t) => ({ trace_id: t.id, trace: JSON.stringify(t.trace), format: t.format, received_at: now }));
return [{ json: { received: list.length, kept } }];`;
}
