// Production monitoring (issue 29) needs a running n8n (its public API, webhooks, Data Tables, the
// in-memory vector store), so it runs as its own suite (test/e2e/monitor.suite.js) rather than
// through `n8n execute`: the support agent, its knowledge base, the execution monitor and the
// pushed-traces example.
'use strict';
const path = require('node:path');

module.exports = [
	{
		name: 'example monitor-production-agent: 50 agent executions, a seeded 10% judged with request, answer, context, tokens, tool calls and the tools the agent had (agent judges too), one Slack message a run, none judged twice; monitor-pushed-traces: the kept share judged once',
		workflowId: 'ragEvalMonitor0001',
		covers: ['ragEvalMonitorApp01', 'ragEvalMonitorKb001', 'ragEvalTraces00001'],
		suite: path.join(__dirname, 'monitor.suite.js'),
	},
];
