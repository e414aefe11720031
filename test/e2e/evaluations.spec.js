// The "Evaluate in n8n's Evaluations tab" example needs a running n8n (Data Table, test runner),
// so it runs as its own suite (test/e2e/evaluations.suite.js) rather than through `n8n execute`.
'use strict';
const path = require('node:path');

module.exports = [
	{
		name: "example evaluations-tab: n8n's test runner scores every Data Table row with our nodes",
		workflowId: 'ragEvalEvalTab001',
		suite: path.join(__dirname, 'evaluations.suite.js'),
	},
];
