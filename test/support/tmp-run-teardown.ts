/** Jest global teardown: removes the test run's temp folder (./tmp-run-setup.ts). */
import { rmSync } from 'node:fs';

export default function teardown(): void {
	const root = process.env.RAG_EVAL_TEST_RUN_TMP;
	if (root) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
