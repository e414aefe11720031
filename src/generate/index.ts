/** Public API of the Eval Set Generator (re-exported by src/index.ts). */
export * from './chunk';
export * from './documents';
export * from './dedupe';
export * from './plan';
export * from './prompts';
export * from './generate';
export * from './estimate';
