/** Token usage arithmetic shared by the judge runtime, the cache and the safety evaluators. */
import type { Usage } from './types';

/** Sum of two usages; either may be absent. */
export function sumUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
	if (!b) return a;
	if (!a) return { ...b };
	return {
		promptTokens: a.promptTokens + b.promptTokens,
		completionTokens: a.completionTokens + b.completionTokens,
		totalTokens: a.totalTokens + b.totalTokens,
	};
}
