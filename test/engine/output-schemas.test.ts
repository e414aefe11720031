/**
 * The output schemas the editor shows before a run (Schema view, mapping), one per node in
 * `nodes/<Node>/__schema__/v1.0.0.json` (and `v1.0.0/<operation>.json` for Review Labels), are
 * what the nodes output: every node runs here on sample rows on the real engine, its schema is
 * built from its items (nodes/shared/outputSchema.ts, Scores from the declared Score shape) and
 * must equal the committed file. A node whose output changed fails here until its file is
 * written again: `UPDATE_SCHEMAS=1 npx jest test/engine/output-schemas.test.ts`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
	tryToParseJsonToFormFields,
	type IDataObject,
	type INodeExecutionData,
	type INodeParameters,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { outputSchemaOf, scoreSchema, type JsonSchema } from '../../nodes/shared/outputSchema';
import { chain, runWorkflow, singleNode, type EngineRun } from '../support/engine';
import { agentExecution, createN8nApiServer } from '../support/n8n-api-server';
import { startOpenAIServer } from '../support/openai-server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const generatorModel = require('../support/generator-model.js') as {
	generatorReply(req: {
		messages?: unknown;
		responseFormat?: unknown;
	}): Record<string, unknown> | null;
};

const ROOT = path.resolve(__dirname, '../..');
const P = 'n8n-nodes-rag-eval';
const UPDATE = process.env.UPDATE_SCHEMAS === '1';
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[] };
};

type NodeClass = (new () => { description: INodeTypeDescription }) & { outputSchema?: JsonSchema };

/** Node folder, description and declared output schema (if any) of every node, by type name. */
const NODES = new Map<
	string,
	{ dir: string; description: INodeTypeDescription; declared?: JsonSchema }
>();
for (const built of pkg.n8n.nodes) {
	const source = path.join(ROOT, built.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
	const Cls = (require(source) as Record<string, NodeClass>)[path.basename(source, '.node.ts')];
	const d = new Cls().description;
	NODES.set(d.name, { dir: path.dirname(source), description: d, declared: Cls.outputSchema });
}

/** Two canonical rows with every field a metric or judge reads between them. */
const ROWS: IDataObject[] = [1, 2].map((i) => ({
	request_id: `q${i}`,
	request: i === 1 ? 'How long do refunds take?' : 'Can I collect my order in a store?',
	history: [
		{ role: 'user', content: 'Hello' },
		{ role: 'assistant', content: 'Hello, how can I help?' },
	],
	response:
		i === 1
			? 'Refunds are paid within 14 days.'
			: 'Yes, click and collect orders wait for seven days.',
	// A row gives an expected response or expected facts, never both.
	...(i === 1
		? { expected_response: 'Refunds are paid within 14 days of the return arriving.' }
		: { expected_facts: ['Orders wait seven days'] }),
	guidelines: ['Answer in one or two sentences'],
	retrieved_context: [
		{
			doc_uri: `kb/doc-${i}.md`,
			content:
				i === 1
					? 'Refunds are paid within 14 days of the return arriving at the warehouse.'
					: 'Click and collect orders are ready in two hours and wait at the desk for seven days.',
		},
	],
	expected_retrieved_context: [{ doc_uri: `kb/doc-${i}.md` }],
	latency_seconds: 1.5 * i,
	total_input_token_count: 100 * i,
	total_output_token_count: 20 * i,
	total_token_count: 120 * i,
	metadata: { app_version: '1.4.0' },
}));

const trace = (name: string): IDataObject =>
	JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/traces', name), 'utf8')) as IDataObject;

/**
 * Rows for nodes that read something else: Cost & Latency works its figures out of each row's
 * trace (its schema keeps the figures, not the trace it read).
 */
const START: Record<string, { rows: IDataObject[]; omit: string[] }> = {
	// Tool Calls reads what an agent did: its calls, the expected ones and its tools.
	evalToolCallMatch: {
		rows: [1, 2].map((i) => ({
			request_id: `q-${i}`,
			request: 'Refund order A1',
			tool_calls: [
				{
					id: 'c1',
					name: 'lookup_order',
					arguments: { order_id: 'A1' },
					result: 'ok',
					position: 0,
				},
			],
			expected_tool_calls: [{ name: 'lookup_order', arguments: { order_id: `A${i}` } }],
			tool_definitions: [{ name: 'lookup_order', description: 'Look an order up' }],
		})),
		omit: [],
	},
	// Pairwise Judge reads two variants' answers to one request.
	judgePairwise: {
		rows: ROWS.map((r) => ({
			request_id: r.request_id,
			request: r.request,
			variant_a: 'A',
			variant_b: 'B',
			response_a: r.response,
			response_b: 'I do not know.',
			retrieved_context: r.retrieved_context,
			expected_response: 'Refunds are paid within 14 days of the return arriving.',
		})),
		omit: [],
	},
	evalCostLatency: {
		rows: [
			{ request: 'How do I enable CDF?', trace: trace('mlflow2-rag.json') },
			{ request: 'Weather in Paris?', trace: trace('otlp-genai.json') },
		],
		omit: ['trace'],
	},
};

// The agent judges read what an agent did and what it should achieve besides the canonical fields.
const AGENT_ROWS: IDataObject[] = ROWS.map((r) => ({
	...r,
	tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A1' }, result: 'ok', position: 0 }],
	tool_definitions: [{ name: 'lookup_order', description: 'Look an order up' }],
	expected_outcome: 'The customer knows when the refund arrives.',
}));
for (const name of [
	'judgeIntentResolution',
	'judgeToolCallAccuracy',
	'judgeTaskAdherence',
	'judgeTaskCompletion',
	'judgeResponseCompleteness',
	'judgeAgentGoalAccuracy',
	'judgeAgentGoalAccuracyWithoutReference',
])
	START[name] = { rows: AGENT_ROWS, omit: [] };

/** Parameters a node needs to run at all (the rest stay at their defaults). */
const PARAMS: Record<string, INodeParameters> = {
	judgeCustomJudge: { judgeName: 'tone', criterion: 'The response is polite.' },
	// A model the price table knows, so the rows get their cost too.
	evalCostLatency: { model: 'gpt-4o-mini' },
};

const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));

/** Items of the given outputs of a node (all outputs when none is named). */
function outputsOf(run: EngineRun, node: string, outputs?: number[]): IDataObject[] {
	const which = outputs ?? Array.from({ length: run.outputCount(node) }, (_, i) => i);
	return which.flatMap((o) => run.output(node, o));
}

function expectRan(run: EngineRun, ...nodes: string[]): void {
	for (const n of nodes) expect(run.nodeError(n)).toBeUndefined();
}

/** The record fields a scoring node reads: inputs whose default is `={{ $json.<field> }}`. */
function readFields(d: INodeTypeDescription): Set<string> {
	const out = new Set<string>();
	for (const p of d.properties) {
		const m = typeof p.default === 'string' ? /^=\{\{ \$json\.(\w+) \}\}$/.exec(p.default) : null;
		if (m) out.add(m[1]);
	}
	return out;
}

const isScoring = (d: INodeTypeDescription) =>
	typeof d.outputs === 'string' && d.outputs.includes('splitOutputs');

const typesOf = (s: JsonSchema | undefined): string[] =>
	s?.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];

/**
 * A declared schema says what the node output: the same fields (in the declaration's order), the same
 * Scores, and for every passed-through record field a type the output had.
 */
function expectDescribes(name: string, declared: JsonSchema, inferred: JsonSchema): void {
	const d = declared.properties ?? {};
	const i = inferred.properties ?? {};
	expect({ name, fields: Object.keys(d).sort() }).toEqual({ name, fields: Object.keys(i).sort() });
	expect({ name, eval: d.eval }).toEqual({ name, eval: i.eval });
	for (const k of Object.keys(i))
		for (const t of typesOf(i[k]))
			expect({ name, field: k, type: t, declared: typesOf(d[k]).includes(t) }).toEqual({
				name,
				field: k,
				type: t,
				declared: true,
			});
}

/** Schema files by path relative to the repository, as the test builds them. */
const generated = new Map<string, JsonSchema>();
function record(name: string, schema: JsonSchema, operation?: string): void {
	const node = NODES.get(name);
	if (!node) throw new Error(`unknown node ${name}`);
	const rel = path.relative(
		ROOT,
		path.join(node.dir, '__schema__', operation ? `v1.0.0/${operation}.json` : 'v1.0.0.json'),
	);
	generated.set(rel, schema);
}

describe('output schemas: what each node outputs on a sample run', () => {
	it('scoring nodes: the fields they read, the fields they add and their Scores under eval', async () => {
		const scoring = [...NODES.entries()].filter(([, n]) => isScoring(n.description));
		expect(scoring.length).toBeGreaterThan(25);
		for (const [name, { description }] of scoring) {
			const { rows, omit } = START[name] ?? { rows: ROWS, omit: [] };
			const run = await runWorkflow(singleNode(`${P}.${name}`, PARAMS[name] ?? {}), {
				startItems: items(rows),
			});
			expectRan(run, 'Node');
			const out = run.output('Node');
			expect(out).toHaveLength(rows.length);
			const reads = readFields(description);
			const added = new Set(Object.keys(out[0]).filter((k) => !(k in rows[0])));
			const inferred = outputSchemaOf(out, {
				keep: (k) => (reads.has(k) || added.has(k)) && !omit.includes(k),
			});
			const { declared } = NODES.get(name)!;
			if (declared) expectDescribes(name, declared, inferred);
			else record(name, inferred);
			// Every row leaves with a Score under eval, as the schema says.
			expect(Object.keys(out[0].eval as IDataObject).length).toBeGreaterThan(0);
		}
	});

	it('the run pipeline: dataset, router, aggregate, gate, report, review and agreement', async () => {
		const run = await runWorkflow(
			chain(
				{ name: 'Eval Dataset', type: 'evalDataset', parameters: { source: 'items' } },
				{ name: 'F1 Score', type: 'evalF1Score' },
				{ name: 'Groundedness', type: 'judgeGroundedness' },
				{ name: 'Root-Cause Router', type: 'rootCauseRouter' },
			),
			{ startItems: items(ROWS) },
		);
		expectRan(run, 'Eval Dataset', 'Root-Cause Router');
		record('evalDataset', outputSchemaOf(run.output('Eval Dataset', 0)));
		const routed = outputsOf(run, 'Root-Cause Router');
		expect(routed).toHaveLength(ROWS.length);
		record('rootCauseRouter', outputSchemaOf(routed));

		const aggregate = await runWorkflow(singleNode(`${P}.evalAggregate`, { output: 'summary' }), {
			startItems: items(routed),
		});
		expectRan(aggregate, 'Node');
		const [summary] = aggregate.output('Node');
		record('evalAggregate', outputSchemaOf([summary]));

		const gate = await runWorkflow(
			singleNode(`${P}.regressionGate`, {
				baseline: JSON.stringify(summary),
				defaultTolerance: 0.05,
				options: { minCoverage: 0 },
			}),
			{ startItems: items([summary]) },
		);
		expectRan(gate, 'Node');
		const gated = outputsOf(gate, 'Node');
		record('regressionGate', outputSchemaOf(gated));

		const report = await runWorkflow(singleNode(`${P}.evalReport`, {}), {
			startItems: items([summary]),
		});
		expectRan(report, 'Node');
		record('evalReport', outputSchemaOf(report.output('Node')));

		// Compare Variants: the routed rows as two variants of one app.
		const compared = await runWorkflow(singleNode(`${P}.compareVariants`, {}), {
			startItems: items(['A', 'B'].flatMap((variant) => routed.map((r) => ({ ...r, variant })))),
		});
		expectRan(compared, 'Node');
		record('compareVariants', outputSchemaOf(compared.output('Node')));

		// Review: queue every row, build its form, submit it, record the label, promote it.
		const review = await runWorkflow(
			chain(
				{
					name: 'Review Queue',
					type: 'reviewQueue',
					parameters: { maxRows: 10, passingShare: 1, seed: 1 },
				},
				// Rows from Eval Dataset carry their row number as `row`, which the default
				// `$json.row ?? $json.review?.row` would read: point it at the queued row.
				{
					name: 'Review Form',
					type: 'reviewLabels',
					parameters: { operation: 'form', row: '={{ $json.review.row }}' },
				},
			),
			{ startItems: items(routed) },
		);
		expectRan(review, 'Review Queue', 'Review Form');
		record('reviewQueue', outputSchemaOf(outputsOf(review, 'Review Queue')));
		const forms = review.output('Review Form');
		expect(forms.length).toBeGreaterThan(0);
		const form = outputSchemaOf(forms);
		record('reviewLabels', form, 'form');
		// The default operation (Review Form) is also what the editor asks for without one.
		record('reviewLabels', form);
		const submissions = forms.map((f, i) => {
			const fields = tryToParseJsonToFormFields(
				(f.review_form as { fieldsJson: string }).fieldsJson,
			) as unknown as IDataObject[];
			const hidden = Object.fromEntries(
				fields.filter((x) => x.fieldType === 'hiddenField').map((x) => [x.fieldName, x.fieldValue]),
			);
			return {
				review_page: null,
				verdict__groundedness: '4',
				corrected_answer: `Corrected answer ${i}`,
				expected_facts: '',
				...hidden,
				user: { id: 'u-ana', email: 'ana@example.com', firstName: 'Ana', lastName: 'R' },
				submittedAt: '2026-12-01T10:00:00.000+00:00',
				formMode: 'production',
			};
		});
		const labelled = await runWorkflow(singleNode(`${P}.reviewLabels`, { operation: 'label' }), {
			startItems: items(submissions),
		});
		expectRan(labelled, 'Node');
		const labels = labelled.output('Node');
		record('reviewLabels', outputSchemaOf(labels), 'label');
		const promoted = await runWorkflow(
			singleNode(`${P}.reviewLabels`, { operation: 'promote', output: 'objects', existing: '[]' }),
			{ startItems: items(labels) },
		);
		expectRan(promoted, 'Node');
		expect(promoted.output('Node').length).toBeGreaterThan(0);
		record('reviewLabels', outputSchemaOf(promoted.output('Node')), 'promote');

		const agreement = await runWorkflow(
			singleNode(`${P}.judgeAgreement`, { source: 'reviewLabels' }),
			{ startItems: items(labels) },
		);
		expectRan(agreement, 'Node');
		record('judgeAgreement', outputSchemaOf(agreement.output('Node')));
	});

	it('red teaming: injector, simulator and jailbreak comparison', async () => {
		const injected = await runWorkflow(
			chain(
				{
					name: 'Attack Injector',
					type: 'evalAttackInjector',
					parameters: { mode: 'direct', seed: 7 },
				},
				{ name: 'Content Safety', type: 'evalContentSafety' },
				{ name: 'Jailbreak Comparison', type: 'evalJailbreakComparison' },
			),
			{ startItems: items(ROWS) },
		);
		expectRan(injected, 'Attack Injector', 'Jailbreak Comparison');
		record('evalAttackInjector', outputSchemaOf(injected.output('Attack Injector')));
		// The Summary output (the Pairs output lists the rows beside their baselines).
		record('evalJailbreakComparison', outputSchemaOf(injected.output('Jailbreak Comparison', 0)));
		const simulated = await runWorkflow(singleNode(`${P}.evalAttackSimulator`, { seed: 7 }), {
			startItems: items(ROWS),
		});
		expectRan(simulated, 'Node');
		record('evalAttackSimulator', outputSchemaOf(simulated.output('Node')));
	});

	it('production rows: Eval Executions from the n8n API, Eval Set Generator from documents', async () => {
		const key = 'n8n_api_schema-test-key';
		const api = createN8nApiServer({ apiKey: key, workflows: [{ id: 'wf-agent', name: 'Agent' }] });
		const url = await api.listen();
		try {
			for (const id of [1, 2])
				api.add(
					agentExecution(id, {
						workflowId: 'wf-agent',
						startedMs: Date.now() - 60_000 * (3 - id),
						status: 'success',
					}),
				);
			const executions = await runWorkflow(
				{
					nodes: [
						{
							id: 's',
							name: 'Start',
							type: 'n8n-nodes-base.manualTrigger',
							typeVersion: 1,
							position: [0, 0],
							parameters: {},
						},
						{
							id: 'e',
							name: 'Node',
							type: `${P}.evalExecutions`,
							typeVersion: 1,
							position: [200, 0],
							parameters: {
								workflowId: { __rl: true, mode: 'id', value: 'wf-agent' },
								sampling: 'all',
								window: 'all',
							},
							credentials: { n8nApi: { id: 'cred-n8n', name: 'n8n account' } },
						},
					],
					connections: { Start: { main: [[{ node: 'Node', type: 'main', index: 0 }]] } },
				},
				{ credentials: { n8nApi: { apiKey: key, baseUrl: url } } },
			);
			expectRan(executions, 'Node');
			expect(executions.output('Node')).toHaveLength(2);
			record('evalExecutions', outputSchemaOf(executions.output('Node', 0)));
		} finally {
			api.close();
		}

		const server = await startOpenAIServer();
		try {
			server.setDefault((req) => {
				const g = generatorModel.generatorReply(req);
				if (g) return { json: g };
				return { json: { reason: 'Every fact is in the context.', verdict: 'yes' } };
			});
			const docs = [
				{
					id: 'kb/refunds.md',
					text: '# Refunds\n\nRefunds are paid within 14 days of the return arriving at the warehouse. Store credit is issued instantly instead when the customer asks for it.',
				},
				{
					id: 'kb/pickup.md',
					text: '# Pickup\n\nClick and collect orders are ready in two hours at city stores. Orders wait at the desk for seven days before they are returned.',
				},
			];
			const generatedRows = await runWorkflow(
				chain({
					name: 'Node',
					type: 'evalSetGenerator',
					parameters: { rows: 2, mix: 'single_fact=1', seed: 1, options: { cache: false } },
					credentials: { ragEvalLlmApi: { id: '1', name: 'Judge' } },
				}),
				{
					startItems: items(docs),
					credentials: {
						ragEvalLlmApi: { provider: 'compatible', baseUrl: server.baseUrl, model: 'gen-model' },
					},
				},
			);
			expectRan(generatedRows, 'Node');
			expect(generatedRows.output('Node', 0).length).toBeGreaterThan(0);
			record('evalSetGenerator', outputSchemaOf(generatedRows.output('Node', 0)));
		} finally {
			await server.close();
		}
	});

	const text = (s: JsonSchema) => `${JSON.stringify(s, null, '\t')}\n`;
	afterAll(() => {
		if (!UPDATE) return;
		for (const [rel, schema] of generated) {
			mkdirSync(path.dirname(path.join(ROOT, rel)), { recursive: true });
			writeFileSync(path.join(ROOT, rel), text(schema));
		}
	});

	it('every node has its schema, each committed file equals the one built from its sample run', () => {
		// Runs after the sample runs above (jest runs a file's tests in order).
		for (const { dir, declared } of NODES.values())
			expect({
				dir,
				schema:
					declared !== undefined ||
					generated.has(path.relative(ROOT, path.join(dir, '__schema__', 'v1.0.0.json'))),
			}).toEqual({ dir, schema: true });
		if (UPDATE) return;
		const committed: string[] = [];
		const walk = (d: string): void => {
			for (const e of readdirSync(d, { withFileTypes: true }))
				if (e.isDirectory()) walk(path.join(d, e.name));
				else committed.push(path.relative(ROOT, path.join(d, e.name)));
		};
		for (const { dir } of NODES.values())
			if (existsSync(path.join(dir, '__schema__'))) walk(path.join(dir, '__schema__'));
		expect(committed.sort()).toEqual([...generated.keys()].sort());
		const stale = [...generated]
			.filter(([rel, schema]) => readFileSync(path.join(ROOT, rel), 'utf8') !== text(schema))
			.map(([rel]) => rel);
		if (stale.length > 0)
			throw new Error(
				`These nodes output something else than their committed schema says: ${stale.join(', ')}. If the change is meant, write the schemas again: UPDATE_SCHEMAS=1 npx jest test/engine/output-schemas.test.ts`,
			);
	});

	it('describes each Score with the declared Score shape', () => {
		const judge = NODES.get('judgeGroundedness')?.declared;
		expect(judge?.properties?.eval?.properties?.groundedness).toEqual(scoreSchema());
		expect(Object.keys(judge?.properties ?? {})).toEqual([
			'groundedness',
			'groundedness_pass',
			'request',
			'retrieved_context',
			'response',
			'eval',
		]);
		const custom = generated.get('nodes/JudgeCustom/__schema__/v1.0.0.json');
		expect(custom?.properties?.eval?.properties?.tone).toEqual(scoreSchema());
	});
});
