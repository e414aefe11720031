/**
 * Jest global setup: the test run gets a temp folder of its own and `TMPDIR` points into it before
 * the workers start, so every folder a test makes under `os.tmpdir()` (verdict caches, fixtures,
 * sweeps) goes when the run ends (./tmp-run-teardown.ts) instead of piling up in the system temp
 * dir. (Setting it in a test file's setup would not do: jest gives each file a copy of
 * `process.env`, and `os.tmpdir()` reads the real one.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): void {
	const root = mkdtempSync(join(tmpdir(), 'rag-eval-jest-'));
	process.env.RAG_EVAL_TEST_RUN_TMP = root;
	process.env.TMPDIR = root;
}
