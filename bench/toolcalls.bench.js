'use strict';
/**
 * Tool Calls per row: 10,000 rows of 10-call trajectories (against 10 expected calls: right
 * calls, wrong arguments, a failed call, a swapped pair, an extra call, a loop) through the Tool
 * Calls node in the engine harness (bench/engine.js: n8n-core's WorkflowExecute in this process),
 * printed beside two references measured in the same run: the same comparison as a library call
 * (evaluateMetricScores, no n8n), and n8n's NoOp node on the same items (the engine's own cost of
 * passing 10,000 items through a node). Real n8n is not measured here (bench/n8n-scale.bench.js
 * has the harness for it).
 *
 *   node bench/toolcalls.bench.js [--rows 10000] [--repeat 3]
 */
const path = require('node:path');
const { ROOT, mulberry32 } = require('./env');

const argOf = (name) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? process.argv[i + 1] : undefined;
};
const ROWS = Number(argOf('rows') ?? 10000);
const REPEAT = Number(argOf('repeat') ?? 3);

const lib = require(path.join(ROOT, 'dist/src/index.js'));
const { evaluateMetricScores } = require(path.join(ROOT, 'dist/src/core/evaluate.js'));
const { runWorkflow } = require('./engine');

const TOOLS = ['search_kb', 'lookup_order', 'lookup_customer', 'refund_order', 'send_email'];

function rows() {
	const rand = mulberry32(36);
	const out = [];
	for (let r = 0; r < ROWS; r++) {
		const expected = Array.from({ length: 10 }, (_, i) => ({
			name: TOOLS[i % TOOLS.length],
			arguments: { id: `${r}-${i}`, limit: 5, filters: { region: 'eu', since: '2024-01-01' } },
		}));
		const calls = expected.map((c, i) => ({
			id: `call_${r}_${i}`,
			...structuredClone(c),
			result: `{"ok":true,"rows":${i}}`,
		}));
		const kind = Math.floor(rand() * 6);
		if (kind === 1) calls[3].arguments.id = 'wrong';
		else if (kind === 2) calls[5].error = 'HTTP 503 from the order service';
		else if (kind === 3) [calls[1], calls[2]] = [calls[2], calls[1]];
		else if (kind === 4) calls[9] = { name: 'send_email', arguments: { to: 'x@example.com' } };
		else if (kind === 5) calls[8] = structuredClone(calls[7]);
		out.push({ request_id: `r${r}`, tool_calls: calls, expected_tool_calls: expected });
	}
	return out;
}

function node(name, type, x, parameters = {}) {
	return { id: name, name, type, typeVersion: 1, position: [x, 0], parameters };
}

async function enginePass(data) {
	const P = 'n8n-nodes-rag-eval';
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 0),
		node('NoOp', 'n8n-nodes-base.noOp', 200),
		node('Tool Calls', `${P}.evalToolCallMatch`, 400),
	];
	const connections = {
		Start: { main: [[{ node: 'NoOp', type: 'main', index: 0 }]] },
		NoOp: { main: [[{ node: 'Tool Calls', type: 'main', index: 0 }]] },
	};
	const { nodes: t } = await runWorkflow(
		{ nodes, connections },
		{ startItems: data.map((json) => ({ json: structuredClone(json) })) },
	);
	if (t['Tool Calls'].error) throw new Error(t['Tool Calls'].error);
	if (t['Tool Calls'].items !== data.length) throw new Error('rows lost');
	return { node: t['Tool Calls'].cpuMs, noop: t.NoOp.cpuMs };
}

function libraryPass(data) {
	const c0 = process.cpuUsage();
	let ok = 0;
	for (const row of data) {
		const s = evaluateMetricScores(lib.toolCallsMetric, {
			toolCalls: row.tool_calls,
			expectedToolCalls: row.expected_tool_calls,
		});
		if (s.tool_call_match.status === 'ok') ok++;
	}
	const c = process.cpuUsage(c0);
	if (ok !== data.length) throw new Error(`${data.length - ok} rows not scored`);
	return (c.user + c.system) / 1000;
}

async function main() {
	const data = rows();
	const perRow = (ms) => `${((ms / ROWS) * 1000).toFixed(1)} us/row`;
	const best = { node: Infinity, noop: Infinity, lib: Infinity };
	for (let i = 0; i < REPEAT; i++) {
		// Interleaved, so machine load falls on both alike; the best of each is kept.
		best.lib = Math.min(best.lib, libraryPass(data));
		const e = await enginePass(data);
		best.node = Math.min(best.node, e.node);
		best.noop = Math.min(best.noop, e.noop);
	}
	console.log(`Tool Calls, ${ROWS} rows of 10-call trajectories (best of ${REPEAT}, CPU time)`);
	console.log(`  library (evaluateMetricScores): ${perRow(best.lib)}`);
	console.log(
		`  Tool Calls node (engine):       ${perRow(best.node)}  ${(best.node / best.lib).toFixed(2)}x the library`,
	);
	console.log(
		`  NoOp node (engine, same items): ${perRow(best.noop)}  node / NoOp ${(best.node / best.noop).toFixed(1)}x`,
	);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
