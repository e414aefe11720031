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
import {
	DEFAULT_RATE_LIMIT_RETRIES,
	DEFAULT_ROW_DEADLINE_MS,
	DEFAULT_TIMEOUT_MS,
	Governor,
	type BreakerInfo,
	type BreakerState,
	type GovernorOptions,
} from '../../src/judges/governor';
import { providerMaxConcurrency } from '../../src/judges/model';

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
	const node = ctx.getNode().name;
	const told = new Set<string>();
	const tell = (message: string): void => {
		if (told.has(message)) return;
		told.add(message);
		ctx.logger?.warn(`${node}: ${message}`);
		ctx.addExecutionHints?.({ message, type: 'warning', location: 'outputPane' });
	};
	const governor = new Governor({
		...opts,
		// Cool-downs and verdicts show on the node and in n8n's log, not only in the rows' errors.
		onBreaker: (key, state, info) => {
			const message = breakerNotice(key, state, info);
			if (message) tell(message);
		},
		// Max Concurrency 0: by provider (hosted OpenAI and Azure adapt, other servers stay fixed).
		maxConcurrency: opts.maxConcurrency ?? ((key) => providerMaxConcurrency(key) ?? start),
		share: {
			scope,
			store,
			onStoreError: tell,
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

/**
 * The node's notice for a breaker transition: the model's name (the key's last part: never the
 * endpoint, whose URL could carry a user), what happened and what follows. Undefined: no notice.
 */
export function breakerNotice(
	key: string,
	state: BreakerState,
	info: BreakerInfo | undefined,
): string | undefined {
	const model = key.slice(key.lastIndexOf('|') + 1) || 'the judge model';
	if (!info) return undefined;
	if (state === 'open') {
		const wait = info.cooldownMs !== undefined ? `${info.cooldownMs / 1000} s` : 'the';
		return `judge model ${model}: ${info.text}; calls paused for a ${wait} cool-down, then a probe`;
	}
	if (state === 'closed') return `judge model ${model}: ${info.text}`;
	if (state === 'unavailable') return `judge model ${model} unavailable: ${info.text}`;
	return undefined;
}

/** Governor settings from the node's Options; absent or invalid values take the defaults. */
export function governorOptions(options: IDataObject): GovernorOptions {
	const num = (name: string, fallback: number, min = 0): number => {
		const v = options[name];
		return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
	};
	// 0 (the default): the provider's ceiling, chosen per endpoint in nodeGovernor.ts.
	const max = num('maxConcurrency', 0);
	return {
		concurrency: num('concurrency', 8, 1),
		maxConcurrency: max >= 1 ? Math.floor(max) : undefined,
		timeoutMs: num('timeoutSeconds', DEFAULT_TIMEOUT_MS / 1000, 0.001) * 1000,
		timeoutRetries: num('timeoutRetries', 1),
		maxRetries: num('maxRetries', 4),
		maxRateLimitRetries: num('maxRateLimitRetries', DEFAULT_RATE_LIMIT_RETRIES),
		rowDeadlineMs: num('rowDeadlineSeconds', DEFAULT_ROW_DEADLINE_MS / 1000) * 1000,
		nodeDeadlineMs: num('nodeDeadlineSeconds', 0) * 1000,
		breakerThreshold: num('breakerThreshold', 5),
		breakerCooldownMs: num('breakerCooldownSeconds', 10) * 1000,
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
