/**
 * Jest setup: judge nodes cache verdicts by default, so every test file gets its own empty cache
 * folder under the system temp dir (never n8n's user folder in the home directory). The temp dir
 * is the test run's own folder (test/support/tmp-run-setup.ts), removed when the run ends.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.RAG_EVAL_CACHE_DIR = mkdtempSync(join(tmpdir(), 'rag-eval-cache-test-'));
// A developer's queue-mode or explicit Redis settings must not leak into unit and engine tests.
delete process.env.RAG_EVAL_CACHE_REDIS_URL;
delete process.env.EXECUTIONS_MODE;
