/**
 * The Governor of one node execution (judges, safety nodes, service-backed judges), its circuit
 * breaker shared per endpoint+model: with the other nodes of the same execution (n8n's execution
 * id, in this process), and through the verdict cache's Redis (queue mode, or
 * RAG_EVAL_CACHE_REDIS_URL) with every worker. A Redis that fails never fails a row: the node uses
 * its own breaker state and says so once, in n8n's log and as a hint on its output. The adaptive
 * concurrency limit is shared per endpoint+model by the nodes of the execution too (in process).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { breakerRegistry } from '../../src/judges/breaker';
import { redisBackend, redisSettingsFromEnv } from '../../src/judges/cache';
import { Governor } from '../../src/judges/governor';
import { providerMaxConcurrency } from '../../src/judges/model';
import { governorOptions } from './llmOptions';

export interface NodeGovernor {
	governor: Governor;
	/** Waits for the breaker state still being written, then releases the Redis connection. */
	close(): Promise<void>;
}

export function nodeGovernor(
	ctx: IExecuteFunctions,
	options: IDataObject,
	env: NodeJS.ProcessEnv = process.env,
): NodeGovernor {
	const scope = executionId(ctx);
	const redis = redisSettingsFromEnv(env);
	const store = redis ? redisBackend(redis) : undefined;
	const opts = governorOptions(options);
	const start = opts.concurrency ?? 8;
	const governor = new Governor({
		...opts,
		// Max Concurrency 0: by provider (hosted OpenAI and Azure adapt, other servers stay fixed).
		maxConcurrency: opts.maxConcurrency ?? ((key) => providerMaxConcurrency(key) ?? start),
		share: {
			scope,
			store,
			onStoreError: (message) => {
				ctx.logger?.warn(`${ctx.getNode().name}: ${message}`);
				ctx.addExecutionHints?.({ message, type: 'warning', location: 'outputPane' });
			},
		},
	});
	// A cancelled execution's breaker state goes at once; a finished one's after its TTL.
	const signal = ctx.getExecutionCancelSignal?.();
	const release = (): void => {
		if (scope !== undefined) breakerRegistry.release(scope);
	};
	signal?.addEventListener('abort', release, { once: true });
	return {
		governor,
		async close() {
			signal?.removeEventListener('abort', release);
			await governor.flushShared();
			await store?.close().catch(() => undefined);
		},
	};
}

function executionId(ctx: IExecuteFunctions): string | undefined {
	try {
		const id = ctx.getExecutionId?.();
		return typeof id === 'string' && id !== '' ? id : undefined;
	} catch {
		return undefined;
	}
}
