// The "Review and calibrate" example needs a running n8n (Data Tables, the review form's pages),
// so it runs as its own suite (test/e2e/review.suite.js) rather than through `n8n execute`.
'use strict';
const path = require('node:path');

module.exports = [
	{
		name: 'example review-and-calibrate: rows queued once, a reviewer answers the form over HTTP, labels calibrate the judges and grow the golden set',
		workflowId: 'ragEvalReview001',
		suite: path.join(__dirname, 'review.suite.js'),
	},
];
