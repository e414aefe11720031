// js-tiktoken's rank tables are reached through its package `exports` map, which the compiler's
// `node` module resolution does not read; these are their shapes (dist/ranks/*.d.ts).
declare module 'js-tiktoken/ranks/o200k_base' {
	const ranks: { pat_str: string; special_tokens: Record<string, number>; bpe_ranks: string };
	export default ranks;
}
declare module 'js-tiktoken/ranks/cl100k_base' {
	const ranks: { pat_str: string; special_tokens: Record<string, number>; bpe_ranks: string };
	export default ranks;
}
