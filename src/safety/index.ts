/**
 * Risk and safety evaluation (seed 000): harm categories on the 0-7 severity scale, protected
 * material and indirect attacks, the backend seam, the LLM backend and row evaluation.
 */
export * from './levels';
export * from './backend';
export * from './specs';
export * from './evaluate';
export * from './llm';
